//! Records real screencast frames from the animated fixture page into `benches/data/frames.bin`
//! (for the fake-CDP relay benchmark, so it replays what Chrome really sends).
//!
//! Format: repeated `u32` little-endian length + JPEG bytes. `cargo run -p abx-bench --bin
//! record_frames -- [count] [max_width]` (defaults 240 frames, 640 px wide, quality 80).

use std::io::Write;
use std::time::Duration;

use abx_cdp::{Connection, EventFilter};
use abx_chrome::{Chrome, LaunchOptions};
use base64::Engine as _;
use serde_json::json;

fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(240);
    let max_width: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(640);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let frames = runtime.block_on(record(count, max_width));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("frames.bin");
    let mut file = std::fs::File::create(&path).expect("create frames.bin");
    let mut total = 0;
    for frame in &frames {
        file.write_all(&(frame.len() as u32).to_le_bytes())
            .expect("write");
        file.write_all(frame).expect("write");
        total += frame.len();
    }
    println!(
        "{} frames, {} bytes ({} bytes per frame on average) → {}",
        frames.len(),
        total,
        total / frames.len().max(1),
        path.display()
    );
}

async fn record(count: usize, max_width: u32) -> Vec<Vec<u8>> {
    let site = abx_fixtures::FixtureServer::start()
        .await
        .expect("fixture server");
    let chrome = Chrome::launch(LaunchOptions {
        args: vec!["--disable-quic".into()],
        ..LaunchOptions::default()
    })
    .await
    .expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("connect");
    let created = conn
        .browser()
        .call_json(
            "Target.createTarget",
            json!({"url": site.url("/animated.html")}),
        )
        .await
        .expect("tab");
    let page = conn
        .attach(created["targetId"].as_str().expect("id"))
        .await
        .expect("attach");
    page.call_json("Page.enable", json!({}))
        .await
        .expect("enable");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut events = page.subscribe(EventFilter::methods(["Page.screencastFrame"]), 16);
    page.call_json("Page.startScreencast",
        json!({"format": "jpeg", "quality": 80, "maxWidth": max_width, "maxHeight": max_width * 9 / 16, "everyNthFrame": 1}),
    )
    .await
    .expect("start screencast");
    let mut frames = Vec::with_capacity(count);
    while frames.len() < count {
        let Ok(Some(event)) = tokio::time::timeout(Duration::from_secs(5), events.recv()).await
        else {
            break;
        };
        let Some(frame) = event.screencast_frame() else {
            continue;
        };
        let _ = page
            .send_json(
                "Page.screencastFrameAck",
                &json!({"sessionId": frame.ack_id}),
            )
            .await;
        if let Ok(jpeg) = base64::engine::general_purpose::STANDARD.decode(&frame.data) {
            frames.push(jpeg);
        }
    }
    chrome.close(Some(&conn)).await;
    frames
}
