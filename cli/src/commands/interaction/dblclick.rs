//! `dblclick <selector>`: double-clicks an element (then waits for a navigation it started).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "dblclick";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Double-click an element",
        usage: &["dblclick <selector>"],
        examples: &["dblclick '#row-3'"],
    }),
    grammar: Grammar::Request(|input| selector_grammar(input, ACTION, "dblclick <selector>")),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
};

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.dblclick(selector, ctx.timeout()).await?)
}
