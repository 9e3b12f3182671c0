//! `profiles`: the Chrome profiles of the first Chrome user-data directory found under HOME
//! (`~/.config/google-chrome`, `google-chrome-unstable`, `chromium`, `BraveSoftware/Brave-Browser`),
//! by directory (what `--profile` takes) and display name.

use std::path::Path;

use abx_engine::discover;

use crate::commands::invocation::LocalCommand;
use crate::commands::prelude::*;
use crate::output::rendered::{OutputOptions, Rendered};

/// The command.
pub const COMMAND: Command = Command {
    names: &["profiles"],
    help: Some(Help {
        about: "List the Chrome profiles found in the Chrome user-data directory",
        usage: &["profiles"],
        examples: &["profiles", "profiles --json"],

        description: "\
Lists the Chrome profiles of the Chrome user-data directory under HOME, by directory name
(what --profile takes to reuse that profile's logins) and display name.",
        ..Help::BLANK
    }),
    grammar: Grammar::Local(|_| LocalCommand::Profiles),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[
        McpTool::new(142, "agent_browser_profiles", "state", &["profiles"], "")
            .read_only()
            .closed_world(),
    ];

/// Lists the profiles under `home` (upstream's text and JSON).
pub fn run(home: &Path, opts: &OutputOptions) -> Rendered {
    let Some(dir) = discover::find_user_data_dir(home) else {
        let message = "No Chrome user data directory found";
        return if opts.json {
            Rendered {
                stdout_file: None,
                stdout: format!("{}\n", json!({"success": false, "error": message})),
                stderr: String::new(),
                exit_code: 1,
            }
        } else {
            Rendered {
                stdout_file: None,
                stdout: String::new(),
                stderr: format!("{message}\n"),
                exit_code: 1,
            }
        };
    };
    let profiles = discover::profiles(&dir);
    let stdout = if opts.json {
        format!("{}\n", json!({"success": true, "data": profiles}))
    } else if profiles.is_empty() {
        "No Chrome profiles found\n".to_string()
    } else {
        let mut text = format!("Chrome profiles ({}):\n\n", dir.display());
        for profile in &profiles {
            text.push_str(&format!("  {}  ({})\n", profile.directory, profile.name));
        }
        text
    };
    Rendered {
        stdout_file: None,
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}
