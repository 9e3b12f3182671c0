//! The TypeScript example Host (`examples/ts`) runs the seed's pipeline through `abx-host`:
//! `npm ci` and `tsc` in a copy of the example, then node against the fixture site. Needs
//! node and npm (CI has both) and the npm registry or npm's cache.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Place, Site, abx_host, agent_browser};

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read example") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "node_modules" || name == "dist" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy");
        }
    }
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?} cannot run (is node/npm installed?): {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `--experimental-websocket` where node accepts it and it gives a global WebSocket (node 20
/// and 21); otherwise nothing (node 22 has one; an older node makes the example carry the
/// viewer on the channel).
fn node_websocket_flag() -> Option<&'static str> {
    let flag = "--experimental-websocket";
    Command::new("node")
        .args([
            flag,
            "-e",
            "process.exit(typeof WebSocket === 'function' ? 0 : 1)",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(flag)
}

#[test]
fn the_typescript_example_host_runs_the_pipeline_through_abx_host() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ts");
    let work = tempfile::Builder::new()
        .prefix("abx-ts-example")
        .tempdir()
        .expect("work dir");
    copy_tree(&example, work.path());
    run(
        work.path(),
        "npm",
        &[
            "ci",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
        ],
    );
    run(
        work.path(),
        "node",
        &["node_modules/typescript/bin/tsc", "-p", "."],
    );

    let site = Site::start();
    let place = Place::new();
    let mut command = Command::new("node");
    if let Some(flag) = node_websocket_flag() {
        command.arg(flag);
    }
    let mut node = command
        .arg("dist/pipeline.js")
        .args(["--abx-host", &abx_host().to_string_lossy()])
        .args(["--agent-browser", &agent_browser().to_string_lossy()])
        .args(["--site", &site.url("/")])
        .args(["--home", &place.home.path().to_string_lossy()])
        .args(["--socket-root", &place.socket_root().to_string_lossy()])
        .current_dir(work.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node starts");
    // Bounded: a hung example is ended by pid (its abx-host then sees EOF and closes its runs).
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(status) = node.try_wait().expect("wait node") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = node.kill();
            let _ = node.wait();
            panic!("the TypeScript example did not finish within 240 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut node.stdout.take().expect("stdout"), &mut stdout)
        .expect("read report");
    assert!(
        status.success(),
        "the example failed ({status}); stdout: {stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("a report line"))
            .expect("the report is JSON");
    println!("{report:#}");

    assert_eq!(report["protocol"], 1);
    assert_eq!(
        report["logged_in_at_start"], false,
        "a new profile starts logged out"
    );
    assert_eq!(
        report["login_display"], "live_view",
        "no screen: the person uses the live view"
    );
    println!("viewer carried over {}", report["viewer_via"]);
    assert!(
        report["frames_seen"].as_u64() > Some(0),
        "the person saw frames"
    );
    assert_eq!(
        report["logged_in_after_login"], true,
        "typed through viewer input"
    );
    assert_eq!(
        report["work"],
        serde_json::json!([
            {"title": "Account", "text": "ada"},
            {"title": "Page Two", "text": "Page Two"}
        ]),
        "work-a sees the login; both ran in parallel"
    );
    assert_eq!(report["one_shared_browser"], true);
    assert_eq!(report["status_anchor_health"], "up");
    assert_eq!(
        report["run2_logged_in"], true,
        "the login persisted to the next run"
    );
    assert_eq!(report["teardown_complete"], true);
    let events = report["events"].as_array().expect("events");
    for event in ["ready", "anchor_started", "waiting_for_profile"] {
        assert!(events.iter().any(|e| e == event), "{event} in {events:?}");
    }
    assert!(
        report["questions_answered"].as_u64() >= Some(1),
        "run 2 waited behind run 1: the front asked the Host whether run 1 was live"
    );
    assert_eq!(report["malformed_line"], serde_json::json!(["parse_error"]));
    assert_eq!(report["bad_stage"], "invalid_request");
    assert_eq!(report["exit_code"], 0, "abx-host exits after shutdown");
    assert!(
        place.session_dirs().is_empty(),
        "sessions left: {:?}",
        place.session_dirs()
    );
}
