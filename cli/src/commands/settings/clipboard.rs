//! `clipboard read|write <text>|copy|paste`: the page's clipboard. Reading and writing grant
//! the clipboard to the session's own origin only, in its own browser context (engine).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "clipboard";

/// `{"operation": "read|write|copy|paste", "text"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClipboardRequest {
    /// What to do (`read` when absent, as upstream).
    pub operation: Option<String>,
    /// `write`'s text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Read or write the clipboard, copy the selection or paste",
        usage: &["clipboard <read|write|copy|paste> [text]"],
        examples: &[
            "clipboard write 'hello'",
            "clipboard read",
            "clipboard copy",
            "clipboard paste",
        ],
        description: "\
Reads or writes the page's clipboard, or copies and pastes with the keyboard shortcuts.
Clipboard access is granted to the session's own origin only.",
        sections: &[(
            "Subcommands",
            &[
                ("read", "Print the clipboard text"),
                ("write <text>", "Put text on the clipboard"),
                ("copy", "Copy the selection (Control+C)"),
                ("paste", "Paste at the focus (Control+V)"),
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
pub const MCP: &[McpTool] = &[
    McpTool::new(
        100,
        "agent_browser_clipboard_read",
        "debug",
        &["clipboard", "read"],
        "",
    )
    .read_only(),
    McpTool::new(
        101,
        "agent_browser_clipboard_write",
        "debug",
        &["clipboard", "write"],
        "text:s!",
    ),
    McpTool::new(
        102,
        "agent_browser_clipboard_copy",
        "debug",
        &["clipboard", "copy"],
        "",
    ),
    McpTool::new(
        103,
        "agent_browser_clipboard_paste",
        "debug",
        &["clipboard", "paste"],
        "",
    ),
];

fn operation(operation: &str, text: Option<String>) -> Value {
    encode(
        ACTION,
        &ClipboardRequest {
            operation: Some(operation.to_string()),
            text,
        },
    )
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("read") | None => Ok(operation("read", None)),
        Some("write") => {
            if rest.len() < 2 {
                return Err(ParseError::missing(
                    "clipboard write",
                    "clipboard write <text>",
                ));
            }
            Ok(operation("write", Some(rest[1..].join(" "))))
        }
        Some(op @ ("copy" | "paste")) => Ok(operation(op, None)),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["read", "write", "copy", "paste"],
        )),
    }
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ClipboardRequest = ctx.params()?;
    let session = ctx.session().await?;
    let timeout = ctx.timeout();
    match request.operation.as_deref().unwrap_or("read") {
        "read" => data(session.page(timeout).await?.clipboard_read().await?),
        "write" => {
            let text = required(&request.text, "text")?;
            data(session.page(timeout).await?.clipboard_write(text).await?)
        }
        "copy" => data(session.page(timeout).await?.clipboard_copy().await?),
        "paste" => data(session.page(timeout).await?.clipboard_paste().await?),
        other => Err(Failure::message(format!(
            "Unknown clipboard operation: {other} (read, write, copy or paste)"
        ))),
    }
}
