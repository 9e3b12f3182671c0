//! `state save|load <path>`: the session's storage state (cookies and web storage), and
//! `state list|show|clear|clean|rename`: operations on saved state files, which the CLI
//! answers itself. Not implemented yet: `save`/`load` get `Not yet implemented`, the file
//! operations `… are not supported by abx`.

use crate::commands::prelude::*;

/// `state save <path>`.
pub const SAVE: &str = "state_save";
/// `state load <path>`.
pub const LOAD: &str = "state_load";
/// `state list`.
pub const LIST: &str = "state_list";
/// `state show <file>`.
pub const SHOW: &str = "state_show";
/// `state clear [name] [--all]`.
pub const CLEAR: &str = "state_clear";
/// `state clean --older-than <days>`.
pub const CLEAN: &str = "state_clean";
/// `state rename <old> <new>`.
pub const RENAME: &str = "state_rename";

/// The file operations (never sent to the daemon).
const FILE_OPERATIONS: &[&str] = &[LIST, SHOW, CLEAR, CLEAN, RENAME];

/// Whether `action` is a state-file operation the CLI answers itself.
pub fn is_file_operation(action: &str) -> bool {
    FILE_OPERATIONS.contains(&action)
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["state"],
    help: Some(Help {
        about: "Saved storage state",
        usage: &["state <save|load|list|clear|show|clean|rename> ..."],
        examples: &["state save ./auth.json", "state load ./auth.json"],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(SAVE).rendered(Render {
            saved: Some(saved),
            ..Render::DEFAULT
        }),
        Action::todo(LOAD).rendered(Render {
            saved: Some(loaded),
            ..Render::DEFAULT
        }),
        Action::local(LIST),
        Action::local(SHOW),
        Action::local(CLEAR),
        Action::local(CLEAN),
        Action::local(RENAME),
    ],
};

fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} State saved to {}", p.ok(), p.green(path)));
}

fn loaded(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    if let Some(note) = s(data, "note") {
        t.out(note);
    }
    t.out(&format!("{} State path set to {}", p.ok(), p.green(path)));
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const VALID: &[&str] = &["save", "load", "list", "clear", "show", "clean", "rename"];
    match rest.first().copied() {
        Some(op @ ("save" | "load")) => {
            let (context, usage) = if op == "save" {
                ("state save", "state save <path>")
            } else {
                ("state load", "state load <path>")
            };
            let path = rest
                .get(1)
                .ok_or_else(|| ParseError::missing(context, usage))?;
            ok(Req::new(if op == "save" { SAVE } else { LOAD }).set("path", *path))
        }
        Some("list") => ok(Req::new(LIST)),
        Some("clear") => {
            let mut name: Option<&str> = None;
            let mut all = false;
            for arg in &rest[1..] {
                match *arg {
                    "--all" | "-a" => all = true,
                    a if !a.starts_with('-') => name = Some(a),
                    _ => {}
                }
            }
            if let Some(n) = name
                && !crate::session::is_valid_session_name(n)
            {
                return Err(ParseError::InvalidSessionName {
                    name: n.to_string(),
                });
            }
            let mut req = Req::new(CLEAR);
            if all {
                req.put("all", true);
            }
            if let Some(n) = name {
                req.put("sessionName", n);
            }
            ok(req)
        }
        Some("show") => {
            let file = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("state show", "state show <filename>"))?;
            ok(Req::new(SHOW).set("path", *file))
        }
        Some("clean") => {
            let days = rest
                .iter()
                .position(|a| *a == "--older-than")
                .and_then(|i| rest.get(i + 1))
                .and_then(|d| d.parse::<i64>().ok())
                .ok_or_else(|| {
                    ParseError::missing("state clean", "state clean --older-than <days>")
                })?;
            ok(Req::new(CLEAN).set("days", days))
        }
        Some("rename") => {
            const USAGE: &str = "state rename <old-name> <new-name>";
            let old = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("state rename", USAGE))?;
            let new = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("state rename", USAGE))?;
            let old = old.trim_end_matches(".json");
            let new = new.trim_end_matches(".json");
            for n in [old, new] {
                if !crate::session::is_valid_session_name(n) {
                    return Err(ParseError::InvalidSessionName {
                        name: n.to_string(),
                    });
                }
            }
            ok(Req::new(RENAME).set("oldName", old).set("newName", new))
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "state",
            "state <save|load|list|clear|show|clean|rename> ...",
        )),
    }
}
