//! `abx-host`: the Host kit as JSON lines (see the library's docs and `docs/host.md`).
//!
//! ```text
//! abx-host --home DIR [--listen SOCKET] [--socket-root DIR] [--agent-browser PATH]
//!          [--screen auto|none] [--live-view] [--launch-arg ARG]... [--executable-path PATH]
//!          [--spare-tabs N] [--liveness-timeout-ms N] [--lease-wait-limit-s N]
//!          [--command-timeout-s N]
//! ```
//! Without `--listen` it serves its stdin and stdout; logs go to stderr (`ABX_HOST_LOG`,
//! e.g. `info`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use abx_host::{DisplayProbe, HostConfig, Screen};
use abx_host_front::{Front, FrontConfig};
use tokio::io::BufReader;
use tokio::net::UnixListener;

const USAGE: &str = "usage: abx-host --home DIR [--listen SOCKET] [--socket-root DIR] \
[--agent-browser PATH] [--screen auto|none] [--live-view] [--launch-arg ARG]... \
[--executable-path PATH] [--spare-tabs N] [--liveness-timeout-ms N] [--lease-wait-limit-s N] \
[--command-timeout-s N]";

struct Options {
    front: FrontConfig,
    listen: Option<PathBuf>,
}

fn number(flag: &str, value: Option<String>) -> Result<u64, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: {value:?} is not a number"))
}

/// `agent-browser` next to this binary (a cargo build puts both in one folder), else on `PATH`.
fn default_agent_browser() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("agent-browser")))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("agent-browser"))
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut home = None;
    let mut socket_root = None;
    let mut listen = None;
    let mut agent_browser = None;
    let mut screen = "auto".to_string();
    let mut live_view = false;
    let mut launch_args = Vec::new();
    let mut executable = None;
    let mut spare_tabs = None;
    let mut liveness_ms = 5_000;
    let mut lease_wait_s = None;
    let mut command_s = None;
    while let Some(flag) = argv.next() {
        let mut value = || argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--home" => home = Some(PathBuf::from(value()?)),
            "--socket-root" => socket_root = Some(PathBuf::from(value()?)),
            "--listen" => listen = Some(PathBuf::from(value()?)),
            "--agent-browser" => agent_browser = Some(PathBuf::from(value()?)),
            "--screen" => screen = value()?,
            "--live-view" => live_view = true,
            "--launch-arg" => launch_args.push(value()?),
            "--executable-path" => executable = Some(PathBuf::from(value()?)),
            "--spare-tabs" => spare_tabs = Some(number(&flag, argv.next())?),
            "--liveness-timeout-ms" => liveness_ms = number(&flag, argv.next())?,
            "--lease-wait-limit-s" => lease_wait_s = Some(number(&flag, argv.next())?),
            "--command-timeout-s" => command_s = Some(number(&flag, argv.next())?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let home = home.ok_or_else(|| format!("--home is required\n{USAGE}"))?;
    let mut host = HostConfig::new(home);
    if let Some(root) = socket_root {
        host.socket_root = root;
    }
    host.display = match screen.as_str() {
        "auto" => DisplayProbe::from_env(),
        "none" => DisplayProbe::fixed(Screen::None),
        other => return Err(format!("--screen {other:?}: auto or none")),
    };
    host.live_view_handoff = live_view;
    host.launch.args = launch_args;
    if let Some(path) = executable {
        host.launch.executable_path = Some(path);
    }
    if let Some(n) = spare_tabs {
        host.spare_tabs = n as usize;
    }
    if let Some(s) = lease_wait_s {
        host.lease_wait.wait_limit = Some(Duration::from_secs(s));
    }
    if let Some(s) = command_s {
        host.command_timeout = Duration::from_secs(s);
    }
    Ok(Options {
        front: FrontConfig {
            host,
            agent_browser: agent_browser.unwrap_or_else(default_agent_browser),
            liveness_timeout: Duration::from_millis(liveness_ms),
            drain: Duration::from_secs(60),
        },
        listen,
    })
}

/// SIGTERM or SIGINT.
async fn termination() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

/// Standard input and output as tokio files (blocking reads and writes on tokio's pool), so
/// the workspace's tokio needs no extra feature.
fn stdio() -> std::io::Result<(tokio::fs::File, tokio::fs::File)> {
    use std::os::fd::AsFd;
    let input = std::io::stdin().as_fd().try_clone_to_owned()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned()?;
    Ok((
        tokio::fs::File::from_std(std::fs::File::from(input)),
        tokio::fs::File::from_std(std::fs::File::from(output)),
    ))
}

async fn serve_stdio(front: Arc<Front>) -> std::io::Result<()> {
    let (input, output) = stdio()?;
    let connection = tokio::select! {
        connection = front.serve(BufReader::new(input), output) => Some(connection),
        _ = termination() => None,
    };
    front.host_gone().await;
    if let Some(connection) = connection {
        front.close(connection).await;
    }
    Ok(())
}

fn bind(path: &Path) -> std::io::Result<UnixListener> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.exists()
    {
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_socket()
    }) {
        // A socket left by an earlier front that did not end cleanly.
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

async fn serve_socket(front: Arc<Front>, path: &Path) -> std::io::Result<()> {
    let listener = bind(path)?;
    tracing::info!(socket = %path.display(), "listening");
    let stopped = front.stopped();
    let connections = tokio_util::task::TaskTracker::new();
    let mut signalled = false;
    // Listening from now on (a new listener per loop turn could miss a signal between turns).
    let terminated = termination();
    tokio::pin!(terminated);
    loop {
        tokio::select! {
            _ = stopped.cancelled() => break,
            _ = &mut terminated => { signalled = true; break }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let front = front.clone();
                    connections.spawn(async move {
                        let (read, write) = stream.into_split();
                        let connection = front.serve(BufReader::new(read), write).await;
                        front.close(connection).await;
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
    let _ = std::fs::remove_file(path);
    if signalled {
        front.host_gone().await;
    }
    // The connections' last replies (a shutdown's) go out before the process ends.
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(70), connections.wait()).await;
    Ok(())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ABX_HOST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("abx-host: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("abx-host: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async {
        let front = match Front::new(options.front) {
            Ok(front) => front,
            Err(error) => {
                eprintln!("abx-host: {}", error.message);
                return ExitCode::FAILURE;
            }
        };
        match &options.listen {
            Some(path) => {
                if let Err(error) = serve_socket(front, path).await {
                    eprintln!("abx-host: {}: {error}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            None => {
                if let Err(error) = serve_stdio(front).await {
                    eprintln!("abx-host: stdio: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
        ExitCode::SUCCESS
    });
    // A blocking read of stdin may still be pending: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}
