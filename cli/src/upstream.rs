//! Which upstream agent-browser this CLI is a drop-in for. A leaf: the renderer, the client,
//! the MCP server and the command modules all print it.

/// The upstream version this CLI is a drop-in for; `--version` prints `agent-browser <this>` and
/// daemons write it to `<session>.version`.
pub const UPSTREAM_VERSION: &str = "0.41.2";
