//! `read` (the page as Markdown), `screenshot --if-changed` and `diff screenshot` through the
//! binary, on fixture pages, with their bad input.

#![allow(clippy::unwrap_used)] // Test setup: a failing unwrap is a failing test.

use abx_tests::cli::Cli;

mod common;

#[test]
fn read_turns_the_rendered_article_into_markdown() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/article.html")]).success();
    let page = ab.run(&["read"]).success();
    let text = page.out();
    assert!(text.contains("# Field guide\n"), "{text}");
    assert!(
        text.contains(
            "## Setup\n\nInstall the tool, then open a page.\n\n- First step\n- Second step"
        ),
        "{text}"
    );
    assert!(text.contains("**headings**"), "{text}");
    assert!(
        text.contains(&format!("[first page]({})", site.url("/page1.html"))),
        "links stay links, absolute: {text}"
    );
    assert!(
        text.contains("```\nagent-browser open http://127.0.0.1/\n```"),
        "{text}"
    );
    let outline = ab.run(&["read", "--outline"]).success();
    assert_eq!(
        outline.out(),
        format!(
            "# Outline\n\nSource: {}\n\n- Field guide\n  - Setup\n  - Usage\n    - Details",
            site.url("/article.html")
        )
    );
    let filtered = ab.run(&["read", "--filter", "usage"]).success();
    assert!(filtered.out().starts_with("## Usage"), "{filtered:?}");
    assert!(
        filtered.out().contains("### Details"),
        "subsections stay: {filtered:?}"
    );
    assert!(!filtered.out().contains("Setup"), "{filtered:?}");
    ab.run(&["close"]).success();
}

#[test]
fn read_of_a_url_leaves_the_active_tab_alone() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    let json = ab
        .run(&["--json", "read", &site.url("/table.html")])
        .success()
        .json();
    let content = json["data"]["content"].as_str().unwrap();
    // An HTTP read gives upstream's text: table cells run together, one row a paragraph.
    assert!(content.contains("NameScore\n\nAlice90"), "{content}");
    assert_eq!(json["data"]["finalUrl"], site.url("/table.html"));
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/static.html")
    );
    let tabs = ab.run(&["tab", "list"]).success();
    assert_eq!(tabs.out().lines().count(), 1, "no reading tab: {tabs:?}");
    let refused = ab.run(&["read", "--llms", "index"]).failure();
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("--llms"), "{refused:?}");
    let unreachable = ab.run(&["read", "http://127.0.0.1:1/"]).failure();
    assert_eq!(unreachable.code, 1);
    assert!(
        unreachable.stderr.contains("Read request failed"),
        "{unreachable:?}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn screenshot_if_changed_reports_revisions_and_saves_only_changes() {
    let site = common::site();
    let ab = Cli::new();
    let dir = ab.home().join("shots");
    ab.run(&["open", &site.url("/static.html")]).success();
    let first = dir.join("first.png");
    let json = ab
        .run(&[
            "--json",
            "screenshot",
            "--if-changed",
            first.to_str().unwrap(),
        ])
        .success()
        .json();
    assert_eq!(json["data"]["changed"], true, "the first capture always is");
    assert_eq!(json["data"]["revision"], 1);
    assert!(first.is_file());
    let second = dir.join("second.png");
    let same = ab
        .run(&["screenshot", "--if-changed", second.to_str().unwrap()])
        .success();
    assert_eq!(
        same.out(),
        "✓ Screenshot unchanged (revision 2, 0.0000% pixels changed)"
    );
    assert!(!second.exists(), "an unchanged capture is not written");
    ab.run(&["eval", "document.body.style.background = 'rgb(200, 0, 0)'"])
        .success();
    let json = ab
        .run(&[
            "--json",
            "screenshot",
            "--threshold",
            "0.5",
            second.to_str().unwrap(),
        ])
        .success()
        .json();
    assert_eq!(json["data"]["changed"], true, "{json}");
    assert_eq!(json["data"]["revision"], 3);
    assert!(
        json["data"]["pixelChangeRatio"].as_f64().unwrap() > 0.5,
        "{json}"
    );
    assert!(second.is_file());
    let bad = ab.run(&["screenshot", "--threshold", "2"]).failure();
    assert_eq!(bad.code, 1);
    ab.run(&["close"]).success();
}

#[test]
fn diff_screenshot_counts_changed_pixels_and_writes_a_diff_image() {
    let site = common::site();
    let ab = Cli::new();
    let base = ab.home().join("base.png");
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["screenshot", base.to_str().unwrap()]).success();
    let same = ab
        .run(&["diff", "screenshot", "--baseline", base.to_str().unwrap()])
        .success();
    assert!(
        same.out().starts_with("✓ Images match (0% difference)"),
        "{same:?}"
    );
    ab.run(&["eval", "document.body.innerHTML = '<h1>changed</h1>'"])
        .success();
    let out = ab.home().join("diff.png");
    let json = ab
        .run(&[
            "--json",
            "diff",
            "screenshot",
            "--baseline",
            base.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .success()
        .json();
    assert_eq!(json["data"]["match"], false, "{json}");
    assert!(
        json["data"]["differentPixels"].as_u64().unwrap() > 0,
        "{json}"
    );
    assert_eq!(json["data"]["diffPath"], out.to_str().unwrap());
    let png = std::fs::read(&out).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG diff image");
    let missing = ab
        .run(&["diff", "screenshot", "--baseline", "/nonexistent/base.png"])
        .failure();
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("Failed to read baseline"),
        "{missing:?}"
    );
    let garbage = ab.home().join("garbage.png");
    std::fs::write(&garbage, b"not a png").unwrap();
    let unreadable = ab
        .run(&[
            "diff",
            "screenshot",
            "--baseline",
            garbage.to_str().unwrap(),
        ])
        .failure();
    assert_eq!(unreadable.code, 1);
    assert_eq!(ab.run(&["diff", "screenshot"]).failure().code, 1);
    ab.run(&["close"]).success();
}
