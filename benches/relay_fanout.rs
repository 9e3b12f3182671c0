//! Live-view fan-out benchmark against real Chromium: one screencast of the animated fixture page
//! served by the stream server to N WebSocket viewers (N = 1, 2, 4, 8). For each N it reports the
//! delivered frame rate per viewer and the relay's added latency — from the moment the CDP reader
//! finished receiving a frame to the moment a viewer finished receiving its `frame` message —
//! as p50/p90/p99/max, plus Chrome's source rate.
//!
//! `cargo bench -p abx-bench --bench relay_fanout` (env `ABX_BENCH_SECONDS`, default 3).
//! Prints a Markdown table; never asserts timings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use abx_engine::{Browser, Session, SessionOptions, WaitUntil};
use abx_relay::{LiveView, NoHooks, ServerOptions, StreamServer};
use futures_util::StreamExt;
use hdrhistogram::Histogram;
use tokio_tungstenite::tungstenite::Message;

fn seq_of(text: &str) -> Option<u64> {
    let start = text.find(r#""seq":"#)? + 6;
    text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

/// One viewer: (frames received, receive instants by seq).
async fn viewer(port: u16, run_for: Duration) -> (usize, Vec<(u64, Instant)>) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("viewer connects");
    let end = Instant::now() + run_for;
    let mut seen = Vec::new();
    while let Ok(Some(Ok(message))) =
        tokio::time::timeout(end.saturating_duration_since(Instant::now()), ws.next()).await
    {
        let at = Instant::now();
        if let Message::Text(text) = message
            && text.starts_with(r#"{"type":"frame""#)
            && let Some(seq) = seq_of(&text)
        {
            seen.push((seq, at));
        }
    }
    (seen.len(), seen)
}

#[tokio::main]
async fn main() {
    let seconds: u64 = std::env::var("ABX_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let run_for = Duration::from_secs(seconds);
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
    let session = Arc::new(
        Session::start(browser, SessionOptions::default())
            .await
            .expect("session"),
    );
    session
        .navigate(&site.url("/animated.html"), WaitUntil::Load, None)
        .await
        .expect("navigate");
    let view = LiveView::open(session.clone(), Default::default())
        .await
        .expect("live view");
    let server = StreamServer::start(
        view.relay().clone(),
        ServerOptions::default(),
        Arc::new(NoHooks),
    )
    .expect("stream server");
    let port = server.port();

    // When the relay got each frame from CDP (recorded in-process from the frame slot).
    let received: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let slot_delay = Arc::new(Mutex::new(Histogram::<u64>::new(3).expect("histogram")));
    let recorder = {
        let received = received.clone();
        let slot_delay = slot_delay.clone();
        let mut frames = view.frames();
        tokio::spawn(async move {
            while let Some(frame) = frames.next().await {
                if let Ok(mut map) = received.lock() {
                    map.insert(frame.seq(), frame.received_at());
                }
                if let Ok(mut h) = slot_delay.lock() {
                    let _ = h.record((frame.received_at().elapsed().as_micros() as u64).max(1));
                }
            }
        })
    };

    println!(
        "| viewers | source fps | fps per viewer (min–max) | added latency p50 µs | p90 | p99 | max |"
    );
    println!("|---|---|---|---|---|---|---|");
    for n in [1usize, 2, 4, 8] {
        let before = received.lock().map(|m| m.len()).unwrap_or(0);
        let started = Instant::now();
        let results = futures_util::future::join_all((0..n).map(|_| viewer(port, run_for))).await;
        let elapsed = started.elapsed().as_secs_f64();
        let source = received.lock().map(|m| m.len()).unwrap_or(0) - before;
        let mut histogram = Histogram::<u64>::new(3).expect("histogram");
        let sent = received.lock().map(|m| m.clone()).unwrap_or_default();
        let mut rates = Vec::new();
        for (count, seen) in &results {
            rates.push(*count as f64 / elapsed);
            // The first frame is the cached one sent with the greeting: it waited for the viewer
            // to connect, not for the relay.
            for (seq, at) in seen.iter().skip(1) {
                if let Some(from) = sent.get(seq) {
                    let micros = at.saturating_duration_since(*from).as_micros() as u64;
                    let _ = histogram.record(micros.max(1));
                }
            }
        }
        let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let max = rates.iter().copied().fold(0.0, f64::max);
        println!(
            "| {n} | {:.1} | {min:.1}–{max:.1} | {} | {} | {} | {} |",
            source as f64 / elapsed,
            histogram.value_at_quantile(0.5),
            histogram.value_at_quantile(0.9),
            histogram.value_at_quantile(0.99),
            histogram.max(),
        );
    }
    recorder.abort();
    if let Ok(h) = slot_delay.lock() {
        println!(
            "CDP receipt → frame slot (in-process receiver): p50 {} p90 {} p99 {} max {} µs",
            h.value_at_quantile(0.5),
            h.value_at_quantile(0.9),
            h.value_at_quantile(0.99),
            h.max()
        );
    }
    server.shutdown().await;
    view.close().await;
    let receipt = session.close().await;
    assert!(receipt.verified, "Chrome did not close cleanly");
}
