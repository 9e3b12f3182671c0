//! `session [list|info]`, `session id [--scope worktree|cwd|git-root] [--prefix <p>]`: answered
//! by the CLI (`session info` adds the daemon's `session_info`).

use crate::commands::invocation::{LocalCommand, SessionCommand};
use crate::commands::prelude::*;

/// `session info`'s request to the daemon.
pub const INFO: &str = "session_info";

/// The command.
pub const COMMAND: Command = Command {
    names: &["session"],
    help: Some(Help {
        about: "Sessions",
        usage: &[
            "session [list|info]",
            "session id [--scope worktree|cwd|git-root] [--prefix <p>]",
        ],
        examples: &[
            "session",
            "session list",
            "session info --json",
            "session id --prefix ci",
        ],

        description: "\
Each session has its own daemon and browser: cookies, storage and tabs are separate. Without
a subcommand the current session name is printed.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("list", "The sessions running now"),
                    ("info", "Daemon, launch and restore details of this session"),
                    (
                        "id",
                        "A stable session name for this directory, for scripts",
                    ),
                ],
            ),
            (
                "id options",
                &[
                    (
                        "--scope <s>",
                        "worktree (default), cwd or git-root: what the name is derived from",
                    ),
                    ("--prefix <p>", "Put this before the name"),
                ],
            ),
        ],
        notes: "\
The session comes from --session or AGENT_BROWSER_SESSION (default \"default\");
--namespace or AGENT_BROWSER_NAMESPACE keeps separate sets of sessions apart.",
        ..Help::BLANK
    }),
    grammar: Grammar::Local(parse),
    actions: &[Action::fast(INFO, |ctx| Box::pin(run_info(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(138, "agent_browser_session", "state", &["session"], "")
        .read_only()
        .closed_world(),
    McpTool::new(
        139,
        "agent_browser_session_list",
        "state",
        &["session", "list"],
        "",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        140,
        "agent_browser_session_id",
        "state",
        &["session", "id"],
        "prefix:s@--prefix scope:e(worktree|cwd|git-root)@--scope",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        141,
        "agent_browser_session_info",
        "state",
        &["session", "info"],
        "",
    )
    .read_only()
    .closed_world(),
];

/// `session id`'s flags: each takes the next word, whatever it is, when there is one.
const ID_FLAGS: &[Flag] = &[
    Flag::lenient(&["--scope"], |_| true),
    Flag::lenient(&["--prefix"], |_| true),
];

fn parse(clean: &[String]) -> LocalCommand {
    LocalCommand::Session(match clean.get(1).map(String::as_str) {
        Some("list") => SessionCommand::List,
        Some("info") => SessionCommand::Info,
        Some("id") => {
            let mut scope = "worktree".to_string();
            let mut prefix = None;
            let words: Vec<&str> = clean[2..].iter().map(String::as_str).collect();
            // Lenient flags never fail; one without a value changes nothing.
            for word in scan(&words, ID_FLAGS).flatten() {
                match word {
                    Word::Value("--scope", value) => scope = value.to_string(),
                    Word::Value(_, value) => prefix = Some(value.to_string()),
                    // Other words, and a flag at the end of the line, are ignored.
                    _ => {}
                }
            }
            SessionCommand::Id { scope, prefix }
        }
        _ => SessionCommand::Show,
    })
}

async fn run_info(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let config = ctx.config();
    let live = ctx.live();
    let launched = live.is_some();
    let hash = live.as_ref().map(|l| l.hash);
    // Upstream's keys (restore is not configured here: `--restore` is not served).
    Ok(json!({
        "session": config.session,
        "namespace": std::env::var(abx_wire::env::NAMESPACE).ok().filter(|n| !n.is_empty()),
        "socketDir": config.socket_dir,
        "backgroundPid": std::process::id(),
        "browserLaunched": launched,
        "engine": "chrome",
        "launchHash": hash,
        "compatibilityStatus": "current",
        "effectiveLaunch": {"browserLaunched": launched, "engine": "chrome", "launchHash": hash},
        "pageCount": live.as_ref().map(|l| l.session.tabs().len()).unwrap_or(0),
        "restoreKey": null,
        "restoreStatus": "not_configured",
        "restoreStatusDetail": null,
        "restoreLoadedPath": null,
        "restoreValidationPending": false,
        "restoreSave": "auto",
        "saveStatus": "not_attempted",
        "restoreSavedPath": null,
        "restoreCheckUrl": null,
        "restoreCheckText": null,
        "restoreCheckFn": null,
        "restoreSkippedOrigins": [],
    }))
}

/// `session info`: the session, its socket dir and daemon (from the pid and version files, no
/// probe connection), and the daemon's own `session_info` when it runs. A daemon that does not
/// answer gives `runtimeError`, never a failure; a session without a daemon is `Daemon: not
/// running`, exit 0 (as upstream).
pub fn render_info(
    session: &str,
    socket_dir: &std::path::Path,
    send: impl FnOnce(&Value) -> Result<Value, String>,
    opts: &crate::output::rendered::OutputOptions,
) -> crate::output::rendered::Rendered {
    let file = |suffix: &str| socket_dir.join(format!("{session}.{suffix}"));
    let pid = std::fs::read_to_string(file("pid"))
        .ok()
        .and_then(|p| p.trim().parse::<i32>().ok())
        .filter(|pid| crate::client::pid_alive(*pid));
    let version = pid.and_then(|_| {
        std::fs::read_to_string(file("version"))
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    });
    let (runtime, runtime_error) = match pid {
        None => (None, None),
        Some(_) => match send(&json!({ abx_wire::extras::ACTION: INFO })) {
            Ok(reply) if reply.get("success").and_then(Value::as_bool) == Some(true) => {
                (reply.get("data").cloned(), None)
            }
            Ok(reply) => (
                None,
                Some(
                    reply
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("session_info failed")
                        .to_string(),
                ),
            ),
            Err(err) => (None, Some(err)),
        },
    };
    let namespace = std::env::var(abx_wire::env::NAMESPACE)
        .ok()
        .filter(|n| !n.is_empty());
    let socket_dir = socket_dir.display().to_string();
    let mut stdout = String::new();
    let mut out = |line: &str| {
        stdout.push_str(line);
        stdout.push('\n');
    };
    if opts.json {
        let data = json!({
            "session": session,
            "namespace": namespace,
            "socketDir": socket_dir,
            "active": pid.is_some(),
            "pid": pid,
            "version": version,
            "runtime": runtime,
            "runtimeError": runtime_error,
        });
        out(&json!({"success": true, "data": data}).to_string());
        return crate::output::rendered::Rendered {
            stdout,
            ..Default::default()
        };
    }
    out(&format!("Session: {session}"));
    out(&format!("Socket dir: {socket_dir}"));
    if let Some(namespace) = &namespace {
        out(&format!("Namespace: {namespace}"));
    }
    match pid {
        Some(pid) => {
            out(&format!("Daemon: running (pid {pid})"));
            if let Some(version) = &version {
                out(&format!("Version: {version}"));
            }
        }
        None => out("Daemon: not running"),
    }
    if let Some(data) = &runtime {
        for (key, label) in [
            ("restoreStatus", "Restore status"),
            ("saveStatus", "Save status"),
            ("engine", "Engine"),
        ] {
            if let Some(value) = data.get(key).and_then(Value::as_str) {
                out(&format!("{label}: {value}"));
            }
        }
        if let Some(launched) = data.get("browserLaunched").and_then(Value::as_bool) {
            out(&format!("Browser launched: {launched}"));
        }
    } else if let Some(err) = &runtime_error {
        out(&format!("Runtime info unavailable: {err}"));
    }
    crate::output::rendered::Rendered {
        stdout,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(words: &[&str]) -> LocalCommand {
        let clean: Vec<String> = ["session", "id"]
            .iter()
            .chain(words)
            .map(|w| w.to_string())
            .collect();
        parse(&clean)
    }

    fn scoped(scope: &str, prefix: Option<&str>) -> LocalCommand {
        LocalCommand::Session(SessionCommand::Id {
            scope: scope.into(),
            prefix: prefix.map(str::to_string),
        })
    }

    #[test]
    fn session_id_flags_take_any_next_word_and_nothing_at_the_end() {
        assert_eq!(id(&[]), scoped("worktree", None));
        assert_eq!(id(&["--scope", "cwd", "--prefix"]), scoped("cwd", None));
        assert_eq!(
            id(&["--prefix", "--scope", "cwd"]),
            scoped("worktree", Some("--scope"))
        );
        // The last value counts; a flag at the end keeps it.
        assert_eq!(
            id(&["--prefix", "a", "x", "--bogus", "--prefix", "b", "--prefix"]),
            scoped("worktree", Some("b"))
        );
    }
}
