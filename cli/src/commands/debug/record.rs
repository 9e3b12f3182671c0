//! `record start|restart <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet] |
//! stop`: a video of the session's own tab, encoded by `ffmpeg` from `PATH`.
//!
//! Frames come from the live view's screencast (one screencast, shared with any viewer; see
//! `abx_relay::Recorder`), written at a constant `--fps` (default 30) by holding the last frame
//! while the page is idle. `.webm` is VP8 (libvpx), `.mp4` H.264 (libx264). ffmpeg runs in its
//! own process group under a watchdog: it ends with the session and never outlives a killed
//! daemon. `--cursor` and `--contact-sheet` are not supported (a clear error, not a silent
//! no-op).

use std::path::PathBuf;

use abx_relay::{RecordError, RecordOptions, Recorder};

use crate::commands::prelude::*;
use crate::commands::support::record_url;

/// `record start`.
pub const START: &str = "recording_start";
/// `record restart`.
pub const RESTART: &str = "recording_restart";
/// `record stop`.
pub const STOP: &str = "recording_stop";

/// The command.
pub const COMMAND: Command = Command {
    names: &["record"],
    help: Some(Help {
        about: "Record a WebM video (needs ffmpeg)",
        usage: &["record <start|stop|restart> [path] [url]"],
        examples: &[
            "record start demo.webm",
            "record start demo.mp4 https://example.com --fps 60",
            "record restart take2.webm",
            "record stop",
        ],

        description: "\
Records the session's active tab, as it is, to a video file: no new tab, no reload unless a
URL is given (the tab loads it first). .webm is VP8, .mp4 is H.264; ffmpeg must be on PATH
(`doctor` checks). To record another tab, switch to it (`tab new [url]`) before starting.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("start <path> [url]", "Start recording"),
                    ("stop", "Stop and write the video"),
                    (
                        "restart <path> [url]",
                        "Stop the current recording, if any, and start a new one",
                    ),
                ],
            ),
            (
                "Options",
                &[
                    (
                        "--fps <n>",
                        "\
Frames per second, 1-60 (default 30): more for fast motion, fewer
for long sessions",
                    ),
                    (
                        "--cursor, --contact-sheet",
                        "Refused by abx (upstream's pointer overlay and contact sheet)",
                    ),
                    (
                        "--contact-sheet-threshold <0-1>",
                        "Asks for a contact sheet: checked as upstream does, then refused",
                    ),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(START, |ctx| Box::pin(start(ctx)))
            .completing()
            .rendered(Render {
                first: Some(started),
                example: r#"{"started":true,"path":"/tmp/r.webm","fps":10}"#,
                ..Render::DEFAULT
            }),
        Action::queued(RESTART, |ctx| Box::pin(restart(ctx)))
            .completing()
            .rendered(Render {
                first: Some(started),
                example: r#"{"started":true,"path":"/tmp/new.webm","fps":10,"previousPath":"/tmp/old.webm"}"#,
                ..Render::DEFAULT
            }),
        Action::queued(STOP, |ctx| Box::pin(stop(ctx)))
            .completing()
            .rendered(Render {
                first: Some(saved),
                example: r#"{"frames":10,"path":"/tmp/r.webm"}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        93,
        "agent_browser_record_start",
        "debug",
        &["record", "start"],
        "path:s! url:s contactSheet:b@--contact-sheet contactSheetThreshold:n@--contact-sheet-threshold cursor:b@--cursor fps:i@--fps",
    ),
    McpTool::new(
        94,
        "agent_browser_record_stop",
        "debug",
        &["record", "stop"],
        "",
    ),
    McpTool::new(
        95,
        "agent_browser_record_restart",
        "debug",
        &["record", "restart"],
        "path:s! url:s contactSheet:b@--contact-sheet contactSheetThreshold:n@--contact-sheet-threshold cursor:b@--cursor fps:i@--fps",
    ),
];

/// What `record start|restart` sends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRequest {
    /// The output file.
    pub path: Option<String>,
    /// A page to open first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Frames per second (1-60, default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps: Option<u32>,
    /// Upstream's pointer overlay (not supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<bool>,
    /// Upstream's contact sheet (not supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_sheet: Option<bool>,
    /// Upstream's contact-sheet threshold (0-1), which asks for a contact sheet (not
    /// supported either: refused, never ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_sheet_threshold: Option<f64>,
}

const DEFAULT_FPS: u32 = 30;

fn recorder(
    hooks: &Option<std::sync::Arc<dyn abx_daemon::daemon::StreamHooks>>,
) -> Result<&Recorder, Failure> {
    hooks
        .as_ref()
        .and_then(|h| h.recorder())
        .ok_or_else(|| Failure::message("Recording is not available in this session"))
}

fn failure(err: RecordError) -> Failure {
    Failure::message(err.to_string())
}

/// Checks the request and opens its page; returns the recorder's options.
async fn prepare(ctx: &Ctx<'_>) -> Result<RecordOptions, Failure> {
    let request: RecordRequest = ctx.params()?;
    let path = required(&request.path, "path")?;
    if request.cursor == Some(true)
        || request.contact_sheet == Some(true)
        || request.contact_sheet_threshold.is_some()
    {
        return Err(Failure::message(
            "--cursor and --contact-sheet are not supported by abx: record without them",
        ));
    }
    let fps = request.fps.unwrap_or(DEFAULT_FPS);
    if !(1..=60).contains(&fps) {
        return Err(Failure::message(format!(
            "Invalid fps: {fps} is out of range (valid range: 1-60)"
        )));
    }
    let session = ctx.session().await?;
    if let Some(url) = request.url.as_deref() {
        session
            .navigate(url, abx_engine::WaitUntil::Load, ctx.timeout())
            .await?;
    }
    Ok(RecordOptions::new(PathBuf::from(path), fps))
}

async fn start(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let options = prepare(ctx).await?;
    let hooks = ctx.stream();
    let started = recorder(&hooks)?.start(options).await.map_err(failure)?;
    Ok(json!({
        "started": true,
        "path": started.path.display().to_string(),
        "fps": started.fps,
        "cursor": false,
        "contactSheet": false,
    }))
}

async fn restart(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let options = prepare(ctx).await?;
    let hooks = ctx.stream();
    let (previous, started) = recorder(&hooks)?.restart(options).await.map_err(failure)?;
    Ok(json!({
        "restarted": true,
        "path": started.path.display().to_string(),
        "previousPath": previous.map(|p| p.path.display().to_string()),
        "fps": started.fps,
        "cursor": false,
        "contactSheet": false,
        "contactSheetPath": null,
    }))
}

async fn stop(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let hooks = ctx.stream();
    let summary = recorder(&hooks)?.stop().await.map_err(failure)?;
    Ok(json!({
        "path": summary.path.display().to_string(),
        "fps": summary.fps,
        "frames": summary.frames,
        "capturedFrames": summary.captured_frames,
        // Beyond upstream: ticks skipped because the encoder fell too far behind.
        "droppedFrames": summary.dropped_frames,
        // Beyond upstream: the recorded wall time.
        "durationMs": summary.duration.as_millis() as u64,
    }))
}

/// `✓ Recording started: <path> (<fps> fps)` (also for `restart`, naming the previous file).
fn started(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(path) = s(data, "path").filter(|_| data.get("fps").is_some()) else {
        return false;
    };
    let fps = u(data, "fps").unwrap_or(u64::from(DEFAULT_FPS));
    match s(data, "previousPath") {
        Some(prev) => t.out(&format!(
            "{} Recording started: {path} ({fps} fps), previous saved to {prev}",
            t.p.ok()
        )),
        None => t.out(&format!(
            "{} Recording started: {path} ({fps} fps)",
            t.p.ok()
        )),
    }
    true
}

/// `✓ Recording saved to <path> (<fps> fps)`.
fn saved(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(path) = s(data, "path").filter(|_| data.get("frames").is_some()) else {
        return false;
    };
    let fps = u(data, "fps").unwrap_or(u64::from(DEFAULT_FPS));
    t.out(&format!(
        "{} Recording saved to {path} ({fps} fps)",
        t.p.ok()
    ));
    true
}

const START_USAGE: &str = "record start <output.webm|output.mp4> [url] [--fps <n>] [--cursor] [--contact-sheet] [--contact-sheet-threshold <0-1>]";
const RESTART_USAGE: &str = "record restart <output.webm|output.mp4> [url] [--fps <n>] [--cursor] [--contact-sheet] [--contact-sheet-threshold <0-1>]";

const START_FLAGS: &[Flag] = &[
    Flag::value(&["--fps"], "record start --fps", START_USAGE),
    Flag::switch(&["--cursor"]),
    Flag::switch(&["--contact-sheet"]),
    Flag::value(
        &["--contact-sheet-threshold"],
        "record start --contact-sheet-threshold",
        START_USAGE,
    ),
];
const RESTART_FLAGS: &[Flag] = &[
    Flag::value(&["--fps"], "record restart --fps", RESTART_USAGE),
    Flag::switch(&["--cursor"]),
    Flag::switch(&["--contact-sheet"]),
    Flag::value(
        &["--contact-sheet-threshold"],
        "record restart --contact-sheet-threshold",
        RESTART_USAGE,
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const VALID: &[&str] = &["start", "stop", "restart"];
    let (action, context, usage) = match rest.first().copied() {
        Some("start") => (START, "record start", START_USAGE),
        Some("restart") => (RESTART, "record restart", RESTART_USAGE),
        Some("stop") => return Ok(encode(STOP, &NoParams {})),
        Some(sub) => return Err(ParseError::unknown_sub(sub, VALID)),
        None => {
            return Err(ParseError::missing(
                "record",
                "record <start|stop|restart> [path] [url] [--fps <n>]",
            ));
        }
    };
    let mut positional: Vec<&str> = Vec::new();
    let mut req = RecordRequest::default();
    // The context and usage differ between start and restart.
    let flags = if action == START {
        START_FLAGS
    } else {
        RESTART_FLAGS
    };
    for word in scan(&rest[1..], flags) {
        match word? {
            // Upstream's checks and words, for both values.
            Word::Value("--contact-sheet-threshold", raw) => match raw.parse::<f64>() {
                // A threshold asks for a contact sheet (which abx refuses with its reason).
                Ok(ratio) if (0.0..=1.0).contains(&ratio) => {
                    req.contact_sheet_threshold = Some(ratio);
                    req.contact_sheet = Some(true);
                }
                Ok(ratio) => {
                    return Err(ParseError::invalid(
                        format!(
                            "Invalid contact sheet threshold: {ratio} is out of range (valid range: 0-1)"
                        ),
                        usage,
                    ));
                }
                Err(_) => {
                    return Err(ParseError::invalid(
                        format!("Invalid contact sheet threshold: '{raw}' is not a number"),
                        usage,
                    ));
                }
            },
            Word::Value(_, raw) => match raw.parse::<u32>() {
                Ok(n) if (1..=60).contains(&n) => req.fps = Some(n),
                Ok(n) => {
                    return Err(ParseError::invalid(
                        format!("Invalid fps: {n} is out of range (valid range: 1-60)"),
                        usage,
                    ));
                }
                Err(_) => {
                    return Err(ParseError::invalid(
                        format!("Invalid fps: '{raw}' is not a valid integer"),
                        usage,
                    ));
                }
            },
            Word::Switch("--cursor") => req.cursor = Some(true),
            Word::Switch("--contact-sheet") => req.contact_sheet = Some(true),
            // Never the path or the page to open, as upstream says.
            Word::Other(flag) if flag.starts_with('-') && flag.len() > 1 => {
                return Err(ParseError::invalid(
                    format!("Unknown flag for {context}: {flag}"),
                    usage,
                ));
            }
            other => positional.push(other.text()),
        }
    }
    let path = positional
        .first()
        .ok_or_else(|| ParseError::missing(context, usage))?;
    req.path = Some(path.to_string());
    req.url = positional.get(1).map(|url| record_url(url));
    Ok(encode(action, &req))
}
