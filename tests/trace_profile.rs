//! `trace`, `profiler` and `inspect` against real Chromium: the files they write parse, the
//! URL they print is served, bad input is a clear error.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the file was written");
    serde_json::from_str(&text).expect("the file is JSON")
}

#[test]
fn trace_writes_chrome_trace_json_with_the_pages_events() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("trace.json");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    ab.run(&["trace", "start"]).success();
    let twice = ab.run(&["trace", "start"]).failure();
    assert!(
        twice.stderr.contains("Tracing already active"),
        "{}",
        twice.stderr
    );
    ab.run(&["open", &site.url("/page2.html")]).success();
    let stopped = ab
        .run(&["--json", "trace", "stop", file.to_str().expect("utf-8")])
        .success()
        .json();
    let trace = read_json(&file);
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    assert_eq!(
        stopped["data"]["eventCount"].as_u64(),
        Some(events.len() as u64)
    );
    // The navigation shows in the timeline: a renderer's main thread and page-load events.
    assert!(
        events
            .iter()
            .any(|e| e["name"] == "CrRendererMain" || e["args"]["name"] == "CrRendererMain"),
        "no renderer thread in the trace"
    );
    assert!(
        events.iter().any(|e| e["ph"] == "X" || e["ph"] == "B"),
        "no duration events"
    );
    let again = ab
        .run(&["trace", "stop", file.to_str().expect("utf-8")])
        .failure();
    assert_eq!(again.code, 1);
    assert!(
        again.stderr.contains("No tracing in progress"),
        "{}",
        again.stderr
    );
    ab.run(&["close"]).success();
}

#[test]
fn trace_stop_to_an_unwritable_path_fails_and_keeps_the_trace_running() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    ab.run(&["trace", "start"]).success();
    let refused = ab
        .run(&["trace", "stop", "/nonexistent-abx-dir/t.json"])
        .failure();
    assert!(
        refused
            .stderr
            .contains("cannot write /nonexistent-abx-dir/t.json"),
        "{}",
        refused.stderr
    );
    let file = dir.path().join("t.json");
    ab.run(&["trace", "stop", file.to_str().expect("utf-8")])
        .success();
    assert!(read_json(&file)["traceEvents"].is_array());
    ab.run(&["close"]).success();
}

#[test]
fn profiler_writes_upstreams_sampling_trace_with_the_cpu_samples() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("profile.json");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let stop = ab.run(&["profiler", "stop"]).failure();
    assert!(
        stop.stderr.contains("No profiling in progress"),
        "{}",
        stop.stderr
    );
    let started = ab.run(&["profiler", "start"]).success();
    assert_eq!(started.out(), "✓ Profiling started");
    let busy = ab.run(&["trace", "start"]).failure();
    assert!(busy.stderr.contains("already active"), "{}", busy.stderr);
    ab.run(&[
        "eval",
        // Busy for a fixed time, not a fixed count: a fast machine ran 2e7 iterations in a
        // few ms, between two samples, and the profile then had no `spin` frame.
        "function spin() { const end = performance.now() + 400; let x = 0; \
         while (performance.now() < end) x += Math.sqrt(x + 1); return x > 0 } spin()",
    ])
    .success();
    let saved = ab
        .run(&["profiler", "stop", file.to_str().expect("utf-8")])
        .success();
    // As upstream: trace-event JSON (the timeline and V8's CPU samples as `ProfileChunk`
    // events), with only the clock domain as metadata; the count is the number of events.
    let profile = read_json(&file);
    let events = profile["traceEvents"].as_array().expect("traceEvents");
    assert_eq!(
        profile["metadata"],
        serde_json::json!({"clock-domain": "LINUX_CLOCK_MONOTONIC"})
    );
    assert!(
        events.iter().any(|e| e["name"] == "RunTask"),
        "timeline tasks are recorded"
    );
    let sampled = |name: &str| {
        events
            .iter()
            .filter(|e| e["name"] == "ProfileChunk")
            .filter_map(|e| e["args"]["data"]["cpuProfile"]["nodes"].as_array())
            .flatten()
            .any(|n| n["callFrame"]["functionName"] == name)
    };
    assert!(sampled("spin"), "the busy function is in the CPU samples");
    assert_eq!(
        saved.out(),
        format!(
            "✓ Profile saved to {} ({} events)",
            file.display(),
            events.len()
        )
    );
    ab.run(&["close"]).success();
}

#[test]
fn profiler_with_categories_writes_a_trace_like_upstream() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("p.json");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    ab.run(&[
        "profiler",
        "start",
        "--categories",
        "devtools.timeline,v8.execute",
    ])
    .success();
    ab.run(&["reload"]).success();
    ab.run(&["profiler", "stop", file.to_str().expect("utf-8")])
        .success();
    let trace = read_json(&file);
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    assert!(!events.is_empty());
    ab.run(&["close"]).success();
}

#[test]
fn inspect_prints_a_devtools_url_for_the_sessions_own_tab() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let json = ab.run(&["--json", "inspect"]).success().json();
    let url = json["data"]["url"].as_str().expect("url").to_string();
    let target = json["data"]["targetId"].as_str().expect("targetId");
    assert!(
        url.contains("/devtools/inspector.html?ws=")
            && url.ends_with(&format!("/devtools/page/{target}")),
        "{url}"
    );
    // The tab it names is this session's tab, and Chrome serves the frontend page.
    let bound: Value =
        serde_json::from_str(&std::fs::read_to_string(ab.file("target")).expect(".target"))
            .expect("json");
    assert_eq!(bound["targetId"], target);
    let text = ab.run(&["inspect"]).success();
    assert_eq!(text.out(), format!("✓ Opened DevTools: {url}"));
    ab.run(&["close"]).success();
}
