//! The live view through the drop-in binary: the daemon's stream server on `<s>.stream`, its
//! messages, frame rate and fan-out, viewer input, dialogs, reopen tab, access rules and the
//! `stream` commands — against real Chromium and the fixture site.
//!
//! Every wait below is bounded and ends as soon as what it waits for happens; a test that times
//! out has failed. `ABX_TEST_TRACE=1` prints the messages a wait skipped (frames excepted).

use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_tests::cli::{Cli, Output};
use abx_tests::wait_until_async;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

mod common;
use common::site;

/// Runs the CLI off the async runtime.
async fn run(ab: &Arc<Cli>, args: &[&str]) -> Output {
    let ab = ab.clone();
    let args: Vec<String> = args.iter().map(ToString::to_string).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ab.run(&args)
    })
    .await
    .expect("cli task")
}

/// `eval` through the CLI, as JSON.
async fn eval(ab: &Arc<Cli>, script: &str) -> Value {
    run(ab, &["--json", "eval", script]).await.success().json()["data"]["result"].clone()
}

fn stream_port(ab: &Cli) -> u16 {
    std::fs::read_to_string(ab.file("stream"))
        .expect("<session>.stream written by the daemon")
        .trim()
        .parse()
        .expect("a port in <session>.stream")
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A stream viewer.
struct Viewer {
    ws: Ws,
}

fn is_frame(text: &str) -> bool {
    text.starts_with(r#"{"type":"frame""#)
}

impl Viewer {
    async fn connect(port: u16, query: &str) -> Viewer {
        Self::try_connect(port, query, &[])
            .await
            .unwrap_or_else(|e| panic!("viewer connect: {e}"))
    }

    async fn try_connect(
        port: u16,
        query: &str,
        headers: &[(&'static str, &str)],
    ) -> Result<Viewer, WsError> {
        let mut request = format!("ws://127.0.0.1:{port}/{query}")
            .into_client_request()
            .expect("request");
        for (name, value) in headers {
            request
                .headers_mut()
                .insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        let (ws, _) = tokio_tungstenite::connect_async(request).await?;
        Ok(Viewer { ws })
    }

    /// The next text message, raw.
    async fn next_text(&mut self, within: Duration) -> String {
        self.try_next_text(within)
            .await
            .unwrap_or_else(|| panic!("no message within {within:?}"))
    }

    /// The next text message, raw; `None` when none comes within `within`.
    async fn try_next_text(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = tokio::time::timeout(left, self.ws.next())
                .await
                .ok()?
                .expect("stream open")
                .expect("websocket message");
            match message {
                Message::Text(text) => return Some(text.to_string()),
                Message::Close(frame) => panic!("server closed the stream: {frame:?}"),
                _ => {}
            }
        }
    }

    async fn next_json(&mut self, within: Duration) -> Value {
        let text = self.next_text(within).await;
        serde_json::from_str(&text).expect("JSON message")
    }

    /// The next message of `kind`, skipping others (frames are skipped without parsing).
    async fn next_of(&mut self, kind: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        // The last messages skipped (frames aside), named if the wait fails: an `error` reply
        // to a viewer message says why what was waited for never came.
        let mut skipped: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let text = match left.is_zero() {
                true => None,
                false => self.try_next_text(left).await,
            };
            let Some(text) = text else {
                panic!("no {kind} message within {within:?}; skipped meanwhile: {skipped:?}");
            };
            if kind != "frame" && is_frame(&text) {
                continue;
            }
            let value: Value = serde_json::from_str(&text).expect("JSON message");
            if value["type"] == kind {
                return value;
            }
            if !is_frame(&text) {
                if std::env::var("ABX_TEST_TRACE").is_ok() {
                    eprintln!("skipped while waiting for {kind}: {text}");
                }
                if skipped.len() == 8 {
                    skipped.remove(0);
                }
                skipped.push(text.chars().take(300).collect());
            }
        }
    }

    async fn send(&mut self, message: Value) {
        self.ws
            .send(Message::text(message.to_string()))
            .await
            .expect("send to viewer socket");
    }

    /// Counts frames for `window` (checking that `seq` increases).
    async fn count_frames(&mut self, window: Duration) -> FrameCount {
        let end = Instant::now() + window;
        let mut count = FrameCount {
            window,
            ..FrameCount::default()
        };
        while Instant::now() < end {
            let left = end.saturating_duration_since(Instant::now());
            let Ok(Some(Ok(message))) = tokio::time::timeout(left, self.ws.next()).await else {
                break;
            };
            if let Message::Text(text) = message
                && is_frame(&text)
            {
                let seq = seq_of(&text);
                assert!(
                    seq > count.last_seq,
                    "frame seq must increase: {seq} after {}",
                    count.last_seq
                );
                if count.frames == 0 {
                    count.first_seq = seq;
                }
                count.last_seq = seq;
                count.frames += 1;
            }
        }
        count
    }
}

/// What one viewer received in one window. The relay numbers every frame it takes from Chrome
/// (`seq`, one counter per daemon), so `last_seq - first_seq + 1` is what Chrome painted and the
/// relay forwarded in the window, whoever read it: the *source* rate. A viewer that receives
/// fewer than that lost frames on the way.
#[derive(Clone, Copy, Debug, Default)]
struct FrameCount {
    window: Duration,
    frames: u64,
    first_seq: u64,
    last_seq: u64,
}

impl FrameCount {
    /// Frames this viewer received per second.
    fn fps(&self) -> f64 {
        self.frames as f64 / self.window.as_secs_f64()
    }

    /// Frames the relay took from Chrome per second, seen from this viewer.
    fn source_fps(&self) -> f64 {
        let span = if self.frames == 0 {
            0
        } else {
            self.last_seq - self.first_seq + 1
        };
        span as f64 / self.window.as_secs_f64()
    }

    /// The share of the source's frames this viewer received (1.0: none lost).
    fn delivered(&self) -> f64 {
        let source = self.source_fps();
        if source == 0.0 {
            0.0
        } else {
            self.fps() / source
        }
    }
}

impl std::fmt::Display for FrameCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1} fps of {:.1}", self.fps(), self.source_fps())
    }
}

/// `seq` of a frame message without parsing the image.
fn seq_of(text: &str) -> u64 {
    let start = text.find(r#""seq":"#).expect("seq") + 6;
    text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .expect("numeric seq")
}

fn key_events(c: char) -> [Value; 2] {
    let key = c.to_string();
    [
        json!({"type": "input_keyboard", "eventType": "keyDown", "key": key, "text": key}),
        json!({"type": "input_keyboard", "eventType": "keyUp", "key": key}),
    ]
}

async fn click(viewer: &mut Viewer, x: f64, y: f64) {
    for event_type in ["mousePressed", "mouseReleased"] {
        viewer
            .send(json!({"type": "input_mouse", "eventType": event_type, "x": x, "y": y, "button": "left", "clickCount": 1}))
            .await;
    }
}

/// The centre of `selector` in CSS pixels.
async fn centre(ab: &Arc<Cli>, selector: &str) -> (f64, f64) {
    let rect = eval(
        ab,
        &format!(
            "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            json!(selector)
        ),
    )
    .await;
    (rect[0].as_f64().expect("x"), rect[1].as_f64().expect("y"))
}

/// Polls `script` through the CLI until it returns `want` (bounded).
async fn eventually(ab: &Arc<Cli>, script: &str, want: &Value, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let got = eval(ab, script).await;
        if &got == want || Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const SHORT: Duration = Duration::from_secs(10);

/// Frame rates are counted over 2 s windows. The machine may be shared with other work: when it
/// takes the CPU, Chrome itself paints fewer frames, whatever the relay does (CI machines were
/// seen at a steady 45 fps where an idle one paints 60). So the rate tests judge the relay, not
/// the machine: a viewer must receive (nearly) every frame Chrome painted, and a stalled peer
/// must not lower what Chrome paints, compared in the same run. An absolute floor only says the
/// view is live. A test passes when one of up to three consecutive windows meets its bar.
const WINDOW: Duration = Duration::from_secs(2);
const ATTEMPTS: usize = 3;
/// The share of the source's frames a reading viewer must receive. With the whole test, Chrome
/// and the daemon pinned to one core, readers got 93–97 %; a fan-out that waits on a slow peer
/// loses far more.
const MIN_DELIVERED: f64 = 0.8;
/// A live view, on any machine that runs the suite: Chrome paints an animated page well above it
/// (45–60 fps seen); a relay that held acks back by a frame would halve the rate.
const MIN_LIVE_FPS: f64 = 25.0;

/// Rate tests take this exclusively, every other test shares it: two Chromes painting at once
/// on two cores halve each other's frame rate, which would measure the machine, not the relay.
static CPU: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_viewer_gets_status_tabs_then_every_frame_chrome_paints() {
    let _cpu = CPU.write().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/animated.html")])
        .await
        .success();
    let port = stream_port(&ab);

    let started = Instant::now();
    let mut viewer = Viewer::connect(port, "").await;
    let status = viewer.next_json(SHORT).await;
    assert_eq!(status["type"], "status", "first message: {status}");
    assert_eq!(status["connected"], true);
    assert_eq!(status["engine"], "chrome");
    let tabs = viewer.next_json(SHORT).await;
    assert_eq!(tabs["type"], "tabs", "second message: {tabs}");
    assert_eq!(tabs["tabs"][0]["url"], site.url("/animated.html"));
    let first = viewer.next_of("frame", SHORT).await;
    let first_ms = started.elapsed().as_secs_f64() * 1000.0;
    let meta = &first["metadata"];
    assert!(first["seq"].as_u64().is_some_and(|s| s >= 1));
    assert!(
        first["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("/9j/")),
        "base64 JPEG"
    );
    // Coordinates: the viewport in CSS px and the image's own size, so a viewer maps clicks.
    assert!(
        meta["deviceWidth"].as_u64().is_some_and(|w| w > 0),
        "{meta}"
    );
    assert_eq!(
        meta["imageWidth"], meta["deviceWidth"],
        "unscaled frames: {meta}"
    );
    assert_eq!(meta["imageHeight"], meta["deviceHeight"], "{meta}");
    let now = abx_relay_now_ms();
    let ts = meta["timestamp"].as_u64().expect("timestamp ms");
    assert!(
        ts > now - 10_000 && ts < now + 10_000,
        "epoch ms: {ts} vs {now}"
    );

    let meets = |c: &FrameCount| c.fps() >= MIN_LIVE_FPS && c.delivered() >= MIN_DELIVERED;
    let mut windows = Vec::new();
    for _ in 0..ATTEMPTS {
        let count = viewer.count_frames(WINDOW).await;
        windows.push(count);
        if meets(&count) {
            break;
        }
    }
    let shown: Vec<String> = windows.iter().map(ToString::to_string).collect();
    println!(
        "animated page: first frame {first_ms:.1} ms after connect; per 2 s window: {shown:?}"
    );
    assert!(
        windows.iter().any(meets),
        "no window where the viewer got ≥ {MIN_LIVE_FPS} fps and ≥ {MIN_DELIVERED} of what Chrome painted: {shown:?}"
    );

    let status = run(&ab, &["--json", "stream", "status"])
        .await
        .success()
        .json();
    assert_eq!(status["data"]["enabled"], true);
    assert_eq!(status["data"]["port"], port);
    assert_eq!(status["data"]["screencasting"], true);
    drop(viewer);
    run(&ab, &["close"]).await.success();
    assert!(!ab.file("stream").exists(), ".stream removed on exit");
}

fn abx_relay_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The messages before a viewer's first frame, by type, and that frame.
async fn greeting_then_frame(viewer: &mut Viewer) -> (Vec<String>, Value) {
    let mut greeting = Vec::new();
    loop {
        let message = viewer.next_json(SHORT).await;
        let kind = message["type"].as_str().unwrap_or_default().to_string();
        if kind == "frame" {
            return (greeting, message);
        }
        greeting.push(kind);
    }
}

fn seq(frame: &Value) -> u64 {
    frame["seq"].as_u64().expect("frame seq")
}

/// Whether the stream server reports no viewer and no screencast running.
async fn nobody_watches(ab: &Arc<Cli>) -> bool {
    let status = run(ab, &["--json", "stream", "status"])
        .await
        .success()
        .json();
    status["data"]["viewers"] == 0 && status["data"]["screencasting"] == false
}

// Guards the relay's cached frame (crates/relay/src/viewer.rs "The cached frame goes out at once"):
// a static page paints nothing, so without it a viewer would wait for a capture that never comes.
// How fast the frame comes is measured by benches/relay_fanout.rs (connect → first frame).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_static_page_shows_its_cached_frame_to_returning_and_joining_viewers() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/static.html")])
        .await
        .success();
    let port = stream_port(&ab);
    // The very first viewer of a tab waits for Chrome's first capture (its capturer starts).
    let mut first = Viewer::connect(port, "").await;
    let mut newest = seq(&first.next_of("frame", SHORT).await);
    drop(first);
    for _ in 0..3 {
        // Nobody watches (the screencast stopped): the cached image goes out with the greeting,
        // then the restarted screencast sends a fresh one although the page paints nothing.
        assert!(
            wait_until_async(SHORT, || nobody_watches(&ab)).await,
            "the screencast still runs with no viewer"
        );
        let mut viewer = Viewer::connect(port, "").await;
        let (greeting, cached) = greeting_then_frame(&mut viewer).await;
        assert_eq!(
            greeting,
            ["status", "tabs"],
            "the cached frame comes right after the greeting"
        );
        assert!(
            seq(&cached) >= newest,
            "the cached frame is the newest one: seq {} after {newest}",
            seq(&cached)
        );
        let fresh = viewer.next_of("frame", SHORT).await;
        assert!(seq(&fresh) > seq(&cached), "a fresh frame follows");
        newest = seq(&fresh);
        // Someone already watches: the newcomer gets the current frame with its greeting,
        // although the page paints nothing new.
        let mut second = Viewer::connect(port, "").await;
        let (greeting, current) = greeting_then_frame(&mut second).await;
        assert_eq!(greeting, ["status", "tabs"], "joining viewer");
        assert!(
            seq(&current) >= newest,
            "the joining viewer gets the current frame: seq {} after {newest}",
            seq(&current)
        );
        newest = seq(&current);
    }
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clicks_and_a_burst_of_keys_land_in_order() {
    let _cpu = CPU.read().await;
    let site = site();
    // With the debug log on: viewer input and frames must still never be logged.
    let ab = Arc::new(Cli::new().env("AGENT_BROWSER_DEBUG", "1"));
    run(&ab, &["open", &site.url("/form.html")]).await.success();
    let port = stream_port(&ab);
    let (x, y) = centre(&ab, "#name").await;
    let mut viewer = Viewer::connect(port, "").await;
    viewer.next_of("status", SHORT).await;
    click(&mut viewer, x, y).await;
    let alphabet: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789".chars().collect();
    let typed: String = (0..200)
        .map(|i| alphabet[(i * 7 + i / 3) % alphabet.len()])
        .collect();
    for c in typed.chars() {
        for event in key_events(c) {
            viewer.send(event).await;
        }
    }
    // Editing keys without a legacy code or text still work (the relay fills them in).
    viewer
        .send(json!({"type": "input_keyboard", "eventType": "keyDown", "key": "Backspace", "code": "Backspace"}))
        .await;
    viewer
        .send(json!({"type": "input_keyboard", "eventType": "keyUp", "key": "Backspace", "code": "Backspace"}))
        .await;
    let expected_value = &typed[..typed.len() - 1];
    let value = eventually(
        &ab,
        "document.querySelector('#name').value",
        &json!(expected_value),
        SHORT,
    )
    .await;
    assert_eq!(value, json!(expected_value), "typed text in order");
    let keys = eval(&ab, "window.__keys").await;
    let mut want: Vec<String> = typed.chars().map(|c| c.to_string()).collect();
    want.push("Backspace".into());
    assert_eq!(keys, json!(want), "every keydown, in order");
    // Enter from a viewer submits the form (it carries "\r").
    viewer
        .send(json!({"type": "input_keyboard", "eventType": "keyDown", "key": "Enter", "code": "Enter"}))
        .await;
    viewer
        .send(json!({"type": "input_keyboard", "eventType": "keyUp", "key": "Enter", "code": "Enter"}))
        .await;
    let submitted = eventually(
        &ab,
        "JSON.parse(document.querySelector('#result').textContent || '{}').name || null",
        &json!(expected_value),
        SHORT,
    )
    .await;
    assert_eq!(submitted, json!(expected_value), "Enter submitted the form");
    let log = std::fs::read_to_string(ab.file("log")).expect("debug log");
    assert!(!log.is_empty(), "the debug log is on");
    assert!(
        !log.contains(&typed[40..60]),
        "typed text leaked into the debug log"
    );
    assert!(
        !log.contains("/9j/"),
        "frame data leaked into the debug log"
    );
    assert!(
        !log.contains("dispatchKeyEvent"),
        "input events leaked into the debug log"
    );
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_are_refused_and_a_token_is_enforced() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    // An animated page: the frame awaited after the errors must not depend on whether the first
    // frame was consumed while looking for them (a static page sends no second frame).
    run(&ab, &["open", &site.url("/animated.html")])
        .await
        .success();
    let port = stream_port(&ab);
    match Viewer::try_connect(port, "", &[("origin", "https://evil.example")]).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 403),
        Err(other) => panic!("expected 403, got {other}"),
        Ok(_) => panic!("a foreign origin was let in"),
    }
    let mut local = Viewer::try_connect(port, "", &[("origin", "http://localhost:3000")])
        .await
        .expect("a local origin is allowed");
    assert_eq!(local.next_json(SHORT).await["type"], "status");
    // A malformed message gets an error and the connection keeps working.
    local
        .ws
        .send(Message::text("{not json"))
        .await
        .expect("send");
    local
        .send(json!({"type": "input_keyboard", "key": {"secret": "hunter2"}}))
        .await;
    let error = local.next_of("error", SHORT).await;
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("Invalid JSON")),
        "{error}"
    );
    let error = local.next_of("error", SHORT).await;
    assert!(
        !error.to_string().contains("hunter2"),
        "input is never echoed: {error}"
    );
    local.send(json!({"type": "ack", "seq": 1})).await;
    local.next_of("frame", SHORT).await;
    run(&ab, &["close"]).await.success();

    let secured = Arc::new(
        Cli::new()
            .session("tok")
            .env("AGENT_BROWSER_STREAM_TOKEN", "s3cret"),
    );
    run(&secured, &["open", &site.url("/static.html")])
        .await
        .success();
    let port = stream_port(&secured);
    for (query, headers) in [
        ("", vec![]),
        ("?token=wrong", vec![]),
        ("", vec![("authorization", "Bearer wrong")]),
    ] {
        match Viewer::try_connect(port, query, &headers).await {
            Err(WsError::Http(response)) => {
                assert_eq!(response.status(), 401, "{query} {headers:?}");
            }
            Err(other) => panic!("expected 401, got {other}"),
            Ok(_) => panic!("a wrong token was let in ({query} {headers:?})"),
        }
    }
    for (query, headers) in [
        ("?token=s3cret", vec![]),
        ("", vec![("authorization", "Bearer s3cret")]),
        ("", vec![("x-stream-token", "s3cret")]),
    ] {
        let mut viewer = Viewer::try_connect(port, query, &headers)
            .await
            .expect("the right token is let in");
        assert_eq!(viewer.next_json(SHORT).await["type"], "status");
    }
    run(&secured, &["close"]).await.success();
}

/// The number of viewers `stream status` reports.
async fn viewers_attached(ab: &Arc<Cli>) -> Option<u64> {
    let status = run(ab, &["--json", "stream", "status"])
        .await
        .success()
        .json();
    status["data"]["viewers"].as_u64()
}

/// A viewer whose socket reads nothing: a tiny receive buffer so the server's writes back up.
async fn stalled_viewer(port: u16) -> Ws {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(4096).expect("rcvbuf");
    let stream = socket
        .connect(([127, 0, 0, 1], port).into())
        .await
        .expect("connect");
    let request = format!("ws://127.0.0.1:{port}/")
        .into_client_request()
        .expect("request");
    let (ws, _) = tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream))
        .await
        .expect("handshake");
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_viewers_share_frames_and_a_stalled_one_slows_nobody() {
    let _cpu = CPU.write().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/animated.html")])
        .await
        .success();
    let port = stream_port(&ab);
    let _stalled = stalled_viewer(port).await;
    let stalled_at = Instant::now();
    let mut viewers = Vec::new();
    for _ in 0..7 {
        let mut viewer = Viewer::connect(port, "").await;
        viewer.next_of("frame", SHORT).await;
        viewers.push(viewer);
    }
    // While the stalled viewer is attached: its socket fills within a few frames, and the relay
    // drops it only after it stayed unwritable for the write deadline (5 s), so windows counted
    // until then run with a stalled peer. Only windows after which it was still attached count.
    const STALL_WINDOW: Duration = Duration::from_millis(1500);
    let mut stalled_windows: Vec<Vec<FrameCount>> = Vec::new();
    let dropped_within = Duration::from_secs(30);
    loop {
        let counts = futures_util::future::join_all(
            viewers.iter_mut().map(|v| v.count_frames(STALL_WINDOW)),
        )
        .await;
        let attached = viewers_attached(&ab).await;
        if attached == Some(8) {
            stalled_windows.push(counts);
        } else {
            assert_eq!(attached, Some(7), "viewers after the stalled one went");
            break;
        }
        assert!(
            stalled_at.elapsed() < dropped_within,
            "the stalled viewer was never disconnected"
        );
    }
    println!(
        "stalled viewer disconnected {:.1} s after it connected",
        stalled_at.elapsed().as_secs_f64()
    );
    // After it went: the same seven readers, the reference for what Chrome paints now.
    let mut after_windows: Vec<Vec<FrameCount>> = Vec::new();
    for _ in 0..ATTEMPTS {
        after_windows.push(
            futures_util::future::join_all(viewers.iter_mut().map(|v| v.count_frames(WINDOW)))
                .await,
        );
    }
    let show = |windows: &[Vec<FrameCount>]| -> Vec<Vec<String>> {
        windows
            .iter()
            .map(|w| w.iter().map(ToString::to_string).collect())
            .collect()
    };
    println!(
        "7 reading viewers, fps per window — with a stalled peer: {:?}; after it went: {:?}",
        show(&stalled_windows),
        show(&after_windows)
    );
    let source = |w: &[FrameCount]| w.iter().map(FrameCount::source_fps).fold(0.0, f64::max);
    let reference = after_windows.iter().map(|w| source(w)).fold(0.0, f64::max);
    assert!(
        reference >= MIN_LIVE_FPS,
        "Chrome painted {reference:.1} fps with seven viewers"
    );
    // The window right before the drop surely ran with the stalled peer's socket full.
    let last_stalled = stalled_windows
        .last()
        .expect("a window counted while the stalled viewer was attached");
    let slowest = last_stalled
        .iter()
        .map(FrameCount::fps)
        .fold(f64::MAX, f64::min);
    assert!(
        last_stalled.iter().all(|c| c.delivered() >= MIN_DELIVERED),
        "a reading viewer lost frames while a peer stalled: {:?}",
        show(std::slice::from_ref(last_stalled))
    );
    // Whether the stalled peer held Chrome's screencast back is read off what Chrome painted
    // in that window (a relay pacing acks to its slowest viewer would stop the cast); the
    // readers' own rates are judged against that same window above, since the paint rate of
    // another window moves with the machine's load.
    let painted = source(last_stalled);
    assert!(
        painted >= 0.6 * reference && slowest >= MIN_LIVE_FPS,
        "a stalled peer slowed the others: Chrome painted {painted:.1} fps and the slowest reader got {slowest:.1} fps, against {reference:.1} fps once it went"
    );
    for viewer in &mut viewers {
        viewer.next_of("frame", SHORT).await;
    }
    run(&ab, &["close"]).await.success();
}

/// Frames received in `window`, acknowledging each one after `ack_after` (ack pacing) or not.
async fn paced_rate(viewer: &mut Viewer, window: Duration, ack_after: Option<Duration>) -> f64 {
    let end = Instant::now() + window;
    let mut frames = 0;
    while Instant::now() < end {
        let left = end.saturating_duration_since(Instant::now());
        let Ok(Some(Ok(Message::Text(text)))) = tokio::time::timeout(left, viewer.ws.next()).await
        else {
            continue;
        };
        if !is_frame(&text) {
            continue;
        }
        frames += 1;
        if let Some(delay) = ack_after {
            tokio::time::sleep(delay).await;
            viewer
                .send(json!({"type": "ack", "seq": seq_of(&text)}))
                .await;
        }
    }
    frames as f64 / window.as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewers_choose_their_own_pace() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/animated.html")])
        .await
        .success();
    let port = stream_port(&ab);
    // A cap on the URL governs from the first frame.
    let mut capped = Viewer::connect(port, "?maxFps=10").await;
    capped.next_of("frame", SHORT).await;
    let capped_fps = paced_rate(&mut capped, WINDOW, None).await;
    // Ack pacing: one frame in flight, the next only after the viewer's ack (here 100 ms later).
    let mut acking = Viewer::connect(port, "?pacing=ack").await;
    let first = acking.next_of("frame", SHORT).await;
    acking
        .send(json!({"type": "ack", "seq": first["seq"]}))
        .await;
    let acked_fps = paced_rate(&mut acking, WINDOW, Some(Duration::from_millis(100))).await;
    // A `config` message lifts both for the acking viewer.
    acking
        .send(json!({"type": "config", "pacing": "push", "maxFps": 0}))
        .await;
    let pushed_fps = paced_rate(&mut acking, WINDOW, None).await;
    println!(
        "maxFps=10: {capped_fps:.1} fps; ack pacing with 100 ms acks: {acked_fps:.1} fps; then push: {pushed_fps:.1} fps"
    );
    assert!(
        (4.0..=11.0).contains(&capped_fps),
        "capped at 10: {capped_fps:.1}"
    );
    assert!(
        (4.0..=10.5).contains(&acked_fps),
        "ack paced: {acked_fps:.1}"
    );
    assert!(pushed_fps > 20.0, "push after config: {pushed_fps:.1}");
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirm_reaches_the_viewer_and_the_viewers_answer_resolves_it() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/dialogs.html")])
        .await
        .success();
    let port = stream_port(&ab);
    let (x, y) = centre(&ab, "#confirm").await;
    let mut viewer = Viewer::connect(port, "").await;
    viewer.next_of("frame", SHORT).await;
    click(&mut viewer, x, y).await;
    let dialog = viewer.next_of("dialog", SHORT).await;
    assert_eq!(dialog["dialogType"], "confirm", "{dialog}");
    assert_eq!(dialog["message"], "sure?");
    assert_eq!(dialog["url"], site.url("/dialogs.html"));

    // A viewer that connects now learns about the pending dialog right after status and tabs.
    let mut late = Viewer::connect(port, "").await;
    let mut first = Vec::new();
    for _ in 0..3 {
        first.push(late.next_json(SHORT).await["type"].clone());
    }
    assert_eq!(first, vec![json!("status"), json!("tabs"), json!("dialog")]);

    // Nothing to answer with a wrong shape; then the real answer.
    viewer.send(json!({"type": "dialog_answer"})).await;
    viewer.next_of("error", SHORT).await;
    viewer
        .send(json!({"type": "dialog_answer", "accept": true}))
        .await;
    let closed = viewer.next_of("dialog_closed", SHORT).await;
    assert_eq!(closed["accepted"], true);
    assert_eq!(closed["by"], "viewer");
    assert_eq!(
        run(&ab, &["get", "text", "#result"]).await.success().out(),
        "confirm:true"
    );
    // No dialog left: answering again is an error message, not a crash.
    viewer
        .send(json!({"type": "dialog_answer", "accept": false}))
        .await;
    let error = viewer.next_of("error", SHORT).await;
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("no JavaScript dialog")),
        "{error}"
    );
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_raised_before_any_viewer_is_shown_on_connect_and_answered() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    // The page raises a prompt 200 ms after load; nobody watches yet.
    run(&ab, &["open", &site.url("/dialogs.html?auto=prompt")])
        .await
        .success();
    let deadline = Instant::now() + SHORT;
    loop {
        let reply = run(&ab, &["--json", "get", "url"]).await.success().json();
        if reply["warning"]
            .as_str()
            .is_some_and(|w| w.contains("prompt"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the prompt never opened: {reply}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let port = stream_port(&ab);
    let mut viewer = Viewer::connect(port, "").await;
    let greeting: Vec<Value> = [
        viewer.next_json(SHORT).await,
        viewer.next_json(SHORT).await,
        viewer.next_json(SHORT).await,
    ]
    .into();
    assert_eq!(greeting[0]["type"], "status");
    assert_eq!(greeting[1]["type"], "tabs");
    let dialog = &greeting[2];
    assert_eq!(dialog["type"], "dialog", "{greeting:?}");
    assert_eq!(dialog["dialogType"], "prompt");
    assert_eq!(dialog["message"], "name?");
    assert_eq!(dialog["defaultPrompt"], "x");
    assert_eq!(dialog["answerable"], true);
    viewer
        .send(json!({"type": "dialog_answer", "accept": true, "promptText": "Ada"}))
        .await;
    let closed = viewer.next_of("dialog_closed", SHORT).await;
    assert_eq!(closed["userInput"], "Ada");
    assert_eq!(
        run(&ab, &["get", "text", "#result"]).await.success().out(),
        "prompt:Ada"
    );
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopen_tab_yields_a_working_tab_at_the_same_url() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new().env("AGENT_BROWSER_PIN_TAB", "1"));
    let url = site.url("/form.html");
    run(&ab, &["open", &url]).await.success();
    let before = run(&ab, &["--json", "tab", "list"]).await.success().json();
    let old_target = before["data"]["tabs"][0]["targetId"]
        .as_str()
        .expect("target")
        .to_string();
    let port = stream_port(&ab);
    let mut viewer = Viewer::connect(port, "").await;
    viewer.next_of("frame", SHORT).await;
    viewer.send(json!({"type": "reopen_tab"})).await;
    let retarget = viewer.next_of("retarget", SHORT).await;
    assert_eq!(retarget["reason"], "reopened", "{retarget}");
    assert_eq!(retarget["url"], url);
    let new_target = retarget["targetId"].as_str().expect("targetId").to_string();
    assert_ne!(new_target, old_target);
    // The viewer sees the new tab: a status naming it, then its frames.
    loop {
        let status = viewer.next_of("status", SHORT).await;
        if status["targetId"] == new_target.as_str() {
            break;
        }
    }
    viewer.next_of("frame", SHORT).await;

    // The session now lives in the new tab, keeps its id, and the old tab is gone.
    assert_eq!(run(&ab, &["get", "url"]).await.success().out(), url);
    let after = run(&ab, &["--json", "tab", "list"]).await.success().json();
    let tabs = after["data"]["tabs"].as_array().expect("tabs").clone();
    assert!(
        tabs.iter().all(|t| t["targetId"] != old_target.as_str()),
        "{tabs:?}"
    );
    let active = tabs
        .iter()
        .find(|t| t["active"] == true)
        .expect("an active tab");
    assert_eq!(active["targetId"], new_target.as_str());
    assert_eq!(active["tabId"], "t1");
    // `.target` is rewritten when the reopen completes (after the new page loaded).
    let deadline = Instant::now() + SHORT;
    let binding = loop {
        let binding: Value =
            serde_json::from_str(&std::fs::read_to_string(ab.file("target")).expect(".target"))
                .expect("json");
        if binding["targetId"] == new_target.as_str() || Instant::now() > deadline {
            break binding;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        binding["targetId"],
        new_target.as_str(),
        ".target follows the reopen"
    );

    // And it takes input.
    let (x, y) = centre(&ab, "#name").await;
    click(&mut viewer, x, y).await;
    for c in "ok".chars() {
        for event in key_events(c) {
            viewer.send(event).await;
        }
    }
    let value = eventually(
        &ab,
        "document.querySelector('#name').value",
        &json!("ok"),
        SHORT,
    )
    .await;
    assert_eq!(value, json!("ok"));
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_view_follows_popups_and_the_active_tab() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/popup.html")])
        .await
        .success();
    let port = stream_port(&ab);
    let (x, y) = centre(&ab, "#open-popup").await;
    let mut viewer = Viewer::connect(port, "").await;
    let status = viewer.next_of("status", SHORT).await;
    let opener = loop {
        let status = if status["targetId"].is_string() {
            status.clone()
        } else {
            viewer.next_of("status", SHORT).await
        };
        if let Some(id) = status["targetId"].as_str() {
            break id.to_string();
        }
    };
    viewer.next_of("frame", SHORT).await;

    // A popup opened from the page: the view follows it, and comes back when it closes.
    click(&mut viewer, x, y).await;
    let retarget = viewer.next_of("retarget", SHORT).await;
    assert_eq!(retarget["reason"], "popup", "{retarget}");
    assert_eq!(retarget["url"], site.url("/page2.html"));
    let popup = retarget["targetId"].as_str().expect("popup id").to_string();
    viewer.next_of("frame", SHORT).await;
    run(&ab, &["tab", "close", &popup]).await.success();
    let back = viewer.next_of("retarget", SHORT).await;
    assert_eq!(back["reason"], "popup_closed", "{back}");
    assert_eq!(back["targetId"], opener.as_str());
    viewer.next_of("frame", SHORT).await;

    // `tab new`: the session's active tab changes (a background tab, which Chrome does not
    // render until it is brought to the front); the view follows and shows it.
    run(&ab, &["tab", "new", &site.url("/page1.html")])
        .await
        .success();
    let moved = viewer.next_of("retarget", SHORT).await;
    assert_eq!(moved["reason"], "tab_changed", "{moved}");
    assert_eq!(moved["url"], site.url("/page1.html"));
    viewer.next_of("frame", SHORT).await;
    run(&ab, &["close"]).await.success();
}

async fn next_command(viewer: &mut Viewer, action: &str) -> Value {
    loop {
        let command = viewer.next_of("command", SHORT).await;
        if command["action"] == action {
            return command;
        }
    }
}

async fn next_result(viewer: &mut Viewer, action: &str) -> Value {
    loop {
        let result = viewer.next_of("result", SHORT).await;
        if result["action"] == action {
            return result;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_and_results_are_broadcast_with_a_correct_success() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/page1.html")])
        .await
        .success();
    let port = stream_port(&ab);
    let mut viewer = Viewer::connect(port, "").await;
    viewer.next_of("tabs", SHORT).await;
    run(&ab, &["get", "title"]).await.success();
    // The CLI sends a `launch` before each command when launch settings are in its environment
    // (upstream does the same); those are broadcast too.
    let command = next_command(&mut viewer, "title").await;
    assert!(command["params"].get("plugins").is_none(), "{command}");
    let result = next_result(&mut viewer, "title").await;
    assert_eq!(result["id"], command["id"]);
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["data"]["title"], "Page One");
    viewer.next_of("tabs", SHORT).await;

    run(&ab, &["get", "text", "#missing"]).await.failure();
    let result = next_result(&mut viewer, "gettext").await;
    assert_eq!(result["success"], false, "{result}");

    // Navigation: the url message.
    run(&ab, &["open", &site.url("/page2.html")])
        .await
        .success();
    let url = viewer.next_of("url", SHORT).await;
    assert_eq!(url["url"], site.url("/page2.html"));

    // The page's console and uncaught errors.
    run(&ab, &["open", &site.url("/console.html")])
        .await
        .success();
    let console = viewer.next_of("console", SHORT).await;
    assert_eq!(console["level"], "log", "{console}");
    assert!(
        console["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("hello")),
        "{console}"
    );
    assert!(console["args"].is_array());
    let warning = viewer.next_of("console", SHORT).await;
    assert_eq!(warning["level"], "warning");
    let error = viewer.next_of("page_error", SHORT).await;
    assert!(
        error["text"].as_str().is_some_and(|t| t.contains("boom")),
        "{error}"
    );
    run(&ab, &["close"]).await.success();
}

/// Regression: the live view rendered console messages with its own function (`hello Object`)
/// while `console` printed the engine's rendering (`hello {a: 1}`); one rendering feeds both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_view_and_console_render_a_message_the_same() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/page1.html")])
        .await
        .success();
    let port = stream_port(&ab);
    let mut viewer = Viewer::connect(port, "").await;
    viewer.next_of("tabs", SHORT).await;
    run(
        &ab,
        &["eval", "console.log('hello', {a: 1}, [7], 'x', 2); true"],
    )
    .await
    .success();
    let live = viewer.next_of("console", SHORT).await;
    assert_eq!(live["text"], "hello {a: 1} [0: 7] x 2", "{live}");
    assert_eq!(live["level"], "log");
    let printed = run(&ab, &["console"]).await.success();
    assert_eq!(
        printed.out(),
        "[log] hello {a: 1} [0: 7] x 2",
        "{printed:?}"
    );
    run(&ab, &["close"]).await.success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_commands_and_the_http_api() {
    let _cpu = CPU.read().await;
    let site = site();
    let ab = Arc::new(Cli::new());
    run(&ab, &["open", &site.url("/page1.html")])
        .await
        .success();
    let port = stream_port(&ab);

    let status = run(&ab, &["stream", "status"]).await.success();
    assert_eq!(
        status.out(),
        format!(
            "Streaming enabled on ws://127.0.0.1:{port}\nConnected: true\nScreencasting: false"
        )
    );
    let again = run(&ab, &["stream", "enable"]).await.failure();
    assert!(
        again
            .stderr
            .contains("Streaming is already enabled for this session"),
        "{again:?}"
    );

    // HTTP on the same port.
    let get = |path: &'static str| http(port, "GET", path, &[], "");
    let (code, body) = get("/api/status").await;
    assert_eq!((code, body.as_str()), (200, r#"{"engine":"chrome"}"#));
    let (code, body) = get("/api/tabs").await;
    assert_eq!(code, 200);
    let tabs: Value = serde_json::from_str(&body).expect("tabs json");
    assert_eq!(tabs[0]["url"], site.url("/page1.html"));
    let (code, body) = get("/api/sessions").await;
    assert_eq!(code, 200);
    let sessions: Value = serde_json::from_str(&body).expect("sessions json");
    assert_eq!(
        sessions,
        json!([{"session": "t", "port": port, "engine": "chrome"}])
    );
    let command = r#"{"id":"h1","action":"url"}"#;
    let (code, body) = http(port, "POST", "/api/command", &[], command).await;
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("Origin or Referer does not match Host header."));
    let origin = format!("http://127.0.0.1:{port}");
    let (code, body) = http(
        port,
        "POST",
        "/api/command",
        &[("Origin", &origin)],
        command,
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).expect("daemon reply");
    assert_eq!(reply["id"], "h1");
    assert_eq!(reply["data"]["url"], site.url("/page1.html"));

    // Disable, then enable on a chosen port.
    assert_eq!(
        run(&ab, &["stream", "disable"]).await.success().out(),
        "Streaming disabled"
    );
    assert!(!ab.file("stream").exists(), ".stream removed by disable");
    assert_eq!(
        run(&ab, &["stream", "status"]).await.success().out(),
        "Streaming disabled"
    );
    let refused = run(&ab, &["stream", "disable"]).await.failure();
    assert!(
        refused
            .stderr
            .contains("Streaming is not enabled for this session"),
        "{refused:?}"
    );
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let enabled = run(
        &ab,
        &["--json", "stream", "enable", "--port", &free.to_string()],
    )
    .await
    .success()
    .json();
    assert_eq!(enabled["data"]["port"], free);
    assert_eq!(stream_port(&ab), free);
    let mut viewer = Viewer::connect(free, "").await;
    assert_eq!(viewer.next_json(SHORT).await["type"], "status");
    run(&ab, &["close"]).await.success();
}

/// A minimal HTTP/1.1 request; returns (status, body).
async fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\nContent-Type: application/json\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = String::new();
    tokio::time::timeout(SHORT, stream.read_to_string(&mut response))
        .await
        .expect("response in time")
        .expect("read");
    let code = response
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status code");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (code, body)
}
