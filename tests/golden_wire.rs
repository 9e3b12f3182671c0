//! Replays upstream's argv → wire captures (`wire-golden.jsonl`) through our binary against a
//! fake daemon socket, and checks the exact requests (ignoring `id`, and abx's own
//! `abxTextReply`, which must say `true` exactly when the argv prints text) and exit codes.

/// Golden argv abx refuses on purpose (docs/compat.md): `--engine` without its binary.
const REFUSED_BY_DESIGN: &[&[&str]] = &[&["--engine", "lightpanda", "get", "url"]];

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};

use abx_tests::cli::Cli;
use serde_json::Value;

/// Where the fake daemon keeps a request's `abxTextReply` (upstream sends no such key).
const TEXT_MARK: &str = "<abxTextReply>";

const FINGERPRINT: &str = r#"{"action_policy":null,"confirm_actions":null,"debug":false,"default_timeout":null,"idle_timeout":null,"no_auto_dialog":false}"#;

fn start_fake_daemon(cli: &Cli) -> Arc<Mutex<Vec<Value>>> {
    std::fs::create_dir_all(cli.socket_dir()).expect("socket dir");
    let listener = UnixListener::bind(cli.file("sock")).expect("bind fake daemon");
    // A pid no process has: the CLI judges liveness by connecting, and the test guard must not
    // mistake this process for a daemon to clean up.
    std::fs::write(cli.file("pid"), "999999999").expect("pid");
    std::fs::write(cli.file("version"), "0.41.2").expect("version");
    std::fs::write(cli.file("config"), FINGERPRINT).expect("config");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = log.clone();
            std::thread::spawn(move || {
                let mut writer = stream.try_clone().expect("clone");
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { return };
                    let mut request: Value =
                        serde_json::from_str(&line).expect("the CLI sends JSON");
                    let id = request.get("id").cloned().unwrap_or(Value::Null);
                    if let Value::Object(map) = &mut request {
                        map.remove("id");
                        // Kept apart from upstream's keys: checked against the output mode.
                        if let Some(text) = map.remove("abxTextReply") {
                            map.insert(TEXT_MARK.into(), text);
                        }
                    }
                    log.lock().expect("log").push(request);
                    let reply =
                        serde_json::json!({"id": id, "success": true, "data": {"ok": true}});
                    let _ = writeln!(writer, "{reply}");
                }
            });
        }
    });
    seen
}

#[test]
fn every_golden_argv_sends_upstreams_exact_requests() {
    let cli = Cli::new()
        .without("AGENT_BROWSER_ARGS")
        .without("AGENT_BROWSER_IDLE_TIMEOUT_MS")
        .session("fake");
    let seen = start_fake_daemon(&cli);
    let golden = include_str!("../cli/tests/data/wire-golden.jsonl");
    let mut failures = Vec::new();
    let mut total = 0;
    for line in golden.lines().filter(|l| !l.trim().is_empty()) {
        total += 1;
        let case: Value = serde_json::from_str(line).expect("golden line");
        let argv: Vec<String> = case["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(|a| a.as_str().unwrap_or("").to_string())
            .collect();
        seen.lock().expect("log").clear();
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let out = cli.run(&args);
        let mut got = seen.lock().expect("log").clone();
        // A text reader says so on every request, a JSON reader never does.
        let prints_json = args.contains(&"--json");
        for request in &mut got {
            let mark = request.as_object_mut().and_then(|m| m.remove(TEXT_MARK));
            let want_mark = (!prints_json).then_some(Value::Bool(true));
            if mark != want_mark {
                failures.push(format!(
                    "{argv:?}: abxTextReply {mark:?}, want {want_mark:?}"
                ));
            }
        }
        let want = case["requests"].as_array().cloned().unwrap_or_default();
        let want_exit = case["exit"].as_i64().unwrap_or(0) as i32;
        // Upstream accepts these and fails later (or never); abx refuses them before anything
        // starts (issue 13: no flag that quietly does nothing): exit 1, nothing sent.
        if REFUSED_BY_DESIGN.contains(&args.as_slice()) {
            if !got.is_empty() || out.code != 1 {
                failures.push(format!(
                    "{argv:?}: want a refusal, got {got:?} exit {}",
                    out.code
                ));
            }
            continue;
        }
        if got != want || out.code != want_exit {
            failures.push(format!(
                "{argv:?}\n  want {want:?} exit {want_exit}\n  got  {got:?} exit {} {}",
                out.code, out.stderr
            ));
        }
    }
    assert!(total >= 169, "golden file truncated: {total} lines");
    assert!(
        failures.is_empty(),
        "{} of {total} golden cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
