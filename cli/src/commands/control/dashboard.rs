//! `dashboard [start] [--port N] | stop`: the dashboard page for people, a background process of
//! this binary serving `abx_relay::DashboardServer` on 127.0.0.1 (upstream's port 4848 by
//! default). It lists the live sessions of the socket dir and shows each one's live view.
//!
//! The process records itself in `<socket dir>/dashboard.json` (`{"pid","port"}`, mode 0600);
//! `stop` ends it with SIGTERM. A token is required when `AGENT_BROWSER_DASHBOARD_TOKEN` (abx)
//! or, failing that, `AGENT_BROWSER_STREAM_TOKEN` is set, so the dashboard never opens a way
//! around a stream token.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use crate::commands::prelude::*;
use crate::commands::{Invocation, LocalCommand};
use crate::output::{OutputOptions, Rendered, render_error};

/// The command.
pub const COMMAND: Command = Command {
    names: &["dashboard"],
    help: Some(Help {
        about: "Live views of every session in a web page",
        usage: &["dashboard [start] [--port <n>]", "dashboard stop"],
        examples: &[
            "dashboard start",
            "dashboard start --port 8080",
            "dashboard stop",
        ],
    }),
    grammar: Grammar::Local(parse),
    actions: &[],
};

/// Set (to `1`) in the environment of the background process that serves the dashboard.
pub const SERVE_ENV: &str = "ABX_DASHBOARD_SERVE";
const PORT_ENV: &str = "ABX_DASHBOARD_PORT";
const DIR_ENV: &str = "ABX_DASHBOARD_SOCKET_DIR";
/// abx: the dashboard's own token.
pub const TOKEN_ENV: &str = "AGENT_BROWSER_DASHBOARD_TOKEN";
const STATE_FILE: &str = "dashboard.json";

/// What `dashboard …` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DashboardCommand {
    /// `dashboard [start] [--port N]` (`None`: the default port).
    Start {
        /// `--port`.
        port: Option<u16>,
    },
    /// `dashboard stop`.
    Stop,
    /// Words that do not parse, with upstream's message.
    Invalid(String),
}

fn parse(clean: &[String]) -> LocalCommand {
    LocalCommand::Dashboard(parse_words(clean.get(1..).unwrap_or(&[])))
}

fn parse_words(words: &[String]) -> DashboardCommand {
    let (sub, rest) = match words.first().map(String::as_str) {
        None => ("start", &words[..0]),
        Some(w) if w.starts_with("--") => ("start", words),
        Some(w) => (w, &words[1..]),
    };
    match sub {
        "start" => {
            let mut port = None;
            let mut i = 0;
            while i < rest.len() {
                let word = rest[i].as_str();
                let value = if let Some(v) = word.strip_prefix("--port=") {
                    Some(v.to_string())
                } else if word == "--port" {
                    i += 1;
                    Some(rest.get(i).cloned().unwrap_or_default())
                } else {
                    None
                };
                match value {
                    Some(v) => match v.parse::<u16>() {
                        Ok(p) if p > 0 => port = Some(p),
                        _ => {
                            return DashboardCommand::Invalid(format!(
                                "Invalid dashboard port '{v}'. Expected an integer from 1 to 65535."
                            ));
                        }
                    },
                    None if word.starts_with("--") => {
                        return DashboardCommand::Invalid(format!(
                            "Unknown dashboard option: {word}"
                        ));
                    }
                    None => {
                        return DashboardCommand::Invalid(format!(
                            "Unexpected dashboard argument: {word}"
                        ));
                    }
                }
                i += 1;
            }
            DashboardCommand::Start { port }
        }
        "stop" => match rest.first() {
            None => DashboardCommand::Stop,
            Some(extra) => DashboardCommand::Invalid(format!(
                "Dashboard stop does not accept argument '{extra}'."
            )),
        },
        other => DashboardCommand::Invalid(format!("Unknown dashboard subcommand: {other}")),
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct State {
    pid: i32,
    port: u16,
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// The running dashboard of this socket dir, if its process is alive.
fn running(dir: &Path) -> Option<State> {
    let text = std::fs::read_to_string(state_path(dir)).ok()?;
    let state: State = serde_json::from_str(&text).ok()?;
    crate::client::pid_alive(state.pid).then_some(state)
}

fn success(opts: &OutputOptions, text: &str, data: Value) -> Rendered {
    let mut rendered = Rendered::default();
    if opts.json {
        rendered.stdout = format!("{}\n", json!({"success": true, "data": data}));
    } else {
        rendered.stdout = format!("{text}\n");
    }
    rendered
}

/// Carries out `dashboard …` in the CLI process.
pub fn run(inv: &Invocation, command: &DashboardCommand) -> Rendered {
    let opts = &inv.output;
    match command {
        DashboardCommand::Invalid(message) => render_error(message, opts),
        DashboardCommand::Start { port } => start(&inv.socket_dir, *port, opts),
        DashboardCommand::Stop => stop(&inv.socket_dir, opts),
    }
}

fn start(dir: &Path, port: Option<u16>, opts: &OutputOptions) -> Rendered {
    // Upstream serves a reverse-proxied dashboard to these origins (with private access URLs);
    // abx's dashboard is loopback-only, so the setting is refused rather than ignored.
    if let Some(origins) = std::env::var(abx_wire::env::DASHBOARD_ALLOWED_ORIGINS)
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        return render_error(
            &format!(
                "AGENT_BROWSER_DASHBOARD_ALLOWED_ORIGINS is set ({origins}), but the abx dashboard serves loopback origins only: unset it and open http://localhost:<port> (forward the port over SSH for remote access)"
            ),
            opts,
        );
    }
    // Like upstream: no `--port` means the default port, not "whatever is running".
    let port = port.unwrap_or(abx_relay::DEFAULT_DASHBOARD_PORT);
    if let Some(state) = running(dir) {
        if port == state.port {
            return success(
                opts,
                &format!(
                    "Dashboard already running at http://localhost:{}",
                    state.port
                ),
                // Upstream lists reverse-proxy access URLs here; a loopback-only dashboard has none.
                json!({"access_urls": [], "already_running": true, "pid": state.pid, "port": state.port}),
            );
        }
        return render_error(
            &format!(
                "Dashboard is already running with port {} and loopback origins only. Run 'agent-browser dashboard stop' before starting it with different settings.",
                state.port
            ),
            opts,
        );
    }
    if let Err(err) = std::fs::create_dir_all(dir) {
        return render_error(
            &format!(
                "Failed to start dashboard: cannot create {}: {err}",
                dir.display()
            ),
            opts,
        );
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => return render_error(&format!("Failed to start dashboard: {err}"), opts),
    };
    let mut child = match Process::new(exe)
        .env(SERVE_ENV, "1")
        .env(PORT_ENV, port.to_string())
        .env(DIR_ENV, dir)
        .env_remove(abx_wire::env::DAEMON)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => return render_error(&format!("Failed to start dashboard: {err}"), opts),
    };
    let pid = child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(state) = running(dir)
            && state.pid == pid
        {
            return success(
                opts,
                &format!("Dashboard started at http://localhost:{}", state.port),
                json!({"access_urls": [], "pid": state.pid, "port": state.port}),
            );
        }
        if let Ok(Some(_)) = child.try_wait() {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
            }
            let reason = stderr.trim();
            return render_error(
                &format!(
                    "Failed to start dashboard: {}",
                    if reason.is_empty() {
                        "the server exited"
                    } else {
                        reason
                    }
                ),
                opts,
            );
        }
        if Instant::now() > deadline {
            return render_error(
                "Failed to start dashboard: the server did not start in 10 s",
                opts,
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stop(dir: &Path, opts: &OutputOptions) -> Rendered {
    let Some(state) = running(dir) else {
        let _ = std::fs::remove_file(state_path(dir));
        return success(
            opts,
            "Dashboard is not running",
            json!({"reason": "not running", "stopped": false}),
        );
    };
    let pid = nix::unistd::Pid::from_raw(state.pid);
    if let Err(err) = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM) {
        return render_error(&format!("Failed to stop dashboard: {err}"), opts);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while crate::client::pid_alive(state.pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if crate::client::pid_alive(state.pid) {
        return render_error(
            &format!(
                "Failed to stop dashboard: process {} is still running",
                state.pid
            ),
            opts,
        );
    }
    let _ = std::fs::remove_file(state_path(dir));
    success(opts, "✓ Dashboard stopped", json!({"stopped": true}))
}

/// The sessions of the socket dir with a live daemon and a stream server.
struct SocketDirSessions {
    dir: PathBuf,
    stream_token: Option<String>,
}

impl abx_relay::DashboardHooks for SocketDirSessions {
    fn sessions(&self) -> Vec<abx_relay::DashboardSession> {
        abx_daemon::sidecar::stream_sessions(&self.dir)
            .into_iter()
            .filter_map(|entry| {
                Some(abx_relay::DashboardSession {
                    name: entry.get("session")?.as_str()?.to_string(),
                    port: u16::try_from(entry.get("port")?.as_u64()?).ok()?,
                    token: self.stream_token.clone(),
                })
            })
            .collect()
    }
}

fn non_empty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The background process: serves until SIGTERM or SIGINT; returns its exit status.
pub fn serve() -> u8 {
    // Leave the CLI's session, like a daemon: the terminal closing must not end the dashboard.
    let _ = nix::unistd::setsid();
    let Some(dir) = std::env::var_os(DIR_ENV).map(PathBuf::from) else {
        eprintln!("{DIR_ENV} is not set");
        return 1;
    };
    let port = non_empty(PORT_ENV)
        .and_then(|p| p.parse().ok())
        .unwrap_or(abx_relay::DEFAULT_DASHBOARD_PORT);
    let stream_token = non_empty(abx_wire::env::STREAM_TOKEN);
    let token = non_empty(TOKEN_ENV).or_else(|| stream_token.clone());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start the dashboard runtime: {err}");
            return 1;
        }
    };
    runtime.block_on(async move {
        let hooks = std::sync::Arc::new(SocketDirSessions {
            dir: dir.clone(),
            stream_token,
        });
        let server = match abx_relay::DashboardServer::start(
            abx_relay::DashboardOptions { port, token },
            hooks,
        ) {
            Ok(server) => server,
            Err(err) => {
                eprintln!("{err}");
                return 1;
            }
        };
        let state = State {
            pid: std::process::id() as i32,
            port: server.port(),
        };
        if let Err(err) = write_state(&dir, &state) {
            eprintln!("cannot save the dashboard state: {err}");
            return 1;
        }
        let (Ok(mut term), Ok(mut int)) = (
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()),
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()),
        ) else {
            eprintln!("cannot listen for signals");
            return 1;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = server.stopped() => {}
        }
        server.shutdown().await;
        if running(&dir).is_some_and(|s| s.pid == state.pid) || !crate::client::pid_alive(state.pid)
        {
            let _ = std::fs::remove_file(state_path(&dir));
        }
        0
    })
}

fn write_state(dir: &Path, state: &State) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = dir.join(format!("{STATE_FILE}.{}.tmp", state.pid));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    file.write_all(
        json!({"pid": state.pid, "port": state.port})
            .to_string()
            .as_bytes(),
    )?;
    drop(file);
    std::fs::rename(tmp, state_path(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn dashboard_words() {
        assert_eq!(parse_words(&[]), DashboardCommand::Start { port: None });
        assert_eq!(
            parse_words(&words("start --port 8080")),
            DashboardCommand::Start { port: Some(8080) }
        );
        assert_eq!(
            parse_words(&words("--port=9000")),
            DashboardCommand::Start { port: Some(9000) }
        );
        assert_eq!(parse_words(&words("stop")), DashboardCommand::Stop);
        assert_eq!(
            parse_words(&words("start --port abc")),
            DashboardCommand::Invalid(
                "Invalid dashboard port 'abc'. Expected an integer from 1 to 65535.".into()
            )
        );
        assert_eq!(
            parse_words(&words("bogus")),
            DashboardCommand::Invalid("Unknown dashboard subcommand: bogus".into())
        );
        assert_eq!(
            parse_words(&words("stop now")),
            DashboardCommand::Invalid("Dashboard stop does not accept argument 'now'.".into())
        );
        assert!(matches!(
            parse_words(&words("start --port 0")),
            DashboardCommand::Invalid(_)
        ));
        assert!(matches!(
            parse_words(&words("start --wat")),
            DashboardCommand::Invalid(_)
        ));
    }
}
