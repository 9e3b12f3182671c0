//! `install [--with-deps]`: makes sure a system Chrome is there. abx never downloads a browser
//! build: with Chrome or Chromium found it says which and exits 0; on Debian or Ubuntu as root
//! it installs Debian's packages with apt-get (`chromium chromium-headless-shell`, plus `xvfb
//! fonts-liberation ffmpeg libnss3-tools` with `--with-deps`); anywhere else it prints the packages and the
//! command to run, and exits 1. Upstream downloads Chrome for Testing instead. A `--ca-cert`
//! that holds no certificate is refused first (exit 1, the file named on stderr).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::commands::invocation::{Invocation, LocalCommand, LocalRun};
use crate::commands::prelude::{Command, Grammar, Help, McpTool};
use crate::host::Host;
use crate::output::rendered::Rendered;
use crate::output::text::Palette;

/// The command.
pub const COMMAND: Command = Command {
    names: &["install"],
    help: Some(Help {
        about: "Find a system Chrome, or install Debian's chromium (never downloads a build)",
        usage: &["install [--with-deps]"],
        examples: &["install", "install --with-deps"],
        description: "\
Makes sure a Chrome or Chromium is there. abx never downloads a browser build: when one is
found it says which; on Debian or Ubuntu as root it installs Debian's chromium packages with
apt-get; elsewhere it prints the packages and the command to run.",
        sections: &[(
            "Options",
            &[(
                "-d, --with-deps",
                "Also install Xvfb, fonts, ffmpeg and certutil (Linux)",
            )],
        )],
        exit_codes: &[
            ("0", "A browser is there (found or installed)"),
            ("1", "None found and none could be installed"),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Local(parse),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    153,
    "agent_browser_install",
    "debug",
    &["install"],
    "withDeps:b@--with-deps",
)
.closed_world()];

/// The browser packages (Debian and Ubuntu).
pub const BROWSER_PACKAGES: &[&str] = &["chromium", "chromium-headless-shell"];
/// What `--with-deps` adds: a display for headed sessions, fonts, and ffmpeg for `record`.
pub const DEPENDENCY_PACKAGES: &[&str] = &["xvfb", "fonts-liberation", "ffmpeg", "libnss3-tools"];

fn parse(clean: &[String]) -> LocalCommand {
    LocalRun::command(clean, run)
}

/// A browser found on this machine.
struct Found {
    path: PathBuf,
    version: Option<String>,
}

fn find_browser(inv: &Invocation) -> Option<Found> {
    let explicit = inv
        .flags
        .executable_path
        .as_deref()
        .filter(|p| !p.is_empty());
    let path = abx_chrome::find_chrome(explicit.map(Path::new)).ok()?;
    let version = version_of(&path);
    Some(Found { path, version })
}

fn find_shell() -> Option<PathBuf> {
    abx_chrome::HEADLESS_SHELL_CANDIDATES
        .iter()
        .find_map(|name| abx_chrome::find_chrome(Some(Path::new(name))).ok())
}

fn version_of(path: &Path) -> Option<String> {
    let output = std::process::Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    output
        .status
        .success()
        .then(|| text.trim().lines().next().unwrap_or_default().to_string())
        .filter(|v| !v.is_empty())
}

/// Debian, Ubuntu or a derivative, by `/etc/os-release`.
fn is_debian_like(host: &dyn Host) -> bool {
    let Ok(release) = host.read_to_string(Path::new("/etc/os-release")) else {
        return false;
    };
    release.lines().any(|line| {
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        let value = value.trim_matches('"').to_ascii_lowercase();
        matches!(key, "ID" | "ID_LIKE")
            && value
                .split_whitespace()
                .any(|id| id == "debian" || id == "ubuntu")
    })
}

fn on_path(host: &dyn Host, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = host.var("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// What `--with-deps` still needs: the packages of the tools not found on `PATH`.
fn missing_dependencies(host: &dyn Host) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if on_path(host, "Xvfb").is_none() {
        missing.push("xvfb");
    }
    let has_fonts = Path::new("/usr/share/fonts/truetype/liberation").is_dir()
        || Path::new("/usr/share/fonts/truetype/liberation2").is_dir();
    if !has_fonts {
        missing.push("fonts-liberation");
    }
    if on_path(host, "ffmpeg").is_none() {
        missing.push("ffmpeg");
    }
    // certutil: `--ca-cert` puts its CA in a private NSS database for the session's Chrome.
    if on_path(host, "certutil").is_none() {
        missing.push("libnss3-tools");
    }
    missing
}

struct Report {
    json: bool,
    color: bool,
    lines: Vec<String>,
    installed: Vec<String>,
}

impl Report {
    fn say(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    fn finish(self, ok: bool, data: Value, error: Option<String>) -> Rendered {
        let mut rendered = Rendered {
            exit_code: i32::from(!ok),
            ..Rendered::default()
        };
        if self.json {
            let mut line = if ok {
                json!({"success": true, "data": data})
            } else {
                json!({"success": false, "data": data, "error": error})
            };
            line["data"]["installed"] = json!(self.installed);
            rendered.stdout = format!("{line}\n");
            return rendered;
        }
        let palette = Palette(self.color);
        for line in &self.lines {
            rendered.stdout.push_str(line);
            rendered.stdout.push('\n');
        }
        if let Some(error) = error {
            rendered.stderr = format!("{} {error}\n", palette.fail());
        }
        rendered
    }
}

/// Runs `apt-get install -y <packages>` (with an `apt-get update` and a second try when the
/// first fails, as on a fresh machine without package lists). Its output goes to stderr.
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let install = || {
        std::process::Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .stdout(std::io::stderr())
            .status()
    };
    match install() {
        Ok(status) if status.success() => return Ok(()),
        Err(e) => return Err(format!("cannot run apt-get: {e}")),
        Ok(_) => {}
    }
    let _ = std::process::Command::new("apt-get")
        .arg("update")
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status();
    match install() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!(
            "apt-get install {} failed ({status})",
            packages.join(" ")
        )),
        Err(e) => Err(format!("cannot run apt-get: {e}")),
    }
}

fn run(args: &[String], inv: &Invocation, host: &dyn Host) -> Rendered {
    let mut with_deps = false;
    for arg in args {
        match arg.as_str() {
            "--with-deps" | "-d" => with_deps = true,
            other => {
                return crate::output::errors::render_error(
                    &format!(
                        "Unknown install option: {other}. Usage: agent-browser install [--with-deps]"
                    ),
                    &inv.output,
                );
            }
        }
    }
    // A CA file that cannot be trusted is refused before anything runs (upstream checks it
    // before its download; abx has none, but a typo must not pass silently either).
    if let Some(path) = inv.flags.ca_cert.as_deref().filter(|p| !p.is_empty())
        && !inv.flags.clear_ca_cert
        && let Err(e) = abx_engine::tls::ca_certificates(Path::new(path))
    {
        let message = e.to_string();
        let mut rendered = Rendered {
            exit_code: 1,
            stderr: format!("{} {message}\n", Palette(inv.output.color).fail()),
            ..Rendered::default()
        };
        if inv.output.json {
            rendered.stdout = format!("{}\n", crate::output::errors::error_json(&message));
        }
        return rendered;
    }
    let mut report = Report {
        json: inv.output.json,
        color: inv.output.color,
        lines: Vec::new(),
        installed: Vec::new(),
    };
    let ok_mark = Palette(inv.output.color).ok();
    let root = nix::unistd::geteuid().is_root();
    let apt = on_path(host, "apt-get").is_some() && is_debian_like(host);

    let mut found = find_browser(inv);
    if found.is_none() {
        let mut packages: Vec<&str> = BROWSER_PACKAGES.to_vec();
        if with_deps {
            packages.extend(DEPENDENCY_PACKAGES);
        }
        let command = format!("apt-get install -y {}", packages.join(" "));
        if !(root && apt) {
            let why = if apt {
                "installing packages needs root".to_string()
            } else {
                "this is not a Debian or Ubuntu system with apt-get".to_string()
            };
            report.say(format!(
                "No Chrome or Chromium found (looked for {} on PATH).",
                abx_chrome::CANDIDATES.join(", ")
            ));
            report.say("abx uses the system's browser and never downloads one.");
            report.say(format!("Packages (Debian/Ubuntu): {}", packages.join(" ")));
            report.say(format!("Run: sudo {command}"));
            report
                .say("Or point AGENT_BROWSER_EXECUTABLE_PATH at an installed Chrome or Chromium.");
            let data =
                json!({"found": false, "packages": packages, "command": format!("sudo {command}")});
            return report.finish(
                false,
                data,
                Some(format!("No browser installed ({why}): run sudo {command}")),
            );
        }
        report.say(format!("No Chrome found; running: {command}"));
        if let Err(e) = apt_install(&packages) {
            let data = json!({"found": false, "packages": packages, "command": command});
            return report.finish(false, data, Some(e));
        }
        report.installed = packages.iter().map(|p| p.to_string()).collect();
        found = find_browser(inv);
        if found.is_none() {
            let data = json!({"found": false, "packages": packages});
            return report.finish(
                false,
                data,
                Some(format!(
                    "{command} succeeded, but no Chrome is on PATH afterwards"
                )),
            );
        }
    } else if with_deps {
        let missing = missing_dependencies(host);
        if !missing.is_empty() {
            let command = format!("apt-get install -y {}", missing.join(" "));
            if root && apt {
                report.say(format!("Installing dependencies: {command}"));
                if let Err(e) = apt_install(&missing) {
                    return report.finish(false, json!({"found": true}), Some(e));
                }
                report.installed = missing.iter().map(|p| p.to_string()).collect();
            } else {
                report.say(format!("Missing dependencies: {}", missing.join(" ")));
                return report.finish(
                    false,
                    json!({"found": true, "packages": missing, "command": format!("sudo {command}")}),
                    Some(format!("Cannot install dependencies here: run sudo {command}")),
                );
            }
        }
    }

    let Some(found) = found else {
        return report.finish(
            false,
            json!({"found": false}),
            Some("No browser found".into()),
        );
    };
    let version = found.version.clone().unwrap_or_else(|| "Chrome".into());
    report.say(format!(
        "{ok_mark} {version} at {} (abx uses the system browser; nothing to download)",
        found.path.display()
    ));
    let shell = find_shell();
    match &shell {
        Some(shell) => report.say(format!(
            "{ok_mark} Headless shell at {} (headless sessions start with it)",
            shell.display()
        )),
        None => report.say(format!(
            "  No headless shell: headless sessions run full Chrome. For faster starts: {}apt-get install -y chromium-headless-shell",
            if root { "" } else { "sudo " }
        )),
    }
    let data = json!({
        "found": true,
        "executablePath": found.path,
        "version": found.version,
        "headlessShell": shell,
    });
    report.finish(true, data, None)
}
