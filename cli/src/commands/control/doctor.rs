//! `doctor [--offline] [--quick] [--fix] [--json]`: checks what abx needs on this machine, one
//! line per check with what to do about it — the state directory and free disk, Chrome and the
//! headless shell (which one a headless session runs, and why), the sandbox as root, a display or
//! Xvfb for headed sessions, the socket directory (writable, short enough for a Unix socket
//! path), each session's daemon (files of dead ones are removed as found), ffmpeg and its
//! encoders for `record`, fonts, the credential key (`--fix` creates a missing one), upstream's
//! providers (none runs here), and (without `--quick`) a real headless launch. Exit 1 when a
//! check fails. Check ids are upstream 0.41.2's where the same thing is checked; output shapes
//! are its (`pass|warn|fail|info` lines under categories; `--json`: `checks`, `fixed`,
//! `summary`, `success`). It makes no network requests, so `--offline` changes nothing.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::commands::invocation::{Invocation, LocalCommand, LocalRun};
use crate::commands::prelude::{Command, Grammar, Help, McpTool};
use crate::host::Host;
use crate::output::rendered::Rendered;
use crate::output::text::Palette;
use crate::session::SOCKET_PATH_MAX;

/// The command.
pub const COMMAND: Command = Command {
    names: &["doctor"],
    help: Some(Help {
        about: "Check Chrome, sandbox, display, sockets, daemons, ffmpeg, fonts, keys",
        usage: &["doctor [--offline] [--quick] [--fix] [--json]"],
        examples: &[
            "doctor",
            "doctor --offline --quick",
            "doctor --fix",
            "doctor --json",
        ],
        description: "\
Runs its checks one line each: environment and disk, Chrome and the headless shell, display,
ffmpeg, fonts, session daemons, the credential key, providers, and a real headless launch.
Files of daemons whose process is gone are removed as they are found.",
        sections: &[(
            "Options",
            &[
                (
                    "--offline",
                    "Accepted for upstream's command lines (doctor makes no network requests)",
                ),
                ("--quick", "Skip the headless launch test"),
                ("--fix", "Also repair: create the missing encryption key"),
                ("--json", "JSON output"),
            ],
        )],
        // Scripts look for this section (upstream has it too).
        exit_codes: &[
            ("0", "No check failed (warnings allowed)"),
            ("1", "One or more checks failed"),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Local(parse),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(150, "agent_browser_doctor", "debug", &["doctor"], "debug:b@G--debug fix:b@--fix headed:b@G--headed offline:b@--offline quick:b@--quick webgpu:b@G--webgpu").closed_world(),
];

fn parse(clean: &[String]) -> LocalCommand {
    LocalRun::command(clean, run)
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Fine.
    Pass,
    /// Works, with a caveat or a degraded feature.
    Warn,
    /// Something abx needs is broken: exit 1.
    Fail,
    /// For information.
    Info,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Info => "info",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone)]
pub struct Check {
    category: &'static str,
    id: String,
    status: Status,
    message: String,
    fix: Option<String>,
}

fn check(category: &'static str, id: impl Into<String>, status: Status, message: String) -> Check {
    Check {
        category,
        id: id.into(),
        status,
        message,
        fix: None,
    }
}

impl Check {
    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

#[derive(Default)]
struct Options {
    fix: bool,
    quick: bool,
}

fn run(args: &[String], inv: &Invocation, host: &dyn Host) -> Rendered {
    // `--fix`, `--quick` and `--offline` are global flags (as upstream's); after the word too.
    let mut options = Options {
        fix: inv.flags.fix,
        quick: inv.flags.quick,
    };
    for arg in args {
        match arg.as_str() {
            "--fix" => options.fix = true,
            "--quick" => options.quick = true,
            // Nothing here uses the network; accepted for upstream's command lines.
            "--offline" => {}
            other => {
                let message = format!(
                    "Unknown doctor option: {other}. Usage: agent-browser doctor [--fix] [--quick] [--offline] [--json]"
                );
                return crate::output::errors::render_error(&message, &inv.output);
            }
        }
    }
    let mut checks = Vec::new();
    let mut fixed = Vec::new();
    environment(inv, host, &mut checks);
    chrome(inv, host, &mut checks);
    display(inv, host, &mut checks);
    recording(host, &mut checks);
    fonts(host, &mut checks);
    daemons(&inv.socket_dir, options.fix, &mut checks);
    security(host, options.fix, &mut checks, &mut fixed);
    providers(host, &mut checks);
    if !options.quick {
        launch_test(inv, host, &mut checks);
    }
    render(&checks, &fixed, options.fix, inv)
}

fn render(checks: &[Check], fixed: &[String], fix_ran: bool, inv: &Invocation) -> Rendered {
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    let (pass, warn, fail) = (
        count(Status::Pass),
        count(Status::Warn),
        count(Status::Fail),
    );
    let mut rendered = Rendered {
        exit_code: i32::from(fail > 0),
        ..Rendered::default()
    };
    if inv.output.json {
        let items: Vec<Value> = checks
            .iter()
            .map(|c| {
                let mut item = json!({
                    "category": c.category,
                    "id": c.id,
                    "status": c.status.label(),
                    "message": c.message,
                });
                if let Some(fix) = &c.fix {
                    item["fix"] = json!(fix);
                }
                item
            })
            .collect();
        let line = json!({
            "success": fail == 0,
            "summary": {"pass": pass, "warn": warn, "fail": fail},
            "checks": items,
            "fixed": fixed,
        });
        rendered.stdout = format!("{line}\n");
        return rendered;
    }
    let palette = Palette(inv.output.color);
    let mut out = String::from("agent-browser doctor\n");
    let mut category = "";
    for c in checks {
        if c.category != category {
            category = c.category;
            out.push_str(&format!("\n{category}\n"));
        }
        let label = match c.status {
            Status::Pass => palette.green(c.status.label()),
            Status::Fail => palette.red(c.status.label()),
            Status::Warn | Status::Info => c.status.label().to_string(),
        };
        out.push_str(&format!("  {label}  {}\n", c.message));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("        fix: {fix}\n"));
        }
    }
    if !fixed.is_empty() {
        out.push_str("\nFixed\n");
        for line in fixed {
            out.push_str(&format!("  done  {line}\n"));
        }
    }
    out.push_str(&format!(
        "\nSummary: {pass} pass, {warn} warn, {fail} fail\n"
    ));
    if !fix_ran && checks.iter().any(|c| c.id.starts_with("daemon.stale.")) {
        out.push_str("\ntip: Run with --fix to remove the stale files.\n");
    }
    rendered.stdout = out;
    rendered
}

// ---------------------------------------------------------------------------------------------
// Environment

fn environment(inv: &Invocation, host: &dyn Host, checks: &mut Vec<Check>) {
    const ENV: &str = "Environment";
    checks.push(check(
        ENV,
        "env.version",
        Status::Pass,
        format!(
            "CLI version {} (abx {}, {} {})",
            crate::upstream::UPSTREAM_VERSION,
            env!("CARGO_PKG_VERSION"),
            std::env::consts::OS,
            std::env::consts::ARCH
        ),
    ));
    match host.home_dir() {
        Some(home) => checks.push(check(
            ENV,
            "env.home",
            Status::Pass,
            format!("Home directory {}", home.display()),
        )),
        None => checks.push(
            check(
                ENV,
                "env.home",
                Status::Warn,
                "No home directory: state files and screenshots fall back to the temp directory"
                    .into(),
            )
            .fix("export HOME=<a writable directory>"),
        ),
    }
    let state = state_dir(host, checks);
    socket_dir(inv, checks);
    disk_free(&state, checks);
    if nix::unistd::geteuid().is_root() {
        checks.push(
            check(
                ENV,
                "env.sandbox",
                Status::Info,
                "Running as root: Chrome's sandbox cannot run as root, so abx launches Chrome with \
                 --no-sandbox (pages are not sandboxed)"
                    .into(),
            )
            .fix("run agent-browser as a non-root user to keep Chrome's sandbox"),
        );
    } else if inv
        .flags
        .args
        .as_deref()
        .is_some_and(|a| a.contains("--no-sandbox"))
    {
        checks.push(check(
            ENV,
            "env.sandbox",
            Status::Info,
            "Chrome's sandbox is off: --no-sandbox is in the browser args".into(),
        ));
    } else {
        checks.push(check(
            ENV,
            "env.sandbox",
            Status::Pass,
            "Not root: Chrome runs with its sandbox".into(),
        ));
    }
}

/// `~/.agent-browser` (saved states, auth profiles, the key file): where it is and whether it can
/// be written. Returns it.
fn state_dir(host: &dyn Host, checks: &mut Vec<Check>) -> PathBuf {
    const ENV: &str = "Environment";
    let dir = abx_daemon::state_files::StateDirs::from_env(&|name| host.var(name)).base;
    let existing = dir.ancestors().find(|a| a.exists()).map(Path::to_path_buf);
    let line = match existing {
        Some(found) if found == dir && dir.is_dir() => match probe_writable(&dir) {
            Ok(()) => check(
                ENV,
                "env.state_dir",
                Status::Pass,
                format!("State directory {}", dir.display()),
            ),
            Err(e) => check(
                ENV,
                "env.state_dir",
                Status::Warn,
                format!(
                    "State directory {} is not writable ({e}): state save, auth save and --restore fail",
                    dir.display()
                ),
            )
            .fix(format!("chown or chmod {}", dir.display())),
        },
        Some(found) if found.is_dir() && probe_writable(&found).is_ok() => check(
            ENV,
            "env.state_dir",
            Status::Info,
            format!(
                "State directory {} does not exist yet (created on first use)",
                dir.display()
            ),
        ),
        _ => check(
            ENV,
            "env.state_dir",
            Status::Warn,
            format!(
                "State directory {} cannot be created: state save, auth save and --restore fail",
                dir.display()
            ),
        )
        .fix("export HOME=<a writable directory>"),
    };
    checks.push(line);
    dir
}

/// Free space where states, screenshots and recordings go (the state dir's nearest existing
/// ancestor).
fn disk_free(state: &Path, checks: &mut Vec<Check>) {
    const ENV: &str = "Environment";
    const LOW: u64 = 500 * 1024 * 1024;
    let Some(at) = state.ancestors().find(|a| a.exists()) else {
        return;
    };
    match nix::sys::statvfs::statvfs(at) {
        Ok(stat) => {
            // The field types differ between platforms (u64 on Linux x86_64, u32 elsewhere).
            #[allow(clippy::useless_conversion)]
            let free = u64::from(stat.blocks_available()) * u64::from(stat.fragment_size());
            let gb = free as f64 / 1e9;
            if free < LOW {
                checks.push(
                    check(
                        ENV,
                        "env.disk_free",
                        Status::Warn,
                        format!("Only {gb:.2} GB free at {}", at.display()),
                    )
                    .fix(
                        "free up disk space: Chrome profiles, recordings and screenshots need room",
                    ),
                );
            } else {
                checks.push(check(
                    ENV,
                    "env.disk_free",
                    Status::Pass,
                    format!("{gb:.1} GB free at {}", at.display()),
                ));
            }
        }
        Err(e) => checks.push(check(
            ENV,
            "env.disk_free",
            Status::Info,
            format!("Cannot tell the free space at {}: {e}", at.display()),
        )),
    }
}

fn socket_dir(inv: &Invocation, checks: &mut Vec<Check>) {
    const ENV: &str = "Environment";
    const FIX: &str =
        "export AGENT_BROWSER_SOCKET_DIR=<a short writable directory, e.g. /tmp/agent-browser>";
    let dir = &inv.socket_dir;
    let existing = dir.ancestors().find(|a| a.exists());
    match existing {
        Some(found) if found == dir.as_path() && !dir.is_dir() => {
            checks.push(
                check(
                    ENV,
                    "env.socket_dir",
                    Status::Fail,
                    format!("Socket directory {} is not a directory", dir.display()),
                )
                .fix(FIX),
            );
            return;
        }
        Some(found) if found == dir.as_path() => match probe_writable(dir) {
            Ok(()) => checks.push(check(
                ENV,
                "env.socket_dir",
                Status::Pass,
                format!("Socket directory {} is writable", dir.display()),
            )),
            Err(e) => {
                checks.push(
                    check(
                        ENV,
                        "env.socket_dir",
                        Status::Fail,
                        format!("Socket directory {} is not writable: {e}", dir.display()),
                    )
                    .fix(FIX),
                );
                return;
            }
        },
        Some(found) if found.is_dir() && probe_writable(found).is_ok() => checks.push(check(
            ENV,
            "env.socket_dir",
            Status::Info,
            format!(
                "Socket directory {} does not exist yet (created on first use)",
                dir.display()
            ),
        )),
        Some(found) => {
            checks.push(
                check(
                    ENV,
                    "env.socket_dir",
                    Status::Fail,
                    format!(
                        "Socket directory {} cannot be created: {} is not a writable directory",
                        dir.display(),
                        found.display()
                    ),
                )
                .fix(FIX),
            );
            return;
        }
        None => {
            checks.push(
                check(
                    ENV,
                    "env.socket_dir",
                    Status::Fail,
                    format!("Socket directory {} cannot be created", dir.display()),
                )
                .fix(FIX),
            );
            return;
        }
    }
    // `<dir>/<session>.sock` must fit a Unix socket address.
    let base = dir.as_os_str().len() + 1 + ".sock".len();
    let session = &inv.session;
    let room = SOCKET_PATH_MAX.saturating_sub(base);
    if base + session.len() > SOCKET_PATH_MAX {
        checks.push(
            check(
                ENV,
                "env.socket_path",
                Status::Fail,
                format!(
                    "The socket path for session \"{session}\" is {} bytes; Unix sockets allow {SOCKET_PATH_MAX}",
                    base + session.len()
                ),
            )
            .fix(FIX),
        );
    } else if room < 24 {
        checks.push(
            check(
                ENV,
                "env.socket_path",
                Status::Warn,
                format!(
                    "Socket paths leave room for session names of only {room} characters (Unix \
                     sockets allow {SOCKET_PATH_MAX} bytes)"
                ),
            )
            .fix(FIX),
        );
    } else {
        checks.push(check(
            ENV,
            "env.socket_path",
            Status::Pass,
            format!("Socket paths fit: session names up to {room} characters"),
        ));
    }
}

fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".abx-doctor-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

// ---------------------------------------------------------------------------------------------
// Chrome

/// `<binary> --version`'s first line, within a few seconds.
fn version_of(binary: &Path) -> Option<String> {
    let text = run_for(binary, &["--version"], Duration::from_secs(10))?;
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())?
        .trim()
        .to_string();
    Some(line)
}

/// Runs `binary args` with no stdin and returns its stdout, or `None` when it cannot run, fails
/// or outlives `within` (then it is killed).
fn run_for(binary: &Path, args: &[&str], within: Duration) -> Option<String> {
    let mut child = std::process::Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                if let Some(mut stdout) = child.stdout.take() {
                    use std::io::Read;
                    let _ = stdout.read_to_string(&mut out);
                }
                return status.success().then_some(out);
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The first of `names` on `PATH`.
fn on_path(host: &dyn Host, names: &[&str]) -> Option<PathBuf> {
    let path = host.var("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn chrome(inv: &Invocation, host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Chrome";
    const INSTALL: &str = "agent-browser install (Debian/Ubuntu: apt-get install -y chromium chromium-headless-shell)";
    if let Some(engine) = inv
        .flags
        .engine
        .as_deref()
        .filter(|e| !e.is_empty() && *e != "chrome")
    {
        let id = match engine {
            "lightpanda" | "obscura" => format!("chrome.engine_{engine}"),
            _ => "chrome.engine".to_string(),
        };
        checks.push(
            check(
                CAT,
                id,
                Status::Fail,
                format!(
                    "The engine is set to {engine} (--engine, AGENT_BROWSER_ENGINE or the config): abx drives Chrome/Chromium only, so every launch is refused"
                ),
            )
            .fix("unset AGENT_BROWSER_ENGINE, or remove \"engine\" from the config"),
        );
    }
    let explicit = inv
        .flags
        .executable_path
        .as_deref()
        .filter(|p| !p.is_empty());
    // A configured executable is what every session runs, so it is the Chrome to report.
    if let Some(path) = explicit {
        match abx_chrome::find_chrome(Some(Path::new(path))) {
            Ok(found) => {
                let version = version_of(&found).unwrap_or_else(|| "version unknown".into());
                checks.push(check(
                    CAT,
                    "chrome.installed",
                    Status::Pass,
                    format!(
                        "{version} at {} (the configured executable path: every session runs it)",
                        found.display()
                    ),
                ));
            }
            Err(_) => checks.push(
                check(
                    CAT,
                    "chrome.installed",
                    Status::Fail,
                    format!("The configured executable path {path} is not an executable file"),
                )
                .fix("point --executable-path, AGENT_BROWSER_EXECUTABLE_PATH or the config's executablePath at Chrome or Chromium, or unset it"),
            ),
        }
    }
    match explicit.map_or_else(|| abx_chrome::find_chrome(None).ok(), |_| None) {
        _ if explicit.is_some() => {}
        Some(found) => {
            let version = version_of(&found);
            let status = if version.is_some() {
                Status::Pass
            } else {
                Status::Warn
            };
            let mut line = check(
                CAT,
                "chrome.installed",
                status,
                format!(
                    "{} at {}",
                    version
                        .clone()
                        .unwrap_or_else(|| "Chrome (it does not answer --version)".into()),
                    found.display()
                ),
            );
            if version.is_none() {
                line = line.fix(format!("run {} --version to see why", found.display()));
            }
            checks.push(line);
        }
        None => {
            checks.push(
                check(
                    CAT,
                    "chrome.installed",
                    Status::Fail,
                    format!(
                        "No full Chrome on PATH (looked for {}): headed sessions and extensions \
                         cannot run",
                        abx_chrome::CANDIDATES.join(", ")
                    ),
                )
                .fix(INSTALL),
            );
        }
    }
    let shell = on_path(host, abx_chrome::HEADLESS_SHELL_CANDIDATES)
        .map(|p| abx_chrome::skip_passthrough_wrapper(&p));
    match &shell {
        Some(found) => {
            let version = version_of(found).unwrap_or_else(|| "version unknown".into());
            checks.push(check(
                CAT,
                "chrome.headless_shell",
                Status::Pass,
                format!("Headless shell: {version} at {}", found.display()),
            ));
        }
        None => checks.push(
            check(
                CAT,
                "chrome.headless_shell",
                Status::Info,
                "No headless shell (chromium-headless-shell): headless sessions run full Chrome, \
                 which starts about 4x slower"
                    .into(),
            )
            .fix("apt-get install -y chromium-headless-shell"),
        ),
    }
    if inv.flags.cdp.is_some() || inv.flags.provider.is_some() {
        checks.push(check(
            CAT,
            "chrome.selection",
            Status::Info,
            "Sessions attach to a remote browser (--cdp / --provider): no local Chrome is launched"
                .into(),
        ));
        return;
    }
    let mut options = abx_engine::LaunchOptions {
        executable: explicit.map(PathBuf::from),
        headless: true,
        args: inv
            .flags
            .args
            .as_deref()
            .map(abx_chrome::split_user_args)
            .unwrap_or_default(),
        ..abx_engine::LaunchOptions::default()
    };
    if let Some(profile) = inv.flags.profile.as_deref().filter(|p| p.contains('/')) {
        options.profile = Some(expand_home(profile, host));
    }
    for extension in &inv.flags.extensions {
        options.args.push(format!("--load-extension={extension}"));
    }
    match abx_chrome::select_browser(&options) {
        Ok(binary) => {
            let why = match binary.choice {
                abx_chrome::Choice::Explicit => {
                    "AGENT_BROWSER_EXECUTABLE_PATH names it".to_string()
                }
                abx_chrome::Choice::Profile => {
                    "the --profile directory ran with it before (one binary per profile)"
                        .to_string()
                }
                abx_chrome::Choice::HeadlessShell => {
                    "it is installed and nothing the session asks for needs full Chrome".to_string()
                }
                abx_chrome::Choice::NeedsFullChrome => format!(
                    "the session asks for what only full Chrome has: {}",
                    binary.needs_full_chrome.join(", ")
                ),
                abx_chrome::Choice::ShellNotInstalled => {
                    "no headless shell is installed".to_string()
                }
            };
            checks.push(check(
                CAT,
                "chrome.selection",
                Status::Info,
                format!(
                    "A headless session runs {} ({}) because {why}; headed sessions and \
                     extensions run full Chrome",
                    binary.kind,
                    binary.executable.display()
                ),
            ));
        }
        Err(e) => checks.push(
            check(
                CAT,
                "chrome.selection",
                Status::Fail,
                format!("No browser a session could launch: {e}"),
            )
            .fix(INSTALL),
        ),
    }
}

fn expand_home(path: &str, host: &dyn Host) -> PathBuf {
    match (path.strip_prefix("~/"), host.home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

// ---------------------------------------------------------------------------------------------
// Display, recording, fonts

fn display(inv: &Invocation, host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Display";
    let display = host.var("DISPLAY").filter(|d| !d.is_empty());
    let wayland = host.var("WAYLAND_DISPLAY").filter(|d| !d.is_empty());
    let headed = if inv.flags.headed {
        " (this session is headed)"
    } else {
        ""
    };
    if let Some(display) = display.or(wayland) {
        checks.push(check(
            CAT,
            "display.headed",
            Status::Pass,
            format!("Display {display} for headed sessions{headed}"),
        ));
        return;
    }
    let no_xvfb = host
        .var(abx_wire::env::NO_XVFB)
        .is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    match on_path(host, &["Xvfb"]) {
        Some(xvfb) if !no_xvfb => checks.push(check(
            CAT,
            "display.headed",
            Status::Pass,
            format!(
                "No display: headed sessions start a private Xvfb ({}){headed}",
                xvfb.display()
            ),
        )),
        found => {
            let (message, fix) = if found.is_some() {
                (
                    "No display, and AGENT_BROWSER_NO_XVFB forbids the private Xvfb: --headed fails",
                    "unset AGENT_BROWSER_NO_XVFB, or set DISPLAY",
                )
            } else {
                (
                    "No display and no Xvfb: --headed fails (headless sessions are unaffected)",
                    "apt-get install -y xvfb, or set DISPLAY",
                )
            };
            let status = if inv.flags.headed {
                Status::Fail
            } else {
                Status::Warn
            };
            checks
                .push(check(CAT, "display.headed", status, format!("{message}{headed}")).fix(fix));
        }
    }
}

fn recording(host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Recording";
    match on_path(host, &["ffmpeg"]) {
        Some(ffmpeg) => {
            let version = run_for(&ffmpeg, &["-version"], Duration::from_secs(10))
                .and_then(|out| out.lines().next().map(|l| l.trim().to_string()))
                .map(|l| match l.split_once(" Copyright") {
                    Some((version, _)) => version.to_string(),
                    None => l,
                });
            match version {
                Some(version) => {
                    checks.push(check(
                        CAT,
                        "recording.ffmpeg",
                        Status::Pass,
                        format!("{version} at {} (for record)", ffmpeg.display()),
                    ));
                    checks.push(encoders(&ffmpeg));
                }
                None => checks.push(
                    check(
                        CAT,
                        "recording.ffmpeg",
                        Status::Warn,
                        format!("{} does not run: record fails", ffmpeg.display()),
                    )
                    .fix(format!("run {} -version to see why", ffmpeg.display())),
                ),
            }
        }
        None => checks.push(
            check(
                CAT,
                "recording.ffmpeg",
                Status::Warn,
                "ffmpeg not found: record start|stop fails (everything else works)".into(),
            )
            .fix("apt-get install -y ffmpeg"),
        ),
    }
}

/// Whether ffmpeg has the encoders `record` uses: libvpx (`.webm`) and libx264 (`.mp4`).
fn encoders(ffmpeg: &Path) -> Check {
    const CAT: &str = "Recording";
    let Some(listed) = run_for(
        ffmpeg,
        &["-hide_banner", "-encoders"],
        Duration::from_secs(10),
    ) else {
        return check(
            CAT,
            "recording.ffmpeg_encoders",
            Status::Warn,
            format!(
                "{} -encoders failed: cannot tell which formats record can write",
                ffmpeg.display()
            ),
        );
    };
    let has = |name: &str| {
        listed
            .lines()
            .any(|l| l.split_whitespace().nth(1) == Some(name))
    };
    let missing: Vec<String> = [("libvpx", ".webm"), ("libx264", ".mp4")]
        .iter()
        .filter(|(encoder, _)| !has(encoder))
        .map(|(encoder, ext)| format!("{encoder} ({ext})"))
        .collect();
    if missing.is_empty() {
        check(
            CAT,
            "recording.ffmpeg_encoders",
            Status::Pass,
            "libvpx (.webm) and libx264 (.mp4) encoders available".into(),
        )
    } else {
        check(
            CAT,
            "recording.ffmpeg_encoders",
            Status::Warn,
            format!(
                "ffmpeg lacks {}: record to that format fails",
                missing.join(" and ")
            ),
        )
        .fix("install a full ffmpeg build (Debian/Ubuntu: apt-get install -y ffmpeg)")
    }
}

fn fonts(host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Fonts";
    let Some(fc_list) = on_path(host, &["fc-list"]) else {
        checks.push(
            check(
                CAT,
                "fonts.installed",
                Status::Warn,
                "fc-list not found: cannot tell whether fonts are installed (without fonts pages \
                 render text as boxes)"
                    .into(),
            )
            .fix("apt-get install -y fontconfig fonts-liberation"),
        );
        return;
    };
    let listed = run_for(&fc_list, &[":", "family"], Duration::from_secs(10)).unwrap_or_default();
    let mut families: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split(',').next())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    families.sort_unstable();
    families.dedup();
    if families.is_empty() {
        checks.push(
            check(
                CAT,
                "fonts.installed",
                Status::Warn,
                "No fonts installed: pages render text as boxes and screenshots are unreadable"
                    .into(),
            )
            .fix("apt-get install -y fonts-liberation"),
        );
    } else {
        let sample: Vec<&str> = families.iter().take(3).copied().collect();
        checks.push(check(
            CAT,
            "fonts.installed",
            Status::Pass,
            format!(
                "{} font families (e.g. {})",
                families.len(),
                sample.join(", ")
            ),
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Daemons

/// One line per session in the socket directory (`daemon.session.<name>`), or `daemon.active`
/// when there is none. Files of a daemon whose process is gone are removed on the spot
/// (`daemon.cleaned.<name>`): nothing can use them. A socket without a pid file that nobody
/// answers may be a daemon still starting, so it is removed only when old or with `--fix`.
fn daemons(dir: &Path, fix: bool, checks: &mut Vec<Check>) {
    const CAT: &str = "Daemons";
    let Some(names) = abx_daemon::sidecar::session_names(dir) else {
        checks.push(check(
            CAT,
            "daemon.active",
            Status::Pass,
            "No daemons (the socket directory does not exist yet)".into(),
        ));
        return;
    };
    let mut sessions = 0;
    for name in names {
        let sock = dir.join(format!("{name}.sock"));
        let pid: Option<i32> = std::fs::read_to_string(dir.join(format!("{name}.pid")))
            .ok()
            .and_then(|p| p.trim().parse().ok());
        let answers = std::os::unix::net::UnixStream::connect(&sock).is_ok();
        let alive = pid.is_some_and(crate::client::pid_alive);
        let pid_text = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
        match (answers, pid, alive) {
            (true, _, _) => {
                sessions += 1;
                let version = std::fs::read_to_string(dir.join(format!("{name}.version")))
                    .ok()
                    .map(|v| v.trim().to_string());
                let line = match version {
                    Some(v) if v != crate::upstream::UPSTREAM_VERSION => check(
                        CAT,
                        format!("daemon.session.{name}"),
                        Status::Warn,
                        format!(
                            "Session {name}{pid_text} runs version {v}, not this CLI's {}",
                            crate::upstream::UPSTREAM_VERSION
                        ),
                    )
                    .fix(format!("agent-browser --session {name} close")),
                    _ => check(
                        CAT,
                        format!("daemon.session.{name}"),
                        Status::Pass,
                        format!("Session {name}{pid_text}"),
                    ),
                };
                checks.push(line);
            }
            (false, Some(pid), true) => {
                sessions += 1;
                checks.push(
                    check(
                        CAT,
                        format!("daemon.session.{name}"),
                        Status::Warn,
                        format!(
                            "Session {name}: its daemon (pid {pid}) is alive but does not answer \
                             on {}",
                            sock.display()
                        ),
                    )
                    .fix(format!(
                        "agent-browser --session {name} close; if that hangs: kill {pid}"
                    )),
                );
            }
            (false, pid, _) => {
                let why = match pid {
                    Some(pid) => format!("pid {pid} is gone"),
                    None => "no pid file and nothing listens on its socket".to_string(),
                };
                let removable = pid.is_some() || fix || older_than(&sock, Duration::from_secs(10));
                if removable {
                    let removed = remove_session_files(dir, &name);
                    checks.push(check(
                        CAT,
                        format!("daemon.cleaned.{name}"),
                        Status::Warn,
                        format!(
                            "Removed stale files of session \"{name}\" ({why}): {}",
                            removed.join(", ")
                        ),
                    ));
                } else {
                    checks.push(
                        check(
                            CAT,
                            format!("daemon.stale.{name}"),
                            Status::Warn,
                            format!("Stale files of session \"{name}\" ({why})"),
                        )
                        .fix("agent-browser doctor --fix"),
                    );
                }
            }
        }
    }
    if sessions == 0 {
        checks.push(check(
            CAT,
            "daemon.active",
            Status::Pass,
            "No active daemons".into(),
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Security and providers

/// The key of `auth save` and encrypted state files; `--fix` creates a missing one.
fn security(host: &dyn Host, fix: bool, checks: &mut Vec<Check>, fixed: &mut Vec<String>) {
    use abx_daemon::vault::{KeySource, Vault};
    const CAT: &str = "Security";
    const ID: &str = "security.encryption_key";
    const GENERATE: &str = "export AGENT_BROWSER_ENCRYPTION_KEY=$(openssl rand -hex 32)";
    let vault = Vault::from_env(&|name| host.var(name));
    let line = match vault.key_source() {
        KeySource::Env => check(
            CAT,
            ID,
            Status::Pass,
            "AGENT_BROWSER_ENCRYPTION_KEY is set (64 hex digits)".into(),
        ),
        KeySource::EnvInvalid => check(
            CAT,
            ID,
            Status::Fail,
            "AGENT_BROWSER_ENCRYPTION_KEY is not 64 hex digits: auth save and auth login fail"
                .into(),
        )
        .fix(GENERATE),
        KeySource::File(path) => check(
            CAT,
            ID,
            Status::Pass,
            format!("Encryption key in {}", path.display()),
        ),
        KeySource::FileInvalid(path) => check(
            CAT,
            ID,
            Status::Fail,
            format!(
                "{} does not hold 64 hex digits: auth profiles cannot be opened",
                path.display()
            ),
        )
        .fix(format!(
            "{GENERATE}, or replace {} (profiles saved with the old key are lost)",
            path.display()
        )),
        KeySource::Missing(path) if fix => match vault.ensure_key() {
            Ok(_) => {
                fixed.push(format!("Generated encryption key {}", path.display()));
                check(
                    CAT,
                    ID,
                    Status::Pass,
                    format!("Encryption key in {}", path.display()),
                )
            }
            Err(e) => check(
                CAT,
                ID,
                Status::Warn,
                format!("Cannot create the encryption key: {e}"),
            )
            .fix(GENERATE),
        },
        KeySource::Missing(path) => check(
            CAT,
            ID,
            Status::Info,
            format!(
                "No encryption key yet: the first auth save creates {}",
                path.display()
            ),
        )
        .fix(GENERATE),
    };
    checks.push(line);
}

/// Upstream's cloud providers and `chat`: abx runs none of them (one line each, so a script
/// that looks for them finds why).
fn providers(host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Providers";
    const ATTACH: &str = "attach to its browser with --cdp <its CDP WebSocket URL>";
    let set = |key: &str| host.var(key).is_some_and(|v| !v.is_empty());
    for (id, name, key) in [
        ("browserless", "Browserless", "BROWSERLESS_API_KEY"),
        ("browserbase", "Browserbase", "BROWSERBASE_API_KEY"),
        ("browseruse", "Browser Use", "BROWSER_USE_API_KEY"),
        ("kernel", "Kernel", "KERNEL_API_KEY"),
    ] {
        let state = if set(key) { "set" } else { "not set" };
        checks.push(check(
            CAT,
            format!("providers.{id}"),
            Status::Info,
            format!("{name}: -p {id} is not supported by abx ({key} {state}); {ATTACH}"),
        ));
    }
    let aws = set("AWS_ACCESS_KEY_ID") || set("AWS_PROFILE");
    checks.push(check(
        CAT,
        "providers.agentcore",
        Status::Info,
        format!(
            "AgentCore: -p agentcore is not supported by abx (AWS credentials {}); {ATTACH}",
            if aws { "set" } else { "not set" }
        ),
    ));
    checks.push(check(
        CAT,
        "providers.chat",
        Status::Info,
        format!(
            "chat is not provided by abx (AI_GATEWAY_API_KEY {})",
            if set("AI_GATEWAY_API_KEY") {
                "set"
            } else {
                "not set"
            }
        ),
    ));
}

fn older_than(path: &Path, age: Duration) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_none_or(|elapsed| elapsed > age)
}

fn remove_session_files(dir: &Path, name: &str) -> Vec<String> {
    // What a daemon removes when it exits; `.target` stays (a Host's stage rebinds from it).
    abx_daemon::sidecar::EPHEMERAL
        .iter()
        .filter_map(|suffix| {
            let file = format!("{name}.{suffix}");
            std::fs::remove_file(dir.join(&file)).ok().map(|()| file)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Launch test

/// A real session in a scratch socket directory: `open about:blank`, then `close`.
fn launch_test(inv: &Invocation, host: &dyn Host, checks: &mut Vec<Check>) {
    const CAT: &str = "Launch test";
    let skipped = if inv.flags.cdp.is_some() {
        Some(("cdp", "sessions attach to --cdp / AGENT_BROWSER_CDP"))
    } else if inv.flags.auto_connect {
        Some((
            "auto_connect",
            "sessions attach to a running Chrome (--auto-connect)",
        ))
    } else if inv.flags.provider.is_some() {
        Some((
            "provider",
            "a provider is configured (-p / AGENT_BROWSER_PROVIDER)",
        ))
    } else {
        None
    };
    if let Some((what, why)) = skipped {
        checks.push(check(
            CAT,
            format!("launch.skipped.{what}"),
            Status::Info,
            format!("Skipped: {why}, so no local browser would launch"),
        ));
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        checks.push(check(
            CAT,
            "launch.elapsed",
            Status::Warn,
            "Cannot find this binary to run the launch test".into(),
        ));
        return;
    };
    let scratch = host
        .temp_dir()
        .join(format!("abx-doctor-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        checks.push(check(
            CAT,
            "launch.elapsed",
            Status::Warn,
            format!("Cannot create {}: {e}", scratch.display()),
        ));
        return;
    }
    let session = "doctor";
    let command = |args: &[&str]| {
        let mut command = std::process::Command::new(&exe);
        command
            .args(["--session", session, "--json"])
            .args(args)
            .env(abx_wire::env::SOCKET_DIR, &scratch)
            // If `close` never reaches it, the scratch daemon still goes away by itself.
            .env(abx_wire::env::IDLE_TIMEOUT_MS, "60000")
            .env_remove(abx_wire::env::SESSION)
            .env_remove(abx_wire::env::NAMESPACE)
            .env_remove(abx_wire::env::DAEMON)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .stdout(Stdio::piped());
        command
    };
    let started = Instant::now();
    let opened = command(&["open", "about:blank"]).output();
    let elapsed = started.elapsed();
    let _ = command(&["close"]).output();
    let _ = std::fs::remove_dir_all(&scratch);
    match opened {
        Ok(output) if output.status.success() => {
            let reply: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
            let kind = reply
                .pointer("/data/lifecycle/effectiveLaunch/browser/kind")
                .and_then(Value::as_str)
                .map(|k| format!(" with {k}"))
                .unwrap_or_default();
            checks.push(check(
                CAT,
                "launch.elapsed",
                Status::Pass,
                format!(
                    "Headless launch{kind} + about:blank in {:.2}s",
                    elapsed.as_secs_f64()
                ),
            ));
        }
        Ok(output) => {
            let reply: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
            let error = reply
                .get("error")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| String::from_utf8_lossy(&output.stderr).trim().to_string());
            checks.push(
                check(
                    CAT,
                    "launch.elapsed",
                    Status::Fail,
                    format!("Headless launch failed: {error}"),
                )
                .fix("agent-browser --debug open about:blank, then read the daemon log in the socket directory"),
            );
        }
        Err(e) => checks.push(check(
            CAT,
            "launch.elapsed",
            Status::Fail,
            format!("Cannot run the launch test: {e}"),
        )),
    }
}
