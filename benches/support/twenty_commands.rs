//! The 20-command stage session that `record_session` and `stage_scale` both run: navigation,
//! reads, input, snapshot, eval, screenshot. One list, so the two benches measure the same loop.

/// The commands, as argv words, against the fixture origin `base`; `shot` is the screenshot path.
pub(crate) fn twenty_commands(base: &str, shot: &str) -> Vec<Vec<String>> {
    let url = |p: &str| format!("{base}{p}");
    let words = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
    vec![
        words(&["open", &url("/page1.html")]),
        words(&["get", "title"]),
        words(&["snapshot", "-i"]),
        words(&["click", "a"]),
        words(&["get", "url"]),
        words(&["back"]),
        words(&["open", &url("/form.html")]),
        words(&["fill", "input[name=name]", "Ada"]),
        words(&["get", "value", "input[name=name]"]),
        words(&["press", "Tab"]),
        words(&["eval", "document.title"]),
        words(&["snapshot"]),
        words(&["scroll", "down", "200"]),
        words(&["screenshot", shot]),
        words(&["open", &url("/animated.html")]),
        words(&["get", "title"]),
        words(&["eval", "1 + 1"]),
        words(&["is", "visible", "body"]),
        words(&["get", "text", "body"]),
        words(&["reload"]),
    ]
}
