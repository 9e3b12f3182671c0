//! Runs the `agent-browser` binary in isolation: its own HOME and socket dir per [`Cli`], and a
//! guard that ends the daemons it started (by PID, read from their `.pid` files) when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Path of the `agent-browser` binary, never older than its sources.
///
/// `cargo test -p abx-tests` does not build other packages' binaries, so a test could run an
/// old `agent-browser` against new code. The first call in a test process checks the binary
/// against the sources cargo built it from (its `.d` file, cargo's own freshness rule); when
/// it is missing or stale it runs `cargo build -p agent-browser` for the test's profile and
/// target directory, and fails the test loudly if that does not give a fresh binary. A binary
/// that is already fresh (after `./scripts/test.sh`'s workspace build) costs one stat per
/// source file.
pub fn binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    match BUILT.get_or_init(fresh_binary) {
        Ok(path) => path.clone(),
        Err(why) => panic!("no fresh agent-browser binary for the tests: {why}"),
    }
}

/// Where the binary of this test's profile lives: `<target>/<profile>/agent-browser` next to
/// the test executable's `deps/` dir.
fn binary_path() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("test executable path: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .ok_or("the test executable is not in a cargo target dir")?;
    Ok(profile_dir.join("agent-browser"))
}

fn fresh_binary() -> Result<PathBuf, String> {
    let path = binary_path()?;
    if binary_is_fresh(&path) {
        return Ok(path);
    }
    let profile_dir = path.parent().ok_or("the binary path has no dir")?;
    let target_dir = profile_dir
        .parent()
        .ok_or("the test executable is not in a cargo target dir")?;
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_string(),
        Some(name) => name.to_string(),
        None => return Err("the test executable's profile dir has no name".into()),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("the tests crate has no parent dir")?;
    let out = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "agent-browser",
            "--bin",
            "agent-browser",
        ])
        .arg("--profile")
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(workspace)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build -p agent-browser failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !binary_is_fresh(&path) {
        return Err(format!(
            "{} is still older than its sources after cargo build",
            path.display()
        ));
    }
    Ok(path)
}

/// Whether `binary` exists and is at least as new as every source file its `.d` file (written
/// by cargo next to it) lists.
pub fn binary_is_fresh(binary: &Path) -> bool {
    let Ok(built) = std::fs::metadata(binary).and_then(|m| m.modified()) else {
        return false;
    };
    let Ok(dep_info) = std::fs::read_to_string(binary.with_extension("d")) else {
        return false;
    };
    let sources = dep_info_sources(&dep_info);
    !sources.is_empty()
        && sources.iter().all(|source| {
            std::fs::metadata(source)
                .and_then(|m| m.modified())
                // A source that is gone changed the build too.
                .is_ok_and(|modified| modified <= built)
        })
}

/// The prerequisites of a make-style dep-info file (`target: a.rs b\ c.rs …`).
fn dep_info_sources(dep_info: &str) -> Vec<PathBuf> {
    let Some((_, deps)) = dep_info.split_once(": ") else {
        return Vec::new();
    };
    let mut sources = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(|n| *n == ' ') => {
                current.push(' ');
                chars.next();
            }
            '\\' if chars.peek().is_some_and(|n| *n == '\n') => {
                chars.next();
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    sources.push(PathBuf::from(std::mem::take(&mut current)));
                }
                // Anything after a blank line is another rule (cargo writes one rule).
                if c == '\n' && chars.peek().is_some_and(|n| *n == '\n') {
                    break;
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        sources.push(PathBuf::from(current));
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dep_info_lists_every_prerequisite() {
        let text = "/t/debug/agent-browser: /w/cli/src/main.rs /w/a\\ b.rs \\\n /w/c.rs\n\n/w/cli/src/main.rs:\n";
        assert_eq!(
            dep_info_sources(text),
            vec![
                PathBuf::from("/w/cli/src/main.rs"),
                PathBuf::from("/w/a b.rs"),
                PathBuf::from("/w/c.rs"),
            ]
        );
    }
}

/// The environment every test CLI starts with: the machine's Chrome args, and an idle timeout as
/// a safety net, so a daemon whose test process died before cleaning up still ends (tests that
/// check idle behaviour set their own).
fn test_env() -> Vec<(String, String)> {
    vec![
        (
            "AGENT_BROWSER_ARGS".into(),
            super::TEST_CHROME_ARGS.join(","),
        ),
        ("AGENT_BROWSER_IDLE_TIMEOUT_MS".into(), "120000".into()),
    ]
}

/// What one invocation printed.
#[derive(Debug, Clone)]
pub struct Output {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall time.
    pub took: Duration,
}

impl Output {
    /// Asserts exit 0 and returns self.
    #[track_caller]
    pub fn success(self) -> Self {
        assert_eq!(self.code, 0, "expected success, got {self:#?}");
        self
    }

    /// Asserts a non-zero exit and returns self.
    #[track_caller]
    pub fn failure(self) -> Self {
        assert_ne!(self.code, 0, "expected failure, got {self:#?}");
        self
    }

    /// stdout without the trailing newline.
    pub fn out(&self) -> &str {
        self.stdout.trim_end_matches('\n')
    }

    /// stdout (pretty JSON of numbers, as `eval` prints arrays) parsed into integers.
    pub fn json_lines(&self) -> Vec<i64> {
        serde_json::from_str::<Vec<i64>>(self.stdout.trim()).unwrap_or_default()
    }

    /// stdout parsed as the single `--json` line.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {self:#?}"))
    }
}

/// An isolated CLI environment: a temp HOME with its own socket dir, a session name, extra env.
pub struct Cli {
    home: tempfile::TempDir,
    socket_dir: PathBuf,
    session: String,
    env: Vec<(String, String)>,
    /// Daemons seen, to clean up.
    seen: std::sync::Mutex<Vec<(PathBuf, i32)>>,
}

impl Default for Cli {
    fn default() -> Self {
        Self::new()
    }
}

impl Cli {
    /// A fresh environment with session `t` and the machine's Chrome test args.
    pub fn new() -> Cli {
        let home = tempfile::tempdir().expect("temp home");
        let socket_dir = home.path().join("s");
        Cli {
            home,
            socket_dir,
            session: "t".into(),
            env: test_env(),
            seen: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Another session name in the same socket dir.
    pub fn session(mut self, name: &str) -> Cli {
        self.session = name.into();
        self
    }

    /// Sets an environment variable for every invocation.
    pub fn env(mut self, key: &str, value: &str) -> Cli {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
        self
    }

    /// Removes a variable set by [`Cli::new`] or [`Cli::env`].
    pub fn without(mut self, key: &str) -> Cli {
        self.env.retain(|(k, _)| k != key);
        self
    }

    /// Another CLI sharing this one's HOME and socket dir, with its own session and env.
    pub fn sibling(&self, session: &str) -> Cli {
        let home = tempfile::tempdir().expect("temp home");
        Cli {
            home,
            socket_dir: self.socket_dir.clone(),
            session: session.into(),
            env: test_env(),
            seen: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The socket directory.
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// The HOME directory.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The session name.
    pub fn session_name(&self) -> &str {
        &self.session
    }

    /// `<socket_dir>/<session>.<suffix>`.
    pub fn file(&self, suffix: &str) -> PathBuf {
        self.socket_dir.join(format!("{}.{suffix}", self.session))
    }

    /// The CDP calls and sends the daemon has logged so far, one line each, in order; the
    /// session must run with `AGENT_BROWSER_DEBUG=1` and `ABX_LOG=abx_cdp=trace`.
    pub fn cdp_traffic(&self) -> Vec<String> {
        std::fs::read_to_string(self.file("log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| {
                l.contains("abx_cdp::connection: call") || l.contains("abx_cdp::connection: send")
            })
            .map(str::to_string)
            .collect()
    }

    /// The daemon's pid, from its `.pid` file.
    pub fn daemon_pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.file("pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// The command for `args`, fully isolated from the caller's environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(binary());
        command.args(args).env_clear();
        for key in ["PATH", "TMPDIR", "LANG"] {
            if let Ok(value) = std::env::var(key) {
                command.env(key, value);
            }
        }
        command
            .env("HOME", self.home.path())
            .env("AGENT_BROWSER_SOCKET_DIR", &self.socket_dir)
            .env("AGENT_BROWSER_SESSION", &self.session)
            .env("AGENT_BROWSER_NO_VERSION_CHECK", "1");
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command.stdin(Stdio::null());
        command
    }

    /// Runs `agent-browser <args>` to completion.
    pub fn run(&self, args: &[&str]) -> Output {
        let started = Instant::now();
        let output = self.command(args).output().expect("run agent-browser");
        self.remember();
        Output {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).to_string(),
            took: started.elapsed(),
        }
    }

    /// Starts `agent-browser <args>` without waiting.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn agent-browser")
    }

    /// Records the current daemon for cleanup.
    pub fn remember(&self) {
        if let Some(pid) = self.daemon_pid()
            && let Ok(mut seen) = self.seen.lock()
            && !seen.iter().any(|(_, p)| *p == pid)
        {
            seen.push((self.socket_dir.clone(), pid));
        }
    }
}

/// Waits for a result of a spawned invocation.
pub fn finish(child: std::process::Child) -> Output {
    let started = Instant::now();
    let output = child.wait_with_output().expect("wait agent-browser");
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).to_string(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        took: started.elapsed(),
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        // A test that failed half way may leave its daemon: ask it to close, then make sure.
        self.remember();
        let seen = self.seen.lock().map(|s| s.clone()).unwrap_or_default();
        for (_, pid) in seen {
            // Never signal init or ourselves, whatever a test wrote into a pid file.
            if pid <= 1 || pid == std::process::id() as i32 || super::pids_alive(&[pid]).is_empty()
            {
                continue;
            }
            let _ = self.command(&["close"]).output();
            let deadline = Instant::now() + Duration::from_secs(5);
            while !super::pids_alive(&[pid]).is_empty() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            if !super::pids_alive(&[pid]).is_empty() {
                // The daemon's orphan guard takes its Chrome down when the daemon dies.
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}
