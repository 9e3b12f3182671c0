//! `confirm <confirmation-id>`: approves a pending action (`--confirm-actions`). Not implemented yet: the daemon answers
//! `Not yet implemented: confirm`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "confirm";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Approve a pending action",
        usage: &["confirm <confirmation-id>"],
        examples: &["confirm c1"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let id = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "agent-browser confirm <confirmation-id>"))?;
    ok(Req::new(ACTION).set("confirmationId", *id))
}
