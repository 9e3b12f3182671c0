//! The `agent-browser` CLI, minus I/O: argv, environment and config files → daemon requests, and
//! daemon responses → text or JSON, exactly as upstream agent-browser 0.41.2 does.
//!
//! The binary calls [`parse`] with the process argv and a [`host::SystemHost`], prints any
//! [`Invocation::warnings`], then either runs the [`commands::LocalCommand`] or sends the
//! [`commands::Plan`]'s requests (adding `"id"`) and prints each response with
//! [`output::render_response`]. Parsing never touches the process environment directly: everything
//! goes through a [`host::Host`], so tests pin HOME, cwd, variables, files and stdin.
//!
//! Every command is one module in [`commands::registry`]: its words, help, grammar, wire
//! actions (lane, handler, text rendering and its example) and MCP tools. The binary hands the
//! registry's routes to the session daemon (`abx_daemon::run`), so the parser, the help, the
//! renderer, the MCP server and the daemon read the same table.
//!
//! ```
//! use agent_browser::host::MemoryHost;
//! let host = MemoryHost::new().with_var(abx_wire::env::SESSION, "fake");
//! let argv: Vec<String> = ["open", "example.com"].iter().map(|s| s.to_string()).collect();
//! let inv = agent_browser::parse(&argv, &host).expect("parses");
//! assert_eq!(inv.requests()[0]["url"], "https://example.com");
//! ```
//!
//! Deliberate divergences from upstream 0.41.2:
//! * `errors` prints each entry's `text` (upstream prints an empty `✗ ` per entry because it reads a
//!   `message` field the daemon never sends).
//! * `storage local|session clear` prints `✓ Storage cleared` (upstream: `✓ Request log cleared`).
//! * `skills` serves abx's own guides (embedded in the binary); `install` never downloads a browser
//!   (it finds a system Chrome or installs Debian's `chromium` with apt-get as root); `upgrade`
//!   only says how to replace the binary; `doctor` checks what abx needs, without the network.
//! * `plugin(s)` and `chat` are not provided: they exit 1 with a clear message.
//! * `a11y` runs abx's own checks in axe-core's report shape (docs/a11y.md); `react` reads fibers
//!   through abx's own DevTools hook (docs/react.md); `webmcp` uses Chrome's WebMCP domain
//!   (docs/webmcp.md).
//! * `--max-output` also truncates console output without `--content-boundaries`.

pub mod client;
pub mod commands;
pub mod fingerprint;
pub mod flags;
mod globals;
mod help;
pub mod host;
pub mod mcp;
pub mod output;
pub mod session;
mod upstream;

pub use client::request_id;
pub use commands::{Command, Failure, Invocation, parse};
pub use output::{Rendered, Response};
pub use upstream::UPSTREAM_VERSION;

impl Invocation {
    /// The `<session>.config` fingerprint JSON for this invocation's daemon-owned options.
    pub fn fingerprint(&self) -> String {
        fingerprint::fingerprint_json(&self.flags)
    }

    /// Environment for a daemon spawned for this invocation (see [`fingerprint::daemon_env`]).
    pub fn daemon_env(&self) -> Vec<(String, String)> {
        fingerprint::daemon_env(&self.session, &self.flags)
    }

    /// Managed variables to remove from a spawned daemon's environment.
    pub fn daemon_env_unset(&self) -> Vec<String> {
        fingerprint::daemon_env_unset(&self.session, &self.flags)
    }
}
