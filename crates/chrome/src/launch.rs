//! Launching Chrome and closing it gracefully.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use abx_cdp::Connection;
use nix::sys::signal::Signal;
use serde::Serialize;
use tokio::io::AsyncBufReadExt;
use tokio::process::Command;
use tokio::sync::watch;

use crate::discovery::BrowserBinary;
use crate::guard::OrphanGuard;
use crate::xvfb::Xvfb;
use crate::{args, discovery, group};

/// A proxy server for Chrome (`--proxy-server`, `--proxy-bypass-list`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxy {
    /// `scheme://host:port`, without credentials.
    pub server: String,
    /// Hosts that bypass the proxy (`--proxy-bypass-list`).
    pub bypass: Option<String>,
}

/// How we talk to the launched Chrome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// `--remote-debugging-port=0`: a WebSocket any client can attach to (needed to share the
    /// browser, e.g. an anchor whose `get cdp-url` stage sessions use).
    #[default]
    WebSocket,
    /// `--remote-debugging-pipe`: fds 3/4, NUL-separated messages, reachable only by us.
    Pipe,
}

/// How to launch Chrome. Built by the daemon from env/config; nothing here reads the environment.
#[derive(Clone, Debug)]
pub struct LaunchOptions {
    /// Chrome executable; `None` chooses one on `PATH`: the headless shell for a headless launch
    /// that needs nothing only full Chrome has, else full Chrome (see [`crate::select_browser`]).
    pub executable: Option<PathBuf>,
    /// Headless (the default): the headless shell, or full Chrome with `--headless=new`.
    pub headless: bool,
    /// Features this launch uses that only full Chrome has (e.g. `webgpu` for a caller that
    /// wants the full browser's WebGPU path), beyond those [`crate::full_chrome_needs`] sees in
    /// the options themselves. Any entry keeps the headless shell out.
    pub needs_full_chrome: Vec<String>,
    /// Extra arguments appended after the defaults.
    pub args: Vec<String>,
    /// Persistent user-data-dir; `None` uses a throw-away temp profile removed on close.
    pub profile: Option<PathBuf>,
    /// Do not start a private Xvfb for headed Chrome without a display.
    pub no_xvfb: bool,
    /// The display to use for headed Chrome (`DISPLAY`), if the caller has one.
    pub display: Option<String>,
    /// Extra environment for the Chrome process.
    pub env: Vec<(String, String)>,
    /// Proxy server.
    pub proxy: Option<Proxy>,
    /// PAC script URL (`--proxy-pac-url`, may be a `data:` URL).
    pub proxy_pac_url: Option<String>,
    /// `--ignore-certificate-errors`.
    pub ignore_https_errors: bool,
    /// `--allow-file-access-from-files --allow-file-access`.
    pub allow_file_access: bool,
    /// `--hide-scrollbars` in headless mode (default true).
    pub hide_scrollbars: bool,
    /// WebRTC limited to proxied UDP (used with a domain allowlist).
    pub restrict_webrtc: bool,
    /// `--deny-permission-prompts`.
    pub deny_permission_prompts: bool,
    /// `--user-agent`.
    pub user_agent: Option<String>,
    /// `--window-size` when the caller's args do not set one (default 1280×720).
    pub window_size: Option<(u32, u32)>,
    /// Force `--no-sandbox` (added automatically when running as root).
    pub no_sandbox: bool,
    /// How long to wait for `DevToolsActivePort`.
    pub launch_timeout: Duration,
    /// Where throw-away profiles are created (default: the system temp dir).
    pub temp_dir: Option<PathBuf>,
    /// WebSocket (default) or pipe.
    pub transport: Transport,
    /// PEM files of CA certificates this browser trusts beyond its roots (`--ca-cert`): put in
    /// a private NSS database inside the profile, with Chrome's `HOME` pointed at it (Linux).
    pub ca_certs: Vec<PathBuf>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            executable: None,
            headless: true,
            needs_full_chrome: Vec::new(),
            args: Vec::new(),
            profile: None,
            no_xvfb: false,
            display: None,
            env: Vec::new(),
            proxy: None,
            proxy_pac_url: None,
            ignore_https_errors: false,
            allow_file_access: false,
            hide_scrollbars: true,
            restrict_webrtc: false,
            deny_permission_prompts: false,
            user_agent: None,
            window_size: None,
            no_sandbox: false,
            launch_timeout: Duration::from_secs(30),
            temp_dir: None,
            transport: Transport::WebSocket,
            ca_certs: Vec::new(),
        }
    }
}

/// Why Chrome could not be launched. Nothing is left running when this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// No Chrome executable was found.
    #[error(
        "Chrome not found. Checked: {}. Install Chromium (apt-get install chromium) or set \
         AGENT_BROWSER_EXECUTABLE_PATH",
        checked.join(", ")
    )]
    ExecutableNotFound {
        /// What was checked.
        checked: Vec<String>,
    },
    /// The explicit executable is a headless shell, and the launch needs full Chrome.
    #[error(
        "{executable} is a headless shell, which cannot provide: {}. Use full Chrome \
         (unset AGENT_BROWSER_EXECUTABLE_PATH, or point it at chromium)",
        needs.join(", ")
    )]
    NeedsFullChrome {
        /// The executable.
        executable: String,
        /// What needs full Chrome.
        needs: Vec<String>,
    },
    /// The process could not be started.
    #[error("cannot start {executable}: {reason}")]
    Spawn {
        /// The executable.
        executable: String,
        /// The OS error.
        reason: String,
    },
    /// Chrome exited before it was ready.
    #[error(
        "Chrome exited early ({status}) before DevTools was ready.{hint}\nChrome stderr:\n{stderr}"
    )]
    ExitedEarly {
        /// Exit status text.
        status: String,
        /// Chrome's last stderr lines.
        stderr: String,
        /// A hint (e.g. `--no-sandbox`).
        hint: String,
    },
    /// `DevToolsActivePort` did not appear in time.
    #[error("Chrome did not open its DevTools port within {} ms.\nChrome stderr:\n{stderr}", after.as_millis())]
    Timeout {
        /// The deadline.
        after: Duration,
        /// Chrome's last stderr lines.
        stderr: String,
    },
    /// The profile directory cannot be used.
    #[error("cannot use profile directory {path}: {reason}")]
    Profile {
        /// The profile path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The CA certificates of `--ca-cert` could not be put in Chrome's trust.
    #[error("--ca-cert: {reason}")]
    CaCert {
        /// Why.
        reason: String,
    },
    /// The private Xvfb failed.
    #[error("cannot start a private X display: {reason}")]
    Xvfb {
        /// Why.
        reason: String,
    },
}

/// What [`Chrome::close`] did, for lifecycle evidence.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CloseReceipt {
    /// Chrome exited on its own after `Browser.close` (cookies flushed).
    pub graceful: bool,
    /// Signals sent to the process group, in order.
    pub signals: Vec<String>,
    /// Chrome's exit code, when it exited normally.
    pub exit_code: Option<i32>,
    /// Processes of the group still alive after the close (0 when verified).
    pub survivors: usize,
    /// The temp profile was removed (false also when a persistent profile was kept).
    pub temp_profile_removed: bool,
    /// A private Xvfb was stopped.
    pub xvfb_stopped: bool,
    /// No process of the group survives and every temp file is gone.
    pub verified: bool,
    /// Time the close took.
    pub elapsed_ms: u64,
}

enum Profile {
    Temp(tempfile::TempDir),
    Persistent(PathBuf),
}

impl Profile {
    fn path(&self) -> &Path {
        match self {
            Profile::Temp(dir) => dir.path(),
            Profile::Persistent(path) => path,
        }
    }
}

/// A Chrome process we own: its own process group, a CDP address, a profile, maybe an Xvfb, and
/// an orphan guard. Close it with [`Chrome::close`]; dropping it kills the group at once.
pub struct Chrome {
    pid: i32,
    ws_url: String,
    port: u16,
    exited: watch::Receiver<Option<std::process::ExitStatus>>,
    profile: Option<Profile>,
    xvfb: Option<Xvfb>,
    guard: Option<OrphanGuard>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    binary: BrowserBinary,
    headless: bool,
    pipe: Option<(
        tokio::net::unix::pipe::Receiver,
        tokio::net::unix::pipe::Sender,
    )>,
}

impl std::fmt::Debug for Chrome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chrome")
            .field("pid", &self.pid)
            .field("ws_url", &self.ws_url)
            .field("headless", &self.headless)
            .field("kind", &self.binary.kind)
            .finish_non_exhaustive()
    }
}

const STDERR_LINES: usize = 40;

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

impl Chrome {
    /// Launches Chrome and waits until its DevTools endpoint is ready.
    pub async fn launch(options: LaunchOptions) -> Result<Chrome, LaunchError> {
        let binary = discovery::select_browser(&options)?;
        if let Some(warning) = binary.warning() {
            tracing::warn!("{warning}");
        }
        let executable = binary.executable.clone();
        let profile = match &options.profile {
            Some(path) => {
                std::fs::create_dir_all(path).map_err(|e| LaunchError::Profile {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                })?;
                set_private(path);
                // Fail at once, naming the holder, rather than racing another Chrome for it.
                if let Some(user) = crate::profile_user(path) {
                    return Err(LaunchError::Profile {
                        path: path.display().to_string(),
                        reason: user.to_string(),
                    });
                }
                Profile::Persistent(path.clone())
            }
            None => {
                let builder = tempfile::Builder::new()
                    .prefix("agent-browser-chrome-")
                    .clone();
                let made = match &options.temp_dir {
                    Some(root) => builder.tempdir_in(root),
                    None => builder.tempdir(),
                };
                Profile::Temp(made.map_err(|e| LaunchError::Profile {
                    path: "(temp)".into(),
                    reason: e.to_string(),
                })?)
            }
        };
        // A persistent profile may hold the port file of an earlier run.
        let port_file = profile.path().join("DevToolsActivePort");
        let _ = std::fs::remove_file(&port_file);

        let ca_home = if options.ca_certs.is_empty() {
            None
        } else {
            Some(crate::ca_trust::private_home(
                profile.path(),
                &options.ca_certs,
            )?)
        };
        let mut xvfb = None;
        let mut display = options.display.clone();
        if !options.headless && display.is_none() && !options.no_xvfb {
            let (w, h) = options.window_size.unwrap_or((1280, 720));
            xvfb = Some(Xvfb::start(w, h).await?);
        }
        let mut chrome_args =
            args::build_args_for(binary.kind, &options, profile.path(), is_root());
        let mut command = Command::new(&executable);
        let mut our_pipe_ends = None;
        if options.transport == Transport::Pipe {
            chrome_args.retain(|a| a != "--remote-debugging-port=0");
            chrome_args.insert(0, "--remote-debugging-pipe".into());
            let (ends, mappings) = pipe_pair().map_err(|e| LaunchError::Spawn {
                executable: executable.display().to_string(),
                reason: format!("cannot create the debugging pipes: {e}"),
            })?;
            use command_fds::CommandFdExt;
            command
                .fd_mappings(mappings)
                .map_err(|e| LaunchError::Spawn {
                    executable: executable.display().to_string(),
                    reason: format!("cannot map the debugging pipes: {e}"),
                })?;
            our_pipe_ends = Some(ends);
        }
        command
            .args(&chrome_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        if let Some(x) = &xvfb {
            display = Some(x.display.clone());
            command.env("XAUTHORITY", &x.authority);
        }
        if let Some(display) = &display {
            command.env("DISPLAY", display);
        }
        if let Some(home) = &ca_home {
            // An X display of the user's own keeps its cookie file when HOME moves.
            if xvfb.is_none()
                && std::env::var_os("XAUTHORITY").is_none()
                && let Some(user_home) = std::env::var_os("HOME")
            {
                command.env("XAUTHORITY", Path::new(&user_home).join(".Xauthority"));
            }
            command.env("HOME", home);
        }
        for (key, value) in &options.env {
            command.env(key, value);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(err) => {
                if let Some(x) = xvfb {
                    x.stop().await;
                }
                return Err(LaunchError::Spawn {
                    executable: executable.display().to_string(),
                    reason: err.to_string(),
                });
            }
        };
        // Chrome's ends of the pipes were moved into `command`; closing our copies lets us see EOF.
        drop(command);
        let pid = child.id().map_or(0, |p| p as i32);
        let pipe = match our_pipe_ends {
            Some((read, write)) => {
                let read = tokio::net::unix::pipe::Receiver::from_owned_fd(read);
                let write = tokio::net::unix::pipe::Sender::from_owned_fd(write);
                match (read, write) {
                    (Ok(read), Ok(write)) => Some((read, write)),
                    _ => None,
                }
            }
            None => None,
        };
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_LINES)));
        if let Some(pipe) = child.stderr.take() {
            let sink = stderr.clone();
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Ok(mut tail) = sink.lock() {
                        if tail.len() == STDERR_LINES {
                            tail.pop_front();
                        }
                        tail.push_back(line);
                    }
                }
            });
        }
        let (exit_tx, exited) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = exit_tx.send(status);
        });

        // Paths the guard removes if we die: the temp profile and the Xvfb cookie.
        let mut remove = Vec::new();
        if let Profile::Temp(dir) = &profile {
            remove.push(dir.path().to_path_buf());
        }
        if let Some(x) = &xvfb {
            remove.push(x.authority.clone());
        }
        let guard = OrphanGuard::spawn(pid, xvfb.as_ref().and_then(Xvfb::pid), &remove).ok();
        if guard.is_none() {
            tracing::warn!("cannot start the orphan guard; Chrome may outlive a killed owner");
        }

        let mut chrome = Chrome {
            pid,
            ws_url: String::new(),
            port: 0,
            exited,
            profile: Some(profile),
            xvfb,
            guard,
            stderr,
            binary,
            headless: options.headless,
            pipe,
        };
        if options.transport == Transport::Pipe {
            if chrome.pipe.is_none() {
                chrome.kill().await;
                return Err(LaunchError::Spawn {
                    executable: "chrome".into(),
                    reason: "debugging pipe unavailable".into(),
                });
            }
            chrome.ws_url = "pipe:".into();
            chrome.record_profile_kind();
            return Ok(chrome);
        }
        match chrome.wait_ready(&port_file, options.launch_timeout).await {
            Ok((port, path)) => {
                chrome.port = port;
                chrome.ws_url = format!("ws://127.0.0.1:{port}{path}");
                chrome.record_profile_kind();
                Ok(chrome)
            }
            Err(err) => {
                chrome.kill().await;
                Err(err)
            }
        }
    }

    /// Remembers in a persistent profile which kind of binary it runs with, so the next launch
    /// with it chooses the same one (see [`crate::profile_kind`]).
    fn record_profile_kind(&self) {
        if let Some(Profile::Persistent(path)) = &self.profile
            && let Err(err) = discovery::record_profile_kind(path, &self.binary)
        {
            tracing::warn!(
                "cannot record the browser kind in {}: {err}",
                path.display()
            );
        }
    }

    async fn wait_ready(
        &mut self,
        port_file: &Path,
        timeout: Duration,
    ) -> Result<(u16, String), LaunchError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(text) = std::fs::read_to_string(port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next())
                    && let Ok(port) = port.trim().parse::<u16>()
                    && path.starts_with("/devtools/browser/")
                {
                    return Ok((port, path.trim().to_string()));
                }
            }
            let exited = *self.exited.borrow();
            if let Some(status) = exited {
                // Let the stderr reader drain the last lines.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let stderr = self.stderr_tail();
                let hint = if stderr.contains("sandbox") && !stderr.contains("--no-sandbox") {
                    " Hint: running as root or in a container needs --no-sandbox.".to_string()
                } else {
                    String::new()
                };
                return Err(LaunchError::ExitedEarly {
                    status: status.to_string(),
                    stderr,
                    hint,
                });
            }
            if Instant::now() >= deadline {
                return Err(LaunchError::Timeout {
                    after: timeout,
                    stderr: self.stderr_tail(),
                });
            }
            // Chrome writes the file ~150-300 ms after spawn; a short poll keeps the wait tight.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// The browser WebSocket URL, `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The debugging pipe (read from Chrome, write to Chrome) of a [`Transport::Pipe`] launch;
    /// hand it to `abx_cdp::Connection::over_pipe`. Taken once.
    pub fn take_pipe(
        &mut self,
    ) -> Option<(
        tokio::net::unix::pipe::Receiver,
        tokio::net::unix::pipe::Sender,
    )> {
        self.pipe.take()
    }

    /// The DevTools HTTP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Chrome's pid (also its process group id).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The user-data-dir in use.
    pub fn user_data_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(Profile::path)
    }

    /// Whether the profile is a throw-away temp dir.
    pub fn has_temp_profile(&self) -> bool {
        matches!(self.profile, Some(Profile::Temp(_)))
    }

    /// The executable that was launched.
    pub fn executable(&self) -> &Path {
        &self.binary.executable
    }

    /// Which binary runs (headless shell or full Chrome) and why.
    pub fn binary(&self) -> &BrowserBinary {
        &self.binary
    }

    /// Whether Chrome runs headless.
    pub fn is_headless(&self) -> bool {
        self.headless
    }

    /// The private Xvfb display, if one was started.
    pub fn xvfb_display(&self) -> Option<&str> {
        self.xvfb.as_ref().map(|x| x.display.as_str())
    }

    /// The private Xvfb pid, if one was started.
    pub fn xvfb_pid(&self) -> Option<u32> {
        self.xvfb.as_ref().and_then(Xvfb::pid)
    }

    /// The orphan guard's pid (for tests).
    pub fn guard_pid(&self) -> Option<u32> {
        self.guard.as_ref().and_then(OrphanGuard::pid)
    }

    /// Chrome's last stderr lines.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .map(|tail| tail.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }

    /// Whether the main Chrome process has exited.
    pub fn has_exited(&self) -> bool {
        self.exited.borrow().is_some()
    }

    /// Resolves when the main Chrome process exits.
    pub async fn exited(&self) {
        let mut exited = self.exited.clone();
        let _ = exited.wait_for(Option::is_some).await;
    }

    /// Closes Chrome gracefully: `Browser.close` (over `connection`, or a fresh one), a bounded
    /// wait for exit, then SIGTERM and SIGKILL to the group, then verification that no process
    /// of the group survives, then Xvfb and the temp profile.
    pub async fn close(mut self, connection: Option<&Connection>) -> CloseReceipt {
        let started = Instant::now();
        let mut receipt = CloseReceipt::default();
        if !self.has_exited() {
            let sent = match connection {
                Some(conn) if !conn.is_closed() => browser_close(conn).await,
                _ => match tokio::time::timeout(
                    Duration::from_secs(2),
                    Connection::connect(&self.ws_url),
                )
                .await
                {
                    Ok(Ok(conn)) => {
                        let ok = browser_close(&conn).await;
                        conn.close();
                        ok
                    }
                    _ => false,
                },
            };
            if sent {
                let mut exited = self.exited.clone();
                let done =
                    tokio::time::timeout(Duration::from_secs(5), exited.wait_for(Option::is_some))
                        .await;
                receipt.graceful = matches!(done, Ok(Ok(_)));
                tracing::debug!(
                    ms = started.elapsed().as_millis() as u64,
                    graceful = receipt.graceful,
                    "chrome's main process exited"
                );
            }
        }
        // Helpers (zygote, renderers, GPU) leave right after the main process; give them a
        // moment before signalling.
        if !group::wait_empty(self.pid, Duration::from_millis(500)).await {
            let (signals, _) = group::terminate(self.pid, Duration::from_secs(1)).await;
            receipt.signals = signals.into_iter().map(str::to_string).collect();
        }
        let mut exited = self.exited.clone();
        let _ =
            tokio::time::timeout(Duration::from_secs(2), exited.wait_for(Option::is_some)).await;
        if let Some(Some(status)) = self.exited.borrow().as_ref().map(|s| Some(*s)) {
            receipt.exit_code = status.code();
        }
        receipt.survivors = group::members(self.pid).len();
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "chrome's process group is empty"
        );
        self.finish(&mut receipt).await;
        receipt.elapsed_ms = started.elapsed().as_millis() as u64;
        tracing::debug!(ms = receipt.elapsed_ms, "chrome closed and cleaned up");
        receipt
    }

    /// Kills the whole group at once (no cookie flush) and cleans up.
    pub async fn kill(mut self) -> CloseReceipt {
        let started = Instant::now();
        let mut receipt = CloseReceipt::default();
        match group::signal(self.pid, Signal::SIGKILL) {
            Ok(()) => receipt.signals.push("SIGKILL".into()),
            Err(err @ group::SignalError::UnsafeGroup { .. }) => tracing::warn!(%err),
            Err(_) => {}
        }
        group::wait_empty(self.pid, Duration::from_secs(2)).await;
        let mut exited = self.exited.clone();
        let _ =
            tokio::time::timeout(Duration::from_secs(2), exited.wait_for(Option::is_some)).await;
        receipt.survivors = group::members(self.pid).len();
        self.finish(&mut receipt).await;
        receipt.elapsed_ms = started.elapsed().as_millis() as u64;
        receipt
    }

    async fn finish(&mut self, receipt: &mut CloseReceipt) {
        if let Some(x) = self.xvfb.take() {
            receipt.xvfb_stopped = x.stop().await;
        }
        let mut files_ok = true;
        match self.profile.take() {
            Some(Profile::Temp(dir)) => {
                let path = dir.path().to_path_buf();
                let _ = dir.close();
                if path.exists() {
                    // Chrome helpers may still have written a file; try once more.
                    let _ = std::fs::remove_dir_all(&path);
                }
                receipt.temp_profile_removed = !path.exists();
                files_ok = receipt.temp_profile_removed;
            }
            Some(Profile::Persistent(path)) => {
                let _ = std::fs::remove_file(path.join("DevToolsActivePort"));
            }
            None => {}
        }
        if let Some(guard) = self.guard.take() {
            guard.disarm().await;
        }
        receipt.verified = receipt.survivors == 0 && files_ok;
    }
}

impl Drop for Chrome {
    fn drop(&mut self) {
        // Not closed explicitly (error path or panic): kill the group now. The guard, dropped
        // with us undisarmed, also fires and removes the temp profile.
        if self.guard.is_some() || self.profile.is_some() {
            let _ = group::signal(self.pid, Signal::SIGKILL);
        }
    }
}

type PipeEnds = (std::os::fd::OwnedFd, std::os::fd::OwnedFd);

/// Two pipes: Chrome reads commands on fd 3 and writes replies on fd 4. Returns our ends
/// (read-from-Chrome, write-to-Chrome) and the child mappings.
fn pipe_pair() -> std::io::Result<(PipeEnds, Vec<command_fds::FdMapping>)> {
    use nix::fcntl::OFlag;
    let (to_chrome_read, to_chrome_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let (from_chrome_read, from_chrome_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let mappings = vec![
        command_fds::FdMapping {
            parent_fd: to_chrome_read,
            child_fd: 3,
        },
        command_fds::FdMapping {
            parent_fd: from_chrome_write,
            child_fd: 4,
        },
    ];
    Ok(((from_chrome_read, to_chrome_write), mappings))
}

async fn browser_close(conn: &Connection) -> bool {
    // Chrome may drop the socket before answering; both mean the close was accepted.
    use abx_cdp::protocol::browser_protocol::browser::CloseParams;
    match conn
        .browser()
        .call_within(CloseParams::default(), Duration::from_secs(3))
        .await
    {
        Ok(_) => true,
        Err(err) => err.is_connection_closed(),
    }
}

fn set_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
}
