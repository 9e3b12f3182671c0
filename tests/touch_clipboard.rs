//! `clipboard read|write|copy|paste` (granted to the session's own origin only) and the touch
//! commands `tap` and `swipe`, against fixture pages that log what reaches them.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

fn eval(ab: &Cli, script: &str) -> Value {
    let out = ab.run(&["--json", "eval", script]).success().json();
    out["data"]["result"].clone()
}

#[test]
fn clipboard_write_read_and_paste_into_a_target() {
    let site = common::site();
    let ab = Cli::new().session("clip1");
    ab.run(&["open", &site.url("/paste.html")]).success();

    let written = ab
        .run(&["--json", "clipboard", "write", "hello", "from", "abx"])
        .success()
        .json();
    assert_eq!(written["data"]["written"], "hello from abx", "{written}");
    let read = ab.run(&["--json", "clipboard", "read"]).success().json();
    assert_eq!(read["data"]["text"], "hello from abx", "{read}");
    assert_eq!(
        ab.run(&["clipboard", "read"]).success().out(),
        "hello from abx"
    );

    // Paste goes into the focused element, through the page's own paste event.
    ab.run(&["click", "#target"]).success();
    let pasted = ab.run(&["--json", "clipboard", "paste"]).success().json();
    assert_eq!(pasted["data"]["pasted"], true, "{pasted}");
    assert_eq!(
        ab.run(&["get", "value", "#target"]).success().out(),
        "hello from abx"
    );
    assert_eq!(
        ab.run(&["get", "text", "#pasted"]).success().out(),
        "paste:hello from abx"
    );

    // Copy takes the page's selection.
    ab.run(&["click", "#source"]).success();
    ab.run(&["press", "Control+a"]).success();
    let copied = ab.run(&["--json", "clipboard", "copy"]).success().json();
    assert_eq!(copied["data"]["copied"], true, "{copied}");
    assert_eq!(
        ab.run(&["clipboard", "read"]).success().out(),
        "copied from the page"
    );
    ab.run(&["close"]).success();
}

#[test]
fn clipboard_grant_covers_the_sessions_origin_only() {
    let site = common::site();
    let ab = Cli::new().session("clip2");
    ab.run(&["open", &site.url("/paste.html")]).success();
    ab.run(&["clipboard", "write", "secret"]).success();
    // The same server under another host name is another origin: its page may not read.
    ab.run(&["open", &site.url_on_host("localhost", "/clipboard.html")])
        .success();
    ab.run(&["click", "#request"]).success();
    ab.run(&[
        "wait",
        "--fn",
        "!document.getElementById('result').textContent.endsWith('pending')",
    ])
    .success();
    let result = ab.run(&["get", "text", "#result"]).success();
    assert!(
        result.out().starts_with("clipboard:error:"),
        "another origin read the clipboard: {result:?}"
    );
    assert!(!result.out().contains("secret"), "{result:?}");
    ab.run(&["close"]).success();
}

#[test]
fn clipboard_bad_input_is_a_clear_error() {
    let site = common::site();
    let ab = Cli::new().session("clip3");
    let bogus = ab.run(&["clipboard", "bogus"]).failure();
    assert_eq!(bogus.code, 1);
    assert!(
        bogus.stderr.contains("Unknown subcommand: bogus"),
        "{bogus:?}"
    );
    let missing = ab.run(&["clipboard", "write"]).failure();
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("clipboard write <text>"),
        "{missing:?}"
    );
    // A page without an origin has no clipboard to grant.
    ab.run(&["open", "about:blank"]).success();
    let blank = ab.run(&["clipboard", "read"]).failure();
    assert_eq!(blank.code, 1);
    assert!(blank.stderr.contains("origin"), "{blank:?}");
    // The session still works afterwards.
    ab.run(&["open", &site.url("/paste.html")]).success();
    ab.run(&["clipboard", "write", "ok"]).success();
    ab.run(&["close"]).success();
}

#[test]
fn tap_touches_the_element_and_swipe_moves_a_finger() {
    let site = common::site();
    let ab = Cli::new().session("touch1");
    ab.run(&["open", &site.url("/touch.html")]).success();

    let tapped = ab.run(&["--json", "tap", "#pad"]).success().json();
    assert_eq!(tapped["data"]["tapped"], "#pad", "{tapped}");
    let touches = eval(&ab, "window.__touches");
    let touches: Vec<&str> = touches
        .as_array()
        .expect("touch log")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(touches.len(), 2, "{touches:?}");
    assert!(
        touches[0].starts_with("touchstart@") && touches[0].ends_with("#pad"),
        "{touches:?}"
    );
    assert!(touches[1].starts_with("touchend"), "{touches:?}");

    eval(&ab, "window.__touches = []; 0");
    let swiped = ab.run(&["--json", "swipe", "up", "200"]).success().json();
    assert_eq!(swiped["data"]["swiped"], "up", "{swiped}");
    let log = eval(&ab, "window.__touches");
    let log: Vec<&str> = log
        .as_array()
        .expect("touch log")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        log.first().is_some_and(|e| e.starts_with("touchstart")),
        "{log:?}"
    );
    assert!(
        log.last().is_some_and(|e| e.starts_with("touchend")),
        "{log:?}"
    );
    let moves: Vec<(i64, i64)> = log
        .iter()
        .filter(|e| e.starts_with("touchmove@"))
        .filter_map(|e| {
            let at = e.trim_start_matches("touchmove@");
            let (x, y) = at.split_once(',')?;
            let y: String = y
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect();
    assert!(moves.len() >= 5, "{log:?}");
    // The finger went up: each move is higher on the screen than the one before.
    assert!(moves.windows(2).all(|w| w[1].1 < w[0].1), "{moves:?}");
    ab.run(&["close"]).success();
}

#[test]
fn touch_bad_input_is_a_clear_error() {
    let site = common::site();
    let ab = Cli::new().session("touch2");
    let sideways = ab.run(&["swipe", "sideways"]).failure();
    assert_eq!(sideways.code, 1);
    assert!(
        sideways.stderr.contains("Invalid swipe direction"),
        "{sideways:?}"
    );
    assert_eq!(ab.run(&["tap"]).failure().code, 1);
    ab.run(&["open", &site.url("/touch.html")]).success();
    let missing = ab.run(&["tap", "#no-such-pad"]).failure();
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("#no-such-pad"), "{missing:?}");
    ab.run(&["close"]).success();
}
