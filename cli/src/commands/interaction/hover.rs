//! `hover <selector>`: moves the mouse over an element's centre.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "hover";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Hover an element",
        usage: &["hover <selector>"],
        examples: &["hover @e4"],
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "hover <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
};

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.hover(selector, ctx.timeout()).await?)
}
