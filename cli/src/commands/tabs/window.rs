//! `window new`: opens a new browser window; its tab becomes the active tab.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "window_new";

/// The command.
pub const COMMAND: Command = Command {
    names: &["window"],
    help: Some(Help {
        about: "Open a window",
        usage: &["window <new>"],
        examples: &["window new"],
        description: "Opens a new browser window; its tab becomes the active tab.",
        sections: &[("Subcommands", &[("new", "Open a window")])],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))
        .completing()
        .moving_tab()
        .rendered(Render {
            opened: "Window opened",
            example: r#"{"tabId":"t2","label":"docs","total":3}"#,
            ..Render::DEFAULT
        })],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    83,
    "agent_browser_window_new",
    "tabs",
    &["window", "new"],
    "",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    match input.rest.first().copied() {
        Some("new") => Ok(encode(ACTION, &NoParams {})),
        Some(sub) => Err(ParseError::unknown_sub(sub, &["new"])),
        None => Err(ParseError::missing("window", "window <new>")),
    }
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    let tab = session.window_new().await?;
    let total = session.tabs().len();
    // Upstream's keys: the text reads `✓ Window opened [t2] (2 total)`.
    Ok(json!({"tabId": tab.tab_id, "total": total}))
}
