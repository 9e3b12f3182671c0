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
};

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
    let mut req = Req::new(ACTION).set("direction", *direction);
    if let Some(d) = rest.get(1).and_then(|d| d.parse::<u32>().ok()) {
        req.put("distance", d);
    }
    ok(req)
}

/// `{"direction", "distance"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwipeRequest {
    /// `up`, `down`, `left` or `right`.
    pub direction: Option<String>,
    /// Pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
