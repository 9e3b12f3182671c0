//! `react tree|inspect <id>|renders [start|stop]|suspense [--only-dynamic]`: React
//! introspection (needs `--enable react-devtools`). Not implemented yet: the daemon answers
//! `Not yet implemented: react_*`.

use crate::commands::prelude::*;

/// `react tree`.
pub const TREE: &str = "react_tree";
/// `react inspect <id>`.
pub const INSPECT: &str = "react_inspect";
/// `react renders [start]`.
pub const RENDERS_START: &str = "react_renders_start";
/// `react renders stop`.
pub const RENDERS_STOP: &str = "react_renders_stop";
/// `react suspense`.
pub const SUSPENSE: &str = "react_suspense";

/// The command.
pub const COMMAND: Command = Command {
    names: &["react"],
    help: Some(Help {
        about: "React introspection (needs --enable react-devtools)",
        usage: &["react <tree|inspect|renders|suspense>"],
        examples: &["react tree", "react inspect 12"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(TREE),
        Action::todo(INSPECT),
        Action::todo(RENDERS_START),
        Action::todo(RENDERS_STOP),
        Action::todo(SUSPENSE),
    ],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let sub = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("react", "react <tree|inspect|renders|suspense>"))?;
    match sub {
        "tree" => ok(Req::new(TREE)),
        "inspect" => {
            let id = rest
                .iter()
                .skip(1)
                .find(|a| !a.starts_with("--"))
                .ok_or_else(|| ParseError::missing("react inspect", "react inspect <id>"))?;
            let n = id.parse::<i64>().map_err(|_| {
                ParseError::invalid(
                    format!("react inspect id must be a number, got '{id}'"),
                    "react inspect <id>",
                )
            })?;
            ok(Req::new(INSPECT).set("fiberId", n))
        }
        "renders" => match rest.get(1).copied().unwrap_or("start") {
            "start" => ok(Req::new(RENDERS_START)),
            "stop" => ok(Req::new(RENDERS_STOP)),
            other => Err(ParseError::unknown_sub(other, &["start", "stop"])),
        },
        "suspense" => {
            let mut req = Req::new(SUSPENSE);
            if rest.contains(&"--only-dynamic") {
                req.put("onlyDynamic", true);
            }
            ok(req)
        }
        other => Err(ParseError::unknown_sub(
            other,
            &["tree", "inspect", "renders", "suspense"],
        )),
    }
}
