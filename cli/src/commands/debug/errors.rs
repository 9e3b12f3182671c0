//! `errors [--clear]`: Uncaught page errors of the active tab (`--clear` empties the list). Served at once.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "errors";

/// `{"clear"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogRequest {
    /// Empty the list instead of reading it.
    #[serde(default)]
    pub clear: bool,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Page errors",
        usage: &["errors [--clear]"],
        examples: &["errors", "errors --clear"],

        description: "Prints the uncaught exceptions and unhandled rejections of the active tab.",
        sections: &[(
            "Options",
            &[("--clear", "Empty the list after printing it")],
        )],
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
            cleared: "Page errors cleared",
            example: r#"{"cleared":true}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    97,
    "agent_browser_errors",
    "debug",
    &["errors"],
    "clear:b@--clear",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: LogRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tab = session.active_tab().await?;
    // `--clear` empties the list and says so in one line, as upstream does.
    if request.clear {
        tab.errors(true);
        return Ok(json!({"cleared": true}));
    }
    Ok(json!({"errors": tab.errors(false)}))
}
