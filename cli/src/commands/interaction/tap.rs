//! `tap <selector>`: a touch tap (touchstart, touchend) on an element's centre, once it can be
//! acted on.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "tap";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Tap an element (touch)",
        usage: &["tap <selector>"],
        examples: &["tap '#menu'", "tap @e1"],
        description: "Taps the element with a touch event (for touch-only handlers and mobile emulation). <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "tap <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    116,
    "agent_browser_tap",
    "mobile",
    &["tap"],
    "selector:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.tap(selector).await?)
}
