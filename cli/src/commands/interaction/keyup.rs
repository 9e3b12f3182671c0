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
};

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: KeyRequest = ctx.params()?;
    let key = required(&request.key, "key")?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.key_up(key).await?)
}
