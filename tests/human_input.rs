//! A pointer that travels instead of teleporting: `click --human`, `mouse move --steps/--human`
//! and `--input-mode human|smooth`, counted by the fixture page's mousemove listener.

use abx_tests::cli::Cli;

mod common;

fn counts(ab: &Cli) -> serde_json::Value {
    ab.run(&["--json", "eval", "window.__counts"])
        .success()
        .json()["data"]["result"]
        .clone()
}

/// Zeroes the page's counters once it has drawn a frame: Chrome sends a new tab's first document
/// one mousemove of its own at (0, 0) with that first frame, which `open` does not wait for.
fn reset(ab: &Cli) {
    ab.run(&[
        "eval",
        "new Promise(done => requestAnimationFrame(() => { for (const k in window.__counts) window.__counts[k] = 0; done(0); }))",
    ])
    .success();
}

fn moves(ab: &Cli) -> i64 {
    counts(ab)["mousemove"].as_i64().unwrap_or(-1)
}

#[test]
fn a_plain_click_teleports_and_a_human_click_travels_along_a_path() {
    let site = common::site();
    let ab = Cli::new().session("human1");
    ab.run(&["open", &site.url("/events.html")]).success();

    ab.run(&["click", "#target"]).success();
    let plain = counts(&ab);
    assert_eq!(plain["click"], 1, "{plain}");
    // One move to the point (Chrome may add one synthetic move of its own after a layout).
    assert!(
        plain["mousemove"]
            .as_i64()
            .is_some_and(|n| (1..=2).contains(&n)),
        "a plain click jumps to the element: {plain}"
    );

    // Start far from the button, then click it the human way.
    ab.run(&["mouse", "move", "5", "400"]).success();
    reset(&ab);
    ab.run(&["click", "#target", "--human"]).success();
    let human = counts(&ab);
    assert_eq!(human["click"], 1, "{human}");
    assert_eq!(human["mousedown"], 1, "{human}");
    assert!(
        human["mousemove"].as_i64().is_some_and(|n| n >= 10),
        "a human click must approach in many moves: {human}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn mouse_move_steps_sends_that_many_moves_and_human_moves_curve() {
    let site = common::site();
    let ab = Cli::new().session("human2");
    ab.run(&["open", &site.url("/events.html")]).success();
    reset(&ab);
    let moved = ab
        .run(&["--json", "mouse", "move", "300", "200", "--steps", "10"])
        .success()
        .json();
    assert_eq!(moved["data"]["steps"], 10, "{moved}");
    assert_eq!(moves(&ab), 10);

    reset(&ab);
    ab.run(&["mouse", "move", "20", "20"]).success();
    assert_eq!(moves(&ab), 1, "without options a move is one event");

    // The page sees the points of a human path: not on the straight line.
    ab.run(&[
        "eval",
        "window.__points = []; document.addEventListener('mousemove', e => window.__points.push([e.clientX, e.clientY])); 0",
    ])
    .success();
    ab.run(&["mouse", "move", "420", "320", "--human", "--seed", "42"])
        .success();
    let points = ab
        .run(&["--json", "eval", "window.__points"])
        .success()
        .json()["data"]["result"]
        .clone();
    let points: Vec<(f64, f64)> = points
        .as_array()
        .expect("points")
        .iter()
        .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
        .collect();
    assert!(points.len() >= 10, "{points:?}");
    assert_eq!(points.last().copied(), Some((420.0, 320.0)), "{points:?}");
    // Distance of each point from the line (20,20)-(420,320).
    let off = points
        .iter()
        .map(|(x, y)| ((x - 20.0) * 300.0 - (y - 20.0) * 400.0).abs() / 500.0)
        .fold(0.0, f64::max);
    assert!(off > 10.0, "the human path is a straight line: {points:?}");
    ab.run(&["close"]).success();
}

#[test]
fn input_mode_human_makes_clicks_travel() {
    let site = common::site();
    let ab = Cli::new().session("human3");
    ab.run(&["open", &site.url("/events.html")]).success();
    ab.run(&["mouse", "move", "5", "400"]).success();
    reset(&ab);
    ab.run(&["--input-mode", "human", "click", "#target"])
        .success();
    let human = counts(&ab);
    assert_eq!(human["click"], 1, "{human}");
    assert!(
        human["mousemove"].as_i64().is_some_and(|n| n >= 10),
        "{human}"
    );
    reset(&ab);
    ab.run(&["--input-mode", "smooth", "mouse", "move", "50", "50"])
        .success();
    assert_eq!(moves(&ab), 10, "smooth moves take ten steps");
    ab.run(&["close"]).success();
}

#[test]
fn bad_motion_options_are_refused() {
    let ab = Cli::new().session("human4");
    for args in [
        vec!["mouse", "move", "1", "2", "--steps", "0"],
        vec!["mouse", "move", "1", "2", "--steps", "241"],
        vec!["mouse", "move", "1", "2", "--steps", "many"],
        vec!["mouse", "move", "1", "2", "--duration"],
    ] {
        let out = ab.run(&args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(out.stderr.contains("--"), "{args:?}: {out:?}");
    }
    assert!(
        ab.daemon_pid().is_none(),
        "a refused command started a daemon"
    );
}

#[test]
fn an_unknown_input_mode_is_warned_about_and_ignored_like_upstream() {
    let site = common::site();
    let ab = Cli::new().session("human5");
    ab.run(&["open", &site.url("/events.html")]).success();
    reset(&ab);
    let out = ab
        .run(&["--input-mode", "bogus", "mouse", "move", "40", "40"])
        .success();
    assert!(
        out.stderr
            .contains("--input-mode must be instant, smooth, or human, got 'bogus'"),
        "{out:?}"
    );
    assert_eq!(moves(&ab), 1, "an unknown mode moves like the default");
    ab.run(&["close"]).success();
}
