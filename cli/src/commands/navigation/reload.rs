//! `reload`: reloads the page and waits for it.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "reload";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Reload the page",
        usage: &["reload"],
        examples: &["reload"],
        description: "Reloads the current page and waits for its load event.",
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
    36,
    "agent_browser_reload",
    "tabs",
    &["reload"],
    "",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"url": session.reload(ctx.timeout()).await?}))
}
