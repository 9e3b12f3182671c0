//! `dblclick <selector>`: double-clicks an element (then waits for a navigation it started).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "dblclick";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Double-click an element",
        usage: &["dblclick <selector>"],
        examples: &["dblclick '#row-3'", "dblclick @e5"],
        description: "\
Double-clicks the element with real mouse events, e.g. to select a word or open an inline
editor. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.
Fails when the element is hidden, disabled or outside the viewport.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // It may start a navigation and wait for it (see `Route::follows_navigation`).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx))).following_navigation()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    37,
    "agent_browser_dblclick",
    "all",
    &["dblclick"],
    "selector:s!",
)];

/// `{"selector", "human"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DblclickRequest {
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
        .ok_or_else(|| ParseError::missing(input.word, "dblclick <selector>"))?;
    let request = DblclickRequest {
        selector: Some(selector.to_string()),
        human: input.flags.input_mode.as_deref() == Some("human"),
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DblclickRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    if request.human {
        data(
            session
                .page(ctx.timeout())
                .await?
                .dblclick_human(selector)
                .await?,
        )
    } else {
        data(
            session
                .page(ctx.timeout())
                .await?
                .dblclick(selector)
                .await?,
        )
    }
}
