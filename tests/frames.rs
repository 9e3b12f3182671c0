//! `frame`, `snapshot --delta` and `diff url` through the binary against real Chromium.
//!
//! `/frames.html` has a same-origin iframe `#shop` and a cross-site one `#pay` (served from
//! `localhost`, so Chrome runs it in its own renderer), both showing `/frames-inner.html`, whose
//! ids (`#inner-btn`, `#result`) are the same as the page's own: a command that is not really
//! scoped acts on the page and the assertions see it.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

/// The ref of the first line of `snapshot` text containing `needle`.
fn ref_on_line(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle} in:\n{snapshot}"));
    let start = line.find("ref=").expect("a ref on the line") + 4;
    let name: String = line[start..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    format!("@{name}")
}

fn eval(ab: &Cli, script: &str) -> Value {
    ab.run(&["--json", "eval", script]).success().json()["data"]["result"].clone()
}

/// Everything one scoped frame must do: snapshot, eval, click, fill, get, is, wait and refs.
fn scoped_commands_act_inside(ab: &Cli, side: &str) {
    let snap = ab.run(&["snapshot", "-i"]).success();
    assert!(snap.out().contains("Frame button"), "{}", snap.out());
    assert!(
        !snap.out().contains("Main button"),
        "the page leaked into the frame's snapshot:\n{}",
        snap.out()
    );
    assert_eq!(eval(ab, "window.where"), Value::from(side));
    ab.run(&["click", "#inner-btn"]).success();
    ab.run(&["wait", "--text", &format!("clicked in {side}")])
        .success();
    let text = ab.run(&["get", "text", "#result"]).success();
    assert_eq!(text.out(), format!("clicked in {side}"));
    ab.run(&["fill", "#name", "Ada"]).success();
    assert_eq!(ab.run(&["get", "value", "#name"]).success().out(), "Ada");
    ab.run(&["type", "#name", " L"]).success();
    assert_eq!(eval(ab, "document.querySelector('#name').value"), "Ada L");
    assert_eq!(ab.run(&["is", "visible", "#side"]).success().out(), "true");
    assert_eq!(ab.run(&["get", "count", "button"]).success().out(), "1");
    ab.run(&["wait", "#side"]).success();
    // Refs taken inside the frame act inside it.
    let snap = ab.run(&["snapshot", "-i"]).success();
    let field = ref_on_line(snap.out(), "textbox \"Name\"");
    ab.run(&["fill", &field, "by ref"]).success();
    assert_eq!(ab.run(&["get", "value", &field]).success().out(), "by ref");
    let button = ref_on_line(snap.out(), "Frame button");
    ab.run(&["eval", "document.querySelector('#result').textContent = ''"])
        .success();
    ab.run(&["click", &button]).success();
    assert_eq!(
        ab.run(&["get", "text", "#result"]).success().out(),
        format!("clicked in {side}")
    );
}

#[test]
fn frame_scopes_snapshot_eval_and_actions_to_a_same_origin_iframe_until_frame_main() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    let done = ab.run(&["frame", "#shop"]).success();
    assert_eq!(done.out(), "✓ Done");
    scoped_commands_act_inside(&ab, "same");

    let main = ab.run(&["--json", "frame", "main"]).success().json();
    assert_eq!(main["data"]["frame"], "main");
    assert_eq!(eval(&ab, "window.where"), "main");
    // The page's own #result was never touched by the scoped clicks.
    assert_eq!(ab.run(&["get", "text", "#result"]).success().out(), "");
    ab.run(&["click", "#inner-btn"]).success();
    assert_eq!(
        ab.run(&["get", "text", "#result"]).success().out(),
        "clicked in main"
    );
    ab.run(&["close"]).success();
}

#[test]
fn frame_scopes_commands_to_a_cross_site_out_of_process_iframe() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    ab.run(&["wait", "--fn", "document.querySelector('#pay').src !== ''"])
        .success();
    let selected = ab.run(&["--json", "frame", "#pay"]).success().json();
    assert_eq!(selected["data"]["frame"], "pay", "{selected}");
    assert_eq!(eval(&ab, "location.hostname"), "localhost");
    scoped_commands_act_inside(&ab, "cross");
    ab.run(&["frame", "main"]).success();
    assert_eq!(eval(&ab, "location.hostname"), "127.0.0.1");
    ab.run(&["close"]).success();
}

#[test]
fn frame_accepts_the_ref_of_an_iframe_line_and_reports_its_name() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    let snap = ab.run(&["snapshot"]).success();
    let shop = ref_on_line(snap.out(), "Iframe \"Shop frame\"");
    let selected = ab.run(&["--json", "frame", &shop]).success().json();
    assert_eq!(selected["data"]["frame"], "shop", "{selected}");
    assert_eq!(eval(&ab, "window.where"), "same");
    // Back to the page, then by ref to the nameless cross-site frame: labelled by its ref.
    ab.run(&["frame", "main"]).success();
    let snap = ab.run(&["snapshot"]).success();
    let pay = ref_on_line(snap.out(), "Iframe \"Pay frame\"");
    let selected = ab.run(&["--json", "frame", &pay]).success().json();
    assert_eq!(selected["data"]["frame"], pay.trim_start_matches('@'));
    assert_eq!(eval(&ab, "window.where"), "cross");
    ab.run(&["close"]).success();
}

#[test]
fn frame_refuses_missing_elements_non_iframes_and_bad_refs() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    let missing = ab.run(&["frame", "#nope"]).failure();
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("#nope"), "{missing:?}");
    let heading = ab.run(&["frame", "h1"]).failure();
    assert_eq!(heading.code, 1);
    assert!(heading.stderr.contains("not an iframe"), "{heading:?}");
    let snap = ab.run(&["snapshot"]).success();
    let h1 = ref_on_line(snap.out(), "heading \"Frames\"");
    let not_frame = ab.run(&["frame", &h1]).failure();
    assert!(not_frame.stderr.contains("not an iframe"), "{not_frame:?}");
    let unknown = ab.run(&["frame", "@e999"]).failure();
    assert!(unknown.stderr.contains("e999"), "{unknown:?}");
    let bare = ab.run(&["frame"]).failure();
    assert_eq!(bare.code, 1);
    // None of the failures changed the scope.
    assert_eq!(eval(&ab, "window.where"), "main");
    ab.run(&["close"]).success();
}

#[test]
fn a_removed_frame_fails_scoped_commands_until_frame_main() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    ab.run(&["frame", "#shop"]).success();
    // From inside the (same-origin) frame, remove it from its parent.
    ab.run(&[
        "eval",
        "setTimeout(() => parent.document.querySelector('#shop').remove(), 0); 1",
    ])
    .success();
    // The removal runs right after the eval returns: poll until a scoped command sees it.
    let gone = (0..100).any(|_| ab.run(&["eval", "1"]).code != 0);
    assert!(gone, "the frame's removal never reached scoped commands");
    for command in [
        &["snapshot"][..],
        &["eval", "1"],
        &["click", "#inner-btn"],
        &["get", "text", "#result"],
    ] {
        let gone = ab.run(command).failure();
        assert_eq!(gone.code, 1, "{command:?}: {gone:?}");
        assert!(
            gone.stderr.contains("no longer in the page"),
            "{command:?}: {gone:?}"
        );
    }
    ab.run(&["frame", "main"]).success();
    assert_eq!(eval(&ab, "window.where"), "main");
    ab.run(&["close"]).success();
}

#[test]
fn opening_a_page_goes_back_to_the_main_frame() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    ab.run(&["frame", "#shop"]).success();
    assert_eq!(eval(&ab, "window.where"), "same");
    ab.run(&["open", &site.url("/frames.html")]).success();
    assert_eq!(eval(&ab, "window.where"), "main");
    ab.run(&["close"]).success();
}

#[test]
fn snapshot_delta_gives_full_then_unchanged_then_the_changed_lines() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/form.html")]).success();
    let first = ab.run(&["snapshot", "--delta"]).success();
    assert!(first.out().starts_with("- heading \"Form\""), "{first:?}");
    let unchanged = ab.run(&["snapshot", "--delta"]).success();
    assert_eq!(unchanged.out(), "unchanged (revision 2)");
    let json = ab.run(&["--json", "snapshot", "--delta"]).success().json();
    let snap = &json["data"]["snapshot"];
    assert_eq!(snap["kind"], "unchanged", "{json}");
    assert_eq!(
        (snap["baseRevision"].as_u64(), snap["revision"].as_u64()),
        (Some(2), Some(3))
    );

    // One button renamed: a delta naming that line and that ref.
    ab.run(&[
        "eval",
        "document.querySelector('#submit').textContent = 'Send'",
    ])
    .success();
    let json = ab.run(&["--json", "snapshot", "--delta"]).success().json();
    let snap = &json["data"]["snapshot"];
    assert_eq!(snap["kind"], "delta", "{json}");
    assert_eq!(snap["baseRevision"], 3);
    let change = &snap["treeChange"];
    assert_eq!(change["deleteCount"], 1, "{json}");
    let lines = change["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1, "{json}");
    assert!(
        lines[0]
            .as_str()
            .unwrap_or_default()
            .contains("button \"Send\"")
    );
    let changes = snap["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "{json}");
    assert_eq!(changes[0]["op"], "replace");
    assert_eq!(changes[0]["field"], "name");
    assert_eq!(changes[0]["value"], "Send");
    // The line is where the delta says, 0-based, in the full tree.
    let full = ab.run(&["snapshot"]).success();
    let start = change["startLine"].as_u64().expect("startLine") as usize;
    assert_eq!(
        full.out().lines().nth(start),
        lines[0].as_str(),
        "{}",
        full.out()
    );
    ab.run(&[
        "eval",
        "document.querySelector('#submit').textContent = 'Go'",
    ])
    .success();
    let text = ab.run(&["snapshot", "--delta"]).success();
    let printed: Value = serde_json::from_str(text.out()).expect("a delta prints as JSON");
    assert_eq!(printed["kind"], "delta");

    // --full: the whole tree again; another option set has its own history.
    let forced = ab
        .run(&["--json", "snapshot", "--delta", "--full"])
        .success()
        .json();
    assert_eq!(forced["data"]["snapshot"]["kind"], "full");
    assert!(forced["data"]["snapshot"]["tree"].as_str().is_some());
    let interactive = ab
        .run(&["--json", "snapshot", "-i", "--delta"])
        .success()
        .json();
    assert_eq!(interactive["data"]["snapshot"]["kind"], "full");
    // A new URL starts over.
    ab.run(&["open", &site.url("/page1.html")]).success();
    let moved = ab.run(&["--json", "snapshot", "--delta"]).success().json();
    assert_eq!(moved["data"]["snapshot"]["kind"], "full", "{moved}");
    ab.run(&["close"]).success();
}

#[test]
fn diff_url_compares_the_two_pages_without_their_refs() {
    let site = common::site();
    let ab = Cli::new();
    let (one, two) = (site.url("/page1.html"), site.url("/page2.html"));
    let json = ab
        .run(&["--json", "diff", "url", &one, &two])
        .success()
        .json();
    let data = &json["data"];
    assert_eq!(data["url1"], one.as_str());
    assert_eq!(data["url2"], two.as_str());
    assert!(
        data["snapshot1"]
            .as_str()
            .unwrap_or_default()
            .contains("Page One")
    );
    assert!(
        data["snapshot2"]
            .as_str()
            .unwrap_or_default()
            .contains("Page Two")
    );
    let diff = &data["diff"];
    assert_eq!(diff["changed"], true, "{json}");
    assert_eq!(diff["identical"], false);
    assert_eq!(
        (diff["additions"].as_u64(), diff["removals"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(diff["deletions"], diff["removals"]);
    assert_eq!(diff["unchanged"], 1);
    // The tab stays on the second page.
    assert_eq!(ab.run(&["get", "url"]).success().out(), two);

    // The same page twice is identical although its refs were renumbered.
    let same = ab
        .run(&["--json", "diff", "url", &one, &one])
        .success()
        .json();
    assert_eq!(same["data"]["diff"]["identical"], true, "{same}");
    assert_ne!(same["data"]["snapshot1"], same["data"]["snapshot2"]);
    let text = ab.run(&["diff", "url", &one, &one]).success();
    assert_eq!(text.out(), "✓ No changes detected");
    let text = ab
        .run(&["diff", "url", &one, &two, "--screenshot"])
        .success();
    assert!(
        text.out().contains("+- heading \"Page Two\" [level=1]"),
        "{text:?}"
    );
    assert!(
        text.out().contains("2 additions, 2 removals, 1 unchanged"),
        "{text:?}"
    );
    assert!(text.out().contains("pixels differ"), "{text:?}");

    let missing = ab.run(&["diff", "url", &one]).failure();
    assert_eq!(missing.code, 1);
    let bad = ab
        .run(&["diff", "url", &one, "http://127.0.0.1:1/"])
        .failure();
    assert_eq!(bad.code, 1, "{bad:?}");
    ab.run(&["close"]).success();
}

/// A snapshot of `/large/frames?n=2&rows=300` (two frames past the walker's size threshold, one
/// same-origin, one cross-site) through `chrome`, with the default source or Chrome's tree.
fn large_frames_snapshot(chrome: &str, ax: bool) -> (Cli, String) {
    let site = common::site();
    let mut ab = Cli::new().env("AGENT_BROWSER_EXECUTABLE_PATH", chrome);
    if ax {
        ab = ab.env("ABX_SNAPSHOT_AX", "1");
    }
    ab.run(&["open", &site.url("/large/frames?n=2&rows=300")])
        .success();
    // Both frames loaded: the snapshot then shows both rows' lists.
    let snap = ab.run(&["snapshot"]).success();
    let port = site
        .url("")
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_string();
    (ab, snap.out().replace(&port, "PORT/"))
}

/// Frames large enough to be walked read the same as through Chrome's tree, on the headless
/// shell (both frames in the tab's renderer) and on full Chromium (the cross-site frame in its
/// own renderer, read through its own session); a ref the walker gave inside the cross-site
/// frame acts on its element.
#[test]
fn large_frames_are_walked_in_and_out_of_the_tabs_renderer_as_chromes_tree_reads_them() {
    for chrome in ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"] {
        let (ax_cli, ax) = large_frames_snapshot(chrome, true);
        ax_cli.run(&["close"]).success();
        let (ab, walked) = large_frames_snapshot(chrome, false);
        assert!(walked.contains("checkbox \"Select 2.300\""), "{walked}");
        assert_eq!(walked, ax, "on {chrome}");
        let pick = ref_on_line(&walked, "checkbox \"Select 2.7\"");
        ab.run(&["click", &pick]).success();
        let after = ab.run(&["snapshot"]).success();
        let line = after
            .out()
            .lines()
            .find(|l| l.contains("\"Select 2.7\""))
            .unwrap_or_default()
            .to_string();
        assert!(line.contains("checked=true"), "on {chrome}: {line}");
        assert_eq!(ref_on_line(after.out(), "\"Select 2.7\""), pick);
        ab.run(&["close"]).success();
    }
}
