//! `highlight <selector>`: brings an element into view (abx draws no overlay).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "highlight";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Highlight an element",
        usage: &["highlight <selector>"],
        examples: &["highlight '#submit'"],
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "highlight <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
};

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    session
        .page(ctx.timeout())
        .await?
        .scroll_into_view(selector)
        .await?;
    Ok(json!({"highlighted": selector}))
}
