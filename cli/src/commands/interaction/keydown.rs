//! `keydown <key>`: holds a key down (a held modifier applies to later keys and clicks).

use super::press::{KeyRequest, key_grammar};
use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "keydown";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Hold a key down",
        usage: &["keydown <key>"],
        examples: &["keydown Shift", "keydown Control"],

        description: "\
Presses a key without releasing it, e.g. to hold a modifier during clicks. Release it with
`keyup`. Key names are those of `press`.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| key_grammar(input, ACTION, ACTION, "keydown <key>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    41,
    "agent_browser_keydown",
    "mobile",
    &["keydown"],
    "key:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: KeyRequest = ctx.params()?;
    let key = required(&request.key, "key")?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.key_down(key).await?)
}
