//! `clipboard read|write <text>|copy|paste`. Not implemented yet: the daemon answers
//! `Not yet implemented: clipboard`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "clipboard";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Clipboard",
        usage: &["clipboard <read|write|copy|paste> [text]"],
        examples: &["clipboard write 'hello'", "clipboard read"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("read") | None => ok(Req::new(ACTION).set("operation", "read")),
        Some("write") => {
            if rest.len() < 2 {
                return Err(ParseError::missing(
                    "clipboard write",
                    "clipboard write <text>",
                ));
            }
            ok(Req::new(ACTION)
                .set("operation", "write")
                .set("text", rest[1..].join(" ")))
        }
        Some(op @ ("copy" | "paste")) => ok(Req::new(ACTION).set("operation", op)),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["read", "write", "copy", "paste"],
        )),
    }
}
