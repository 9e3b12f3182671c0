//! Upstream commands abx does not provide (profiles, plugins, MCP, chat, WebMCP):
//! each exits 1 with a clear message.

use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &[
        "profiles",
        "plugin",
        "plugins",
        "mcp",
        "chat",
        "webmcp",
    ],
    help: None,
    grammar: Grammar::Unsupported,
    actions: &[],
};
