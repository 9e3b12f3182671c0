//! `session [list|info]`, `session id [--scope worktree|cwd|git-root] [--prefix <p>]`: answered
//! by the CLI (`session info` adds the daemon's `session_info`).

use crate::commands::prelude::*;
use crate::commands::{LocalCommand, SessionCommand};

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
        examples: &["session list", "session id --prefix ci"],
    }),
    grammar: Grammar::Local(parse),
    actions: &[Action::fast(INFO, |ctx| Box::pin(run_info(ctx)))],
};

fn parse(clean: &[String]) -> LocalCommand {
    LocalCommand::Session(match clean.get(1).map(String::as_str) {
        Some("list") => SessionCommand::List,
        Some("info") => SessionCommand::Info,
        Some("id") => {
            let mut scope = "worktree".to_string();
            let mut prefix = None;
            let mut i = 2;
            while i < clean.len() {
                match clean[i].as_str() {
                    "--scope" => {
                        if let Some(v) = clean.get(i + 1) {
                            scope = v.clone();
                            i += 1;
                        }
                    }
                    "--prefix" => {
                        if let Some(v) = clean.get(i + 1) {
                            prefix = Some(v.clone());
                            i += 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            SessionCommand::Id { scope, prefix }
        }
        _ => SessionCommand::Show,
    })
}

async fn run_info(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let config = ctx.config();
    let live = ctx.live();
    Ok(json!({
        "session": config.session,
        "socketDir": config.socket_dir,
        "backgroundPid": std::process::id(),
        "browserLaunched": live.is_some(),
        "engine": "chrome",
        "launchHash": live.as_ref().map(|l| l.hash),
        "pageCount": live.as_ref().map(|l| l.session.tabs().len()).unwrap_or(0),
        "cdpUrl": live.as_ref().map(|l| l.session.browser().cdp_url().to_string()),
        "pinned": live.as_ref().map(|l| l.spec.pin_tab).unwrap_or(false),
    }))
}
