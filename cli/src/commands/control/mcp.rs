//! `mcp [--tools <profiles>]` / `mcp call <tool> [<json>|-]`: the MCP stdio server
//! ([`crate::mcp`]), whose tools are this registry's commands.

use crate::commands::invocation::LocalCommand;
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
        description: "\
Serves the commands as tools of a Model Context Protocol server over stdio (newline-delimited
JSON-RPC). stdout carries only protocol messages; diagnostics go to stderr. `mcp call` runs a
single tool and prints its result as JSON; its arguments are a JSON object, or - for stdin.",
        sections: &[
            (
                "Options",
                &[(
                    "--tools <profiles>",
                    "Comma-separated tool profiles (default core)",
                )],
            ),
            (
                "Tool profiles",
                &[
                    (
                        "core",
                        "Navigation, snapshot, interaction, waits, reads, screenshots, eval",
                    ),
                    ("tabs", "History, tabs, windows, frames, dialogs"),
                    (
                        "network",
                        "Routes, requests, HAR, headers, credentials, offline",
                    ),
                    ("state", "Cookies, storage, auth, saved state, sessions"),
                    (
                        "debug",
                        "\
Console, errors, trace, profiler, record, audits, clipboard, diff,
batch, confirm/deny, stream, dashboard",
                    ),
                    (
                        "react",
                        "React tree/inspect/renders/suspense, vitals, pushstate, init scripts",
                    ),
                    (
                        "mobile",
                        "Viewport, device, geolocation, media, touch, swipe, mouse, keyboard",
                    ),
                    ("all", "Every tool"),
                ],
            ),
        ],
        exit_codes: &[
            ("0", "mcp call: the tool succeeded"),
            ("1", "mcp call: the tool reported an error"),
            ("2", "mcp call: unknown tool or invalid arguments"),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Local(|words| LocalCommand::Mcp(words.to_vec())),
    actions: &[],
    mcp: &[],
};
