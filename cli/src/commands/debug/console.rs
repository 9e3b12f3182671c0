//! `console [--clear]`: Console messages of the active tab (`--clear` empties the log). Served at once.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "console";

/// `{"clear"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogRequest {
    /// Empty the log instead of reading it.
    #[serde(default)]
    pub clear: bool,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Console messages",
        usage: &["console [--clear]"],
        examples: &["console", "console --clear"],

        description: "\
Prints the console messages (log, info, warn, error, debug) the active tab has logged since
the session began or the last --clear. Answers at once, even while another command waits.",
        sections: &[("Options", &[("--clear", "Empty the log after printing it")])],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| {
        Ok(encode(
            ACTION,
            &LogRequest {
                clear: input.rest.contains(&"--clear"),
            },
        ))
    }),
    actions: &[
        Action::fast(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            cleared: "Console log cleared",
            example: r#"{"cleared":true}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    96,
    "agent_browser_console",
    "debug",
    &["console"],
    "clear:b@--clear",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: LogRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tab = session.active_tab().await?;
    // `--clear` empties the log and says so in one line, as upstream does.
    if request.clear {
        tab.console(true);
        return Ok(json!({"cleared": true}));
    }
    Ok(json!({"messages": tab.console(false)}))
}
