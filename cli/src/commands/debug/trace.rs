//! `trace start|stop [path]`: a performance trace. Not implemented yet: the daemon answers
//! `Not yet implemented: trace_start|trace_stop`.

use crate::commands::prelude::*;

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
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(START),
        Action::todo(STOP).rendered(Render {
            saved: Some(saved),
            ..Render::DEFAULT
        }),
    ],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("start") => ok(Req::new(START)),
        Some("stop") => {
            let mut req = Req::new(STOP);
            if let Some(path) = rest.get(1) {
                req.put("path", *path);
            }
            ok(req)
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
        None => Err(ParseError::missing("trace", "trace <start|stop> [path]")),
    }
}

fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} Trace saved to {}", p.ok(), p.green(path)));
}
