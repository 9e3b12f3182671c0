//! `forward`: go forward in history and wait for the page.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "forward";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Go forward in history",
        usage: &["forward"],
        examples: &["forward"],
        description: "Goes one entry forward in the tab's history and waits for the page.",
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
    35,
    "agent_browser_forward",
    "tabs",
    &["forward"],
    "",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"url": session.history(1, ctx.timeout()).await?}))
}
