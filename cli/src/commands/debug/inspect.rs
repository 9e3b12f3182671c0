//! `inspect`: opens DevTools for the page. Not implemented yet: the daemon answers
//! `Not yet implemented: inspect`.

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
    }),
    grammar: Grammar::Request(|_| ok(Req::new(ACTION))),
    actions: &[Action::todo(ACTION).rendered(Render {
        first: Some(opened),
        ..Render::DEFAULT
    })],
};

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
