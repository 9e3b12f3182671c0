//! `connect <port|url>`: attaches the session to a browser over CDP (a `launch` request with
//! `cdpPort` or `cdpUrl`).

use abx_wire::LaunchRequest;

use super::launch::{self, CdpEndpoint};
use crate::commands::prelude::*;

/// The command.
pub const COMMAND: Command = Command {
    names: &["connect"],
    help: Some(Help {
        about: "Attach to a browser over CDP",
        usage: &["connect <port|url>"],
        examples: &[
            "connect 9222",
            "connect ws://127.0.0.1:9222/devtools/browser/<id>",
            "connect 'wss://browser.example.com?token=abc'",
        ],

        description: "\
Attaches the session to a browser that is already running with remote debugging (Chrome,
Electron apps, hosted browsers) instead of launching one.",
        sections: &[(
            "Arguments",
            &[
                ("<port>", "A local debugging port, e.g. 9222"),
                (
                    "<url>",
                    "\
ws://, wss://, http:// or https:// endpoint; a root URL with a
query needs no slash before the ?",
                ),
            ],
        )],
        notes: "\
Headers for discovery and the WebSocket handshake (an Authorization token, say) go in the
global --cdp-headers <json>.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    134,
    "agent_browser_connect",
    "debug",
    &["connect"],
    "target:s! pinTab:b@G--pin-tab",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    const USAGE: &str = "connect <port|url>";
    let endpoint = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing("connect", USAGE))?;
    let mut request = LaunchRequest::default();
    if ["ws://", "wss://", "http://", "https://"]
        .iter()
        .any(|p| endpoint.starts_with(p))
    {
        CdpEndpoint::Url(endpoint.to_string()).apply(&mut request);
        return Ok(encode(launch::ACTION, &request));
    }
    match endpoint.parse::<u32>() {
        Ok(0) => Err(ParseError::invalid(
            "Invalid port: port must be greater than 0",
            USAGE,
        )),
        Ok(p) if p > 65535 => Err(ParseError::invalid(
            format!("Invalid port: {p} is out of range (valid range: 1-65535)"),
            USAGE,
        )),
        Ok(p) => {
            CdpEndpoint::Port(p).apply(&mut request);
            Ok(encode(launch::ACTION, &request))
        }
        Err(_) => Err(ParseError::invalid(
            format!("Invalid value: '{endpoint}' is not a valid port number or URL"),
            USAGE,
        )),
    }
}
