//! The `agent-browser` binary: CLI by default, session daemon when `AGENT_BROWSER_DAEMON` is set.
//!
//! The binary has its own C `main` instead of Rust's `fn main` (`entry` below): every CLI command
//! is a fresh process, and the runtime set-up Rust's start-up code does before `fn main` (reading
//! `/proc/self/maps` to find the main thread's stack guard, an alternate signal stack) cost
//! 0.04–0.26 ms of a 1.3–2 ms command. What of it matters is done here by hand, and the one C
//! maths function the process uses is defined here so that `libm.so.6` is not loaded. ADR 0014.

// Under `cfg(test)` the test harness must keep its own `main`: it runs this file's unit tests.
#![cfg_attr(not(test), no_main)]

use abx_wire::env;
use std::io::Write;

use abx_wire::extras;
use agent_browser::client::{Client, SendError, live_sessions};
use agent_browser::commands::browser::close;
use agent_browser::commands::control::{self, session};
use agent_browser::commands::{Command, LocalCommand, SessionCommand, registry};
use agent_browser::host::SystemHost;
use agent_browser::output::{self, Rendered, Response};
use agent_browser::{Invocation, parse};
use serde_json::{Value, json};

/// The process entry point in place of the one Rust's start-up code provides (see the crate
/// docs). The only unsafe code in abx's own crates: exporting `main` and `pow`, setting
/// `SIGPIPE`'s disposition and glibc's allocator thresholds, which no safe API of std or nix
/// offers.
#[allow(unsafe_code)]
mod entry {
    use std::ffi::c_int;

    /// Called by the C runtime with the arguments std already captured (glibc passes them to
    /// std's own initialiser too, so `std::env::args` works as usual).
    #[cfg(not(test))]
    #[unsafe(no_mangle)]
    extern "C" fn main(_argc: c_int, _argv: *const *const std::ffi::c_char) -> c_int {
        start()
    }

    /// What `main` does; apart from it so that the unit-test build, whose `main` is the test
    /// harness's, still compiles and lints all of it.
    #[cfg_attr(test, allow(dead_code))]
    fn start() -> c_int {
        keep_standard_fds_open();
        ignore_sigpipe();
        // As Rust's own `main` would: a panic prints its message and exits with 101, and what
        // is still buffered on stdout is written before the exit.
        let status = std::panic::catch_unwind(super::run_process).unwrap_or(101);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        c_int::from(status)
    }

    /// The one C maths function the binary uses (tokio's scheduler: `f64::powf` in its poll-time
    /// average), defined here so that the linker needs no `libm.so.6` and every command loads
    /// one shared library fewer (0.17–0.27 ms per process; ADR 0014). `libm` is Rust's port of
    /// musl's implementation, correctly rounded in the same cases as glibc's.
    #[unsafe(no_mangle)]
    extern "C" fn pow(base: f64, exponent: f64) -> f64 {
        libm::pow(base, exponent)
    }

    /// Writing to a socket whose peer went away (a daemon that died, a CLI that was killed)
    /// must be an `EPIPE` error to handle, not a signal that kills the process: what Rust's
    /// start-up code sets too.
    fn ignore_sigpipe() {
        use nix::sys::signal::{SigHandler, Signal, signal};
        // SAFETY: no other thread exists yet, and `SigIgn` installs no handler code.
        let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigIgn) };
    }

    /// Ends the process the way a pipeline expects when the reader of stdout went away
    /// (`agent-browser snapshot | head -1`): killed by `SIGPIPE`, silently, as upstream and
    /// every Unix filter do (the shell sees 141). Returns 141 only if the signal did not end
    /// the process.
    pub(super) fn die_of_sigpipe() -> u8 {
        use nix::sys::signal::{SigHandler, Signal, raise, signal};
        // SAFETY: `SigDfl` installs no handler code; whatever other thread runs, the next
        // thing this one does is end the process.
        let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
        let _ = raise(Signal::SIGPIPE);
        141
    }

    /// A CLI command serves its large buffers (a large page's snapshot reply is half a
    /// megabyte, read, decoded and rendered through a few of them) from the heap, and reuses
    /// the ones it freed: glibc would map each one afresh (and unmap it when freed), and every
    /// 4 KB of a fresh mapping costs a page fault when first touched (~150 faults, 0.1–0.2 ms,
    /// per such buffer). A CLI process is short-lived or small; the daemon keeps glibc's
    /// defaults, which give memory back.
    pub(super) fn keep_large_buffers_on_the_heap() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            unsafe extern "C" {
                fn mallopt(param: c_int, value: c_int) -> c_int;
            }
            const M_TRIM_THRESHOLD: c_int = -1;
            const M_MMAP_THRESHOLD: c_int = -3;
            const LARGE: c_int = 32 << 20;
            // SAFETY: glibc's documented tuning call, made before any other thread exists;
            // it changes thresholds only, never memory already handed out.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, LARGE);
                mallopt(M_TRIM_THRESHOLD, LARGE);
            }
        }
    }

    /// A descriptor 0–2 that the parent left closed is opened on `/dev/null`, as Rust's
    /// start-up code does, so a socket or file opened later can never land on stdout and
    /// receive what is printed.
    fn keep_standard_fds_open() {
        use nix::fcntl::{FcntlArg, OFlag, fcntl, open};
        for fd in 0..=2 {
            if fcntl(fd, FcntlArg::F_GETFD) == Err(nix::errno::Errno::EBADF) {
                // `open` returns the lowest free descriptor: this one, the lower ones being
                // open. It stays open for the life of the process.
                let _ = open("/dev/null", OFlag::O_RDWR, nix::sys::stat::Mode::empty());
            }
        }
    }
}

/// The whole process: daemon, dashboard server or one CLI command; returns the exit status.
fn run_process() -> u8 {
    if std::env::var_os(env::DAEMON).is_some() {
        return run_daemon();
    }
    if std::env::var_os(control::dashboard::SERVE_ENV).is_some() {
        return control::dashboard::serve();
    }
    entry::keep_large_buffers_on_the_heap();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let rendered = match parse(&argv, &SystemHost) {
        Ok(inv) => run(&inv),
        Err(failure) => failure.render(),
    };
    let status = rendered.exit_code.clamp(0, 255) as u8;
    match emit(&rendered) {
        Ok(()) => status,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => entry::die_of_sigpipe(),
        // The result did not reach its reader (a full disk, a descriptor opened read-only):
        // a command whose output is lost has not succeeded.
        Err(err) => {
            let _ = writeln!(
                std::io::stderr(),
                "✗ Could not write the result to stdout: {err}"
            );
            if status == 0 { 1 } else { status }
        }
    }
}

/// Writes a command's result; the error is stdout's (stderr's own failures have nowhere to be
/// reported).
fn emit(rendered: &Rendered) -> std::io::Result<()> {
    // Upstream prints a success's warnings before its result, and a failure's error before its
    // warnings; the order only shows when a caller merges the two streams (`2>&1`).
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let print = |out: &mut std::io::StdoutLock<'_>| -> std::io::Result<()> {
        if let Some(file) = &rendered.stdout_file {
            file.print(out)?;
        }
        out.write_all(rendered.stdout.as_bytes())?;
        out.flush()
    };
    if rendered.exit_code == 0 {
        let _ = err.write_all(rendered.stderr.as_bytes());
        let _ = err.flush();
        print(&mut out)
    } else {
        let written = print(&mut out);
        let _ = err.write_all(rendered.stderr.as_bytes());
        written
    }
}

fn run_daemon() -> u8 {
    // Leave the CLI's session so a terminal hangup or the CLI's process group going away does
    // not take the daemon with it.
    let _ = nix::unistd::setsid();
    let config = abx_daemon::DaemonConfig::from_env(&|name| std::env::var(name).ok());
    abx_daemon::init_logging(&config);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("Failed to start the daemon runtime: {err}");
            return 1;
        }
    };
    let routes = abx_daemon::dispatch::Routes::new(registry::routes());
    match runtime.block_on(abx_daemon::run(config, routes)) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("{err}");
            1
        }
    }
}

fn run(inv: &Invocation) -> Rendered {
    let mut rendered = Rendered::default();
    for warning in &inv.warnings {
        rendered
            .stderr
            .push_str(&output::render_warning(warning, &inv.output));
    }
    // What cannot work here (-p, --engine, --device, --enable) is refused before a daemon or a
    // browser starts; `close` still closes.
    let closing =
        matches!(&inv.command, Command::Daemon(plan) if plan.action() == Some(close::ACTION));
    if !matches!(inv.command, Command::Local(_))
        && !closing
        && let Some(message) = control::unavailable::refusal(&inv.flags, None, &SystemHost)
    {
        rendered.append(output::render_error(&message, &inv.output));
        return rendered;
    }
    let result = match &inv.command {
        Command::Local(local) => run_local(inv, local),
        Command::Daemon(plan) => run_plan(
            inv,
            plan.launch.as_ref().map(|l| (&l.request, l.kind)),
            &plan.request,
        ),
        Command::Batch(batch) => run_batch(inv, batch),
    };
    rendered.append(result);
    rendered
}

fn client(inv: &Invocation) -> Result<Client<'_>, Rendered> {
    Client::new(inv).map_err(|message| output::render_error(&message, &inv.output))
}

/// The reply as a [`Response`], moving its `data` out instead of rebuilding it (what
/// `serde_json::from_value` would do: a whole second copy of a large snapshot's refs).
fn response(value: Value) -> Response {
    let invalid = || Response {
        success: false,
        data: None,
        error: Some("Invalid response from daemon".into()),
        code: None,
        warning: None,
    };
    let Value::Object(mut map) = value else {
        return invalid();
    };
    // As the derived `Deserialize` reads them: absent or null is `None`, any other type is an
    // invalid reply.
    let mut text = |key: &str| match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(()),
    };
    let (Ok(code), Ok(error), Ok(warning)) = (text("code"), text("error"), text("warning")) else {
        return invalid();
    };
    let success = match map.remove("success") {
        None => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return invalid(),
    };
    let data = map.remove("data").filter(|d| !d.is_null());
    Response {
        success,
        data,
        error,
        code,
        warning,
    }
}

fn run_plan(
    inv: &Invocation,
    launch: Option<(&Value, agent_browser::commands::LaunchKind)>,
    request: &Value,
) -> Rendered {
    let client = match client(inv) {
        Ok(client) => client,
        Err(rendered) => return rendered,
    };
    let action = request.get(extras::ACTION).and_then(Value::as_str);
    let closing = action == Some(close::ACTION);
    if closing && !client.is_alive() {
        // Nothing to close: answer at once instead of starting a daemon to shut it down. A
        // daemon that died (killed, crashed) left its files: they go, as upstream's `close`
        // removes them.
        abx_daemon::sidecar::Sidecars::new(&inv.socket_dir, &inv.session).remove_if_stale();
        let reply = json!({"success": true, "data": {"closed": true}});
        return output::render_response(&response(reply), action, &inv.output);
    }
    let mut rendered = Rendered::default();
    if !inv.output.json && inv.output.max_output.is_none() && !inv.output.content_boundaries {
        // A text the daemon passes as a memory file is printed straight from it
        // (`render_owned_response` decides, and reads it where it cannot).
        client.keep_passed_text();
    }
    match client.ensure_daemon() {
        Ok(warnings) => {
            for warning in warnings {
                rendered
                    .stderr
                    .push_str(&output::render_warning(&warning, &inv.output));
            }
        }
        Err(message) => {
            rendered.append(output::render_error(&message, &inv.output));
            return rendered;
        }
    }
    // `close` must close even when the browser it would attach to is gone (a dead anchor): the
    // leading `launch` is then skipped, or its failure ignored, so no daemon is left behind.
    let launch = launch.filter(|_| !closing);
    // `get cdp-url` reports a running browser and never starts one (upstream's docs), so local
    // launch settings are not sent ahead of it.
    let launch = launch.filter(|(_, kind)| {
        action != Some(agent_browser::commands::page::get::CDP_URL)
            || !matches!(kind, agent_browser::commands::LaunchKind::Local)
    });
    let pid = if closing { client.daemon_pid() } else { None };
    let mut launch_warning = None;
    let reply = match launch {
        Some((launch, kind)) => match client.send_pipelined_with_respawn(launch, request) {
            Ok((launched, command_reply)) => {
                let mut launched = response(launched);
                // e.g. a launch that switched a profile's Chrome binary (a pending dialog's
                // warning also rides on the command's reply: printed once, below).
                launch_warning = launched.warning.clone().filter(|_| launched.success);
                match command_reply {
                    Some(reply) if launched.success => match reply {
                        // The daemon went away during the command: as a lone command would.
                        Err(SendError::NoDaemon(_)) => client.send_with_respawn(request),
                        other => other,
                    },
                    _ => {
                        // Keep the daemon's code (e.g. browser_lost) in the output.
                        if launched.error.is_none() {
                            launched.error = Some(kind.fallback_error().to_string());
                        }
                        launched.success = false;
                        launched.data = None;
                        rendered.append(output::render_response(&launched, action, &inv.output));
                        return rendered;
                    }
                }
            }
            Err(err) => {
                rendered.append(output::render_error(&err.to_string(), &inv.output));
                return rendered;
            }
        },
        None => client.send_with_respawn(request),
    };
    match reply {
        Ok(reply) => {
            let closed = reply.pointer("/data/closed").and_then(Value::as_bool) == Some(true);
            if closing && closed {
                client.wait_closed(pid);
            }
            let reply = match confirm_interactively(inv, &client, reply) {
                Ok(reply) => response(reply),
                Err(rendered) => return rendered,
            };
            if let Some(warning) = launch_warning.filter(|w| reply.warning.as_ref() != Some(w)) {
                rendered
                    .stderr
                    .push_str(&output::render_warning(&warning, &inv.output));
            }
            let passed = client.take_passed_text();
            rendered.append(output::render_owned_response(
                reply,
                action,
                &inv.output,
                passed,
            ));
        }
        Err(SendError::NoDaemon(message) | SendError::Other(message)) => {
            rendered.append(output::render_error(&message, &inv.output));
        }
    }
    rendered
}

/// `--confirm-interactive`: a reply that asks for confirmation is answered here — on a terminal
/// by asking `Allow <action>? [y/N]`, otherwise by denying it (`✗ Action denied`, exit 1).
fn confirm_interactively(
    inv: &Invocation,
    client: &Client,
    reply: Value,
) -> Result<Value, Rendered> {
    use std::io::IsTerminal;
    let pending = reply
        .pointer("/data/confirmation_required")
        .and_then(Value::as_bool)
        == Some(true);
    if !inv.flags.confirm_interactive || !pending {
        return Ok(reply);
    }
    let id = reply
        .pointer("/data/confirmation_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let action = reply
        .pointer("/data/action")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let allowed = std::io::stdin().is_terminal() && {
        eprint!("Allow {action}? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer).is_ok()
            && matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    };
    let verb = if allowed { "confirm" } else { "deny" };
    let answered = client
        .send_with_respawn(&json!({extras::ACTION: verb, "confirmationId": id}))
        .map_err(|e| output::render_error(&e.to_string(), &inv.output))?;
    if !allowed {
        return Err(output::render_error("Action denied", &inv.output));
    }
    // The confirmed command's own reply is what the invocation prints.
    Ok(answered
        .pointer("/data/result")
        .cloned()
        .unwrap_or(answered))
}

fn run_batch(inv: &Invocation, batch: &agent_browser::commands::BatchPlan) -> Rendered {
    let client = match client(inv) {
        Ok(client) => client,
        Err(rendered) => return rendered,
    };
    if let Err(message) = client.ensure_daemon() {
        return output::render_error(&message, &inv.output);
    }
    if let Some(launch) = &batch.launch {
        match client.send_with_respawn(&launch.request).map(response) {
            Ok(reply) if reply.success => {}
            Ok(reply) => {
                let message = reply
                    .error
                    .unwrap_or_else(|| launch.kind.fallback_error().to_string());
                return output::render_error(&message, &inv.output);
            }
            Err(err) => return output::render_error(&err.to_string(), &inv.output),
        }
    }
    let mut report = output::BatchReport::new(&inv.output).omitting_command(batch.omit_command);
    for (index, step) in batch.steps.iter().enumerate() {
        match &step.request {
            Ok(request) => {
                let action = request.get(extras::ACTION).and_then(Value::as_str);
                match client.send_with_respawn(request) {
                    Ok(reply) => report.push_response(index, &step.argv, &response(reply), action),
                    Err(err) => report.push_error(index, &step.argv, &err.to_string()),
                }
            }
            Err(err) => report.push_error(index, &step.argv, &err.to_string()),
        }
        if batch.bail && report.failed() {
            break;
        }
    }
    report.finish()
}

fn run_local(inv: &Invocation, local: &LocalCommand) -> Rendered {
    if let Some(rendered) = local.immediate(&inv.output) {
        return rendered;
    }
    match local {
        LocalCommand::Session(SessionCommand::List) => {
            let sessions = live_sessions(&inv.socket_dir);
            output::render_session_list(&sessions, &inv.session, &inv.output)
        }
        LocalCommand::Session(SessionCommand::Show) => {
            output::render_session_show(&inv.session, &inv.output)
        }
        LocalCommand::Session(SessionCommand::Id { scope, prefix }) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let cwd = cwd.canonicalize().unwrap_or(cwd);
            let path = match scope.as_str() {
                "cwd" => cwd,
                "worktree" => git_root(&cwd).unwrap_or(cwd),
                "git-root" => match git_root(&cwd) {
                    Some(root) => root,
                    None => {
                        return output::render_error("Not inside a Git working tree", &inv.output);
                    }
                },
                other => {
                    return output::render_error(
                        &format!(
                            "Unknown session id scope '{other}'. Use worktree, cwd, or git-root."
                        ),
                        &inv.output,
                    );
                }
            };
            let path = path.display().to_string();
            let (session, hash) = agent_browser::session::session_id(&path, prefix.as_deref());
            output::render_session_id(&session, scope, &path, &hash, &inv.output)
        }
        LocalCommand::Session(SessionCommand::Info) => session::render_info(
            &inv.session,
            &inv.socket_dir,
            |request| {
                let client = Client::new(inv)?;
                client.send(request).map_err(|err| err.to_string())
            },
            &inv.output,
        ),
        LocalCommand::Mcp(words) => {
            let argv: Vec<String> = std::env::args().skip(1).collect();
            agent_browser::mcp::run(inv, &argv, words)
        }
        LocalCommand::Profiles => control::profiles::run(
            std::path::Path::new(&std::env::var_os("HOME").unwrap_or_default()),
            &inv.output,
        ),
        LocalCommand::CloseAll => close_all(inv),
        LocalCommand::Dashboard(command) => control::dashboard::run(inv, command),
        LocalCommand::Run(local) => (local.run)(&local.args, inv, &SystemHost),
        LocalCommand::StateFile { request } => {
            use agent_browser::commands::control::{auth, state};
            let action = request
                .get(extras::ACTION)
                .and_then(Value::as_str)
                .unwrap_or_default();
            // `--namespace` scopes saved states like the socket directory.
            let namespace = inv.flags.namespace.clone();
            let var = |name: &str| match name {
                env::NAMESPACE => namespace.clone(),
                _ => std::env::var(name).ok(),
            };
            let result = if auth::is_vault_operation(action) {
                auth::run_vault_operation(request, &var)
            } else {
                state::run_file_operation(request, &var)
            };
            let reply = match result {
                Ok(data) => json!({"success": true, "data": data}),
                Err(error) => json!({"success": false, "data": null, "error": error}),
            };
            output::render_response(&response(reply), Some(action), &inv.output)
        }
        _ => output::render_error("Unsupported command", &inv.output),
    }
}

fn close_all(inv: &Invocation) -> Rendered {
    let sessions = live_sessions(&inv.socket_dir);
    let mut closed = Vec::new();
    let mut failed = Vec::new();
    for name in sessions {
        let socket = inv.socket_dir.join(format!("{name}.sock"));
        let pid: Option<i32> = std::fs::read_to_string(inv.socket_dir.join(format!("{name}.pid")))
            .ok()
            .and_then(|p| p.trim().parse().ok());
        match close_socket(&socket) {
            Ok(()) => {
                if let Some(pid) = pid {
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    while agent_browser::client::pid_alive(pid)
                        && std::time::Instant::now() < deadline
                    {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                }
                closed.push(name);
            }
            Err(err) => failed.push((name, err)),
        }
    }
    output::render_close_all(&closed, &failed, &inv.output)
}

fn close_socket(socket: &std::path::Path) -> Result<(), String> {
    use std::io::{BufRead, BufReader};
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(|e| e.to_string())?;
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
    let line = format!(
        "{}\n",
        json!({extras::ID: agent_browser::request_id(), extras::ACTION: close::ACTION})
    );
    stream
        .write_all(line.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reply = String::new();
    BufReader::new(stream)
        .read_line(&mut reply)
        .map_err(|e| e.to_string())?;
    let value: Value = serde_json::from_str(&reply).map_err(|e| e.to_string())?;
    if value.get("success").and_then(Value::as_bool) == Some(true) {
        Ok(())
    } else {
        Err(value
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("close failed")
            .to_string())
    }
}

fn git_root(start: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

// These tests also guard the entry point: with `no_main` applied under `cfg(test)`, the
// harness would not run them and `cargo test` would fail on this binary.
#[cfg(test)]
mod tests {
    use super::git_root;

    /// A fresh directory under the system temp dir, removed when dropped.
    struct ScratchDir(std::path::PathBuf);

    impl ScratchDir {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("abx-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create scratch dir");
            ScratchDir(dir)
        }
    }

    impl Drop for ScratchDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn git_root_walks_up_from_a_nested_directory_to_the_one_holding_dot_git() {
        let scratch = ScratchDir::new("git-root");
        let repo = scratch.0.join("repo");
        let nested = repo.join("a").join("b");
        std::fs::create_dir_all(&nested).expect("create nested dirs");
        // A worktree's `.git` is a file, not a directory: both count.
        std::fs::write(repo.join(".git"), "gitdir: elsewhere\n").expect("write .git");
        assert_eq!(git_root(&nested), Some(repo.clone()));
        assert_eq!(git_root(&repo), Some(repo));
    }
}
