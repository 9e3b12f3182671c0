//! `deny <confirmation-id>`: denies a pending action (`--confirm-actions`). Not implemented yet: the daemon answers
//! `Not yet implemented: deny`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "deny";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Deny a pending action",
        usage: &["deny <confirmation-id>"],
        examples: &["deny c1"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let id = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "agent-browser deny <confirmation-id>"))?;
    ok(Req::new(ACTION).set("confirmationId", *id))
}
