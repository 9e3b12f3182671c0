//! `type <selector> <text> [--clear] [--delay <ms>]`: types into an element with real key
//! events (and waits for a navigation the keys started).

use std::time::Duration;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "type";

const USAGE: &str = "type <selector> <text> [--clear] [--delay <ms>]";

/// `{"selector", "text", "clear"?, "delay"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeRequest {
    /// The element.
    pub selector: Option<String>,
    /// The text.
    #[serde(default)]
    pub text: String,
    /// `--clear`: empty the element first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
    /// `--delay <ms>` between keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<u64>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Type text into an element",
        usage: &[USAGE],
        examples: &[
            "type '#search' hello world",
            "type @e2 secret --clear --delay 50",
        ],
        description: "\
Focuses the element and types the text one key at a time with real key events, after what
the element already holds. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        sections: &[("Options", &[("--clear", "Empty the element first"), ("--delay <ms>", "Pause between keys")])],
        notes: "\
For rich-text editors (Lexical, ProseMirror, CodeMirror, Monaco) click into the editor and use
`keyboard type`, which types at the focus without a selector.",
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
    10,
    "agent_browser_type",
    "core",
    &["type"],
    "selector:s! text:s! clear:b@--clear delayMs:i@--delay",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let mut clear = false;
    let mut delay: Option<u64> = None;
    let mut words: Vec<&str> = Vec::new();
    const FLAGS: &[Flag] = &[
        Flag::switch(&["--clear"]),
        Flag::value(&["--delay"], "type --delay", USAGE),
    ];
    for word in scan(rest, FLAGS) {
        match word? {
            Word::Switch(_) => clear = true,
            Word::Value(_, raw) => {
                let ms = raw.parse::<u64>().map_err(|_| {
                    ParseError::invalid(
                        format!("--delay expects a number in ms, got '{raw}'"),
                        USAGE,
                    )
                })?;
                delay = Some(ms);
            }
            Word::Other(word) => words.push(word),
        }
    }
    let selector = words
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let request = TypeRequest {
        selector: Some(selector.to_string()),
        text: words[1..].join(" "),
        clear,
        delay,
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: TypeRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .type_text(
                selector,
                &request.text,
                request.clear,
                request.delay.map(Duration::from_millis),
            )
            .await?,
    )
}
