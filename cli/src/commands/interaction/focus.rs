//! `focus <selector>`: focuses an element.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "focus";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Focus an element",
        usage: &["focus <selector>"],
        examples: &["focus '#email'", "focus @e2"],

        description: "Gives the element keyboard focus without clicking it. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "focus <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    13,
    "agent_browser_focus",
    "all",
    &["focus"],
    "selector:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.focus(selector).await?)
}
