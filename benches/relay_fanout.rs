//! Live view against real Chromium, end to end (opt-in: needs Chromium; runs only with
//! `ABX_BENCH_REAL=1` or `--real`, which `benches/run.sh --real` passes).
//!
//! One headless Chromium shows the animated fixture page; the relay streams it through its
//! `StreamServer` to WebSocket viewers on loopback (same process, their own runtime thread).
//! The page paints a timestamp strip every frame: 48 squares of 8×8 CSS px at y 0..8,
//! x = i·8, square i = bit 47−i of `Date.now()` (white 1, black 0) on a mid-grey row. Only this
//! bench client decodes JPEGs (the `image` crate), and only after each measuring window, so
//! decoding never competes with what it measures.
//!
//! Reported:
//! * **Fan-out** for N = 1, 2, 4, 8, 16 viewers: Chrome's source rate (frames the relay read),
//!   frames per second each viewer received, and per frame
//!   - *relay added latency*: the CDP reader finished reading `Page.screencastFrame` → the viewer
//!     finished receiving its `frame` message (frames matched by `metadata.timestamp`);
//!   - *end to end*: the page's `Date.now()` painted into the frame → the viewer received it
//!     (viewer 0's frames, strip decoded; ms resolution since `Date.now()` is in ms), and
//!     *Chrome's share* of it: painted → the relay read the frame;
//!   - Chrome's CPU (its whole process group, from `/proc/<pid>/stat`) per second.
//! * **Connect → first frame**: *cold* (no screencast running: the relay starts one on the first
//!   viewer and Chrome captures) and *warm* (a screencast is running: the cached frame goes out
//!   with the greeting).
//! * **Input round trip**: a viewer sends `mousePressed`/`mouseReleased` over the stream socket;
//!   *to the page*: send → the page's click handler (`window.__clicks[k].t`, ms), and *to the
//!   viewer*: send → the first frame this viewer received that shows the click's yellow marker.
//!
//! `cargo bench -p abx-bench --bench relay_fanout -- --real` (env `ABX_BENCH_SECONDS`, default
//! 3 s per fan-out row). Prints Markdown tables; never asserts timings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use abx_engine::{Browser, Session, SessionOptions, WaitUntil};
use abx_relay::{NoHooks, Relay, RelayOptions, ServerOptions, StreamServer};
use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

/// Wall-clock epoch ms of an `Instant` (through one reference pair taken at start).
#[derive(Clone, Copy)]
struct Clock {
    instant: Instant,
    epoch_ms: f64,
}

impl Clock {
    fn now() -> Clock {
        Clock {
            instant: Instant::now(),
            epoch_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64() * 1000.0),
        }
    }

    fn epoch_ms(&self, at: Instant) -> f64 {
        if at >= self.instant {
            self.epoch_ms + (at - self.instant).as_secs_f64() * 1000.0
        } else {
            self.epoch_ms - (self.instant - at).as_secs_f64() * 1000.0
        }
    }
}

/// A number field of a frame message's header (`"deviceWidth":1280`, `"timestamp":…`).
fn header_number(text: &str, field: &str) -> Option<f64> {
    let head = text.get(..text.len().min(512))?;
    let at = head.find(&format!("\"{field}\":"))? + field.len() + 3;
    let digits: String = head[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits.parse().ok()
}

fn is_frame(text: &str) -> bool {
    text.starts_with(r#"{"type":"frame""#)
}

/// A decoded frame with the page's CSS size, for sampling page coordinates.
struct Decoded {
    image: image::RgbImage,
    css_width: f64,
    css_height: f64,
}

impl Decoded {
    fn from_message(text: &str) -> Option<Decoded> {
        let data = text
            .split_once(r#""data":""#)
            .and_then(|(_, rest)| rest.strip_suffix("\"}"))?;
        let jpeg = base64::engine::general_purpose::STANDARD
            .decode(data)
            .ok()?;
        let image = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg)
            .ok()?
            .to_rgb8();
        Some(Decoded {
            css_width: header_number(text, "deviceWidth").unwrap_or(f64::from(image.width())),
            css_height: header_number(text, "deviceHeight").unwrap_or(f64::from(image.height())),
            image,
        })
    }

    /// The pixel at page coordinates (the frame may be scaled).
    fn css_pixel(&self, x: f64, y: f64) -> Option<[u8; 3]> {
        let px = (x * f64::from(self.image.width()) / self.css_width) as u32;
        let py = (y * f64::from(self.image.height()) / self.css_height) as u32;
        (px < self.image.width() && py < self.image.height())
            .then(|| self.image.get_pixel(px, py).0)
    }

    /// The `Date.now()` the page painted into the strip, if every square reads clearly.
    fn painted_ms(&self) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..48 {
            let [r, g, b] = self.css_pixel(f64::from(i * 8 + 4), 4.0)?;
            let luma = (u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114) / 1000;
            let bit = match luma {
                0..=80 => 0,
                176.. => 1,
                _ => return None,
            };
            value = value << 1 | bit;
        }
        Some(value)
    }

    /// Whether the page's yellow click marker (a cross of 20 CSS px) is drawn at (x, y).
    fn shows_marker(&self, x: f64, y: f64) -> bool {
        let yellow = |p: Option<[u8; 3]>| p.is_some_and(|[r, g, b]| r > 150 && g > 150 && b < 120);
        let arms = [(x - 7.0, y), (x + 7.0, y), (x, y - 7.0), (x, y + 7.0)];
        arms.iter()
            .filter(|(ax, ay)| yellow(self.css_pixel(*ax, *ay)))
            .count()
            >= 3
    }
}

struct ViewerLog {
    /// (metadata timestamp ms, receive instant) of every frame.
    frames: Vec<(u64, Instant)>,
    /// Whole frame messages with their receive instants (only when asked to keep them).
    kept: Vec<(Instant, String)>,
}

/// A viewer that reads until `stop`; keeps whole frames when `keep`.
async fn viewer(port: u16, keep: bool, mut stop: watch::Receiver<bool>) -> ViewerLog {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("viewer connects");
    let mut log = ViewerLog {
        frames: Vec::with_capacity(1024),
        kept: Vec::new(),
    };
    loop {
        tokio::select! {
            message = ws.next() => {
                let at = Instant::now();
                match message {
                    Some(Ok(Message::Text(text))) if is_frame(&text) => {
                        if let Some(ts) = header_number(&text, "timestamp") {
                            log.frames.push((ts as u64, at));
                        }
                        if keep {
                            log.kept.push((at, text.to_string()));
                        }
                    }
                    Some(Ok(_)) => {}
                    _ => break,
                }
            }
            _ = stop.changed() => break,
        }
    }
    let _ = tokio::time::timeout(Duration::from_millis(200), ws.close(None)).await;
    log
}

/// Connect → the first `frame` message, and → the first frame newer than `cached_seq` (what
/// the relay held when the viewer connected, which it sends with the greeting even when the
/// screencast had stopped and the image is stale).
async fn first_frame(port: u16, cached_seq: u64) -> (Duration, Duration) {
    let started = Instant::now();
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("viewer connects");
    let mut first = None;
    let fresh = loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) if is_frame(&text) => {
                let at = started.elapsed();
                first.get_or_insert(at);
                if header_number(&text, "seq").is_some_and(|seq| seq as u64 > cached_seq) {
                    break at;
                }
            }
            Ok(Some(Ok(_))) => {}
            other => panic!("no first frame: {other:?}"),
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(200), ws.close(None)).await;
    (first.unwrap_or(fresh), fresh)
}

/// CPU time (ms) of every process in Chrome's process group.
fn group_cpu_ms(pgid: i32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut ticks = 0u64;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command: state, ppid, pgrp, ..., utime (index 11), stime (12).
        if fields.get(2).and_then(|f| f.parse::<i32>().ok()) == Some(pgid) {
            ticks += fields
                .get(11)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
                + fields
                    .get(12)
                    .and_then(|f| f.parse::<u64>().ok())
                    .unwrap_or(0);
        }
    }
    ticks * 10
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 600_000_000, 3).expect("histogram")
}

fn q(h: &Histogram<u64>, quantile: f64, scale: f64, decimals: usize) -> String {
    if h.is_empty() {
        "–".into()
    } else {
        format!(
            "{:.*}",
            decimals,
            h.value_at_quantile(quantile) as f64 / scale
        )
    }
}

fn max(h: &Histogram<u64>, scale: f64, decimals: usize) -> String {
    if h.is_empty() {
        "–".into()
    } else {
        format!("{:.*}", decimals, h.max() as f64 / scale)
    }
}

fn main() {
    let real = std::env::args().any(|a| a == "--real")
        || std::env::var("ABX_BENCH_REAL").is_ok_and(|v| v == "1");
    if !real {
        println!(
            "relay_fanout: skipped (real Chromium; opt in with ABX_BENCH_REAL=1 or `-- --real`)"
        );
        return;
    }
    let seconds: f64 = std::env::var("ABX_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let run_for = Duration::from_secs_f64(seconds);
    // Viewers on their own thread, as a remote viewer would not share the relay's workers.
    let (viewers_tx, viewers_rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("viewers".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("viewer runtime");
            viewers_tx
                .send(runtime.handle().clone())
                .expect("viewer runtime handle");
            runtime.block_on(std::future::pending::<()>());
        })
        .expect("viewer thread");
    let viewers = viewers_rx.recv().expect("viewer runtime");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("relay runtime");
    runtime.block_on(run(viewers, run_for));
}

async fn run(viewers: tokio::runtime::Handle, run_for: Duration) {
    let clock = Clock::now();
    let site = abx_fixtures::FixtureServer::start()
        .await
        .expect("fixture site");
    let browser = Arc::new(
        Browser::launch(abx_engine::LaunchOptions {
            args: vec!["--disable-quic".into(), "--disable-gpu".into()],
            ..abx_engine::LaunchOptions::default()
        })
        .await
        .expect("launch"),
    );
    let chrome_pgid = browser.chrome_pid().unwrap_or(0);
    let session = Arc::new(
        Session::start(browser, SessionOptions::default())
            .await
            .expect("session"),
    );
    session
        .navigate(&site.url("/animated.html"), WaitUntil::Load, None)
        .await
        .expect("navigate");
    let relay = Relay::new(RelayOptions::default());
    relay.set_session(Some(session.clone()));
    let server = StreamServer::start(relay.clone(), ServerOptions::default(), Arc::new(NoHooks))
        .expect("stream server");
    let port = server.port();

    // When the relay's CDP reader read each frame, by its metadata timestamp (ms).
    let read_at: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let tab = session
        .active_target()
        .and_then(|id| session.attached_tab(&id))
        .expect("attached tab");
    let mut cdp_frames = tab.cdp().subscribe(
        abx_cdp::EventFilter::methods(["Page.screencastFrame"]),
        4096,
    );
    let recorder = {
        let read_at = read_at.clone();
        tokio::spawn(async move {
            while let Some(event) = cdp_frames.recv().await {
                if let Some(frame) = event.screencast_frame()
                    && let Some(ts) = frame.metadata.timestamp
                    && let Ok(mut map) = read_at.lock()
                {
                    map.insert((ts * 1000.0).round() as u64, event.received_at());
                }
            }
        })
    };

    // Connect → first frame, cold: no screencast runs until this viewer arrives.
    let mut cold = Vec::new();
    for _ in 0..5 {
        let cached = relay.latest_frame().map_or(0, |f| f.seq());
        cold.push(
            viewers
                .spawn(first_frame(port, cached))
                .await
                .expect("viewer"),
        );
        // Wait for the relay to stop the screencast again.
        let deadline = Instant::now() + Duration::from_secs(3);
        while (relay.viewers() > 0 || relay.status().screencasting) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // From here on a screencast runs all the time (this registration counts as a viewer).
    let _watching = relay.viewer();
    let mut frames = relay.frames();
    tokio::time::timeout(Duration::from_secs(5), frames.next())
        .await
        .expect("a frame within 5 s");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut warm = Vec::new();
    for _ in 0..5 {
        let cached = relay.latest_frame().map_or(0, |f| f.seq());
        warm.push(
            viewers
                .spawn(first_frame(port, cached))
                .await
                .expect("viewer"),
        );
    }

    println!(
        "| viewers | source fps | fps per viewer (min–max) | relay added latency p50 µs | p90 | p99 | max | end to end p50 ms | p90 | p99 | max | Chrome's share p50 ms | decoded frames | Chrome CPU ms/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for n in [1usize, 2, 4, 8, 16] {
        let (stop_tx, stop_rx) = watch::channel(false);
        let handles: Vec<_> = (0..n)
            .map(|i| viewers.spawn(viewer(port, i == 0, stop_rx.clone())))
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let t0 = Instant::now();
        let cpu0 = group_cpu_ms(chrome_pgid);
        tokio::time::sleep(run_for).await;
        let t1 = Instant::now();
        let cpu1 = group_cpu_ms(chrome_pgid);
        tokio::time::sleep(Duration::from_millis(200)).await;
        let _ = stop_tx.send(true);
        let mut logs = Vec::new();
        for handle in handles {
            logs.push(handle.await.expect("viewer task"));
        }
        let window = (t1 - t0).as_secs_f64();
        let read: HashMap<u64, Instant> = read_at
            .lock()
            .map(|m| {
                m.iter()
                    .filter(|(_, at)| **at >= t0 && **at < t1)
                    .map(|(k, v)| (*k, *v))
                    .collect()
            })
            .unwrap_or_default();
        let mut added = histogram();
        let mut rates = Vec::new();
        for log in &logs {
            let mut count = 0;
            for (ts, at) in &log.frames {
                if let Some(from) = read.get(ts) {
                    count += 1;
                    let _ =
                        added.record(at.saturating_duration_since(*from).as_micros().max(1) as u64);
                }
            }
            rates.push(count as f64 / window);
        }
        // End to end, from viewer 0's frames of the window (decoded now, after the window).
        let mut e2e = histogram();
        let mut chrome_share = histogram();
        let mut decoded = 0;
        for (at, text) in &logs[0].kept {
            let Some(ts) = header_number(text, "timestamp").map(|t| t as u64) else {
                continue;
            };
            let Some(from) = read.get(&ts) else { continue };
            let Some(painted) = Decoded::from_message(text).and_then(|d| d.painted_ms()) else {
                continue;
            };
            let painted = painted as f64;
            let received = clock.epoch_ms(*at);
            if (received - painted).abs() > 60_000.0 {
                continue; // not a timestamp: a misread strip
            }
            decoded += 1;
            let _ = e2e.record(((received - painted) * 1000.0).max(1.0) as u64);
            let _ =
                chrome_share.record(((clock.epoch_ms(*from) - painted) * 1000.0).max(1.0) as u64);
        }
        let min_rate = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let max_rate = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "| {n} | {:.1} | {min_rate:.1}–{max_rate:.1} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {decoded} | {:.0} |",
            read.len() as f64 / window,
            q(&added, 0.5, 1.0, 0),
            q(&added, 0.9, 1.0, 0),
            q(&added, 0.99, 1.0, 0),
            max(&added, 1.0, 0),
            q(&e2e, 0.5, 1000.0, 1),
            q(&e2e, 0.9, 1000.0, 1),
            q(&e2e, 0.99, 1000.0, 1),
            max(&e2e, 1000.0, 1),
            q(&chrome_share, 0.5, 1000.0, 1),
            cpu1.saturating_sub(cpu0) as f64 / window,
        );
        assert!(
            rates.iter().all(|r| *r > 0.0),
            "every viewer gets frames ({n} viewers)"
        );
    }

    // Input round trip: clicks sent by a viewer over the stream socket.
    let css_width = relay.status().viewport_width as f64;
    let (stop_tx, stop_rx) = watch::channel(false);
    let probe = viewers.spawn(viewer(port, true, stop_rx.clone()));
    let (mut input, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("input viewer connects");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let clicks_before = session
        .page(None)
        .await
        .expect("page")
        .evaluate("window.__clicks.length")
        .await
        .expect("evaluate")
        .value
        .as_u64()
        .unwrap_or(0) as usize;
    let mut sent = Vec::new();
    for k in 0..20usize {
        let x = css_width - 20.0 - (k % 4) as f64 * 30.0;
        let y = 40.0 + (k / 4) as f64 * 30.0;
        let press = format!(
            r#"{{"type":"input_mouse","eventType":"mousePressed","x":{x},"y":{y},"button":"left","clickCount":1}}"#
        );
        let release = press.replace("mousePressed", "mouseReleased");
        input.send(Message::text(press)).await.expect("send press");
        let at = Instant::now();
        input
            .send(Message::text(release))
            .await
            .expect("send release");
        sent.push((x, y, at));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = stop_tx.send(true);
    let probe = probe.await.expect("probe viewer");
    let _ = input.close(None).await;
    let handled: Vec<f64> = session
        .page(None)
        .await
        .expect("page")
        .evaluate(&format!(
            "JSON.stringify(window.__clicks.slice({clicks_before}).map(c => c.t))"
        ))
        .await
        .ok()
        .and_then(|e| e.value.as_str().and_then(|s| serde_json::from_str(s).ok()))
        .unwrap_or_default();
    let mut to_page = histogram();
    let mut to_viewer = histogram();
    // Decoded lazily: only frames after a click are looked at, each at most once.
    let mut decoded: Vec<Option<Decoded>> = probe.kept.iter().map(|_| None).collect();
    for (k, (x, y, at)) in sent.iter().enumerate() {
        if let Some(t) = handled.get(k) {
            let _ = to_page.record(((t - clock.epoch_ms(*at)) * 1000.0).max(1.0) as u64);
        }
        // The first frame after the send that shows this click's marker.
        for (i, (received, _)) in probe.kept.iter().enumerate() {
            if received < at {
                continue;
            }
            if decoded[i].is_none() {
                decoded[i] = Decoded::from_message(&probe.kept[i].1);
            }
            if decoded[i].as_ref().is_some_and(|d| d.shows_marker(*x, *y)) {
                let _ = to_viewer.record(received.duration_since(*at).as_micros().max(1) as u64);
                break;
            }
        }
    }

    let ms = |v: &[(Duration, Duration)], pick: fn(&(Duration, Duration)) -> Duration| {
        let mut v: Vec<Duration> = v.iter().map(pick).collect();
        v.sort();
        let p = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
        format!("{:.1} | {:.1} | {:.1}", p(0.0), p(0.5), p(1.0))
    };
    println!();
    println!("| connect → first frame (5 runs each) | min ms | median ms | max ms |");
    println!("|---|---|---|---|");
    println!(
        "| cold: no screencast running — first frame message (the relay's last image, if it has one) | {} |",
        ms(&cold, |c| c.0)
    );
    println!(
        "| cold: first frame captured after connecting (relay starts the screencast, Chrome captures) | {} |",
        ms(&cold, |c| c.1)
    );
    println!(
        "| warm: screencast running — first frame message (cached, with the greeting) | {} |",
        ms(&warm, |c| c.0)
    );
    println!(
        "| warm: first frame captured after connecting | {} |",
        ms(&warm, |c| c.1)
    );
    println!();
    println!(
        "| input round trip (20 clicks over the stream socket) | p50 ms | p90 ms | max ms | clicks seen |"
    );
    println!("|---|---|---|---|---|");
    println!(
        "| sent → page click handler (`Date.now()`, ms resolution) | {} | {} | {} | {} |",
        q(&to_page, 0.5, 1000.0, 1),
        q(&to_page, 0.9, 1000.0, 1),
        max(&to_page, 1000.0, 1),
        to_page.len()
    );
    println!(
        "| sent → first frame at the viewer showing the click | {} | {} | {} | {} |",
        q(&to_viewer, 0.5, 1000.0, 1),
        q(&to_viewer, 0.9, 1000.0, 1),
        max(&to_viewer, 1000.0, 1),
        to_viewer.len()
    );
    println!();
    println!(
        "Chromium: {}; viewport {}×{} CSS px; {:.0} s per fan-out row.",
        chrome_version(),
        relay.status().viewport_width,
        relay.status().viewport_height,
        run_for.as_secs_f64()
    );
    recorder.abort();
    server.shutdown().await;
    relay.stop().await;
    let receipt = session.close().await;
    assert!(receipt.verified, "Chrome did not close cleanly");
}

fn chrome_version() -> String {
    std::process::Command::new(
        std::env::var("AGENT_BROWSER_EXECUTABLE_PATH").unwrap_or_else(|_| "chromium".into()),
    )
    .arg("--version")
    .output()
    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    .unwrap_or_default()
}
