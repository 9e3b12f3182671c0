//! `mcp [--tools <profiles>]` / `mcp call <tool> [<json>|-]`: the MCP stdio server
//! ([`crate::mcp`]), whose tools are this registry's commands.

use crate::commands::LocalCommand;
use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &["mcp"],
    help: Some(Help {
        about: "Start an MCP stdio server exposing the commands as tools",
        usage: &[
            "mcp [--tools <profiles>]   (core by default; tabs, network, state, debug, react, mobile, all)",
            "mcp call <tool> [<arguments-json> | -] [--tools <profiles>]",
        ],
        examples: &[
            "mcp",
            "mcp --tools core,tabs",
            "mcp call agent_browser_open '{\"url\":\"https://example.com\"}'",
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Local(|words| LocalCommand::Mcp(words.to_vec())),
    actions: &[],
};
