//! What one invocation asks the CLI to do ([`Invocation`], [`Command`]) and how it failed
//! ([`Failure`]): the plain data that [`super::parse`] produces, the local command modules
//! carry out and the renderer prints. A leaf below the registry: the command grammars return
//! these types without depending on the parser that reads the registry.

use std::path::PathBuf;

use serde_json::Value;

use super::error::ParseError;
use crate::globals::Flags;
use crate::host::Host;
use crate::output::rendered::{OutputOptions, Rendered};

/// Everything the binary needs to carry out one invocation.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Resolved global settings (config < env < flags).
    pub flags: Flags,
    /// Session name (`--session` > `AGENT_BROWSER_SESSION` > config > `default`).
    pub session: String,
    /// Socket directory, namespace applied (§1.2). Not created.
    pub socket_dir: PathBuf,
    /// How to print results.
    pub output: OutputOptions,
    /// Warnings to print on stderr (as `⚠ <text>`) before doing anything else.
    pub warnings: Vec<String>,
    /// What to do.
    pub command: Command,
}

/// What an invocation does.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Handled in the CLI process.
    Local(LocalCommand),
    /// Requests for the session daemon.
    Daemon(Plan),
    /// `batch`: a client-side loop of requests.
    Batch(BatchPlan),
}

/// An optional `launch` then the command's request.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Sent first; on failure print its error and exit 1 without sending `request`.
    pub launch: Option<Launch>,
    /// The command's request; its response is what gets printed.
    pub request: Value,
}

impl Plan {
    /// The `action` of the command's request (selects action-specific rendering).
    pub fn action(&self) -> Option<&str> {
        self.request
            .get(abx_wire::extras::ACTION)
            .and_then(Value::as_str)
    }
}

/// `batch`: one optional `launch`, then every step in order.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchPlan {
    /// Sent once before the steps.
    pub launch: Option<Launch>,
    /// `--bail`: stop at the first failed step.
    pub bail: bool,
    /// `--omit-command`: `--json` results carry `index` instead of `command`.
    pub omit_command: bool,
    /// The steps, each parsed on its own (a step that fails to parse is reported, not fatal).
    pub steps: Vec<BatchStep>,
}

/// One `batch` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchStep {
    /// The entry's words as given (echoed as `command` in `--json` results).
    pub argv: Vec<String>,
    /// Its request, or why it could not be parsed.
    pub request: Result<Value, ParseError>,
}

/// Commands the CLI answers without a daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum LocalCommand {
    /// `--help`/`-h`/no arguments: general help, or help for one command.
    Help {
        /// The command whose help was asked for.
        command: Option<String>,
    },
    /// `--version`/`-V`.
    Version,
    /// `session …`.
    Session(SessionCommand),
    /// `close --all`: send `close` to every live session in the socket dir.
    CloseAll,
    /// `state list|show|clear|clean|rename` and `auth save|list|show|delete`: file operations on
    /// saved states and the credential vault. The request has the shape of the wire action.
    StateFile {
        /// The `state_*` request.
        request: Value,
    },
    /// `dashboard [start] [--port N] | stop`.
    Dashboard(DashboardCommand),
    /// A command its module carries out in the CLI (`skills`, `doctor`, `install`, `upgrade`).
    Run(LocalRun),
    /// `mcp …`: the MCP server or one tool call (the words, `mcp` first).
    Mcp(Vec<String>),
    /// `profiles`: the Chrome profiles found under HOME.
    Profiles,
    /// A command abx does not implement (`plugin`, `chat`, …).
    Unsupported {
        /// The command word.
        command: String,
    },
}

/// A local command its module's function carries out, with the words after the command word.
#[derive(Clone)]
pub struct LocalRun {
    /// The words after the command word (global flags removed).
    pub args: Vec<String>,
    /// The module's function.
    pub run: fn(&[String], &Invocation, &dyn Host) -> Rendered,
}

impl LocalRun {
    /// A run of `run` with the words after `clean`'s command word.
    pub fn command(
        clean: &[String],
        run: fn(&[String], &Invocation, &dyn Host) -> Rendered,
    ) -> LocalCommand {
        LocalCommand::Run(LocalRun {
            args: clean.iter().skip(1).cloned().collect(),
            run,
        })
    }
}

impl PartialEq for LocalRun {
    fn eq(&self, other: &Self) -> bool {
        self.args == other.args && std::ptr::fn_addr_eq(self.run, other.run)
    }
}

impl std::fmt::Debug for LocalRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalRun")
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// `session` subcommands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionCommand {
    /// `session` (or an unknown subcommand): print the current session name.
    Show,
    /// `session list`: live sessions, current marked with `→`.
    List,
    /// `session id [--scope worktree|cwd|git-root] [--prefix p]`.
    Id {
        /// Scope (`worktree` default).
        scope: String,
        /// Optional prefix (sanitized).
        prefix: Option<String>,
    },
    /// `session info`: local facts plus the daemon's `session_info`.
    Info,
}

/// The kind of failure, which decides how it is printed.
#[derive(Debug, Clone, PartialEq)]
pub enum CliError {
    /// Config loading failed: `⚠ <message>` on stderr in every mode.
    Config(String),
    /// Command-line grammar: bare text on stderr, or `{"error","success":false,"type"}`.
    Parse(ParseError),
    /// Other client-side rejection: `✗ <message>` on stderr, or `{"error","success":false[,"type"]}`.
    Rejected {
        /// What went wrong.
        message: String,
        /// JSON `type`, when upstream prints one.
        kind: Option<&'static str>,
    },
    /// `batch` stdin was not a JSON array of string arrays.
    BatchInput(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Config(message) | CliError::BatchInput(message) => f.write_str(message),
            CliError::Parse(err) => err.fmt(f),
            CliError::Rejected { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for CliError {}

impl CliError {
    pub(crate) fn rejected(message: impl Into<String>) -> Self {
        CliError::Rejected {
            message: message.into(),
            kind: None,
        }
    }
}

/// A failed invocation and what is needed to print it.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Why.
    pub error: CliError,
    /// Warnings produced before the failure (printed first).
    pub warnings: Vec<String>,
    /// Output mode.
    pub output: OutputOptions,
}

/// Which kind of `launch` precedes the command; decides the fallback error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchKind {
    /// `--auto-connect`: discover a running Chrome.
    AutoConnect,
    /// `--cdp <port|url>`: attach to a browser.
    Cdp,
    /// `-p <provider>`: a cloud/iOS provider.
    Provider,
    /// Local launch settings (headed, args, profile, …).
    Local,
}

impl LaunchKind {
    /// Message used when the daemon answers `success:false` without an `error`.
    pub fn fallback_error(self) -> &'static str {
        match self {
            LaunchKind::AutoConnect => "Auto-connect failed",
            LaunchKind::Cdp => "CDP connection failed",
            LaunchKind::Provider => "Provider connection failed",
            LaunchKind::Local => "Browser launch failed",
        }
    }

    /// Text-mode message for a transport failure (daemon unreachable) while sending this launch.
    /// Upstream prefixes `Could not configure browser: ` for local launches only (text mode; the
    /// JSON error is the bare message).
    pub fn transport_error_text(self, error: &str) -> String {
        match self {
            LaunchKind::Local => format!("Could not configure browser: {error}"),
            _ => error.to_string(),
        }
    }
}

/// A `launch` request and its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// Which rule produced it.
    pub kind: LaunchKind,
    /// The request (without `id`).
    pub request: Value,
}

/// What `dashboard …` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DashboardCommand {
    /// `dashboard [start] [--port N] [--allowed-origins …]` (`None`: the default).
    Start {
        /// `--port`.
        port: Option<u16>,
        /// `--allowed-origins`, normalized, sorted (`None`: from the environment).
        allowed_origins: Option<Vec<String>>,
    },
    /// `dashboard stop`.
    Stop,
    /// Words that do not parse, with upstream's message.
    Invalid(String),
}
