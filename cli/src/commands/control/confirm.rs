//! `confirm <confirmation-id>`: approves the command parked by `--confirm-actions` or the action
//! policy's `confirm` list and runs it: `{"confirmed":true,"action","result":<its reply>}`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "confirm";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Approve a pending action",
        usage: &["confirm <confirmation-id>"],
        examples: &["confirm c1", "confirm c_8f3a1234"],

        description: "\
With --confirm-actions, an action of a listed category is held and answered with a
confirmation id instead of running. `confirm <id>` runs it; `deny <id>` drops it. Held actions
are denied after 60 seconds.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // Fast: the parked command it runs may itself queue behind page commands.
    actions: &[
        Action::fast(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(confirmed),
            example: r#"{"confirmed":true,"action":"click","result":{"success":false,"error":"Element not found: #buy"}}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    132,
    "agent_browser_confirm",
    "debug",
    &["confirm"],
    "id:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let id = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "agent-browser confirm <confirmation-id>"))?;
    Ok(encode(
        ACTION,
        &ConfirmRequest {
            confirmation_id: Some(id.to_string()),
        },
    ))
}

/// `{"confirmationId"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    /// The id the parked command was given.
    pub confirmation_id: Option<String>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ConfirmRequest = ctx.params()?;
    let id = required(&request.confirmation_id, "confirmationId")?;
    let (action, reply) = ctx.run_confirmed(id).await?;
    Ok(json!({"confirmed": true, "action": action, "result": reply}))
}

/// `✓ Action confirmed` (upstream's line), then the confirmed command's error when it failed.
fn confirmed(t: &mut Text<'_>, data: &Value) -> bool {
    if b(data, "confirmed") != Some(true) {
        return false;
    }
    let ok = t.p.ok();
    t.out(&format!("{ok} Action confirmed"));
    if let Some(result) = data.get("result")
        && b(result, "success") == Some(false)
    {
        t.out(&format!(
            "  but it failed: {}",
            s(result, "error").unwrap_or("")
        ));
    }
    true
}
