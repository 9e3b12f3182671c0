//! Runs the `agent-browser` binary in isolation: its own HOME and socket dir per [`Cli`], and a
//! guard that ends the daemons it started (by PID, read from their `.pid` files) when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Path of the `agent-browser` binary, never older than its sources (see
/// [`super::fresh_binary`]).
pub fn binary() -> PathBuf {
    super::fresh_binary::agent_browser()
}

/// Whether `binary` exists and is at least as new as every source its `.d` file lists.
pub fn binary_is_fresh(binary: &Path) -> bool {
    super::fresh_binary::is_fresh(binary)
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

impl std::fmt::Debug for Cli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cli")
            .field("session", &self.session)
            .finish_non_exhaustive()
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
