//! `storage local|session [get|set|clear] [key] [value]`: the active page's web storage.

use abx_engine::emulation::StorageRead;

use crate::commands::prelude::*;
use crate::output::text::json_string;

/// `storage <kind> [get] [key]`.
pub const GET: &str = "storage_get";
/// `storage <kind> set <key> <value>`.
pub const SET: &str = "storage_set";
/// `storage <kind> clear`.
pub const CLEAR: &str = "storage_clear";

/// `{"type", "key"?, "value"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageRequest {
    /// `local` or `session`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The item (`get`: all items without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The value (`set`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl StorageRequest {
    fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("local")
    }
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["storage"],
    help: Some(Help {
        about: "Read and write web storage",
        usage: &["storage <local|session> [get|set|clear] [key] [value]"],
        examples: &[
            "storage local",
            "storage local get token",
            "storage session set step 3",
            "storage local clear",
        ],

        description: "\
Reads and writes the current page's localStorage or sessionStorage. A read takes at most one
key (a bare key after the kind reads it), set takes a key and a value, clear takes nothing.",
        sections: &[
            (
                "Kinds",
                &[("local", "localStorage"), ("session", "sessionStorage")],
            ),
            (
                "Subcommands",
                &[
                    ("get [key]", "All entries, or one (the default)"),
                    ("set <key> <value>", "Set an entry"),
                    ("clear", "Remove every entry"),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(GET, |ctx| Box::pin(run_get(ctx))).rendered(Render {
            first: Some(items),
            example: r#"{"data":{"k":"v","n":1}}"#,
            ..Render::DEFAULT
        }),
        Action::queued(SET, |ctx| Box::pin(run_set(ctx))),
        Action::queued(CLEAR, |ctx| Box::pin(run_clear(ctx))).rendered(Render {
            cleared: "Storage cleared",
            example: r#"{"cleared":true}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        72,
        "agent_browser_storage_get",
        "state",
        &["storage", "{storageType}"],
        "storageType:e(local|session)! key:s",
    )
    .read_only(),
    McpTool::new(
        73,
        "agent_browser_storage_set",
        "state",
        &["storage", "{storageType}", "set"],
        "storageType:e(local|session)! key:s! value:s!",
    ),
    McpTool::new(
        74,
        "agent_browser_storage_clear",
        "state",
        &["storage", "{storageType}", "clear"],
        "storageType:e(local|session)!",
    ),
];

/// `key: value` lines (or `No storage entries`), or one `key: value`.
fn items(t: &mut Text<'_>, data: &Value) -> bool {
    let value_text = |v: &Value| v.as_str().map_or_else(|| json_string(v), str::to_string);
    if let Some(entries) = data.get("data").and_then(Value::as_object) {
        if entries.is_empty() {
            t.out("No storage entries");
        } else {
            let lines: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_text(v)))
                .collect();
            t.out(&lines.join("\n"));
        }
        return true;
    }
    match (s(data, "key"), data.get("value")) {
        (Some(key), Some(value)) => {
            t.out(&format!("{key}: {}", value_text(value)));
            true
        }
        _ => false,
    }
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const USAGE: &str = "storage <local|session> set <key> <value>";
    let kind = match rest.first().copied() {
        Some(k @ ("local" | "session")) => k,
        Some(sub) => return Err(ParseError::unknown_sub(sub, &["local", "session"])),
        None => {
            return Err(ParseError::missing(
                "storage",
                "storage <local|session> [get [key] | set <key> <value> | clear | <key>]",
            ));
        }
    };
    let (op, key, value) = match rest.get(1).copied() {
        Some(op @ ("get" | "set" | "clear")) => (op, rest.get(2), rest.get(3)),
        Some(_) => ("get", rest.get(1), rest.get(2)),
        None => ("get", None, None),
    };
    match op {
        "set" => {
            let context = format!("storage {kind} set");
            let k = key.ok_or_else(|| ParseError::missing(&context, USAGE))?;
            let v = value.ok_or_else(|| ParseError::missing(&context, USAGE))?;
            let request = StorageRequest {
                kind: Some(kind.to_string()),
                key: Some(k.to_string()),
                value: Some(v.to_string()),
            };
            Ok(encode(SET, &request))
        }
        "clear" => Ok(encode(
            CLEAR,
            &StorageRequest {
                kind: Some(kind.to_string()),
                ..StorageRequest::default()
            },
        )),
        _ => Ok(encode(
            GET,
            &StorageRequest {
                kind: Some(kind.to_string()),
                key: key.map(|k| k.to_string()),
                value: None,
            },
        )),
    }
}

async fn run_get(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: StorageRequest = ctx.params()?;
    let session = ctx.session().await?;
    Ok(
        match session
            .storage_get(request.kind(), request.key.as_deref())
            .await?
        {
            StorageRead::Item(value) => json!({"key": request.key, "value": value}),
            StorageRead::All(items) => json!({"data": items}),
        },
    )
}

async fn run_set(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: StorageRequest = ctx.params()?;
    let key = required(&request.key, "key")?;
    let session = ctx.session().await?;
    session
        .storage_set(request.kind(), key, request.value.as_deref().unwrap_or(""))
        .await?;
    Ok(json!({"set": true, "key": key}))
}

async fn run_clear(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: StorageRequest = ctx.params()?;
    let session = ctx.session().await?;
    session.storage_clear(request.kind()).await?;
    Ok(json!({"cleared": true}))
}
