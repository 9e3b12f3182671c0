//! `pushstate <url>`: a client-side navigation through `history.pushState`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "pushstate";

/// `{"url"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PushStateRequest {
    /// The URL to push (relative URLs resolve against the page).
    pub url: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Client-side navigation via history.pushState",
        usage: &["pushstate <url>"],
        examples: &[
            "pushstate /settings",
            "pushstate 'https://app.example.com/inbox?tab=2'",
        ],

        description: "\
Changes the URL without a page load, the way a single-page app routes: history.pushState
followed by the popstate event the app's router listens to. A path is resolved against the
current page.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    130,
    "agent_browser_pushstate",
    "react",
    &["pushstate"],
    "url:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let url = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "pushstate <url>"))?;
    Ok(encode(
        ACTION,
        &PushStateRequest {
            url: Some(url.to_string()),
        },
    ))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: PushStateRequest = ctx.params()?;
    let url = required(&request.url, "url")?;
    let session = ctx.session().await?;
    let script = format!("history.pushState(null, '', {}); location.href", json!(url));
    let value = session.page(ctx.timeout()).await?.evaluate(&script).await?;
    Ok(json!({"url": value.value}))
}
