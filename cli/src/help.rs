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

/// The general help text.
pub fn general_help() -> String {
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
    out
}

/// The commands in the help, in table order, with their words.
fn listed() -> impl Iterator<Item = (&'static [&'static str], Help)> {
    registry::TABLE
        .iter()
        .filter_map(|c| c.help.map(|help| (c.names, help)))
}

/// Sections a command's help carries after its usage, for the few that need more than usage
/// and examples.
fn details(command: &str) -> Option<&'static str> {
    match command {
        "doctor" => Some(crate::commands::control::doctor::HELP_DETAILS),
        _ => None,
    }
}

/// Help for one command, or `None` when the word is not a command.
pub fn command_help(command: &str) -> Option<String> {
    let (names, help) = listed().find(|(names, _)| names.contains(&command))?;
    let mut out = format!("\nagent-browser {} - {}\n\n", names[0], help.about);
    for (n, usage) in help.usage.iter().enumerate() {
        let lead = if n == 0 { "Usage:" } else { "      " };
        out.push_str(&format!("{lead} agent-browser {usage}\n"));
    }
    if names.len() > 1 {
        out.push_str(&format!("\nAliases: {}\n", names[1..].join(", ")));
    }
    if let Some(details) = details(names[0]) {
        out.push_str(details);
    }
    out.push_str("\nExamples:\n");
    for example in help.examples {
        out.push_str(&format!("  agent-browser {example}\n"));
    }
    out.push_str("\nGlobal Options:\n  --json               Output as JSON\n  --session <name>     Use specific session\n");
    Some(out)
}
