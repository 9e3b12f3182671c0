//! What a stage's CDP address through the Host kit's loopback forwarder costs
//! (`abx_cdp::forward`, ADR 0017): the round trip of `Runtime.evaluate("1")` on a page session,
//! and of `Page.captureScreenshot` (a ~100 KB answer), directly to Chrome, through the
//! forwarder unfiltered (`ClientScope::Full`), and through it scoped to the client's own targets
//! (`ClientScope::OwnTargets`, every browser-level message parsed), interleaved call by call on
//! one Chrome so all three see the same machine.
//!
//! `cargo bench -p abx-bench --bench cdp_forward` (env `ABX_BENCH_CALLS`, default 2000).
//! Prints a Markdown table; never asserts timings.

use std::time::{Duration, Instant};

use abx_cdp::Connection;
use abx_cdp::forward::{ClientScope, Forwarder, Upstream};
use abx_chrome::{Chrome, LaunchOptions};
use serde_json::json;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn micros(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

/// A page of the client's own (created through its connection) and a session on it.
async fn own_page(conn: &Connection, html: &str) -> abx_cdp::Session {
    let created = conn
        .browser()
        .call_json("Target.createTarget", json!({"url": "about:blank"}))
        .await
        .expect("create");
    let target = created["targetId"].as_str().expect("id").to_string();
    let page = conn.attach(&target).await.expect("attach");
    page.call_json("Page.enable", json!({}))
        .await
        .expect("enable");
    let frames = page
        .call_json("Page.getFrameTree", json!({}))
        .await
        .expect("frames");
    let frame = frames["frameTree"]["frame"]["id"]
        .as_str()
        .expect("frame")
        .to_string();
    page.call_json(
        "Page.setDocumentContent",
        json!({"frameId": frame, "html": html}),
    )
    .await
    .expect("content");
    page
}

struct Row {
    name: &'static str,
    eval: Vec<Duration>,
    shot: Vec<Duration>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls: usize = std::env::var("ABX_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let chrome = Chrome::launch(LaunchOptions {
        args: vec!["--disable-quic".into(), "--disable-gpu".into()],
        ..LaunchOptions::default()
    })
    .await
    .expect("launch");
    let forwarder = Forwarder::start(Upstream {
        url: chrome.ws_url().to_string(),
        ..Upstream::default()
    })
    .await
    .expect("forwarder");
    forwarder.add_client("full", ClientScope::Full);
    forwarder.add_client("own", ClientScope::OwnTargets);
    let html = format!(
        "<body style='background:linear-gradient(red,blue)'>{}</body>",
        "<p>text to paint</p>".repeat(200)
    );
    let direct = Connection::connect(chrome.ws_url()).await.expect("direct");
    let full = Connection::connect(&forwarder.client_url("full"))
        .await
        .expect("full");
    let own = Connection::connect(&forwarder.client_url("own"))
        .await
        .expect("own");
    let mut rows = Vec::new();
    let mut pages = Vec::new();
    for (name, conn) in [
        ("direct to Chrome", &direct),
        ("forwarder, whole browser", &full),
        ("forwarder, own targets only", &own),
    ] {
        pages.push(own_page(conn, &html).await);
        rows.push(Row {
            name,
            eval: Vec::with_capacity(calls),
            shot: Vec::new(),
        });
    }
    let eval = json!({"expression": "1", "returnByValue": true});
    for _ in 0..100 {
        for page in &pages {
            page.call_json("Runtime.evaluate", eval.clone())
                .await
                .expect("warm");
        }
    }
    for _ in 0..calls {
        for (row, page) in rows.iter_mut().zip(&pages) {
            let started = Instant::now();
            page.call_json("Runtime.evaluate", eval.clone())
                .await
                .expect("eval");
            row.eval.push(started.elapsed());
        }
    }
    let mut shot_bytes = 0;
    for _ in 0..(calls / 20).max(20) {
        for (row, page) in rows.iter_mut().zip(&pages) {
            let started = Instant::now();
            let shot = page
                .call_json("Page.captureScreenshot", json!({"format": "png"}))
                .await
                .expect("screenshot");
            row.shot.push(started.elapsed());
            shot_bytes = shot["data"].as_str().map_or(0, str::len);
        }
    }
    // A browser-level call the filter rewrites: the target list.
    let mut listing = Vec::new();
    for conn in [&direct, &full, &own] {
        let mut times = Vec::new();
        for _ in 0..200 {
            let started = Instant::now();
            conn.browser()
                .call_json("Target.getTargets", json!({}))
                .await
                .expect("targets");
            times.push(started.elapsed());
        }
        times.sort();
        listing.push(times);
    }
    println!(
        "CDP through the loopback forwarder: {calls} interleaved `Runtime.evaluate(\"1\")` calls per path, {} screenshots (~{} KB base64 each), 200 `Target.getTargets`; µs\n",
        rows[0].shot.len(),
        shot_bytes / 1024
    );
    println!("| path | evaluate p50 | p90 | p99 | screenshot p50 | p90 | getTargets p50 |");
    println!("|---|---|---|---|---|---|---|");
    for (row, list) in rows.iter_mut().zip(&listing) {
        row.eval.sort();
        row.shot.sort();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            micros(percentile(&row.eval, 0.5)),
            micros(percentile(&row.eval, 0.9)),
            micros(percentile(&row.eval, 0.99)),
            micros(percentile(&row.shot, 0.5)),
            micros(percentile(&row.shot, 0.9)),
            micros(percentile(list, 0.5)),
        );
    }
    for conn in [direct, full, own] {
        conn.close();
    }
    forwarder.stop();
    chrome.close(None).await;
}
