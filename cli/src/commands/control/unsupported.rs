//! Upstream commands abx does not provide (installers, diagnostics, profiles, skills, plugins,
//! MCP, chat, WebMCP): each exits 1 with a clear message.

use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &[
        "install",
        "upgrade",
        "doctor",
        "dashboard",
        "skills",
        "plugin",
        "plugins",
        "chat",
        "webmcp",
    ],
    help: None,
    grammar: Grammar::Unsupported,
    actions: &[],
};
