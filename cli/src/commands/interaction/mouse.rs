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

/// `{"x", "y", "steps"?, "duration"?, "human"?, "seed"?}` (integers from the CLI; any number
/// is read).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MoveRequest {
    /// Page x.
    pub x: Option<Number>,
    /// Page y.
    pub y: Option<Number>,
    /// `--steps <n>`: movement events (1-240).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
    /// `--duration <ms>`: total time of the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<u64>,
    /// `--human` (or `--input-mode human`): a curved, eased path.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
    /// `--seed <n>`: the human path's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

const MOVE_USAGE: &str =
    "mouse move <x> <y> [--duration <ms>] [--steps <n>] [--human] [--seed <n>]";

/// The value after `flag`, parsed; a flag given without a number is an error.
fn flag_value<T: std::str::FromStr>(rest: &[&str], flag: &str) -> Result<Option<T>, ParseError> {
    let Some(at) = rest.iter().position(|a| *a == flag) else {
        return Ok(None);
    };
    rest.get(at + 1)
        .and_then(|v| v.parse::<T>().ok())
        .map(Some)
        .ok_or_else(|| ParseError::invalid(format!("{flag} needs a number"), MOVE_USAGE))
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
        usage: &["mouse <move|down|up|wheel> [args...]", MOVE_USAGE],
        examples: &[
            "mouse move 120 300",
            "mouse move 600 400 --duration 250 --steps 24",
            "mouse move 600 400 --human --seed 42",
            "mouse wheel 400",
        ],
        description: "\
Drives the mouse directly at viewport coordinates, for what element commands cannot express
(canvas drawing, custom drag handles).",
        sections: &[
            (
                "Subcommands",
                &[
                    ("move <x> <y>", "Move the pointer"),
                    (
                        "down [button]",
                        "Press a button (left, right, middle; default left)",
                    ),
                    ("up [button]", "Release a button"),
                    ("wheel [dy] [dx]", "Scroll by wheel deltas in pixels"),
                ],
            ),
            (
                "Move options",
                &[
                    ("--steps <n>", "Number of movement events, 1-240"),
                    ("--duration <ms>", "Total time of the move"),
                    (
                        "--human",
                        "Curved, eased path (also with --input-mode human)",
                    ),
                    (
                        "--seed <n>",
                        "Seed of the --human path, for a repeatable path",
                    ),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(MOVE, |ctx| Box::pin(run_move(ctx))),
        Action::queued(DOWN, |ctx| Box::pin(run_down(ctx))),
        Action::queued(UP, |ctx| Box::pin(run_up(ctx))),
        Action::queued(WHEEL, |ctx| Box::pin(run_wheel(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        55,
        "agent_browser_mouse_move",
        "mobile",
        &["mouse", "move"],
        "x:n! y:n! durationMs:i@--duration human:b@--human seed:i@--seed steps:i@--steps",
    ),
    McpTool::new(
        56,
        "agent_browser_mouse_down",
        "mobile",
        &["mouse", "down"],
        "button:e(left|right|middle)",
    ),
    McpTool::new(
        57,
        "agent_browser_mouse_up",
        "mobile",
        &["mouse", "up"],
        "button:e(left|right|middle)",
    ),
    McpTool::new(
        58,
        "agent_browser_mouse_wheel",
        "mobile",
        &["mouse", "wheel"],
        "dy:n! dx:n",
    ),
];

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
            let mode = input.flags.input_mode.as_deref();
            let steps = flag_value::<u32>(rest, "--steps")?;
            if let Some(n) = steps
                && !(1..=240).contains(&n)
            {
                return Err(ParseError::invalid(
                    format!("--steps must be between 1 and 240, got {n}"),
                    MOVE_USAGE,
                ));
            }
            let request = MoveRequest {
                x: Some(Number::from(x)),
                y: Some(Number::from(y)),
                // `--input-mode smooth`: ten even steps unless the command says otherwise.
                steps: steps.or_else(|| (mode == Some("smooth")).then_some(10)),
                duration: flag_value(rest, "--duration")?,
                human: rest.contains(&"--human") || mode == Some("human"),
                seed: flag_value(rest, "--seed")?,
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
    let motion = abx_engine::Motion {
        steps: request.steps,
        duration_ms: request.duration,
        human: request.human,
        seed: request.seed,
    };
    if motion.travels() {
        let x = number(&request.x, 0.0);
        let y = number(&request.y, 0.0);
        let steps = session
            .page(ctx.timeout())
            .await?
            .mouse_travel(x, y, &motion)
            .await?;
        return Ok(json!({"moved": true, "steps": steps}));
    }
    data(
        session
            .page(ctx.timeout())
            .await?
            .mouse_move(number(&request.x, 0.0), number(&request.y, 0.0))
            .await?,
    )
}

async fn run_down(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ButtonRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .mouse_down(request.button.as_deref())
            .await?,
    )
}

async fn run_up(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ButtonRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .mouse_up(request.button.as_deref())
            .await?,
    )
}

async fn run_wheel(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WheelRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .mouse_wheel(
                number(&request.delta_y, 100.0),
                number(&request.delta_x, 0.0),
            )
            .await?,
    )
}
