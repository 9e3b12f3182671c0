//! A minimal live-view viewer for the demo: connects to a session's stream port, counts frames for
//! a while, clicks at a point through `input_mouse`, and (optionally) answers the next dialog the
//! page raises with `dialog_answer`. Prints what it saw, one line per fact.
//!
//! `cargo run -p abx-relay --example viewer -- <port> [--seconds N] [--click X,Y] [--answer-dialog]`

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let Some(port) = args.next().and_then(|p| p.parse::<u16>().ok()) else {
        eprintln!("usage: viewer <port> [--seconds N] [--click X,Y] [--answer-dialog]");
        std::process::exit(2);
    };
    let (mut seconds, mut click, mut answer) = (2.0f64, None, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).unwrap_or(seconds),
            "--click" => {
                click = args.next().and_then(|xy| {
                    let (x, y) = xy.split_once(',')?;
                    Some((x.parse::<f64>().ok()?, y.parse::<f64>().ok()?))
                });
            }
            "--answer-dialog" => answer = true,
            other => eprintln!("ignoring {other}"),
        }
    }
    let url = format!("ws://127.0.0.1:{port}/");
    let (mut ws, _) = match tokio_tungstenite::connect_async(url.as_str()).await {
        Ok(connected) => connected,
        Err(err) => {
            eprintln!("cannot connect to {url}: {err}");
            std::process::exit(1);
        }
    };
    let started = Instant::now();
    let mut frames = 0u64;
    let mut first_frame = None;
    let mut clicked = false;
    let mut answered = !answer;
    let window = Duration::from_secs_f64(seconds);
    while started.elapsed() < window || !answered {
        let left = (window + Duration::from_secs(10)).saturating_sub(started.elapsed());
        let Ok(Some(Ok(message))) = tokio::time::timeout(left, ws.next()).await else {
            break;
        };
        let Message::Text(text) = message else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        match value["type"].as_str() {
            Some("frame") => {
                frames += 1;
                first_frame.get_or_insert(started.elapsed());
                // Upstream's ack pacing is off by default; acking does no harm in push mode.
                let _ = ws
                    .send(Message::text(
                        json!({"type": "ack", "seq": value["seq"]}).to_string(),
                    ))
                    .await;
                if let (Some((x, y)), false) = (click, clicked) {
                    for event in ["mousePressed", "mouseReleased"] {
                        let input = json!({"type": "input_mouse", "eventType": event, "x": x, "y": y, "button": "left", "clickCount": 1});
                        let _ = ws.send(Message::text(input.to_string())).await;
                    }
                    clicked = true;
                    println!("viewer: clicked at ({x}, {y}) through input_mouse");
                }
            }
            Some("dialog") if !answered => {
                println!(
                    "viewer: the page shows a {} dialog: \"{}\"",
                    value["dialogType"].as_str().unwrap_or("?"),
                    value["message"].as_str().unwrap_or("")
                );
                let _ = ws
                    .send(Message::text(
                        json!({"type": "dialog_answer", "accept": true}).to_string(),
                    ))
                    .await;
                answered = true;
                println!("viewer: answered it (accept)");
            }
            _ => {}
        }
    }
    let elapsed = started.elapsed().as_secs_f64().min(seconds.max(0.001));
    println!(
        "viewer: {frames} frames in {elapsed:.1} s ({:.0} fps), first frame after {} ms",
        frames as f64 / elapsed,
        first_frame.map_or(-1, |d| d.as_millis() as i64)
    );
    let _ = ws.close(None).await;
}
