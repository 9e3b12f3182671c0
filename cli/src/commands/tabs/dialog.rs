//! `dialog accept [text] | dismiss | status`: answers or reports the page's JavaScript dialog.
//! Served at once: a dialog blocks the page, so this must not queue behind a blocked command.

use abx_engine::EngineError;

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "dialog";

/// `{"response": "accept"|"dismiss"|"status", "promptText"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogRequest {
    /// What to do.
    pub response: Option<String>,
    /// The text to answer a `prompt` with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Handle JavaScript dialogs",
        usage: &["dialog <accept|dismiss|status> [text]"],
        examples: &[
            "dialog status",
            "dialog accept 'my answer'",
            "dialog dismiss",
        ],
        description: "\
Answers a JavaScript dialog (alert, confirm, prompt, beforeunload) that blocks the page, or
reports whether one is open. Unless --no-auto-dialog is set, alert and beforeunload dialogs
are accepted on their own; confirm and prompt wait for this command.",
        sections: &[(
            "Subcommands",
            &[
                (
                    "accept [text]",
                    "Press OK; the text is the answer to a prompt",
                ),
                ("dismiss", "Press Cancel"),
                (
                    "status",
                    "Whether a dialog is open, and its type and message",
                ),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::fast(ACTION, |ctx| Box::pin(run(ctx)))
        .reporting_dialog()
        .rendered(Render {
            first: Some(status),
            example: r#"{"hasDialog":true,"type":"prompt","message":"name?","defaultPrompt":"x"}"#,
            ..Render::DEFAULT
        })],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        86,
        "agent_browser_dialog_status",
        "tabs",
        &["dialog", "status"],
        "",
    )
    .read_only(),
    McpTool::new(
        87,
        "agent_browser_dialog_accept",
        "tabs",
        &["dialog", "accept"],
        "text:s",
    ),
    McpTool::new(
        88,
        "agent_browser_dialog_dismiss",
        "tabs",
        &["dialog", "dismiss"],
        "",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some(response @ ("accept" | "dismiss")) => {
            let request = DialogRequest {
                response: Some(response.to_string()),
                prompt_text: rest.get(1).map(|t| t.to_string()),
            };
            Ok(encode(ACTION, &request))
        }
        Some("status") => Ok(encode(
            ACTION,
            &DialogRequest {
                response: Some("status".into()),
                prompt_text: None,
            },
        )),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["accept", "dismiss", "status"],
        )),
        None => Err(ParseError::missing(
            "dialog",
            "dialog <accept|dismiss|status> [text]",
        )),
    }
}

/// `⚠ JavaScript <type> dialog is open: "<message>"` (and how to answer it), or
/// `✓ No dialog is currently open`.
fn status(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(has) = b(data, "hasDialog") else {
        return false;
    };
    let p = t.p;
    if has {
        t.out(&format!(
            "{} JavaScript {} dialog is open: \"{}\"",
            p.warn(),
            s(data, "type").unwrap_or("unknown"),
            s(data, "message").unwrap_or("")
        ));
        if let Some(prompt) = s(data, "defaultPrompt") {
            t.out(&format!("  Default prompt text: \"{prompt}\""));
        }
        t.out("  Use `dialog accept [text]` or `dialog dismiss` to resolve it");
    } else {
        t.out(&format!("{} No dialog is currently open", p.ok()));
    }
    true
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DialogRequest = ctx.params()?;
    let session = ctx.session().await?;
    let outcome = match request.response.as_deref().unwrap_or("status") {
        "accept" => session
            .dialog_accept(request.prompt_text.as_deref(), "command")
            .await
            .map(|()| json!({"handled": true, "accepted": true})),
        "dismiss" => session
            .dialog_dismiss("command")
            .await
            .map(|()| json!({"handled": true, "accepted": false})),
        "status" => session.dialog_status().await.map(|status| json!(status)),
        other => {
            return Err(Failure::message(format!(
                "Unknown dialog response: {other}. Use accept, dismiss or status"
            )));
        }
    };
    outcome.map_err(|err| match err {
        // Upstream's wording when there is nothing to answer.
        EngineError::NoDialog => {
            Failure::message("CDP error (Page.handleJavaScriptDialog): No dialog is showing")
        }
        other => other.into(),
    })
}
