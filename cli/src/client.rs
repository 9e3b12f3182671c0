//! Talking to the session daemon: find it by its socket, spawn it (the same binary in daemon
//! role) when absent, send NDJSON requests, and wait for it to exit after `close`.
//!
//! Blocking std I/O on purpose: a CLI invocation sends one or two lines and exits; a runtime
//! would only add start-up time.

use abx_wire::env;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::commands::invocation::Invocation;

/// How long a freshly spawned daemon has to open its socket.
const START_TIMEOUT: Duration = Duration::from_secs(10);

impl std::fmt::Debug for Client<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

/// A daemon endpoint for one invocation.
pub struct Client<'a> {
    /// The invocation (socket dir, session, settings): its daemon environment is worked out
    /// only when a daemon is spawned.
    inv: &'a Invocation,
    socket: PathBuf,
    fingerprint: String,
    /// The connection the last liveness check opened: the next request uses it instead of
    /// connecting again (one connection per invocation on the warm path).
    parked: RefCell<Option<UnixStream>>,
    /// Whether a command reply's passed text may stay in its file ([`Client::keep_passed_text`]).
    keeps_passed: std::cell::Cell<bool>,
    /// The text the last command reply left in its file, and the `data` key it belongs to.
    passed: RefCell<Option<(String, crate::output::PassedText)>>,
}

/// Why a request could not be delivered.
#[derive(Debug)]
pub enum SendError {
    /// No daemon listens on the socket (absent or dead).
    NoDaemon(String),
    /// Anything else (timeouts, broken replies).
    Other(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::NoDaemon(m) | SendError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SendError {}

impl<'a> Client<'a> {
    /// The endpoint for `inv`; fails with upstream's message when the socket path is too long.
    pub fn new(inv: &'a Invocation) -> Result<Client<'a>, String> {
        let socket = inv.socket_path()?;
        Ok(Client {
            inv,
            socket,
            fingerprint: inv.fingerprint(),
            parked: RefCell::new(None),
            keeps_passed: std::cell::Cell::new(false),
            passed: RefCell::new(None),
        })
    }

    /// From now on, a command reply whose text the daemon passes as a memory file leaves the
    /// text there: its `data` member is an empty string until the caller takes the file
    /// ([`Client::take_passed_text`]) and prints or reads it. Only for a caller that does.
    pub fn keep_passed_text(&self) {
        self.keeps_passed.set(true);
    }

    /// The text the last command reply left in its file, with its `data` key.
    pub fn take_passed_text(&self) -> Option<(String, crate::output::PassedText)> {
        self.passed.borrow_mut().take()
    }

    /// Reads a command's reply, keeping its passed text in its file when asked to.
    fn read_command_reply(
        &self,
        reader: &mut BufReader<ReplyStream>,
        read_timeout: Duration,
    ) -> Result<Value, SendError> {
        let (reply, passed) =
            read_reply_keeping(reader, read_timeout, self.lean(), self.keeps_passed.get())?;
        *self.passed.borrow_mut() = passed;
        Ok(reply)
    }

    fn file(&self, suffix: &str) -> PathBuf {
        self.inv
            .socket_dir
            .join(format!("{}.{suffix}", self.inv.session))
    }

    /// The running daemon's pid, from `<s>.pid`.
    pub fn daemon_pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.file("pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Whether a daemon accepts connections now (the connection is kept for the next request).
    pub fn is_alive(&self) -> bool {
        let stream = UnixStream::connect(&self.socket).ok();
        let alive = stream.is_some();
        *self.parked.borrow_mut() = stream;
        alive
    }

    /// The parked connection, or a new one.
    fn connection(&self) -> Result<UnixStream, SendError> {
        if let Some(stream) = self.parked.borrow_mut().take() {
            return Ok(stream);
        }
        UnixStream::connect(&self.socket).map_err(|e| {
            SendError::NoDaemon(format!(
                "Failed to connect to daemon at {}: {e}",
                self.socket.display()
            ))
        })
    }

    fn ensure_dir(&self) -> Result<(), String> {
        std::fs::create_dir_all(&self.inv.socket_dir).map_err(|e| {
            format!(
                "Cannot create socket directory {}: {e}",
                self.inv.socket_dir.display()
            )
        })?;
        let _ =
            std::fs::set_permissions(&self.inv.socket_dir, std::fs::Permissions::from_mode(0o700));
        let probe = self.inv.socket_dir.join(".write_test");
        std::fs::write(&probe, b"").map_err(|e| {
            format!(
                "Socket directory {} is not writable: {e}",
                self.inv.socket_dir.display()
            )
        })?;
        let _ = std::fs::remove_file(&probe);
        Ok(())
    }

    /// Makes sure a daemon of our version serves the session; returns warnings to print.
    pub fn ensure_daemon(&self) -> Result<Vec<String>, String> {
        // A live daemon proves the directory exists and is usable: it is checked (and made)
        // only on the way to starting one.
        if self.is_alive() {
            let version = std::fs::read_to_string(self.file("version")).unwrap_or_default();
            if version.trim() == crate::upstream::UPSTREAM_VERSION {
                // The running daemon's settings against ours, read and parsed once; the same
                // text (every command of an unchanged session) needs no parsing at all.
                let settings = std::fs::read_to_string(self.file("config"))
                    .ok()
                    .filter(|running| running.as_str() != self.fingerprint.as_str())
                    .and_then(|running| {
                        let mine = serde_json::from_str::<Value>(&self.fingerprint).ok()?;
                        let theirs = serde_json::from_str::<Value>(&running).ok()?;
                        Some((mine, theirs))
                    });
                let Some((mine, theirs)) = settings else {
                    return Ok(Vec::new());
                };
                self.refuse_unapplied_gate(&mine, &theirs)?;
                return Ok(self.fingerprint_warnings(&mine, &theirs));
            }
            eprintln!("⚠ Daemon version mismatch detected, restarting...");
            self.stop_daemon();
        }
        self.ensure_dir()?;
        self.spawn()?;
        Ok(Vec::new())
    }

    /// A running session started without this invocation's `--action-policy` or
    /// `--confirm-actions` would run the command ungated: refuse instead of warning.
    fn refuse_unapplied_gate(&self, mine: &Value, theirs: &Value) -> Result<(), String> {
        for key in ["action_policy", "confirm_actions"] {
            let wanted = &mine[key];
            if !wanted.is_null() && wanted != &theirs[key] {
                return Err(format!(
                    "Session \"{}\" is already running without {} {}: the command was not run. Close the session (`agent-browser close`) and run it again to apply it.",
                    self.inv.session,
                    key.replace('_', " "),
                    wanted
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| wanted.to_string())
                ));
            }
        }
        Ok(())
    }

    fn fingerprint_warnings(&self, mine: &Value, theirs: &Value) -> Vec<String> {
        if mine == theirs {
            return Vec::new();
        }
        let mut warnings = Vec::new();
        if let (Some(a), Some(b)) = (mine.as_object(), theirs.as_object()) {
            for (key, value) in a {
                if b.get(key) != Some(value) && !value.is_null() && value != &Value::Bool(false) {
                    warnings.push(format!(
                        "Ignoring {} {}: session \"{}\" is already running with {}. Close the session to change it.",
                        key.replace('_', " "),
                        value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string()),
                        self.inv.session,
                        b.get(key).filter(|v| !v.is_null()).map(|v| v.to_string()).unwrap_or_else(|| "the default".into())
                    ));
                }
            }
        }
        warnings
    }

    /// Asks a daemon of another version to shut down, then makes sure it is gone.
    fn stop_daemon(&self) {
        let pid = self.daemon_pid();
        let _ = self.request_raw(&serde_json::json!({abx_wire::extras::ID: "restart-close", abx_wire::extras::ACTION: crate::commands::browser::close::SHUTDOWN}), Duration::from_secs(5));
        if let Some(pid) = pid {
            wait_pid_gone(pid, Duration::from_secs(5));
        }
    }

    fn spawn(&self) -> Result<(), String> {
        let exe = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .map_err(|e| format!("Cannot locate the agent-browser executable: {e}"))?;
        let mut command = Command::new(exe);
        for name in &self.inv.daemon_env_unset() {
            command.env_remove(name);
        }
        command
            .envs(self.inv.daemon_env())
            .env(env::DAEMON, "1")
            .env(env::ABX_DAEMON_SOCKET_DIR, &self.inv.socket_dir)
            .env(env::ABX_DAEMON_READY, "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("Daemon failed to start: {e}"))?;
        let pid = child.id() as i32;
        let started = Instant::now();
        // The daemon writes a line to its stdout once its socket accepts, or closes it by
        // exiting: wait on that instead of polling the socket with sleeps in between.
        let mut ready = child.stdout.take().map(wait_ready);
        let mut lost_race = false;
        loop {
            if self.is_alive() {
                if self.daemon_pid() == Some(pid) {
                    let _ = write_private(&self.file("config"), &self.fingerprint);
                }
                return Ok(());
            }
            if !lost_race && let Ok(Some(_status)) = child.try_wait() {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = pipe.read_to_string(&mut stderr);
                }
                if stderr.contains("Address already in use") || stderr.contains("Failed to bind") {
                    // Another CLI started the daemon first: use that one.
                    lost_race = true;
                } else {
                    let head: String = stderr.chars().take(500).collect();
                    return Err(if head.trim().is_empty() {
                        format!("Daemon failed to start (socket: {})", self.socket.display())
                    } else {
                        format!("Daemon process exited during startup:\n{}", head.trim_end())
                    });
                }
            }
            let left = START_TIMEOUT.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(format!(
                    "Daemon failed to start (socket: {})",
                    self.socket.display()
                ));
            }
            match ready.as_ref().filter(|_| !lost_race) {
                // Ready (the next connect succeeds) or closed without the line (the daemon
                // exited; the next rounds reap it): either way the signal is spent.
                Some(signal) => match signal.recv_timeout(left) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => ready = None,
                },
                // Another daemon serves the session, or the signal is spent: poll.
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Sends one request (adding an `id`) and returns the daemon's reply.
    pub fn send(&self, request: &Value) -> Result<Value, SendError> {
        let (request, read_timeout) = with_id(request, self.lean());
        self.request_raw(&request, read_timeout)
    }

    fn request_raw(&self, request: &Value, read_timeout: Duration) -> Result<Value, SendError> {
        let mut line = request.to_string();
        line.push('\n');
        let mut reader = self.write_lines(&line)?;
        self.read_command_reply(&mut reader, read_timeout)
    }

    /// Whether replies may leave out what text output never prints ([`TEXT_UNPRINTED`]).
    fn lean(&self) -> bool {
        !self.inv.output.json
    }

    /// Writes `lines` in one write on the parked (or a new) connection.
    fn write_lines(&self, lines: &str) -> Result<BufReader<ReplyStream>, SendError> {
        let mut stream = self.connection()?;
        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
        stream
            .write_all(lines.as_bytes())
            .map_err(|e| SendError::NoDaemon(format!("Failed to send to daemon: {e}")))?;
        // A snapshot of a large page is a reply line of a megabyte: read it in large pieces,
        // not in the default 8 KB ones (130 reads and as many wake-ups of the daemon).
        Ok(BufReader::with_capacity(
            REPLY_BUFFER,
            ReplyStream::new(stream),
        ))
    }

    /// Sends `launch` and then `command` in one write on one connection and reads both
    /// replies: one round trip instead of two. A failed launch fences the connection (the
    /// daemon answers the command without running it), so only the launch's reply is returned
    /// then. `Err` means the launch got no reply; a command that got none is `Some(Err)`.
    pub fn send_pipelined(
        &self,
        launch: &Value,
        command: &Value,
    ) -> Result<(Value, Option<Result<Value, SendError>>), SendError> {
        let (launch, launch_timeout) = with_id(launch, self.lean());
        let (command, command_timeout) = with_id(command, self.lean());
        let lines = format!("{launch}\n{command}\n");
        let mut reader = self.write_lines(&lines)?;
        let launched = read_reply(&mut reader, launch_timeout, self.lean())?;
        if launched.get("success").and_then(Value::as_bool) != Some(true) {
            return Ok((launched, None));
        }
        Ok((
            launched,
            Some(self.read_command_reply(&mut reader, command_timeout)),
        ))
    }

    /// [`Client::send_pipelined`]; if no daemon answers, starts one and retries once.
    pub fn send_pipelined_with_respawn(
        &self,
        launch: &Value,
        command: &Value,
    ) -> Result<(Value, Option<Result<Value, SendError>>), SendError> {
        match self.send_pipelined(launch, command) {
            Err(SendError::NoDaemon(_)) => {
                self.parked.borrow_mut().take();
                let _ = std::fs::remove_file(&self.socket);
                self.spawn().map_err(SendError::Other)?;
                self.send_pipelined(launch, command)
            }
            other => other,
        }
    }
}

/// `request` with a fresh `id`, and how long to wait for its reply: waits carry their own
/// timeout; the daemon enforces deadlines, this is a safety net. A `lean` sender (it prints
/// text) says so ([`abx_wire::extras::TEXT_REPLY`]): the daemon then leaves out of the line what
/// text never shows, as [`decode_reply`] would skip it.
fn with_id(request: &Value, lean: bool) -> (Value, Duration) {
    let mut request = request.clone();
    if let Value::Object(map) = &mut request {
        map.insert("id".into(), Value::String(request_id()));
        if lean {
            map.insert(abx_wire::extras::TEXT_REPLY.into(), Value::Bool(true));
        }
    }
    let timeout_ms = request.get("timeout").and_then(Value::as_u64).unwrap_or(0);
    let read_timeout =
        Duration::from_millis(timeout_ms.saturating_add(15_000)).max(Duration::from_secs(45));
    (request, read_timeout)
}

/// Keys of a reply's `data` that text output never prints: a snapshot's `refs` (9,000 entries
/// on a large page) are for `--json` readers; decoding them would cost more than the rest of
/// the reply.
const TEXT_UNPRINTED: &[&str] = &["refs"];

/// Decodes a reply line; `lean` leaves out [`TEXT_UNPRINTED`] keys of its `data`.
fn decode_reply(line: &str, lean: bool) -> serde_json::Result<Value> {
    if !lean {
        return serde_json::from_str(line);
    }
    let mut de = serde_json::Deserializer::from_str(line);
    let value = serde::de::DeserializeSeed::deserialize(lean::Reply, &mut de)?;
    de.end()?;
    Ok(value)
}

/// The seeds behind [`decode_reply`]'s lean mode: the reply object as a `Value`, except that its
/// `data` object skips the unprinted keys without building them.
mod lean {
    use serde::Deserialize;
    use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
    use serde_json::value::RawValue;
    use serde_json::{Map, Value};

    pub(super) struct Reply;
    struct Data;

    impl<'de> DeserializeSeed<'de> for Reply {
        type Value = Value;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Reply {
        type Value = Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a reply object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut out = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                let value = if key == "data" {
                    map.next_value_seed(Data)?
                } else {
                    map.next_value()?
                };
                out.insert(key, value);
            }
            Ok(Value::Object(out))
        }
    }

    impl<'de> DeserializeSeed<'de> for Data {
        type Value = Value;
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    /// `data` as a `Value`; only an object's keys are filtered.
    impl<'de> Visitor<'de> for Data {
        type Value = Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut out = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                if super::TEXT_UNPRINTED.contains(&key.as_str()) {
                    map.next_value::<IgnoredAny>()?;
                } else if key == "snapshot" {
                    // Half a megabyte of escaped text on a large page: taken as it is written
                    // and unescaped in one pass (serde_json's own string path unescapes into a
                    // scratch buffer, then copies it).
                    let raw: &RawValue = map.next_value()?;
                    let value = match super::unescape_string(raw.get()) {
                        Some(text) => Value::String(text),
                        None => serde_json::from_str(raw.get()).map_err(de::Error::custom)?,
                    };
                    out.insert(key, value);
                } else {
                    out.insert(key, map.next_value()?);
                }
            }
            Ok(Value::Object(out))
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
            Value::deserialize(de::value::SeqAccessDeserializer::new(seq))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_string()))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
            Ok(Value::String(v))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E: de::Error>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    }
}

/// The text of `raw`, a JSON string as serde_json wrote and checked it (quotes included), or
/// `None` when it is not one this reads: anything but a string, or a `\\u` escape that is not
/// a whole character (the caller then decodes it with serde_json, errors included). Its
/// unescaped text is never longer than its escaped one.
fn unescape_string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let slash = at + found;
        out.push_str(&inner[at..slash]);
        let escape = *bytes.get(slash + 1)?;
        at = slash + 2;
        out.push(match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                // Four hex digits (`from_str_radix` alone would also take a sign).
                let hex = |from: usize| {
                    let digits = inner.get(from..from + 4)?;
                    digits
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit())
                        .then(|| u32::from_str_radix(digits, 16).ok())?
                };
                let first = hex(at)?;
                at += 4;
                match first {
                    0xD800..=0xDBFF => {
                        if inner.get(at..at + 2)? != "\\u" {
                            return None;
                        }
                        let second = hex(at + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return None;
                        }
                        at += 6;
                        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?
                    }
                    _ => char::from_u32(first)?,
                }
            }
            _ => return None,
        });
    }
    // A raw string never holds a bare quote or a control character: serde_json checked it
    // while reading it as a raw value.
    out.push_str(&inner[at..]);
    Some(out)
}

/// The buffer a reply is read through.
const REPLY_BUFFER: usize = 64 * 1024;

/// The reading side of a connection to the daemon: its bytes, and the descriptors the daemon
/// passes with them ([`abx_wire::extras::TEXT_TAIL`]), kept in the order they came until the
/// reply that names one takes it.
#[derive(Debug)]
pub struct ReplyStream {
    stream: UnixStream,
    passed: std::collections::VecDeque<std::os::fd::OwnedFd>,
}

impl ReplyStream {
    /// Reads `stream`.
    pub fn new(stream: UnixStream) -> ReplyStream {
        ReplyStream {
            stream,
            passed: std::collections::VecDeque::new(),
        }
    }

    /// The first descriptor passed and not yet taken.
    pub fn take_passed(&mut self) -> Option<std::os::fd::OwnedFd> {
        self.passed.pop_front()
    }

    /// The socket.
    pub fn get_ref(&self) -> &UnixStream {
        &self.stream
    }
}

impl Read for ReplyStream {
    // Taking ownership of descriptors the kernel installed is the one unsafe step (nix hands
    // them over as raw numbers).
    #[allow(unsafe_code)]
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        let mut space = nix::cmsg_space!([std::os::fd::RawFd; 4]);
        let mut iov = [std::io::IoSliceMut::new(buf)];
        let received = loop {
            match recvmsg::<()>(
                self.stream.as_raw_fd(),
                &mut iov,
                Some(&mut space),
                MsgFlags::MSG_CMSG_CLOEXEC,
            ) {
                Err(nix::errno::Errno::EINTR) => continue,
                other => break other.map_err(std::io::Error::from)?,
            }
        };
        let bytes = received.bytes;
        for message in received.cmsgs().map_err(std::io::Error::from)? {
            if let ControlMessageOwned::ScmRights(fds) = message {
                // SAFETY: the kernel just installed these descriptors in this process for us;
                // nothing else owns them.
                self.passed.extend(
                    fds.into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
        Ok(bytes)
    }
}

/// Reads one reply line (and the text beside it, if any).
fn read_reply(
    reader: &mut BufReader<ReplyStream>,
    read_timeout: Duration,
    lean: bool,
) -> Result<Value, SendError> {
    read_reply_keeping(reader, read_timeout, lean, false).map(|(reply, _)| reply)
}

/// [`read_reply`]; with `keep_file`, a text passed as a memory file stays there (its `data`
/// member is an empty string) and comes back beside the reply.
fn read_reply_keeping(
    reader: &mut BufReader<ReplyStream>,
    read_timeout: Duration,
    lean: bool,
    keep_file: bool,
) -> Result<(Value, Option<(String, crate::output::PassedText)>), SendError> {
    let _ = reader
        .get_ref()
        .get_ref()
        .set_read_timeout(Some(read_timeout));
    let mut reply = String::new();
    {
        match reader.read_line(&mut reply) {
            Ok(0) => Err(SendError::NoDaemon(
                "Daemon closed the connection without a reply".into(),
            )),
            Ok(_) => {
                let mut value = decode_reply(&reply, lean)
                    .map_err(|e| SendError::Other(format!("Invalid response from daemon: {e}")))?;
                let kept = read_tail(reader, &mut value, keep_file)?;
                Ok((value, kept))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Err(SendError::Other(format!(
                    "Timed out after {} ms waiting for the daemon (daemon may be busy or unresponsive)",
                    read_timeout.as_millis()
                )))
            }
            Err(e) => Err(SendError::Other(format!(
                "Failed to read the daemon's reply: {e}"
            ))),
        }
    }
}

/// Reads the string beside a reply line that says there is one
/// ([`abx_wire::extras::TEXT_TAIL`]) into the reply's `data`; with `keep_file`, a string passed
/// as a memory file is left there and returned with its key (its member is an empty string).
fn read_tail(
    reader: &mut BufReader<ReplyStream>,
    reply: &mut Value,
    keep_file: bool,
) -> Result<Option<(String, crate::output::PassedText)>, SendError> {
    let Some(map) = reply.as_object_mut() else {
        return Ok(None);
    };
    let Some(tail) = map.remove(abx_wire::extras::TEXT_TAIL) else {
        return Ok(None);
    };
    let invalid = || {
        SendError::Other(format!(
            "Invalid response from daemon: a bad {} ({tail})",
            abx_wire::extras::TEXT_TAIL
        ))
    };
    let (Some(key), Some(bytes)) = (
        tail.get("key").and_then(Value::as_str),
        tail.get("bytes").and_then(Value::as_u64),
    ) else {
        return Err(invalid());
    };
    let length = usize::try_from(bytes).map_err(|_| invalid())?;
    let (text, kept) = if tail.get("fd").and_then(Value::as_bool) == Some(true) {
        // The daemon passed the sealed memory file that holds the text.
        let file = reader.get_mut().take_passed().ok_or_else(|| {
            SendError::Other("Invalid response from daemon: the text's file did not come".into())
        })?;
        let file = std::fs::File::from(file);
        if keep_file {
            // The file must hold the whole text, as a read of it would check.
            if file.metadata().map(|m| m.len()).unwrap_or(0) < bytes {
                return Err(invalid());
            }
            let kept = (
                key.to_string(),
                crate::output::PassedText::new(file, length),
            );
            (Vec::new(), Some(kept))
        } else {
            let mut text = vec![0; length];
            std::os::unix::fs::FileExt::read_exact_at(&file, &mut text, 0)
                .map_err(|e| SendError::Other(format!("Failed to read the daemon's reply: {e}")))?;
            (text, None)
        }
    } else {
        let mut text = Vec::with_capacity(length.min(1 << 26));
        reader
            .by_ref()
            .take(bytes)
            .read_to_end(&mut text)
            .map_err(|e| SendError::Other(format!("Failed to read the daemon's reply: {e}")))?;
        if text.len() != length {
            return Err(SendError::Other(
                "The daemon closed the connection in the middle of a reply".into(),
            ));
        }
        (text, None)
    };
    let text = String::from_utf8(text).map_err(|_| invalid())?;
    match map.get_mut("data") {
        Some(Value::Object(data)) => {
            data.insert(key.to_string(), Value::String(text));
            Ok(kept)
        }
        _ => Err(invalid()),
    }
}

impl Client<'_> {
    /// Sends a request; if no daemon answers, starts one and retries once.
    pub fn send_with_respawn(&self, request: &Value) -> Result<Value, SendError> {
        match self.send(request) {
            Err(SendError::NoDaemon(_)) => {
                let _ = std::fs::remove_file(&self.socket);
                self.spawn().map_err(SendError::Other)?;
                self.send(request)
            }
            other => other,
        }
    }

    /// After a successful `close`: waits until the daemon process is gone and its socket and
    /// pid files are removed, so an immediate re-open works (the Host polls for this today).
    pub fn wait_closed(&self, pid: Option<i32>) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let process_gone = pid.is_none_or(|p| !pid_alive(p));
            if process_gone && !self.socket.exists() && !self.file("pid").exists() {
                return;
            }
            // A /proc read and two stats per round: cheap, and every `close` waits here.
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Reads a spawned daemon's stdout on a thread until its ready line or the pipe's end: `true`
/// (ready) or `false` (closed without it, i.e. the daemon exited) arrives on the channel once.
fn wait_ready(mut stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<bool> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        let ready = matches!(stdout.read(&mut byte), Ok(1));
        let _ = tx.send(ready);
    });
    rx
}

/// Whether a process exists (EPERM counts as alive).
pub fn pid_alive(pid: i32) -> bool {
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => {
            // A zombie is dead for our purposes.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| s.rfind(')').map(|i| s[i + 1..].trim_start().to_string()))
                .is_none_or(|rest| !rest.starts_with('Z'))
        }
        Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    }
}

fn wait_pid_gone(pid: i32, within: Duration) {
    let deadline = Instant::now() + within;
    while pid_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    if pid_alive(pid) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(content.as_bytes())
}

/// Live sessions in a socket dir (stale files of dead daemons are cleaned on the way).
pub fn live_sessions(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".pid"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names.retain(|name| {
        let sock = dir.join(format!("{name}.sock"));
        if UnixStream::connect(&sock).is_ok() {
            return true;
        }
        // Not answering: its files go when its daemon is dead (one still starting keeps them).
        abx_daemon::sidecar::Sidecars::new(dir, name).remove_if_stale();
        false
    });
    names
}

/// A request id like upstream's: `r` + (microseconds since the epoch mod 1 000 000).
pub fn request_id() -> String {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0);
    format!("r{}", micros % 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::{ReplyStream, SendError, decode_reply, read_reply, unescape_string};
    use serde_json::json;
    use std::io::{BufReader, Write};
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    /// What `read_reply` makes of `written` (then the peer's end closes).
    fn reply_of(written: &[u8]) -> Result<serde_json::Value, SendError> {
        let (mut daemon, cli) = UnixStream::pair().expect("a socket pair");
        daemon.write_all(written).expect("written");
        drop(daemon);
        read_reply(
            &mut BufReader::new(ReplyStream::new(cli)),
            Duration::from_secs(5),
            true,
        )
    }

    #[test]
    fn a_tail_after_the_line_becomes_the_named_member_of_data() {
        let text = "- heading \"Caf\u{e9}\" [ref=e1]\n  - text: \\ \"";
        let line = format!(
            "{{\"abxTail\":{{\"bytes\":{},\"key\":\"snapshot\"}},\"data\":{{\"origin\":\"u\"}},\"success\":true}}\n{text}",
            text.len()
        );
        let reply = reply_of(line.as_bytes()).expect("read");
        assert_eq!(
            reply,
            json!({"data": {"origin": "u", "snapshot": text}, "success": true})
        );
    }

    #[test]
    fn a_passed_file_after_another_reply_becomes_the_named_member_of_the_reply_that_names_it() {
        use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
        use std::os::fd::AsRawFd;
        let text = "- heading \"Caf\u{e9}\" [ref=e1]\n  - text: \\ \"";
        let file = nix::sys::memfd::memfd_create(c"t", nix::sys::memfd::MemFdCreateFlag::empty())
            .expect("memfd");
        let mut file = std::fs::File::from(file);
        file.write_all(text.as_bytes()).expect("written");
        let (daemon, cli) = UnixStream::pair().expect("a socket pair");
        // A launch reply first, the descriptor attached to its first byte (as the daemon
        // sends a held launch reply and the command's line in one write).
        let lines = format!(
            "{{\"data\":{{}},\"success\":true}}\n{{\"abxTail\":{{\"bytes\":{},\"fd\":true,\"key\":\"snapshot\"}},\"data\":{{\"origin\":\"u\"}},\"success\":true}}\n",
            text.len()
        );
        let fds = [file.as_raw_fd()];
        let sent = sendmsg::<()>(
            daemon.as_raw_fd(),
            &[std::io::IoSlice::new(lines.as_bytes())],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::empty(),
            None,
        )
        .expect("sent");
        assert_eq!(sent, lines.len());
        let mut reader = BufReader::new(ReplyStream::new(cli));
        let launch = read_reply(&mut reader, Duration::from_secs(5), true).expect("launch");
        assert_eq!(launch, json!({"data": {}, "success": true}));
        let reply = read_reply(&mut reader, Duration::from_secs(5), true).expect("read");
        assert_eq!(
            reply,
            json!({"data": {"origin": "u", "snapshot": text}, "success": true})
        );
        // A line that names a file that never came is an error.
        let (mut daemon, cli) = UnixStream::pair().expect("a socket pair");
        daemon
            .write_all(b"{\"abxTail\":{\"bytes\":3,\"fd\":true,\"key\":\"snapshot\"},\"data\":{},\"success\":true}\n")
            .expect("written");
        let Err(SendError::Other(message)) = read_reply(
            &mut BufReader::new(ReplyStream::new(cli)),
            Duration::from_secs(5),
            true,
        ) else {
            panic!("a missing file was taken");
        };
        assert!(message.contains("did not come"), "{message}");
    }

    #[test]
    fn a_short_or_malformed_tail_is_an_error_not_a_truncated_answer() {
        let short =
            "{\"abxTail\":{\"bytes\":10,\"key\":\"snapshot\"},\"data\":{},\"success\":true}\nabc";
        let Err(SendError::Other(message)) = reply_of(short.as_bytes()) else {
            panic!("a short tail was taken");
        };
        assert!(message.contains("middle of a reply"), "{message}");
        for bad in [
            "{\"abxTail\":{\"key\":\"snapshot\"},\"data\":{},\"success\":true}\n",
            "{\"abxTail\":{\"bytes\":1,\"key\":\"snapshot\"},\"data\":null,\"success\":true}\nx",
        ] {
            let Err(SendError::Other(message)) = reply_of(bad.as_bytes()) else {
                panic!("{bad} was taken");
            };
            assert!(message.contains("abxTail"), "{message}");
        }
        let not_utf8 = b"{\"abxTail\":{\"bytes\":2,\"key\":\"snapshot\"},\"data\":{},\"success\":true}\n\xff\xfe";
        assert!(reply_of(not_utf8).is_err());
    }

    #[test]
    fn snapshot_text_unescapes_as_serde_json_reads_it() {
        let texts = [
            String::new(),
            "- button \"Go\" [ref=e1]\n  - text: a\\b/c\t\r".to_string(),
            "\u{0}\u{1f}\u{7f}\u{8}\u{c} é ✓ 😀 \u{2028}\u{2029} </script>".to_string(),
            "\\\\\"\"\n\n".to_string(),
        ];
        for text in &texts {
            let raw = serde_json::to_string(text).expect("encodes");
            assert_eq!(
                unescape_string(&raw).as_deref(),
                Some(text.as_str()),
                "{raw}"
            );
        }
        // Escapes serde_json never writes but reads: each as serde_json reads it.
        for raw in [r#""\/\u00e9\u0041""#, r#""\ud83d\ude00""#, r#""\u2603x""#] {
            let want: String = serde_json::from_str(raw).expect("valid JSON");
            assert_eq!(unescape_string(raw), Some(want), "{raw}");
        }
        // What it does not read goes back to serde_json (which reports the error itself).
        for raw in [
            r#""\ud83d""#,
            r#""\ud83dx""#,
            r#""\u12""#,
            r#""\q""#,
            r#""\u+123""#,
            "5",
            "null",
        ] {
            assert_eq!(unescape_string(raw), None, "{raw}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_unescapes_to_itself(text in proptest::prelude::any::<String>()) {
            let raw = serde_json::to_string(&text).expect("encodes");
            proptest::prop_assert_eq!(unescape_string(&raw), Some(text));
        }
    }

    #[test]
    fn a_snapshot_that_is_not_a_string_decodes_as_before() {
        let line = r#"{"success":true,"data":{"snapshot":{"added":["- a"]},"origin":"u"}}"#;
        assert_eq!(
            decode_reply(line, true).expect("lean"),
            decode_reply(line, false).expect("full")
        );
        let escaped =
            json!({"success": true, "data": {"snapshot": "\u{1F600} \"q\"\n"}}).to_string();
        assert_eq!(
            decode_reply(&escaped, true).expect("lean"),
            decode_reply(&escaped, false).expect("full")
        );
        assert!(decode_reply(r#"{"data":{"snapshot":"\ud800"}}"#, true).is_err());
    }

    #[test]
    fn text_replies_leave_out_snapshot_refs_and_keep_everything_else() {
        let line = r#"{"id":"1","success":true,"data":{"snapshot":"- button \"Go\" [ref=e1]","origin":"http://x/","refs":{"e1":{"role":"button","name":"Go"}},"removedRefs":[],"lifecycle":{"n":1.5}},"error":null}"#;
        let full = decode_reply(line, false).expect("full");
        let lean = decode_reply(line, true).expect("lean");
        assert!(full["data"]["refs"].is_object());
        let mut expected = full;
        expected["data"]
            .as_object_mut()
            .expect("object")
            .remove("refs");
        assert_eq!(lean, expected);
    }

    #[test]
    fn lean_decoding_takes_any_data_and_refuses_what_full_decoding_refuses() {
        for data in [
            json!(null),
            json!("text"),
            json!([1, {"refs": 2}]),
            json!(3.5),
        ] {
            let line = json!({"success": true, "data": data}).to_string();
            assert_eq!(
                decode_reply(&line, true).expect("lean"),
                decode_reply(&line, false).expect("full")
            );
        }
        for bad in ["{\"success\":true", "{} trailing", "[1]"] {
            assert!(decode_reply(bad, true).is_err(), "{bad}");
        }
    }
}
