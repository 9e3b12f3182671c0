//! What one of upstream's MCP tools is ([`McpTool`]), as each command module declares it. A
//! leaf: the command registry lists the declarations, and the tool machinery
//! ([`super::tools`]) reads them through the registry.

use serde_json::{Map, Value};

/// Rewrites a call's positional words where upstream's arguments do not map one to one onto
/// the command's words (`find`'s implied action, `set media`'s `reduce`).
pub type Arrange = fn(&Map<String, Value>, Vec<String>) -> Vec<String>;

/// One of upstream's tools, declared in the module of the command it runs.
#[derive(Debug, Clone, Copy)]
pub struct McpTool {
    /// Its place in upstream's tool list: `tools/list` keeps upstream's order.
    pub position: u16,
    /// `agent_browser_…`.
    pub name: &'static str,
    /// Its profile besides `all` (`all`: none).
    pub profile: &'static str,
    /// The command words (empty: the profiles tool, answered by the server).
    pub words: &'static [&'static str],
    /// Its arguments, in the notation of the [`super::tools`] docs.
    pub params: &'static str,
    /// It only reads.
    pub read_only: bool,
    /// It reaches pages on the web.
    pub open_world: bool,
    /// It is in the default `core` profile (the everyday loop, kept small on purpose).
    pub in_core: bool,
    /// See [`Arrange`].
    pub arrange: Option<Arrange>,
}

impl McpTool {
    /// A tool that may change the page and reaches the web, outside `core`.
    pub const fn new(
        position: u16,
        name: &'static str,
        profile: &'static str,
        words: &'static [&'static str],
        params: &'static str,
    ) -> McpTool {
        McpTool {
            position,
            name,
            profile,
            words,
            params,
            read_only: false,
            open_world: true,
            in_core: false,
            arrange: None,
        }
    }

    /// See [`McpTool::read_only`].
    pub const fn read_only(self) -> McpTool {
        McpTool {
            read_only: true,
            ..self
        }
    }

    /// It reaches nothing on the web (`openWorldHint: false`).
    pub const fn closed_world(self) -> McpTool {
        McpTool {
            open_world: false,
            ..self
        }
    }

    /// See [`McpTool::in_core`].
    pub const fn in_core(self) -> McpTool {
        McpTool {
            in_core: true,
            ..self
        }
    }

    /// See [`McpTool::arrange`].
    pub const fn arranged(self, arrange: Arrange) -> McpTool {
        McpTool {
            arrange: Some(arrange),
            ..self
        }
    }
}
