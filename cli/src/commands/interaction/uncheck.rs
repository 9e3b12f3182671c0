//! `uncheck <selector>`: unchecks a checkbox.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "uncheck";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Uncheck a checkbox",
        usage: &["uncheck <selector>"],
        examples: &["uncheck '#newsletter'", "uncheck @e8"],

        description: "Unchecks a checkbox; one already unchecked is left as it is. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "uncheck <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    15,
    "agent_browser_uncheck",
    "core",
    &["uncheck"],
    "selector:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.uncheck(selector).await?)
}
