//! Running `agent-browser` commands with a session's env, as an agent does in bash (seed §8:
//! "BrowserRunner: run agent-browser where the daemon lives").
//!
//! [`CliRunner`] runs every command with `--json`, so each answer carries the command's
//! lifecycle receipt (`data.lifecycle`: launch, reuse, timings; for `close`, the verified
//! cleanup). [`RunOutput::receipt`] reads it; [`Recorder`] appends every receipt of a stage's
//! commands to a file in the stage's folder.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;

use crate::env::BrowserEnv;
use crate::error::{HostError, Result};

/// What one command printed.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// Exit code (-1 when it could not run or was ended at its deadline).
    pub code: i32,
    /// Standard output (the `--json` envelope, from [`CliRunner`]).
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl RunOutput {
    /// The `--json` envelope, when stdout is one.
    fn envelope(&self) -> Option<serde_json::Value> {
        let value: serde_json::Value = serde_json::from_str(self.stdout.trim()).ok()?;
        value.get("success").is_some().then_some(value)
    }

    /// The command's lifecycle receipt (`data.lifecycle` of a `--json` answer): how the browser
    /// was launched or reused, timings, and for `close` the verified cleanup.
    pub fn receipt(&self) -> Option<serde_json::Value> {
        self.envelope()?
            .get("data")?
            .get("lifecycle")
            .filter(|l| !l.is_null())
            .cloned()
    }

    /// The answer's `field` (`data.<field>` of a `--json` answer), or the text the command
    /// printed when it was not run with `--json`.
    pub fn answer(&self, field: &str) -> String {
        match self.envelope() {
            Some(envelope) => match &envelope["data"][field] {
                serde_json::Value::String(text) => text.clone(),
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            },
            None => self.stdout.trim_end_matches('\n').to_string(),
        }
    }

    /// What went wrong, in the command's words (the envelope's `error`, else stderr or stdout).
    fn failure(&self) -> String {
        if let Some(error) = self
            .envelope()
            .and_then(|e| e.get("error").and_then(|e| e.as_str()).map(str::to_string))
        {
            return error;
        }
        if self.stderr.trim().is_empty() {
            self.stdout.trim().to_string()
        } else {
            self.stderr.trim().to_string()
        }
    }
}

/// A boxed future, for object-safe async traits.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs `agent-browser <args>` with exactly `env` (plus the runner's own base, e.g. `PATH`).
pub trait BrowserRunner: Send + Sync {
    /// Runs one command; a deadline ends it with code -1.
    fn run<'a>(
        &'a self,
        env: &'a BrowserEnv,
        args: &'a [&'a str],
        timeout: Duration,
    ) -> BoxFuture<'a, RunOutput>;
}

/// The `agent-browser` binary, started with a cleared environment: the session env plus
/// `PATH`, `HOME`, `TMPDIR` and `LANG` of the Host (never an ambient `AGENT_BROWSER_*`).
#[derive(Clone, Debug)]
pub struct CliRunner {
    binary: PathBuf,
    base: Vec<(String, String)>,
}

impl CliRunner {
    /// Runs `binary` (a path, or a name looked up on `PATH`).
    pub fn new(binary: impl Into<PathBuf>) -> Self {
        let base = ["PATH", "HOME", "TMPDIR", "LANG"]
            .iter()
            .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
            .collect();
        Self {
            binary: binary.into(),
            base,
        }
    }

    /// The binary it runs.
    pub fn binary(&self) -> &std::path::Path {
        &self.binary
    }
}

impl BrowserRunner for CliRunner {
    fn run<'a>(
        &'a self,
        env: &'a BrowserEnv,
        args: &'a [&'a str],
        timeout: Duration,
    ) -> BoxFuture<'a, RunOutput> {
        Box::pin(async move {
            let mut command = tokio::process::Command::new(&self.binary);
            command
                .args(args)
                // Every answer carries its lifecycle receipt (see `RunOutput::receipt`).
                .arg("--json")
                .env_clear()
                .envs(self.base.iter().map(|(k, v)| (k, v)))
                .envs(env.iter())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                // A client past its deadline is ended; the session daemon is not its child.
                .kill_on_drop(true);
            let child = match command.spawn() {
                Ok(child) => child,
                Err(err) => {
                    return RunOutput {
                        code: -1,
                        stdout: String::new(),
                        stderr: format!("cannot run {}: {err}", self.binary.display()),
                    };
                }
            };
            match tokio::time::timeout(timeout, child.wait_with_output()).await {
                Ok(Ok(output)) => RunOutput {
                    code: output.status.code().unwrap_or(-1),
                    stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                },
                Ok(Err(err)) => RunOutput {
                    code: -1,
                    stdout: String::new(),
                    stderr: err.to_string(),
                },
                Err(_) => RunOutput {
                    code: -1,
                    stdout: String::new(),
                    stderr: format!("no answer within {} s", timeout.as_secs()),
                },
            }
        })
    }
}

/// Runs a command and returns its output, or a [`HostError::Command`].
pub(crate) async fn run_ok(
    runner: &dyn BrowserRunner,
    env: &BrowserEnv,
    args: &[&str],
    timeout: Duration,
) -> Result<RunOutput> {
    let output = runner.run(env, args, timeout).await;
    if output.code == 0 {
        return Ok(output);
    }
    Err(HostError::Command {
        command: args.join(" "),
        code: output.code,
        message: output.failure().chars().take(2000).collect(),
    })
}

/// `<stage_dir>/browser-receipts.jsonl`: the lifecycle receipt of every command the kit ran
/// in the stage's session.
pub const RECEIPTS_FILE: &str = "browser-receipts.jsonl";

/// A runner that appends each command's receipt to a JSON-lines file (0600): `{ts_ms, command,
/// code, receipt}` (the command's words without its URL arguments' queries). A write that fails
/// is logged; the command's result stands.
pub(crate) struct Recorder<'r> {
    inner: &'r dyn BrowserRunner,
    path: PathBuf,
}

impl<'r> Recorder<'r> {
    pub(crate) fn new(inner: &'r dyn BrowserRunner, path: PathBuf) -> Self {
        Self { inner, path }
    }

    fn append(&self, args: &[&str], output: &RunOutput) {
        let command: Vec<String> = args.iter().map(|a| crate::redact::redact(a)).collect();
        let line = serde_json::json!({
            "ts_ms": crate::clock::now_ms(),
            "command": command.join(" "),
            "code": output.code,
            "receipt": output.receipt(),
        });
        if let Err(err) = crate::fsutil::append_private(&self.path, &line) {
            tracing::warn!(%err, "cannot keep a command receipt");
        }
    }
}

impl BrowserRunner for Recorder<'_> {
    fn run<'a>(
        &'a self,
        env: &'a BrowserEnv,
        args: &'a [&'a str],
        timeout: Duration,
    ) -> BoxFuture<'a, RunOutput> {
        Box::pin(async move {
            let output = self.inner.run(env, args, timeout).await;
            self.append(args, &output);
            output
        })
    }
}
