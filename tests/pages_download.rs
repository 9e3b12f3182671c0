//! Downloads through the binary: `download <sel> <path>`, `wait --download [path]` and the
//! session-wide `--download-path`, on the fixture's download page; and their bad input.

#![allow(clippy::unwrap_used)] // Test setup: a failing unwrap is a failing test.

use abx_tests::cli::Cli;

mod common;

const REPORT: &str = "abx fixture report\nline two\n";
const CSV: &str = "name,score\nada,3\n";

#[test]
fn download_saves_the_clicked_file_where_asked() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/download.html")]).success();
    let out = ab.home().join("got/deep/report-copy.txt");
    let saved = ab
        .run(&["download", "#dl", out.to_str().unwrap()])
        .success();
    assert_eq!(
        saved.out(),
        format!("✓ Download saved to {}", out.display()),
        "upstream's line"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), REPORT);
    // An attachment (Content-Disposition) works the same.
    let csv = ab.home().join("data.csv");
    let json = ab
        .run(&["--json", "download", "#dl-attach", csv.to_str().unwrap()])
        .success()
        .json();
    assert_eq!(json["data"]["path"], csv.display().to_string());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), CSV);
    ab.run(&["close"]).success();
}

#[test]
fn wait_download_catches_a_scripted_download_and_moves_it() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/download.html")]).success();
    // The page starts the download 300 ms after this click, from script.
    ab.run(&["click", "#dl-late"]).success();
    let out = ab.home().join("late.txt");
    let saved = ab
        .run(&["wait", "--download", out.to_str().unwrap()])
        .success();
    assert_eq!(
        saved.out(),
        format!("✓ Download saved to {}", out.display())
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), REPORT);
    // Nothing more downloads: the next wait times out with an error, exit 1.
    let none = ab
        .run(&["wait", "--download", "--timeout", "1000"])
        .failure();
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains("timed out"), "{none:?}");
    ab.run(&["close"]).success();
}

#[test]
fn download_path_saves_plain_clicks_under_their_names() {
    let site = common::site();
    let dir = tempfile::tempdir().unwrap();
    let ab = Cli::new().env("AGENT_BROWSER_DOWNLOAD_PATH", dir.path().to_str().unwrap());
    ab.run(&["open", &site.url("/download.html")]).success();
    ab.run(&["click", "#dl"]).success();
    // `wait --download` without a path reports where the click's file went.
    let json = ab.run(&["--json", "wait", "--download"]).success().json();
    let expected = dir.path().canonicalize().unwrap().join("report.txt");
    assert_eq!(
        json["data"]["path"],
        expected.display().to_string(),
        "{json}"
    );
    assert_eq!(std::fs::read_to_string(&expected).unwrap(), REPORT);
    // A second download of the same name does not clobber the first.
    ab.run(&["click", "#dl"]).success();
    let json = ab.run(&["--json", "wait", "--download"]).success().json();
    let second = dir.path().canonicalize().unwrap().join("report (1).txt");
    assert_eq!(json["data"]["path"], second.display().to_string(), "{json}");
    // No GUID-named staging files in the user's directory.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["report (1).txt", "report.txt"]);
    ab.run(&["close"]).success();
}

#[test]
fn download_bad_input_fails_with_a_clear_error() {
    let site = common::site();
    // Short command deadline: the failures below are about time running out.
    let ab = Cli::new().env("AGENT_BROWSER_DEFAULT_TIMEOUT", "2000");
    let missing = ab.run(&["download", "#dl"]).failure();
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("download <selector> <path>"),
        "{missing:?}"
    );
    ab.run(&["open", &site.url("/download.html")]).success();
    let unwritable = ab
        .run(&["download", "#dl", "/proc/abx/no/report.txt"])
        .failure();
    assert_eq!(unwritable.code, 1);
    assert!(
        unwritable
            .stderr
            .contains("Cannot save downloads in /proc/abx/no"),
        "{unwritable:?}"
    );
    let no_element = ab
        .run(&[
            "download",
            "#nope",
            ab.home().join("x.txt").to_str().unwrap(),
        ])
        .failure();
    assert_eq!(no_element.code, 1);
    // A click that downloads nothing times out instead of hanging or claiming success.
    let nothing = ab
        .run(&["download", "h1", ab.home().join("y.txt").to_str().unwrap()])
        .failure();
    assert_eq!(nothing.code, 1);
    assert!(!ab.home().join("y.txt").exists());
    ab.run(&["close"]).success();
}

#[test]
fn an_unwritable_download_path_fails_the_launch() {
    let site = common::site();
    let ab = Cli::new().env("AGENT_BROWSER_DOWNLOAD_PATH", "/proc/abx-no-downloads");
    let failed = ab.run(&["open", &site.url("/download.html")]).failure();
    assert_eq!(failed.code, 1);
    assert!(
        failed
            .stderr
            .contains("Cannot save downloads in /proc/abx-no-downloads"),
        "{failed:?}"
    );
    ab.run(&["close"]).success();
}
