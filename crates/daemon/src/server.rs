//! The Unix-socket server: ownership lock, sidecars, connections, idle timeout, signals, exit.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::config::DaemonConfig;
use crate::daemon::Daemon;
use crate::dispatch::{Lane, Routes};
use crate::protocol::{LineError, ReplyLine, invalid, parse_line};
use crate::sidecar::Sidecars;

/// The version string daemons write to `<session>.version` (upstream's, for drop-in checks).
pub const VERSION: &str = "0.41.2";

/// Lines longer than this are refused (a request is small; this bounds memory per client).
const MAX_LINE: usize = 16 * 1024 * 1024;

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Another live daemon owns the session (the CLI piggybacks on it).
    #[error("Failed to bind socket: Address already in use (session {0} has a live daemon)")]
    AlreadyRunning(String),
    /// Socket dir or socket trouble.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Runs the daemon until `close`, a signal, or the idle timeout, serving the actions of
/// `routes`.
pub async fn run(config: DaemonConfig, routes: Routes) -> Result<(), DaemonError> {
    tracing::debug!("daemon starting");
    let files = Sidecars::new(&config.socket_dir, &config.session);
    files.ensure_dir()?;
    let Some(lock) = take_lock(&files).await? else {
        return Err(DaemonError::AlreadyRunning(config.session.clone()));
    };
    // We own the session now: whatever socket file exists belongs to a dead daemon.
    // The pid and version files exist before the socket accepts, so a CLI that can connect can
    // also read them (it writes `.config` only for the daemon it spawned).
    files.write("pid", &std::process::id().to_string())?;
    files.write("version", VERSION)?;
    let socket = files.path("sock");
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    if config.signal_ready {
        signal_ready();
    }

    let daemon = Daemon::new(config, files.clone(), routes);
    tracing::debug!("daemon listening");
    crate::stream::install(&daemon).await;
    tokio::spawn(idle_watch(daemon.clone()));
    tokio::spawn(crate::autosave::watch(daemon.clone()));
    let orphaned = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Ok(meta) = std::fs::metadata(&socket) {
        use std::os::unix::fs::MetadataExt;
        tokio::spawn(socket_watch(
            daemon.clone(),
            socket.clone(),
            meta.ino(),
            orphaned.clone(),
        ));
    }
    tokio::spawn(signal_watch(daemon.clone()));

    // Accepting runs in a task of the runtime, not in `block_on`'s own thread: a connection's
    // task is then spawned on the worker that accepted it and runs there next, instead of
    // waking another thread for every CLI invocation.
    let connections = tokio_util::task::TaskTracker::new();
    let accepting = tokio::spawn(accept_until_shutdown(
        daemon.clone(),
        listener,
        connections.clone(),
    ));
    if let Err(err) = accepting.await {
        tracing::warn!(%err, "the accept loop ended abnormally");
    }
    // close() already ended the browser; a signal or the idle timer did not.
    let receipt = daemon.close_browser().await;
    tracing::debug!(?receipt, "daemon exiting");
    // Files that are no longer ours (the dir was removed or another daemon took the name) stay.
    if !orphaned.load(std::sync::atomic::Ordering::Relaxed) {
        files.remove_ephemeral();
    }
    // Every connection ends on shutdown once its reply is written (the close reply among
    // them): wait for those, not a fixed time. The CLI of `close` waits for this process to
    // exit, so a fixed pause was paid by every close. A command still running is given a
    // moment to answer.
    connections.close();
    if tokio::time::timeout(Duration::from_millis(500), connections.wait())
        .await
        .is_err()
    {
        tracing::debug!(left = connections.len(), "connections still open at exit");
    }
    drop(lock);
    Ok(())
}

/// Serves connections until shutdown, then drops the listener at once: a CLI arriving now
/// starts a new daemon (which waits in `take_lock` until this one has removed its files)
/// instead of talking to one that is leaving.
async fn accept_until_shutdown(
    daemon: Arc<Daemon>,
    listener: UnixListener,
    connections: tokio_util::task::TaskTracker,
) {
    loop {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve(daemon.clone(), stream));
                }
                Err(err) => {
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
}

/// Tells the CLI that spawned us that the socket accepts (one line on stdout, see
/// [`abx_wire::env::ABX_DAEMON_READY`]), then points stdout at `/dev/null`: the pipe's reader
/// exits soon, and a later write to a closed pipe would fail.
fn signal_ready() {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(abx_wire::env::DAEMON_READY_LINE.as_bytes());
    let _ = out.flush();
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2(null.as_raw_fd(), std::io::stdout().as_raw_fd());
    }
}

/// The session's ownership lock. Its holder may be a daemon on its way out (after a failed
/// launch or a close: it still removes its files): wait for it while nobody accepts on the
/// socket. A holder that serves the socket is a live daemon: `None` at once.
async fn take_lock(files: &Sidecars) -> Result<Option<crate::sidecar::OwnerLock>, DaemonError> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(lock) = files.lock()? {
            return Ok(Some(lock));
        }
        let serving = std::os::unix::net::UnixStream::connect(files.path("sock")).is_ok();
        if serving || tokio::time::Instant::now() >= deadline {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn serve(daemon: Arc<Daemon>, stream: UnixStream) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::with_capacity(64 * 1024, read);
    let mut line = Vec::new();
    // Set once a fencing request (a `launch`) failed: later requests on this connection are
    // answered without being run.
    let mut fence: Option<String> = None;
    // The reply to a `launch` whose command is already buffered behind it: the CLI reads both
    // before it does anything, so they go out in one write (one wake-up of the CLI, not two).
    let mut held: Option<Vec<u8>> = None;
    loop {
        line.clear();
        let read = tokio::select! {
            read = read_line_bounded(&mut reader, &mut line) => read,
            _ = daemon.shutdown.cancelled() => return release(&mut write, held).await,
        };
        match read {
            Ok(0) => return release(&mut write, held).await,
            Ok(_) => {}
            Err(err) => {
                let reply = ReplyLine::from(invalid(&format!("Invalid request: {err}")));
                let _ = write_line(&mut write, &mut held, &reply).await;
                return;
            }
        }
        let request = match parse_line(&line) {
            Ok(request) => request,
            Err(LineError::Blank) => continue,
            Err(LineError::Http) => return release(&mut write, held).await,
            Err(LineError::Invalid(message)) => {
                if write_line(&mut write, &mut held, &invalid(&message).into())
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
        };
        tracing::debug!(action = %request.action, "request");
        let closing = daemon.routes.lane(&request.action) == Lane::Close;
        if let Some(reason) = fence.as_deref()
            && !closing
        {
            let reply = crate::protocol::failure(
                &request.id,
                &format!("not run: the {reason} before it on this connection failed"),
                Some("fenced"),
                None,
                None,
            )
            .into();
            if write_line(&mut write, &mut held, &reply).await.is_err() {
                return;
            }
            continue;
        }
        let fences = daemon
            .routes
            .get(&request.action)
            .is_some_and(|r| r.fences_on_failure)
            .then(|| request.action.clone());
        // The command runs in its own task, and this one watches the client meanwhile: a
        // client that goes away (killed, timed out, Ctrl-C) cancels its command, which then
        // releases the page lane for the next one (unless the command runs to completion).
        let caller = tokio_util::sync::CancellationToken::new();
        let mut worker = tokio::spawn({
            let daemon = daemon.clone();
            let caller = caller.clone();
            async move { daemon.reply_for(request, &caller).await }
        });
        let finished = tokio::select! {
            finished = &mut worker => Some(finished),
            () = client_gone(reader.get_ref()) => None,
        };
        let reply = match finished {
            Some(Ok(reply)) => reply,
            Some(Err(err)) => invalid(&format!("internal error: {err}")).into(),
            None => {
                tracing::debug!("the client went away: cancelling its command");
                caller.cancel();
                let _ = worker.await;
                return;
            }
        };
        let succeeded = reply.succeeded();
        let launched = fences.is_some() && succeeded;
        if fences.is_some() && !succeeded {
            fence = fences;
        }
        // A daemon whose launch failed has nothing to serve: it exits instead of living on
        // (its `close` then finds no daemon and succeeds at once). Its socket file goes before
        // the reply, as `close` does: the CLI's next command must not reach a listener that is
        // about to close (it would read `Connection reset by peer`), but start a new daemon.
        let ending = !closing && daemon.failed_launch_left_nothing();
        if ending {
            tracing::debug!("the launch failed and no browser is up; shutting down");
            daemon.files.remove_ephemeral();
            daemon.shutdown.cancel();
        }
        if launched && !closing && !ending && line_buffered(&reader) {
            append_line(held.get_or_insert_with(Vec::new), &reply);
            continue;
        }
        if write_line(&mut write, &mut held, &reply).await.is_err() || closing || ending {
            return;
        }
    }
}

/// Returns once the client has closed its socket (its process died, or it gave up). A client
/// that only shut down its sending side still waits for the reply and is not gone.
///
/// It watches a duplicate of the socket's descriptor with its own readiness: the connection's
/// own readiness must stay as it is for the next request's read, and a pipelined request or a
/// half-close that woke this watch is cleared here so that only a new event wakes it again.
async fn client_gone(read: &tokio::net::unix::OwnedReadHalf) {
    use std::os::fd::AsFd;
    let stream: &UnixStream = read.as_ref();
    let watch = stream
        .as_fd()
        .try_clone_to_owned()
        .map(std::os::unix::net::UnixStream::from)
        .and_then(UnixStream::from_std);
    let Ok(watch) = watch else {
        return std::future::pending().await;
    };
    loop {
        if watch.readable().await.is_err() || hung_up(&watch) {
            return;
        }
        // Readable without a hang-up (a pipelined request, a half-close): clear this watch's
        // readiness so that only a new event wakes it.
        let _ = watch.try_io(tokio::io::Interest::READABLE, || {
            Err::<(), _>(std::io::ErrorKind::WouldBlock.into())
        });
    }
}

/// Whether the peer closed its end: `POLLHUP`, which a Unix stream socket reports only once
/// both directions are shut (a half-close gives `POLLRDHUP`, not this).
fn hung_up(fd: &UnixStream) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLOUT)];
    match poll(&mut fds, PollTimeout::ZERO) {
        Ok(_) => fds[0]
            .revents()
            .is_some_and(|r| r.intersects(PollFlags::POLLHUP | PollFlags::POLLERR)),
        Err(_) => false,
    }
}

/// Sends a held reply before the connection ends.
async fn release(write: &mut tokio::net::unix::OwnedWriteHalf, held: Option<Vec<u8>>) {
    if let Some(text) = held {
        let _ = write_all(write, &text).await;
    }
}

/// Whether a whole request line already waits in `reader`'s buffer.
fn line_buffered<R: tokio::io::AsyncRead>(reader: &BufReader<R>) -> bool {
    reader.buffer().contains(&b'\n')
}

fn append_line(text: &mut Vec<u8>, reply: &ReplyLine) {
    reply.write_to(text);
}

async fn write_all(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    text: &[u8],
) -> std::io::Result<()> {
    write.write_all(text).await?;
    write.flush().await
}

async fn read_line_bounded<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(line.len());
        }
        if let Some(pos) = available.iter().position(|b| *b == b'\n') {
            line.extend_from_slice(&available[..pos]);
            reader.consume(pos + 1);
            return Ok(line.len() + 1);
        }
        let n = available.len();
        line.extend_from_slice(available);
        reader.consume(n);
        if line.len() > MAX_LINE {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "request line too long",
            ));
        }
    }
}

/// Writes `value` as one line, after a held reply if there is one.
async fn write_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    held: &mut Option<Vec<u8>>,
    reply: &ReplyLine,
) -> std::io::Result<()> {
    let mut text = held.take().unwrap_or_default();
    append_line(&mut text, reply);
    let mut sent = 0;
    if let Some(file) = reply.passed_file() {
        // The memory file travels with the first bytes written (a held launch reply's, or
        // this line's): the reader collects it as it reads and takes it for this line.
        sent = crate::shared_text::write_passing(write.as_ref(), &text, file).await?;
    }
    write_all(write, &text[sent..]).await
}

async fn idle_watch(daemon: Arc<Daemon>) {
    let Some(limit) = daemon.config.idle_timeout else {
        return;
    };
    loop {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => return,
            _ = tokio::time::sleep(Duration::from_millis(250).min(limit)) => {}
        }
        // A command in flight (a long `open`, a `wait`) is activity until it ends: the idle
        // time counts from its end (`handle` touches then), never through it.
        if daemon.in_flight() > 0 || daemon.idle_for() < limit {
            continue;
        }
        // With upstream's default timeout, attached and headed browsers are never idled out.
        if daemon.config.idle_timeout_is_default
            && let Some(live) = daemon.live()
            && (live.spec.is_attach() || !live.spec.headless)
        {
            daemon.touch();
            continue;
        }
        tracing::debug!("Idle for {:?} with no commands; shutting down", limit);
        daemon.shutdown.cancel();
        return;
    }
}

/// How often the daemon checks that its socket file is still its own.
const SOCKET_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Ends the daemon (closing its browser) when its socket file disappears or is replaced: no
/// CLI can reach it any more (someone removed the socket dir, say), so waiting for the idle
/// timeout would leave a Chrome running for up to an hour that nothing can close.
async fn socket_watch(
    daemon: Arc<Daemon>,
    socket: std::path::PathBuf,
    inode: u64,
    orphaned: Arc<std::sync::atomic::AtomicBool>,
) {
    use std::os::unix::fs::MetadataExt;
    loop {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => return,
            _ = tokio::time::sleep(SOCKET_CHECK_INTERVAL) => {}
        }
        let ours = match std::fs::metadata(&socket) {
            Ok(meta) => meta.ino() == inode,
            Err(err) => err.kind() != std::io::ErrorKind::NotFound,
        };
        if !ours {
            tracing::debug!(socket = %socket.display(), "the socket file is gone or replaced; shutting down");
            orphaned.store(true, std::sync::atomic::Ordering::Relaxed);
            daemon.shutdown.cancel();
            return;
        }
    }
}

async fn signal_watch(daemon: Arc<Daemon>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
        _ = daemon.shutdown.cancelled() => return,
    }
    daemon.shutdown.cancel();
}
