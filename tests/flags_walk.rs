//! Walks every global flag and `AGENT_BROWSER_*` variable upstream 0.41.2 documents (its
//! `--help` and README) and checks that each one either changes something observable or is
//! refused with exit 1 — a flag that reaches abx and does nothing is the bug this guards.
//!
//! One table row per name. `How::Run` says how the effect is observed: the invocations to run
//! (`{site}` is the fixture origin, `{home}` the test's HOME, `{args}` the machine's Chrome
//! arguments, `{fixtures}` the fixtures dir) and what the last one must show. `How::Check` is a
//! function for an effect a list of invocations cannot show (a daemon that exits, a handshake
//! header, a frame's size). `How::Inert` is a variable that truly has nothing to act on here,
//! with the reason. There is no "pending" kind any more: every row is observed, refused or inert.

use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::wait_until;

mod common;
use common::site;

/// What the last invocation must show.
enum Expect {
    /// Exit 0 and stdout contains this.
    Stdout(&'static str),
    /// Exit 0 and stdout does not contain this.
    StdoutLacks(&'static str),
    /// Exit 0 and stderr contains this (a warning).
    Stderr(&'static str),
    /// Exit 1 and stderr contains this.
    Refused(&'static str),
    /// This file exists afterwards.
    File(&'static str),
    /// This file exists afterwards and contains the text.
    FileHas(&'static str, &'static str),
}

enum How {
    Run {
        env: &'static [(&'static str, &'static str)],
        setup: Option<fn(&std::path::Path)>,
        steps: &'static [&'static [&'static str]],
        expect: Expect,
    },
    /// A check of its own against the fixture origin: `Err` says what was seen instead.
    Check(fn(&str) -> Result<(), String>),
    /// Nothing here to act on, for the reason given (upstream reads it only in a mode abx
    /// refuses, or asks for what abx always does).
    Inert(&'static str),
}

use Expect::*;
use How::*;

const fn run(steps: &'static [&'static [&'static str]], expect: Expect) -> How {
    Run {
        env: &[],
        setup: None,
        steps,
        expect,
    }
}

const fn run_env(
    env: &'static [(&'static str, &'static str)],
    steps: &'static [&'static [&'static str]],
    expect: Expect,
) -> How {
    Run {
        env,
        setup: None,
        steps,
        expect,
    }
}

/// A saved restore state for key `k`, for the restore-check rows.
fn saved_restore_state(home: &std::path::Path) {
    let dir = home.join(".agent-browser/sessions");
    std::fs::create_dir_all(&dir).expect("sessions dir");
    std::fs::write(dir.join("k-old.json"), r#"{"cookies":[],"origins":[]}"#).expect("state");
}

/// A config file that turns on JSON output.
fn config_file(home: &std::path::Path) {
    std::fs::write(home.join("c.json"), r#"{"json":true}"#).expect("config");
}

/// A policy that denies `evaluate`.
fn deny_policy(home: &std::path::Path) {
    std::fs::write(home.join("p.json"), r#"{"deny":["evaluate"]}"#).expect("policy");
}

/// An init script file.
fn init_script_file(home: &std::path::Path) {
    std::fs::write(home.join("init.js"), "window.__fromFile = 'init file';").expect("init script");
}

/// A download directory.
fn download_dir(home: &std::path::Path) {
    std::fs::create_dir_all(home.join("dl")).expect("download dir");
}

/// A config file that pins the tab.
fn pin_tab_config(home: &std::path::Path) {
    std::fs::write(home.join("c.json"), r#"{"pinTab":true}"#).expect("config");
}

/// A state file ten days old.
fn old_state(home: &std::path::Path) {
    let file = home.join("old.json");
    std::fs::write(&file, r#"{"cookies":[],"origins":[]}"#).expect("state");
    let old = std::time::SystemTime::now() - Duration::from_secs(10 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .expect("open")
        .set_modified(old)
        .expect("mtime");
}

const PAGE: &str = "{site}/page1.html";
/// chrome://version lists Chrome's command line in the full browser only (not the headless shell).
const FULL_CHROME: &[(&str, &str)] = &[("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium")];
const VERSION_WAIT: &[&str] = &["wait", "#command_line"];
const VERSION_PAGE: &[&str] = &["get", "text", "#command_line"];
const DARK: &str = "matchMedia('(prefers-color-scheme: dark)').matches";
const EXTENSION_MARK: &str = "document.documentElement.dataset.abxExtension";
const RESET_COUNTS: &str = "for (const k in window.__counts) window.__counts[k] = 0";

/// Every documented global flag and variable, and how its effect is seen.
const TABLE: &[(&str, How)] = &[
    // Output and session selection (no browser needed).
    (
        "--json",
        run(&[&["--json", "session"]], Stdout(r#""success":true"#)),
    ),
    (
        "AGENT_BROWSER_JSON",
        run_env(
            &[("AGENT_BROWSER_JSON", "1")],
            &[&["session"]],
            Stdout(r#""success":true"#),
        ),
    ),
    (
        "--session",
        run(&[&["--session", "zz", "session"]], Stdout("zz")),
    ),
    (
        "AGENT_BROWSER_SESSION",
        run_env(
            &[("AGENT_BROWSER_SESSION", "zz")],
            &[&["session"]],
            Stdout("zz"),
        ),
    ),
    (
        "--namespace",
        run(
            &[&["--namespace", "ns1", "state", "list"]],
            Stdout("namespaces/ns1/state/sessions"),
        ),
    ),
    (
        "AGENT_BROWSER_NAMESPACE",
        run_env(
            &[("AGENT_BROWSER_NAMESPACE", "ns1")],
            &[&["state", "list"]],
            Stdout("namespaces/ns1/state/sessions"),
        ),
    ),
    (
        "--config",
        Run {
            env: &[],
            setup: Some(config_file),
            steps: &[&["--config", "{home}/c.json", "session"]],
            expect: Stdout(r#""success":true"#),
        },
    ),
    (
        "AGENT_BROWSER_CONFIG",
        Run {
            env: &[("AGENT_BROWSER_CONFIG", "{home}/c.json")],
            setup: Some(config_file),
            steps: &[&["session"]],
            expect: Stdout(r#""success":true"#),
        },
    ),
    (
        "--debug",
        run(&[&["--debug", "open", PAGE]], File("{home}/s/t.log")),
    ),
    (
        "AGENT_BROWSER_DEBUG",
        run_env(
            &[("AGENT_BROWSER_DEBUG", "1")],
            &[&["open", PAGE]],
            File("{home}/s/t.log"),
        ),
    ),
    // Page text.
    (
        "--max-output",
        run(
            &[
                &["open", PAGE],
                &["--max-output", "5", "get", "text", "body"],
            ],
            Stdout("[truncated"),
        ),
    ),
    (
        "AGENT_BROWSER_MAX_OUTPUT",
        run_env(
            &[("AGENT_BROWSER_MAX_OUTPUT", "5")],
            &[&["open", PAGE], &["get", "text", "body"]],
            Stdout("[truncated"),
        ),
    ),
    (
        "--content-boundaries",
        run(
            &[
                &["open", PAGE],
                &["--content-boundaries", "get", "text", "h1"],
            ],
            Stdout("AGENT_BROWSER_PAGE_CONTENT"),
        ),
    ),
    (
        "AGENT_BROWSER_CONTENT_BOUNDARIES",
        run_env(
            &[("AGENT_BROWSER_CONTENT_BOUNDARIES", "1")],
            &[&["open", PAGE], &["get", "text", "h1"]],
            Stdout("AGENT_BROWSER_PAGE_CONTENT"),
        ),
    ),
    // Screenshots.
    (
        "--annotate",
        run(
            &[&["open", PAGE], &["--annotate", "screenshot"]],
            Stdout("[1] @e1"),
        ),
    ),
    (
        "AGENT_BROWSER_ANNOTATE",
        run_env(
            &[("AGENT_BROWSER_ANNOTATE", "1")],
            &[&["open", PAGE], &["screenshot"]],
            Stdout("[1] @e1"),
        ),
    ),
    (
        "--screenshot-dir",
        run(
            &[
                &["open", PAGE],
                &["--screenshot-dir", "{home}/shots", "screenshot"],
            ],
            Stdout("/shots/screenshot-"),
        ),
    ),
    (
        "AGENT_BROWSER_SCREENSHOT_DIR",
        run_env(
            &[("AGENT_BROWSER_SCREENSHOT_DIR", "{home}/shots")],
            &[&["open", PAGE], &["screenshot"]],
            Stdout("/shots/screenshot-"),
        ),
    ),
    (
        "--screenshot-format",
        run(
            &[
                &["open", PAGE],
                &["--screenshot-format", "jpeg", "screenshot"],
            ],
            Stdout(".jpg"),
        ),
    ),
    (
        "AGENT_BROWSER_SCREENSHOT_FORMAT",
        run_env(
            &[("AGENT_BROWSER_SCREENSHOT_FORMAT", "jpeg")],
            &[&["open", PAGE], &["screenshot"]],
            Stdout(".jpg"),
        ),
    ),
    (
        "--screenshot-quality",
        run(
            &[
                &["open", PAGE],
                &[
                    "--screenshot-format",
                    "jpeg",
                    "--screenshot-quality",
                    "101",
                    "screenshot",
                ],
            ],
            Stderr("--screenshot-quality must be 0-100"),
        ),
    ),
    (
        "AGENT_BROWSER_SCREENSHOT_QUALITY",
        Check(screenshot_quality_env),
    ),
    // Launch settings, seen in Chrome's own command line (chrome://version) or the page.
    (
        "--user-agent",
        run(
            &[
                &["--user-agent", "FlagUA/1", "open", PAGE],
                &["eval", "navigator.userAgent"],
            ],
            Stdout("FlagUA/1"),
        ),
    ),
    (
        "AGENT_BROWSER_USER_AGENT",
        run_env(
            &[("AGENT_BROWSER_USER_AGENT", "EnvUA/1")],
            &[&["open", PAGE], &["eval", "navigator.userAgent"]],
            Stdout("EnvUA/1"),
        ),
    ),
    (
        // `--args` wins over AGENT_BROWSER_ARGS for its invocation; a later command without it
        // relaunches with the variable's args again (upstream does the same: the variable is a
        // launch setting of every command), so the flag rides on the command that looks.
        "--args",
        run(
            &[
                &["--args", "{args},--user-agent=ArgsUA/1", "open", PAGE],
                &[
                    "--args",
                    "{args},--user-agent=ArgsUA/1",
                    "eval",
                    "navigator.userAgent",
                ],
            ],
            Stdout("ArgsUA/1"),
        ),
    ),
    (
        "AGENT_BROWSER_ARGS",
        run_env(
            &[("AGENT_BROWSER_ARGS", "{args},--user-agent=EnvArgsUA/1")],
            &[&["open", PAGE], &["eval", "navigator.userAgent"]],
            Stdout("EnvArgsUA/1"),
        ),
    ),
    (
        "--headed",
        run(
            &[
                &["--headed", "open", PAGE],
                &["eval", "navigator.userAgent"],
            ],
            StdoutLacks("Headless"),
        ),
    ),
    (
        "AGENT_BROWSER_HEADED",
        run_env(
            &[("AGENT_BROWSER_HEADED", "1")],
            &[&["open", PAGE], &["eval", "navigator.userAgent"]],
            StdoutLacks("Headless"),
        ),
    ),
    (
        "--allow-file-access",
        run_env(
            FULL_CHROME,
            &[
                &["--allow-file-access", "open", "chrome://version"],
                VERSION_WAIT,
                VERSION_PAGE,
            ],
            Stdout("--allow-file-access-from-files"),
        ),
    ),
    (
        "AGENT_BROWSER_ALLOW_FILE_ACCESS",
        run_env(
            &[
                ("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium"),
                ("AGENT_BROWSER_ALLOW_FILE_ACCESS", "1"),
            ],
            &[&["open", "chrome://version"], VERSION_WAIT, VERSION_PAGE],
            Stdout("--allow-file-access-from-files"),
        ),
    ),
    (
        "--ignore-https-errors",
        run_env(
            FULL_CHROME,
            &[
                &["--ignore-https-errors", "open", "chrome://version"],
                VERSION_WAIT,
                VERSION_PAGE,
            ],
            Stdout("--ignore-certificate-errors"),
        ),
    ),
    (
        "AGENT_BROWSER_IGNORE_HTTPS_ERRORS",
        run_env(
            &[
                ("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium"),
                ("AGENT_BROWSER_IGNORE_HTTPS_ERRORS", "1"),
            ],
            &[&["open", "chrome://version"], VERSION_WAIT, VERSION_PAGE],
            Stdout("--ignore-certificate-errors"),
        ),
    ),
    (
        "--hide-scrollbars",
        run_env(
            FULL_CHROME,
            &[
                &["--hide-scrollbars", "false", "open", "chrome://version"],
                VERSION_WAIT,
                VERSION_PAGE,
            ],
            StdoutLacks("--hide-scrollbars"),
        ),
    ),
    (
        "AGENT_BROWSER_HIDE_SCROLLBARS",
        run_env(
            &[
                ("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium"),
                ("AGENT_BROWSER_HIDE_SCROLLBARS", "0"),
            ],
            &[&["open", "chrome://version"], VERSION_WAIT, VERSION_PAGE],
            StdoutLacks("--hide-scrollbars"),
        ),
    ),
    (
        "--proxy",
        run(
            &[&[
                "--proxy",
                "http://127.0.0.1:9",
                "open",
                "http://example.invalid/",
            ]],
            Refused("ERR_PROXY_CONNECTION_FAILED"),
        ),
    ),
    (
        "AGENT_BROWSER_PROXY",
        run_env(
            &[("AGENT_BROWSER_PROXY", "http://127.0.0.1:9")],
            &[&["open", "http://example.invalid/"]],
            Refused("ERR_PROXY_CONNECTION_FAILED"),
        ),
    ),
    (
        "--proxy-bypass",
        run(
            &[&[
                "--proxy",
                "http://127.0.0.1:9",
                "--proxy-bypass",
                "127.0.0.1",
                "open",
                PAGE,
            ]],
            Stdout("Page One"),
        ),
    ),
    (
        "AGENT_BROWSER_PROXY_BYPASS",
        run_env(
            &[
                ("AGENT_BROWSER_PROXY", "http://127.0.0.1:9"),
                ("AGENT_BROWSER_PROXY_BYPASS", "127.0.0.1"),
            ],
            &[&["open", PAGE]],
            Stdout("Page One"),
        ),
    ),
    (
        "--profile",
        run(
            &[&["--profile", "{home}/prof", "open", PAGE]],
            File("{home}/prof/Default"),
        ),
    ),
    (
        "AGENT_BROWSER_PROFILE",
        run_env(
            &[("AGENT_BROWSER_PROFILE", "{home}/prof")],
            &[&["open", PAGE]],
            File("{home}/prof/Default"),
        ),
    ),
    (
        "--executable-path",
        run(
            &[&["--executable-path", "/nonexistent/chrome", "open", PAGE]],
            Refused("/nonexistent/chrome"),
        ),
    ),
    (
        "AGENT_BROWSER_EXECUTABLE_PATH",
        run_env(
            &[("AGENT_BROWSER_EXECUTABLE_PATH", "/nonexistent/chrome")],
            &[&["open", PAGE]],
            Refused("/nonexistent/chrome"),
        ),
    ),
    (
        "--allowed-domains",
        run(
            &[&["--allowed-domains", "example.com", "open", PAGE]],
            Refused("is not in the allowed domains list"),
        ),
    ),
    (
        "AGENT_BROWSER_ALLOWED_DOMAINS",
        run_env(
            &[("AGENT_BROWSER_ALLOWED_DOMAINS", "example.com")],
            &[&["open", PAGE]],
            Refused("is not in the allowed domains list"),
        ),
    ),
    ("--cdp", run(&[&["--cdp", "9", "open", PAGE]], Refused(""))),
    (
        "AGENT_BROWSER_CDP",
        run_env(
            &[("AGENT_BROWSER_CDP", "9")],
            &[&["open", PAGE]],
            Refused(""),
        ),
    ),
    (
        "--auto-connect",
        // No Chrome with remote debugging runs here: upstream's message.
        run(
            &[&["--auto-connect", "open", PAGE]],
            Refused("No running Chrome instance found"),
        ),
    ),
    (
        "AGENT_BROWSER_AUTO_CONNECT",
        run_env(
            &[("AGENT_BROWSER_AUTO_CONNECT", "1")],
            &[&["open", PAGE]],
            Refused("No running Chrome instance found"),
        ),
    ),
    (
        "--pin-tab",
        run(
            &[&["--pin-tab", "open", PAGE]],
            FileHas("{home}/s/t.target", r#""pinned":true"#),
        ),
    ),
    (
        "AGENT_BROWSER_PIN_TAB",
        run_env(
            &[("AGENT_BROWSER_PIN_TAB", "1")],
            &[&["open", PAGE]],
            FileHas("{home}/s/t.target", r#""pinned":true"#),
        ),
    ),
    (
        // Undoes `pinTab` from a config file.
        "--no-pin-tab",
        Run {
            env: &[("AGENT_BROWSER_CONFIG", "{home}/c.json")],
            setup: Some(pin_tab_config),
            steps: &[&["--no-pin-tab", "open", PAGE]],
            expect: FileHas("{home}/s/t.target", r#""pinned":false"#),
        },
    ),
    (
        "--no-auto-dialog",
        run(
            &[
                &["--no-auto-dialog", "open", PAGE],
                &["eval", "alert('hi')"],
                &["dialog", "status"],
            ],
            Stdout("alert"),
        ),
    ),
    (
        "AGENT_BROWSER_NO_AUTO_DIALOG",
        run_env(
            &[("AGENT_BROWSER_NO_AUTO_DIALOG", "1")],
            &[
                &["open", PAGE],
                &["eval", "alert('hi')"],
                &["dialog", "status"],
            ],
            Stdout("alert"),
        ),
    ),
    (
        "--idle-timeout",
        run(
            &[&["--idle-timeout", "bogus", "open", PAGE]],
            Stderr("Invalid --idle-timeout"),
        ),
    ),
    ("AGENT_BROWSER_IDLE_TIMEOUT_MS", Check(idle_timeout_env)),
    (
        "AGENT_BROWSER_DEFAULT_TIMEOUT",
        run_env(
            &[("AGENT_BROWSER_DEFAULT_TIMEOUT", "1500")],
            &[&["open", PAGE], &["wait", "#never-there"]],
            Refused("1500"),
        ),
    ),
    // State and logins (tests/state_auth.rs goes deeper).
    (
        "--state",
        run(
            &[&["--state", "/nonexistent/s.json", "open", PAGE]],
            Refused("State file not found"),
        ),
    ),
    (
        "AGENT_BROWSER_STATE",
        run_env(
            &[("AGENT_BROWSER_STATE", "/nonexistent/s.json")],
            &[&["open", PAGE]],
            Refused("State file not found"),
        ),
    ),
    (
        "--restore",
        run(
            &[
                &["--restore", "k", "open", PAGE],
                &["--restore", "k", "--json", "close"],
            ],
            Stdout(r#""saveStatus":"saved""#),
        ),
    ),
    (
        "AGENT_BROWSER_RESTORE",
        run_env(
            &[("AGENT_BROWSER_RESTORE", "k")],
            &[&["open", PAGE], &["--json", "close"]],
            Stdout(r#""saveStatus":"saved""#),
        ),
    ),
    (
        "--session-name",
        run(
            &[
                &["--session-name", "k", "open", PAGE],
                &["--session-name", "k", "--json", "close"],
            ],
            Stdout(r#""saveStatus":"saved""#),
        ),
    ),
    (
        "AGENT_BROWSER_SESSION_NAME",
        run_env(
            &[("AGENT_BROWSER_SESSION_NAME", "k")],
            &[&["open", PAGE], &["--json", "close"]],
            Stdout(r#""saveStatus":"saved""#),
        ),
    ),
    (
        "--restore-save",
        run(
            &[
                &["--restore", "k", "open", PAGE],
                &[
                    "--restore",
                    "k",
                    "--restore-save",
                    "never",
                    "--json",
                    "close",
                ],
            ],
            Stdout(r#""saveStatus":"disabled""#),
        ),
    ),
    (
        "AGENT_BROWSER_RESTORE_SAVE",
        run_env(
            &[("AGENT_BROWSER_RESTORE_SAVE", "bogus")],
            &[&["--restore", "k", "open", PAGE]],
            Refused("Invalid --restore-save"),
        ),
    ),
    (
        "--restore-check-url",
        Run {
            env: &[],
            setup: Some(saved_restore_state),
            steps: &[&[
                "--restore",
                "k",
                "--restore-check-url",
                "*nowhere*",
                "open",
                PAGE,
            ]],
            expect: Stderr("--restore-check-url"),
        },
    ),
    (
        "AGENT_BROWSER_RESTORE_CHECK_URL",
        Run {
            env: &[("AGENT_BROWSER_RESTORE_CHECK_URL", "*nowhere*")],
            setup: Some(saved_restore_state),
            steps: &[&["--restore", "k", "open", PAGE]],
            expect: Stderr("--restore-check-url"),
        },
    ),
    (
        "--restore-check-text",
        Run {
            env: &[],
            setup: Some(saved_restore_state),
            steps: &[&[
                "--restore",
                "k",
                "--restore-check-text",
                "not on the page",
                "open",
                PAGE,
            ]],
            expect: Stderr("--restore-check-text"),
        },
    ),
    (
        "AGENT_BROWSER_RESTORE_CHECK_TEXT",
        Run {
            env: &[("AGENT_BROWSER_RESTORE_CHECK_TEXT", "not on the page")],
            setup: Some(saved_restore_state),
            steps: &[&["--restore", "k", "open", PAGE]],
            expect: Stderr("--restore-check-text"),
        },
    ),
    (
        "--restore-check-fn",
        Run {
            env: &[],
            setup: Some(saved_restore_state),
            steps: &[&[
                "--restore",
                "k",
                "--restore-check-fn",
                "false",
                "open",
                PAGE,
            ]],
            expect: Stderr("--restore-check-fn"),
        },
    ),
    (
        "AGENT_BROWSER_RESTORE_CHECK_FN",
        Run {
            env: &[("AGENT_BROWSER_RESTORE_CHECK_FN", "false")],
            setup: Some(saved_restore_state),
            steps: &[&["--restore", "k", "open", PAGE]],
            expect: Stderr("--restore-check-fn"),
        },
    ),
    (
        "AGENT_BROWSER_ENCRYPTION_KEY",
        run_env(
            &[("AGENT_BROWSER_ENCRYPTION_KEY", "k")],
            &[&["open", PAGE], &["state", "save", "{home}/e.json"]],
            File("{home}/e.json.enc"),
        ),
    ),
    (
        "AGENT_BROWSER_STATE_EXPIRE_DAYS",
        Run {
            env: &[("AGENT_BROWSER_STATE_EXPIRE_DAYS", "3")],
            setup: Some(old_state),
            steps: &[&["state", "load", "{home}/old.json"]],
            expect: Refused("older than AGENT_BROWSER_STATE_EXPIRE_DAYS=3"),
        },
    ),
    // Policy and confirmations (tests/policy_flags.rs goes deeper).
    (
        "--action-policy",
        Run {
            env: &[],
            setup: Some(deny_policy),
            steps: &[&["--action-policy", "{home}/p.json", "eval", "1"]],
            expect: Refused("denied by policy"),
        },
    ),
    (
        "AGENT_BROWSER_ACTION_POLICY",
        Run {
            env: &[("AGENT_BROWSER_ACTION_POLICY", "{home}/p.json")],
            setup: Some(deny_policy),
            steps: &[&["eval", "1"]],
            expect: Refused("denied by policy"),
        },
    ),
    (
        "--confirm-actions",
        run(
            &[&["--confirm-actions", "evaluate", "eval", "1"]],
            Stdout("Confirmation required"),
        ),
    ),
    (
        "AGENT_BROWSER_CONFIRM_ACTIONS",
        run_env(
            &[("AGENT_BROWSER_CONFIRM_ACTIONS", "evaluate")],
            &[&["eval", "1"]],
            Stdout("Confirmation required"),
        ),
    ),
    (
        "--confirm-interactive",
        run(
            &[&[
                "--confirm-actions",
                "evaluate",
                "--confirm-interactive",
                "eval",
                "1",
            ]],
            Refused("Action denied"),
        ),
    ),
    (
        "AGENT_BROWSER_CONFIRM_INTERACTIVE",
        run_env(
            &[
                ("AGENT_BROWSER_CONFIRM_INTERACTIVE", "1"),
                ("AGENT_BROWSER_CONFIRM_ACTIONS", "evaluate"),
            ],
            &[&["eval", "1"]],
            Refused("Action denied"),
        ),
    ),
    // What cannot work here: refused before anything starts.
    (
        "-p",
        run(
            &[&["-p", "browserbase", "open", PAGE]],
            Refused("BROWSERBASE_API_KEY"),
        ),
    ),
    (
        "--provider",
        run(
            &[&["--provider", "kernel", "open", PAGE]],
            Refused("KERNEL_API_KEY"),
        ),
    ),
    (
        "AGENT_BROWSER_PROVIDER",
        run_env(
            &[("AGENT_BROWSER_PROVIDER", "browserbase")],
            &[&["open", PAGE]],
            Refused("BROWSERBASE_API_KEY"),
        ),
    ),
    (
        "--engine",
        run(
            &[&["--engine", "lightpanda", "open", PAGE]],
            Refused("with Lightpanda"),
        ),
    ),
    (
        "AGENT_BROWSER_ENGINE",
        run_env(
            &[("AGENT_BROWSER_ENGINE", "lightpanda")],
            &[&["open", PAGE]],
            Refused("with Lightpanda"),
        ),
    ),
    (
        "--device",
        run(
            &[&["--device", "iPhone 15", "open", PAGE]],
            Refused("iOS simulator"),
        ),
    ),
    (
        "AGENT_BROWSER_IOS_DEVICE",
        run_env(
            &[("AGENT_BROWSER_IOS_DEVICE", "iPhone 15")],
            &[&["open", PAGE]],
            Refused("iOS simulator"),
        ),
    ),
    (
        "--enable",
        run(
            &[
                &["--enable", "react-devtools", "open", "{site}/react.html"],
                &["react", "tree"],
            ],
            Stdout(" Counter"),
        ),
    ),
    (
        "AGENT_BROWSER_ENABLE",
        run_env(
            &[("AGENT_BROWSER_ENABLE", "react-devtools")],
            &[&["open", "{site}/react.html"], &["react", "tree"]],
            Stdout(" Counter"),
        ),
    ),
    (
        "--model",
        run(
            &[&["--model", "x", "chat", "hi"]],
            Refused("AI_GATEWAY_API_KEY"),
        ),
    ),
    (
        "-q",
        run(&[&["-q", "chat", "hi"]], Refused("AI_GATEWAY_API_KEY")),
    ),
    (
        "-v",
        run(&[&["-v", "chat", "hi"]], Refused("AI_GATEWAY_API_KEY")),
    ),
    // Page settings (tests/page_flags.rs, tests/pages_download.rs go deeper).
    (
        "--headers",
        run(
            &[
                &[
                    "--headers",
                    r#"{"X-Abx-Flag":"yes"}"#,
                    "open",
                    "{site}/echo-headers",
                ],
                &["get", "text", "body"],
            ],
            Stdout(r#""x-abx-flag": "yes""#),
        ),
    ),
    (
        "--init-script",
        Run {
            env: &[],
            setup: Some(init_script_file),
            steps: &[
                &["--init-script", "{home}/init.js", "open", PAGE],
                &["eval", "window.__fromFile"],
            ],
            expect: Stdout("init file"),
        },
    ),
    (
        "AGENT_BROWSER_INIT_SCRIPTS",
        Run {
            env: &[("AGENT_BROWSER_INIT_SCRIPTS", "{home}/init.js")],
            setup: Some(init_script_file),
            steps: &[&["open", PAGE], &["eval", "window.__fromFile"]],
            expect: Stdout("init file"),
        },
    ),
    (
        "--color-scheme",
        run(
            &[&["--color-scheme", "dark", "open", PAGE], &["eval", DARK]],
            Stdout("true"),
        ),
    ),
    (
        "AGENT_BROWSER_COLOR_SCHEME",
        run_env(
            &[("AGENT_BROWSER_COLOR_SCHEME", "dark")],
            &[&["open", PAGE], &["eval", DARK]],
            Stdout("true"),
        ),
    ),
    (
        "--extension",
        run(
            &[
                &["--extension", "{fixtures}/extension", "open", PAGE],
                &["eval", EXTENSION_MARK],
            ],
            Stdout("loaded"),
        ),
    ),
    (
        "AGENT_BROWSER_EXTENSIONS",
        run_env(
            &[("AGENT_BROWSER_EXTENSIONS", "{fixtures}/extension")],
            &[&["open", PAGE], &["eval", EXTENSION_MARK]],
            Stdout("loaded"),
        ),
    ),
    (
        // A smooth move is ten mousemove events where the default is one.
        "--input-mode",
        run(
            &[
                &["open", "{site}/events.html"],
                &["mouse", "move", "5", "5"],
                &["eval", RESET_COUNTS],
                &["--input-mode", "smooth", "mouse", "move", "60", "60"],
                &["eval", "window.__counts.mousemove === 10"],
            ],
            Stdout("true"),
        ),
    ),
    (
        "--download-path",
        Run {
            env: &[],
            setup: Some(download_dir),
            steps: &[
                &[
                    "--download-path",
                    "{home}/dl",
                    "open",
                    "{site}/download.html",
                ],
                &["click", "#dl"],
                &["wait", "--download"],
            ],
            expect: File("{home}/dl/report.txt"),
        },
    ),
    (
        "AGENT_BROWSER_DOWNLOAD_PATH",
        Run {
            env: &[("AGENT_BROWSER_DOWNLOAD_PATH", "{home}/dl")],
            setup: Some(download_dir),
            steps: &[
                &["open", "{site}/download.html"],
                &["click", "#dl"],
                &["wait", "--download"],
            ],
            expect: File("{home}/dl/report.txt"),
        },
    ),
    // Attach, WebGPU, CA trust.
    ("--cdp-headers", Check(cdp_headers_flag)),
    ("AGENT_BROWSER_CDP_HEADERS", Check(cdp_headers_env)),
    (
        "--webgpu",
        run_env(
            FULL_CHROME,
            &[
                &["--webgpu", "open", "chrome://version"],
                VERSION_WAIT,
                VERSION_PAGE,
            ],
            Stdout("--enable-unsafe-webgpu"),
        ),
    ),
    (
        "AGENT_BROWSER_WEBGPU",
        run_env(
            &[
                ("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium"),
                ("AGENT_BROWSER_WEBGPU", "1"),
            ],
            &[&["open", "chrome://version"], VERSION_WAIT, VERSION_PAGE],
            Stdout("--use-webgpu-adapter=swiftshader"),
        ),
    ),
    ("--ca-cert", Check(ca_cert_flag)),
    ("AGENT_BROWSER_CA_CERT", Check(ca_cert_env)),
    ("--no-ca-cert", Check(no_ca_cert_flag)),
    ("AGENT_BROWSER_CLEAR_CA_CERT", Check(clear_ca_cert_env)),
    (
        "--use-system-ca",
        Inert(
            "upstream uses the OS trust store for the CLI's own HTTPS requests (read, install, upgrade, doctor) and not for the browser; abx's CLI makes none (read fetches through the session's browser, install never downloads)",
        ),
    ),
    ("AGENT_BROWSER_USE_SYSTEM_CA", Inert("as --use-system-ca")),
    // The fixture page records whether Chrome gave it `document.modelContext` (WebMCP is on
    // by default: tests/webmcp.rs lists its tools).
    (
        "--no-webmcp",
        run(
            &[
                &["--no-webmcp", "open", "{site}/webmcp.html"],
                &["get", "attr", "body", "data-webmcp"],
            ],
            Stdout("off"),
        ),
    ),
    (
        "AGENT_BROWSER_NO_WEBMCP",
        run_env(
            &[("AGENT_BROWSER_NO_WEBMCP", "1")],
            &[
                &["open", "{site}/webmcp.html"],
                &["get", "attr", "body", "data-webmcp"],
            ],
            Stdout("off"),
        ),
    ),
    (
        "AGENT_BROWSER_NO_VERSION_CHECK",
        Inert(
            "abx never asks a registry for a newer version (it makes no network requests of its own), so there is no check to turn off",
        ),
    ),
    (
        // Headed, no DISPLAY: without Xvfb Chrome has no display and the launch fails.
        "AGENT_BROWSER_NO_XVFB",
        run_env(
            &[
                ("AGENT_BROWSER_HEADED", "1"),
                ("AGENT_BROWSER_NO_XVFB", "1"),
            ],
            &[&["open", PAGE]],
            Refused("Missing X server or $DISPLAY"),
        ),
    ),
    (
        "AGENT_BROWSER_AUTOSAVE_INTERVAL_MS",
        Check(autosave_interval),
    ),
    (
        "AGENT_BROWSER_PLUGINS",
        run_env(
            &[(
                "AGENT_BROWSER_PLUGINS",
                r#"[{"name":"captcha","command":"x","capabilities":["launch.mutate"]}]"#,
            )],
            &[&["open", PAGE]],
            Refused("Plugins are not supported by abx (configured: captcha)"),
        ),
    ),
    ("AGENT_BROWSER_STREAM_PORT", Check(stream_port_env)),
    ("AGENT_BROWSER_STREAM_QUALITY", Check(stream_quality_env)),
    ("AGENT_BROWSER_STREAM_MAX_WIDTH", Check(stream_max_size_env)),
    (
        "AGENT_BROWSER_STREAM_MAX_HEIGHT",
        Check(stream_max_size_env),
    ),
    (
        "AGENT_BROWSER_IOS_UDID",
        Inert(
            "upstream reads it only for `-p ios`, which abx refuses before starting anything (see the -p rows)",
        ),
    ),
    (
        "AGENT_BROWSER_OBSCURA_STEALTH",
        Inert(
            "upstream reads it only for `--engine obscura`, which abx refuses before starting anything (see the --engine rows)",
        ),
    ),
    (
        "AGENT_BROWSER_DASHBOARD_ALLOWED_ORIGINS",
        run_env(
            &[(
                "AGENT_BROWSER_DASHBOARD_ALLOWED_ORIGINS",
                "https://dash.example.com",
            )],
            &[&["dashboard", "start"]],
            Stdout("https://dash.example.com/#dashboard-access-token="),
        ),
    ),
];

fn fill(text: &str, site: &str, home: &str) -> String {
    text.replace("{site}", site)
        .replace("{home}", home)
        .replace("{args}", &abx_tests::TEST_CHROME_ARGS.join(","))
        .replace("{fixtures}", &fixtures_dir())
}

/// The fixtures crate's directory (the extension lives there).
fn fixtures_dir() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .canonicalize()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

#[test]
fn every_documented_flag_and_variable_changes_something_or_is_refused() {
    let site = site();
    let origin = site.url("");
    let origin = origin.trim_end_matches('/');
    let mut failures = Vec::new();
    let mut inert = Vec::new();
    let only = std::env::var("ABX_FLAGS_ONLY").ok();
    for (name, how) in TABLE {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|n| n == *name))
        {
            continue;
        }
        let (env, setup, steps, expect) = match how {
            Run {
                env,
                setup,
                steps,
                expect,
            } => (env, setup, steps, expect),
            Check(check) => {
                if let Err(seen) = check(origin) {
                    failures.push(format!("{name}: {seen}"));
                }
                continue;
            }
            Inert(reason) => {
                inert.push(format!("{name}: {reason}"));
                continue;
            }
        };
        let mut ab = Cli::new();
        let home = ab.home().display().to_string();
        for (key, value) in *env {
            ab = ab.env(key, &fill(value, origin, &home));
        }
        if let Some(setup) = setup {
            setup(ab.home());
        }
        let mut last = None;
        for step in *steps {
            let args: Vec<String> = step.iter().map(|a| fill(a, origin, &home)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            last = Some(ab.run(&args));
        }
        let out = last.expect("a row runs something");
        let ok = match expect {
            Stdout(text) => out.code == 0 && out.stdout.contains(text),
            StdoutLacks(text) => out.code == 0 && !out.stdout.contains(text),
            Stderr(text) => out.code == 0 && out.stderr.contains(text),
            Refused(text) => out.code == 1 && out.stderr.contains(text),
            File(path) => std::path::Path::new(&fill(path, origin, &home)).exists(),
            FileHas(path, text) => std::fs::read_to_string(fill(path, origin, &home))
                .is_ok_and(|content| content.contains(text)),
        };
        if !ok {
            failures.push(format!("{name}: {out:?}"));
        }
        ab.run(&["close"]);
        // A dashboard outlives `close` (it serves every session): rows that start one stop it.
        if steps.iter().any(|step| step.first() == Some(&"dashboard")) {
            ab.run(&["dashboard", "stop"]);
        }
    }
    eprintln!("{} rows inert here:\n  {}", inert.len(), inert.join("\n  "));
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_table_names_every_variable_abx_reads_from_upstream() {
    // Every upstream name in abx_wire::env is walked (or marked inert) above.
    let names: Vec<&str> = TABLE.iter().map(|(n, _)| *n).collect();
    let source = include_str!("../crates/wire/src/env.rs");
    let skip = [
        "AGENT_BROWSER_DAEMON",
        "AGENT_BROWSER_SOCKET_DIR",
        "AGENT_BROWSER_PROXY_USERNAME",
        "AGENT_BROWSER_PROXY_PASSWORD",
        "AGENT_BROWSER_POLICY",
        "AGENT_BROWSER_COLOR",
        "AGENT_BROWSER_STREAM_TOKEN",
    ];
    let missing: Vec<&str> = source
        .split('"')
        .filter(|s| s.starts_with("AGENT_BROWSER_") && !skip.contains(s))
        .filter(|s| !names.contains(s))
        .collect();
    assert!(missing.is_empty(), "not in the flag walk: {missing:?}");
}

/// A short idle timeout ends the daemon: its pid goes and its socket file is removed.
fn idle_timeout_env(origin: &str) -> Result<(), String> {
    let ab = Cli::new().env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "1500");
    let opened = ab.run(&["open", &format!("{origin}/page1.html")]);
    let pid = ab.daemon_pid().ok_or(format!("no daemon: {opened:?}"))?;
    let socket = ab.file("sock");
    let gone = wait_until(Duration::from_secs(30), || {
        abx_tests::pids_alive(&[pid]).is_empty() && !socket.exists()
    });
    if gone {
        Ok(())
    } else {
        Err(format!(
            "daemon {pid} still running 30 s after a 1.5 s idle timeout"
        ))
    }
}

/// An out-of-range value is warned about like the flag; a low valid one makes a smaller JPEG.
fn screenshot_quality_env(origin: &str) -> Result<(), String> {
    let ab = Cli::new();
    ab.run(&["open", &format!("{origin}/article.html")]);
    let shot = |quality: &str, file: &str| {
        let path = ab.home().join(file);
        let out = ab
            .command(&[
                "--screenshot-format",
                "jpeg",
                "screenshot",
                path.to_str().unwrap_or_default(),
            ])
            .env("AGENT_BROWSER_SCREENSHOT_QUALITY", quality)
            .output();
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        (out, size)
    };
    let (bad, _) = shot("101", "bad.jpg");
    let stderr = bad
        .map(|o| String::from_utf8_lossy(&o.stderr).to_string())
        .unwrap_or_default();
    if !stderr.contains("AGENT_BROWSER_SCREENSHOT_QUALITY must be 0-100, got 101") {
        return Err(format!("no warning for 101: {stderr}"));
    }
    let (_, low) = shot("5", "low.jpg");
    let (_, high) = shot("95", "high.jpg");
    let result = if low > 0 && high > low {
        Ok(())
    } else {
        Err(format!(
            "quality 5 gave {low} bytes, quality 95 gave {high}"
        ))
    };
    ab.run(&["close"]);
    result
}

/// `--restore` state is saved while the daemon runs, before any close.
fn autosave_interval(origin: &str) -> Result<(), String> {
    let ab = Cli::new().env("AGENT_BROWSER_AUTOSAVE_INTERVAL_MS", "300");
    let opened = ab.run(&[
        "--restore",
        "auto1",
        "open",
        &format!("{origin}/storage.html"),
    ]);
    let dir = ab.home().join(".agent-browser/sessions");
    let saved = wait_until(Duration::from_secs(20), || {
        std::fs::read_dir(&dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("auto1"))
        })
    });
    let listing: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    ab.run(&["close"]);
    if saved {
        Ok(())
    } else {
        Err(format!(
            "no autosaved state within 20 s: {listing:?} after {opened:?}"
        ))
    }
}

const CDP_HEADERS: &str = r#"{"X-Abx-Token":"t0k3n"}"#;

/// A stage attached through a recording forwarder in front of an anchor's Chrome: its
/// WebSocket handshake must carry the header, given as the flag (`by_flag`) or the variable.
fn cdp_headers_reach_the_handshake(origin: &str, by_flag: bool) -> Result<(), String> {
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]);
    let cdp = anchor.run(&["get", "cdp-url"]).out().to_string();
    let port: Option<u16> = cdp
        .trim_start_matches("ws://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok());
    let Some(port) = port else {
        anchor.run(&["close"]);
        return Err(format!("no CDP port in {cdp:?}"));
    };
    let forwarder = abx_tests::raw::DevToolsForwarder::start(port);
    let mut stage = Cli::new()
        .session("stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    let page = format!("{origin}/page1.html");
    let url = forwarder.url();
    let opened = if by_flag {
        stage.run(&["--cdp", &url, "--cdp-headers", CDP_HEADERS, "open", &page])
    } else {
        stage = stage
            .env("AGENT_BROWSER_CDP", &url)
            .env("AGENT_BROWSER_CDP_HEADERS", CDP_HEADERS);
        stage.run(&["open", &page])
    };
    let seen = forwarder.seen();
    let handshake = seen.requests.iter().any(|(path, headers)| {
        path.starts_with("/devtools/browser/")
            && headers
                .iter()
                .any(|(k, v)| k == "x-abx-token" && v == "t0k3n")
    });
    stage.run(&["tab", "close"]);
    stage.run(&["close"]);
    anchor.run(&["close"]);
    if opened.code == 0 && handshake {
        Ok(())
    } else {
        Err(format!("no header in the handshake: {seen:?}, {opened:?}"))
    }
}

fn cdp_headers_flag(origin: &str) -> Result<(), String> {
    cdp_headers_reach_the_handshake(origin, true)
}

fn cdp_headers_env(origin: &str) -> Result<(), String> {
    cdp_headers_reach_the_handshake(origin, false)
}

/// The first screencast frame a viewer of `port` gets, as JPEG bytes.
fn first_frame(port: u16) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    use futures_util::StreamExt as _;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
            .await
            .map_err(|e| format!("viewer connect: {e}"))?;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let message = tokio::time::timeout_at(deadline, ws.next())
                .await
                .map_err(|_| "no frame within 15 s".to_string())?
                .ok_or("stream closed")?
                .map_err(|e| e.to_string())?;
            let tokio_tungstenite::tungstenite::Message::Text(text) = message else {
                continue;
            };
            let value: serde_json::Value =
                serde_json::from_str(text.as_str()).map_err(|e| e.to_string())?;
            if value["type"] == "frame" {
                let data = value["data"].as_str().ok_or("frame without data")?;
                return base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| e.to_string());
            }
        }
    })
}

/// A session with `env` on the article page, and its stream port.
fn streaming(origin: &str, env: &[(&str, &str)]) -> Result<(Cli, u16), String> {
    let mut ab = Cli::new();
    for (key, value) in env {
        ab = ab.env(key, value);
    }
    let opened = ab.run(&["open", &format!("{origin}/article.html")]);
    let port = std::fs::read_to_string(ab.file("stream"))
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .ok_or(format!("no stream port file: {opened:?}"))?;
    Ok((ab, port))
}

fn frame_size(origin: &str, env: &[(&str, &str)]) -> Result<(usize, u32, u32), String> {
    let (ab, port) = streaming(origin, env)?;
    let frame = first_frame(port);
    ab.run(&["close"]);
    let frame = frame?;
    let image = image::load_from_memory(&frame).map_err(|e| format!("not an image: {e}"))?;
    Ok((frame.len(), image.width(), image.height()))
}

/// The stream server listens on the port asked for.
fn stream_port_env(origin: &str) -> Result<(), String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())?;
    let (ab, seen) = streaming(origin, &[("AGENT_BROWSER_STREAM_PORT", &port.to_string())])?;
    let frame = first_frame(port).map(|_| ());
    ab.run(&["close"]);
    if seen != port {
        return Err(format!("asked for port {port}, the stream is on {seen}"));
    }
    frame
}

/// A low quality makes smaller frames than a high one.
fn stream_quality_env(origin: &str) -> Result<(), String> {
    let (low, ..) = frame_size(origin, &[("AGENT_BROWSER_STREAM_QUALITY", "5")])?;
    let (high, ..) = frame_size(origin, &[("AGENT_BROWSER_STREAM_QUALITY", "95")])?;
    if low < high {
        Ok(())
    } else {
        Err(format!(
            "quality 5 frame {low} bytes, quality 95 frame {high}"
        ))
    }
}

/// Frames fit the limits (the viewport is 1280×720).
fn stream_max_size_env(origin: &str) -> Result<(), String> {
    let (_, width, height) = frame_size(
        origin,
        &[
            ("AGENT_BROWSER_STREAM_MAX_WIDTH", "400"),
            ("AGENT_BROWSER_STREAM_MAX_HEIGHT", "200"),
        ],
    )?;
    if width <= 400 && height <= 200 {
        Ok(())
    } else {
        Err(format!("a {width}×{height} frame for limits 400×200"))
    }
}

/// An HTTPS server on 127.0.0.1 whose certificate a fresh CA signed, and that CA as PEM.
struct TlsSite {
    server: abx_tests::tls::HttpsServer,
    ca_pem: String,
}

const SECURE_PAGE: &str = "<!doctype html><title>Secure Fixture</title><h1>secure</h1>";

impl TlsSite {
    fn start() -> Result<TlsSite, String> {
        let ca = abx_tests::tls::Ca::new("abx flags walk test CA")?;
        let server = abx_tests::tls::HttpsServer::start(
            ca.leaf("127.0.0.1", false)?,
            "text/html",
            SECURE_PAGE,
        )?;
        Ok(TlsSite {
            server,
            ca_pem: ca.pem,
        })
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}/", self.server.port)
    }

    /// Writes the CA to `<home>/ca.pem` and returns the path.
    fn ca_file(&self, home: &std::path::Path) -> String {
        let path = home.join("ca.pem");
        let _ = std::fs::write(&path, &self.ca_pem);
        path.display().to_string()
    }
}

/// Whether `open <https>` loaded the secure page (else the output, for the failure).
fn opened_securely(out: &abx_tests::cli::Output) -> bool {
    out.code == 0 && out.stdout.contains("Secure Fixture")
}

/// Without the CA the page is refused; with it (flag or variable) it opens.
fn ca_cert_trusts(by_flag: bool) -> Result<(), String> {
    let tls = TlsSite::start()?;
    let plain = Cli::new();
    let refused = plain.run(&["open", &tls.url()]);
    plain.run(&["close"]);
    if refused.code != 1 || !refused.stderr.contains("CERT_AUTHORITY_INVALID") {
        return Err(format!("without the CA: {refused:?}"));
    }
    let mut ab = Cli::new();
    let ca = tls.ca_file(ab.home());
    let opened = if by_flag {
        ab.run(&["--ca-cert", &ca, "open", &tls.url()])
    } else {
        ab = ab.env("AGENT_BROWSER_CA_CERT", &ca);
        ab.run(&["open", &tls.url()])
    };
    // The trust stays for the session: a later command without the flag still reads the page.
    let later = ab.run(&["reload"]);
    ab.run(&["close"]);
    if !opened_securely(&opened) {
        return Err(format!("with the CA: {opened:?}"));
    }
    if later.code != 0 {
        return Err(format!("the trust did not stay: {later:?}"));
    }
    Ok(())
}

fn ca_cert_flag(_: &str) -> Result<(), String> {
    ca_cert_trusts(true)
}

fn ca_cert_env(_: &str) -> Result<(), String> {
    ca_cert_trusts(false)
}

/// `--no-ca-cert` (or the variable) clears trust the session kept: the page is refused again.
fn clears_ca_trust(by_flag: bool) -> Result<(), String> {
    let tls = TlsSite::start()?;
    let ab = Cli::new();
    let ca = tls.ca_file(ab.home());
    let opened = ab.run(&["--ca-cert", &ca, "open", &tls.url()]);
    if !opened_securely(&opened) {
        ab.run(&["close"]);
        return Err(format!("with the CA: {opened:?}"));
    }
    let cleared = if by_flag {
        ab.run(&["--no-ca-cert", "open", &tls.url()])
    } else {
        let out = ab
            .command(&["open", &tls.url()])
            .env("AGENT_BROWSER_CLEAR_CA_CERT", "1")
            .output();
        match out {
            Ok(o) => abx_tests::cli::Output {
                code: o.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                took: Duration::ZERO,
            },
            Err(e) => return Err(e.to_string()),
        }
    };
    ab.run(&["close"]);
    if cleared.code == 1 && cleared.stderr.contains("CERT_AUTHORITY_INVALID") {
        Ok(())
    } else {
        Err(format!("after clearing: {cleared:?}"))
    }
}

fn no_ca_cert_flag(_: &str) -> Result<(), String> {
    clears_ca_trust(true)
}

fn clear_ca_cert_env(_: &str) -> Result<(), String> {
    clears_ca_trust(false)
}
