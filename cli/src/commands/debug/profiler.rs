//! `profiler start [--categories <list>] | stop [path]`: the Chromium profiler. Not implemented
//! yet: the daemon answers `Not yet implemented: profiler_start|profiler_stop`.

use crate::commands::prelude::*;

/// `profiler start`.
pub const START: &str = "profiler_start";
/// `profiler stop [path]`.
pub const STOP: &str = "profiler_stop";

/// The command.
pub const COMMAND: Command = Command {
    names: &["profiler"],
    help: Some(Help {
        about: "Chromium profiler",
        usage: &["profiler <start|stop> [options]"],
        examples: &[
            "profiler start --categories devtools.timeline",
            "profiler stop profile.json",
        ],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(START).rendered(Render {
            started: Some("Profiling started"),
            ..Render::DEFAULT
        }),
        Action::todo(STOP).rendered(Render {
            saved: Some(saved),
            ..Render::DEFAULT
        }),
    ],
};

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
            let mut req = Req::new(START);
            if let Some(idx) = rest.iter().position(|s| *s == "--categories") {
                let cats = rest.get(idx + 1).ok_or_else(|| {
                    ParseError::missing("profiler start --categories", "--categories <list>")
                })?;
                req.put("categories", cats.split(',').collect::<Vec<_>>());
            }
            ok(req)
        }
        Some("stop") => {
            let mut req = Req::new(STOP);
            if let Some(path) = rest.get(1) {
                req.put("path", *path);
            }
            ok(req)
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
        None => Err(ParseError::missing(
            "profiler",
            "profiler <start|stop> [options]",
        )),
    }
}
