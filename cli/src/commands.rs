//! argv + environment → what the CLI must do ([`Invocation`]).
//!
//! [`parse`] resolves global flags, config and environment, then decides between a local command
//! (help, version, `session …`, `close --all`, `state list|show|clear|clean|rename`, unsupported
//! subcommands) and daemon requests: an optional leading `launch` followed by the command's own
//! request, or a client-side `batch` of requests. Requests carry no `id`; the sender adds it.

mod error;
mod options;
mod prelude;
pub mod registry;
mod support;

pub mod browser;
pub mod capture;
pub mod control;
pub mod debug;
pub mod interaction;
pub mod navigation;
pub mod page;
pub mod settings;
pub mod tabs;

use std::path::PathBuf;

use serde_json::Value;

pub use browser::launch::{
    CdpEndpoint, Launch, LaunchKind, attach_pin_tab, attach_plugins, attach_restore, cdp_target,
    incompatible_launch_mode_error, is_external_launch, should_send_local_launch,
};
pub use error::ParseError;
pub use support::{
    SYSTEM_CA_BUNDLES, SelectorRequest, normalize_url, parse_cookie_file, shell_words_split,
};

use crate::flags::{self, Flags, ParsedArgs};
use crate::host::Host;
use crate::output::OutputOptions;
use registry::Grammar;

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
    Dashboard(crate::commands::control::dashboard::DashboardCommand),
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

impl LocalCommand {
    /// The output of local commands that need no I/O (help, version, unsupported commands);
    /// `None` for the ones the binary must carry out (`session …`, `close --all`, state files).
    pub fn immediate(&self, opts: &OutputOptions) -> Option<crate::output::Rendered> {
        match self {
            LocalCommand::Help { command } => Some(crate::output::render_help(command.as_deref())),
            LocalCommand::Version => Some(crate::output::render_version()),
            LocalCommand::Unsupported { command } => Some(crate::output::render_error(
                &crate::output::unsupported_message(command),
                opts,
            )),
            LocalCommand::Session(_)
            | LocalCommand::CloseAll
            | LocalCommand::StateFile { .. }
            | LocalCommand::Dashboard(_)
            | LocalCommand::Run(_)
            | LocalCommand::Mcp(_)
            | LocalCommand::Profiles => None,
        }
    }
}

/// A local command its module's function carries out, with the words after the command word.
#[derive(Clone)]
pub struct LocalRun {
    /// The words after the command word (global flags removed).
    pub args: Vec<String>,
    /// The module's function.
    pub run: fn(&[String], &Invocation, &dyn Host) -> crate::output::Rendered,
}

impl LocalRun {
    /// A run of `run` with the words after `clean`'s command word.
    pub fn command(
        clean: &[String],
        run: fn(&[String], &Invocation, &dyn Host) -> crate::output::Rendered,
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
    fn rejected(message: impl Into<String>) -> Self {
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

impl Failure {
    /// Render to stdout/stderr/exit code (always exit 1).
    pub fn render(&self) -> crate::output::Rendered {
        crate::output::render_failure(self)
    }
}

/// Parse an invocation. `argv` excludes the program name.
pub fn parse(argv: &[String], host: &dyn Host) -> Result<Invocation, Failure> {
    let ParsedArgs {
        flags,
        clean,
        warnings,
    } = match flags::parse_flags(argv, host) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Err(Failure {
                error: CliError::Config(e.message),
                warnings: e.warnings,
                output: OutputOptions::plain(flags::color_enabled(host)),
            });
        }
    };
    let output = OutputOptions::from_flags(&flags);
    let socket_dir = crate::session::socket_dir(host, flags.namespace.as_deref());
    let mut inv = Invocation {
        session: flags.session.clone(),
        socket_dir,
        output,
        warnings,
        command: Command::Local(LocalCommand::Version),
        flags,
    };
    match decide(&clean, argv, host, &mut inv) {
        Ok(command) => {
            inv.command = command;
            Ok(inv)
        }
        Err(error) => Err(Failure {
            error,
            warnings: inv.warnings,
            output: inv.output,
        }),
    }
}

fn decide(
    clean: &[String],
    argv: &[String],
    host: &dyn Host,
    inv: &mut Invocation,
) -> Result<Command, CliError> {
    let has_help = argv.iter().any(|a| a == "--help" || a == "-h");
    let has_version = argv.iter().any(|a| a == "--version" || a == "-V");
    if has_help {
        return Ok(Command::Local(LocalCommand::Help {
            command: clean.first().cloned(),
        }));
    }
    if has_version {
        return Ok(Command::Local(LocalCommand::Version));
    }
    let Some(first) = clean.first().map(String::as_str) else {
        return Ok(Command::Local(LocalCommand::Help { command: None }));
    };
    if first == "chat"
        && let Some(message) = control::unavailable::refusal(&inv.flags, Some(first), host)
    {
        return Err(CliError::rejected(message));
    }
    // Upstream checks the session name for `session` and every daemon command, naming where
    // the name came from.
    let session_check = || -> Result<(), CliError> {
        if crate::session::is_valid_session_name(&inv.flags.session) {
            return Ok(());
        }
        let source = if argv
            .iter()
            .any(|a| a == "--session" || a.starts_with("--session="))
        {
            "--session"
        } else if host
            .var(abx_wire::env::SESSION)
            .is_some_and(|v| !v.is_empty())
        {
            abx_wire::env::SESSION
        } else {
            "config"
        };
        Err(CliError::Rejected {
            message: format!(
                "{} Source: {source}.",
                crate::session::session_name_error(&inv.flags.session)
            ),
            kind: Some("invalid_session_name"),
        })
    };
    if first == "session" {
        session_check()?;
    }
    match registry::command(first).map(|c| c.grammar) {
        Some(Grammar::Unsupported) => {
            return Ok(Command::Local(LocalCommand::Unsupported {
                command: first.to_string(),
            }));
        }
        Some(Grammar::Local(parse)) => return Ok(Command::Local(parse(clean))),
        _ => {}
    }
    if browser::close::is_close_all(clean) {
        return Ok(Command::Local(LocalCommand::CloseAll));
    }

    let flags = inv.flags.clone();
    let mut request =
        registry::parse_request(clean, &flags, host, &mut inv.warnings).map_err(CliError::Parse)?;
    let action = request
        .get(abx_wire::extras::ACTION)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();

    attach_plugins(&mut request, &flags);
    attach_pin_tab(&mut request, &flags);
    attach_restore(&mut request, &flags);

    if let Some(key) = flags.restore_key()
        && !crate::session::is_valid_session_name(key)
    {
        return Err(CliError::Rejected {
            message: crate::session::session_name_error(key),
            kind: Some("invalid_session_name"),
        });
    }
    if let Some(policy) = &flags.restore_save
        && !matches!(policy.as_str(), "auto" | "always" | "never")
    {
        return Err(CliError::Rejected {
            message: format!(
                "Invalid --restore-save value '{policy}'. Use auto, always, or never."
            ),
            kind: Some("invalid_value"),
        });
    }

    if control::state::is_file_operation(&action) || control::auth::is_vault_operation(&action) {
        return Ok(Command::Local(LocalCommand::StateFile { request }));
    }

    session_check()?;
    if let Some(msg) = incompatible_launch_mode_error(&flags) {
        return Err(CliError::rejected(msg));
    }
    if let Some(msg) = browser::launch::unsupported_plugins_error(&flags) {
        return Err(CliError::rejected(msg));
    }
    let launch = browser::launch::launch_for(&flags, &request).map_err(CliError::rejected)?;

    if action == control::batch::ACTION {
        let batch: control::batch::BatchRequest =
            serde_json::from_value(request).unwrap_or_default();
        let bail = batch.bail;
        let omit_command = batch.omit_command;
        let entries: Vec<Vec<String>> = match batch.commands {
            Some(list) => list.iter().map(|c| shell_words_split(c)).collect(),
            None => {
                let input = host
                    .read_stdin()
                    .map_err(|e| CliError::rejected(format!("Failed to read stdin: {e}")))?;
                serde_json::from_str::<Vec<Vec<String>>>(&input)
                    .map_err(|e| CliError::BatchInput(e.to_string()))?
            }
        };
        let mut steps = Vec::new();
        for argv in entries.into_iter().filter(|a| !a.is_empty()) {
            let request =
                registry::parse_request(&argv, &flags, host, &mut inv.warnings).map(|mut r| {
                    attach_plugins(&mut r, &flags);
                    attach_restore(&mut r, &flags);
                    attach_pin_tab(&mut r, &flags);
                    r
                });
            steps.push(BatchStep { argv, request });
        }
        return Ok(Command::Batch(BatchPlan {
            launch,
            bail,
            omit_command,
            steps,
        }));
    }

    Ok(Command::Daemon(Plan { launch, request }))
}

impl Invocation {
    /// Every daemon request this invocation sends, in order, assuming each succeeds (the leading
    /// `launch`, then the command, or each parsable `batch` step).
    pub fn requests(&self) -> Vec<Value> {
        match &self.command {
            Command::Local(_) => Vec::new(),
            Command::Daemon(plan) => plan
                .launch
                .iter()
                .map(|l| l.request.clone())
                .chain(std::iter::once(plan.request.clone()))
                .collect(),
            Command::Batch(batch) => batch
                .launch
                .iter()
                .map(|l| l.request.clone())
                .chain(batch.steps.iter().filter_map(|s| s.request.clone().ok()))
                .collect(),
        }
    }

    /// The session's socket path, or upstream's "too long" error (103-byte limit).
    pub fn socket_path(&self) -> Result<PathBuf, String> {
        crate::session::checked_socket_path(&self.socket_dir, &self.session)
    }
}
