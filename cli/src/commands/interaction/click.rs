//! `click <selector> [--new-tab] [--human]`: clicks an element with real mouse events and waits
//! for a navigation the click started (engine behaviour).

use abx_engine::ClickOptions;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "click";

const USAGE: &str = "click <selector> [--new-tab] [--human]";

/// `{"selector", "newTab"?, "human"?, "button"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClickRequest {
    /// The element.
    pub selector: Option<String>,
    /// `--new-tab`: open the link's target in a new tab instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new_tab: bool,
    /// `--human` (or `--input-mode human`): the pointer travels along a curved path first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
    /// `left` (default), `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Click an element (CSS, xpath=…, or @ref from a snapshot)",
        usage: &[USAGE],
        examples: &["click @e3", "click '#submit'", "click 'xpath=//button[@type=\"submit\"]'", "click 'a[href=\"/docs\"]' --new-tab", "click @e3 --human"],

        description: "\
Moves the mouse to the element's centre and clicks it with real mouse events, then waits
for a navigation the click started. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.
The click fails, rather than reporting success, when the element is hidden, disabled, outside
the viewport or covered by another element (the error names what covers it).",
        sections: &[("Options", &[("--new-tab", "\
Open the link's href in a new tab instead of clicking
(the element must have an href; the checks above do not apply)"), ("--human", "\
Reach the element along an eased, reproducible curve from the
last pointer position (also the default with --input-mode human)")])],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // It may start a navigation and wait for it (see `Route::follows_navigation`).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx))).following_navigation()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    8,
    "agent_browser_click",
    "core",
    &["click"],
    "selector:s! human:b@--human newTab:b@--new-tab",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .iter()
        .find(|a| **a != "--new-tab" && **a != "--human")
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let request = ClickRequest {
        selector: Some(selector.to_string()),
        new_tab: rest.contains(&"--new-tab"),
        human: rest.contains(&"--human") || input.flags.input_mode.as_deref() == Some("human"),
        button: None,
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ClickRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    let options = ClickOptions {
        new_tab: request.new_tab,
        button: request.button.clone(),
        human: request.human,
    };
    data(
        session
            .page(ctx.timeout())
            .await?
            .click(selector, &options)
            .await?,
    )
}
