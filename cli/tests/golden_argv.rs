//! Every argv of the 0.41.2 wire capture (`tests/data/wire-golden.jsonl`) must produce exactly the
//! requests upstream's CLI sent (ids aside), in order, and the same exit code.

use std::path::Path;

use agent_browser::host::MemoryHost;
use serde_json::Value;

const GOLDEN: &str = include_str!("data/wire-golden.jsonl");

/// The environment of the capture: HOME and the socket dir in temp dirs, `AGENT_BROWSER_SESSION=fake`,
/// nothing else from agent-browser; the Debian CA bundle exists (it shows up in `read`'s `tls`).
fn capture_host() -> MemoryHost {
    MemoryHost::new()
        .with_home(Some(Path::new("/tmp/golden-home")))
        .with_cwd(Path::new("/tmp/golden-cwd"))
        .with_var("HOME", "/tmp/golden-home")
        .with_var("AGENT_BROWSER_SOCKET_DIR", "/tmp/golden-sock")
        .with_var("AGENT_BROWSER_SESSION", "fake")
        .with_file(Path::new("/etc/ssl/certs/ca-certificates.crt"), "")
}

struct Case {
    argv: Vec<String>,
    exit: i64,
    requests: Vec<Value>,
}

fn cases() -> Vec<Case> {
    GOLDEN
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("golden line is JSON");
            Case {
                argv: v["argv"]
                    .as_array()
                    .expect("argv array")
                    .iter()
                    .map(|a| a.as_str().expect("argv string").to_string())
                    .collect(),
                exit: v["exit"].as_i64().expect("exit code"),
                requests: v["requests"].as_array().expect("requests array").clone(),
            }
        })
        .collect()
}

#[test]
fn every_golden_argv_produces_upstreams_requests() {
    let cases = cases();
    assert_eq!(cases.len(), 169, "golden file should have 169 captures");
    let host = capture_host();
    let mut failures = Vec::new();
    for case in &cases {
        match agent_browser::parse(&case.argv, &host) {
            Ok(inv) => {
                let got = inv.requests();
                if case.exit != 0 {
                    failures.push(format!(
                        "{:?}: expected exit {}, parsed fine",
                        case.argv, case.exit
                    ));
                } else if got != case.requests {
                    failures.push(format!(
                        "{:?}\n    want {}\n    got  {}",
                        case.argv,
                        serde_json::to_string(&case.requests).unwrap_or_default(),
                        serde_json::to_string(&got).unwrap_or_default()
                    ));
                }
            }
            Err(failure) => {
                let rendered = failure.render();
                if i64::from(rendered.exit_code) != case.exit {
                    failures.push(format!(
                        "{:?}: failed with {:?} (exit {}), expected exit {}",
                        case.argv, failure.error, rendered.exit_code, case.exit
                    ));
                }
            }
        }
    }
    let passing = cases.len() - failures.len();
    eprintln!("golden argv: {passing}/{} passing", cases.len());
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
