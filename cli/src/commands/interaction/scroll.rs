//! `scroll [direction] [amount] [--selector <sel>]`: scrolls the page or an element (default
//! down 300).

use serde_json::Number;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "scroll";

/// `{"direction", "amount", "selector"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScrollRequest {
    /// `up`, `down` (default), `left` or `right`.
    pub direction: Option<String>,
    /// Pixels (the CLI sends an integer; any number is read).
    pub amount: Option<Number>,
    /// Scroll this element instead of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Scroll the page or an element (default down 300)",
        usage: &["scroll [direction] [amount] [--selector <sel>]"],
        examples: &[
            "scroll",
            "scroll down 600",
            "scroll left 100",
            "scroll up --selector '#feed'",
        ],

        description: "Scrolls the page, or a scrollable element, by a number of pixels in one direction.",
        sections: &[
            (
                "Arguments",
                &[
                    ("direction", "up, down, left or right (default down)"),
                    ("amount", "Pixels (default 300)"),
                ],
            ),
            (
                "Options",
                &[(
                    "-s, --selector <sel>",
                    "Scroll this element instead of the page",
                )],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    17,
    "agent_browser_scroll",
    "core",
    &["scroll"],
    "direction:e(up|down|left|right) amount:i selector:s@--selector",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let mut request = ScrollRequest::default();
    let mut positional = 0;
    const FLAGS: &[Flag] = &[Flag::value(
        &["-s", "--selector"],
        "scroll --selector",
        "scroll [direction] [amount] [--selector <sel>]",
    )];
    for word in scan(rest, FLAGS) {
        match word? {
            Word::Value(_, sel) => request.selector = Some(sel.to_string()),
            // Other flags are ignored, as upstream does.
            Word::Switch(_) => {}
            Word::Other(arg) if arg.starts_with('-') => {}
            Word::Other(arg) => {
                match positional {
                    0 => request.direction = Some(arg.to_string()),
                    1 => {
                        if let Ok(n) = arg.parse::<i64>() {
                            request.amount = Some(Number::from(n));
                        }
                    }
                    _ => {}
                }
                positional += 1;
            }
        }
    }
    request.direction.get_or_insert_with(|| "down".to_string());
    request.amount.get_or_insert_with(|| Number::from(300));
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ScrollRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .scroll(
                request.direction.as_deref().unwrap_or("down"),
                request.amount.as_ref().and_then(Number::as_f64),
                request.selector.as_deref(),
            )
            .await?,
    )
}
