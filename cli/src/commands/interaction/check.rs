//! `check <selector>`: checks a checkbox or radio button.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "check";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Check a checkbox",
        usage: &["check <selector>"],
        examples: &["check '#terms'", "check @e7"],

        description: "Checks a checkbox or radio button; one already checked is left as it is. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "check <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[McpTool::new(14, "agent_browser_check", "core", &["check"], "selector:s!").in_core()];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.check(selector).await?)
}
