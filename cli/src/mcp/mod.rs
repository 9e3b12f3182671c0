//! `agent-browser mcp`: a Model Context Protocol server over stdio (newline-delimited JSON-RPC
//! 2.0), and `mcp call <tool> <json>`, one tool call from the shell.
//!
//! The tools come from the command registry ([`tools`]): a tool call becomes the words of one
//! CLI command, run by this same binary as a child (`--json`, the server's global flags, its
//! session), so deadlines, errors and the session daemon are exactly the CLI's. The reply is the
//! CLI's text as `content` and its JSON response as `structuredContent`. The server uses one
//! browser session for its whole life: the invocation's (`--session`, `AGENT_BROWSER_SESSION`,
//! else `default`). stdout carries only protocol messages.
//!
//! Both protocol eras are served: a client that starts with `initialize` (2024-11-05 through
//! 2025-11-25) gets its version back when supported, and a stateless client (2026-07-28) may
//! call `server/discover` and the tool methods without a handshake.

pub(crate) mod tool;
pub mod tools;

use std::io::{BufRead, Write};
use std::process::{Command as Process, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::Invocation;
use crate::output::Rendered;
use tools::Tool;

/// Protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// The revision answered to a client that asks for one we do not know (the newest that has the
/// `initialize` handshake, since such a client is using it).
const HANDSHAKE_VERSION: &str = "2025-11-25";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// `mcp` arguments (after the word).
#[derive(Debug, Clone, PartialEq)]
pub struct McpArgs {
    /// Enabled profiles (`--tools`), `core` by default.
    pub profiles: Vec<String>,
    /// `--tools` was given.
    pub limited: bool,
    /// `mcp call <tool> [json|-]`.
    pub call: Option<(String, Option<String>)>,
}

/// Reads `mcp [--tools <p>] [call <tool> [<json>|-]]`.
pub fn parse_args(words: &[String]) -> Result<McpArgs, String> {
    let mut profiles = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if w == "--tools" {
            let list = words
                .get(i + 1)
                .ok_or("--tools needs a profile list, e.g. --tools core,network")?;
            profiles = Some(tools::parse_profiles(list)?);
            i += 2;
            continue;
        }
        if let Some(list) = w.strip_prefix("--tools=") {
            profiles = Some(tools::parse_profiles(list)?);
        } else {
            rest.push(w.to_string());
        }
        i += 1;
    }
    let call = match rest.first().map(String::as_str) {
        None => None,
        Some("call") => {
            let tool = rest
                .get(1)
                .ok_or("Usage: agent-browser mcp call <tool> [<arguments-json> | -]")?;
            if rest.len() > 3 {
                return Err(format!(
                    "mcp call takes one JSON argument; got {}",
                    rest.len() - 2
                ));
            }
            Some((tool.clone(), rest.get(2).cloned()))
        }
        Some(other) => {
            return Err(format!(
                "Unknown mcp argument: {other}. Usage: agent-browser mcp [--tools <profiles>] | mcp call <tool> [<json>|-]"
            ));
        }
    };
    Ok(McpArgs {
        limited: profiles.is_some(),
        profiles: profiles.unwrap_or_else(|| vec!["core".to_string()]),
        call,
    })
}

/// Runs `mcp …`: serves stdio until EOF, or runs one call. `argv` is the process argv (without
/// the program name), whose global flags every tool call repeats.
pub fn run(inv: &Invocation, argv: &[String], words: &[String]) -> Rendered {
    let args = match parse_args(words.get(1..).unwrap_or_default()) {
        Ok(args) => args,
        Err(message) => return crate::output::render_error(&message, &inv.output),
    };
    let runner = Runner {
        global: global_flags(argv, words),
        session: inv.session.clone(),
    };
    match &args.call {
        Some((tool, input)) => call_once(&runner, tool, input.as_deref(), &args),
        None => {
            serve(&runner, &args.profiles, args.limited);
            Rendered::default()
        }
    }
}

/// The argv tokens that are not the `mcp …` words: the global flags, passed to every call.
fn global_flags(argv: &[String], words: &[String]) -> Vec<String> {
    let mut flags = Vec::new();
    let mut next = 0;
    for token in argv {
        if words.get(next) == Some(token) {
            next += 1;
        } else {
            flags.push(token.clone());
        }
    }
    flags.retain(|f| f != "--json");
    flags
}

/// Runs tool calls as CLI children of this binary.
struct Runner {
    global: Vec<String>,
    session: String,
}

/// The tool call a server runs now and the calls its client cancelled, so that a cancellation
/// (`notifications/cancelled`) or the client leaving ends the call's CLI child (whose daemon
/// connection closes with it, which cancels the command in the daemon).
#[derive(Default)]
struct Inflight {
    /// The running call's request id and its child.
    running: Mutex<Option<(Value, std::process::Child)>>,
    /// Request ids cancelled before or while they ran.
    cancelled: Mutex<Vec<Value>>,
    /// The client is gone: every call still queued is dropped.
    closed: std::sync::atomic::AtomicBool,
}

impl Inflight {
    /// Cancels request `id`: ends its child if it runs, and keeps it from starting if queued.
    fn cancel(&self, id: &Value) {
        self.cancelled
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(id.clone());
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((running_id, child)) = running.as_mut()
            && running_id == id
        {
            // Not reaped yet (the worker reaps under this lock): the pid is still our child's.
            let _ = child.kill();
        }
    }

    /// Ends request `id`'s child if it is the one running (its time limit passed).
    fn kill_running(&self, id: &Value) {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((running_id, child)) = running.as_mut()
            && running_id == id
        {
            let _ = child.kill();
        }
    }

    /// The client left: end the running call and drop the queued ones.
    fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some((_, child)) = self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            let _ = child.kill();
        }
    }

    /// Forgets request `id`'s cancellation once it can no longer start.
    fn forget(&self, id: &Value) {
        self.cancelled
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|c| c != id);
    }

    /// Whether request `id` is not to be answered (cancelled, or its client left).
    fn dropped(&self, id: &Value) -> bool {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
            || self
                .cancelled
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(id)
    }
}

impl Runner {
    /// Runs one command line; returns the `tools/call` result. With `call`, it runs as that
    /// request of a server, whose child the server's [`Inflight`] can end.
    fn run(&self, tool_call: &tools::Call, call: Option<(&Inflight, &Value)>) -> Value {
        let words = &tool_call.words;
        // Parse here first: a grammar error is the CLI's own message, without a child.
        let mut argv = self.global.clone();
        argv.extend(tool_call.global.iter().cloned());
        argv.extend(words.iter().cloned());
        let host = CallHost {
            stdin: tool_call.stdin.as_deref(),
        };
        match crate::parse(&argv, &host) {
            Ok(_) => {}
            Err(failure) => {
                let rendered = failure.render();
                return tool_result(
                    text_of(&rendered),
                    true,
                    json!({"exitCode": rendered.exit_code}),
                );
            }
        };
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(err) => {
                return tool_result(
                    format!("Cannot find the agent-browser binary: {err}"),
                    true,
                    json!({"exitCode": 1}),
                );
            }
        };
        let mut command = Process::new(exe);
        command
            .args(&self.global)
            .args(&tool_call.global)
            .arg("--json")
            .args(words)
            .env(abx_wire::env::SESSION, &self.session)
            .stdin(if tool_call.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let timeout = Duration::from_millis(tool_call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
        let fallback = Inflight::default();
        let (inflight, id) = call.unwrap_or((&fallback, &Value::Null));
        let output = run_child(
            &mut command,
            tool_call.stdin.as_deref(),
            inflight,
            id,
            timeout,
        );
        let output = match output {
            Ok(output) => output,
            Err(err) => {
                return tool_result(
                    format!("Cannot run agent-browser: {err}"),
                    true,
                    json!({"exitCode": 1}),
                );
            }
        };
        let code = output.status.code().unwrap_or(1);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        let response = stdout
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str::<Value>(line).ok());
        let mut text = match &response {
            Some(response) => response_text(response),
            None => stdout.trim().to_string(),
        };
        if !stderr.trim().is_empty() {
            if !text.is_empty() {
                text.push_str("\n\nstderr:\n");
            }
            text.push_str(stderr.trim());
        }
        if text.is_empty() {
            text = "(no output)".to_string();
        }
        let failed = code != 0
            || response.as_ref().and_then(|r| r.get("success")) == Some(&Value::Bool(false));
        let image = if failed {
            None
        } else {
            response.as_ref().and_then(image_content)
        };
        // Upstream's shape: the exit code, the parsed response and the CLI's raw output.
        let mut structured = json!({"exitCode": code});
        if let Some(response) = response {
            structured["response"] = response;
        }
        structured["stderr"] = Value::from(stderr);
        structured["stdout"] = Value::from(stdout.into_owned());
        let mut result = tool_result(text, failed, structured);
        if let (Some(image), Some(content)) = (image, result["content"].as_array_mut()) {
            content.push(image);
        }
        result
    }
}

/// The system, except that stdin is the tool call's input: the server's own stdin carries the
/// protocol, never a command's input.
struct CallHost<'a> {
    stdin: Option<&'a str>,
}

impl crate::host::Host for CallHost<'_> {
    fn var(&self, name: &str) -> Option<String> {
        crate::host::SystemHost.var(name)
    }

    fn home_dir(&self) -> Option<std::path::PathBuf> {
        crate::host::SystemHost.home_dir()
    }

    fn current_dir(&self) -> std::path::PathBuf {
        crate::host::SystemHost.current_dir()
    }

    fn temp_dir(&self) -> std::path::PathBuf {
        crate::host::SystemHost.temp_dir()
    }

    fn read_to_string(&self, path: &std::path::Path) -> std::io::Result<String> {
        crate::host::SystemHost.read_to_string(path)
    }

    fn exists(&self, path: &std::path::Path) -> bool {
        crate::host::SystemHost.exists(path)
    }

    fn read_stdin(&self) -> std::io::Result<String> {
        Ok(self.stdin.unwrap_or_default().to_string())
    }
}

/// A call's time limit when the client names none (upstream's).
const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// The text a client reads, as upstream gives it: a failure's message; an accessibility audit
/// as the CLI's report; the first string of the value a command is about (in upstream's order:
/// a snapshot, a text, an HTML, a report, a value, a content, a title, a URL, a file path); an
/// eval result; else the whole response as indented JSON, as the CLI wrote it.
fn response_text(response: &Value) -> String {
    if response.get("success") == Some(&Value::Bool(false)) {
        if let Some(error) = response.get("error").and_then(Value::as_str) {
            return error.to_string();
        }
    } else if let Some(data) = response.get("data") {
        if data.get("axeVersion").is_some() && data.get("violations").is_some_and(Value::is_array) {
            return axe_report(response);
        }
        for key in [
            "snapshot", "text", "html", "report", "value", "content", "title", "url", "path",
        ] {
            if let Some(text) = data.get(key).and_then(Value::as_str) {
                return text.to_string();
            }
        }
        if let Some(result) = data.get("result") {
            return serde_json::to_string_pretty(result).unwrap_or_default();
        }
    }
    serde_json::to_string_pretty(response).unwrap_or_default()
}

/// An `a11y` response as the CLI prints it without `--json`.
fn axe_report(response: &Value) -> String {
    let Ok(response) = serde_json::from_value::<abx_wire::Response>(response.clone()) else {
        return serde_json::to_string_pretty(response).unwrap_or_default();
    };
    let rendered = crate::output::render_response(
        &response,
        Some(crate::commands::debug::a11y::ACTION),
        &crate::output::OutputOptions::default(),
    );
    rendered.stdout.trim_end().to_string()
}

/// Upstream's largest image a reply carries inline.
const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;

/// A PNG or JPEG file the response names as its `path` (a screenshot), as MCP image content.
fn image_content(response: &Value) -> Option<Value> {
    use base64::Engine as _;
    let path = response.get("data")?.get("path")?.as_str()?;
    let lower = path.to_ascii_lowercase();
    let mime = if lower.ends_with(".png") {
        "image/png"
    } else if lower.ends_with(".jpg") || lower.ends_with(".jpeg") {
        "image/jpeg"
    } else {
        return None;
    };
    if std::fs::metadata(path).ok()?.len() > MAX_IMAGE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(json!({
        "type": "image",
        "data": base64::engine::general_purpose::STANDARD.encode(bytes),
        "mimeType": mime,
    }))
}

/// Runs `command` as request `id`'s child, visible to `inflight` until it has exited; a child
/// still running after `timeout` is ended.
fn run_child(
    command: &mut Process,
    input: Option<&str>,
    inflight: &Inflight,
    id: &Value,
    timeout: Duration,
) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
        use std::io::Write as _;
        // A child that exits without reading it is answered by its own output.
        let _ = stdin.write_all(input.as_bytes());
    }
    {
        let mut running = inflight.running.lock().unwrap_or_else(|p| p.into_inner());
        *running = Some((id.clone(), child));
    }
    // Cancelled between its dequeue and its start.
    if inflight.dropped(id) {
        inflight.cancel(id);
    }
    // The time limit: the watchdog ends the child unless it is reaped first.
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog_id = id.clone();
    std::thread::scope(|scope| -> std::io::Result<std::process::Output> {
        scope.spawn(move || {
            if finished.recv_timeout(timeout) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                inflight.kill_running(&watchdog_id);
            }
        });
        // Both pipes are read to their end (the child exited or was killed), then it is reaped
        // under the lock that `Inflight::cancel` kills under.
        let errors = std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut stderr) = stderr {
                let _ = stderr.read_to_end(&mut text);
            }
            text
        });
        let mut out = Vec::new();
        if let Some(mut stdout) = stdout {
            let _ = stdout.read_to_end(&mut out);
        }
        let err = errors.join().unwrap_or_default();
        let taken = inflight
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let _ = done.send(());
        let status = match taken {
            Some((_, mut child)) => child.wait()?,
            None => return Err(std::io::Error::other("the tool call's child was lost")),
        };
        Ok(std::process::Output {
            status,
            stdout: out,
            stderr: err,
        })
    })
}

fn text_of(rendered: &Rendered) -> String {
    let text = format!("{}{}", rendered.stdout, rendered.stderr);
    let text = text.trim_end();
    if text.is_empty() {
        "(no output)".to_string()
    } else {
        text.to_string()
    }
}

fn tool_result(text: String, is_error: bool, structured: Value) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
        "structuredContent": structured,
    })
}

fn profiles_result(enabled: &[String]) -> Value {
    let all = tools::all();
    let profiles: Vec<Value> = tools::PROFILES
        .iter()
        .map(|(name, about)| {
            let names: Vec<&str> = all
                .iter()
                .filter(|t| t.enabled(&[name.to_string()]))
                .map(Tool::name)
                .collect();
            json!({"name": name, "description": about, "enabled": enabled.iter().any(|e| e == name), "tools": names.len()})
        })
        .collect();
    let text = tools::PROFILES
        .iter()
        .map(|(name, about)| format!("{name}: {about}"))
        .collect::<Vec<_>>()
        .join("\n");
    tool_result(
        format!(
            "{text}\nEnabled: {}. Start the server with --tools <profile,...> to enable more.",
            enabled.join(",")
        ),
        false,
        json!({"profiles": profiles, "enabled": enabled}),
    )
}

/// Why a call did not run (JSON-RPC error).
struct CallError {
    code: i64,
    message: String,
}

fn call(
    runner: &Runner,
    params: &Value,
    enabled: &[String],
    listed_only: bool,
    inflight: Option<(&Inflight, &Value)>,
) -> Result<Value, CallError> {
    let invalid = |message: String| CallError {
        code: INVALID_PARAMS,
        message,
    };
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("tools/call needs a tool name".to_string()))?;
    // Any tool of the catalog answers by its name, listed or not (upstream's clients call
    // them by name); `mcp call --tools` limits a one-off call to its profiles.
    let tool = tools::find(name)
        .filter(|t| !listed_only || t.enabled(enabled))
        .ok_or_else(|| {
            let hint = if tools::find(name).is_some() {
                " (enable its profile with --tools)"
            } else {
                ""
            };
            invalid(format!("Unknown tool: {name}{hint}"))
        })?;
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let tool_call = tool.argv(&arguments).map_err(|e| invalid(e.0))?;
    Ok(if tool_call.words.is_empty() {
        profiles_result(enabled)
    } else {
        runner.run(&tool_call, inflight)
    })
}

fn call_once(runner: &Runner, tool: &str, input: Option<&str>, args: &McpArgs) -> Rendered {
    let meta = json!({"agentBrowserVersion": crate::upstream::UPSTREAM_VERSION});
    let fail = |code: i64, message: String| Rendered {
        stdout_file: None,
        stdout: format!(
            "{}\n",
            json!({"_meta": meta, "error": {"code": code, "message": message}})
        ),
        stderr: String::new(),
        exit_code: 2,
    };
    let text = match input {
        None => "{}".to_string(),
        Some("-") => {
            let mut text = String::new();
            if let Err(err) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
                return fail(INVALID_PARAMS, format!("Cannot read stdin: {err}"));
            }
            text
        }
        Some(text) => text.to_string(),
    };
    let arguments: Value = match serde_json::from_str(&text) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => {
            return fail(
                INVALID_PARAMS,
                "Tool arguments must be a JSON object".into(),
            );
        }
        Err(err) => {
            return fail(
                INVALID_PARAMS,
                format!("Tool arguments must be a JSON object: {err}"),
            );
        }
    };
    // A one-off call may use any tool, unless --tools names the profiles to allow.
    match call(
        runner,
        &json!({"name": tool, "arguments": arguments}),
        &args.profiles,
        args.limited,
        None,
    ) {
        Ok(mut result) => {
            let failed = result["isError"] == Value::Bool(true);
            result["_meta"] = meta;
            Rendered {
                stdout_file: None,
                stdout: format!("{result}\n"),
                stderr: String::new(),
                exit_code: i32::from(failed),
            }
        }
        Err(err) => fail(err.code, err.message),
    }
}

/// What the server answers with, for `initialize` and `server/discover`.
fn server_info() -> Value {
    json!({"name": "agent-browser", "title": "agent-browser (abx)", "version": crate::upstream::UPSTREAM_VERSION})
}

const INSTRUCTIONS: &str = "Drive one browser session with the agent_browser_* tools. Call agent_browser_snapshot after each navigation and use its @refs as selectors. agent_browser_tools_profiles lists the extra tool groups.";

fn respond(id: Value, outcome: Result<Value, CallError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(err) => error(id, err.code, &err.message),
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// One incoming line: a reply to write, or nothing (a notification). `tools/call` requests are
/// returned as [`Incoming::Call`] so the loop can run them off the reading thread.
enum Incoming {
    Reply(Value),
    Call(Value, Value),
    /// `notifications/cancelled` for this request id.
    Cancel(Value),
    Nothing,
}

fn handle(line: &str, enabled: &[String], full: bool) -> Incoming {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(err) => {
            return Incoming::Reply(error(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {err}"),
            ));
        }
    };
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "batches are not supported; send one request per line"
        } else {
            "a request must be a JSON object"
        };
        return Incoming::Reply(error(
            Value::Null,
            INVALID_REQUEST,
            &format!("Invalid request: {what}"),
        ));
    };
    let id = object.get("id").cloned();
    let valid_id = matches!(&id, None | Some(Value::String(_) | Value::Number(_)));
    let method = object.get("method").and_then(Value::as_str);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !valid_id {
        return Incoming::Reply(error(
            id.filter(|_| valid_id).unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid request: expected a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" and a string or number id",
        ));
    }
    let Some(method) = method else {
        // A response from the client (we send no requests) or garbage: nothing to answer
        // unless it carried an id.
        return match id {
            Some(id) if !object.contains_key("result") && !object.contains_key("error") => {
                Incoming::Reply(error(id, INVALID_REQUEST, "Invalid request: no method"))
            }
            _ => Incoming::Nothing,
        };
    };
    let Some(id) = id else {
        // Notifications need no answer; a cancellation ends the call it names.
        if method == "notifications/cancelled"
            && let Some(request) = object
                .get("params")
                .and_then(|p| p.get("requestId"))
                .filter(|r| r.is_string() || r.is_number())
        {
            return Incoming::Cancel(request.clone());
        }
        return Incoming::Nothing;
    };
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_)) {
        return Incoming::Reply(error(
            id,
            INVALID_PARAMS,
            "Invalid params: expected an object",
        ));
    }
    let result = match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            let Some(asked) = asked else {
                return Incoming::Reply(error(
                    id,
                    INVALID_PARAMS,
                    "initialize needs params.protocolVersion",
                ));
            };
            let version = if PROTOCOL_VERSIONS.contains(&asked) {
                asked
            } else {
                HANDSHAKE_VERSION
            };
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            })
        }
        "server/discover" => json!({
            "supportedVersions": PROTOCOL_VERSIONS,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
        }),
        "ping" => json!({}),
        "tools/list" => json!({"tools": list(enabled, full)}),
        "tools/call" => return Incoming::Call(id, params),
        other => {
            return Incoming::Reply(error(
                id,
                METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
            ));
        }
    };
    Incoming::Reply(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// The `tools/list` entries for these profiles; `full` schemas list the session-wide
/// arguments too (a server started with `--tools`), else only `session` (the small default).
pub fn list(enabled: &[String], full: bool) -> Vec<Value> {
    tools::all()
        .iter()
        .filter(|t| t.enabled(enabled))
        .map(|t| t.listing(full))
        .collect()
}

/// Whether the reader of our stdout has gone (a pipe whose other end closed polls as an error).
fn stdout_closed() -> bool {
    use std::os::fd::AsFd;
    let stdout = std::io::stdout();
    let mut fds = [nix::poll::PollFd::new(
        stdout.as_fd(),
        nix::poll::PollFlags::empty(),
    )];
    match nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO) {
        Ok(n) if n > 0 => fds[0].revents().is_some_and(|r| {
            r.intersects(nix::poll::PollFlags::POLLERR | nix::poll::PollFlags::POLLHUP)
        }),
        _ => false,
    }
}

fn write_line(out: &Mutex<std::io::Stdout>, message: &Value) {
    if let Ok(mut out) = out.lock() {
        let _ = writeln!(out, "{message}");
        let _ = out.flush();
    }
}

fn serve(runner: &Runner, enabled: &[String], full: bool) {
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let stdin = std::io::stdin();
    // Tool calls run one at a time in order (they drive one session), on their own thread so
    // `ping` and `tools/list` are answered while a call runs.
    // A cancelled call (`notifications/cancelled`) or every call of a client that left (end of
    // stdin) ends its CLI child, and with it its command in the daemon; it gets no reply.
    let inflight = Inflight::default();
    let finished = std::sync::atomic::AtomicBool::new(false);
    let (calls, queue) = std::sync::mpsc::channel::<(Value, Value)>();
    std::thread::scope(|scope| {
        let worker_out = Arc::clone(&out);
        let inflight = &inflight;
        let finished = &finished;
        let worker = scope.spawn(move || {
            for (id, params) in queue {
                if !inflight.dropped(&id) {
                    let outcome = call(runner, &params, enabled, false, Some((inflight, &id)));
                    if !inflight.dropped(&id) {
                        write_line(&worker_out, &respond(id.clone(), outcome));
                    }
                }
                inflight.forget(&id);
            }
        });
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            match handle(&line, enabled, full) {
                Incoming::Reply(reply) => write_line(&out, &reply),
                Incoming::Call(id, params) => {
                    if calls.send((id, params)).is_err() {
                        break;
                    }
                }
                Incoming::Cancel(id) => inflight.cancel(&id),
                Incoming::Nothing => {}
            }
        }
        // End of input: the calls already asked for are answered (a client may send its
        // requests and close stdin, as upstream's tests do) unless the client is gone
        // altogether, which the closed stdout tells.
        drop(calls);
        let watch = scope.spawn(move || {
            while !finished.load(std::sync::atomic::Ordering::SeqCst) {
                if stdout_closed() {
                    inflight.close();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let _ = worker.join();
        finished.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = watch.join();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match handle(line, &["core".to_string()], false) {
            Incoming::Reply(v) => v,
            Incoming::Call(..) => panic!("a call"),
            Incoming::Cancel(..) => panic!("a cancellation"),
            Incoming::Nothing => Value::Null,
        }
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        assert_eq!(reply("{oops")["error"]["code"], PARSE_ERROR);
        assert_eq!(reply("[1,2]")["error"]["code"], INVALID_REQUEST);
        assert_eq!(reply("42")["error"]["code"], INVALID_REQUEST);
        assert_eq!(
            reply(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)["error"]["code"],
            INVALID_REQUEST
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#)["error"]["code"],
            METHOD_NOT_FOUND
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#)["error"]["code"],
            INVALID_PARAMS
        );
        assert_eq!(
            reply(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Value::Null
        );
    }

    #[test]
    fn initialize_echoes_a_known_version_and_answers_an_unknown_one_with_ours() {
        let known = reply(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
        );
        assert_eq!(known["result"]["protocolVersion"], "2025-06-18");
        let unknown = reply(
            r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
        );
        assert_eq!(unknown["id"], "a");
        assert_eq!(unknown["result"]["protocolVersion"], HANDSHAKE_VERSION);
    }

    #[test]
    fn reply_text_takes_upstreams_key_order_and_keeps_the_response_as_written() {
        let text = |v: Value| response_text(&v);
        assert_eq!(
            text(json!({"success": true, "data": {"url": "u", "title": "T", "content": "# md"}})),
            "# md"
        );
        assert_eq!(
            text(json!({"success": true, "data": {"url": "u", "title": "T"}})),
            "T"
        );
        assert_eq!(
            text(json!({"success": true, "data": {"result": {"a": 1}}})),
            "{\n  \"a\": 1\n}"
        );
        // A local command's response has no `error`; none is added.
        assert_eq!(
            text(json!({"success": true, "data": {"session": "s"}})),
            "{\n  \"data\": {\n    \"session\": \"s\"\n  },\n  \"success\": true\n}"
        );
        assert_eq!(
            text(json!({"success": false, "error": "boom", "data": null})),
            "boom"
        );
    }

    #[test]
    fn mcp_arguments() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let args = parse_args(&words(&["--tools", "core,network"])).expect("ok");
        assert_eq!(args.profiles, ["core", "network"]);
        assert!(parse_args(&words(&["--tools", "bogus"])).is_err());
        let call = parse_args(&words(&["call", "agent_browser_open", "{}"])).expect("ok");
        assert_eq!(
            call.call,
            Some(("agent_browser_open".into(), Some("{}".into())))
        );
        assert!(parse_args(&words(&["serve"])).is_err());
        assert!(parse_args(&words(&["call"])).is_err());
    }

    #[test]
    fn global_flags_are_what_is_not_the_mcp_words() {
        let s = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            global_flags(
                &s(&["--session", "x", "mcp", "--headed", "--tools", "all"]),
                &s(&["mcp", "--tools", "all"])
            ),
            s(&["--session", "x", "--headed"])
        );
    }
}
