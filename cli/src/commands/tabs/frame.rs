//! `frame <selector|main>`: scopes later commands to an iframe, or back to the main frame.
//! Not implemented yet: the daemon answers `Not yet implemented: frame|mainframe`.

use crate::commands::prelude::*;

/// `frame <selector>`.
pub const FRAME: &str = "frame";
/// `frame main`.
pub const MAIN: &str = "mainframe";

/// The command.
pub const COMMAND: Command = Command {
    names: &["frame"],
    help: Some(Help {
        about: "Scope commands to an iframe (or back to the main frame)",
        usage: &["frame <selector|main>"],
        examples: &["frame '#checkout-iframe'", "frame main"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(FRAME), Action::todo(MAIN)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    match input.rest.first().copied() {
        Some("main") => ok(Req::new(MAIN)),
        Some(sel) => ok(Req::new(FRAME).set("selector", sel)),
        None => Err(ParseError::missing("frame", "frame <selector|main>")),
    }
}
