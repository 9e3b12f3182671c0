//! Global flags, environment truthiness and config-file precedence.

use std::path::Path;

use agent_browser::commands::CliError;
use agent_browser::flags::{self, Config, is_truthy, parse_idle_timeout, split_launch_args};
use agent_browser::host::MemoryHost;
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

fn requests(host: &MemoryHost, words: &[&str]) -> Vec<Value> {
    agent_browser::parse(&argv(words), host)
        .expect("parses")
        .requests()
}

#[test]
fn global_flags_are_recognised_anywhere_in_argv() {
    let h = host();
    for words in [
        &["--json", "--session", "s1", "click", "@e1"][..],
        &["click", "--json", "@e1", "--session", "s1"],
        &["click", "@e1", "--session", "s1", "--json"],
    ] {
        let inv = agent_browser::parse(&argv(words), &h).expect("parses");
        assert!(inv.output.json, "{words:?}: --json not seen");
        assert_eq!(inv.session, "s1", "{words:?}");
        assert_eq!(
            inv.requests(),
            vec![json!({"action": "click", "selector": "@e1", "plugins": []})],
            "{words:?}"
        );
    }
}

#[test]
fn value_flags_consume_the_next_token_even_if_it_looks_like_a_flag() {
    let parsed = flags::parse_flags(&argv(&["--args", "--no-sandbox", "get", "url"]), &host())
        .expect("parses");
    assert_eq!(parsed.flags.args.as_deref(), Some("--no-sandbox"));
    assert_eq!(parsed.clean, argv(&["get", "url"]));
}

#[test]
fn boolean_flags_take_an_optional_true_or_false() {
    let h = host();
    let parsed =
        flags::parse_flags(&argv(&["--headed", "false", "open", "x.test"]), &h).expect("parses");
    assert!(!parsed.flags.headed);
    assert!(parsed.flags.cli_headed);
    assert_eq!(
        parsed.clean,
        argv(&["open", "x.test"]),
        "`false` must be consumed"
    );

    let parsed = flags::parse_flags(&argv(&["--headed", "open", "x.test"]), &h).expect("parses");
    assert!(parsed.flags.headed);
    assert_eq!(parsed.clean, argv(&["open", "x.test"]));

    let parsed =
        flags::parse_flags(&argv(&["open", "x.test", "--json", "true"]), &h).expect("parses");
    assert!(parsed.flags.json);
    assert_eq!(parsed.clean, argv(&["open", "x.test"]));

    // `--headed false` is still a launch setting given on this invocation: the launch says headless.
    assert_eq!(
        requests(&h, &["--headed", "false", "open", "x.test"]),
        vec![
            json!({"action": "launch", "headless": true, "noXvfb": false, "plugins": []}),
            json!({"action": "navigate", "url": "https://x.test", "plugins": []}),
        ]
    );
}

#[test]
fn args_split_on_newlines_and_on_commas_only_before_another_flag() {
    let table: &[(&str, &[&str])] = &[
        (
            "--no-sandbox,--window-size=800,600",
            &["--no-sandbox", "--window-size=800,600"],
        ),
        ("--a\n--b", &["--a", "--b"]),
        ("--a, --b", &["--a", "--b"]),
        ("--lang=en,fr,de", &["--lang=en,fr,de"]),
        ("--x=1,2\n--y=3,4", &["--x=1,2", "--y=3,4"]),
        (" --a ,, --b ", &["--a", "--b"]),
        ("", &[]),
    ];
    for (raw, want) in table {
        assert_eq!(split_launch_args(raw), want.to_vec(), "{raw:?}");
    }
}

#[test]
fn env_truthiness_follows_the_cli_rule() {
    for off in ["", "0", "false", "FALSE", "no", "No"] {
        assert!(!is_truthy(off), "{off:?} should be off");
    }
    for on in ["1", "true", "yes", "on", "anything"] {
        assert!(is_truthy(on), "{on:?} should be on");
    }
    let h = host().with_var("AGENT_BROWSER_JSON", "0");
    assert!(
        !agent_browser::parse(&argv(&["back"]), &h)
            .expect("parses")
            .output
            .json
    );
    let h = host().with_var("AGENT_BROWSER_JSON", "yes");
    assert!(
        agent_browser::parse(&argv(&["back"]), &h)
            .expect("parses")
            .output
            .json
    );
}

#[test]
fn idle_timeouts_accept_lowercase_units_and_raw_ms() {
    assert_eq!(parse_idle_timeout("10s").as_deref(), Ok("10000"));
    assert_eq!(parse_idle_timeout("3m").as_deref(), Ok("180000"));
    assert_eq!(parse_idle_timeout("1h").as_deref(), Ok("3600000"));
    assert_eq!(parse_idle_timeout("2500").as_deref(), Ok("2500"));
    assert!(parse_idle_timeout("10M").is_err());
    assert!(parse_idle_timeout("soon").is_err());
    let parsed =
        flags::parse_flags(&argv(&["--idle-timeout", "nope", "back"]), &host()).expect("parses");
    assert_eq!(parsed.flags.idle_timeout, None);
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.starts_with("Invalid --idle-timeout"))
    );
}

#[test]
fn config_is_overridden_by_env_which_is_overridden_by_flags() {
    let user = Path::new("/home/u/.agent-browser/config.json");
    let h = host().with_file(user, r#"{"userAgent": "from-config", "headed": true}"#);
    let f = flags::parse_flags(&argv(&["back"]), &h)
        .expect("parses")
        .flags;
    assert_eq!(f.user_agent.as_deref(), Some("from-config"));
    assert!(f.headed);

    let h = h
        .with_var("AGENT_BROWSER_USER_AGENT", "from-env")
        .with_var("AGENT_BROWSER_HEADED", "0");
    let f = flags::parse_flags(&argv(&["back"]), &h)
        .expect("parses")
        .flags;
    assert_eq!(f.user_agent.as_deref(), Some("from-env"));
    assert!(f.headed, "an env 0 cannot turn off a config true");

    let f = flags::parse_flags(
        &argv(&["--user-agent", "from-flag", "--headed", "false", "back"]),
        &h,
    )
    .expect("parses")
    .flags;
    assert_eq!(f.user_agent.as_deref(), Some("from-flag"));
    assert!(!f.headed, "only the flag can turn it off");
}

#[test]
fn hide_scrollbars_env_beats_config_in_both_directions() {
    let user = Path::new("/home/u/.agent-browser/config.json");
    let h = host()
        .with_file(user, r#"{"hideScrollbars": true}"#)
        .with_var("AGENT_BROWSER_HIDE_SCROLLBARS", "0");
    assert!(
        !flags::parse_flags(&argv(&["back"]), &h)
            .expect("parses")
            .flags
            .hide_scrollbars
    );
    let h = host()
        .with_file(user, r#"{"hideScrollbars": false}"#)
        .with_var("AGENT_BROWSER_HIDE_SCROLLBARS", "1");
    assert!(
        flags::parse_flags(&argv(&["back"]), &h)
            .expect("parses")
            .flags
            .hide_scrollbars
    );
}

#[test]
fn project_config_only_honours_the_restricted_keys() {
    let project = Path::new("/proj/agent-browser.json");
    let h = host().with_file(
        project,
        r#"{"$schema": "x", "userAgent": "P", "proxy": "http://evil:1", "executablePath": "/bin/evil"}"#,
    );
    let parsed = flags::parse_flags(&argv(&["back"]), &h).expect("parses");
    assert_eq!(parsed.flags.user_agent.as_deref(), Some("P"));
    assert_eq!(parsed.flags.proxy, None);
    assert_eq!(parsed.flags.executable_path, None);
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    let w = &parsed.warnings[0];
    assert!(
        w.contains("\"proxy\"") && w.contains("\"executablePath\""),
        "{w}"
    );
    assert!(!w.contains("$schema"), "{w}");
}

#[test]
fn project_config_overrides_user_config_for_allowed_keys() {
    let h = host()
        .with_file(
            Path::new("/home/u/.agent-browser/config.json"),
            r#"{"userAgent": "U", "proxy": "http://u:1"}"#,
        )
        .with_file(
            Path::new("/proj/agent-browser.json"),
            r#"{"userAgent": "P"}"#,
        );
    let f = flags::parse_flags(&argv(&["back"]), &h)
        .expect("parses")
        .flags;
    assert_eq!(f.user_agent.as_deref(), Some("P"));
    assert_eq!(f.proxy.as_deref(), Some("http://u:1"));
}

#[test]
fn merged_configs_concatenate_lists_and_override_scalars() {
    let user = Config {
        extensions: Some(vec!["/a".into()]),
        user_agent: Some("U".into()),
        ..Config::default()
    };
    let project = Config {
        extensions: Some(vec!["/b".into()]),
        user_agent: Some("P".into()),
        ..Config::default()
    };
    let merged = user.merge(project);
    assert_eq!(
        merged.extensions,
        Some(vec!["/a".to_string(), "/b".to_string()])
    );
    assert_eq!(merged.user_agent.as_deref(), Some("P"));
}

#[test]
fn an_invalid_discovered_config_warns_and_is_skipped() {
    let h = host().with_file(Path::new("/home/u/.agent-browser/config.json"), "{not json");
    let parsed = flags::parse_flags(&argv(&["back"]), &h).expect("parses");
    assert_eq!(parsed.warnings.len(), 1);
    assert!(
        parsed.warnings[0].starts_with("invalid config file /home/u/.agent-browser/config.json: "),
        "{}",
        parsed.warnings[0]
    );
}

#[test]
fn an_explicit_config_pins_one_file_and_must_exist() {
    let h = host()
        .with_file(
            Path::new("/home/u/.agent-browser/config.json"),
            r#"{"userAgent": "U"}"#,
        )
        .with_file(Path::new("/proj/custom.json"), r#"{"proxy": "http://c:1"}"#);
    let f = flags::parse_flags(&argv(&["--config", "custom.json", "back"]), &h)
        .expect("parses")
        .flags;
    assert_eq!(f.proxy.as_deref(), Some("http://c:1"));
    assert_eq!(f.user_agent, None, "user config is not read with --config");

    let h2 = h
        .clone()
        .with_var("AGENT_BROWSER_CONFIG", "/proj/custom.json");
    let f = flags::parse_flags(&argv(&["back"]), &h2)
        .expect("parses")
        .flags;
    assert_eq!(f.proxy.as_deref(), Some("http://c:1"));
    assert_eq!(f.user_agent, None);

    let failure = agent_browser::parse(&argv(&["--config", "./nope.json", "back"]), &h)
        .expect_err("missing file");
    assert_eq!(
        failure.error,
        CliError::Config("config file not found: ./nope.json".into())
    );
    let r = failure.render();
    assert_eq!(r.stderr, "⚠ config file not found: ./nope.json\n");
    assert_eq!(r.stdout, "");
    assert_eq!(r.exit_code, 1);

    let bad = host().with_file(Path::new("/proj/bad.json"), "[");
    let r = agent_browser::parse(&argv(&["--config", "bad.json", "back"]), &bad)
        .expect_err("invalid file")
        .render();
    assert!(
        r.stderr.starts_with("⚠ invalid config file bad.json: "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .ends_with("⚠ failed to load config from bad.json\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn restore_takes_a_name_only_before_the_command_word() {
    let h = host();
    let key = |words: &[&str]| requests(&h, words)[0]["restoreKey"].clone();
    assert_eq!(key(&["--restore", "get", "url"]), json!("fake"));
    assert_eq!(key(&["--restore", "mykey", "get", "url"]), json!("mykey"));
    assert_eq!(key(&["get", "url", "--restore"]), json!("fake"));
    assert_eq!(key(&["--restore=abc", "get", "url"]), json!("abc"));
    assert_eq!(key(&["--restore", "--json", "get", "url"]), json!("fake"));
    let r = requests(&h, &["--restore", "open", "x.test"]);
    assert_eq!(r[0]["restoreKey"], json!("fake"));
    assert_eq!(r[0]["url"], json!("https://x.test"));
}

#[test]
fn wait_state_is_waits_own_option_not_the_global_state_file() {
    assert_eq!(
        requests(&host(), &["wait", "#x", "--state", "hidden"]),
        vec![json!({"action": "wait", "selector": "#x", "state": "hidden", "plugins": []})]
    );
    // Before the command word it is still the storage-state flag.
    let r = requests(&host(), &["--state", "/tmp/s.json", "wait", "#x"]);
    assert_eq!(r[0]["storageState"], json!("/tmp/s.json"));
}

#[test]
fn env_launch_settings_put_a_launch_before_every_command() {
    let h = host().with_var("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium");
    let r = requests(&h, &["get", "title"]);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["action"], json!("launch"));
    assert_eq!(r[0]["executablePath"], json!("/usr/bin/chromium"));
    assert_eq!(
        r[0].get("headless"),
        None,
        "headless only when headed is set"
    );
    let h = h.with_var("AGENT_BROWSER_NO_XVFB", "1");
    assert_eq!(requests(&h, &["get", "title"])[0]["noXvfb"], json!(true));
}

#[test]
fn proxy_falls_back_to_standard_variables() {
    let h = host()
        .with_var("HTTPS_PROXY", "http://p:3128")
        .with_var("NO_PROXY", "localhost");
    let r = requests(&h, &["back"]);
    assert_eq!(
        r[0]["proxy"],
        json!({"server": "http://p:3128", "bypass": "localhost"})
    );
}
