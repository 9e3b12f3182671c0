//! The error and warning lines the CLI prints itself (daemon unreachable, bad arguments,
//! config warnings), in text and `--json` form. Command modules that run locally print them too,
//! so they sit below the reply renderer.

use super::rendered::{OutputOptions, Rendered};
use super::text::{Palette, json_string};

/// `{"error":…,"success":false}` (upstream's CLI-side JSON error).
pub fn error_json(message: &str) -> String {
    format!("{{\"error\":{},\"success\":false}}", json_string(message))
}

/// `{"error":…,"success":false,"type":…}` (upstream's JSON parse error).
pub fn typed_error_json(message: &str, kind: &str) -> String {
    format!(
        "{{\"error\":{},\"success\":false,\"type\":{}}}",
        json_string(message),
        json_string(kind)
    )
}

/// A warning line for stderr: `⚠ <text>\n`.
pub fn render_warning(text: &str, opts: &OutputOptions) -> String {
    format!("{} {text}\n", Palette(opts.color).warn())
}

/// A CLI-side error (daemon unreachable, launch failed, …): `✗ <message>` on stderr, or the JSON
/// error line on stdout; exit 1.
pub fn render_error(message: &str, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered {
        exit_code: 1,
        ..Rendered::default()
    };
    if opts.json {
        r.out(&error_json(message));
    } else {
        r.err(&format!("{} {message}", Palette(opts.color).fail()));
    }
    r
}
