//! `press <key>` (alias `key`): a key or chord (`Enter`, `Control+a`) on the focused element,
//! then waits for a navigation it started.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "press";

/// `{"key"}`: the request of `press`, `keydown` and `keyup`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyRequest {
    /// The key or chord.
    pub key: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION, "key"],
    help: Some(Help {
        about: "Press a key (Enter, Tab, Control+a, …)",
        usage: &["press <key>"],
        examples: &[
            "press Enter",
            "press Tab",
            "press Control+a",
            "press Control+Shift+s",
            "press Escape",
        ],

        description: "Presses and releases a key, or a combination joined with +, at the element that has focus.",
        sections: &[(
            "Keys",
            &[
                (
                    "Named",
                    "\
Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp, ArrowDown,
ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, F1-F12",
                ),
                (
                    "Modifiers",
                    "Control, Alt, Shift, Meta (e.g. Control+Shift+s)",
                ),
                ("Characters", "A single character such as a or 7"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| key_grammar(input, ACTION, ACTION, "press <key>")),
    // It may start a navigation and wait for it (see `Route::follows_navigation`).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx))).following_navigation()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[McpTool::new(11, "agent_browser_press", "core", &["press"], "key:s!").in_core()];

/// `<command> <key>`.
pub(crate) fn key_grammar(
    input: &Input<'_>,
    action: &str,
    context: &str,
    usage: &'static str,
) -> Result<Value, ParseError> {
    let key = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(context, usage))?;
    Ok(encode(
        action,
        &KeyRequest {
            key: Some(key.to_string()),
        },
    ))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: KeyRequest = ctx.params()?;
    let key = required(&request.key, "key")?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.press(key).await?)
}
