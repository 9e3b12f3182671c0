//! The real applications' side of `tests/real_apps.rs`: where they are installed, a server process
//! that a test owns (its own process group, killed with everything it started when dropped), free
//! ports, readiness by HTTP, and reading `snapshot -i` the way an agent does.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// What a developer without the applications runs (CI runs it from `.ci/run`).
pub(crate) const INSTALL: &str = "scripts/ensure-real-apps.sh";

/// The Python venv with Django, JupyterLab and ipykernel that `scripts/ensure-real-apps.sh`
/// builds: `$ABX_REAL_APPS_VENV`, else `~/.cache/abx-real-apps/venv`. Panics with the install
/// command when it is missing or lacks one of `modules`: a missing application is a failure,
/// never a skip.
pub(crate) fn venv(modules: &[&str]) -> PathBuf {
    let venv = match std::env::var_os("ABX_REAL_APPS_VENV") {
        Some(path) => PathBuf::from(path),
        None => {
            let home = std::env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".cache/abx-real-apps/venv")
        }
    };
    let python = venv.join("bin/python");
    let check = format!(
        "import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in {modules:?}))"
    );
    let found = Command::new(&python)
        .args(["-c", &check])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    assert!(
        found,
        "the real applications are not installed: no Python venv with {modules:?} at {} \
         (set ABX_REAL_APPS_VENV to use another). Install them with `{INSTALL}` (as root: it \
         also apt-get installs python3-doc).",
        venv.display()
    );
    venv
}

/// The root of Debian's Python documentation (package `python3-doc`); panics with the install
/// command when it is missing.
pub(crate) fn python_docs() -> PathBuf {
    let root = PathBuf::from("/usr/share/doc/python3/html");
    assert!(
        root.join("search.html").is_file(),
        "the Python documentation is not installed: no {}/search.html (Debian package \
         python3-doc). Install it with `{INSTALL}` (as root).",
        root.display()
    );
    root
}

/// A port nobody listens on at the moment (the server that takes it reports a clash by exiting,
/// which [`AppServer::wait_ready`] turns into a failure with its log).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

/// Runs a set-up command to completion; panics with its output when it fails.
#[track_caller]
pub(crate) fn run_setup(command: &mut Command) -> String {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// An application server the test started: in its own process group, its output in a log file.
/// Dropping it kills the group and every process the server started in a group of its own (a
/// Jupyter kernel runs in a new session), then waits for all of them to be gone.
pub(crate) struct AppServer {
    name: &'static str,
    child: Child,
    port: u16,
    /// Removed when the server is dropped (after it was killed).
    log: tempfile::NamedTempFile,
}

impl AppServer {
    /// Starts `command` (which must listen on `port`) in a new process group, its stdout and
    /// stderr in a temp file.
    pub(crate) fn start(name: &'static str, mut command: Command, port: u16) -> AppServer {
        let log = tempfile::NamedTempFile::new().expect("server log");
        let out = log.reopen().expect("server log");
        let err = log.reopen().expect("server log");
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({command:?}): {e}"));
        AppServer {
            name,
            child,
            port,
            log,
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The server's pid (also its process group).
    pub(crate) fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Polls `GET path` until it answers `200`, within `within`; panics with the server's log when
    /// the server exits or the deadline passes.
    pub(crate) fn wait_ready(&mut self, path: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            if let Some((200, _)) = http_get(self.port, path) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before it answered GET {path}:\n{}",
                    self.name,
                    self.log_text()
                );
            }
            assert!(
                Instant::now() < deadline,
                "{} did not answer GET {path} with 200 within {within:?}:\n{}",
                self.name,
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the server printed so far.
    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// `GET path` on the server: status and body.
    #[track_caller]
    pub(crate) fn get(&self, path: &str) -> (u16, String) {
        http_get(self.port, path).unwrap_or_else(|| {
            panic!(
                "{} did not answer GET {path}:\n{}",
                self.name,
                self.log_text()
            )
        })
    }

    /// Every live process the server started, at any depth (from /proc).
    pub(crate) fn descendants(&self) -> Vec<i32> {
        let mut found = Vec::new();
        let mut next = vec![self.pid()];
        while let Some(pid) = next.pop() {
            for child in abx_tests::children(pid) {
                if !found.contains(&child) {
                    found.push(child);
                    next.push(child);
                }
            }
        }
        abx_tests::pids_alive(&found)
    }

    /// Stops the server and everything it started; asserts that every process is gone and the
    /// port is closed. (Drop does the same without asserting, for a test that failed.)
    pub(crate) fn stop(mut self) {
        let pids = self.kill_all();
        assert!(
            abx_tests::wait_gone_blocking(&pids, Duration::from_secs(10)).is_some(),
            "{} left processes behind: {:?}",
            self.name,
            abx_tests::pids_alive(&pids)
        );
        assert!(
            TcpStream::connect(("127.0.0.1", self.port)).is_err(),
            "port {} of {} still accepts connections",
            self.port,
            self.name
        );
    }

    /// Freezes the group (so it starts nothing new), kills it and every descendant with a group
    /// of its own, reaps the server; returns the pids killed.
    fn kill_all(&mut self) -> Vec<i32> {
        let group = Pid::from_raw(self.pid());
        if self.child.try_wait().ok().flatten().is_some() {
            return Vec::new();
        }
        let _ = killpg(group, Signal::SIGSTOP);
        let mut pids = self.descendants();
        for &pid in &pids {
            // A descendant that leads a group of its own (a kernel in its own session) takes
            // its group down with it; the others are in the server's group.
            if std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 2..];
                    rest.split_whitespace().nth(2)?.parse::<i32>().ok()
                })
                == Some(pid)
            {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            }
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        abx_tests::kill_group(self.pid());
        let _ = self.child.wait();
        pids.push(self.pid());
        pids
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let pids = self.kill_all();
        let _ = abx_tests::wait_gone_blocking(&pids, Duration::from_secs(10));
    }
}

/// One `GET` over HTTP/1.0 on loopback: the status and the body, or `None` when nothing answers.
pub(crate) fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .set_write_timeout(Some(Duration::from_secs(5)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let response = String::from_utf8_lossy(&response);
    let status = response.split_whitespace().nth(1)?.parse().ok()?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default();
    Some((status, body))
}

/// The `@ref` of the first line of `snapshot` (`snapshot -i` output) that contains `line`
/// (case-insensitive: an admin theme may upper-case its labels through CSS), searching only after
/// the first line that contains `after` when given. Panics with the snapshot when there is none.
#[track_caller]
pub(crate) fn find_ref(snapshot: &str, after: Option<&str>, line: &str) -> String {
    let wanted = line.to_lowercase();
    let mut lines = snapshot.lines();
    if let Some(anchor) = after {
        let anchor = anchor.to_lowercase();
        if !lines.any(|l| l.to_lowercase().contains(&anchor)) {
            panic!("no line with {anchor:?} in the snapshot:\n{snapshot}");
        }
    }
    lines
        .find(|l| l.to_lowercase().contains(&wanted))
        .and_then(|l| {
            let start = l.find("ref=")? + 4;
            let end = l[start..]
                .find([',', ']'])
                .map_or(l.len(), |end| start + end);
            Some(format!("@{}", &l[start..end]))
        })
        .unwrap_or_else(|| {
            panic!(
                "no line with {wanted:?} and a ref (after {after:?}) in the snapshot:\n{snapshot}"
            )
        })
}

#[test]
fn a_ref_is_found_by_its_line_and_after_an_anchor() {
    let snapshot = "- heading \"Notebook\" [level=2, ref=e32]\n\
        - button \"Python 3 (ipykernel)\" [ref=e33]\n\
        - heading \"Console\" [level=2, ref=e34]\n\
        - button \"Python 3 (ipykernel)\" [ref=e35]\n\
        - link \"ADD BOOK\" [ref=e75]";
    assert_eq!(
        find_ref(snapshot, None, "button \"Python 3 (ipykernel)"),
        "@e33"
    );
    assert_eq!(
        find_ref(snapshot, Some("heading \"Console\""), "button \"Python 3"),
        "@e35"
    );
    assert_eq!(find_ref(snapshot, None, "link \"Add book\""), "@e75");
}
