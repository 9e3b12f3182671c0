//! `highlight <selector>`: outlines an element in red for three seconds, as upstream does (the
//! page does not scroll).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "highlight";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Highlight an element",
        usage: &["highlight <selector>"],
        examples: &["highlight '#submit'", "highlight @e5"],
        description: "\
Draws an outline around the element on the page, to point it out in a screenshot or a headed
window. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "highlight <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    98,
    "agent_browser_highlight",
    "debug",
    &["highlight"],
    "selector:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .highlight(selector)
            .await?,
    )
}
