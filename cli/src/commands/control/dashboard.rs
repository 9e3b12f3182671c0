//! `dashboard [start] [--port N] [--allowed-origins <origins>] | stop`: the dashboard page for
//! people, a background process of this binary serving `abx_relay::DashboardServer` on
//! 127.0.0.1 and `[::1]` (upstream's port 4848 by default). It lists the live sessions of the
//! socket dir and shows each one's live view.
//!
//! Upstream's files in the socket dir: `dashboard.config` (`{"port","allowed_origins",
//! "access_token"}`, mode 0600, written by `start` before the server runs) and `dashboard.pid`
//! (written by the server once it listens); `stop` ends the process with SIGTERM. A second
//! `start` with the same settings answers `already_running`, with others it fails. Allowed
//! origins are reverse proxies' https origins; a page there needs the access token that the
//! private access URLs carry in their fragment. On loopback a token is required only when
//! `AGENT_BROWSER_DASHBOARD_TOKEN` (abx) or, failing that, `AGENT_BROWSER_STREAM_TOKEN` is set,
//! so the dashboard never opens a way around a stream token.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

pub use crate::commands::invocation::DashboardCommand;
use crate::commands::invocation::{Invocation, LocalCommand};
use crate::commands::prelude::*;
use crate::output::errors::render_error;
use crate::output::rendered::{OutputOptions, Rendered};

/// The command.
pub const COMMAND: Command = Command {
    names: &["dashboard"],
    help: Some(Help {
        about: "Live views of every session in a web page",
        usage: &[
            "dashboard [start] [--port <n>] [--allowed-origins <https-origins>]",
            "dashboard stop",
        ],
        examples: &[
            "dashboard start",
            "dashboard start --port 8080",
            "dashboard start --allowed-origins https://dashboard.example.com",
            "dashboard stop",
        ],
        description: "Serves a web page with live views of every session, in the background (default port 4848).",
        sections: &[
            (
                "Subcommands",
                &[
                    ("start", "Start the server (the default)"),
                    ("stop", "Stop it"),
                ],
            ),
            (
                "Options",
                &[
                    ("--port <n>", "Listen on this port"),
                    (
                        "--allowed-origins <origins>",
                        "\
Comma-separated https origins allowed to open it through a
reverse proxy",
                    ),
                ],
            ),
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
    McpTool::new(
        151,
        "agent_browser_dashboard_start",
        "debug",
        &["dashboard", "start"],
        "port:i@--port allowedOrigins:s@--allowed-origins",
    )
    .closed_world(),
    McpTool::new(
        152,
        "agent_browser_dashboard_stop",
        "debug",
        &["dashboard", "stop"],
        "",
    )
    .closed_world(),
];

/// Set (to `1`) in the environment of the background process that serves the dashboard
/// (upstream's name, so a process it seeds is served by either binary).
pub const SERVE_ENV: &str = "AGENT_BROWSER_DASHBOARD";
const PORT_ENV: &str = "AGENT_BROWSER_DASHBOARD_PORT";
/// abx: the dashboard's own token.
pub const TOKEN_ENV: &str = "AGENT_BROWSER_DASHBOARD_TOKEN";
const PID_FILE: &str = "dashboard.pid";
const CONFIG_FILE: &str = "dashboard.config";

const INVALID_ORIGIN: &str =
    "Expected an exact non-loopback HTTPS origin without a path, query, fragment, or credentials.";

fn parse(clean: &[String]) -> LocalCommand {
    LocalCommand::Dashboard(parse_words(clean.get(1..).unwrap_or(&[])))
}

/// `start`'s flags, also as `--flag=value`; each takes the next word, whatever it is, and one at
/// the end of the line reads as the empty value (which is then refused as a port or origins).
const START_FLAGS: &[Flag] = &[
    Flag::lenient(&["--port"], |_| true).inline(),
    Flag::lenient(&["--allowed-origins"], |_| true).inline(),
];

fn parse_words(words: &[String]) -> DashboardCommand {
    let (sub, rest) = match words.first().map(String::as_str) {
        None => ("start", &words[..0]),
        Some(w) if w.starts_with("--") => ("start", words),
        Some(w) => (w, &words[1..]),
    };
    match sub {
        "start" => {
            let mut port = None;
            let mut allowed_origins = None;
            let words: Vec<&str> = rest.iter().map(String::as_str).collect();
            // Lenient flags never fail.
            for word in scan(&words, START_FLAGS).flatten() {
                let (flag, value) = match word {
                    Word::Value(flag, value) => (flag, value),
                    // A flag at the end of the line.
                    Word::Switch(flag) => (flag, ""),
                    Word::Other(word) if word.starts_with("--") => {
                        return DashboardCommand::Invalid(format!(
                            "Unknown dashboard option: {word}"
                        ));
                    }
                    Word::Other(word) => {
                        return DashboardCommand::Invalid(format!(
                            "Unexpected dashboard argument: {word}"
                        ));
                    }
                };
                if flag == "--allowed-origins" {
                    match parse_origins(value) {
                        Ok(origins) => allowed_origins = Some(origins),
                        Err(message) => return DashboardCommand::Invalid(message),
                    }
                    continue;
                }
                match value.parse::<u16>() {
                    Ok(p) if p > 0 => port = Some(p),
                    _ => {
                        return DashboardCommand::Invalid(format!(
                            "Invalid dashboard port '{value}'. Expected an integer from 1 to 65535."
                        ));
                    }
                }
            }
            DashboardCommand::Start {
                port,
                allowed_origins,
            }
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

/// A comma-separated list of allowed origins: each normalized, sorted, without duplicates.
fn parse_origins(list: &str) -> Result<Vec<String>, String> {
    if list.trim().is_empty() {
        return Err("Dashboard allowed origins cannot be empty.".to_string());
    }
    let mut origins = Vec::new();
    for item in list.split(',') {
        let origin = abx_relay::normalize_origin(item, false).map_err(|_| {
            format!(
                "Invalid dashboard allowed origin '{}'. {INVALID_ORIGIN}",
                item.trim()
            )
        })?;
        origins.push(origin);
    }
    origins.sort();
    origins.dedup();
    Ok(origins)
}

/// What a dashboard was started with (`dashboard.config`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Config {
    port: u16,
    #[serde(default)]
    allowed_origins: Vec<String>,
    #[serde(default)]
    access_token: String,
}

impl Config {
    /// The private URLs of a reverse-proxied dashboard (none for loopback only).
    fn access_urls(&self) -> Vec<String> {
        self.allowed_origins
            .iter()
            .map(|origin| format!("{origin}/#dashboard-access-token={}", self.access_token))
            .collect()
    }

    fn describe(&self) -> String {
        if self.allowed_origins.is_empty() {
            "loopback origins only".to_string()
        } else {
            self.allowed_origins.join(",")
        }
    }
}

/// The running dashboard of this socket dir: its pid and configuration, if its process lives.
fn running(dir: &Path) -> Option<(i32, Config)> {
    let pid: i32 = std::fs::read_to_string(dir.join(PID_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    if pid <= 0 || !crate::client::pid_alive(pid) {
        return None;
    }
    let config = std::fs::read_to_string(dir.join(CONFIG_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<Config>(&text).ok())?;
    Some((pid, config))
}

fn remove_files(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(PID_FILE));
    let _ = std::fs::remove_file(dir.join(CONFIG_FILE));
}

fn new_access_token() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
        DashboardCommand::Start {
            port,
            allowed_origins,
        } => start(&inv.socket_dir, *port, allowed_origins.clone(), opts),
        DashboardCommand::Stop => stop(&inv.socket_dir, opts),
    }
}

/// Text and JSON of a started (or already running) dashboard.
fn started(opts: &OutputOptions, pid: i32, config: &Config, already: bool) -> Rendered {
    let urls = config.access_urls();
    let mut data = json!({"access_urls": urls, "pid": pid, "port": config.port});
    if already {
        data["already_running"] = Value::Bool(true);
    }
    let mut text = if already {
        format!(
            "Dashboard already running at http://localhost:{}",
            config.port
        )
    } else if urls.is_empty() {
        format!("Dashboard started at http://localhost:{}", config.port)
    } else {
        "Dashboard started; open one of the private access URLs below".to_string()
    };
    for url in &urls {
        text.push('\n');
        text.push_str(url);
    }
    let mut rendered = success(opts, &text, data);
    if !urls.is_empty() && !opts.json {
        rendered.stderr =
            "⚠ Keep these reverse-proxy dashboard URLs private: they contain access tokens.\n"
                .to_string();
    }
    rendered
}

fn start(
    dir: &Path,
    port: Option<u16>,
    allowed_origins: Option<Vec<String>>,
    opts: &OutputOptions,
) -> Rendered {
    let allowed_origins = match allowed_origins {
        Some(origins) => origins,
        None => match std::env::var(abx_wire::env::DASHBOARD_ALLOWED_ORIGINS)
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            Some(list) => match parse_origins(&list) {
                Ok(origins) => origins,
                Err(message) => return render_error(&message, opts),
            },
            None => Vec::new(),
        },
    };
    // Like upstream: no `--port` means the default port, not "whatever is running".
    let port = port.unwrap_or(abx_relay::DEFAULT_DASHBOARD_PORT);
    if let Some((pid, config)) = running(dir) {
        if port == config.port && allowed_origins == config.allowed_origins {
            return started(opts, pid, &config, true);
        }
        return render_error(
            &format!(
                "Dashboard is already running with port {} and {}. Run 'agent-browser dashboard stop' before starting it with different settings.",
                config.port,
                config.describe()
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
    // A dead dashboard's files go before the new one writes its own.
    remove_files(dir);
    let config = Config {
        port,
        allowed_origins,
        access_token: new_access_token(),
    };
    if let Err(err) = write_private(&dir.join(CONFIG_FILE), &json!(config).to_string()) {
        return render_error(
            &format!("Failed to start dashboard: cannot save its configuration: {err}"),
            opts,
        );
    }
    let fail = |message: String| {
        remove_files(dir);
        render_error(&message, opts)
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => return fail(format!("Failed to start dashboard: {err}")),
    };
    let mut child = match Process::new(exe)
        .env(SERVE_ENV, "1")
        .env(PORT_ENV, port.to_string())
        .env(abx_wire::env::SOCKET_DIR, dir)
        // The dir is already the namespace's.
        .env_remove(abx_wire::env::NAMESPACE)
        .env_remove(abx_wire::env::DAEMON)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => return fail(format!("Failed to start dashboard: {err}")),
    };
    let pid = child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some((running_pid, config)) = running(dir)
            && running_pid == pid
        {
            return started(opts, pid, &config, false);
        }
        if let Ok(Some(_)) = child.try_wait() {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
            }
            let reason = stderr.trim();
            return fail(format!(
                "Failed to start dashboard: {}",
                if reason.is_empty() {
                    "the server exited"
                } else {
                    reason
                }
            ));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return fail("Failed to start dashboard: the server did not start in 10 s".to_string());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stop(dir: &Path, opts: &OutputOptions) -> Rendered {
    let Some((pid, _)) = running(dir) else {
        remove_files(dir);
        return success(
            opts,
            "Dashboard is not running",
            json!({"reason": "not running", "stopped": false}),
        );
    };
    if let Err(err) = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    ) {
        return render_error(&format!("Failed to stop dashboard: {err}"), opts);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while crate::client::pid_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if crate::client::pid_alive(pid) {
        return render_error(
            &format!("Failed to stop dashboard: process {pid} is still running"),
            opts,
        );
    }
    remove_files(dir);
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
    let dir = crate::session::socket_dir(
        &crate::host::SystemHost,
        non_empty(abx_wire::env::NAMESPACE).as_deref(),
    );
    let port = non_empty(PORT_ENV)
        .and_then(|p| p.parse().ok())
        .unwrap_or(abx_relay::DEFAULT_DASHBOARD_PORT);
    // The configuration `start` saved; a server started without one serves loopback only.
    let config = std::fs::read_to_string(dir.join(CONFIG_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<Config>(&text).ok());
    let (allowed_origins, access_token) = match config {
        Some(config) if !config.access_token.is_empty() => {
            (config.allowed_origins, Some(config.access_token))
        }
        _ => (Vec::new(), None),
    };
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
            abx_relay::DashboardOptions {
                port,
                token,
                allowed_origins,
                access_token,
            },
            hooks,
        ) {
            Ok(server) => server,
            Err(err) => {
                eprintln!("{err}");
                return 1;
            }
        };
        let pid = std::process::id() as i32;
        if let Err(err) = std::fs::create_dir_all(&dir)
            .and_then(|()| write_private(&dir.join(PID_FILE), &pid.to_string()))
        {
            eprintln!("cannot save the dashboard's pid: {err}");
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
        // Only this dashboard's files: a later one may have replaced them.
        let ours = std::fs::read_to_string(dir.join(PID_FILE))
            .is_ok_and(|text| text.trim() == pid.to_string());
        if ours {
            remove_files(&dir);
        }
        0
    })
}

/// Writes `text` to `path` atomically, readable by the owner only.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    file.write_all(text.as_bytes())?;
    drop(file);
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn dashboard_words() {
        let start = |port, allowed_origins| DashboardCommand::Start {
            port,
            allowed_origins,
        };
        assert_eq!(parse_words(&[]), start(None, None));
        assert_eq!(
            parse_words(&words("start --port 8080")),
            start(Some(8080), None)
        );
        assert_eq!(parse_words(&words("--port=9000")), start(Some(9000), None));
        assert_eq!(
            parse_words(&words(
                "start --allowed-origins https://b.example,HTTPS://A.example:443/"
            )),
            start(
                None,
                Some(vec!["https://a.example".into(), "https://b.example".into()])
            )
        );
        for bad in [
            "start --allowed-origins http://a.example",
            "start --allowed-origins https://a.example/x",
            "start --allowed-origins https://a.example,invalid",
            "start --allowed-origins https://localhost:3000",
            "start --allowed-origins",
            "start --allowed-origin https://a.example",
            "start --port",
        ] {
            assert!(
                matches!(parse_words(&words(bad)), DashboardCommand::Invalid(_)),
                "{bad}"
            );
        }
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

    #[test]
    fn dashboard_flags_take_any_next_word_or_their_inline_value() {
        let invalid_port = |v: &str| {
            DashboardCommand::Invalid(format!(
                "Invalid dashboard port '{v}'. Expected an integer from 1 to 65535."
            ))
        };
        let start = |port| DashboardCommand::Start {
            port,
            allowed_origins: None,
        };
        // At the end of the line a flag reads as the empty value.
        assert_eq!(parse_words(&words("--port")), invalid_port(""));
        assert_eq!(
            parse_words(&words("start --allowed-origins")),
            DashboardCommand::Invalid("Dashboard allowed origins cannot be empty.".into())
        );
        // The value is the next word, even another flag; inline, what follows the first `=`.
        assert_eq!(
            parse_words(&words("--port --allowed-origins")),
            invalid_port("--allowed-origins")
        );
        assert_eq!(parse_words(&words("--port=")), invalid_port(""));
        assert_eq!(parse_words(&words("--port=1=2")), invalid_port("1=2"));
        assert_eq!(parse_words(&words("--port 1 --port=2")), start(Some(2)));
        assert_eq!(
            parse_words(&words("--allowed-origins=https://a.example")),
            DashboardCommand::Start {
                port: None,
                allowed_origins: Some(vec!["https://a.example".into()])
            }
        );
        // Only the exact names read `=`; other words are refused in order.
        assert_eq!(
            parse_words(&words("--portx=1 --port")),
            DashboardCommand::Invalid("Unknown dashboard option: --portx=1".into())
        );
        assert_eq!(
            parse_words(&words("start -p 80")),
            DashboardCommand::Invalid("Unexpected dashboard argument: -p".into())
        );
        assert_eq!(
            parse_words(&words("--port 80 extra --port")),
            DashboardCommand::Invalid("Unexpected dashboard argument: extra".into())
        );
    }
}
