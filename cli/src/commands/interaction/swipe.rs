//! `swipe <up|down|left|right> [distance]`: a touch swipe. Not implemented yet: the daemon
//! answers `Not yet implemented: swipe`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "swipe";

const USAGE: &str = "swipe <up|down|left|right> [distance]";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Swipe (touch)",
        usage: &[USAGE],
        examples: &["swipe up 400"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let direction = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    if !["up", "down", "left", "right"].contains(direction) {
        return Err(ParseError::invalid(
            format!("Invalid swipe direction: {direction}"),
            USAGE,
        ));
    }
    let mut req = Req::new(ACTION).set("direction", *direction);
    if let Some(d) = rest.get(1).and_then(|d| d.parse::<u32>().ok()) {
        req.put("distance", d);
    }
    ok(req)
}
