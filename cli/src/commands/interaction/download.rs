//! `download <selector> <path>`: clicks an element and saves the download. Not implemented
//! yet: the daemon answers `Not yet implemented: download`.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "download";

const USAGE: &str = "download <selector> <path>";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Click and save the download",
        usage: &[USAGE],
        examples: &["download 'a.report' ./report.pdf"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION).rendered(Render {
        saved: Some(saved),
        ..Render::DEFAULT
    })],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let path = rest
        .get(1)
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    ok(Req::new(ACTION)
        .set("selector", *selector)
        .set("path", *path))
}

/// `✓ Download saved to <path>` (also the text of `wait --download`).
pub(crate) fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} Download saved to {}", p.ok(), p.green(path)));
}
