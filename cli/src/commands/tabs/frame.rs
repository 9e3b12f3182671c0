//! `frame <selector|@ref|main>`: scopes the tab's later page commands (snapshot, eval, selectors
//! and actions, `get`, `is`, waits) to an iframe — same-origin or cross-site — or back to the main
//! frame. Each `frame` resolves in the frame selected so far, so nested frames are chosen one
//! level at a time. A new main-frame document (e.g. `open`) goes back to the main frame.

use crate::commands::prelude::*;

/// `frame <selector>`.
pub const FRAME: &str = "frame";
/// `frame main` (a wire action only, as upstream: there is no `mainframe` command).
pub const MAIN: &str = "mainframe";

/// `{"selector"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FrameRequest {
    /// The iframe: CSS, `xpath=…` or a snapshot ref.
    pub selector: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["frame"],
    help: Some(Help {
        about: "Scope commands to an iframe (or back to the main frame)",
        usage: &["frame <selector|@ref|main>"],
        examples: &["frame '#checkout-iframe'", "frame @e3", "frame main"],
        description: "\
Makes later commands (snapshot, click, eval, ...) act inside an iframe, until `frame main`
returns to the top document.",
        sections: &[(
            "Arguments",
            &[
                ("<selector|@ref>", "The iframe element"),
                ("main", "Back to the main frame"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(FRAME, |ctx| Box::pin(select(ctx))),
        Action::queued(MAIN, |ctx| Box::pin(main(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        84,
        "agent_browser_frame_switch",
        "tabs",
        &["frame"],
        "frame:s!",
    ),
    McpTool::new(
        85,
        "agent_browser_frame_main",
        "tabs",
        &["frame", "main"],
        "",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    match input.rest.first().copied() {
        Some("main") => Ok(encode(MAIN, &NoParams {})),
        Some(sel) => Ok(encode(
            FRAME,
            &FrameRequest {
                selector: Some(sel.to_string()),
            },
        )),
        // Upstream's usage line (a ref works too).
        None => Err(ParseError::missing("frame", "frame <selector|main>")),
    }
}

async fn select(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: FrameRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    let selected = session.select_frame(selector, ctx.timeout()).await?;
    Ok(json!(selected))
}

async fn main(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!(session.select_main_frame().await?))
}
