//! `a11y [url] [--tags <list>] [--selector <sel>]`: an accessibility audit. Not implemented
//! yet: the daemon answers `Not yet implemented: a11y`.

use super::vitals::report;
use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "a11y";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Accessibility audit",
        usage: &["a11y [url] [--tags <list>] [--selector <sel>]"],
        examples: &["a11y --tags wcag2a,wcag2aa"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION).rendered(Render {
        first: Some(report),
        ..Render::DEFAULT
    })],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const USAGE: &str = "a11y [url] [--tags <list>] [--selector <sel>]";
    let mut req = Req::new(ACTION);
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--tags" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("a11y --tags", USAGE))?;
                req.put("tags", *v);
                i += 1;
            }
            "-s" | "--selector" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("a11y --selector", USAGE))?;
                req.put("selector", *v);
                i += 1;
            }
            other if other.starts_with('-') => {}
            other => {
                if !req.has("url") {
                    req.put("url", other);
                }
            }
        }
        i += 1;
    }
    ok(req)
}
