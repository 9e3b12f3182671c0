//! `webmcp list [tool] [--frame <id>]`, `webmcp invoke <tool> [--params <json|@file>] [--frame
//! <id>] [--detach] [--timeout <ms>]`, `webmcp result <id> [--timeout <ms>]`, `webmcp cancel
//! <id>`: the tools the session's page registers with Chrome's experimental WebMCP
//! (`document.modelContext.registerTool`), read and invoked through Chrome's `WebMCP` DevTools
//! domain (`abx_engine::Session::webmcp_*`). Abx launches Chrome with WebMCP on unless
//! `--no-webmcp` / `AGENT_BROWSER_NO_WEBMCP`; then every page has no tools. Tool names,
//! descriptions and schemas are the page's claims: the reply marks them `untrusted`.

use std::time::Duration;

use abx_engine::WebMcpError;

use crate::commands::prelude::*;

/// `webmcp list`.
pub const LIST: &str = "webmcp_list";
/// `webmcp invoke`.
pub const INVOKE: &str = "webmcp_invoke";
/// `webmcp result`.
pub const RESULT: &str = "webmcp_result";
/// `webmcp cancel`.
pub const CANCEL: &str = "webmcp_cancel";

const USAGE: &str = "webmcp <list|invoke|result|cancel>";
const LIST_USAGE: &str = "webmcp list [tool] [--frame <frame-id>]";
const INVOKE_USAGE: &str =
    "webmcp invoke <tool> [--params <json|@file>] [--frame <frame-id>] [--detach] [--timeout <ms>]";
const RESULT_USAGE: &str = "webmcp result <invocation-id> [--timeout <ms>]";
const CANCEL_USAGE: &str = "webmcp cancel <invocation-id>";

/// The flags of each subcommand (`cancel` has none); any other `--` word is refused.
const LIST_FLAGS: &[Flag] = &[Flag::value(&["--frame"], "webmcp list --frame", LIST_USAGE)];
const INVOKE_FLAGS: &[Flag] = &[
    Flag::value(&["--frame"], "webmcp invoke --frame", INVOKE_USAGE),
    Flag::value(&["--params"], "webmcp invoke --params", INVOKE_USAGE),
    Flag::switch(&["--detach"]),
    Flag::value(&["--timeout"], "webmcp invoke --timeout", INVOKE_USAGE),
];
const RESULT_FLAGS: &[Flag] = &[Flag::value(
    &["--timeout"],
    "webmcp result --timeout",
    RESULT_USAGE,
)];
const CANCEL_FLAGS: &[Flag] = &[];

/// How long `invoke` (without `--detach`) and `result` wait by default.
const DEFAULT_WAIT: Duration = Duration::from_secs(20);

/// The command.
pub const COMMAND: Command = Command {
    names: &["webmcp"],
    help: Some(Help {
        about: "Page-provided WebMCP tools (experimental): list, invoke, result, cancel",
        usage: &[LIST_USAGE, INVOKE_USAGE, RESULT_USAGE, CANCEL_USAGE],
        examples: &[
            "webmcp list",
            "webmcp list add --json",
            "webmcp invoke add --params '{\"a\":2,\"b\":3}'",
            "webmcp invoke slow --detach",
            "webmcp result <invocation-id>",
        ],
        description: "\
Lists and calls the tools a page offers through WebMCP (experimental). Tool descriptions come
from the page and are untrusted.",
        sections: &[
            (
                "Subcommands",
                &[
                    (
                        "list [tool]",
                        "The page's tools, or one tool with its schema",
                    ),
                    ("invoke <tool>", "Call a tool"),
                    (
                        "result <invocation-id>",
                        "Wait for the result of a detached call",
                    ),
                    ("cancel <invocation-id>", "Cancel a running call"),
                ],
            ),
            (
                "Options",
                &[
                    (
                        "--frame <frame-id>",
                        "With list and invoke: the frame whose tools to use",
                    ),
                    ("--params <json|@file>", "With invoke: the arguments"),
                    ("--detach", "With invoke: return an invocation id at once"),
                    ("--timeout <ms>", "With invoke and result: how long to wait"),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(LIST, |ctx| Box::pin(list(ctx))).rendered(Render {
            first: Some(listed),
            example: r#"{"tools":[{"name":"add","frameId":"F1"}]}"#,
            ..Render::DEFAULT
        }),
        Action::queued(INVOKE, |ctx| Box::pin(invoke(ctx))).rendered(Render {
            first: Some(outcome),
            example: r#"{"invocationId":"i1","status":"completed","output":{"sum":3}}"#,
            ..Render::DEFAULT
        }),
        Action::queued(RESULT, |ctx| Box::pin(result(ctx))).rendered(Render {
            first: Some(outcome),
            example: r#"{"invocationId":"i1","status":"pending"}"#,
            ..Render::DEFAULT
        }),
        // Served at once: a cancel must not wait behind the invocation it cancels.
        Action::fast(CANCEL, |ctx| Box::pin(cancel(ctx))).rendered(Render {
            first: Some(outcome),
            example: r#"{"invocationId":"i1","status":"cancelled"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        2,
        "agent_browser_webmcp_list",
        "all",
        &["webmcp", "list"],
        "tool:s frameId:s@--frame",
    )
    .read_only(),
    McpTool::new(
        3,
        "agent_browser_webmcp_invoke",
        "all",
        &["webmcp", "invoke"],
        "tool:s! params:o@--params detach:b@--detach frameId:s@--frame waitTimeoutMs:i@--timeout",
    ),
    McpTool::new(
        4,
        "agent_browser_webmcp_result",
        "all",
        &["webmcp", "result"],
        "invocationId:s! waitTimeoutMs:i@--timeout",
    )
    .read_only(),
    McpTool::new(
        5,
        "agent_browser_webmcp_cancel",
        "all",
        &["webmcp", "cancel"],
        "invocationId:s!",
    ),
];

/// What the `webmcp` actions send.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebMcpRequest {
    /// The tool (`list`, `invoke`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Only this frame's tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
    /// The tool input (`invoke`), a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// Return at once with the invocation id (`invoke`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detach: bool,
    /// How long to wait for the result, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The invocation (`result`, `cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
}

fn timeout_ms(raw: &str, usage: &'static str) -> Result<u64, ParseError> {
    raw.parse::<u64>().ok().filter(|ms| *ms > 0).ok_or_else(|| {
        ParseError::invalid(
            format!("--timeout expects a number in ms, got '{raw}'"),
            usage,
        )
    })
}

/// `--params`: inline JSON or `@file`; it must be an object.
fn tool_input(raw: &str) -> Result<Value, ParseError> {
    let text = match raw.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).map_err(|e| {
            ParseError::invalid(
                format!("Cannot read WebMCP params file '{path}': {e}"),
                "webmcp invoke <tool> --params @input.json",
            )
        })?,
        None => raw.to_string(),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        ParseError::invalid(
            format!("Invalid JSON for --params: {e}"),
            "webmcp invoke <tool> --params '{\"key\":\"value\"}'",
        )
    })?;
    if !value.is_object() {
        return Err(ParseError::invalid(
            "webmcp_invalid_input: WebMCP params must be a JSON object",
            "webmcp invoke <tool> --params <json|@file>",
        ));
    }
    Ok(value)
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let sub = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("webmcp", USAGE))?;
    let args = &rest[1..];
    let mut req = WebMcpRequest::default();
    let mut positional: Vec<&str> = Vec::new();
    let (usage, flags) = match sub {
        "list" => (LIST_USAGE, LIST_FLAGS),
        "invoke" => (INVOKE_USAGE, INVOKE_FLAGS),
        "result" => (RESULT_USAGE, RESULT_FLAGS),
        "cancel" => (CANCEL_USAGE, CANCEL_FLAGS),
        other => {
            return Err(ParseError::unknown_sub(
                other,
                &["list", "invoke", "result", "cancel"],
            ));
        }
    };
    for word in scan(args, flags) {
        match word? {
            Word::Value("--frame", value) => req.frame_id = Some(value.to_string()),
            Word::Value("--params", value) => req.params = Some(tool_input(value)?),
            Word::Switch("--detach") => req.detach = true,
            Word::Value("--timeout", value) => req.timeout_ms = Some(timeout_ms(value, usage)?),
            // Another subcommand's flag, an unknown one, or a second positional word.
            other if other.text().starts_with("--") || !positional.is_empty() => {
                return Err(ParseError::invalid(
                    format!("Unknown webmcp {sub} option: {}", other.text()),
                    usage,
                ));
            }
            other => positional.push(other.text()),
        }
    }
    let first = positional.first().map(|s| s.to_string());
    let action = match sub {
        "list" => {
            req.tool = first;
            LIST
        }
        "invoke" => {
            req.tool = Some(first.ok_or_else(|| ParseError::missing("webmcp invoke", usage))?);
            INVOKE
        }
        "result" => {
            req.invocation_id =
                Some(first.ok_or_else(|| ParseError::missing("webmcp result", usage))?);
            RESULT
        }
        _ => {
            req.invocation_id =
                Some(first.ok_or_else(|| ParseError::missing("webmcp cancel", usage))?);
            CANCEL
        }
    };
    Ok(encode(action, &req))
}

/// A WebMCP error as upstream words it: `<code>: <message>`, with the code.
fn failure(err: WebMcpError) -> Failure {
    match (err.code(), err) {
        (Some(code), err) => Failure::coded(format!("{code}: {err}"), code),
        (None, WebMcpError::Engine(engine)) => Failure::from(engine),
        (None, other) => Failure::message(other.to_string()),
    }
}

fn wait(request: &WebMcpRequest) -> Duration {
    request
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_WAIT)
}

async fn list(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WebMcpRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tools = session
        .webmcp_list(request.tool.as_deref(), request.frame_id.as_deref())
        .await
        .map_err(failure)?;
    Ok(abx_engine::webmcp_tools_report(&tools))
}

async fn invoke(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WebMcpRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tool = required(&request.tool, "tool")?;
    let done = session
        .webmcp_invoke(
            tool,
            request.frame_id.as_deref(),
            request.params.clone().unwrap_or_else(|| json!({})),
            request.detach,
            wait(&request),
        )
        .await
        .map_err(failure)?;
    Ok(done.to_json())
}

async fn result(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WebMcpRequest = ctx.params()?;
    let session = ctx.session().await?;
    let id = required(&request.invocation_id, "invocationId")?;
    let done = session
        .webmcp_result(id, wait(&request))
        .await
        .map_err(failure)?;
    Ok(done.to_json())
}

async fn cancel(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WebMcpRequest = ctx.params()?;
    let session = ctx.session().await?;
    let id = required(&request.invocation_id, "invocationId")?;
    let done = session.webmcp_cancel(id).await.map_err(failure)?;
    Ok(done.to_json())
}

/// `<name> [<frame>]`, its description and origin indented; or that the page has none.
fn listed(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(tools) = data.get("tools").and_then(Value::as_array) else {
        return false;
    };
    if tools.is_empty() {
        t.out("No WebMCP tools registered on the current page");
        return true;
    }
    for tool in tools {
        t.out(&format!(
            "{} [{}]",
            s(tool, "name").unwrap_or_default(),
            s(tool, "frameId").unwrap_or_default()
        ));
        if let Some(d) = s(tool, "description").filter(|d| !d.is_empty()) {
            t.out(&format!("  {d}"));
        }
        if let Some(o) = s(tool, "origin").filter(|o| !o.is_empty()) {
            t.out(&format!("  {o}"));
        }
    }
    true
}

/// `<invocation>: <status>`, then the output as JSON (or the error text).
fn outcome(t: &mut Text<'_>, data: &Value) -> bool {
    let (Some(id), Some(status)) = (s(data, "invocationId"), s(data, "status")) else {
        return false;
    };
    t.out(&format!("{id}: {status}"));
    if let Some(output) = data.get("output") {
        t.out(&output.to_string());
    } else if let Some(error) = s(data, "error").filter(|e| !e.is_empty()) {
        t.out(error);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(words: &[&str]) -> Result<Value, ParseError> {
        let host = crate::host::MemoryHost::new();
        crate::commands::spec::parse_words(parse, "webmcp", words, &host).0
    }

    #[test]
    fn each_subcommand_takes_its_own_flags_and_one_positional_word() {
        assert_eq!(
            request(&[
                "invoke",
                "--params",
                "{}",
                "t",
                "--detach",
                "--timeout",
                "9"
            ]),
            Ok(encode(
                INVOKE,
                &WebMcpRequest {
                    tool: Some("t".into()),
                    params: Some(json!({})),
                    detach: true,
                    timeout_ms: Some(9),
                    ..WebMcpRequest::default()
                }
            ))
        );
        // A flag's value is the next word, even another flag.
        assert_eq!(
            request(&["list", "--frame", "--frame"]),
            Ok(encode(
                LIST,
                &WebMcpRequest {
                    frame_id: Some("--frame".into()),
                    ..WebMcpRequest::default()
                }
            ))
        );
        let refused = |sub: &str, word: &str, usage| {
            Err(ParseError::invalid(
                format!("Unknown webmcp {sub} option: {word}"),
                usage,
            ))
        };
        assert_eq!(
            request(&["list", "--detach"]),
            refused("list", "--detach", LIST_USAGE)
        );
        assert_eq!(
            request(&["cancel", "i", "--timeout", "5"]),
            refused("cancel", "--timeout", CANCEL_USAGE)
        );
        assert_eq!(
            request(&["result", "a", "b"]),
            refused("result", "b", RESULT_USAGE)
        );
    }

    #[test]
    fn a_missing_value_names_the_subcommand_and_errors_come_in_word_order() {
        assert_eq!(
            request(&["list", "--frame"]),
            Err(ParseError::missing("webmcp list --frame", LIST_USAGE))
        );
        assert_eq!(
            request(&["invoke", "t", "--frame"]),
            Err(ParseError::missing("webmcp invoke --frame", INVOKE_USAGE))
        );
        assert_eq!(
            request(&["result", "--timeout", "0", "--timeout"]),
            Err(ParseError::invalid(
                "--timeout expects a number in ms, got '0'",
                RESULT_USAGE
            ))
        );
        assert_eq!(
            request(&["invoke", "--bogus", "--timeout"]),
            Err(ParseError::invalid(
                "Unknown webmcp invoke option: --bogus",
                INVOKE_USAGE
            ))
        );
    }
}
