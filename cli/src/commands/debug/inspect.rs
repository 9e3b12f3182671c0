//! `inspect`: the DevTools frontend URL of the session's own tab, served by the browser's own
//! DevTools port (`http://<host:port>/devtools/inspector.html?ws=<host:port>/devtools/page/<id>`).
//! Open it in any Chromium browser on this machine to inspect the page live. abx opens no window
//! itself (headless sessions have none); the reply says `opened` like upstream's so scripts
//! that read it keep working.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "inspect";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Open DevTools for the page",
        usage: &["inspect"],
        examples: &["inspect"],
        description: "\
Prints the DevTools URL of the session's tab, served by the browser's own debugging port.
Open it in a Chromium browser on this machine to inspect the page while commands keep working.
abx opens no window itself (headless sessions have none).",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(|_| Ok(encode(ACTION, &NoParams {}))),
    actions: &[
        Action::fast(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(opened),
            example: r#"{"opened":true,"url":"http://127.0.0.1:9222/"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    99,
    "agent_browser_inspect",
    "debug",
    &["inspect"],
    "",
)];

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    let target = session
        .active_target()
        .ok_or_else(|| Failure::message("No page is open"))?;
    let cdp = session.browser().cdp_url().to_string();
    let host = cdp
        .strip_prefix("ws://")
        .or_else(|| cdp.strip_prefix("wss://"))
        .and_then(|rest| rest.split('/').next())
        .filter(|h| !h.is_empty())
        .ok_or_else(|| {
            Failure::message(format!(
                "inspect needs a browser reachable on a DevTools port (this one is {cdp})"
            ))
        })?;
    let scheme = if cdp.starts_with("wss://") {
        "https"
    } else {
        "http"
    };
    let ws = if scheme == "https" { "wss" } else { "ws" };
    let url =
        format!("{scheme}://{host}/devtools/inspector.html?{ws}={host}/devtools/page/{target}");
    Ok(json!({"opened": true, "url": url, "targetId": target}))
}

/// `✓ Opened DevTools[: <url>]`, or why not (on stderr).
fn opened(t: &mut Text<'_>, data: &Value) -> bool {
    if b(data, "opened").unwrap_or(false) {
        match s(data, "url") {
            Some(url) => t.out(&format!("{} Opened DevTools: {url}", t.p.ok())),
            None => t.out(&format!("{} Opened DevTools", t.p.ok())),
        }
    } else if let Some(e) = s(data, "error") {
        t.err(&format!("Could not open DevTools: {e}"));
    }
    true
}
