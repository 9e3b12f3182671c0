//! `keyboard type <text>` / `keyboard inserttext <text>`: types (key events) or inserts (no key
//! events) text at the focus, then waits for a navigation it started.

use std::time::Duration;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "keyboard";

/// `{"subaction": "type"|"insertText", "text", "delay"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyboardRequest {
    /// `type` or `insertText`.
    pub subaction: Option<String>,
    /// The text.
    #[serde(default)]
    pub text: String,
    /// Milliseconds between keys (`type` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<u64>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Type or insert text at the focus",
        usage: &["keyboard <type|inserttext> <text>"],
        examples: &[
            "keyboard type 'Hello, World!'",
            "keyboard type '# My Heading'",
            "keyboard inserttext 'pasted text'",
        ],

        description: "\
Sends text to whatever has focus, without a selector: the way to write into contenteditable
editors (Lexical, ProseMirror, CodeMirror, Monaco) after clicking into them.",
        sections: &[(
            "Subcommands",
            &[
                (
                    "type <text>",
                    "Type character by character with real key events",
                ),
                (
                    "inserttext <text>",
                    "Insert the text at once, without key events (like a paste)",
                ),
            ],
        )],
        notes: "Key combinations (Enter, Control+a) go through `press`, which also acts on the focus.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // It may start a navigation and wait for it (see `Route::follows_navigation`).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx))).following_navigation()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        43,
        "agent_browser_keyboard_type",
        "mobile",
        &["keyboard", "type"],
        "text:s!",
    ),
    McpTool::new(
        44,
        "agent_browser_keyboard_insert_text",
        "mobile",
        &["keyboard", "inserttext"],
        "text:s!",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let sub = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "keyboard <type|inserttext> <text>"))?;
    let text = rest[1..].join(" ");
    let subaction = match *sub {
        "type" => {
            if text.is_empty() {
                return Err(ParseError::missing("keyboard type", "keyboard type <text>"));
            }
            "type"
        }
        "inserttext" | "insertText" => {
            if text.is_empty() {
                return Err(ParseError::missing(
                    "keyboard inserttext",
                    "keyboard inserttext <text>",
                ));
            }
            "insertText"
        }
        other => return Err(ParseError::unknown_sub(other, &["type", "inserttext"])),
    };
    let request = KeyboardRequest {
        subaction: Some(subaction.into()),
        text,
        delay: None,
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: KeyboardRequest = ctx.params()?;
    let session = ctx.session().await?;
    match request.subaction.as_deref().unwrap_or("type") {
        "insertText" | "inserttext" => data(
            session
                .page(ctx.timeout())
                .await?
                .insert_text(&request.text)
                .await?,
        ),
        _ => data(
            session
                .page(ctx.timeout())
                .await?
                .keyboard_type(&request.text, request.delay.map(Duration::from_millis))
                .await?,
        ),
    }
}
