//! `trace start|stop [path]`: a performance trace of the session's own tab (`Tracing` domain on
//! the tab's CDP session), written as Chrome trace-event JSON (`{"traceEvents": [...]}`) that
//! DevTools' Performance panel, Perfetto and `chrome://tracing` open. Without a path the file
//! goes to `~/.agent-browser/tmp/traces/trace-<ms>.json`, as upstream.
//!
//! One trace or profile runs at a time per session (upstream's rule); the slot is shared with
//! `profiler`.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use abx_engine::Trace;

use crate::commands::prelude::*;

/// What runs in this session (one daemon is one session, so a process-wide slot is per session).
pub(crate) enum Running {
    /// `trace start`.
    Trace(Trace),
    /// `profiler start` (a sampling trace).
    Profile(Trace),
}

/// The session's running trace or profile.
pub(crate) static RUNNING: Mutex<Option<Running>> = Mutex::new(None);

/// Chrome may take a while to flush a big trace.
pub(crate) const STOP_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) fn slot() -> std::sync::MutexGuard<'static, Option<Running>> {
    RUNNING.lock().unwrap_or_else(|p| p.into_inner())
}

/// The file to write: the given path, or `~/.agent-browser/tmp/<dir>/<stem>-<ms>.json`.
pub(crate) fn output_path(given: Option<&str>, dir: &str, stem: &str) -> Result<PathBuf, Failure> {
    if let Some(path) = given {
        return Ok(PathBuf::from(path));
    }
    let home = std::env::var_os("HOME")
        .ok_or_else(|| Failure::message("HOME is not set: give the output path"))?;
    let dir = PathBuf::from(home).join(".agent-browser/tmp").join(dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::message(format!("cannot create {}: {e}", dir.display())))?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    Ok(dir.join(format!("{stem}-{ms}.json")))
}

/// Writes `text` to `path`, with the path in the error.
pub(crate) fn write_file(path: &std::path::Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::message(format!("cannot write {}: {e}", path.display())))
}

/// What `trace stop` sends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StopRequest {
    /// The output file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

async fn start(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    if slot().is_some() {
        return Err(Failure::message("Tracing already active"));
    }
    let session = ctx.session().await?;
    let tab = session.active_tab().await?;
    let timeout = ctx.timeout().unwrap_or(STOP_TIMEOUT);
    let trace = Trace::start(&tab, None, timeout).await?;
    let mut running = slot();
    if running.is_some() {
        return Err(Failure::message("Tracing already active"));
    }
    *running = Some(Running::Trace(trace));
    Ok(json!({"started": true}))
}

async fn stop(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: StopRequest = ctx.params()?;
    let trace = {
        let mut running = slot();
        match running.take() {
            Some(Running::Trace(trace)) => trace,
            other => {
                *running = other;
                return Err(Failure::message("No tracing in progress"));
            }
        }
    };
    // Check the path first: a bad one keeps the trace running for a retry.
    let path = match output_path(request.path.as_deref(), "traces", "trace")
        .and_then(|p| write_file(&p, "").map(|()| p))
    {
        Ok(path) => path,
        Err(err) => {
            *slot() = Some(Running::Trace(trace));
            return Err(err);
        }
    };
    let done = trace.stop(STOP_TIMEOUT).await?;
    write_file(&path, &done.json)?;
    Ok(json!({"path": path.display().to_string(), "eventCount": done.events}))
}

/// `trace start`.
pub const START: &str = "trace_start";
/// `trace stop [path]`.
pub const STOP: &str = "trace_stop";

/// The command.
pub const COMMAND: Command = Command {
    names: &["trace"],
    help: Some(Help {
        about: "Performance trace",
        usage: &["trace <start|stop> [path]"],
        examples: &["trace start", "trace stop trace.json"],
        description: "\
Records a performance trace of the session's tab and writes it as trace-event JSON, which
DevTools' Performance panel, Perfetto and chrome://tracing open. Without a path the file goes
to ~/.agent-browser/tmp/traces/.",
        sections: &[(
            "Subcommands",
            &[
                ("start", "Begin recording"),
                ("stop [path]", "End recording and write the file"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(START, |ctx| Box::pin(start(ctx))).completing(),
        Action::queued(STOP, |ctx| Box::pin(stop(ctx)))
            .completing()
            .rendered(Render {
                saved: Some(saved),
                example: r#"{"path":"/tmp/trace.json"}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        89,
        "agent_browser_trace_start",
        "debug",
        &["trace", "start"],
        "",
    ),
    McpTool::new(
        90,
        "agent_browser_trace_stop",
        "debug",
        &["trace", "stop"],
        "path:s",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("start") => Ok(encode(START, &NoParams {})),
        Some("stop") => Ok(encode(
            STOP,
            &StopRequest {
                path: rest.get(1).map(|p| p.to_string()),
            },
        )),
        Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
        None => Err(ParseError::missing("trace", "trace <start|stop> [path]")),
    }
}

fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} Trace saved to {}", p.ok(), p.green(path)));
}
