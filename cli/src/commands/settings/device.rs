//! `device list`: the iOS simulators and devices the `ios` provider could drive. Only macOS
//! with Xcode has them, so elsewhere the daemon answers as upstream does on Linux:
//! `device_list is only available on macOS with Xcode`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "device_list";

/// The command.
pub const COMMAND: Command = Command {
    names: &["device"],
    help: Some(Help {
        about: "List iOS simulators",
        usage: &["device list"],
        examples: &["device list"],
        description: "Lists the iOS simulators and devices the ios provider can drive. Only macOS with Xcode has\nthem; elsewhere the command fails saying so.",
        sections: &[("Subcommands", &[("list", "The available simulators")])],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // It never touches the page, so it need not wait behind a page command.
    actions: &[Action::fast(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    118,
    "agent_browser_device",
    "mobile",
    &["device"],
    "action:e(list)",
)
.read_only()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    match input.rest.first().copied() {
        Some("list") | None => Ok(encode(ACTION, &NoParams {})),
        Some(sub) => Err(ParseError::unknown_sub(sub, &["list"])),
    }
}

async fn run(_ctx: &Ctx<'_>) -> Result<Value, Failure> {
    // The list comes from Xcode's simulator tooling; abx drives Chrome and ships no iOS
    // provider, so there is nothing to list (the reply shape would be `{"devices": [...]}`,
    // which the generic `devices` text rule prints).
    Err(Failure::message(
        "device_list is only available on macOS with Xcode",
    ))
}
