//! The command registry: one table of every command the CLI knows, read by the argv parser,
//! the help, the text renderer and (through [`routes`]) the session daemon.
//!
//! A [`Command`] is one module under `commands/`: its words (name first, then aliases), its
//! help with an example, its argv grammar, and the wire [`Action`]s it sends, each with its
//! daemon lane, its handler and how its reply reads as text. [`TABLE`] lists them in help
//! order. A word the table does not know is an `Unknown command`; an action it does not know
//! is the daemon's `Not yet implemented` — each in one place. The modules need no declaration:
//! `cli/build.rs` declares one per file of each area directory, and a unit test here checks
//! that every module with a `COMMAND` has exactly one row.
//!
//! ```
//! use agent_browser::commands::registry;
//! let click = registry::command("click").expect("a command");
//! assert_eq!(click.actions[0].name, "click");
//! assert!(registry::command("nope").is_none());
//! assert!(registry::action("tab_list").is_some());
//! ```

use abx_daemon::dispatch::Route;
use serde_json::Value;

use super::error::ParseError;
pub use super::spec::{Action, Command, Grammar, Help, HelpSection, Input};
// One `use` per group: each group is a file of its own, not an item of commands.rs.
use super::browser;
use super::capture;
use super::control;
use super::debug;
use super::interaction;
use super::navigation;
use super::page;
use super::settings;
use super::tabs;
use crate::globals::Flags;
use crate::host::Host;

/// Every command, in help order.
pub const TABLE: &[&Command] = &[
    &navigation::open::COMMAND,
    &navigation::back::COMMAND,
    &navigation::forward::COMMAND,
    &navigation::reload::COMMAND,
    &navigation::pushstate::COMMAND,
    &interaction::click::COMMAND,
    &interaction::dblclick::COMMAND,
    &interaction::fill::COMMAND,
    &interaction::typing::COMMAND,
    &interaction::press::COMMAND,
    &interaction::keydown::COMMAND,
    &interaction::keyup::COMMAND,
    &interaction::keyboard::COMMAND,
    &interaction::hover::COMMAND,
    &interaction::focus::COMMAND,
    &interaction::check::COMMAND,
    &interaction::uncheck::COMMAND,
    &interaction::select::COMMAND,
    &interaction::drag::COMMAND,
    &interaction::upload::COMMAND,
    &interaction::download::COMMAND,
    &interaction::scroll::COMMAND,
    &interaction::scrollintoview::COMMAND,
    &interaction::highlight::COMMAND,
    &page::wait::COMMAND,
    &capture::screenshot::COMMAND,
    &capture::pdf::COMMAND,
    &capture::snapshot::COMMAND,
    &page::eval::COMMAND,
    &page::read::COMMAND,
    &page::get::COMMAND,
    &page::is::COMMAND,
    &page::find::COMMAND,
    &interaction::mouse::COMMAND,
    &settings::set::COMMAND,
    &settings::cookies::COMMAND,
    &settings::storage::COMMAND,
    &settings::network::COMMAND,
    &tabs::tab::COMMAND,
    &tabs::window::COMMAND,
    &tabs::frame::COMMAND,
    &tabs::dialog::COMMAND,
    &debug::trace::COMMAND,
    &debug::profiler::COMMAND,
    &debug::record::COMMAND,
    &debug::console::COMMAND,
    &debug::errors::COMMAND,
    &settings::clipboard::COMMAND,
    &control::state::COMMAND,
    &interaction::tap::COMMAND,
    &interaction::swipe::COMMAND,
    &settings::device::COMMAND,
    &capture::diff::COMMAND,
    &control::batch::COMMAND,
    &debug::react::COMMAND,
    &debug::vitals::COMMAND,
    &debug::a11y::COMMAND,
    &debug::addinitscript::COMMAND,
    &debug::removeinitscript::COMMAND,
    &debug::inspect::COMMAND,
    &control::auth::COMMAND,
    &control::confirm::COMMAND,
    &control::deny::COMMAND,
    &browser::connect::COMMAND,
    &control::stream::COMMAND,
    &control::dashboard::COMMAND,
    &control::session::COMMAND,
    &control::mcp::COMMAND,
    &control::profiles::COMMAND,
    &browser::close::COMMAND,
    &browser::launch::COMMAND,
    &control::skills::COMMAND,
    &control::doctor::COMMAND,
    &control::install::COMMAND,
    &control::upgrade::COMMAND,
    &control::webmcp::COMMAND,
    &control::unsupported::COMMAND,
];

/// The command a word names (a name or an alias). A scan of [`TABLE`], not a map: every CLI
/// invocation looks up one word and exits, and building a hash index of every word and action
/// cost more than the scans it saves (a seeded `HashMap` of ~400 entries per process start).
pub fn command(word: &str) -> Option<&'static Command> {
    TABLE
        .iter()
        .copied()
        .find(|command| command.names.contains(&word))
}

/// The action a wire name names.
pub fn action(name: &str) -> Option<&'static Action> {
    TABLE
        .iter()
        .flat_map(|command| command.actions.iter())
        .find(|action| action.name == name)
}

/// Every command word (names and aliases, not-provided commands included).
pub fn words() -> impl Iterator<Item = &'static str> {
    TABLE.iter().flat_map(|c| c.names.iter().copied())
}

/// The daemon's routes: one per action it handles.
pub fn routes() -> Vec<Route> {
    TABLE
        .iter()
        .flat_map(|c| c.actions.iter())
        .filter_map(Action::route)
        .collect()
}

/// Parses one command line (global flags removed) into a daemon request, or fails with
/// `Unknown command` for a word that names no request command.
pub(crate) fn parse_request(
    args: &[String],
    flags: &Flags,
    host: &dyn Host,
    warnings: &mut Vec<String>,
) -> Result<Value, ParseError> {
    let Some(word) = args.first().map(String::as_str) else {
        return Err(ParseError::missing("", "<command> [args...]"));
    };
    if flags.cli_annotate && !capture::screenshot::COMMAND.names.contains(&word) {
        warnings.push("--annotate only applies to the screenshot command".to_string());
    }
    let Some(Grammar::Request(parse)) = command(word).map(|c| c.grammar) else {
        return Err(ParseError::UnknownCommand {
            command: word.to_string(),
        });
    };
    let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let mut input = Input {
        word,
        rest: &rest,
        flags,
        host,
        warnings,
    };
    let mut request = parse(&mut input)?;
    // AGENT_BROWSER_DEFAULT_TIMEOUT goes into the waits that carry no timeout of their own.
    if let Some(obj) = request.as_object_mut()
        && let Some(t) = flags.default_timeout
        && !obj.contains_key(abx_wire::extras::TIMEOUT)
        && obj
            .get(abx_wire::extras::ACTION)
            .and_then(Value::as_str)
            .and_then(action)
            .is_some_and(|a| a.default_timeout)
    {
        obj.insert(abx_wire::extras::TIMEOUT.to_string(), Value::from(t));
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    // By full path: scripts/import-cycles.py reads a test module's `super::` as commands.rs.
    use crate::commands::registry::{Command, Grammar, TABLE};

    #[test]
    fn every_word_and_every_action_is_listed_once() {
        let mut words = std::collections::HashSet::new();
        let mut actions = std::collections::HashSet::new();
        for command in TABLE {
            for name in command.names {
                assert!(words.insert(*name), "word {name} listed twice");
            }
            for action in command.actions {
                assert!(
                    actions.insert(action.name),
                    "action {} listed twice",
                    action.name
                );
            }
        }
    }

    #[test]
    fn every_command_with_words_has_help_with_an_example_or_is_not_provided() {
        for command in TABLE {
            match (command.grammar, command.help) {
                (Grammar::Unsupported | Grammar::Internal, help) => {
                    assert!(
                        help.is_none(),
                        "{:?} should not be in the help",
                        command.names
                    );
                }
                (_, Some(help)) => {
                    assert!(!help.usage.is_empty(), "{:?}: no usage", command.names);
                    assert!(!help.examples.is_empty(), "{:?}: no example", command.names);
                    for example in help.examples {
                        let word = example.split_whitespace().next().unwrap_or_default();
                        assert!(
                            command.names.contains(&word),
                            "{:?}: example {example:?} is another command",
                            command.names
                        );
                    }
                }
                (_, None) => panic!("{:?} has no help", command.names),
            }
        }
    }

    #[test]
    fn every_command_with_words_has_a_grammar_that_reads_them() {
        for command in TABLE {
            if command.help.is_some() {
                assert!(
                    matches!(command.grammar, Grammar::Request(_) | Grammar::Local(_)),
                    "{:?} is in the help but reads no words",
                    command.names
                );
            }
        }
    }

    #[test]
    fn no_table_outside_the_command_modules_keys_on_a_command() {
        // A command is its module plus its row in TABLE: the MCP tools and the render
        // examples are declared there, so the MCP machinery, the renderer, the help and the
        // render snapshots name no command's tool or wire action (the code after
        // `#[cfg(test)]` aside: unit tests drive real tools). Wire names with an underscore
        // are the distinctive ones; `url` or `title` are also reply keys.
        let sources = [
            ("mcp/tools.rs", include_str!("../mcp/tools.rs")),
            ("mcp/mod.rs", include_str!("../mcp/mod.rs")),
            ("output.rs", include_str!("../output.rs")),
            ("output/text.rs", include_str!("../output/text.rs")),
            ("help.rs", include_str!("../help.rs")),
            ("commands.rs", include_str!("../commands.rs")),
            ("lib.rs", include_str!("../lib.rs")),
            (
                "tests/snapshots.rs",
                include_str!("../../tests/snapshots.rs"),
            ),
        ];
        let tools = TABLE.iter().flat_map(|c| c.mcp.iter()).map(|t| t.name);
        let actions = TABLE
            .iter()
            .flat_map(|c| c.actions.iter())
            .map(|a| a.name)
            .filter(|name| name.contains('_'));
        let names: Vec<&str> = tools.chain(actions).collect();
        assert!(names.len() > 200, "{} names", names.len());
        for (file, source) in sources {
            let code = source.split("#[cfg(test)]").next().unwrap_or_default();
            for name in &names {
                assert!(
                    !code.contains(&format!("\"{name}\"")),
                    "{file} names {name}: declare it in its command's module"
                );
            }
        }
    }

    /// `("<area>/<file>.rs", &<area>::<file>::COMMAND)` for every file under `commands/<area>/`
    /// that declares `pub const COMMAND`, listed by cli/build.rs.
    mod modules {
        include!(concat!(env!("OUT_DIR"), "/command_modules.rs"));
    }

    /// The same command: the same words and wire actions, which name a command everywhere else
    /// (and no two rows share one). Not `std::ptr::eq`: each `&COMMAND` is a reference to a
    /// constant, and Rust does not promise one address for every use of a constant.
    fn same(a: &Command, b: &Command) -> bool {
        let actions = |c: &Command| c.actions.iter().map(|a| a.name).collect::<Vec<_>>();
        a.names == b.names && actions(a) == actions(b)
    }

    #[test]
    fn every_command_module_has_one_row_and_every_row_comes_from_a_module() {
        let modules = modules::MODULE_COMMANDS;
        assert!(modules.len() > 70, "{} command modules", modules.len());
        for (file, command) in modules {
            let rows = TABLE.iter().filter(|row| same(row, command)).count();
            assert_eq!(
                rows, 1,
                "cli/src/commands/{file} declares a COMMAND with {rows} rows in registry::TABLE \
                 (add `&<area>::<module>::COMMAND,` to TABLE, in help order)"
            );
        }
        for row in TABLE {
            let files: Vec<&str> = modules
                .iter()
                .filter(|(_, command)| same(row, command))
                .map(|(file, _)| *file)
                .collect();
            assert_eq!(
                files.len(),
                1,
                "TABLE row {:?} is the COMMAND of {files:?}: of exactly one module under \
                 cli/src/commands/<area>/",
                row.names
            );
        }
    }

    #[test]
    fn internal_commands_have_no_words_and_others_do() {
        for command in TABLE {
            let internal = matches!(command.grammar, Grammar::Internal);
            assert_eq!(command.names.is_empty(), internal, "{:?}", command.names);
        }
    }
}
