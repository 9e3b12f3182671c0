//! `tap <selector>`: a touch tap on an element. Not implemented yet: the daemon answers
//! `Not yet implemented: tap`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "tap";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Tap an element (touch)",
        usage: &["tap <selector>"],
        examples: &["tap '#menu'"],
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "tap <selector>")),
    actions: &[Action::todo(ACTION)],
};
