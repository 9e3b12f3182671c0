//! `removeinitscript <identifier>`: stops running an `addinitscript` script in new documents.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "removeinitscript";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Remove a registered init script",
        usage: &["removeinitscript <identifier>"],
        examples: &["removeinitscript 1"],
        description: "\
Stops running a script registered with `addinitscript` (or --init-script) in new documents of
every tab of the session. Pages already loaded keep what it did.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    131,
    "agent_browser_remove_init_script",
    "react",
    &["removeinitscript"],
    "id:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let identifier = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "removeinitscript <identifier>"))?;
    Ok(encode(
        ACTION,
        &RemoveInitScriptRequest {
            identifier: Some(identifier.to_string()),
        },
    ))
}

/// `{"identifier"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RemoveInitScriptRequest {
    /// What `addinitscript` printed.
    pub identifier: Option<String>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: RemoveInitScriptRequest = ctx.params()?;
    let identifier = required(&request.identifier, "identifier")?;
    let session = ctx.session().await?;
    session.remove_init_script(identifier).await?;
    Ok(json!({"removed": true, "identifier": identifier}))
}
