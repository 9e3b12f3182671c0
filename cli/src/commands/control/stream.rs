//! `stream enable [--port <port>] | disable | status`: the session's live-view WebSocket
//! server (started at daemon boot on `AGENT_BROWSER_STREAM_PORT` or any free port). Served at
//! once.

use crate::commands::prelude::*;

/// `stream enable`.
pub const ENABLE: &str = "stream_enable";
/// `stream disable`.
pub const DISABLE: &str = "stream_disable";
/// `stream status`.
pub const STATUS: &str = "stream_status";

const USAGE: &str = "stream enable [--port <port>]";

/// `stream enable`: `{"port"?}` (0 or none: any free port).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnableRequest {
    /// The port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u32>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["stream"],
    help: Some(Help {
        about: "Live-view WebSocket stream",
        usage: &[
            "stream <enable|disable|status>",
            "stream enable [--port <port>]",
        ],
        examples: &[
            "stream status",
            "stream enable",
            "stream enable --port 9333",
            "stream disable",
        ],

        description: "\
Controls the session's live-view WebSocket server without restarting the daemon. The server
starts with the daemon on AGENT_BROWSER_STREAM_PORT or any free port; `enable` without a port
picks a free one and prints it. Clients receive frames as soon as they connect.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("enable", "Start the server"),
                    ("disable", "Stop it"),
                    ("status", "Whether it runs, and its port"),
                ],
            ),
            (
                "Options",
                &[("--port <port>", "With enable: listen on this port")],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::fast(ENABLE, |ctx| Box::pin(run_enable(ctx))).rendered(Render {
            first: Some(status_text),
            example: r#"{"enabled":true,"port":9333,"connected":false,"screencasting":false}"#,
            ..Render::DEFAULT
        }),
        Action::fast(DISABLE, |ctx| Box::pin(run_disable(ctx))).rendered(Render {
            first: Some(disabled_text),
            example: r#"{"disabled":true}"#,
            ..Render::DEFAULT
        }),
        Action::fast(STATUS, |ctx| Box::pin(run_status(ctx))).rendered(Render {
            first: Some(status_text),
            example: r#"{"enabled":true,"port":9333,"connected":false,"screencasting":false}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        135,
        "agent_browser_stream_enable",
        "debug",
        &["stream", "enable"],
        "port:i@--port",
    ),
    McpTool::new(
        136,
        "agent_browser_stream_disable",
        "debug",
        &["stream", "disable"],
        "",
    ),
    McpTool::new(
        137,
        "agent_browser_stream_status",
        "debug",
        &["stream", "status"],
        "",
    )
    .read_only(),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("enable") => {
            let mut request = EnableRequest::default();
            const FLAGS: &[Flag] = &[Flag::value(&["--port"], "stream enable --port", USAGE)];
            for word in scan(&rest[1..], FLAGS) {
                match word? {
                    Word::Value(_, raw) => {
                        let port = raw.parse::<u32>().map_err(|_| {
                            ParseError::invalid(
                                format!("Invalid port: '{raw}' is not a valid integer"),
                                USAGE,
                            )
                        })?;
                        if port > u32::from(u16::MAX) {
                            return Err(ParseError::invalid(
                                format!(
                                    "Invalid port: {port} is out of range (valid range: 0-65535)"
                                ),
                                USAGE,
                            ));
                        }
                        request.port = Some(port);
                    }
                    other => {
                        return Err(ParseError::invalid(
                            format!("Unknown flag for stream enable: {}", other.text()),
                            USAGE,
                        ));
                    }
                }
            }
            Ok(encode(ENABLE, &request))
        }
        Some("disable") => Ok(encode(DISABLE, &NoParams {})),
        Some("status") => Ok(encode(STATUS, &NoParams {})),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["enable", "disable", "status"],
        )),
        None => Err(ParseError::missing(
            "stream",
            "stream <enable|disable|status>",
        )),
    }
}

/// `Streaming enabled on ws://127.0.0.1:<port>` with its connection state, or `Streaming
/// disabled`.
fn status_text(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(enabled) = b(data, "enabled") else {
        return false;
    };
    if !enabled {
        t.out("Streaming disabled");
        return true;
    }
    let Some(port) = u(data, "port") else {
        return false;
    };
    let connected = b(data, "connected").unwrap_or(false);
    let screencasting = b(data, "screencasting").unwrap_or(false);
    t.out(&format!(
        "Streaming enabled on ws://127.0.0.1:{port}\nConnected: {connected}\nScreencasting: {screencasting}"
    ));
    true
}

fn disabled_text(t: &mut Text<'_>, data: &Value) -> bool {
    if b(data, "disabled") == Some(true) {
        t.out("Streaming disabled");
        return true;
    }
    false
}

fn not_available() -> Failure {
    Failure::message("Streaming is not available in this daemon")
}

async fn run_status(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    Ok(match ctx.stream() {
        Some(stream) => stream.status(),
        None => json!({
            "enabled": false,
            "port": null,
            "connected": ctx.live().is_some(),
            "screencasting": false,
        }),
    })
}

async fn run_enable(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let stream = ctx.stream().ok_or_else(not_available)?;
    let port = match ctx.request().params.get("port") {
        None | Some(Value::Null) => 0,
        Some(_) => ctx
            .request()
            .u64("port")
            .and_then(|p| u16::try_from(p).ok())
            .ok_or_else(|| Failure::message("Invalid port: expected a number from 0 to 65535"))?,
    };
    stream.enable(port)
}

async fn run_disable(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    ctx.stream().ok_or_else(not_available)?.disable()
}
