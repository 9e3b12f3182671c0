//! `vitals [url]` (alias `web-vitals`): Core Web Vitals of the page (or of `url`, loaded
//! first). Not implemented yet: the daemon answers `Not yet implemented: vitals`.

use crate::commands::prelude::*;
use crate::output::text::without_lifecycle;

/// The wire action.
pub const ACTION: &str = "vitals";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION, "web-vitals"],
    help: Some(Help {
        about: "Core Web Vitals",
        usage: &["vitals [url]"],
        examples: &["vitals https://example.com"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::todo(ACTION).rendered(Render {
        first: Some(report),
        ..Render::DEFAULT
    })],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let mut req = Req::new(ACTION);
    if let Some(url) = input.rest.iter().find(|a| !a.starts_with("--")) {
        req.put("url", *url);
    }
    ok(req)
}

/// The report as pretty JSON (without `lifecycle`); also `a11y`'s text.
pub(crate) fn report(t: &mut Text<'_>, data: &Value) -> bool {
    t.out(&pretty(&without_lifecycle(data)));
    true
}
