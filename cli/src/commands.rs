//! argv + environment → what the CLI must do ([`Invocation`]).
//!
//! [`parse`] resolves global flags, config and environment, then decides between a local command
//! (help, version, `session …`, `close --all`, `state list|show|clear|clean|rename`, unsupported
//! subcommands) and daemon requests: an optional leading `launch` followed by the command's own
//! request, or a client-side `batch` of requests. Requests carry no `id`; the sender adds it.

pub(crate) mod error;
pub(crate) mod invocation;
mod options;
mod prelude;
pub mod registry;
pub(crate) mod spec;
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
pub use invocation::{
    BatchPlan, BatchStep, CliError, Command, Failure, Invocation, LocalCommand, LocalRun, Plan,
    SessionCommand,
};
pub use support::{
    SYSTEM_CA_BUNDLES, SelectorRequest, normalize_url, parse_cookie_file, shell_words_split,
};

use crate::flags::{self, ParsedArgs};
use crate::host::Host;
use crate::output::OutputOptions;
use spec::Grammar;

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
