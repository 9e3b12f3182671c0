//! Command grammar, parse errors, launch rules and local commands.

use std::path::Path;

use agent_browser::commands::{
    CliError, Command, LaunchKind, LocalCommand, ParseError, SessionCommand,
};
use agent_browser::host::MemoryHost;
use agent_browser::output::OutputOptions;
use serde_json::{Value, json};

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(ToString::to_string).collect()
}

fn host() -> MemoryHost {
    MemoryHost::new()
        .with_home(Some(Path::new("/home/u")))
        .with_cwd(Path::new("/proj"))
        .with_var("AGENT_BROWSER_SESSION", "fake")
}

fn requests(h: &MemoryHost, words: &[&str]) -> Vec<Value> {
    agent_browser::parse(&argv(words), h)
        .expect("parses")
        .requests()
}

fn parse_error(words: &[&str]) -> ParseError {
    match agent_browser::parse(&argv(words), &host())
        .expect_err("fails")
        .error
    {
        CliError::Parse(e) => e,
        other => panic!("{words:?}: expected a parse error, got {other:?}"),
    }
}

fn rejection(h: &MemoryHost, words: &[&str]) -> String {
    match agent_browser::parse(&argv(words), h)
        .expect_err("fails")
        .error
    {
        CliError::Rejected { message, .. } => message,
        other => panic!("{words:?}: expected a rejection, got {other:?}"),
    }
}

#[test]
fn parse_errors_use_upstreams_text_and_type() {
    let table: &[(&[&str], &str, &str)] = &[
        (&["bogus"], "Unknown command: bogus", "unknown_command"),
        // Upstream 0.41.2 does not know `addinitscript` (it documents it); abx has it.
        (
            &["addinitscript"],
            "Missing arguments for: addinitscript\nUsage: agent-browser addinitscript <script>",
            "missing_arguments",
        ),
        (
            &["click"],
            "Missing arguments for: click\nUsage: agent-browser click <selector> [--new-tab] [--human]",
            "missing_arguments",
        ),
        (
            &["get", "bogus"],
            "Unknown subcommand: bogus\nValid options: text, html, value, attr, url, title, count, box, styles, cdp-url",
            "unknown_subcommand",
        ),
        (
            &["get", "attr", "@e1"],
            "Missing arguments for: get attr\nUsage: agent-browser get attr <selector> <attribute>",
            "missing_arguments",
        ),
        (
            &["eval", "-b", "!!!"],
            "Invalid base64 encoding\nUsage: agent-browser eval -b <base64-encoded-script>",
            "invalid_value",
        ),
        (
            &["connect", "0"],
            "Invalid port: port must be greater than 0\nUsage: agent-browser connect <port|url>",
            "invalid_value",
        ),
        (
            &["state", "clear", "a b"],
            "Invalid session name 'a b'. Only alphanumeric characters, hyphens, and underscores are allowed.",
            "invalid_session_name",
        ),
        (
            &["cookies", "set", "c", "3", "--bogus"],
            "cookies set: unknown flag '--bogus'\nUsage: agent-browser cookies set <name> <value> [--url <url>] [--domain <domain>] [--path <path>] [--http-only] [--secure] [--same-site <Strict|Lax|None>] [--expires <timestamp>]\n  or:  cookies set --curl <file> [--domain <domain>] [--url <url>]",
            "invalid_value",
        ),
        (
            &["swipe", "sideways"],
            "Invalid swipe direction: sideways\nUsage: agent-browser swipe <up|down|left|right> [distance]",
            "invalid_value",
        ),
    ];
    for (words, text, kind) in table {
        let e = parse_error(words);
        assert_eq!(e.to_string(), *text, "{words:?}");
        assert_eq!(e.kind(), *kind, "{words:?}");
    }
}

#[test]
fn parse_errors_render_bare_in_text_and_typed_in_json() {
    let text = agent_browser::parse(&argv(&["bogus"]), &host())
        .expect_err("fails")
        .render();
    assert_eq!(text.stderr, "Unknown command: bogus\n");
    assert_eq!(text.stdout, "");
    assert_eq!(text.exit_code, 1);
    let json = agent_browser::parse(&argv(&["--json", "bogus"]), &host())
        .expect_err("fails")
        .render();
    assert_eq!(
        json.stdout,
        "{\"error\":\"Unknown command: bogus\",\"success\":false,\"type\":\"unknown_command\"}\n"
    );
    assert_eq!(json.exit_code, 1);
}

#[test]
fn cdp_values_are_validated_client_side() {
    let h = host();
    assert_eq!(
        rejection(&h, &["--cdp", "0", "back"]),
        "Invalid CDP port: port must be greater than 0"
    );
    assert_eq!(
        rejection(&h, &["--cdp", "70000", "back"]),
        "Invalid CDP port: 70000 is out of range (valid range: 1-65535)"
    );
    assert_eq!(
        rejection(&h, &["--cdp", "localhost:9222", "back"]),
        "Invalid CDP value: 'localhost:9222' is not a valid port number or URL"
    );
    let r = agent_browser::parse(&argv(&["--json", "--cdp", "0", "back"]), &h)
        .expect_err("fails")
        .render();
    assert_eq!(
        r.stdout,
        "{\"error\":\"Invalid CDP port: port must be greater than 0\",\"success\":false}\n"
    );
}

#[test]
fn incompatible_launch_modes_are_rejected() {
    let h = host();
    let table: &[(&[&str], &str)] = &[
        (
            &["--cdp", "9222", "-p", "browserbase", "back"],
            "Cannot use --cdp and -p/--provider together",
        ),
        (
            &["--auto-connect", "--cdp", "9222", "back"],
            "Cannot use --auto-connect and --cdp together",
        ),
        (
            &["--auto-connect", "-p", "kernel", "back"],
            "Cannot use --auto-connect and -p/--provider together",
        ),
        (
            &["--cdp", "9222", "--extension", "/e", "back"],
            "Cannot use --extension with --cdp (extensions require local browser)",
        ),
        (
            &["--webgpu", "--auto-connect", "back"],
            "Cannot use --webgpu with --auto-connect (the WebGPU preset requires a local browser launch; pass --webgpu false to override env/config)",
        ),
    ];
    for (words, msg) in table {
        assert_eq!(rejection(&h, words), *msg, "{words:?}");
    }
    // `--webgpu false` overrides an env-enabled preset.
    let h = h.with_var("AGENT_BROWSER_WEBGPU", "1");
    assert!(
        agent_browser::parse(&argv(&["--webgpu", "false", "--cdp", "9222", "back"]), &h).is_ok()
    );
}

#[test]
fn the_launch_kind_decides_the_fallback_error() {
    let inv = agent_browser::parse(&argv(&["--cdp", "9222", "back"]), &host()).expect("parses");
    let Command::Daemon(plan) = inv.command else {
        panic!("expected daemon plan");
    };
    let launch = plan.launch.expect("cdp launch");
    assert_eq!(launch.kind, LaunchKind::Cdp);
    assert_eq!(launch.kind.fallback_error(), "CDP connection failed");
    assert_eq!(
        LaunchKind::Local.transport_error_text("boom"),
        "Could not configure browser: boom"
    );
}

#[test]
fn default_timeout_is_stamped_on_wait_family_requests_only() {
    let h = host().with_var("AGENT_BROWSER_DEFAULT_TIMEOUT", "5000");
    assert_eq!(requests(&h, &["wait", "#x"])[0]["timeout"], json!(5000));
    assert_eq!(requests(&h, &["wait", "100"])[0]["timeout"], json!(100));
    assert_eq!(
        requests(&h, &["wait", "--text", "hi"])[0]["timeout"],
        json!(5000)
    );
    assert_eq!(
        requests(&h, &["wait", "--url", "**/a"])[0]["timeout"],
        json!(5000)
    );
    assert_eq!(
        requests(&h, &["wait", "#x", "--timeout", "7"])[0]["timeout"],
        json!(7)
    );
    assert_eq!(requests(&h, &["click", "#x"])[0].get("timeout"), None);
}

#[test]
fn pin_tab_goes_on_every_request_when_pinned() {
    let h = host().with_var("AGENT_BROWSER_PIN_TAB", "1");
    assert_eq!(requests(&h, &["get", "url"])[0]["pinTab"], json!(true));
    let r = requests(&h, &["--no-pin-tab", "get", "url"]);
    assert_eq!(r[0]["pinTab"], json!(false));
    let r = requests(&h, &["batch", "get url", "back"]);
    assert!(r.iter().all(|q| q["pinTab"] == json!(true)), "{r:?}");
}

#[test]
fn providers_launch_first_and_navigate_without_waiting() {
    let r = requests(&host(), &["-p", "browserbase", "open", "x.test"]);
    assert_eq!(
        r[0],
        json!({"action": "launch", "provider": "browserbase", "plugins": []})
    );
    assert_eq!(
        r[1],
        json!({"action": "navigate", "url": "https://x.test", "waitUntil": "none", "plugins": []})
    );
}

#[test]
fn open_normalizes_urls_by_scheme() {
    let h = host();
    let url = |u: &str| requests(&h, &["open", u])[0]["url"].clone();
    assert_eq!(url("example.com"), json!("https://example.com"));
    assert_eq!(url("127.0.0.1:8080/x"), json!("https://127.0.0.1:8080/x"));
    assert_eq!(url("HTTP://X.test"), json!("HTTP://X.test"));
    assert_eq!(url("about:blank"), json!("about:blank"));
    assert_eq!(url("data:text/html,hi"), json!("data:text/html,hi"));
    assert_eq!(url("file:///tmp/a.html"), json!("file:///tmp/a.html"));
    assert_eq!(url("chrome://version"), json!("chrome://version"));
    assert_eq!(
        url("chrome-extension://abc/p.html"),
        json!("chrome-extension://abc/p.html")
    );
    assert_eq!(url("ftp://x"), json!("https://ftp://x"));
}

#[test]
fn screenshot_positional_argument_rules() {
    let h = host();
    let shot = |words: &[&str]| {
        let mut all = vec!["screenshot"];
        all.extend_from_slice(words);
        let r = requests(&h, &all);
        (r[0]["selector"].clone(), r[0]["path"].clone())
    };
    assert_eq!(shot(&["./x"]), (Value::Null, json!("./x")));
    assert_eq!(shot(&[".cls"]), (json!(".cls"), Value::Null));
    assert_eq!(shot(&["#id"]), (json!("#id"), Value::Null));
    assert_eq!(shot(&["@e1"]), (json!("@e1"), Value::Null));
    assert_eq!(shot(&["shot.png"]), (Value::Null, json!("shot.png")));
    assert_eq!(shot(&["dir/x"]), (Value::Null, json!("dir/x")));
    assert_eq!(shot(&["button"]), (json!("button"), Value::Null));
    assert_eq!(shot(&["#a", "b.png"]), (json!("#a"), json!("b.png")));
}

#[test]
fn screenshot_quality_without_jpeg_warns() {
    let inv = agent_browser::parse(
        &argv(&["screenshot", "--screenshot-quality", "50"]),
        &host(),
    )
    .expect("parses");
    assert!(inv.warnings.contains(
        &"--screenshot-quality is ignored for PNG; use --screenshot-format jpeg".to_string()
    ));
    let inv =
        agent_browser::parse(&argv(&["--annotate", "click", "@e1"]), &host()).expect("parses");
    assert!(
        inv.warnings
            .contains(&"--annotate only applies to the screenshot command".to_string())
    );
}

#[test]
fn eval_reads_stdin_when_asked() {
    let h = host().with_stdin("const a = 1;\nreturn a;\n");
    assert_eq!(
        requests(&h, &["eval", "--stdin"])[0]["script"],
        json!("const a = 1;\nreturn a;")
    );
}

#[test]
fn batch_reads_a_json_array_from_stdin_and_keeps_bad_steps() {
    let h = host().with_stdin(r#"[["open", "x.test"], ["bogus"], [], ["snapshot", "-i"]]"#);
    let inv = agent_browser::parse(&argv(&["batch", "--bail"]), &h).expect("parses");
    let Command::Batch(batch) = &inv.command else {
        panic!("expected batch");
    };
    assert!(batch.bail);
    assert_eq!(batch.steps.len(), 3, "empty entries are skipped");
    assert_eq!(batch.steps[1].argv, argv(&["bogus"]));
    assert_eq!(
        batch.steps[1].request,
        Err(ParseError::UnknownCommand {
            command: "bogus".into()
        })
    );
    assert_eq!(
        inv.requests(),
        vec![
            json!({"action": "navigate", "url": "https://x.test", "plugins": []}),
            json!({"action": "snapshot", "interactive": true, "plugins": []}),
        ]
    );
    let bad = host().with_stdin("not json");
    let r = agent_browser::parse(&argv(&["batch"]), &bad)
        .expect_err("bad stdin")
        .render();
    assert!(
        r.stderr.starts_with("✗ Invalid JSON input: "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .ends_with(". Expected an array of string arrays.\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn batch_argument_strings_are_split_like_a_shell() {
    let r = requests(
        &host(),
        &["batch", "fill @e1 'hello world'", "type \"#q\" a\\ b"],
    );
    assert_eq!(r[0]["value"], json!("hello world"));
    assert_eq!(r[1]["selector"], json!("#q"));
    assert_eq!(r[1]["text"], json!("a b"));
}

#[test]
fn read_carries_a_tls_object() {
    let no_bundle = host();
    let r = requests(&no_bundle, &["read"]);
    assert_eq!(
        r[0]["tls"],
        json!({"caCert": null, "caCertIsImplicit": false, "useSystemCa": false})
    );
    let r = requests(
        &no_bundle,
        &[
            "--ca-cert",
            "/ca.pem",
            "--use-system-ca",
            "read",
            "https://x.test",
            "--raw",
            "--timeout",
            "5",
        ],
    );
    // A URL read is an HTTP read: its TLS settings ride on it, no launch comes first.
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        r[0]["tls"],
        json!({"caCert": "/ca.pem", "caCertIsImplicit": false, "useSystemCa": true, "useSystemCaSet": true})
    );
    assert_eq!(r[0]["timeout"], json!(5));
    assert_eq!(r[0]["raw"], json!(true));
    let cleared = requests(&no_bundle, &["--no-ca-cert", "read", "https://x.test"]);
    assert_eq!(
        cleared[0]["tls"],
        json!({"caCert": null, "caCertIsImplicit": false, "useSystemCa": false, "clearCaCert": true})
    );
    // Reading the active page goes through the browser: its CA setting launches as before.
    let active = requests(&no_bundle, &["--ca-cert", "/ca.pem", "read"]);
    assert_eq!(active[0]["action"], json!("launch"));
    assert_eq!(active[0]["caCert"], json!("/ca.pem"));
    let rhel = host().with_file(Path::new("/etc/pki/tls/certs/ca-bundle.crt"), "");
    assert_eq!(
        requests(&rhel, &["read"])[0]["tls"]["caCert"],
        json!("/etc/pki/tls/certs/ca-bundle.crt")
    );
}

#[test]
fn configured_plugins_are_refused_and_an_empty_env_list_overrides_them() {
    let h = host().with_file(
        Path::new("/home/u/.agent-browser/config.json"),
        r#"{"plugins": [{"name": "p", "command": "run-p", "capabilities": ["x"]}]}"#,
    );
    // abx runs no plugins: a configured one is refused, never carried along unused.
    let refused = rejection(&h, &["back"]);
    assert!(
        refused.contains("Plugins are not supported by abx (configured: p)"),
        "{refused}"
    );
    let h = h.with_var("AGENT_BROWSER_PLUGINS", "[]");
    assert_eq!(requests(&h, &["back"])[0]["plugins"], json!([]));
}

#[test]
fn auth_save_reads_the_password_from_stdin() {
    let h = host().with_stdin("s3cret\n");
    let argv: Vec<String> = [
        "auth",
        "save",
        "gh",
        "--url",
        "https://gh",
        "--username",
        "me",
        "--password-stdin",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let inv = agent_browser::parse(&argv, &h).expect("parses");
    // Answered by the CLI itself: the password never goes to the daemon.
    assert!(inv.requests().is_empty());
    let Command::Local(LocalCommand::StateFile { request }) = inv.command else {
        panic!("auth save is a local command: {:?}", inv.command);
    };
    assert_eq!(
        request,
        json!({"action": "auth_save", "name": "gh", "url": "https://gh", "username": "me", "password": "s3cret", "plugins": []})
    );
}

#[test]
fn cookies_can_be_imported_from_a_curl_dump() {
    let h = host().with_file(
        Path::new("c.txt"),
        "curl 'https://x.test/api' \\\n  -H 'accept: */*' \\\n  -H 'cookie: sid=abc; t=1'",
    );
    let r = requests(
        &h,
        &["cookies", "set", "--curl", "c.txt", "--domain", "x.test"],
    );
    assert_eq!(
        r[0]["cookies"],
        json!([
            {"name": "sid", "value": "abc", "domain": "x.test", "path": "/"},
            {"name": "t", "value": "1", "domain": "x.test", "path": "/"}
        ])
    );
}

#[test]
fn local_commands_need_no_daemon() {
    let h = host();
    let local = |words: &[&str]| match agent_browser::parse(&argv(words), &h)
        .expect("parses")
        .command
    {
        Command::Local(l) => l,
        other => panic!("{words:?}: expected local, got {other:?}"),
    };
    assert_eq!(local(&["--version"]), LocalCommand::Version);
    assert_eq!(local(&[]), LocalCommand::Help { command: None });
    assert_eq!(
        local(&["click", "--help"]),
        LocalCommand::Help {
            command: Some("click".into())
        }
    );
    assert_eq!(
        local(&["session"]),
        LocalCommand::Session(SessionCommand::Show)
    );
    assert_eq!(
        local(&["session", "list"]),
        LocalCommand::Session(SessionCommand::List)
    );
    assert_eq!(
        local(&["session", "id", "--scope", "cwd", "--prefix", "app"]),
        LocalCommand::Session(SessionCommand::Id {
            scope: "cwd".into(),
            prefix: Some("app".into())
        })
    );
    assert_eq!(local(&["close", "--all"]), LocalCommand::CloseAll);
    assert_eq!(local(&["profiles"]), LocalCommand::Profiles);
    assert_eq!(
        local(&["state", "list"]),
        LocalCommand::StateFile {
            request: json!({"action": "state_list", "plugins": []})
        }
    );
}

#[test]
fn version_and_help_render_locally() {
    assert_eq!(
        agent_browser::output::render_version().stdout,
        "agent-browser 0.41.2\n"
    );
    assert_eq!(agent_browser::UPSTREAM_VERSION, "0.41.2");
    let help = agent_browser::output::render_help(Some("click")).stdout;
    assert!(
        help.contains("Usage: agent-browser click <selector> [--new-tab] [--human]"),
        "{help}"
    );
    let general = agent_browser::output::render_help(None).stdout;
    assert!(general.contains("snapshot") && general.contains("--session <name>"));
    let opts = OutputOptions::default();
    let r = LocalCommand::Unsupported {
        command: "profiles".into(),
    }
    .immediate(&opts)
    .expect("renders");
    assert_eq!(r.exit_code, 1);
    assert!(
        r.stderr.starts_with("✗ `profiles` is not supported by abx"),
        "{}",
        r.stderr
    );
    assert_eq!(
        LocalCommand::Version.immediate(&opts).map(|r| r.stdout),
        Some("agent-browser 0.41.2\n".to_string())
    );
    assert_eq!(LocalCommand::CloseAll.immediate(&opts), None);
}

#[test]
fn a_running_daemons_fingerprint_is_kept_with_a_warning() {
    use agent_browser::fingerprint::DaemonFingerprint;
    let running: DaemonFingerprint = serde_json::from_str(
        r#"{"action_policy":null,"confirm_actions":null,"debug":false,"default_timeout":null,"idle_timeout":null,"no_auto_dialog":false}"#,
    )
    .expect("fingerprint json");
    let wanted = DaemonFingerprint {
        default_timeout: Some(5000),
        ..running.clone()
    };
    assert_eq!(
        wanted.mismatch_warnings(&running, "default"),
        vec!["Ignoring default timeout 5000: session \"default\" is already running with the default. Close the session to change it.".to_string()]
    );
    assert!(running.mismatch_warnings(&running, "default").is_empty());
}

#[test]
fn fingerprint_and_daemon_env() {
    let inv = agent_browser::parse(&argv(&["back"]), &host()).expect("parses");
    assert_eq!(
        inv.fingerprint(),
        r#"{"action_policy":null,"confirm_actions":null,"debug":false,"default_timeout":null,"idle_timeout":null,"no_auto_dialog":false}"#
    );
    let h = host().with_var("AGENT_BROWSER_DEFAULT_TIMEOUT", "5000");
    let inv = agent_browser::parse(
        &argv(&[
            "--idle-timeout",
            "3s",
            "--debug",
            "--proxy",
            "http://u:p@h:1",
            "back",
        ]),
        &h,
    )
    .expect("parses");
    assert_eq!(
        inv.fingerprint(),
        r#"{"action_policy":null,"confirm_actions":null,"debug":true,"default_timeout":5000,"idle_timeout":"3000","no_auto_dialog":false}"#
    );
    let env = inv.daemon_env();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("AGENT_BROWSER_DAEMON"), Some("1"));
    assert_eq!(get("AGENT_BROWSER_SESSION"), Some("fake"));
    assert_eq!(get("AGENT_BROWSER_HIDE_SCROLLBARS"), Some("1"));
    assert_eq!(get("AGENT_BROWSER_DEBUG"), Some("1"));
    assert_eq!(get("AGENT_BROWSER_IDLE_TIMEOUT_MS"), Some("3000"));
    assert_eq!(get("AGENT_BROWSER_DEFAULT_TIMEOUT"), Some("5000"));
    assert_eq!(get("AGENT_BROWSER_PROXY"), Some("http://h:1"));
    assert_eq!(get("AGENT_BROWSER_PROXY_USERNAME"), Some("u"));
    assert_eq!(get("AGENT_BROWSER_PROXY_PASSWORD"), Some("p"));
    assert_eq!(get("AGENT_BROWSER_PLUGINS"), Some("[]"));
    assert_eq!(get("AGENT_BROWSER_HEADED"), None);
    assert!(
        inv.daemon_env_unset()
            .contains(&"AGENT_BROWSER_HEADED".to_string())
    );
    assert!(
        !inv.daemon_env_unset()
            .contains(&"AGENT_BROWSER_DEBUG".to_string())
    );
}
