//! `record start|restart <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet] |
//! stop`: a WebM video of the session. Not implemented yet: the daemon answers
//! `Not yet implemented: recording_start|recording_restart|recording_stop`.

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
        examples: &["record start demo.webm", "record stop"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(START),
        Action::todo(RESTART),
        Action::todo(STOP),
    ],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const VALID: &[&str] = &["start", "stop", "restart"];
    let (action, context, usage) = match rest.first().copied() {
        Some("start") => (
            START,
            "record start",
            "record start <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet]",
        ),
        Some("restart") => (
            RESTART,
            "record restart",
            "record restart <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet]",
        ),
        Some("stop") => return ok(Req::new(STOP)),
        Some(sub) => return Err(ParseError::unknown_sub(sub, VALID)),
        None => {
            return Err(ParseError::missing(
                "record",
                "record <start|stop|restart> [path] [url]",
            ));
        }
    };
    let mut positional: Vec<&str> = Vec::new();
    let mut extra: Vec<(&str, Value)> = Vec::new();
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            "--fps" => {
                let raw = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing(context, usage))?;
                match raw.parse::<u32>() {
                    Ok(n) if (1..=60).contains(&n) => extra.push(("fps", json!(n))),
                    _ => {
                        return Err(ParseError::invalid(
                            format!("Invalid --fps value: {raw} (expected 1-60)"),
                            usage,
                        ));
                    }
                }
                i += 1;
            }
            "--cursor" => extra.push(("cursor", json!(true))),
            "--contact-sheet" => extra.push(("contactSheet", json!(true))),
            other => positional.push(other),
        }
        i += 1;
    }
    let path = positional
        .first()
        .ok_or_else(|| ParseError::missing(context, usage))?;
    let mut req = Req::new(action).set("path", *path);
    if let Some(url) = positional.get(1) {
        req.put("url", record_url(url));
    }
    for (k, v) in extra {
        req.put(k, v);
    }
    ok(req)
}
