//! `deny <confirmation-id>`: drops the command parked for confirmation:
//! `{"denied":true,"action"}`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "deny";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Deny a pending action",
        usage: &["deny <confirmation-id>"],
        examples: &["deny c1", "deny c_8f3a1234"],

        description: "Drops an action held for confirmation (see `confirm`).",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::fast(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    133,
    "agent_browser_deny",
    "debug",
    &["deny"],
    "id:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let id = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "agent-browser deny <confirmation-id>"))?;
    Ok(encode(
        ACTION,
        &DenyRequest {
            confirmation_id: Some(id.to_string()),
        },
    ))
}

/// `{"confirmationId"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DenyRequest {
    /// The id the parked command was given.
    pub confirmation_id: Option<String>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DenyRequest = ctx.params()?;
    let id = required(&request.confirmation_id, "confirmationId")?;
    let action = ctx.deny_pending(id)?;
    Ok(json!({"denied": true, "action": action}))
}
