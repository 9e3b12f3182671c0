//! Video recording of the streamed tab, from the relay's own screencast.
//!
//! A [`Recorder`] belongs to one [`Relay`]. While a recording runs it holds a [`Viewer`] of that
//! relay, so the one screencast the live view already uses feeds the recording too: no second
//! `Page.startScreencast`, no screenshot polling. A pacing task writes exactly `fps` frames per
//! second of wall time to an ffmpeg child ([`abx_chrome::encoder::VideoEncoder`]): the newest
//! screencast frame at each tick, the previous one again while the page is idle (Chrome sends
//! frames only when something repaints). The encoder runs in its own process group under a
//! watchdog, so it never outlives this process.
//!
//! ```no_run
//! # async fn demo(relay: abx_relay::Relay) -> Result<(), abx_relay::RecordError> {
//! use abx_relay::{RecordOptions, Recorder};
//! let recorder = Recorder::new(relay);
//! recorder.start(RecordOptions::new("/tmp/demo.webm".into(), 30)).await?;
//! // ... drive the page ...
//! let summary = recorder.stop().await?;
//! println!("{} frames ({} from Chrome)", summary.frames, summary.captured_frames);
//! # Ok(()) }
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use abx_chrome::encoder::{EncoderError, EncoderOptions, VideoEncoder, preflight};
use tokio::sync::mpsc::error::TrySendError;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::frame::{Frame, FrameReceiver};
use crate::relay::{Relay, Viewer};

/// How long a write to ffmpeg may block before the encoder counts as stalled.
const WRITE_STALL: Duration = Duration::from_secs(20);
/// How far (in video time) the encoder may fall behind before ticks are skipped.
const BACKLOG: Duration = Duration::from_secs(2);

/// What to record.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The output file (`.webm` or `.mp4`).
    pub path: PathBuf,
    /// Frames per second of output, 1–60.
    pub fps: u32,
    /// How long to wait for the screencast's first frame.
    pub first_frame_timeout: Duration,
    /// The ffmpeg executable; `None` finds `ffmpeg` on `PATH`.
    pub ffmpeg: Option<PathBuf>,
}

impl RecordOptions {
    /// `path` at `fps`, ffmpeg from `PATH`, 10 s for the first frame.
    pub fn new(path: PathBuf, fps: u32) -> Self {
        Self {
            path,
            fps: fps.clamp(1, 60),
            first_frame_timeout: Duration::from_secs(10),
            ffmpeg: None,
        }
    }
}

/// Why a recording could not start or stop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// `start` while a recording runs.
    #[error("Recording already active")]
    AlreadyRecording,
    /// `stop` with nothing recording.
    #[error("No recording in progress")]
    NotRecording,
    /// The screencast sent no frame in time (no browser, or the tab never painted).
    #[error("no screencast frame within {0:?}: is a page open?")]
    NoFrame(Duration),
    /// The encoder failed.
    #[error(transparent)]
    Encoder(#[from] EncoderError),
}

/// A recording that started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingStarted {
    /// The output file.
    pub path: PathBuf,
    /// Output frames per second.
    pub fps: u32,
    /// ffmpeg's process id.
    pub encoder_pid: Option<u32>,
}

/// A finished recording.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordingSummary {
    /// The output file.
    pub path: PathBuf,
    /// Output frames per second.
    pub fps: u32,
    /// Frames written (held frames included).
    pub frames: u64,
    /// Distinct frames the screencast delivered.
    pub captured_frames: u64,
    /// Ticks skipped because the encoder was more than its backlog behind.
    pub dropped_frames: u64,
    /// Wall time recorded.
    pub duration: Duration,
}

struct Running {
    path: PathBuf,
    fps: u32,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<Result<RecordingSummary, RecordError>>,
}

/// The recordings of one relay (one at a time).
pub struct Recorder {
    relay: Relay,
    current: tokio::sync::Mutex<Option<Running>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder for `relay`'s streamed tab.
    pub fn new(relay: Relay) -> Recorder {
        Recorder {
            relay,
            current: tokio::sync::Mutex::new(None),
        }
    }

    /// Whether a recording runs (and has not failed).
    pub async fn is_recording(&self) -> bool {
        self.current
            .lock()
            .await
            .as_ref()
            .is_some_and(|r| !r.task.is_finished())
    }

    /// Starts recording to `options.path`.
    pub async fn start(&self, options: RecordOptions) -> Result<RecordingStarted, RecordError> {
        let mut slot = self.current.lock().await;
        if slot.as_ref().is_some_and(|r| !r.task.is_finished()) {
            return Err(RecordError::AlreadyRecording);
        }
        // A recording whose encoder failed on its own is over: forget it.
        if let Some(old) = slot.take() {
            let _ = old.task.await;
        }
        self.begin(&mut slot, options).await
    }

    /// Stops the recording and waits for the file.
    pub async fn stop(&self) -> Result<RecordingSummary, RecordError> {
        let running = self.current.lock().await.take();
        let running = running.ok_or(RecordError::NotRecording)?;
        finish(running).await
    }

    /// Stops the running recording (if any) and starts a new one; returns what was stopped.
    pub async fn restart(
        &self,
        options: RecordOptions,
    ) -> Result<(Option<RecordingSummary>, RecordingStarted), RecordError> {
        let mut slot = self.current.lock().await;
        let previous = match slot.take() {
            Some(running) => Some(finish(running).await?),
            None => None,
        };
        let started = self.begin(&mut slot, options).await?;
        Ok((previous, started))
    }

    async fn begin(
        &self,
        slot: &mut Option<Running>,
        options: RecordOptions,
    ) -> Result<RecordingStarted, RecordError> {
        preflight(&options.path, options.ffmpeg.as_deref())?;
        // A screencast already running has a current frame cached; one that starts for us
        // sends a fresh one (an old cached frame may show a page long gone).
        let casting = self.relay.viewers() > 0 && self.relay.status().screencasting;
        let viewer = self.relay.viewer();
        let mut frames = viewer.frames();
        let cached = if casting { frames.latest() } else { None };
        let first = match cached {
            Some(frame) => frame,
            None => tokio::time::timeout(options.first_frame_timeout, frames.next())
                .await
                .ok()
                .flatten()
                .ok_or(RecordError::NoFrame(options.first_frame_timeout))?,
        };
        let meta = first.metadata();
        let size = meta
            .image_size
            .unwrap_or((meta.device_width as u32, meta.device_height as u32));
        let encoder = VideoEncoder::start(&EncoderOptions {
            path: options.path.clone(),
            fps: options.fps,
            size,
            ffmpeg: options.ffmpeg.clone(),
        })?;
        let started = RecordingStarted {
            path: options.path.clone(),
            fps: options.fps,
            encoder_pid: encoder.pid(),
        };
        let stop = CancellationToken::new();
        let task = tokio::spawn(pace(
            viewer,
            frames,
            first,
            encoder,
            options.fps,
            stop.clone(),
        ));
        *slot = Some(Running {
            path: options.path,
            fps: options.fps,
            stop,
            task,
        });
        Ok(started)
    }
}

async fn finish(running: Running) -> Result<RecordingSummary, RecordError> {
    running.stop.cancel();
    match running.task.await {
        Ok(result) => result,
        Err(join) => Err(RecordError::Encoder(EncoderError::Failed(format!(
            "the recording of {} at {} fps ended abnormally: {join}",
            running.path.display(),
            running.fps
        )))),
    }
}

/// Queues `fps` frames per second of wall time until `stop` — the newest frame, or the last one
/// again when none arrived — for a writer task that feeds ffmpeg at ffmpeg's own pace.
///
/// The two are decoupled by a bounded queue: a held frame is the same shared buffer again (no
/// copy), so the queue costs memory only for distinct frames. An encoder slower than real time
/// (a loaded machine) works through the backlog; one more than [`BACKLOG`] behind makes the
/// pacer skip ticks (counted as `dropped`) instead of ever blocking the screencast or commands.
async fn pace(
    _viewer: Viewer,
    mut frames: FrameReceiver,
    first: Frame,
    encoder: VideoEncoder,
    fps: u32,
    stop: CancellationToken,
) -> Result<RecordingSummary, RecordError> {
    let period = Duration::from_secs(1) / fps;
    let backlog = (BACKLOG.as_millis() as usize * fps as usize / 1000).max(2);
    let (queue, pending) = tokio::sync::mpsc::channel::<Arc<Vec<u8>>>(backlog);
    let writer = tokio::spawn(write(encoder, pending));
    let started = Instant::now();
    let mut captured: u64 = 1;
    let mut dropped: u64 = 0;
    let mut newest = first;
    let mut jpeg: Option<Arc<Vec<u8>>> = None;
    let mut ticks: u32 = 0;
    let mut stopping = false;
    let mut relay_gone = false;
    loop {
        let due = started + period * ticks;
        if !stopping {
            tokio::select! {
                biased;
                _ = stop.cancelled() => {
                    stopping = true;
                }
                frame = frames.next(), if !relay_gone => {
                    match frame {
                        Some(frame) => {
                            captured += 1;
                            newest = frame;
                            jpeg = None;
                        }
                        // The relay is gone: hold the last frame until stopped.
                        None => relay_gone = true,
                    }
                    continue;
                }
                _ = tokio::time::sleep_until(due) => {}
            }
        }
        // Close the file at the stop time: the ticks still due, then no more.
        if stopping && period * ticks > started.elapsed() {
            break;
        }
        let image = match &jpeg {
            Some(image) => image.clone(),
            None => {
                let image = Arc::new(decode(&newest)?);
                jpeg = Some(image.clone());
                image
            }
        };
        ticks += 1;
        match queue.try_send(image) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => dropped += 1,
            // The writer ended early: ffmpeg failed; its error is the answer.
            Err(TrySendError::Closed(_)) => break,
        }
    }
    let duration = started.elapsed();
    drop(queue);
    let finished = match writer.await {
        Ok(result) => result?,
        Err(join) => {
            return Err(RecordError::Encoder(EncoderError::Failed(format!(
                "the encoder task ended abnormally: {join}"
            ))));
        }
    };
    Ok(RecordingSummary {
        path: finished.path,
        fps,
        frames: finished.frames,
        captured_frames: captured,
        dropped_frames: dropped,
        duration,
    })
}

/// Feeds queued frames to ffmpeg, then closes the file.
async fn write(
    mut encoder: VideoEncoder,
    mut pending: tokio::sync::mpsc::Receiver<Arc<Vec<u8>>>,
) -> Result<abx_chrome::encoder::Finished, RecordError> {
    while let Some(image) = pending.recv().await {
        match tokio::time::timeout(WRITE_STALL, encoder.write_frame(&image)).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(RecordError::Encoder(EncoderError::Failed(format!(
                    "ffmpeg took no frame for {} s",
                    WRITE_STALL.as_secs()
                ))));
            }
        }
    }
    Ok(encoder.finish().await?)
}

fn decode(frame: &Frame) -> Result<Vec<u8>, RecordError> {
    frame.jpeg().map_err(|e| {
        RecordError::Encoder(EncoderError::Failed(format!(
            "a screencast frame was not base64: {e}"
        )))
    })
}
