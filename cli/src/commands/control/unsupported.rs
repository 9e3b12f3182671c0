//! Upstream commands abx does not provide (plugins, chat): each exits 1 with a clear
//! message.

use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &["plugin", "plugins", "chat"],
    help: None,
    grammar: Grammar::Unsupported,
    actions: &[],
};
