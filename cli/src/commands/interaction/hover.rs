//! `hover <selector>`: moves the mouse over an element's centre.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "hover";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Hover an element",
        usage: &["hover <selector>"],
        examples: &["hover @e4", "hover '#menu-trigger'"],

        description: "Moves the mouse over the element (menus, tooltips and :hover styles react). <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    12,
    "agent_browser_hover",
    "all",
    &["hover"],
    "selector:s!",
)];

/// `{"selector", "human"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HoverRequest {
    /// The element.
    pub selector: Option<String>,
    /// `--input-mode human`: the pointer travels to the element along a curved path first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let selector = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(input.word, "hover <selector>"))?;
    let request = HoverRequest {
        selector: Some(selector.to_string()),
        human: input.flags.input_mode.as_deref() == Some("human"),
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: HoverRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    if request.human {
        data(
            session
                .page(ctx.timeout())
                .await?
                .hover_human(selector)
                .await?,
        )
    } else {
        data(session.page(ctx.timeout()).await?.hover(selector).await?)
    }
}
