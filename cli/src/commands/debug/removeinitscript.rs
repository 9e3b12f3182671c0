//! `removeinitscript <identifier>`: removes a registered page init script. Not implemented
//! yet: the daemon answers `Not yet implemented: removeinitscript`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "removeinitscript";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Remove a registered init script",
        usage: &["removeinitscript <identifier>"],
        examples: &["removeinitscript 1"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let identifier = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "removeinitscript <identifier>"))?;
    ok(Req::new(ACTION).set("identifier", *identifier))
}
