//! `--help` text. Not byte-identical to upstream; the usage lines match the ones in parse errors.

/// One command's usage lines and a one-line description.
struct Entry {
    names: &'static [&'static str],
    usage: &'static [&'static str],
    about: &'static str,
}

const COMMANDS: &[Entry] = &[
    Entry {
        names: &["open", "goto", "navigate"],
        usage: &["open [url]", "goto <url>", "navigate <url>"],
        about: "Launch the browser and navigate (https:// is added when no scheme is given)",
    },
    Entry {
        names: &["back"],
        usage: &["back"],
        about: "Go back in history",
    },
    Entry {
        names: &["forward"],
        usage: &["forward"],
        about: "Go forward in history",
    },
    Entry {
        names: &["reload"],
        usage: &["reload"],
        about: "Reload the page",
    },
    Entry {
        names: &["pushstate"],
        usage: &["pushstate <url>"],
        about: "Client-side navigation via history.pushState",
    },
    Entry {
        names: &["click"],
        usage: &["click <selector> [--new-tab] [--human]"],
        about: "Click an element (CSS, xpath=…, or @ref from a snapshot)",
    },
    Entry {
        names: &["dblclick"],
        usage: &["dblclick <selector>"],
        about: "Double-click an element",
    },
    Entry {
        names: &["fill"],
        usage: &["fill <selector> <text>"],
        about: "Clear an input and fill it",
    },
    Entry {
        names: &["type"],
        usage: &["type <selector> <text> [--clear] [--delay <ms>]"],
        about: "Type text into an element",
    },
    Entry {
        names: &["press", "key"],
        usage: &["press <key>"],
        about: "Press a key (Enter, Tab, Control+a, …)",
    },
    Entry {
        names: &["keydown"],
        usage: &["keydown <key>"],
        about: "Hold a key down",
    },
    Entry {
        names: &["keyup"],
        usage: &["keyup <key>"],
        about: "Release a key",
    },
    Entry {
        names: &["keyboard"],
        usage: &["keyboard <type|inserttext> <text>"],
        about: "Type or insert text at the focus",
    },
    Entry {
        names: &["hover"],
        usage: &["hover <selector>"],
        about: "Hover an element",
    },
    Entry {
        names: &["focus"],
        usage: &["focus <selector>"],
        about: "Focus an element",
    },
    Entry {
        names: &["check"],
        usage: &["check <selector>"],
        about: "Check a checkbox",
    },
    Entry {
        names: &["uncheck"],
        usage: &["uncheck <selector>"],
        about: "Uncheck a checkbox",
    },
    Entry {
        names: &["select"],
        usage: &["select <selector> <value...>"],
        about: "Select option(s) by value or label",
    },
    Entry {
        names: &["drag"],
        usage: &["drag <source> <target>"],
        about: "Drag one element onto another",
    },
    Entry {
        names: &["upload"],
        usage: &["upload <selector> <files...>"],
        about: "Set files on a file input",
    },
    Entry {
        names: &["download"],
        usage: &["download <selector> <path>"],
        about: "Click and save the download",
    },
    Entry {
        names: &["scroll"],
        usage: &["scroll [direction] [amount] [--selector <sel>]"],
        about: "Scroll the page or an element (default down 300)",
    },
    Entry {
        names: &["scrollintoview", "scrollinto"],
        usage: &["scrollintoview <selector>"],
        about: "Scroll an element into view",
    },
    Entry {
        names: &["highlight"],
        usage: &["highlight <selector>"],
        about: "Highlight an element",
    },
    Entry {
        names: &["wait"],
        usage: &[
            "wait <selector|ms|--url|--load|--fn|--text|--download> [--timeout <ms>]",
            "wait <selector> --state <visible|hidden|attached|detached>",
        ],
        about: "Wait for time, an element, text, a URL, a load state, a function or a download",
    },
    Entry {
        names: &["screenshot"],
        usage: &["screenshot [selector] [path] [--full] [--if-changed] [--threshold <0-1>]"],
        about: "Take a screenshot (--annotate adds numbered labels)",
    },
    Entry {
        names: &["pdf"],
        usage: &["pdf <path>"],
        about: "Save the page as PDF",
    },
    Entry {
        names: &["snapshot"],
        usage: &["snapshot [-i] [-c] [-d <n>] [-s <sel>] [-u] [-C] [--delta]"],
        about: "Accessibility tree with refs",
    },
    Entry {
        names: &["eval"],
        usage: &[
            "eval <js>",
            "eval -b <base64-encoded-script>",
            "eval --stdin",
        ],
        about: "Evaluate JavaScript",
    },
    Entry {
        names: &["read"],
        usage: &[
            "read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>] [--timeout <ms>]",
        ],
        about: "Read a page (or URL) as text/markdown",
    },
    Entry {
        names: &["get"],
        usage: &["get <text|html|value|attr|url|title|count|box|styles|cdp-url> [args...]"],
        about: "Read element or page properties",
    },
    Entry {
        names: &["is"],
        usage: &["is <visible|enabled|checked> <selector>"],
        about: "Check element state",
    },
    Entry {
        names: &["find"],
        usage: &[
            "find <locator> <value> [action] [text]",
            "find role <role> [action] [--name <name>] [--exact]",
            "find nth <index> <selector> [action] [text]",
        ],
        about: "Semantic locators: role text label placeholder alt title testid first last nth",
    },
    Entry {
        names: &["mouse"],
        usage: &["mouse <move|down|up|wheel> [args...]"],
        about: "Low-level mouse input",
    },
    Entry {
        names: &["set"],
        usage: &["set <viewport|device|geo|offline|headers|credentials|media> [args...]"],
        about: "Emulation and browser settings",
    },
    Entry {
        names: &["cookies"],
        usage: &[
            "cookies [get|set|clear]",
            "cookies set <name> <value> [--url <url>] [--domain <domain>] [--path <path>] [--http-only] [--secure] [--same-site <Strict|Lax|None>] [--expires <timestamp>]",
            "cookies set --curl <file> [--domain <domain>] [--url <url>]",
        ],
        about: "Read and write cookies",
    },
    Entry {
        names: &["storage"],
        usage: &["storage <local|session> [get|set|clear] [key] [value]"],
        about: "Read and write web storage",
    },
    Entry {
        names: &["network"],
        usage: &["network <route|unroute|requests|request|har> [args...]"],
        about: "Interception, request log, HAR",
    },
    Entry {
        names: &["tab"],
        usage: &[
            "tab [list]",
            "tab new [--label <name>] [url]",
            "tab <tN|label|targetId>",
            "tab close [ref]",
        ],
        about: "Tabs",
    },
    Entry {
        names: &["window"],
        usage: &["window <new>"],
        about: "Open a window",
    },
    Entry {
        names: &["frame"],
        usage: &["frame <selector|main>"],
        about: "Scope commands to an iframe (or back to the main frame)",
    },
    Entry {
        names: &["dialog"],
        usage: &["dialog <accept|dismiss|status> [text]"],
        about: "Handle JavaScript dialogs",
    },
    Entry {
        names: &["trace"],
        usage: &["trace <start|stop> [path]"],
        about: "Performance trace",
    },
    Entry {
        names: &["profiler"],
        usage: &["profiler <start|stop> [options]"],
        about: "Chromium profiler",
    },
    Entry {
        names: &["record"],
        usage: &["record <start|stop|restart> [path] [url]"],
        about: "Record a WebM video (needs ffmpeg)",
    },
    Entry {
        names: &["console"],
        usage: &["console [--clear]"],
        about: "Console messages",
    },
    Entry {
        names: &["errors"],
        usage: &["errors [--clear]"],
        about: "Page errors",
    },
    Entry {
        names: &["clipboard"],
        usage: &["clipboard <read|write|copy|paste> [text]"],
        about: "Clipboard",
    },
    Entry {
        names: &["state"],
        usage: &["state <save|load|list|clear|show|clean|rename> ..."],
        about: "Saved storage state",
    },
    Entry {
        names: &["tap"],
        usage: &["tap <selector>"],
        about: "Tap an element (touch)",
    },
    Entry {
        names: &["swipe"],
        usage: &["swipe <up|down|left|right> [distance]"],
        about: "Swipe (touch)",
    },
    Entry {
        names: &["device"],
        usage: &["device list"],
        about: "List iOS simulators",
    },
    Entry {
        names: &["diff"],
        usage: &["diff <snapshot|screenshot|url>"],
        about: "Compare snapshots, screenshots or URLs",
    },
    Entry {
        names: &["batch"],
        usage: &["batch [--bail] [\"cmd args\" ...]"],
        about: "Run several commands (arguments, or a JSON array on stdin)",
    },
    Entry {
        names: &["react"],
        usage: &["react <tree|inspect|renders|suspense>"],
        about: "React introspection (needs --enable react-devtools)",
    },
    Entry {
        names: &["vitals", "web-vitals"],
        usage: &["vitals [url]"],
        about: "Core Web Vitals",
    },
    Entry {
        names: &["a11y"],
        usage: &["a11y [url] [--tags <list>] [--selector <sel>]"],
        about: "Accessibility audit",
    },
    Entry {
        names: &["removeinitscript"],
        usage: &["removeinitscript <identifier>"],
        about: "Remove a registered init script",
    },
    Entry {
        names: &["inspect"],
        usage: &["inspect"],
        about: "Open DevTools for the page",
    },
    Entry {
        names: &["auth"],
        usage: &["auth <save|login|list|delete|show> ..."],
        about: "Credential vault",
    },
    Entry {
        names: &["confirm"],
        usage: &["confirm <confirmation-id>"],
        about: "Approve a pending action",
    },
    Entry {
        names: &["deny"],
        usage: &["deny <confirmation-id>"],
        about: "Deny a pending action",
    },
    Entry {
        names: &["connect"],
        usage: &["connect <port|url>"],
        about: "Attach to a browser over CDP",
    },
    Entry {
        names: &["stream"],
        usage: &[
            "stream <enable|disable|status>",
            "stream enable [--port <port>]",
        ],
        about: "Live-view WebSocket stream",
    },
    Entry {
        names: &["session"],
        usage: &[
            "session [list|info]",
            "session id [--scope worktree|cwd|git-root] [--prefix <p>]",
        ],
        about: "Sessions",
    },
    Entry {
        names: &["close", "quit", "exit"],
        usage: &["close [--all]"],
        about: "Close the browser (and the session daemon)",
    },
];

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
        "agent-browser - browser automation for agents (abx)\n\nUsage: agent-browser [options] <command> [args] [options]\n\nCommands:\n",
    );
    for entry in COMMANDS {
        let usage = entry.usage.first().copied().unwrap_or_default();
        out.push_str(&format!("  {usage:<44} {}\n", entry.about));
    }
    out.push('\n');
    out.push_str(GLOBALS);
    out
}

/// Help for one command, or `None` when the word is not a command.
pub fn command_help(command: &str) -> Option<String> {
    let entry = COMMANDS.iter().find(|e| e.names.contains(&command))?;
    let mut out = format!("\nagent-browser {} - {}\n\n", entry.names[0], entry.about);
    for (n, usage) in entry.usage.iter().enumerate() {
        let lead = if n == 0 { "Usage:" } else { "      " };
        out.push_str(&format!("{lead} agent-browser {usage}\n"));
    }
    if entry.names.len() > 1 {
        out.push_str(&format!("\nAliases: {}\n", entry.names[1..].join(", ")));
    }
    out.push_str("\nGlobal Options:\n  --json               Output as JSON\n  --session <name>     Use specific session\n");
    Some(out)
}
