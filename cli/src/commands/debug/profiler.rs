//! `profiler start [--categories <list>] | stop [path]`: a sampling profile of the session's own
//! tab, as upstream records it: a trace (`Tracing` domain) of the timeline, V8's CPU profiler
//! and the scheduler categories (`abx_engine::DEFAULT_PROFILE_CATEGORIES`, or `--categories`)
//! with sampling on, written as trace-event JSON (`traceEvents`, `metadata`) that DevTools'
//! Performance panel loads; the event count is the number of trace events. Without a path the
//! file goes to `~/.agent-browser/tmp/profiles/profile-<ms>.json`.

use abx_engine::Trace;

use super::trace::{Running, STOP_TIMEOUT, output_path, slot, write_file};
use crate::commands::prelude::*;

/// What `profiler start` sends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StartRequest {
    /// Trace categories (then the profile is a trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<String>>,
}

async fn start(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: StartRequest = ctx.params()?;
    const BUSY: &str = "Profiling/tracing already active";
    if slot().is_some() {
        return Err(Failure::message(BUSY));
    }
    let session = ctx.session().await?;
    let tab = session.active_tab().await?;
    let timeout = ctx.timeout().unwrap_or(STOP_TIMEOUT);
    let running =
        Running::Profile(Trace::start_profile(&tab, request.categories.as_deref(), timeout).await?);
    let mut current = slot();
    if current.is_some() {
        return Err(Failure::message(BUSY));
    }
    *current = Some(running);
    Ok(json!({"started": true}))
}

async fn stop(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: super::trace::StopRequest = ctx.params()?;
    let running = {
        let mut current = slot();
        match current.take() {
            Some(Running::Trace(trace)) => {
                *current = Some(Running::Trace(trace));
                return Err(Failure::message("No profiling in progress"));
            }
            Some(running) => running,
            None => return Err(Failure::message("No profiling in progress")),
        }
    };
    // Check the path first: a bad one keeps the profile running for a retry.
    let path = match output_path(request.path.as_deref(), "profiles", "profile")
        .and_then(|p| write_file(&p, "").map(|()| p))
    {
        Ok(path) => path,
        Err(err) => {
            *slot() = Some(running);
            return Err(err);
        }
    };
    let done = match running {
        Running::Profile(trace) | Running::Trace(trace) => trace.stop(STOP_TIMEOUT).await?,
    };
    write_file(&path, &done.json)?;
    Ok(json!({"path": path.display().to_string(), "eventCount": done.events}))
}

/// `profiler start`.
pub const START: &str = "profiler_start";
/// `profiler stop [path]`.
pub const STOP: &str = "profiler_stop";

/// The command.
pub const COMMAND: Command = Command {
    names: &["profiler"],
    help: Some(Help {
        about: "Record Chrome DevTools performance profile",
        usage: &["profiler <start|stop> [options]"],
        examples: &[
            "profiler start",
            "profiler stop ./trace.json",
            "profiler start --categories devtools.timeline,v8.execute,blink.user_timing",
            "profiler stop",
        ],
        description: "\
Records a CPU and timeline profile of the session's tab (trace-event JSON with sampling on),
for DevTools' Performance panel or Perfetto. Without a path the file goes to
~/.agent-browser/tmp/profiles/.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("start", "Begin profiling"),
                    ("stop [path]", "End and write the file"),
                ],
            ),
            (
                "start options",
                &[(
                    "--categories <list>",
                    "\
Comma-separated trace categories instead of the default set
(timeline, V8 execution and CPU profiler, user timing)",
                )],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(START, |ctx| Box::pin(start(ctx)))
            .completing()
            .rendered(Render {
                started: Some("Profiling started"),
                example: r#"{"started":true}"#,
                ..Render::DEFAULT
            }),
        Action::queued(STOP, |ctx| Box::pin(stop(ctx)))
            .completing()
            .rendered(Render {
                saved: Some(saved),
                example: r#"{"path":"/tmp/profile.json"}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        91,
        "agent_browser_profiler_start",
        "debug",
        &["profiler", "start"],
        "categories:s@--categories",
    ),
    McpTool::new(
        92,
        "agent_browser_profiler_stop",
        "debug",
        &["profiler", "stop"],
        "path:s",
    ),
];

fn saved(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!(
        "{} Profile saved to {} ({} events)",
        p.ok(),
        p.green(path),
        u(data, "eventCount").unwrap_or(0)
    ));
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("start") => {
            const FLAGS: &[Flag] = &[Flag::value(
                &["--categories"],
                "profiler start --categories",
                "--categories <list>",
            )];
            let mut req = StartRequest::default();
            // Upstream reads the first `--categories` and ignores every other word.
            for word in scan(&rest[1..], FLAGS) {
                if let Word::Value("--categories", cats) = word?
                    && req.categories.is_none()
                {
                    req.categories = Some(cats.split(',').map(str::to_string).collect());
                }
            }
            Ok(encode(START, &req))
        }
        Some("stop") => Ok(encode(
            STOP,
            &super::trace::StopRequest {
                path: rest.get(1).map(|p| p.to_string()),
            },
        )),
        Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
        None => Err(ParseError::missing(
            "profiler",
            "profiler <start|stop> [options]",
        )),
    }
}
