//! `scrollintoview <selector>` (alias `scrollinto`): scrolls an element into view.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "scrollintoview";

const USAGE: &str = "scrollintoview <selector>";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION, "scrollinto"],
    help: Some(Help {
        about: "Scroll an element into view",
        usage: &[USAGE],
        examples: &["scrollintoview @e12", "scrollintoview '#footer'"],

        description: "Scrolls until the element is visible in the viewport. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    18,
    "agent_browser_scroll_into_view",
    "all",
    &["scrollintoview"],
    "selector:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let selector = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    Ok(encode(
        ACTION,
        &SelectorRequest {
            selector: Some(selector.to_string()),
        },
    ))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .scroll_into_view(selector)
            .await?,
    )
}
