//! `--help` text, from the command registry: the general help lists every command's first usage
//! line, `<command> --help` shows its usage lines, aliases and examples. Not byte-identical to
//! upstream; the usage lines match the ones in parse errors.

use crate::commands::registry::{self, Help};

const START_HERE: &str = "\
Start here (agents): agent-browser skills get core
  The guide built into this binary: the loop, refs, waits, dialogs, tabs, frames, network,
  logins, troubleshooting. `skills list` shows the others; `skills get core --full` prints
  every reference.

  agent-browser --session <name> open <url>     1. open a page (a session name of your own)
  agent-browser --session <name> snapshot -i    2. read it: interactive elements with @refs
  agent-browser --session <name> click @e3      3. act on a ref (fill, type, press, select, ...)
  agent-browser --session <name> snapshot -i    4. look again after the page changes
  agent-browser --session <name> close          5. close when done

  Something wrong with Chrome, sockets or the daemon: agent-browser doctor
  No Chrome yet: agent-browser install

";

const GLOBALS: &str = "\
Global options (anywhere on the command line):
  --session <name>           Session (or AGENT_BROWSER_SESSION, default \"default\")
  --namespace <name>         Namespace sockets and state (or AGENT_BROWSER_NAMESPACE)
  --json                     One line of JSON on stdout
  --headed                   Show the browser window (or AGENT_BROWSER_HEADED)
  --cdp <port|url>           Attach over CDP
  --cdp-headers <json>       Headers for CDP discovery and handshake
  --auto-connect             Attach to a running Chrome
  --pin-tab / --no-pin-tab   Bind the session strictly to its tab
  -p, --provider <name>      Browser provider
  --device <name>            iOS device
  --executable-path <path>   Browser binary
  --profile <name|path>      Chrome profile or persistent user-data-dir
  --state <path>             Load storage state at launch
  --restore [name]           Restore and autosave session state
  --restore-save <policy>    auto | always | never
  --session-name <name>      Legacy restore key
  --extension <path>         Load an unpacked extension (repeatable)
  --init-script <path>       Register a page init script (repeatable)
  --enable <feature>         Built-in init scripts, e.g. react-devtools
  --args <args>              Browser args (newline-separated, or comma before another flag)
  --user-agent <ua>          User-Agent override
  --proxy <url>              Proxy (credentials in the URL are split out)
  --proxy-bypass <hosts>     Proxy bypass list
  --headers <json>           Headers for `open`, scoped to the URL's origin
  --ignore-https-errors      Ignore certificate errors
  --allow-file-access        Allow file:// pages to read local files
  --hide-scrollbars [bool]   Hide scrollbars (default true)
  --webgpu                   WebGPU launch preset
  --color-scheme <scheme>    dark | light | no-preference
  --download-path <path>     Download directory
  --allowed-domains <list>   Restrict navigation to these domains
  --action-policy <path>     Action policy file
  --confirm-actions <list>   Action categories needing `confirm`
  --confirm-interactive      Prompt on a TTY for confirmations
  --engine <name>            chrome | lightpanda | obscura
  --annotate                 Numbered labels on screenshots
  --screenshot-dir <path>    Default screenshot directory
  --screenshot-format <fmt>  png | jpeg
  --screenshot-quality <n>   JPEG quality 0-100
  --content-boundaries       Wrap page text in nonce markers
  --max-output <n>           Truncate page text to n characters
  --idle-timeout <t>         Daemon idle shutdown (10s, 3m, 1h or ms)
  --no-auto-dialog           Do not auto-accept alert/beforeunload
  --ca-cert <path>           Trust this CA (Linux, local Chromium)
  --no-ca-cert               Ignore configured CA certificates
  --use-system-ca            Trust the system CA store
  --no-webmcp                Disable WebMCP features
  --input-mode <mode>        instant | smooth | human
  --config <path>            Use only this config file (or AGENT_BROWSER_CONFIG)
  --debug                    Daemon log in the socket directory
  -h, --help                 Help (general, or for one command)
  -V, --version              Version

Boolean options accept an optional true/false (`--headed false`).
Configuration: ~/.agent-browser/config.json < ./agent-browser.json < environment < flags.
";

/// Environment variables abx reads, each once (upstream's `help_cli` test checks that no name
/// repeats between `Environment:` and `Install:`). Internal ones (set by abx for the processes
/// it spawns) are left out.
const ENVIRONMENT: &str = "\
Environment:
  AGENT_BROWSER_SESSION              Session name (default \"default\")
  AGENT_BROWSER_NAMESPACE            Separate sockets and saved state per namespace
  AGENT_BROWSER_SOCKET_DIR           Directory of the session sockets and daemon files
  AGENT_BROWSER_CONFIG               Use only this config file
  AGENT_BROWSER_JSON                 JSON output
  AGENT_BROWSER_DEBUG                Daemon debug log in the socket directory
  AGENT_BROWSER_COLOR                Coloured text output when truthy (NO_COLOR turns it off)
  AGENT_BROWSER_HEADED               Show the browser window
  AGENT_BROWSER_NO_XVFB              Never start a private Xvfb for a headed browser
  AGENT_BROWSER_EXECUTABLE_PATH      Browser binary
  AGENT_BROWSER_ENGINE               chrome | lightpanda | obscura
  AGENT_BROWSER_PROVIDER             Browser provider
  AGENT_BROWSER_IOS_DEVICE           iOS device name
  AGENT_BROWSER_ARGS                 Extra browser arguments (newline or comma separated)
  AGENT_BROWSER_USER_AGENT           User-Agent override
  AGENT_BROWSER_PROFILE              Chrome profile name or persistent user-data-dir
  AGENT_BROWSER_EXTENSIONS           Unpacked extensions to load, comma separated
  AGENT_BROWSER_INIT_SCRIPTS         Page init scripts, comma separated
  AGENT_BROWSER_ENABLE               Built-in init scripts, e.g. react-devtools
  AGENT_BROWSER_CDP                  Attach over CDP to this port or URL
  AGENT_BROWSER_CDP_HEADERS          JSON headers for CDP discovery and handshake
  AGENT_BROWSER_AUTO_CONNECT         Attach to a running Chrome
  AGENT_BROWSER_PIN_TAB              Bind the session strictly to its tab
  AGENT_BROWSER_PROXY                Proxy URL (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY when unset)
  AGENT_BROWSER_PROXY_BYPASS         Proxy bypass list (NO_PROXY when unset)
  AGENT_BROWSER_IGNORE_HTTPS_ERRORS  Ignore certificate errors
  AGENT_BROWSER_CA_CERT              A CA certificate to trust
  AGENT_BROWSER_CLEAR_CA_CERT        Ignore configured CA certificates
  AGENT_BROWSER_USE_SYSTEM_CA        Trust the system CA store
  AGENT_BROWSER_ALLOW_FILE_ACCESS    Let file:// pages read local files
  AGENT_BROWSER_HIDE_SCROLLBARS      Hide scrollbars (default true)
  AGENT_BROWSER_WEBGPU               WebGPU launch preset
  AGENT_BROWSER_NO_WEBMCP            Disable WebMCP features
  AGENT_BROWSER_COLOR_SCHEME         dark | light | no-preference
  AGENT_BROWSER_DOWNLOAD_PATH        Download directory
  AGENT_BROWSER_DEFAULT_TIMEOUT      Default operation timeout in ms (default 25000)
  AGENT_BROWSER_IDLE_TIMEOUT_MS      Daemon idle shutdown in ms (0: never)
  AGENT_BROWSER_NO_AUTO_DIALOG       Leave alert/beforeunload dialogs open
  AGENT_BROWSER_STATE                Storage state file to load at launch
  AGENT_BROWSER_RESTORE              Restore and autosave state under this key
  AGENT_BROWSER_RESTORE_SAVE         auto | always | never
  AGENT_BROWSER_RESTORE_CHECK_URL    Restore check: the URL to open
  AGENT_BROWSER_RESTORE_CHECK_TEXT   Restore check: text the page must show
  AGENT_BROWSER_RESTORE_CHECK_FN     Restore check: a function that must return true
  AGENT_BROWSER_AUTOSAVE_INTERVAL_MS Autosave period of restored state (default 30000; 0: on close)
  AGENT_BROWSER_SESSION_NAME         Legacy restore key
  AGENT_BROWSER_ENCRYPTION_KEY       64 hex characters: key of encrypted state and the auth vault
  AGENT_BROWSER_STATE_EXPIRE_DAYS    Saved states older than this are removed (default 30)
  AGENT_BROWSER_ALLOWED_DOMAINS      Restrict navigation to these domains
  AGENT_BROWSER_ACTION_POLICY        Action policy file (AGENT_BROWSER_POLICY: older name)
  AGENT_BROWSER_CONFIRM_ACTIONS      Action categories needing `confirm`
  AGENT_BROWSER_CONFIRM_INTERACTIVE  Prompt on a TTY for confirmations
  AGENT_BROWSER_CONTENT_BOUNDARIES   Wrap page text in nonce markers
  AGENT_BROWSER_MAX_OUTPUT           Truncate page text to this many characters
  AGENT_BROWSER_ANNOTATE             Numbered labels on screenshots
  AGENT_BROWSER_SCREENSHOT_DIR       Default screenshot directory
  AGENT_BROWSER_SCREENSHOT_FORMAT    png | jpeg
  AGENT_BROWSER_SCREENSHOT_QUALITY   JPEG quality 0-100
  AGENT_BROWSER_STREAM_PORT          Live-view stream port (default: any free port)
  AGENT_BROWSER_STREAM_QUALITY       Live-view JPEG quality 0-100 (default 80)
  AGENT_BROWSER_STREAM_MAX_WIDTH     Live-view frame width limit in pixels
  AGENT_BROWSER_STREAM_MAX_HEIGHT    Live-view frame height limit in pixels
  AGENT_BROWSER_STREAM_TOKEN         Token every live-view client must present (abx)
  AGENT_BROWSER_DASHBOARD_TOKEN      Token of the dashboard (abx)
  AGENT_BROWSER_PLUGINS              Plugin registry, JSON
  AGENT_BROWSER_SKILLS_DIR           Read skills from this directory instead of the built-in ones
  AI_GATEWAY_API_KEY                 Key for `chat` (abx does not provide chat)
  AI_GATEWAY_MODEL                   Model for `chat`

Install:
  npm install -g agent-browser       The package (abx is a drop-in for its binary)
  agent-browser install              Download Chrome the first time
  agent-browser doctor               Check the installation
";

/// The general help text.
pub(crate) fn general_help() -> String {
    let mut out = String::from(
        "agent-browser - browser automation for agents (abx)\n\nUsage: agent-browser [options] <command> [args] [options]\n\n",
    );
    out.push_str(START_HERE);
    out.push_str("Commands:\n");
    for (_, help) in listed() {
        let usage = help.usage.first().copied().unwrap_or_default();
        out.push_str(&format!("  {usage:<44} {}\n", help.about));
    }
    out.push('\n');
    out.push_str(GLOBALS);
    out.push('\n');
    out.push_str(ENVIRONMENT);
    out
}

/// The commands in the help, in table order, with their words.
fn listed() -> impl Iterator<Item = (&'static [&'static str], Help)> {
    registry::TABLE
        .iter()
        .filter_map(|c| c.help.map(|help| (c.names, help)))
}

/// Help for one command, or `None` when the word is not a command. Its sections come in
/// upstream's order: title, usage, description, lists (options, subcommands), notes, exit codes,
/// global options, examples.
pub(crate) fn command_help(command: &str) -> Option<String> {
    let (names, help) = listed().find(|(names, _)| names.contains(&command))?;
    let mut out = format!("\nagent-browser {} - {}\n\n", names[0], help.about);
    for (n, usage) in help.usage.iter().enumerate() {
        let lead = if n == 0 { "Usage:" } else { "      " };
        out.push_str(&format!("{lead} agent-browser {usage}\n"));
    }
    if names.len() > 1 {
        out.push_str(&format!("\nAliases: {}\n", names[1..].join(", ")));
    }
    paragraph(&mut out, help.description);
    for (heading, rows) in help.sections {
        out.push_str(&format!("\n{heading}:\n"));
        rows_into(&mut out, rows);
    }
    paragraph(&mut out, help.notes);
    if !help.exit_codes.is_empty() {
        out.push_str("\nExit codes:\n");
        for (code, meaning) in help.exit_codes {
            out.push_str(&format!("  {code}  {meaning}\n"));
        }
    }
    out.push_str("\nGlobal Options:\n  --json               Output as JSON\n  --session <name>     Use specific session\n");
    out.push_str("\nExamples:\n");
    for example in help.examples {
        out.push_str(&format!("  agent-browser {example}\n"));
    }
    Some(out)
}

/// A blank line and `text` (nothing when it is empty).
fn paragraph(out: &mut String, text: &str) {
    let text = text.trim_matches('\n');
    if !text.is_empty() {
        out.push('\n');
        out.push_str(text);
        out.push('\n');
    }
}

/// Rows of word and meaning, the meanings aligned in one column (a word too long for it gets
/// its meaning on the next line); further lines of a meaning are indented to that column.
fn rows_into(out: &mut String, rows: &[(&str, &str)]) {
    const COLUMN: usize = 21;
    let indent = " ".repeat(COLUMN + 2);
    for (word, meaning) in rows {
        let mut lines = meaning.lines();
        let first = lines.next().unwrap_or_default();
        if word.chars().count() < COLUMN {
            out.push_str(&format!("  {word:<COLUMN$}{first}\n"));
        } else {
            out.push_str(&format!("  {word}\n{indent}{first}\n"));
        }
        for line in lines {
            out.push_str(&format!("{indent}{line}\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_section_names_each_variable_once_before_install() {
        let help = general_help();
        let (_, rest) = help
            .split_once("Environment:\n")
            .expect("an Environment section");
        let (section, _) = rest
            .split_once("\nInstall:")
            .expect("Install after Environment");
        let mut seen = std::collections::HashSet::new();
        for name in section.lines().filter_map(|l| l.split_whitespace().next()) {
            assert!(seen.insert(name), "{name} is listed twice");
        }
        assert!(seen.len() > 40, "only {} variables", seen.len());
    }

    #[test]
    fn command_help_lists_sections_in_upstream_order() {
        let text = command_help("doctor").expect("doctor help");
        let at = |heading: &str| {
            text.find(heading)
                .unwrap_or_else(|| panic!("{heading} missing:\n{text}"))
        };
        let order = [
            "Usage:",
            "Options:",
            "Exit codes:",
            "Global Options:",
            "Examples:",
        ]
        .map(at);
        assert!(order.is_sorted(), "{order:?}\n{text}");
    }
}
