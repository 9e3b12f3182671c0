//! `close` (aliases `quit`, `exit`): closes the browser (owned: gracefully, so cookies persist;
//! attached: detaches) and ends the session daemon. Runs on the close lane: it cancels whatever
//! runs. `close --all` closes every live session of the socket dir (the CLI does that).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "close";

/// Upstream's internal shutdown (sent by a CLI that restarts a daemon of another version).
pub const SHUTDOWN: &str = "__agent_browser_internal_shutdown";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION, "quit", "exit"],
    help: Some(Help {
        about: "Close the browser (and the session daemon)",
        usage: &["close [--all]"],
        examples: &["close", "close --all"],
        description: "\
Closes the session's browser and ends its daemon; a browser attached over CDP is left
running and only detached.",
        sections: &[(
            "Options",
            &[("--all", "Close every session in the socket directory")],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|_| Ok(encode(ACTION, &NoParams {}))),
    actions: &[
        Action::close(ACTION, |ctx| Box::pin(run(ctx))),
        Action::close(SHUTDOWN, |ctx| Box::pin(run(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[McpTool::new(33, "agent_browser_close", "core", &["close"], "all:b@--all").in_core()];

/// Whether these words (global flags removed) ask to close every session (`close --all`).
pub fn is_close_all(words: &[String]) -> bool {
    words
        .first()
        .is_some_and(|w| COMMAND.names.contains(&w.as_str()))
        && words.iter().any(|a| a == "--all")
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    Ok(ctx.close().await)
}
