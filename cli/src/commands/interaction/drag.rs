//! `drag <source> <target>`: drags one element onto another with real mouse events.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "drag";

const USAGE: &str = "drag <source> <target>";

/// `{"source", "target"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DragRequest {
    /// The element to drag.
    pub source: Option<String>,
    /// Where to drop it.
    pub target: Option<String>,
    /// `--human` (or `--input-mode human`): the pointer travels along curved paths.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Drag one element onto another",
        usage: &[USAGE],
        examples: &["drag '#card-1' '#done-column'", "drag @e1 @e2 --human"],
        description: "\
Presses the mouse on the source element, moves to the target element and releases there.
Both are selectors or @refs.",
        sections: &[(
            "Options",
            &[("--human", "Move along an eased, reproducible curve")],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    38,
    "agent_browser_drag",
    "all",
    &["drag"],
    "source:s! target:s! human:b@--human",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let human =
        input.rest.contains(&"--human") || input.flags.input_mode.as_deref() == Some("human");
    let rest: Vec<&str> = input
        .rest
        .iter()
        .copied()
        .filter(|a| *a != "--human")
        .collect();
    let source = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let target = rest
        .get(1)
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let request = DragRequest {
        source: Some(source.to_string()),
        target: Some(target.to_string()),
        human,
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DragRequest = ctx.params()?;
    let source = required(&request.source, "source")?;
    let target = required(&request.target, "target")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .drag_with(source, target, request.human)
            .await?,
    )
}
