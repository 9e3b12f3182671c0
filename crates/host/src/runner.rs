//! Running `agent-browser` commands with a session's env, as an agent does in bash (seed §8:
//! "BrowserRunner: run agent-browser where the daemon lives").

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
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
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

/// Runs a command and returns its trimmed stdout, or a [`HostError::Command`].
pub(crate) async fn run_ok(
    runner: &dyn BrowserRunner,
    env: &BrowserEnv,
    args: &[&str],
    timeout: Duration,
) -> Result<String> {
    let output = runner.run(env, args, timeout).await;
    if output.code == 0 {
        return Ok(output.stdout.trim_end_matches('\n').to_string());
    }
    let message = if output.stderr.trim().is_empty() {
        output.stdout.trim().to_string()
    } else {
        output.stderr.trim().to_string()
    };
    Err(HostError::Command {
        command: args.join(" "),
        code: output.code,
        message: message.chars().take(2000).collect(),
    })
}
