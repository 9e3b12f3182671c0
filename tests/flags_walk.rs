//! Walks every global flag and `AGENT_BROWSER_*` variable upstream 0.41.2 documents (its
//! `--help` and README) and checks that each one either changes something observable or is
//! refused with exit 1 — a flag that reaches abx and does nothing is the bug this guards.
//!
//! One table row per name. `How::Run` says how the effect is observed: the invocations to run
//! (`{site}` is the fixture origin, `{home}` the test's HOME, `{args}` the machine's Chrome
//! arguments) and what the last one must show. Rows that another branch owns, or whose effect
//! this file cannot observe yet, are `How::Pending("…reason…")`: greppable (`Pending(`), listed
//! by the test, and each one a task.

use abx_tests::cli::Cli;

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
}

enum How {
    Run {
        env: &'static [(&'static str, &'static str)],
        setup: Option<fn(&std::path::Path)>,
        steps: &'static [&'static [&'static str]],
        expect: Expect,
    },
    /// Not checked here, with the reason (another branch owns it, or it is not observable yet).
    Pending(&'static str),
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

/// A state file ten days old.
fn old_state(home: &std::path::Path) {
    let file = home.join("old.json");
    std::fs::write(&file, r#"{"cookies":[],"origins":[]}"#).expect("state");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10 * 86_400);
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
        Pending(
            "an out-of-range value from the environment is dropped without the warning the flag gets; a valid one needs an image-size comparison",
        ),
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
        "--args",
        Pending(
            "seen not to reach Chrome while AGENT_BROWSER_ARGS is also set (--args \"--no-sandbox,--user-agent=X\" keeps the default UA): launch owner to check",
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
        run(&[&["--pin-tab", "open", PAGE]], File("{home}/s/t.target")),
    ),
    (
        "--no-auto-dialog",
        run(
            &[
                &["--no-auto-dialog", "open", PAGE],
                &["eval", "setTimeout(() => alert('hi'), 0); 1"],
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
                &["eval", "setTimeout(() => alert('hi'), 0); 1"],
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
            Refused("lightpanda"),
        ),
    ),
    (
        "AGENT_BROWSER_ENGINE",
        run_env(
            &[("AGENT_BROWSER_ENGINE", "lightpanda")],
            &[&["open", PAGE]],
            Refused("lightpanda"),
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
    // Owned by other branches of this wave: enable after merge.
    (
        "--headers",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "--init-script",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "AGENT_BROWSER_INIT_SCRIPTS",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "--color-scheme",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "AGENT_BROWSER_COLOR_SCHEME",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "--extension",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "AGENT_BROWSER_EXTENSIONS",
        Pending("owned by pages branch (issue 13 item 5)"),
    ),
    (
        "--input-mode",
        Pending("owned by pages branch (--human/--steps/--input-mode, issue 13 item 5)"),
    ),
    (
        "--download-path",
        Pending("owned by pages branch (issue 13 item 4)"),
    ),
    (
        "AGENT_BROWSER_DOWNLOAD_PATH",
        Pending("owned by pages branch (issue 13 item 4)"),
    ),
    // Not observable from this file yet, or not acted on: each is a task.
    (
        "--cdp-headers",
        Pending(
            "needs a CDP endpoint that records its handshake headers (tests/lifecycle.rs attaches without headers)",
        ),
    ),
    ("AGENT_BROWSER_CDP_HEADERS", Pending("as --cdp-headers")),
    (
        "--no-pin-tab",
        Pending("undoes --pin-tab from config: needs a config-file row"),
    ),
    (
        "AGENT_BROWSER_PIN_TAB",
        Pending(
            "as --pin-tab; the .target file exists without it too, so needs its `pinned` field",
        ),
    ),
    (
        "AGENT_BROWSER_IDLE_TIMEOUT_MS",
        Pending(
            "observable only by waiting for the daemon to exit (tests/lifecycle.rs covers the idle timeout)",
        ),
    ),
    (
        "--webgpu",
        Pending("not acted on by the daemon: the launch request's webgpu field is ignored"),
    ),
    ("AGENT_BROWSER_WEBGPU", Pending("as --webgpu")),
    (
        "--ca-cert",
        Pending("used by `read` only; the browser launch ignores it"),
    ),
    ("AGENT_BROWSER_CA_CERT", Pending("as --ca-cert")),
    ("--no-ca-cert", Pending("as --ca-cert")),
    ("AGENT_BROWSER_CLEAR_CA_CERT", Pending("as --ca-cert")),
    ("--use-system-ca", Pending("as --ca-cert")),
    ("AGENT_BROWSER_USE_SYSTEM_CA", Pending("as --ca-cert")),
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
        Pending("abx never checks for updates: the variable asks for what is already so"),
    ),
    (
        "AGENT_BROWSER_NO_XVFB",
        Pending("needs a headed launch without DISPLAY and an Xvfb probe (tests/lifecycle.rs)"),
    ),
    (
        "AGENT_BROWSER_AUTOSAVE_INTERVAL_MS",
        Pending(
            "periodic autosave of --restore state is not implemented yet (state branch): saved on close only",
        ),
    ),
    (
        "AGENT_BROWSER_PLUGINS",
        Pending("plugins are not implemented by abx; the variable is only forwarded"),
    ),
    (
        "AGENT_BROWSER_DEFAULT_TIMEOUT",
        Pending(
            "observable with a command that outlasts a short timeout (tests/commands.rs deadlines)",
        ),
    ),
    (
        "AGENT_BROWSER_STREAM_PORT",
        Pending("covered by tests/stream.rs"),
    ),
    (
        "AGENT_BROWSER_STREAM_QUALITY",
        Pending("covered by tests/stream.rs"),
    ),
    (
        "AGENT_BROWSER_STREAM_MAX_WIDTH",
        Pending("covered by tests/stream.rs"),
    ),
    (
        "AGENT_BROWSER_STREAM_MAX_HEIGHT",
        Pending("covered by tests/stream.rs"),
    ),
    (
        "AGENT_BROWSER_IOS_UDID",
        Pending("iOS provider only; -p ios is refused"),
    ),
    (
        "AGENT_BROWSER_OBSCURA_STEALTH",
        Pending("Obscura engine only; --engine obscura is refused"),
    ),
    (
        "AGENT_BROWSER_DASHBOARD_ALLOWED_ORIGINS",
        Pending("dashboard is not provided by abx"),
    ),
];

fn fill(text: &str, site: &str, home: &str) -> String {
    text.replace("{site}", site)
        .replace("{home}", home)
        .replace("{args}", &abx_tests::TEST_CHROME_ARGS.join(","))
}

#[test]
fn every_documented_flag_and_variable_changes_something_or_is_refused() {
    let site = site();
    let origin = site.url("");
    let origin = origin.trim_end_matches('/');
    let mut failures = Vec::new();
    let mut pending = Vec::new();
    for (name, how) in TABLE {
        let Run {
            env,
            setup,
            steps,
            expect,
        } = how
        else {
            if let Pending(reason) = how {
                pending.push(format!("{name}: {reason}"));
            }
            continue;
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
        };
        if !ok {
            failures.push(format!("{name}: {out:?}"));
        }
        ab.run(&["close"]);
    }
    eprintln!(
        "{} rows pending:\n  {}",
        pending.len(),
        pending.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_table_names_every_variable_abx_reads_from_upstream() {
    // Every upstream name in abx_wire::env is walked (or marked pending) above.
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
