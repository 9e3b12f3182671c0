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
        examples: &["click @e3", "click 'a[href=\"/docs\"]' --new-tab"],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    // It may start a navigation and wait for it (see `Route::follows_navigation`).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx))).following_navigation()],
};

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
