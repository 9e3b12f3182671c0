//! `select <selector> <value...>`: selects options of a `<select>` by value or label.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "select";

const USAGE: &str = "select <selector> <value...>";

/// One value (sent as a string) or several (an array), like upstream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Values {
    /// One value.
    One(String),
    /// Several values.
    Many(Vec<String>),
}

/// `{"selector", "values"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectRequest {
    /// The `<select>`.
    pub selector: Option<String>,
    /// The values or labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Values>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Select option(s) by value or label",
        usage: &[USAGE],
        examples: &["select '#country' Norway", "select '#tags' red green"],
        description: "\
Chooses options of a <select> element. Each value matches an option's value or its visible
label (whitespace such as non-breaking spaces is normalised); several values select several
options of a multiple select. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    16,
    "agent_browser_select",
    "core",
    &["select"],
    "selector:s! values:a!",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let values = match &rest[1..] {
        [] => return Err(ParseError::missing(ACTION, USAGE)),
        [one] => Values::One(one.to_string()),
        many => Values::Many(many.iter().map(|v| v.to_string()).collect()),
    };
    let request = SelectRequest {
        selector: Some(selector.to_string()),
        values: Some(values),
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let values = match request.values {
        Some(Values::One(one)) => vec![one],
        Some(Values::Many(many)) => many,
        None => Vec::new(),
    };
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .select(selector, &values)
            .await?,
    )
}
