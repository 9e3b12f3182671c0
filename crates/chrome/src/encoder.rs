//! The video encoder: an `ffmpeg` child that turns a stream of JPEG images into a WebM (VP8) or
//! MP4 (H.264) file at a constant frame rate.
//!
//! [`VideoEncoder::start`] finds `ffmpeg` on `PATH`, starts it in its own process group reading
//! JPEGs from a pipe, and arms a watchdog like Chrome's [`crate::guard`]: a tiny `/bin/sh` in
//! yet another group reading a pipe only we hold. If this process dies — even by SIGKILL —
//! ffmpeg's input pipe reaches EOF (ffmpeg then finishes the file and exits by itself) and the
//! watchdog's pipe closes too; the watchdog gives ffmpeg a short grace to write the file's
//! trailer, then kills its whole group. So an encoder never outlives its owner.
//!
//! The caller paces: [`VideoEncoder::write_frame`] once per output frame (the same image again
//! when nothing changed), [`VideoEncoder::finish`] to close the file.
//!
//! ```no_run
//! # async fn demo(jpeg: &[u8]) -> Result<(), abx_chrome::encoder::EncoderError> {
//! use abx_chrome::encoder::{EncoderOptions, VideoEncoder};
//! let options = EncoderOptions::new("/tmp/out.webm".into(), 30, (1280, 720));
//! let mut encoder = VideoEncoder::start(&options)?;
//! for _ in 0..30 {
//!     encoder.write_frame(jpeg).await?; // one second of video
//! }
//! let finished = encoder.finish().await?;
//! assert_eq!(finished.frames, 30);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};

/// How long ffmpeg may take to write the file's end after its input closed.
const FINISH_GRACE: Duration = Duration::from_secs(60);
/// The watchdog's grace (tenths of a second) between the owner's death and the kill.
const WATCHDOG_GRACE_TENTHS: u32 = 50;
/// The last bytes of ffmpeg's stderr kept for an error message.
const STDERR_TAIL: usize = 2048;

const WATCHDOG: &str = r#"
read line
if [ "$line" = disarm ]; then exit 0; fi
pgid="$1"; grace="$2"
# 0 and 1 would be our own group and init's: never signal those.
[ "$pgid" -gt 1 ] 2>/dev/null || exit 0
# The owner died, so ffmpeg's input reached EOF too: let it write the trailer, then make sure.
i=0
while [ "$i" -lt "$grace" ] && kill -0 -"$pgid" 2>/dev/null; do
  sleep 0.1
  i=$((i + 1))
done
kill -KILL -"$pgid" 2>/dev/null
exit 0
"#;

/// Why the encoder could not start or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncoderError {
    /// No `ffmpeg` executable on `PATH`.
    #[error(
        "ffmpeg not found on PATH: recording needs ffmpeg with libvpx (Debian/Ubuntu package `ffmpeg`: apt-get install ffmpeg)"
    )]
    NotFound,
    /// The output path has no extension ffmpeg could pick a format from.
    #[error("invalid output path {path}: use a .webm (VP8) or .mp4 (H.264) file name")]
    BadExtension {
        /// The path.
        path: PathBuf,
    },
    /// The output file cannot be created.
    #[error("cannot write {path}: {source}")]
    Unwritable {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// ffmpeg or its watchdog could not be started.
    #[error("cannot start ffmpeg: {0}")]
    Spawn(std::io::Error),
    /// ffmpeg stopped taking frames or ended with an error.
    #[error("ffmpeg failed: {0}")]
    Failed(String),
}

/// What to encode.
#[derive(Debug, Clone)]
pub struct EncoderOptions {
    /// The output file (`.webm` → VP8, `.mp4` → H.264).
    pub path: PathBuf,
    /// Output frames per second (1–60).
    pub fps: u32,
    /// Output size in pixels (rounded down to even numbers; every frame is scaled to it).
    pub size: (u32, u32),
    /// The ffmpeg executable; `None` finds `ffmpeg` on `PATH`.
    pub ffmpeg: Option<PathBuf>,
}

impl EncoderOptions {
    /// Options for `path` at `fps` and `size`, with ffmpeg from `PATH`.
    pub fn new(path: PathBuf, fps: u32, size: (u32, u32)) -> Self {
        Self {
            path,
            fps,
            size,
            ffmpeg: None,
        }
    }
}

/// The codec arguments for the output's extension.
fn codec_args(path: &Path) -> Result<&'static [&'static str], EncoderError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        // Realtime VP8: the encoder must keep up on a loaded machine, not win on size.
        Some("webm") => Ok(&[
            "-c:v",
            "libvpx",
            "-deadline",
            "realtime",
            "-cpu-used",
            "16",
            // No look-ahead: frames leave the encoder as they come, so `finish` is quick.
            "-lag-in-frames",
            "0",
            "-b:v",
            "2M",
            "-f",
            "webm",
        ]),
        Some("mp4") => Ok(&[
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
        ]),
        _ => Err(EncoderError::BadExtension {
            path: path.to_path_buf(),
        }),
    }
}

/// Checks what can be checked before any frame: ffmpeg on `PATH`, a known extension, a
/// writable file (created empty). Returns the ffmpeg path.
pub fn preflight(path: &Path, ffmpeg: Option<&Path>) -> Result<PathBuf, EncoderError> {
    codec_args(path)?;
    let ffmpeg = match ffmpeg {
        Some(p) => p.to_path_buf(),
        None => which::which("ffmpeg").map_err(|_| EncoderError::NotFound)?,
    };
    std::fs::File::create(path).map_err(|source| EncoderError::Unwritable {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(ffmpeg)
}

/// What a finished encoding wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The file.
    pub path: PathBuf,
    /// Frames written (duplicates included).
    pub frames: u64,
}

/// A running ffmpeg. Dropping it without [`VideoEncoder::finish`] kills ffmpeg's group.
#[derive(Debug)]
pub struct VideoEncoder {
    child: Child,
    pgid: i32,
    stdin: Option<ChildStdin>,
    watchdog: Option<Watchdog>,
    stderr: Arc<Mutex<Vec<u8>>>,
    path: PathBuf,
    frames: u64,
}

impl VideoEncoder {
    /// Starts ffmpeg for `options` (after [`preflight`]).
    pub fn start(options: &EncoderOptions) -> Result<Self, EncoderError> {
        let ffmpeg = preflight(&options.path, options.ffmpeg.as_deref())?;
        let codec = codec_args(&options.path)?;
        let fps = options.fps.clamp(1, 60).to_string();
        // Even sizes: yuv420p (and H.264) need them.
        let w = (options.size.0.max(2) / 2) * 2;
        let h = (options.size.1.max(2) / 2) * 2;
        let filter = format!("scale={w}:{h}:flags=bilinear,format=yuv420p");
        let mut command = Command::new(ffmpeg);
        command
            .args(["-hide_banner", "-loglevel", "error", "-y"])
            .args(["-f", "image2pipe", "-c:v", "mjpeg", "-framerate", &fps])
            .args(["-i", "pipe:0", "-an", "-vf", &filter, "-r", &fps])
            .args(codec)
            .arg(&options.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            // Own group, so the whole encoder can be signalled and a signal to ours misses it.
            .process_group(0)
            .kill_on_drop(false);
        let mut child = command.spawn().map_err(EncoderError::Spawn)?;
        let pgid = child.id().map_or(0, |p| p as i32);
        let watchdog = match Watchdog::spawn(pgid) {
            Ok(w) => w,
            Err(err) => {
                kill_group(pgid);
                return Err(EncoderError::Spawn(err));
            }
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut tail) = tail.lock() {
                        tail.extend_from_slice(&buf[..n]);
                        let excess = tail.len().saturating_sub(STDERR_TAIL);
                        tail.drain(..excess);
                    }
                }
            });
        }
        let stdin = child.stdin.take();
        Ok(Self {
            child,
            pgid,
            stdin,
            watchdog: Some(watchdog),
            stderr,
            path: options.path.clone(),
            frames: 0,
        })
    }

    /// ffmpeg's process id (its process group id too).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes one output frame (a JPEG image).
    pub async fn write_frame(&mut self, jpeg: &[u8]) -> Result<(), EncoderError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(EncoderError::Failed("the encoder is finished".into()));
        };
        if let Err(err) = stdin.write_all(jpeg).await {
            return Err(EncoderError::Failed(self.explain(&err.to_string())));
        }
        self.frames += 1;
        Ok(())
    }

    /// Closes the input, waits (bounded) for ffmpeg to write the file and reaps it.
    pub async fn finish(mut self) -> Result<Finished, EncoderError> {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.flush().await;
            drop(stdin);
        }
        let status = tokio::time::timeout(FINISH_GRACE, self.child.wait()).await;
        let outcome = match status {
            Ok(Ok(status)) if status.success() => Ok(Finished {
                path: self.path.clone(),
                frames: self.frames,
            }),
            Ok(Ok(status)) => Err(EncoderError::Failed(
                self.explain(&format!("ffmpeg exited with {status}")),
            )),
            Ok(Err(err)) => Err(EncoderError::Failed(err.to_string())),
            Err(_) => {
                kill_group(self.pgid);
                let _ = self.child.wait().await;
                Err(EncoderError::Failed(format!(
                    "ffmpeg did not finish within {} s and was killed",
                    FINISH_GRACE.as_secs()
                )))
            }
        };
        if let Some(watchdog) = self.watchdog.take() {
            watchdog.disarm().await;
        }
        outcome
    }

    /// `what`, with the end of ffmpeg's own message when it left one.
    fn explain(&self, what: &str) -> String {
        let tail = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_string())
            .unwrap_or_default();
        if tail.is_empty() {
            what.to_string()
        } else {
            format!("{what}: {tail}")
        }
    }
}

impl Drop for VideoEncoder {
    fn drop(&mut self) {
        // Not finished: an abandoned encoding (the session ended) must not linger. The
        // watchdog, whose pipe closes with it, exits after the kill.
        if self.stdin.is_some() || matches!(self.child.try_wait(), Ok(None)) {
            kill_group(self.pgid);
            let _ = self.child.start_kill();
        }
    }
}

fn kill_group(pgid: i32) {
    let _ = crate::group::signal(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// The encoder's orphan watchdog (see the module docs).
#[derive(Debug)]
struct Watchdog {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Watchdog {
    fn spawn(pgid: i32) -> std::io::Result<Self> {
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("abx-encoder-guard")
            .arg(pgid.to_string())
            .arg(WATCHDOG_GRACE_TENTHS.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(false)
            .spawn()?;
        let stdin = child.stdin.take();
        Ok(Self { child, stdin })
    }

    async fn disarm(mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"disarm\n").await;
            let _ = stdin.flush().await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), self.child.wait()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_extension_is_refused_before_ffmpeg_runs() {
        let refused = preflight(Path::new("/tmp/abx-video"), Some(Path::new("/bin/true")));
        assert!(matches!(refused, Err(EncoderError::BadExtension { .. })));
    }

    #[test]
    fn an_unwritable_path_is_refused_before_ffmpeg_runs() {
        let refused = preflight(
            Path::new("/nonexistent-abx-dir/x.webm"),
            Some(Path::new("/bin/true")),
        );
        assert!(matches!(refused, Err(EncoderError::Unwritable { .. })));
    }

    #[test]
    fn the_missing_ffmpeg_error_names_the_debian_package() {
        let text = EncoderError::NotFound.to_string();
        assert!(text.contains("ffmpeg") && text.contains("apt-get install ffmpeg"));
    }
}
