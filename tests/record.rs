//! `record start|stop|restart`: a video from the session's own screencast, encoded by ffmpeg.
//! Needs `ffmpeg` and `ffprobe` on PATH (Debian package `ffmpeg`), like the feature itself.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::{children, cmdline, pids_alive, wait_gone_blocking};
use serde_json::Value;

mod common;

/// The daemon's children whose command line contains `needle`.
fn children_running(daemon: i32, needle: &str) -> Vec<i32> {
    children(daemon)
        .into_iter()
        .filter(|p| cmdline(*p).contains(needle))
        .collect()
}

/// ffprobe's view of a video: (codec, frames read, duration in seconds).
fn probe(path: &Path) -> (String, u64, f64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-of", "json"])
        .args(["-show_entries", "stream=codec_name,nb_read_frames"])
        .args(["-show_entries", "format=duration"])
        .arg(path)
        .output()
        .expect("ffprobe runs (Debian package ffmpeg)");
    assert!(
        out.status.success(),
        "ffprobe refused {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("ffprobe json");
    let stream = &json["streams"][0];
    let codec = stream["codec_name"].as_str().unwrap_or("").to_string();
    let frames = stream["nb_read_frames"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let duration = json["format"]["duration"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    (codec, frames, duration)
}

/// The average colour of a video's last frame (ffmpeg scales it to one pixel).
fn average_colour(path: &Path) -> [u8; 3] {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-sseof", "-0.5", "-i"])
        .arg(path)
        .args(["-frames:v", "1", "-vf", "scale=1:1", "-f", "rawvideo"])
        .args(["-pix_fmt", "rgb24", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success() && out.stdout.len() >= 3,
        "no frame from {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    [out.stdout[0], out.stdout[1], out.stdout[2]]
}

#[test]
fn a_recording_is_a_vp8_webm_with_frames_held_at_a_constant_rate() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let video = dir.path().join("take.webm");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/animated.html")]).success();
    let started = ab
        .run(&[
            "record",
            "start",
            video.to_str().expect("utf-8"),
            "--fps",
            "5",
        ])
        .success();
    assert_eq!(
        started.out().trim(),
        format!("✓ Recording started: {} (5 fps)", video.display())
    );
    // Two seconds of a page, then a static one (the last frame is held while it is idle).
    ab.run(&["wait", "1000"]).success();
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["wait", "1000"]).success();
    let stopped = ab.run(&["--json", "record", "stop"]).success().json();
    let data = &stopped["data"];
    assert_eq!(data["path"], video.display().to_string());
    assert_eq!(data["fps"], 5);
    let written = data["frames"].as_u64().expect("frames");
    let captured = data["capturedFrames"].as_u64().expect("capturedFrames");
    assert!(captured >= 1 && written >= 5, "{data}");

    let (codec, frames, duration) = probe(&video);
    assert!(codec == "vp8" || codec == "vp9", "codec {codec}");
    assert!(frames > 5, "only {frames} frames");
    assert_eq!(frames, written, "ffprobe counts what the recorder wrote");
    // At least the two seconds waited (the held frames), at most what a loaded machine adds.
    assert!(
        (1.8..30.0).contains(&duration),
        "duration {duration} s for ~2 s recorded"
    );
    ab.run(&["record", "stop"]).failure();
    ab.run(&["close"]).success();
}

// Guards the encoder's own process group and watchdog (crates/chrome/src/encoder.rs): a
// SIGKILLed daemon leaves neither ffmpeg nor Chrome behind.
#[test]
fn kill_9_of_the_daemon_mid_recording_leaves_no_ffmpeg_and_no_chrome() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let video = dir.path().join("killed.webm");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/animated.html")]).success();
    ab.run(&[
        "record",
        "start",
        video.to_str().expect("utf-8"),
        "--fps",
        "5",
    ])
    .success();
    let daemon = ab.daemon_pid().expect("daemon");
    let ffmpeg = children_running(daemon, "image2pipe");
    let chrome = children_running(daemon, "--remote-debugging");
    assert_eq!(ffmpeg.len(), 1, "one ffmpeg: {ffmpeg:?}");
    assert_eq!(chrome.len(), 1, "one Chrome: {chrome:?}");
    let mut watched = ffmpeg.clone();
    watched.extend(abx_tests::group_members(chrome[0]));
    watched.extend(children_running(daemon, "abx-encoder-guard"));

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(daemon),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill -9 the daemon");
    let gone = wait_gone_blocking(&watched, Duration::from_secs(15));
    if gone.is_none() {
        // Leave nothing behind even when the protection is broken.
        abx_tests::kill_group(chrome[0]);
        abx_tests::kill_group(ffmpeg[0]);
    }
    assert!(
        gone.is_some(),
        "left running after the daemon's SIGKILL: {:?}",
        pids_alive(&watched)
            .into_iter()
            .map(|p| (p, cmdline(p).chars().take(60).collect::<String>()))
            .collect::<Vec<_>>()
    );
    println!("figure: ffmpeg and Chrome gone {gone:?} after the daemon's SIGKILL");
}

#[test]
fn without_ffmpeg_on_path_record_start_names_the_debian_package() {
    let site = common::site();
    let empty = tempfile::tempdir().expect("tmp");
    // Chrome by its full path, so only ffmpeg is missing.
    let chrome = [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect("a Chrome in /usr/bin");
    let ab = Cli::new()
        .env("AGENT_BROWSER_EXECUTABLE_PATH", chrome)
        .env("PATH", empty.path().to_str().expect("utf-8"));
    ab.run(&["open", &site.url("/static.html")]).success();
    let out = ab
        .run(&[
            "record",
            "start",
            &empty.path().join("v.webm").display().to_string(),
        ])
        .failure();
    assert!(
        out.stderr.contains("ffmpeg not found") && out.stderr.contains("apt-get install ffmpeg"),
        "{}",
        out.stderr
    );
    ab.run(&["close"]).success();
}

#[test]
fn bad_record_input_gets_a_clear_error_and_exit_1() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    let stop = ab.run(&["record", "stop"]).failure();
    assert_eq!(stop.code, 1);
    assert!(
        stop.stderr.contains("No recording in progress"),
        "{}",
        stop.stderr
    );
    let unwritable = ab
        .run(&["record", "start", "/nonexistent-abx-dir/v.webm"])
        .failure();
    assert!(
        unwritable
            .stderr
            .contains("cannot write /nonexistent-abx-dir/v.webm"),
        "{}",
        unwritable.stderr
    );
    let no_ext = dir.path().join("video");
    let refused = ab
        .run(&["record", "start", no_ext.to_str().expect("utf-8")])
        .failure();
    assert!(refused.stderr.contains(".webm"), "{}", refused.stderr);
    // Flag errors, in upstream's words, before anything starts.
    for (flag, error) in [
        (
            ["--fps", "61"],
            "Invalid fps: 61 is out of range (valid range: 1-60)",
        ),
        (["--fps", "-5"], "Invalid fps: '-5' is not a valid integer"),
        (["--foo", "x"], "Unknown flag for record start: --foo"),
    ] {
        let refused = ab
            .run(&[&["record", "start", "x.webm"][..], &flag].concat())
            .failure();
        assert!(
            refused.stderr.contains(error),
            "{flag:?}: {}",
            refused.stderr
        );
    }
    // A contact-sheet threshold is a flag with a value (never the page to open), checked as
    // upstream checks it, and asks for a contact sheet, which abx refuses.
    for (value, error) in [
        (
            "abc",
            "Invalid contact sheet threshold: 'abc' is not a number",
        ),
        (
            "2",
            "Invalid contact sheet threshold: 2 is out of range (valid range: 0-1)",
        ),
        ("0.02", "not supported"),
    ] {
        let sheet = dir.path().join("s.webm");
        let refused = ab
            .run(&[
                "record",
                "start",
                sheet.to_str().expect("utf-8"),
                "--contact-sheet-threshold",
                value,
            ])
            .failure();
        assert!(
            refused.stderr.contains(error),
            "{value}: {}",
            refused.stderr
        );
        assert!(!sheet.exists(), "{value}: no recording was made");
    }
    let cursor = dir.path().join("c.webm");
    let unsupported = ab
        .run(&[
            "record",
            "start",
            cursor.to_str().expect("utf-8"),
            "--cursor",
        ])
        .failure();
    assert!(
        unsupported.stderr.contains("not supported"),
        "{}",
        unsupported.stderr
    );

    let video = dir.path().join("once.webm");
    ab.run(&[
        "record",
        "start",
        video.to_str().expect("utf-8"),
        "--fps",
        "2",
    ])
    .success();
    let twice = ab
        .run(&["record", "start", video.to_str().expect("utf-8")])
        .failure();
    assert!(
        twice.stderr.contains("Recording already active"),
        "{}",
        twice.stderr
    );
    ab.run(&["record", "stop"]).success();
    ab.run(&["close"]).success();
}

/// A stage session on a shared anchor: its own HOME and socket dir, CDP + pin-tab.
fn stage(name: &str, cdp: &str) -> Cli {
    Cli::new()
        .session(name)
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0")
}

#[test]
fn two_sessions_on_one_anchor_each_record_their_own_tab() {
    let site = common::site();
    let dir = tempfile::tempdir().expect("tmp");
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor
        .run(&["get", "cdp-url"])
        .success()
        .out()
        .trim()
        .to_string();
    let red = stage("red", &cdp);
    let blue = stage("blue", &cdp);
    let paint = |cli: &Cli, colour: &str| {
        cli.run(&["open", &site.url("/static.html")]).success();
        cli.run(&[
            "eval",
            &format!("document.body.innerHTML = ''; document.body.style.background = '{colour}'"),
        ])
        .success();
    };
    paint(&red, "rgb(255, 0, 0)");
    paint(&blue, "rgb(0, 0, 255)");
    let red_video = dir.path().join("red.webm");
    let blue_video = dir.path().join("blue.webm");
    red.run(&[
        "record",
        "start",
        red_video.to_str().expect("utf-8"),
        "--fps",
        "4",
    ])
    .success();
    blue.run(&[
        "record",
        "start",
        blue_video.to_str().expect("utf-8"),
        "--fps",
        "4",
    ])
    .success();
    red.run(&["wait", "1000"]).success();
    red.run(&["record", "stop"]).success();
    blue.run(&["record", "stop"]).success();

    let [r, g, b] = average_colour(&red_video);
    assert!(
        r > 200 && g < 60 && b < 60,
        "red session's video is {r},{g},{b}"
    );
    let [r, g, b] = average_colour(&blue_video);
    assert!(
        b > 200 && r < 60 && g < 60,
        "blue session's video is {r},{g},{b}"
    );
    red.run(&["close"]).success();
    blue.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
