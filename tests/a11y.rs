//! `a11y` against real Chromium: axe-core finds every planted problem on the bad fixture page
//! (what upstream 0.41.2 reports, byte for byte in text), the same content done right is clean,
//! `--tags` / `--selector` narrow the audit, and frames (same-site and cross-site) and shadow
//! roots are audited without touching the page's own `window.axe`.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

/// `rule id → node targets` of the report's violations.
fn found(report: &Value) -> Vec<(String, Vec<String>)> {
    report["data"]["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            let targets = v["nodes"]
                .as_array()
                .expect("nodes")
                .iter()
                .map(|n| n["target"][0].as_str().unwrap_or_default().to_string())
                .collect();
            (v["id"].as_str().unwrap_or_default().to_string(), targets)
        })
        .collect()
}

fn targets_of<'a>(found: &'a [(String, Vec<String>)], rule: &str) -> &'a [String] {
    found.iter().find(|(id, _)| id == rule).map_or_else(
        || panic!("rule {rule} not reported: {found:?}"),
        |(_, t)| t.as_slice(),
    )
}

#[test]
fn a11y_finds_every_planted_problem_and_passes_the_clean_page() {
    let site = common::site();
    let ab = Cli::new();
    let bad = ab
        .run(&["--json", "a11y", &site.url("/a11y-bad.html")])
        .success()
        .json();
    let f = found(&bad);
    assert_eq!(targets_of(&f, "image-alt"), ["#logo", "#inner"]);
    assert_eq!(targets_of(&f, "label"), ["#email"]);
    assert_eq!(targets_of(&f, "select-name"), ["#size"]);
    assert_eq!(targets_of(&f, "button-name"), ["#go"]);
    assert_eq!(targets_of(&f, "link-name"), ["#more"]);
    assert_eq!(targets_of(&f, "html-has-lang"), ["html"]);
    assert_eq!(targets_of(&f, "color-contrast"), ["#faint"]);
    assert_eq!(targets_of(&f, "heading-order"), ["h4"]);
    assert_eq!(targets_of(&f, "aria-roles"), ["div"]);
    assert_eq!(targets_of(&f, "region").len(), 7);
    assert_eq!(f.len(), 10, "{f:?}");
    let data = &bad["data"];
    assert_eq!(data["counts"]["violations"], 10);
    assert_eq!(data["axeVersion"], "4.12.1");
    let image = &data["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .find(|v| v["id"] == "image-alt")
        .expect("image-alt")
        .clone();
    assert_eq!(image["impact"], "critical");
    assert!(
        image["tags"]
            .as_array()
            .expect("tags")
            .contains(&"wcag2a".into())
    );
    assert!(
        image["nodes"][0]["html"]
            .as_str()
            .is_some_and(|h| h.starts_with("<img id=\"logo\"")),
        "{image}"
    );

    // The text report: url, counts, then each rule with its targets.
    let text = ab.run(&["a11y"]).success();
    let lines: Vec<&str> = text.out().lines().collect();
    assert_eq!(lines[0], format!("url: {}", site.url("/a11y-bad.html")));
    assert_eq!(
        lines[1], "axe-core: 4.12.1  violations: 10  incomplete: 0  passes: 18",
        "{}",
        lines[1]
    );
    assert!(
        text.out().contains(
            "[critical] image-alt: Images must have alternative text (2 nodes)\n  \
             https://dequeuniversity.com/rules/axe/4.12/image-alt?application=axeAPI\n"
        ),
        "{}",
        text.out()
    );
    assert!(
        text.out().contains("  - #logo\n  - #inner"),
        "{}",
        text.out()
    );

    let clean = ab
        .run(&["--json", "a11y", &site.url("/a11y-clean.html")])
        .success()
        .json();
    assert_eq!(
        clean["data"]["violations"],
        serde_json::json!([]),
        "{clean}"
    );
    assert_eq!(
        clean["data"]["incomplete"],
        serde_json::json!([]),
        "{clean}"
    );
    assert!(
        clean["data"]["counts"]["passes"]
            .as_u64()
            .is_some_and(|p| p >= 30),
        "{clean}"
    );
    let text = ab.run(&["a11y"]).success();
    assert!(
        text.out()
            .ends_with("violations: 0  incomplete: 0  passes: 33"),
        "{}",
        text.out()
    );
    ab.run(&["close"]).success();
}

#[test]
fn a11y_tags_and_selector_narrow_the_audit() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/a11y-bad.html")]).success();
    let aa = ab
        .run(&["--json", "a11y", "--tags", "wcag2aa"])
        .success()
        .json();
    let f = found(&aa);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(targets_of(&f, "color-contrast"), ["#faint"]);

    let scoped = ab
        .run(&["--json", "a11y", "--selector", "#scope"])
        .success()
        .json();
    let f = found(&scoped);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(targets_of(&f, "image-alt"), ["#inner"]);

    let none = ab.run(&["a11y", "--selector", "#nope"]).failure();
    assert_eq!(none.stderr, "✗ No element matches selector: #nope\n");
    let invalid = ab.run(&["a11y", "--selector", "[["]).failure();
    assert_eq!(invalid.stderr, "✗ Invalid selector: [[\n");
    let bad = ab.run(&["a11y", "--bogus"]).failure();
    // Upstream's words and usage line.
    assert_eq!(
        bad.stderr,
        "Unknown flag: --bogus\nUsage: agent-browser a11y [url] [--tags <tag1,tag2>] [--selector <css>] [--json]\n"
    );
    ab.run(&["close"]).success();
}

#[test]
fn a11y_audits_frames_and_shadow_roots_without_touching_the_pages_axe() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/a11y-frames.html")]).success();
    let text = ab.run(&["a11y"]).success();
    let out = text.out();
    // A same-site frame, a cross-site (out-of-process) frame and a shadow root, each named by
    // axe's selector path as upstream prints it.
    for line in [
        "[critical] button-name: Buttons must have discernible text (3 nodes)",
        "  - #host >>> #nameless\n  - #same -> #go\n  - #cross -> #go\n",
        "[serious] frame-title: Frames must have an accessible name (1 node)\n",
        "  - #cross -> #logo\n  - #cross -> #inner\n",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    let report = ab.run(&["--json", "a11y"]).success().json();
    let button = report["data"]["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .find(|v| v["id"] == "button-name")
        .expect("button-name")
        .clone();
    assert_eq!(
        button["nodes"][0]["target"],
        serde_json::json!([["#host", "#nameless"]]),
        "{button}"
    );
    assert_eq!(
        button["nodes"][2]["target"],
        serde_json::json!(["#cross", "#go"]),
        "{button}"
    );
    // The audit ran in its own world: the page's `window.axe` is the page's.
    let own = ab.run(&["eval", "window.axe.version"]).success();
    assert_eq!(own.out(), "\"page-owned\"");
    ab.run(&["close"]).success();
}
