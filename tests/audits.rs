//! `vitals` against real Chromium: the report has upstream's shape with measured values.

use abx_tests::cli::Cli;

mod common;

#[test]
fn vitals_reports_ttfb_fcp_lcp_and_cls_of_the_loaded_page() {
    let site = common::site();
    let ab = Cli::new();
    let url = site.url("/article.html");
    let json = ab.run(&["--json", "vitals", &url]).success().json();
    let data = &json["data"];
    assert_eq!(data["url"], url);
    assert!(data["ttfb"].as_f64().is_some_and(|t| t >= 0.0), "{data}");
    assert!(data["fcp"].as_f64().is_some_and(|t| t > 0.0), "{data}");
    assert!(
        data["lcp"]["startTime"].as_f64().is_some_and(|t| t > 0.0),
        "{data}"
    );
    assert!(data["lcp"]["element"].is_string(), "{data}");
    assert!(
        data["cls"]["score"].as_f64().is_some_and(|c| c >= 0.0),
        "{data}"
    );
    assert!(data["inp"].is_null(), "no interaction yet: {data}");
    let text = ab.run(&["vitals"]).success();
    let lines: Vec<&str> = text.out().lines().collect();
    assert_eq!(lines[0], format!("url: {url}"));
    assert!(
        lines[1].starts_with("ttfb: ") && lines[1].contains("  inp: -"),
        "{}",
        lines[1]
    );
    ab.run(&["close"]).success();
}
