//! Transport benchmark: CDP round trip of `Runtime.evaluate("1")` on a page session (p50/p90/p99
//! over many calls) and Chrome launch-to-ready time (spawn → DevTools endpoint → first page
//! session attached), over WebSocket and over `--remote-debugging-pipe`; and the same round trip
//! as a typed call (`Session::call` with the generated types) against the raw JSON call,
//! interleaved on one session so both see the same machine.
//!
//! `cargo bench -p abx-bench --bench cdp_roundtrip` (env `ABX_BENCH_CALLS`, `ABX_BENCH_LAUNCHES`).
//! Prints a Markdown table; never asserts timings.

use std::time::{Duration, Instant};

use abx_cdp::Connection;
use abx_chrome::{Chrome, LaunchOptions, Transport};
use serde_json::json;

fn options(transport: Transport) -> LaunchOptions {
    LaunchOptions {
        args: vec!["--disable-quic".into(), "--disable-gpu".into()],
        transport,
        ..LaunchOptions::default()
    }
}

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

fn millis(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e3)
}

async fn connect(chrome: &mut Chrome) -> Connection {
    match chrome.take_pipe() {
        Some((read, write)) => {
            Connection::over_pipe(read, write, &abx_cdp::ConnectOptions::default())
        }
        None => Connection::connect(chrome.ws_url()).await.expect("connect"),
    }
}

async fn first_page(conn: &Connection) -> abx_cdp::Session {
    let targets = conn
        .browser()
        .call_json("Target.getTargets", json!({}))
        .await
        .expect("targets");
    let target = targets["targetInfos"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["type"] == "page"))
        .and_then(|t| t["targetId"].as_str())
        .map(str::to_string);
    let target = match target {
        Some(t) => t,
        None => conn
            .browser()
            .call_json("Target.createTarget", json!({"url": "about:blank"}))
            .await
            .expect("create")["targetId"]
            .as_str()
            .expect("id")
            .to_string(),
    };
    conn.attach(&target).await.expect("attach")
}

async fn round_trips(transport: Transport, calls: usize) -> Vec<Duration> {
    let mut chrome = Chrome::launch(options(transport)).await.expect("launch");
    let conn = connect(&mut chrome).await;
    let page = first_page(&conn).await;
    let params = json!({"expression": "1", "returnByValue": true});
    for _ in 0..50 {
        page.call_json("Runtime.evaluate", params.clone())
            .await
            .expect("warm-up");
    }
    let mut samples = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        page.call_json("Runtime.evaluate", params.clone())
            .await
            .expect("evaluate");
        samples.push(started.elapsed());
    }
    chrome.close(Some(&conn)).await;
    samples.sort();
    samples
}

/// Typed and raw JSON `Runtime.evaluate("1")` alternating on one WebSocket session.
async fn typed_vs_raw(calls: usize) -> (Vec<Duration>, Vec<Duration>) {
    use abx_cdp::protocol::js_protocol::runtime::EvaluateParams;
    let mut chrome = Chrome::launch(options(Transport::WebSocket))
        .await
        .expect("launch");
    let conn = connect(&mut chrome).await;
    let page = first_page(&conn).await;
    let typed = || EvaluateParams {
        return_by_value: Some(true),
        ..EvaluateParams::new("1")
    };
    let raw = json!({"expression": "1", "returnByValue": true});
    for _ in 0..50 {
        page.call(typed()).await.expect("warm-up");
        page.call_json("Runtime.evaluate", raw.clone())
            .await
            .expect("warm-up");
    }
    let (mut typed_samples, mut raw_samples) = (Vec::new(), Vec::new());
    for _ in 0..calls {
        let started = Instant::now();
        let reply = page.call(typed()).await.expect("evaluate");
        std::hint::black_box(reply.result.value);
        typed_samples.push(started.elapsed());
        let started = Instant::now();
        let reply = page
            .call_json("Runtime.evaluate", raw.clone())
            .await
            .expect("evaluate");
        std::hint::black_box(reply.pointer("/result/value").cloned());
        raw_samples.push(started.elapsed());
    }
    chrome.close(Some(&conn)).await;
    typed_samples.sort();
    raw_samples.sort();
    (typed_samples, raw_samples)
}

async fn launches(transport: Transport, count: usize) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(count);
    for _ in 0..count {
        let started = Instant::now();
        let mut chrome = Chrome::launch(options(transport)).await.expect("launch");
        let conn = connect(&mut chrome).await;
        let _page = first_page(&conn).await;
        samples.push(started.elapsed());
        chrome.close(Some(&conn)).await;
    }
    samples.sort();
    samples
}

fn main() {
    let calls: usize = std::env::var("ABX_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let count: usize = std::env::var("ABX_BENCH_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        println!("| transport | Runtime.evaluate(\"1\") p50 µs | p90 µs | p99 µs | max µs | launch→ready p50 ms | p90 ms | max ms |");
        println!("|---|---|---|---|---|---|---|---|");
        for (name, transport) in [("WebSocket", Transport::WebSocket), ("pipe", Transport::Pipe)] {
            let rt = round_trips(transport, calls).await;
            let launch = launches(transport, count).await;
            println!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} |",
                micros(percentile(&rt, 0.5)),
                micros(percentile(&rt, 0.9)),
                micros(percentile(&rt, 0.99)),
                micros(percentile(&rt, 1.0)),
                millis(percentile(&launch, 0.5)),
                millis(percentile(&launch, 0.9)),
                millis(percentile(&launch, 1.0)),
            );
        }
                println!("\n{calls} round trips per transport after 50 warm-up calls; {count} launches per transport.");
        let (typed, raw) = typed_vs_raw(calls).await;
        println!("\n| WebSocket, Runtime.evaluate(\"1\") | p50 µs | p90 µs | p99 µs |");
        println!("|---|---|---|---|");
        for (name, samples) in [("typed (`call(EvaluateParams)`)", &typed), ("raw JSON (`call_json`)", &raw)] {
            println!(
                "| {name} | {} | {} | {} |",
                micros(percentile(samples, 0.5)),
                micros(percentile(samples, 0.9)),
                micros(percentile(samples, 0.99)),
            );
        }
        println!("\n{calls} calls of each, alternating on one session after 50 warm-up calls of each.");
    });
}
