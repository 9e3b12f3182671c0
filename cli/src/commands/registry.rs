//! The command registry: one table of every command the CLI knows, read by the argv parser,
//! the help, the text renderer and (through [`routes`]) the session daemon.
//!
//! A [`Command`] is one module under `commands/`: its words (name first, then aliases), its
//! help with an example, its argv grammar, and the wire [`Action`]s it sends, each with its
//! daemon lane, its handler and how its reply reads as text. [`TABLE`] lists them in help
//! order. A word the table does not know is an `Unknown command`; an action it does not know
//! is the daemon's `Not yet implemented` — each in one place.
//!
//! ```
//! use agent_browser::commands::registry;
//! let click = registry::command("click").expect("a command");
//! assert_eq!(click.actions[0].name, "click");
//! assert!(registry::command("nope").is_none());
//! assert!(registry::action("tab_list").is_some());
//! ```

use abx_daemon::dispatch::{Ctx, Handler, Lane, Reply, Route};
use serde_json::Value;

use super::error::ParseError;
use super::{
    LocalCommand, browser, capture, control, debug, interaction, navigation, page, settings, tabs,
};
use crate::flags::Flags;
use crate::host::Host;
use crate::mcp::tools::McpTool;
use crate::output::Render;

/// One CLI command.
#[derive(Debug)]
pub struct Command {
    /// Its words: the name, then aliases. Empty for daemon-only entries.
    pub names: &'static [&'static str],
    /// `--help` text; `None` keeps it out of the help (not-provided and internal entries).
    pub help: Option<Help>,
    /// How argv becomes a request (or a local command).
    pub grammar: Grammar,
    /// The wire actions it sends and the daemon serves.
    pub actions: &'static [Action],
    /// Upstream's MCP tools that run it (the MCP server lists them; see [`crate::mcp::tools`]).
    pub mcp: &'static [McpTool],
}

/// How a command's argv is read.
#[derive(Clone, Copy)]
pub enum Grammar {
    /// Into one daemon request (`{"action", ...}` without `id`).
    Request(fn(&mut Input<'_>) -> Result<Value, ParseError>),
    /// Into a command the CLI carries out itself (the words after the global flags).
    Local(fn(&[String]) -> LocalCommand),
    /// A command abx does not provide: it exits 1 with a clear message.
    Unsupported,
    /// No CLI words: only other commands send its actions.
    Internal,
}

impl std::fmt::Debug for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Grammar::Request(_) => "Request",
            Grammar::Local(_) => "Local",
            Grammar::Unsupported => "Unsupported",
            Grammar::Internal => "Internal",
        })
    }
}

/// A command's help.
#[derive(Debug, Clone, Copy)]
pub struct Help {
    /// One line.
    pub about: &'static str,
    /// Usage lines without the `agent-browser ` prefix (the first is listed in the general help).
    pub usage: &'static [&'static str],
    /// Example command lines without the `agent-browser ` prefix (at least one).
    pub examples: &'static [&'static str],
    /// What the command does, a paragraph or more (empty: none).
    pub description: &'static str,
    /// Lists after the description, in order, each a heading (`Options`, `Subcommands`, ...)
    /// and its rows of word and meaning. A meaning may span lines (`\n`).
    pub sections: &'static [HelpSection],
    /// Further explanation after the lists (empty: none).
    pub notes: &'static str,
    /// Exit statuses and their meaning (empty: 0 on success, 1 on failure, not listed).
    pub exit_codes: &'static [(&'static str, &'static str)],
}

/// One list in a command's help: a heading and rows of word and meaning.
pub type HelpSection = (&'static str, &'static [(&'static str, &'static str)]);

impl Help {
    /// No text: the base that each command's help fills in (`..Help::BLANK`).
    pub const BLANK: Help = Help {
        about: "",
        usage: &[],
        examples: &[],
        description: "",
        sections: &[],
        notes: "",
        exit_codes: &[],
    };
}

/// What a command's grammar may consult besides its words.
pub struct Input<'a> {
    /// The command word as typed (an alias, say).
    pub word: &'a str,
    /// The words after it.
    pub rest: &'a [&'a str],
    /// Resolved global settings.
    pub flags: &'a Flags,
    /// Environment, files and stdin.
    pub host: &'a dyn Host,
    /// Warnings to print before the command runs.
    pub warnings: &'a mut Vec<String>,
}

/// One wire action: what the daemon does with it and how the CLI prints its reply.
#[derive(Clone, Copy)]
pub struct Action {
    /// The wire name.
    pub name: &'static str,
    /// The daemon lane.
    pub lane: Lane,
    /// It can change the page or the active tab (the daemon then records the tab binding and
    /// retargets the live view).
    pub moves_tab: bool,
    /// Its reply describes the pending dialog itself (no dialog `warning` is added).
    pub reports_dialog: bool,
    /// Gets `AGENT_BROWSER_DEFAULT_TIMEOUT` as its `timeout` when the command line set none.
    pub default_timeout: bool,
    /// Its failure fences the rest of its connection (see `Route::fences_on_failure`).
    pub fences_on_failure: bool,
    /// It navigates the active tab (see `Route::navigates`).
    pub navigates: bool,
    /// It may navigate and waits for the page (see `Route::follows_navigation`).
    pub follows_navigation: bool,
    /// It reads the page's state after a navigation (see `Route::sees_navigation`).
    pub sees_navigation: bool,
    /// It is a wait (see `Route::waits`).
    pub waits: bool,
    /// It runs to its end even when its client goes away (see `Route::completes`).
    pub completes: bool,
    /// Chooses the daemon lane per request (see `Route::lane_of`).
    pub lane_of: Option<abx_daemon::dispatch::LaneOf>,
    /// The daemon's handler; `None` for actions the CLI answers itself (never sent).
    pub handler: Option<Handler>,
    /// How its reply reads as text.
    pub render: Render,
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Action")
            .field("name", &self.name)
            .field("lane", &self.lane)
            .field("moves_tab", &self.moves_tab)
            .field("reports_dialog", &self.reports_dialog)
            .field("default_timeout", &self.default_timeout)
            .field("handled", &self.handler.is_some())
            .finish_non_exhaustive()
    }
}

fn todo<'a>(ctx: &'a Ctx<'_>) -> Reply<'a> {
    let failure = abx_daemon::dispatch::not_implemented(&ctx.request().action);
    Box::pin(async move { Err(failure) })
}

impl Action {
    /// A page command, FIFO behind the others.
    pub const fn queued(name: &'static str, handler: Handler) -> Action {
        Action {
            name,
            lane: Lane::Queued,
            moves_tab: false,
            reports_dialog: false,
            default_timeout: false,
            fences_on_failure: false,
            navigates: false,
            follows_navigation: false,
            sees_navigation: false,
            waits: false,
            completes: false,
            lane_of: None,
            handler: Some(handler),
            render: Render::DEFAULT,
        }
    }

    /// A control command, served at once (even while a page command hangs).
    pub const fn fast(name: &'static str, handler: Handler) -> Action {
        Action {
            lane: Lane::Fast,
            ..Action::queued(name, handler)
        }
    }

    /// A command on the close lane.
    pub const fn close(name: &'static str, handler: Handler) -> Action {
        Action {
            lane: Lane::Close,
            ..Action::queued(name, handler)
        }
    }

    /// An action the daemon does not implement yet: it answers `Not yet implemented: <name>`.
    /// Filling in the handler (and the renderer) is all a new implementation needs.
    pub const fn todo(name: &'static str) -> Action {
        Action::queued(name, todo)
    }

    /// An action the CLI answers itself; it is never sent.
    pub const fn local(name: &'static str) -> Action {
        Action {
            handler: None,
            ..Action::todo(name)
        }
    }

    /// See [`Action::moves_tab`].
    pub const fn moving_tab(self) -> Action {
        Action {
            moves_tab: true,
            ..self
        }
    }

    /// See [`Action::reports_dialog`].
    pub const fn reporting_dialog(self) -> Action {
        Action {
            reports_dialog: true,
            ..self
        }
    }

    /// See [`Action::fences_on_failure`].
    pub const fn fencing_on_failure(self) -> Action {
        Action {
            fences_on_failure: true,
            ..self
        }
    }

    /// See [`Action::navigates`].
    pub const fn navigating(self) -> Action {
        Action {
            navigates: true,
            ..self
        }
    }

    /// See [`Action::follows_navigation`].
    pub const fn following_navigation(self) -> Action {
        Action {
            follows_navigation: true,
            ..self
        }
    }

    /// See [`Action::sees_navigation`].
    pub const fn seeing_navigation(self) -> Action {
        Action {
            sees_navigation: true,
            ..self
        }
    }

    /// See [`Action::waits`].
    pub const fn waiting(self) -> Action {
        Action {
            waits: true,
            ..self
        }
    }

    /// See [`Action::completes`].
    pub const fn completing(self) -> Action {
        Action {
            completes: true,
            ..self
        }
    }

    /// See [`Action::lane_of`].
    pub const fn with_lane_of(self, lane_of: abx_daemon::dispatch::LaneOf) -> Action {
        Action {
            lane_of: Some(lane_of),
            ..self
        }
    }

    /// See [`Action::default_timeout`].
    pub const fn with_default_timeout(self) -> Action {
        Action {
            default_timeout: true,
            ..self
        }
    }

    /// How its reply reads as text.
    pub const fn rendered(self, render: Render) -> Action {
        Action { render, ..self }
    }

    /// Its daemon route (none for actions the CLI answers itself).
    pub fn route(&self) -> Option<Route> {
        let handler = self.handler?;
        let mut route = match self.lane {
            Lane::Close => Route::close(self.name, handler),
            Lane::Fast => Route::fast(self.name, handler),
            Lane::Queued => Route::queued(self.name, handler),
        };
        if self.moves_tab {
            route = route.moving_tab();
        }
        if self.reports_dialog {
            route = route.reporting_dialog();
        }
        if self.fences_on_failure {
            route = route.fencing_on_failure();
        }
        if self.navigates {
            route = route.navigating();
        }
        if self.follows_navigation {
            route = route.following_navigation();
        }
        if self.sees_navigation {
            route = route.seeing_navigation();
        }
        if self.waits {
            route = route.waiting();
        }
        if self.completes {
            route = route.completing();
        }
        if let Some(lane_of) = self.lane_of {
            route = route.with_lane_of(lane_of);
        }
        Some(route)
    }
}

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
    use super::*;

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
                    )
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

    #[test]
    fn internal_commands_have_no_words_and_others_do() {
        for command in TABLE {
            let internal = matches!(command.grammar, Grammar::Internal);
            assert_eq!(command.names.is_empty(), internal, "{:?}", command.names);
        }
    }
}
