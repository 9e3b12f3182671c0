//! `fill <selector> <text>`: clears an input and fills it.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "fill";

/// `{"selector", "value"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FillRequest {
    /// The element.
    pub selector: Option<String>,
    /// The text (the words after the selector, joined by spaces).
    #[serde(default)]
    pub value: String,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Clear an input and fill it",
        usage: &["fill <selector> <text>"],
        examples: &["fill '#email' ada@example.com", "fill @e3 'Hello World'", "fill \"input[name='q']\" query"],

        description: "\
Empties an input, textarea or contenteditable and puts the text in, replacing what was there,
with the input and change events a user's typing fires. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.
Use `type` to add to the existing value, or `keyboard type` for editors without a selector.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    9,
    "agent_browser_fill",
    "core",
    &["fill"],
    "selector:s! text:s!",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "fill <selector> <text>"))?;
    let request = FillRequest {
        selector: Some(selector.to_string()),
        value: rest[1..].join(" "),
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: FillRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .fill(selector, &request.value)
            .await?,
    )
}
