//! `upgrade`: says how this binary is upgraded. abx never updates itself or touches the network
//! (upstream downloads its latest release): it prints where the running binary is and how to
//! replace it, and exits 0.

use serde_json::json;

use crate::commands::invocation::{Invocation, LocalCommand, LocalRun};
use crate::commands::prelude::{Command, Grammar, Help, McpTool};
use crate::host::Host;
use crate::output::rendered::Rendered;

/// The command.
pub const COMMAND: Command = Command {
    names: &["upgrade"],
    help: Some(Help {
        about: "How to upgrade this binary (abx never updates itself)",
        usage: &["upgrade"],
        examples: &["upgrade"],
        description: "\
Prints where the running binary is and how to replace it. abx never updates itself and makes
no network request.",
        ..Help::BLANK
    }),
    grammar: Grammar::Local(parse),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[McpTool::new(154, "agent_browser_upgrade", "debug", &["upgrade"], "").closed_world()];

fn parse(clean: &[String]) -> LocalCommand {
    LocalRun::command(clean, run)
}

fn run(args: &[String], inv: &Invocation, _host: &dyn Host) -> Rendered {
    if let Some(extra) = args.first() {
        return crate::output::errors::render_error(
            &format!("Unknown upgrade option: {extra}. Usage: agent-browser upgrade"),
            &inv.output,
        );
    }
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "agent-browser".into());
    let version = env!("CARGO_PKG_VERSION");
    let mut rendered = Rendered::default();
    if inv.output.json {
        let line = json!({
            "success": true,
            "data": {
                "upgraded": false,
                "version": crate::upstream::UPSTREAM_VERSION,
                "abxVersion": version,
                "executable": exe,
                "how": "build a newer abx (cargo build --release -p agent-browser) and replace this file with target/release/agent-browser",
            },
        });
        rendered.stdout = format!("{line}\n");
        return rendered;
    }
    rendered.stdout = format!(
        "agent-browser {} (abx {version}) at {exe}\n\
         abx does not update itself and never downloads anything. To upgrade, build a newer abx\n\
         from its repository and replace this file:\n\
         \x20 cargo build --release -p agent-browser\n\
         \x20 install -m 755 target/release/agent-browser {exe}\n\
         Chrome comes from the system's packages (apt-get install --only-upgrade chromium chromium-headless-shell).\n",
        crate::upstream::UPSTREAM_VERSION
    );
    rendered
}
