//! Helpers for the front's tests: the built binaries, the fixture site on its own runtime, and
//! an `abx-host` process on stdio whose guard ends it the way a Host would (EOF on its stdin,
//! so the front closes its runs) and then by pid if it does not exit.

#![allow(dead_code, missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The folder holding this test's binaries (`target/<profile>`).
pub(crate) fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    exe.parent()
        .and_then(Path::parent)
        .expect("target dir")
        .to_path_buf()
}

/// The `abx-host` binary cargo built for these tests.
pub(crate) fn abx_host() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_abx-host"))
}

// The one helper that gives every test package a fresh `agent-browser` (it is another package's
// binary, so `CARGO_BIN_EXE_agent-browser` does not exist here).
#[path = "../../../../tests/support/fresh_binary.rs"]
mod fresh_binary;

/// The `agent-browser` binary, built first when it is missing or older than its sources (a
/// `cargo test -p abx-host-front` does not build it).
pub(crate) fn agent_browser() -> PathBuf {
    fresh_binary::agent_browser()
}

/// The fixture site, served by its own runtime for as long as this lives.
pub(crate) struct Site {
    pub server: abx_fixtures::FixtureServer,
    _runtime: tokio::runtime::Runtime,
}

impl Site {
    pub(crate) fn start() -> Site {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let server = runtime
            .block_on(abx_fixtures::FixtureServer::start())
            .expect("fixture site");
        Site {
            server,
            _runtime: runtime,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        self.server.url(path)
    }
}

/// A Host's folders: home and a short socket root, removed at the end.
pub(crate) struct Place {
    pub home: tempfile::TempDir,
    pub sockets: tempfile::TempDir,
}

impl Place {
    pub(crate) fn new() -> Place {
        Place {
            home: tempfile::Builder::new()
                .prefix("abxf-home")
                .tempdir()
                .expect("home"),
            sockets: tempfile::Builder::new()
                .prefix("abxf")
                .tempdir_in("/tmp")
                .expect("socket root"),
        }
    }

    pub(crate) fn socket_root(&self) -> PathBuf {
        self.sockets.path().join("s")
    }

    /// Session dirs left in the socket root.
    pub(crate) fn session_dirs(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.socket_root())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect()
    }

    /// Arguments for an `abx-host` on this place: headless, live view on.
    pub(crate) fn args(&self) -> Vec<String> {
        [
            "--home",
            &self.home.path().to_string_lossy(),
            "--socket-root",
            &self.socket_root().to_string_lossy(),
            "--agent-browser",
            &agent_browser().to_string_lossy(),
            "--screen",
            "none",
            "--live-view",
            "--launch-arg",
            "--disable-quic",
            "--launch-arg",
            "--disable-gpu",
            "--liveness-timeout-ms",
            "2000",
        ]
        .iter()
        .map(ToString::to_string)
        .collect()
    }
}

/// `abx-host` on stdio.
pub(crate) struct FrontProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
    /// Lines read while waiting for something else (events, viewer lines, unmatched errors).
    pub seen: Vec<Value>,
    /// What this Host answers when asked about a run.
    pub liveness: Box<dyn Fn(&str) -> &'static str>,
}

impl FrontProcess {
    pub(crate) fn start(args: &[String]) -> FrontProcess {
        let mut child = Command::new(abx_host())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("abx-host starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("abx-host wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut front = FrontProcess {
            child,
            stdin,
            lines,
            next_id: 0,
            seen: Vec::new(),
            liveness: Box::new(|_| "running"),
        };
        let ready = front
            .next_line(Duration::from_secs(30))
            .expect("ready line");
        assert_eq!(ready["event"], "ready", "{ready}");
        assert_eq!(ready["protocol"], 1);
        front
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write to abx-host");
        stdin.flush().expect("flush");
    }

    /// The next line, answering liveness questions on the way.
    pub(crate) fn next_line(&mut self, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            if line["ask"] == "run_state" {
                let state = (self.liveness)(line["run"].as_str().unwrap_or(""));
                let answer =
                    json!({"op": "answer", "args": {"ask_id": line["ask_id"], "state": state}});
                self.send_raw(&answer.to_string());
                continue;
            }
            return Some(line);
        }
    }

    /// Waits for a line `matches` accepts; others are kept in `seen`.
    pub(crate) fn wait_for(
        &mut self,
        what: &str,
        within: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Value {
        if let Some(at) = self.seen.iter().position(&matches) {
            return self.seen.remove(at);
        }
        let deadline = Instant::now() + within;
        loop {
            let left = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("no {what} within {within:?}; seen {:?}", self.seen));
            match self.next_line(left) {
                Some(line) if matches(&line) => return line,
                Some(line) => self.seen.push(line),
                None => panic!("no {what} within {within:?}; seen {:?}", self.seen),
            }
        }
    }

    /// Sends a request; its id.
    pub(crate) fn send(&mut self, op: &str, args: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send_raw(&json!({"v": 1, "id": id, "op": op, "args": args}).to_string());
        id
    }

    /// The reply to request `id` (its `result`, or `Err` with the error object).
    pub(crate) fn reply(&mut self, id: u64, within: Duration) -> Result<Value, Value> {
        let line = self.wait_for(&format!("reply {id}"), within, |l| l["id"] == id);
        match line.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(line["result"].clone()),
        }
    }

    /// A request and its reply.
    pub(crate) fn call(&mut self, op: &str, args: Value) -> Result<Value, Value> {
        let id = self.send(op, args);
        self.reply(id, Duration::from_secs(120))
    }

    /// Closes stdin (the Host went away) and waits for the exit.
    pub(crate) fn close_stdin_and_wait(
        &mut self,
        within: Duration,
    ) -> Option<std::process::ExitStatus> {
        self.stdin.take();
        self.wait_for_exit(within)
    }

    /// Waits for the process to exit.
    pub(crate) fn wait_for_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for FrontProcess {
    fn drop(&mut self) {
        // EOF first: the front closes the runs it opened, then exits.
        if self.close_stdin_and_wait(Duration::from_secs(90)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
