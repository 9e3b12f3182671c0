//! `--action-policy`, `--confirm-actions` with `confirm`/`deny`, `--confirm-interactive`, and the
//! refusals that must happen before anything starts (`-p <provider>`, `chat`, `--engine`).

use abx_tests::cli::Cli;

mod common;
use common::site;

#[test]
fn a_policy_denies_and_parks_actions_and_is_reread_per_command() {
    let site = site();
    let ab = Cli::new();
    let policy = ab.home().join("policy.json");
    std::fs::write(
        &policy,
        r#"{"default":"allow","deny":["evaluate"],"confirm":["click"]}"#,
    )
    .expect("policy");
    let p = policy.to_str().expect("path");
    ab.run(&["--action-policy", p, "open", &site.url("/page1.html")])
        .success();

    let denied = ab.run(&["--action-policy", p, "eval", "1"]).failure();
    assert_eq!(denied.code, 1);
    assert_eq!(
        denied.stderr.trim(),
        "✗ Action 'evaluate' denied by policy: Action 'evaluate' is denied by policy"
    );

    // click waits for confirmation; deny drops it, confirm runs it.
    let parked = ab
        .run(&["--action-policy", p, "--json", "click", "#to2"])
        .success()
        .json();
    assert_eq!(parked["data"]["confirmation_required"], true);
    assert_eq!(parked["data"]["action"], "click");
    let id = parked["data"]["confirmation_id"]
        .as_str()
        .expect("id")
        .to_string();
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page1.html"),
        "parked, not run"
    );
    let wrong = ab.run(&["confirm", "nope"]).failure();
    assert!(
        wrong
            .stderr
            .contains("No pending confirmation with id nope"),
        "{wrong:?}"
    );
    let denied = ab.run(&["--json", "deny", &id]).success().json();
    assert_eq!(denied["data"]["denied"], true);
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page1.html"),
        "denied, not run"
    );
    assert!(
        ab.run(&["confirm", &id])
            .failure()
            .stderr
            .contains("No pending confirmation")
    );

    let parked = ab.run(&["--json", "click", "#to2"]).success().json();
    let id = parked["data"]["confirmation_id"]
        .as_str()
        .expect("id")
        .to_string();
    let text = ab.run(&["confirm", &id]).success();
    assert_eq!(text.out(), "✓ Action confirmed");
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page2.html"),
        "confirmed and run"
    );

    // Edits apply to the next command; a broken file refuses everything (but close).
    std::fs::write(
        &policy,
        r#"{"default":"deny","allow":["launch","navigate","url"]}"#,
    )
    .expect("policy");
    assert!(
        ab.run(&["get", "title"])
            .failure()
            .stderr
            .contains("not in the allow list")
    );
    ab.run(&["get", "url"]).success();
    std::fs::write(&policy, "{not json").expect("policy");
    let broken = ab.run(&["get", "url"]).failure();
    assert!(broken.stderr.contains("Invalid policy JSON"), "{broken:?}");
    ab.run(&["close"]).success();
}

#[test]
fn confirm_actions_park_the_listed_actions_and_interactive_mode_denies_without_a_terminal() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_CONFIRM_ACTIONS", "navigate");
    let parked = ab
        .run(&["--json", "open", &site.url("/page1.html")])
        .success()
        .json();
    assert_eq!(parked["data"]["action"], "navigate");
    let id = parked["data"]["confirmation_id"]
        .as_str()
        .expect("id")
        .to_string();
    let shown = ab.run(&["open", &site.url("/page1.html")]).success();
    assert!(
        shown
            .out()
            .starts_with("Confirmation required:\n  navigate\n  Run: agent-browser confirm "),
        "{shown:?}"
    );
    let _ = id;
    // stdin is not a terminal here: --confirm-interactive denies, exit 1.
    let out = ab
        .run(&["--confirm-interactive", "open", &site.url("/page2.html")])
        .failure();
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr.trim(), "✗ Action denied");
    assert_ne!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page2.html")
    );
    ab.run(&["close"]).success();
}

/// Arguments, extra environment, and what the error must say.
type Refusal = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    &'static str,
);

#[test]
fn what_cannot_work_here_is_refused_before_anything_starts() {
    let ab = Cli::new();
    let cases: &[Refusal] = &[
        (
            &["-p", "browserbase", "open", "http://127.0.0.1:9/"],
            &[],
            "BROWSERBASE_API_KEY environment variable is not set",
        ),
        (
            &["-p", "browserbase", "open", "http://127.0.0.1:9/"],
            &[("BROWSERBASE_API_KEY", "k")],
            "is not supported by abx",
        ),
        (
            &["--provider", "kernel", "snapshot"],
            &[],
            "KERNEL_API_KEY environment variable is not set",
        ),
        (
            &["-p", "ios", "open", "http://127.0.0.1:9/"],
            &[],
            "needs macOS with Xcode",
        ),
        (&["chat", "hello"], &[], "AI_GATEWAY_API_KEY not set"),
        (
            &["--engine", "lightpanda", "open", "http://127.0.0.1:9/"],
            &[("PATH", "/nonexistent")],
            // Upstream's order: the Chrome args the test environment sets come before the binary.
            "Custom Chrome arguments (--args) are not supported with Lightpanda",
        ),
    ];
    for (args, env, expected) in cases {
        let mut ab = Cli::new();
        for (k, v) in *env {
            ab = ab.env(k, v);
        }
        let out = ab.run(args).failure();
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(out.stderr.contains(expected), "{args:?}: {out:?}");
        assert!(ab.daemon_pid().is_none(), "{args:?} started a daemon");
        assert!(!ab.file("sock").exists(), "{args:?} left a socket");
        assert!(!ab.file("engine").exists(), "{args:?} launched a browser");
    }
    ab.run(&["close"]).success();
}

/// Upstream checks an engine's options before it looks for the engine's binary, and a running
/// daemon of another configuration (here, an idle one started with a proxy bypass in its
/// environment) is neither reused nor disturbed by the refusal.
#[test]
fn engine_options_are_refused_before_its_binary_is_looked_for() {
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let primed = ab
        .command(&["--json", "stream", "status"])
        .env("AGENT_BROWSER_PROXY_BYPASS", "localhost")
        .output()
        .expect("run");
    ab.remember();
    let primed: serde_json::Value = serde_json::from_slice(&primed.stdout).expect("JSON");
    assert_eq!(primed["data"]["connected"], false, "{primed}");
    let pid = ab.daemon_pid().expect("stream status started a daemon");
    let launch = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec![
            "--json",
            "--engine",
            "obscura",
            "--executable-path",
            "/nonexistent/obscura-probe",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["open", "about:blank"]);
        let mut command = ab.command(&args);
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().expect("run");
        let body: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(out.status.code(), Some(1), "{body}");
        body["error"].as_str().unwrap_or_default().to_string()
    };
    let bypass = "--proxy-bypass is not supported with Obscura (including AGENT_BROWSER_PROXY_BYPASS and NO_PROXY)";
    assert_eq!(launch(&["--proxy-bypass", "localhost"], &[]), bypass);
    assert_eq!(launch(&[], &[("NO_PROXY", "localhost")]), bypass);
    // The bypass the daemon was started with is not this invocation's.
    assert_eq!(
        launch(&[], &[]),
        "Failed to launch Obscura at \"/nonexistent/obscura-probe\": No such file or directory (os error 2)"
    );
    assert_eq!(
        ab.daemon_pid(),
        Some(pid),
        "the running daemon was replaced"
    );
    ab.run(&["close"]).success();
}
