//! `mouse move <x> <y> | down [button] | up [button] | wheel [dy] [dx]`: low-level mouse input
//! at page coordinates.

use serde_json::Number;

use crate::commands::prelude::*;

/// `mouse move`.
pub const MOVE: &str = "mousemove";
/// `mouse down`.
pub const DOWN: &str = "mousedown";
/// `mouse up`.
pub const UP: &str = "mouseup";
/// `mouse wheel`.
pub const WHEEL: &str = "wheel";

/// `{"x", "y"}` (integers from the CLI; any number is read).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveRequest {
    /// Page x.
    pub x: Option<Number>,
    /// Page y.
    pub y: Option<Number>,
}

/// `{"button"}`: `left` (default), `right` or `middle`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ButtonRequest {
    /// The button.
    pub button: Option<String>,
}

/// `{"deltaX", "deltaY"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WheelRequest {
    /// Horizontal delta (default 0).
    pub delta_x: Option<Number>,
    /// Vertical delta (default 100).
    pub delta_y: Option<Number>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["mouse"],
    help: Some(Help {
        about: "Low-level mouse input",
        usage: &["mouse <move|down|up|wheel> [args...]"],
        examples: &["mouse move 120 300", "mouse wheel 400"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(MOVE, |ctx| Box::pin(run_move(ctx))),
        Action::queued(DOWN, |ctx| Box::pin(run_down(ctx))),
        Action::queued(UP, |ctx| Box::pin(run_up(ctx))),
        Action::queued(WHEEL, |ctx| Box::pin(run_wheel(ctx))),
    ],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let int = |idx: usize| rest.get(idx).and_then(|s| s.parse::<i64>().ok());
    let button = || ButtonRequest {
        button: Some(rest.get(1).copied().unwrap_or("left").to_string()),
    };
    match rest.first().copied() {
        Some("move") => {
            const USAGE: &str = "mouse move <x> <y>";
            let x = int(1).ok_or_else(|| ParseError::missing("mouse move", USAGE))?;
            let y = int(2).ok_or_else(|| ParseError::missing("mouse move", USAGE))?;
            let request = MoveRequest {
                x: Some(Number::from(x)),
                y: Some(Number::from(y)),
            };
            Ok(encode(MOVE, &request))
        }
        Some("down") => Ok(encode(DOWN, &button())),
        Some("up") => Ok(encode(UP, &button())),
        Some("wheel") => {
            let request = WheelRequest {
                delta_x: Some(Number::from(int(2).unwrap_or(0))),
                delta_y: Some(Number::from(int(1).unwrap_or(100))),
            };
            Ok(encode(WHEEL, &request))
        }
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["move", "down", "up", "wheel"],
        )),
        None => Err(ParseError::missing(
            "mouse",
            "mouse <move|down|up|wheel> [args...]",
        )),
    }
}

fn number(n: &Option<Number>, default: f64) -> f64 {
    n.as_ref().and_then(Number::as_f64).unwrap_or(default)
}

async fn run_move(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: MoveRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .mouse_move(
                number(&request.x, 0.0),
                number(&request.y, 0.0),
                ctx.timeout(),
            )
            .await?,
    )
}

async fn run_down(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ButtonRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .mouse_down(request.button.as_deref(), ctx.timeout())
            .await?,
    )
}

async fn run_up(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ButtonRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .mouse_up(request.button.as_deref(), ctx.timeout())
            .await?,
    )
}

async fn run_wheel(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WheelRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .mouse_wheel(
                number(&request.delta_y, 100.0),
                number(&request.delta_x, 0.0),
                ctx.timeout(),
            )
            .await?,
    )
}
