//! What typed CDP costs per call, without Chrome: building a command's params and decoding its
//! reply with the generated types (`Session::call`) against the JSON way they replaced
//! (`json!` params, a `serde_json::Value` reply read by pointer). Both go through the same
//! transport, so this is the whole difference a typed call makes; the CDP round trip it rides on
//! is hundreds of microseconds (`cdp_roundtrip`).
//!
//! `cargo bench -p abx-bench --bench cdp_codec` (env `ABX_BENCH_CODEC_CALLS`). Prints a Markdown
//! table of nanoseconds per call (median of 15 runs); never asserts timings.

use std::hint::black_box;
use std::time::Instant;

use abx_cdp::protocol::browser_protocol::{input, page};
use abx_cdp::protocol::js_protocol::runtime;
use serde_json::{Value, json};

/// A `Runtime.evaluate` reply of a by-value evaluation, as Chrome 156 sends it.
const EVALUATE_REPLY: &str =
    r#"{"result":{"type":"string","value":"http://127.0.0.1:8080/page1.html"}}"#;
/// A `Page.navigate` reply.
const NAVIGATE_REPLY: &str = r#"{"frameId":"6A1B39A6A5E7E8E0C67E7D3C1A4C2F10","loaderId":"3E8A6F1B9C0D2E4F5A6B7C8D9E0F1A2B"}"#;

/// Runs `f` `n` times, 15 runs, and returns the median nanoseconds per call.
fn ns_per_call(n: usize, mut f: impl FnMut()) -> f64 {
    let mut runs: Vec<f64> = (0..15)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..n {
                f();
            }
            started.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() {
    let n: usize = std::env::var("ABX_BENCH_CODEC_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);

    let evaluate_typed = ns_per_call(n, || {
        let params = runtime::EvaluateParams {
            return_by_value: Some(true),
            ..runtime::EvaluateParams::new("location.href")
        };
        let text = serde_json::to_string(black_box(&params)).expect("params");
        let reply: runtime::EvaluateReturns =
            serde_json::from_str(black_box(EVALUATE_REPLY)).expect("reply");
        black_box((text, reply.result.value));
    });
    let evaluate_json = ns_per_call(n, || {
        let params = json!({"expression": "location.href", "returnByValue": true});
        let text = serde_json::to_string(black_box(&params)).expect("params");
        let reply: Value = serde_json::from_str(black_box(EVALUATE_REPLY)).expect("reply");
        black_box((text, reply.pointer("/result/value").cloned()));
    });

    let navigate_typed = ns_per_call(n, || {
        let params = page::NavigateParams::new("http://127.0.0.1:8080/page1.html");
        let text = serde_json::to_string(black_box(&params)).expect("params");
        let reply: page::NavigateReturns =
            serde_json::from_str(black_box(NAVIGATE_REPLY)).expect("reply");
        black_box((text, reply.loader_id, reply.error_text));
    });
    let navigate_json = ns_per_call(n, || {
        let params = json!({"url": "http://127.0.0.1:8080/page1.html"});
        let text = serde_json::to_string(black_box(&params)).expect("params");
        let reply: Value = serde_json::from_str(black_box(NAVIGATE_REPLY)).expect("reply");
        black_box((
            text,
            reply
                .get("loaderId")
                .and_then(Value::as_str)
                .map(str::to_string),
            reply
                .get("errorText")
                .and_then(Value::as_str)
                .map(str::to_string),
        ));
    });

    // Input: sent without waiting, so only the params count (a viewer's mouse move).
    let mouse_typed = ns_per_call(n, || {
        let params = input::DispatchMouseEventParams {
            button: Some(input::MouseButton::None),
            buttons: Some(0),
            click_count: Some(0),
            ..input::DispatchMouseEventParams::new(
                input::DispatchMouseEventType::MouseMoved,
                black_box(120.5),
                40.0,
            )
        };
        black_box(serde_json::to_string(&params).expect("params"));
    });
    let mouse_json = ns_per_call(n, || {
        let params = json!({"type": "mouseMoved", "x": black_box(120.5), "y": 40.0,
                            "button": "none", "buttons": 0, "clickCount": 0});
        black_box(serde_json::to_string(&params).expect("params"));
    });

    // The screencast acknowledgement, sent once per frame.
    let ack_typed = ns_per_call(n, || {
        let ack = page::ScreencastFrameAckParams::new(black_box(41_i64));
        black_box(serde_json::to_string(&ack).expect("params"));
    });
    let ack_json = ns_per_call(n, || {
        let ack = json!({"sessionId": black_box(41_i64)});
        black_box(serde_json::to_string(&ack).expect("params"));
    });

    println!("| call | typed ns | JSON ns | typed − JSON ns |");
    println!("|---|---|---|---|");
    for (name, typed, raw) in [
        (
            "Runtime.evaluate by value (params + reply)",
            evaluate_typed,
            evaluate_json,
        ),
        (
            "Page.navigate (params + reply)",
            navigate_typed,
            navigate_json,
        ),
        ("Input.dispatchMouseEvent (params)", mouse_typed, mouse_json),
        ("Page.screencastFrameAck (params)", ack_typed, ack_json),
    ] {
        println!("| {name} | {typed:.0} | {raw:.0} | {:+.0} |", typed - raw);
    }
    println!(
        "\n{n} calls per run, median of 15 runs; no Chrome, no transport (both paths share it)."
    );
}
