//! Upstream commands abx does not provide (plugins, chat): each exits 1 with a clear
//! message.

use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &["plugin", "plugins", "chat"],
    help: None,
    grammar: Grammar::Unsupported,
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        146,
        "agent_browser_plugin_add",
        "debug",
        &["plugin", "add"],
        "reference:s! capabilities:a@L--capability name:s@--name noManifest:b@--no-manifest project:b@--project",
    ),
    McpTool::new(
        147,
        "agent_browser_plugin_list",
        "debug",
        &["plugin", "list"],
        "",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        148,
        "agent_browser_plugin_show",
        "debug",
        &["plugin", "show"],
        "name:s!",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        149,
        "agent_browser_plugin_run",
        "debug",
        &["plugin", "run"],
        "name:s! requestType:s! payload:o@J",
    ),
    McpTool::new(
        155,
        "agent_browser_chat",
        "debug",
        &["chat"],
        "message:s! model:s@G--model quiet:b@G--quiet verbose:b@G--verbose",
    ),
];
