//! `swipe <up|down|left|right> [distance]`: a one-finger touch swipe from the middle of the
//! viewport (300 px by default); the content follows the finger, so `swipe up` scrolls down.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "swipe";

const USAGE: &str = "swipe <up|down|left|right> [distance]";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Swipe (touch)",
        usage: &[USAGE],
        examples: &["swipe up", "swipe down 500", "swipe left"],
        description: "\
A one-finger touch swipe from the middle of the viewport, 300 pixels unless a distance is
given. The content follows the finger, so `swipe up` shows what is further down.",
        sections: &[(
            "Arguments",
            &[
                ("direction", "up, down, left or right"),
                ("distance", "Pixels (default 300)"),
            ],
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
    117,
    "agent_browser_swipe",
    "mobile",
    &["swipe"],
    "direction:e(up|down|left|right)! amount:i",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let direction = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    if !["up", "down", "left", "right"].contains(direction) {
        return Err(ParseError::invalid(
            format!("Invalid swipe direction: {direction}"),
            USAGE,
        ));
    }
    let distance = rest.get(1).and_then(|d| d.parse::<u32>().ok());
    Ok(encode(
        ACTION,
        &SwipeRequest {
            direction: Some(direction.to_string()),
            distance: distance.map(f64::from),
        },
    ))
}

/// `{"direction", "distance"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwipeRequest {
    /// `up`, `down`, `left` or `right`.
    pub direction: Option<String>,
    /// Pixels (the CLI sends whole ones, written as upstream writes them: `300`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::commands::support::whole_number"
    )]
    pub distance: Option<f64>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SwipeRequest = ctx.params()?;
    let direction = required(&request.direction, "direction")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .swipe(direction, request.distance)
            .await?,
    )
}
