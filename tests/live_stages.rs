//! Every stage of a shared anchor watched at once (issue 17, ADR 0009): four pinned stage
//! sessions on one anchor Chrome, each with its tab in the background of the anchor's window, a
//! viewer on each stage's stream, and every viewer at the page's own frame rate at the same
//! time. Before ADR 0009 only the tab in front painted; the others froze.

use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_tests::cli::Cli;
use futures_util::StreamExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

mod common;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Below this, a person watching sees a stutter; the page paints every animation frame.
const MIN_FPS: f64 = 25.0;
/// One measured interval; the test passes on the first interval every viewer meets.
const WINDOW: Duration = Duration::from_secs(2);
/// Intervals tried before the test fails (the machine is shared; one busy window is not a bug).
const ATTEMPTS: usize = 4;
/// Each stage's viewport: a tile of a four-up view. Chrome composites every tab of a browser on
/// one viz thread, so at 1280×720 a 2-core machine's four stages share about 65 frames a second
/// (16–20 fps each, measured with `perf`: the viz thread is saturated); at this size each gets
/// about 43. The property under test is that all four are live at once at a watchable rate;
/// full-size figures are in BENCHMARKS.md.
const STAGE_VIEWPORT: [&str; 2] = ["640", "360"];

fn anchor() -> (Cli, String) {
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    (anchor, cdp)
}

fn stage(name: &str, cdp: &str) -> Cli {
    Cli::new()
        .session(name)
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0")
}

fn stream_port(cli: &Cli) -> u16 {
    std::fs::read_to_string(cli.file("stream"))
        .expect("<session>.stream written by the daemon")
        .trim()
        .parse()
        .expect("a port in <session>.stream")
}

async fn connect(port: u16) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("viewer connects");
    ws
}

/// Frames received during `window`, and the measured length of that interval.
async fn count_frames(ws: &mut Ws, window: Duration) -> (usize, Duration) {
    let start = Instant::now();
    let end = start + window;
    let mut frames = 0;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match tokio::time::timeout(left, ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) if text.starts_with(r#"{"type":"frame""#) => {
                frames += 1;
            }
            Ok(Some(Ok(Message::Close(frame)))) => panic!("stream closed: {frame:?}"),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(err))) => panic!("viewer socket: {err}"),
            Ok(None) => panic!("stream ended"),
            Err(_) => break,
        }
    }
    (frames, start.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_stages_on_one_anchor_are_all_live_at_once() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let stages: Vec<Arc<Cli>> = (0..4)
        .map(|i| Arc::new(stage(&format!("live{i}"), &cdp)))
        .collect();
    let url = site.url("/ticker.html");
    let mut opens = Vec::new();
    for stage in &stages {
        let (stage, url) = (stage.clone(), url.clone());
        opens.push(tokio::task::spawn_blocking(move || {
            stage.run(&["open", &url]).success();
            stage
                .run(&["set", "viewport", STAGE_VIEWPORT[0], STAGE_VIEWPORT[1]])
                .success();
        }));
    }
    for open in opens {
        open.await.expect("open task");
    }
    // The anchor's own tab is the one in front of the window; every stage tab is behind it.
    anchor.run(&["eval", "1"]).success();

    let mut viewers = Vec::new();
    for stage in &stages {
        viewers.push(connect(stream_port(stage)).await);
    }
    let mut rates: Vec<Vec<f64>> = Vec::new();
    for _ in 0..ATTEMPTS {
        let counted =
            futures_util::future::join_all(viewers.iter_mut().map(|ws| count_frames(ws, WINDOW)))
                .await;
        let window: Vec<f64> = counted
            .iter()
            .map(|(frames, took)| *frames as f64 / took.as_secs_f64())
            .collect();
        let done = window.iter().all(|fps| *fps >= MIN_FPS);
        rates.push(window);
        if done {
            break;
        }
    }
    println!("four stages watched at once, fps per viewer per window: {rates:.1?}");
    assert!(
        rates
            .iter()
            .any(|window| window.iter().all(|fps| *fps >= MIN_FPS)),
        "some viewer stayed below {MIN_FPS} fps in every window: {rates:.1?}"
    );

    // Watching changed nothing about the stages: each still lists and holds its own tab.
    drop(viewers);
    for stage in &stages {
        let listed = stage.run(&["--json", "tab", "list"]).success().json();
        let tabs = listed["data"]["tabs"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let active: Vec<_> = tabs.iter().filter(|t| t["active"] == true).collect();
        assert_eq!(active.len(), 1, "one active tab per stage: {listed}");
        assert_eq!(active[0]["url"], url, "{listed}");
        assert_eq!(stage.run(&["get", "url"]).success().out(), url);
    }
    for stage in &stages {
        stage.run(&["close"]).success();
    }
    anchor.run(&["close"]).success();
}

/// Ten chained 10 ms timers on the stage's page: its visibility, the animation frames it painted
/// meanwhile (`animated.html` counts one per `requestAnimationFrame`), and how long they took.
const QUIET_PROBE: &str = "new Promise(done => { \
    const f0 = window.__frames, t0 = performance.now(); let n = 0; \
    const tick = () => ++n < 10 ? setTimeout(tick, 10) \
      : done([document.visibilityState, window.__frames - f0, performance.now() - t0]); \
    setTimeout(tick, 10); })";

/// Polls the page's `document.visibilityState` until it is `want`.
fn wait_for_visibility(cli: &Cli, want: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let state = cli.run(&["eval", "document.visibilityState"]).success();
        if state.out().trim_matches('"') == want {
            return true;
        }
    }
    false
}

/// The width and height in a PNG's header.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("screenshot written");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().expect("IHDR"));
    assert_eq!(&bytes[1..4], b"PNG", "a PNG");
    (be(16), be(20))
}

// On the headless shell, which shows every tab, an idle stage used to paint at the page's rate
// for its whole life; on full Chrome, its hidden tab ran the page's timers at 1 Hz. ADR 0015.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwatched_stage_on_a_shell_anchor_paints_nothing_keeps_its_timers_and_shows_while_watched()
 {
    let (anchor, cdp) = anchor();
    unwatched_stage_is_quiet_until_watched(anchor, &cdp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwatched_stage_on_a_full_chrome_anchor_keeps_its_timers_and_shows_while_watched() {
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    unwatched_stage_is_quiet_until_watched(anchor, &cdp).await;
}

async fn unwatched_stage_is_quiet_until_watched(anchor: Cli, cdp: &str) {
    let site = common::site();
    let stage = stage("quiet", cdp);
    stage.run(&["open", &site.url("/animated.html")]).success();

    let probe = stage.run(&["--json", "eval", QUIET_PROBE]).success().json();
    let result = &probe["data"]["result"];
    assert_eq!(
        result[0], "hidden",
        "an unwatched stage is a hidden tab: {probe}"
    );
    assert_eq!(result[1], 0, "and paints no frames: {probe}");
    // Throttled, each timer waits for the next 1 s wake-up: 9 s or more for the ten.
    let took = result[2].as_f64().expect("elapsed ms");
    assert!(took < 3000.0, "the page's timers run unthrottled: {probe}");
    // A hidden stage still answers a screenshot at its full viewport.
    let shot = stage.file("quiet.png");
    stage
        .run(&["screenshot", shot.to_str().expect("utf-8 path")])
        .success();
    let viewport = stage
        .run(&["--json", "eval", "[innerWidth, innerHeight]"])
        .success()
        .json();
    let side = |i: usize| viewport["data"]["result"][i].as_u64().expect("px") as u32;
    assert_eq!(png_size(&shot), (side(0), side(1)), "{viewport}");

    // Watched, it shows and paints; the anchor's own tab is visible throughout.
    let mut viewer = connect(stream_port(&stage)).await;
    assert!(
        wait_for_visibility(&stage, "visible"),
        "a watched stage shows"
    );
    let (frames, _) = count_frames(&mut viewer, Duration::from_secs(1)).await;
    assert!(frames > 0, "a watched stage streams frames");
    assert_eq!(
        anchor
            .run(&["eval", "document.visibilityState"])
            .success()
            .out(),
        "\"visible\""
    );
    drop(viewer);
    assert!(
        wait_for_visibility(&stage, "hidden"),
        "once the viewer leaves, the stage is hidden again"
    );
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
