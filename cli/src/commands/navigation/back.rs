//! `back`: go back in history and wait for the page.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "back";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Go back in history",
        usage: &["back"],
        examples: &["back"],
        description: "\
Goes one entry back in the tab's history, as the browser's back button does, and waits for
the page.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|_| Ok(encode(ACTION, &NoParams {}))),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))
        .moving_tab()
        .navigating()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    34,
    "agent_browser_back",
    "tabs",
    &["back"],
    "",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"url": session.history(-1, ctx.timeout()).await?}))
}
