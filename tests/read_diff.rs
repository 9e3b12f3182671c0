//! `read` (the active page as upstream's reading text), `screenshot --if-changed` and `diff screenshot` through the
//! binary, on fixture pages, with their bad input.

#![allow(clippy::unwrap_used)] // Test setup: a failing unwrap is a failing test.

use abx_tests::cli::Cli;

mod common;

/// Upstream's text of `/article.html`: blocks as paragraphs, inline markup and link targets
/// gone, code fenced.
const ARTICLE_TEXT: &str = "abx fixtures\n\n# Field guide\n\nA short page with headings, a list, a link and some code, for readers that turn pages into text.\n\n## Setup\n\nInstall the tool, then open a page.\n\n- First step\n\n- Second step\n\n## Usage\n\nRead the first page next.\n\n```\nagent-browser open http://127.0.0.1/\n```\n\n### Details\n\nThe last section.";

#[test]
fn read_of_the_active_page_gives_the_text_of_read_of_its_url() {
    let site = common::site();
    let ab = Cli::new();
    let url = site.url("/article.html");
    ab.run(&["open", &url]).success();
    assert_eq!(ab.run(&["read"]).success().out(), ARTICLE_TEXT);
    for options in [
        &["--outline"][..],
        &["--filter", "usage"],
        &["--outline", "--filter", "set"],
        &["--filter", "nothing like it"],
    ] {
        let active = ab.run(&[&["read"][..], options].concat()).success();
        let fetched = ab.run(&[&["read", &url][..], options].concat()).success();
        assert_eq!(active.out(), fetched.out(), "read {options:?}");
    }
    let json = ab.run(&["--json", "read", "--outline"]).success().json();
    assert_eq!(json["data"]["source"], "active-tab-html-outline", "{json}");
    assert_eq!(json["data"]["contentType"], "text/html", "{json}");
    assert_eq!(json["data"]["url"], url.as_str(), "{json}");
    assert_eq!(json["data"]["finalUrl"], url.as_str(), "{json}");
    assert_eq!(json["data"]["truncated"], false, "{json}");
    let raw = ab.run(&["--json", "read", "--raw"]).success().json();
    assert_eq!(raw["data"]["source"], "active-tab-raw", "{raw}");
    let html = raw["data"]["content"].as_str().unwrap();
    assert!(
        html.starts_with("<html lang=\"en\"><head>") && html.ends_with("</html>"),
        "the serialized DOM: {html}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn read_of_the_active_page_reads_the_live_dom_of_the_main_frame() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/frames.html")]).success();
    ab.run(&[
        "eval",
        "document.querySelector('h1').textContent = 'Rewritten'; \
         document.body.insertAdjacentHTML('beforeend', '<h2>Added later</h2><p>by <b>script</b></p>')",
    ])
    .success();
    // A selected frame does not change what is read: upstream reads the top document.
    ab.run(&["frame", "#shop"]).success();
    let page = ab.run(&["read"]).success();
    assert_eq!(
        page.out(),
        "# Rewritten\n\nMain button\n\n## Added later\n\nby script",
        "{page:?}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn read_of_the_active_page_reads_documents_chrome_makes_for_text_json_and_pdf() {
    let site = common::site();
    // Full Chrome: the headless shell has no PDF viewer (a PDF is a download there).
    let ab = Cli::new().env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium");
    // Chrome shows text and JSON in a `<pre>` of its own document, so they come fenced.
    ab.run(&["open", &site.url("/nav/note.txt")]).success();
    assert_eq!(
        ab.run(&["read"]).success().out(),
        "```\nabx navigation corpus note\nplain text reached by navigation\n\n```"
    );
    ab.run(&["open", &site.url("/nav/data.json")]).success();
    assert_eq!(
        ab.run(&["read"]).success().out(),
        "```\n{\"corpus\":\"nav\",\"ok\":true}\n\n```"
    );
    // The PDF viewer's document has no text of its own: an empty read, not a failure.
    ab.run(&["open", &site.url("/nav/doc.pdf")]).success();
    let pdf = ab.run(&["--json", "read"]).success().json();
    assert_eq!(pdf["data"]["content"], "", "{pdf}");
    ab.run(&["close"]).success();
}

#[test]
fn read_of_the_active_page_outside_the_allowlist_is_refused() {
    let ab = Cli::new();
    let refused = ab
        .run(&["--allowed-domains", "127.0.0.1", "read"])
        .failure();
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("Active tab URL scheme 'about' is not allowed by domain filter"),
        "{refused:?}"
    );
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
    // Markdown is a property of the HTTP answer: the active page's URL is fetched again.
    let not_md = ab.run(&["read", "--require-md"]).failure();
    assert!(
        not_md
            .stderr
            .contains("Expected text/markdown, got text/html"),
        "{not_md:?}"
    );
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

#[test]
fn read_refuses_upstreams_bad_arguments_in_its_words() {
    let ab = Cli::new();
    for (args, said) in [
        (&["read", "a", "b"][..], "Unexpected read argument: b"),
        (&["read", "--bogus"], "Unknown subcommand: --bogus"),
        (
            &["read", "--timeout", "0"],
            "Read timeout must be greater than 0",
        ),
        (&["read", "--timeout", "soon"], "Invalid read timeout: soon"),
        (
            &["read", "--llms", "some"],
            "Invalid read --llms value 'some': expected index or full",
        ),
        (
            &["read", "--llms", "index", "--outline"],
            "read --llms and --outline cannot be used together",
        ),
    ] {
        let refused = ab.run(args).failure();
        assert_eq!(refused.code, 1, "{args:?}");
        assert!(
            refused.stderr.contains(said) || refused.stdout.contains(said),
            "{args:?}: {refused:?}"
        );
    }
    assert!(ab.daemon_pid().is_none(), "a refused read starts no daemon");
}
