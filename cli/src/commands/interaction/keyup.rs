//! `keyup <key>`: releases a held key.

use super::press::{KeyRequest, key_grammar};
use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "keyup";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Release a key",
        usage: &["keyup <key>"],
        examples: &["keyup Shift", "keyup Control"],

        description: "Releases a key held with `keydown`.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|input| key_grammar(input, ACTION, ACTION, "keyup <key>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    42,
    "agent_browser_keyup",
    "mobile",
    &["keyup"],
    "key:s!",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: KeyRequest = ctx.params()?;
    let key = required(&request.key, "key")?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.key_up(key).await?)
}
