//! What a command is: its words, help, grammar and wire actions ([`Command`], [`Action`]),
//! the types every command module fills in. A leaf: the registry ([`super::registry`]) lists
//! the commands, and nothing here names the list.

use abx_daemon::dispatch::{Ctx, Handler, Lane, Reply, Route};
use serde_json::Value;

use super::error::ParseError;
use super::invocation::LocalCommand;
use crate::globals::Flags;
use crate::host::Host;
use crate::mcp::tool::McpTool;
use crate::output::text::Render;

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

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").finish_non_exhaustive()
    }
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

/// Runs a command's argv grammar on `rest` with default flags and `host` (its unit tests): the
/// request or the error, and the warnings.
#[cfg(test)]
pub(crate) fn parse_words(
    parse: fn(&mut Input<'_>) -> Result<Value, ParseError>,
    word: &str,
    rest: &[&str],
    host: &dyn Host,
) -> (Result<Value, ParseError>, Vec<String>) {
    let flags = Flags::default();
    let mut warnings = Vec::new();
    let request = parse(&mut Input {
        word,
        rest,
        flags: &flags,
        host,
        warnings: &mut warnings,
    });
    (request, warnings)
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
