//! `--input-mode human` (and `drag --human`) takes the travelling pointer path for hover,
//! dblclick and drag too, not only click: counted and traced by the fixture page's mouse
//! listeners (`/events.html`).

use abx_tests::cli::Cli;

mod common;

fn counts(ab: &Cli) -> serde_json::Value {
    ab.run(&["--json", "eval", "window.__counts"])
        .success()
        .json()["data"]["result"]
        .clone()
}

/// Moves the pointer far from the button and zeroes the counts.
fn start_far_away(ab: &Cli) {
    ab.run(&["mouse", "move", "5", "400"]).success();
    ab.run(&[
        "eval",
        "for (const k in window.__counts) window.__counts[k] = 0",
    ])
    .success();
}

fn moves(value: &serde_json::Value) -> i64 {
    value["mousemove"].as_i64().unwrap_or(-1)
}

#[test]
fn human_hover_travels_and_a_plain_hover_jumps() {
    let site = common::site();
    let ab = Cli::new().session("hpath1");
    ab.run(&["open", &site.url("/events.html")]).success();
    start_far_away(&ab);
    ab.run(&["hover", "#target"]).success();
    let plain = counts(&ab);
    assert!((1..=2).contains(&moves(&plain)), "{plain}");

    start_far_away(&ab);
    ab.run(&["--input-mode", "human", "hover", "#target"])
        .success();
    let human = counts(&ab);
    assert!(moves(&human) >= 10, "a human hover approaches: {human}");
    assert_eq!(human["click"], 0, "{human}");
    ab.run(&["close"]).success();
}

#[test]
fn human_dblclick_travels_then_double_clicks_once() {
    let site = common::site();
    let ab = Cli::new().session("hpath2");
    ab.run(&["open", &site.url("/events.html")]).success();
    start_far_away(&ab);
    ab.run(&["--input-mode", "human", "dblclick", "#target"])
        .success();
    let human = counts(&ab);
    assert!(moves(&human) >= 10, "{human}");
    assert_eq!(human["dblclick"], 1, "{human}");
    // One press with clickCount 2, as upstream's human dblclick.
    assert_eq!(human["mousedown"], 1, "{human}");
    assert_eq!(human["click"], 1, "{human}");
    ab.run(&["close"]).success();
}

#[test]
fn human_drag_carries_the_element_along_a_curve() {
    let site = common::site();
    let ab = Cli::new().session("hpath3");
    ab.run(&["open", &site.url("/events.html")]).success();
    ab.run(&[
        "eval",
        "window.__held = []; document.addEventListener('mousemove', e => { if (e.buttons & 1) window.__held.push([e.clientX, e.clientY]); }, true); 0",
    ])
    .success();
    start_far_away(&ab);
    ab.run(&["drag", "#target", "h1"]).success();
    let plain = counts(&ab);
    assert_eq!(plain["mousedown"], 1, "{plain}");

    start_far_away(&ab);
    ab.run(&["eval", "window.__held = []; 0"]).success();
    ab.run(&["drag", "#target", "h1", "--human"]).success();
    let human = counts(&ab);
    assert_eq!(human["mousedown"], 1, "{human}");
    assert_eq!(human["mouseup"], 1, "{human}");
    assert!(
        moves(&human) >= moves(&plain) + 10,
        "human {human} vs plain {plain}"
    );
    let held = ab
        .run(&["--json", "eval", "window.__held"])
        .success()
        .json()["data"]["result"]
        .clone();
    let points: Vec<(f64, f64)> = held
        .as_array()
        .expect("points")
        .iter()
        .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
        .collect();
    assert!(points.len() >= 10, "the carried path: {points:?}");
    let (first, last) = (points[0], points[points.len() - 1]);
    let (dx, dy) = (last.0 - first.0, last.1 - first.1);
    let length = (dx * dx + dy * dy).sqrt().max(1.0);
    let off = points
        .iter()
        .map(|(x, y)| ((x - first.0) * dy - (y - first.1) * dx).abs() / length)
        .fold(0.0, f64::max);
    assert!(off > 3.0, "the carried path is a straight line: {points:?}");

    // `--input-mode human` does the same without the word.
    start_far_away(&ab);
    ab.run(&["--input-mode", "human", "drag", "#target", "h1"])
        .success();
    let mode = counts(&ab);
    assert!(moves(&mode) >= moves(&plain) + 10, "{mode}");
    ab.run(&["close"]).success();
}
