//! Socket directory resolution, namespaces, session names and the socket path limit.

use std::path::{Path, PathBuf};

use agent_browser::commands::CliError;
use agent_browser::host::MemoryHost;
use agent_browser::session::{
    base_socket_dir, checked_socket_path, is_valid_session_name, namespaced_dir,
    sanitize_component, session_id, socket_dir, windows_port,
};

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(ToString::to_string).collect()
}

#[test]
fn socket_dir_precedence() {
    let h = MemoryHost::new()
        .with_home(Some(Path::new("/home/u")))
        .with_temp_dir(Path::new("/tmp"));
    assert_eq!(base_socket_dir(&h), PathBuf::from("/home/u/.agent-browser"));
    let h2 = h.clone().with_var("XDG_RUNTIME_DIR", "/run/user/1000");
    assert_eq!(
        base_socket_dir(&h2),
        PathBuf::from("/run/user/1000/agent-browser")
    );
    let h3 = h2.clone().with_var("AGENT_BROWSER_SOCKET_DIR", "/s");
    assert_eq!(base_socket_dir(&h3), PathBuf::from("/s"));
    let empty = h2.with_var("AGENT_BROWSER_SOCKET_DIR", "");
    assert_eq!(
        base_socket_dir(&empty),
        PathBuf::from("/run/user/1000/agent-browser"),
        "empty = unset"
    );
    let empty_xdg = h.with_var("XDG_RUNTIME_DIR", "");
    assert_eq!(
        base_socket_dir(&empty_xdg),
        PathBuf::from("/home/u/.agent-browser")
    );
    let homeless = MemoryHost::new()
        .with_home(None)
        .with_temp_dir(Path::new("/tmp"));
    assert_eq!(
        base_socket_dir(&homeless),
        PathBuf::from("/tmp/agent-browser")
    );
}

#[test]
fn namespaces_live_under_namespaces_ns_run() {
    let base = Path::new("/s");
    assert_eq!(
        namespaced_dir(base, Some("Worktree: One")),
        PathBuf::from("/s/namespaces/worktree-one/run")
    );
    assert_eq!(
        namespaced_dir(base, Some("!!!")),
        PathBuf::from("/s"),
        "sanitizes to nothing"
    );
    assert_eq!(namespaced_dir(base, None), PathBuf::from("/s"));

    let h = MemoryHost::new().with_var("AGENT_BROWSER_SOCKET_DIR", "/s");
    let inv = agent_browser::parse(&argv(&["--namespace", "Team A", "back"]), &h).expect("parses");
    assert_eq!(inv.socket_dir, PathBuf::from("/s/namespaces/team-a/run"));
    let h = h.with_var("AGENT_BROWSER_NAMESPACE", "env_ns");
    assert_eq!(
        socket_dir(&h, Some("env_ns")),
        PathBuf::from("/s/namespaces/env_ns/run")
    );
    let inv = agent_browser::parse(&argv(&["back"]), &h).expect("parses");
    assert_eq!(inv.socket_dir, PathBuf::from("/s/namespaces/env_ns/run"));
}

#[test]
fn sanitizer_collapses_separators_and_lowercases() {
    let table = [
        ("Worktree: One", "worktree-one"),
        (
            "Next Dev Loop: /Users/me/worktree!",
            "next-dev-loop-users-me-worktree",
        ),
        (" --Agent__ ", "agent"),
        ("a__b--c", "a_b-c"),
        ("ÄBC déf", "äbc-déf"),
        ("", ""),
    ];
    for (input, want) in table {
        assert_eq!(sanitize_component(input), want, "{input:?}");
    }
}

#[test]
fn socket_paths_over_103_bytes_are_refused_with_upstreams_message() {
    let dir = Path::new("/tmp/sockets");
    assert_eq!(
        checked_socket_path(dir, "default"),
        Ok(PathBuf::from("/tmp/sockets/default.sock"))
    );
    // "/tmp/sockets/" is 13 bytes and ".sock" 5: a 85-byte name makes exactly 103.
    let fits = "a".repeat(85);
    assert!(checked_socket_path(dir, &fits).is_ok());
    let long = "a".repeat(86);
    assert_eq!(
        checked_socket_path(dir, &long),
        Err(format!(
            "Session name '{long}' is too long. Socket path would be 104 bytes (max 103).\nUse a shorter session name or set AGENT_BROWSER_SOCKET_DIR to a shorter path."
        ))
    );
    let h = MemoryHost::new().with_var("AGENT_BROWSER_SOCKET_DIR", "/tmp/sockets");
    let inv = agent_browser::parse(&argv(&["--session", &long, "back"]), &h).expect("parses");
    assert!(inv.socket_path().is_err());
}

#[test]
fn session_names_allow_unicode_letters_digits_dash_underscore() {
    for ok in ["default", "my_sess-1", "café", "会话"] {
        assert!(is_valid_session_name(ok), "{ok}");
    }
    for bad in ["", "a b", "../x", "a/b", "a.b"] {
        assert!(!is_valid_session_name(bad), "{bad}");
    }
    let h = MemoryHost::new();
    let failure = agent_browser::parse(&argv(&["--session", "../x", "--json", "back"]), &h)
        .expect_err("invalid session");
    assert_eq!(
        failure.error,
        CliError::Rejected {
            message: "Invalid session name '../x'. Only alphanumeric characters, hyphens, and underscores are allowed. Source: --session.".into(),
            kind: Some("invalid_session_name"),
        }
    );
    assert_eq!(
        failure.render().stdout,
        "{\"error\":\"Invalid session name '../x'. Only alphanumeric characters, hyphens, and underscores are allowed. Source: --session.\",\"success\":false,\"type\":\"invalid_session_name\"}\n"
    );
    let text = agent_browser::parse(&argv(&["--session", "a b", "back"]), &h)
        .expect_err("invalid session")
        .render();
    assert_eq!(
        text.stderr,
        "✗ Invalid session name 'a b'. Only alphanumeric characters, hyphens, and underscores are allowed. Source: --session.\n"
    );
}

#[test]
fn restore_keys_are_validated_like_session_names() {
    let h = MemoryHost::new();
    let failure =
        agent_browser::parse(&argv(&["--restore=a.b", "back"]), &h).expect_err("invalid key");
    assert!(matches!(
        failure.error,
        CliError::Rejected {
            kind: Some("invalid_session_name"),
            ..
        }
    ));
    let failure = agent_browser::parse(
        &argv(&["--restore", "--restore-save", "sometimes", "back"]),
        &h,
    )
    .expect_err("invalid policy");
    assert_eq!(
        failure.error,
        CliError::Rejected {
            message: "Invalid --restore-save value 'sometimes'. Use auto, always, or never.".into(),
            kind: Some("invalid_value"),
        }
    );
}

#[test]
fn session_id_is_prefix_and_twelve_hex_of_the_path_hash() {
    assert_eq!(
        session_id("/work/project", None),
        ("65d80d2c48b3".to_string(), "65d80d2c48b3".to_string())
    );
    assert_eq!(
        session_id("/work/project", Some("My App")).0,
        "my-app-65d80d2c48b3"
    );
    assert_eq!(session_id("/work/project", Some("!!")).0, "65d80d2c48b3");
}

#[test]
fn windows_ports_match_upstreams_hash() {
    assert_eq!(windows_port("default", None), 50838);
    assert_eq!(windows_port("my-session", None), 63105);
    assert_eq!(windows_port("work", None), 51184);
    assert_eq!(windows_port("", None), 49152);
}

#[test]
fn session_command_refuses_an_invalid_name_and_says_where_it_came_from() {
    // Upstream checks the name for `session` too (not only for daemon commands) and names the
    // source; ours printed the bad name and exited 0.
    let flag = agent_browser::parse(
        &argv(&["--session", "bad name", "session"]),
        &MemoryHost::new(),
    )
    .expect_err("invalid session from the flag");
    assert_eq!(
        flag.render().stderr,
        "✗ Invalid session name 'bad name'. Only alphanumeric characters, hyphens, and underscores are allowed. Source: --session.\n"
    );
    let from_env = MemoryHost::new().with_var("AGENT_BROWSER_SESSION", "x/y");
    let env = agent_browser::parse(&argv(&["get", "url"]), &from_env)
        .expect_err("invalid session from the environment");
    assert_eq!(
        env.error,
        CliError::Rejected {
            message: "Invalid session name 'x/y'. Only alphanumeric characters, hyphens, and underscores are allowed. Source: AGENT_BROWSER_SESSION.".into(),
            kind: Some("invalid_session_name"),
        }
    );
    assert!(
        agent_browser::parse(&argv(&["--session", "ok-1", "session"]), &MemoryHost::new()).is_ok()
    );
}
