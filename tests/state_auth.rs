//! Saved state and the credential vault, black-box against real Chromium and the fixture's
//! password-checking login (`/signin.html`): `state save|load` restores a login, `--restore`
//! saves on close and restores in a new session (and says when the restored login no longer
//! holds), encrypted files are private and useless without their key, expired files are refused,
//! and a password read from stdin never shows up in output, replies or the debug log.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use abx_fixtures::signin::PASSWORD;
use abx_tests::cli::{Cli, Output};

mod common;
use common::site;

const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

/// Signs in on the fixture by hand.
fn sign_in(ab: &Cli, session: &str, site: &abx_fixtures::FixtureServer) {
    ab.run(&["--session", session, "open", &site.url("/signin.html")])
        .success();
    ab.run(&["--session", session, "fill", "#user", "ada"])
        .success();
    ab.run(&["--session", session, "fill", "#pass", PASSWORD])
        .success();
    ab.run(&["--session", session, "click", "#go"]).success();
    assert_eq!(
        ab.run(&["--session", session, "get", "text", "#status"])
            .success()
            .out(),
        "signed in as ada"
    );
}

fn status(ab: &Cli, session: &str, site: &abx_fixtures::FixtureServer) -> String {
    ab.run(&["--session", session, "open", &site.url("/signed-in")])
        .success();
    ab.run(&["--session", session, "get", "text", "#status"])
        .success()
        .out()
        .to_string()
}

fn run_with_stdin(ab: &Cli, args: &[&str], input: &str) -> Output {
    let mut child = ab
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
        took: std::time::Duration::ZERO,
    }
}

#[test]
fn state_save_and_load_restore_a_login_in_a_fresh_browser() {
    let site = site();
    let ab = Cli::new();
    sign_in(&ab, "a", &site);
    ab.run(&[
        "--session",
        "a",
        "eval",
        "localStorage.setItem('theme','dark'); 1",
    ])
    .success();
    let file = ab.home().join("login.json");
    let file = file.to_str().expect("path");
    let saved = ab.run(&["--session", "a", "state", "save", file]).success();
    assert_eq!(saved.out(), format!("✓ State saved to {file}"));
    assert_eq!(mode(std::path::Path::new(file)), 0o600);
    let text = std::fs::read_to_string(file).expect("state file");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON state file");
    assert!(json["cookies"].as_array().is_some_and(|c| !c.is_empty()));
    ab.run(&["--session", "a", "close"]).success();

    // A new session starts signed out; loading the file signs it in, storage included.
    assert_eq!(status(&ab, "b", &site), "not signed in");
    let loaded = ab
        .run(&["--session", "b", "--json", "state", "load", file])
        .success()
        .json();
    assert_eq!(loaded["data"]["loaded"], true);
    assert_eq!(status(&ab, "b", &site), "signed in as ada");
    assert_eq!(
        ab.run(&["--session", "b", "eval", "localStorage.getItem('theme')"])
            .success()
            .out(),
        "\"dark\""
    );
    ab.run(&["--session", "b", "close"]).success();

    // --state loads it at launch.
    let with_state = ab
        .run(&[
            "--session",
            "d",
            "--state",
            file,
            "open",
            &site.url("/signed-in"),
        ])
        .success();
    assert!(with_state.out().contains("Members"), "{with_state:?}");
    assert_eq!(
        ab.run(&["--session", "d", "get", "text", "#status"])
            .success()
            .out(),
        "signed in as ada"
    );
    ab.run(&["--session", "d", "close"]).success();

    // A missing --state file fails the launch with a clear error.
    let missing = ab
        .run(&[
            "--session",
            "e",
            "--state",
            "/nonexistent/s.json",
            "open",
            &site.url("/"),
        ])
        .failure();
    assert_eq!(missing.code, 1);
    assert!(
        missing
            .stderr
            .contains("State file not found: /nonexistent/s.json"),
        "{missing:?}"
    );
    ab.run(&["--session", "e", "close"]).success();
}

#[test]
fn state_load_leaves_the_tab_on_the_last_origins_root() {
    let site = site();
    let ab = Cli::new().session("landing");
    let file = ab.home().join("two-origins.json");
    let state = serde_json::json!({
        "cookies": [],
        "origins": [
            {"origin": site.origin(), "localStorage": [{"name": "a", "value": "1"}]},
            {"origin": site.url_on_host("localhost", "").trim_end_matches('/'),
             "localStorage": [{"name": "b", "value": "2"}]},
        ],
    });
    std::fs::write(&file, state.to_string()).expect("write state");
    ab.run(&["open", &site.url("/page1.html")]).success();
    ab.run(&["state", "load", file.to_str().expect("path")])
        .success();
    // As upstream: each origin's root is visited to write its storage, and the tab stays on the
    // last one (it does not go back to page1.html).
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url_on_host("localhost", "/")
    );
    assert_eq!(
        ab.run(&["eval", "localStorage.getItem('b')"])
            .success()
            .out(),
        "\"2\""
    );
    ab.run(&["close"]).success();
}

#[test]
fn encrypted_state_is_private_and_a_wrong_key_is_a_clear_error() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_ENCRYPTION_KEY", KEY);
    sign_in(&ab, "a", &site);
    let dir = ab.home().join("private");
    std::fs::create_dir(&dir).expect("dir");
    let file = dir.join("s.json");
    let file = file.to_str().expect("path");
    let json = ab
        .run(&["--session", "a", "--json", "state", "save", file])
        .success()
        .json();
    let written = format!("{file}.enc");
    assert_eq!(json["data"]["path"], written.as_str());
    assert_eq!(mode(std::path::Path::new(&written)), 0o600);
    let bytes = std::fs::read(&written).expect("encrypted file");
    assert!(
        !String::from_utf8_lossy(&bytes).contains("abx_signed_in"),
        "cookie name in clear"
    );
    ab.run(&["--session", "a", "close"]).success();

    // Without the key and with a wrong key: exit 1 and what went wrong, never garbage.
    let without = Cli::new();
    let out = without.run(&["state", "show", &written]).failure();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("requires AGENT_BROWSER_ENCRYPTION_KEY"),
        "{out:?}"
    );
    let wrong = Cli::new().env("AGENT_BROWSER_ENCRYPTION_KEY", &"f".repeat(64));
    let out = wrong.run(&["--json", "state", "show", &written]).failure();
    assert_eq!(out.code, 1);
    let err = out.json()["error"].as_str().unwrap_or_default().to_string();
    assert!(err.contains("is not the key it was saved with"), "{err}");
    let out = wrong.run(&["state", "load", &written]).failure();
    assert!(
        out.stderr.contains("is not the key it was saved with"),
        "{out:?}"
    );
    wrong.run(&["close"]).success();

    // The right key shows it and loads it.
    let shown = ab.run(&["state", "show", &written]).success();
    assert!(shown.out().contains("(encrypted)"), "{shown:?}");
    ab.run(&["--session", "b", "state", "load", &written])
        .success();
    assert_eq!(status(&ab, "b", &site), "signed in as ada");
    ab.run(&["--session", "b", "close"]).success();
}

#[test]
fn restore_saves_on_close_restores_in_a_new_session_and_says_when_the_login_is_gone() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_ENCRYPTION_KEY", KEY);
    sign_in(&ab, "one", &site);
    // Restore key given on the session's commands; saved at close.
    let closed = ab
        .run(&["--session", "one", "--restore", "app", "--json", "close"])
        .success()
        .json();
    assert_eq!(closed["data"]["saveStatus"], "saved", "{closed}");
    let sessions = ab.home().join(".agent-browser/sessions");
    assert_eq!(mode(&sessions), 0o700);
    let saved: Vec<_> = std::fs::read_dir(&sessions)
        .expect("sessions")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(saved, vec!["app-one.json.enc".to_string()]);
    assert_eq!(mode(&sessions.join("app-one.json.enc")), 0o600);

    // A new session with the key is signed in, and the check passes.
    let opened = ab
        .run(&[
            "--session",
            "two",
            "--restore",
            "app",
            "--restore-check-text",
            "signed in as ada",
            "--json",
            "open",
            &site.url("/signed-in"),
        ])
        .success()
        .json();
    assert_eq!(
        opened["data"]["lifecycle"]["restoreStatus"], "loaded",
        "{opened}"
    );
    assert!(opened.get("warning").is_none(), "{opened}");
    ab.run(&[
        "--session",
        "two",
        "--restore",
        "app",
        "--restore-save",
        "never",
        "close",
    ])
    .success();

    // The site logged everyone out (simulated by a check the page no longer meets): the reply
    // says so, and the stale state is not saved over.
    let stale = ab
        .run(&[
            "--session",
            "three",
            "--restore",
            "app",
            "--restore-check-text",
            "welcome back",
            "open",
            &site.url("/signed-in"),
        ])
        .success();
    assert!(stale.stderr.contains("does not hold"), "{stale:?}");
    assert!(stale.stderr.contains("--restore-check-text"), "{stale:?}");
    let closed = ab
        .run(&["--session", "three", "--restore", "app", "--json", "close"])
        .success()
        .json();
    assert_eq!(
        closed["data"]["saveStatus"], "skipped_restore_failed",
        "{closed}"
    );

    // state list shows it; state clear <key> deletes only that key's files.
    let listed = ab.run(&["state", "list"]).success();
    assert!(listed.out().contains("app-one.json.enc"), "{listed:?}");
    assert!(listed.out().contains("[encrypted]"), "{listed:?}");
    let cleared = ab
        .run(&["--json", "state", "clear", "app"])
        .success()
        .json();
    assert_eq!(cleared["data"]["deleted"], 1);
}

#[test]
fn expired_state_is_refused_and_cleaned() {
    let ab = Cli::new().env("AGENT_BROWSER_STATE_EXPIRE_DAYS", "3");
    let file = ab.home().join("old.json");
    std::fs::write(&file, r#"{"cookies":[],"origins":[]}"#).expect("write");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .expect("open")
        .set_modified(old)
        .expect("mtime");
    let out = ab
        .run(&["state", "load", file.to_str().expect("path")])
        .failure();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("older than AGENT_BROWSER_STATE_EXPIRE_DAYS=3"),
        "{out:?}"
    );
    // `state clean --older-than` removes old saved states from the sessions directory.
    let sessions = ab.home().join(".agent-browser/sessions");
    std::fs::create_dir_all(&sessions).expect("dir");
    let stale = sessions.join("app-x.json");
    std::fs::copy(&file, &stale).expect("copy");
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .expect("open")
        .set_modified(old)
        .expect("mtime");
    std::fs::write(sessions.join("fresh-x.json"), "{}").expect("write");
    let cleaned = ab
        .run(&["--json", "state", "clean", "--older-than", "5"])
        .success()
        .json();
    assert_eq!(cleaned["data"]["cleaned"], 1);
    assert!(!stale.exists() && sessions.join("fresh-x.json").exists());
    ab.run(&["close"]).success();
}

#[test]
fn auth_login_fills_the_form_and_the_password_never_shows() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_DEBUG", "1");
    let url = site.url("/signin.html");
    let saved = run_with_stdin(
        &ab,
        &[
            "auth",
            "save",
            "fx",
            "--url",
            &url,
            "--username",
            "ada",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert_eq!(saved.code, 0, "{saved:?}");
    assert_eq!(saved.stdout.trim(), "✓ Auth profile 'fx' saved");
    let vault = ab.home().join(".agent-browser/auth");
    assert_eq!(mode(&vault), 0o700);
    assert_eq!(mode(&vault.join("fx.json")), 0o600);
    assert!(
        !std::fs::read_to_string(vault.join("fx.json"))
            .expect("vault")
            .contains(PASSWORD)
    );

    let mut seen = vec![saved];
    seen.push(ab.run(&["auth", "list"]).success());
    seen.push(ab.run(&["--json", "auth", "show", "fx"]).success());
    let login = ab.run(&["auth", "login", "fx"]).success();
    assert_eq!(login.out(), "✓ Logged in as 'fx'");
    seen.push(login);
    seen.push(ab.run(&["--json", "auth", "login", "fx"]).success());
    assert_eq!(
        ab.run(&["get", "text", "#status"]).success().out(),
        "signed in as ada"
    );
    let log = std::fs::read_to_string(ab.file("log")).unwrap_or_default();
    for out in &seen {
        assert!(
            !out.stdout.contains(PASSWORD) && !out.stderr.contains(PASSWORD),
            "{out:?}"
        );
    }
    assert!(!log.contains(PASSWORD), "password in the debug log");

    // Bad input: unknown profile, invalid name, empty stdin.
    let missing = ab.run(&["auth", "login", "nope"]).failure();
    assert!(
        missing.stderr.contains("Auth profile 'nope' not found"),
        "{missing:?}"
    );
    assert_eq!(ab.run(&["auth", "show", "../x"]).failure().code, 1);
    let empty = run_with_stdin(
        &ab,
        &[
            "auth",
            "save",
            "e",
            "--url",
            &url,
            "--username",
            "ada",
            "--password-stdin",
        ],
        "",
    );
    assert_eq!(empty.code, 1, "{empty:?}");
    assert_eq!(
        ab.run(&["--json", "auth", "delete", "fx"]).success().json()["data"]["deleted"],
        true
    );
    ab.run(&["close"]).success();
}
