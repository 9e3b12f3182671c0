//! `eval <js>` / `eval -b <base64>` / `eval --stdin`: evaluates JavaScript in the page (promises
//! awaited) and prints the result as JSON.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "evaluate";

/// `{"script"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalRequest {
    /// The script.
    pub script: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["eval"],
    help: Some(Help {
        about: "Evaluate JavaScript",
        usage: &[
            "eval <js>",
            "eval -b <base64-encoded-script>",
            "eval --stdin",
        ],
        examples: &[
            "eval 'document.title'",
            "eval 'document.querySelectorAll(\"a\").length'",
            "eval -b ZG9jdW1lbnQudGl0bGU=",
            "\
eval --stdin <<'EOF'
  [...document.links].map(a => a.href)
  EOF",
        ],

        description: "\
Runs JavaScript in the page and prints the value of the last expression (a promise is
awaited). Objects come back as JSON; values JSON cannot hold (NaN, Infinity, -0, bigint) print
as their JavaScript text, and --json adds them as data.unserializable.",
        sections: &[(
            "Options",
            &[
                (
                    "-b, --base64",
                    "The script is base64-encoded (no shell quoting to get right)",
                ),
                (
                    "--stdin",
                    "Read the script from stdin (heredocs, multi-line code)",
                ),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(unserializable),
            example: r#"{"unserializable":"NaN","origin":"https://x.test/"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] =
    &[McpTool::new(32, "agent_browser_eval", "core", &["eval"], "script:s!").in_core()];

/// A value without a JSON form prints as its JavaScript token (`NaN`, `-Infinity`, `undefined`,
/// `-0`, `10n`), as upstream does; its JSON `result` is `null`.
fn unserializable(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(token) = s(data, "unserializable") else {
        return false;
    };
    t.page(token, s(data, "origin"));
    true
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    const B64_USAGE: &str = "eval -b <base64-encoded-script>";
    let rest = input.rest;
    let script = match rest.first().copied() {
        Some("-b") | Some("--base64") => {
            let raw = rest[1..].join(" ");
            let bytes = STANDARD
                .decode(raw.trim())
                .map_err(|_| ParseError::invalid("Invalid base64 encoding", B64_USAGE))?;
            String::from_utf8(bytes)
                .map_err(|_| ParseError::invalid("Base64 decoded to invalid UTF-8", B64_USAGE))?
        }
        Some("--stdin") => {
            let stdin = input.host.read_stdin().map_err(|e| {
                ParseError::invalid(format!("Failed to read stdin: {e}"), "eval --stdin")
            })?;
            // Lines joined with `\n`, no trailing newline (upstream reads line by line).
            stdin.lines().collect::<Vec<_>>().join("\n")
        }
        _ => rest.join(" "),
    };
    Ok(encode(
        ACTION,
        &EvalRequest {
            script: Some(script),
        },
    ))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: EvalRequest = ctx.params()?;
    let script = required(&request.script, "script")?;
    let session = ctx.session().await?;
    let evaluated = session.page(ctx.timeout()).await?.evaluate(script).await?;
    let origin = session.url().await.unwrap_or_default();
    let mut data = json!({"result": evaluated.value, "origin": origin});
    if let Some(unserializable) = evaluated.unserializable {
        data["unserializable"] = json!(unserializable);
    }
    Ok(data)
}
