//! `download <selector> <path>`: clicks an element and saves the download it starts to
//! `path` (its directory is created).

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "download";

const USAGE: &str = "download <selector> <path>";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Click and save the download",
        usage: &[USAGE],
        examples: &[
            "download 'a.report' ./report.pdf",
            "download @e5 ./export.xlsx",
        ],

        description: "Clicks the element, waits for the download it starts and saves the file at <path>.",
        sections: &[(
            "Arguments",
            &[
                (
                    "<selector>",
                    "The element that starts the download (selector or @ref)",
                ),
                ("<path>", "Where to save the file"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            saved: Some(saved),
            example: r#"{"path":"/tmp/report.pdf"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    40,
    "agent_browser_download",
    "debug",
    &["download"],
    "selector:s! path:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    let path = rest
        .get(1)
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    Ok(encode(
        ACTION,
        &DownloadRequest {
            selector: Some(selector.to_string()),
            path: Some(path.to_string()),
        },
    ))
}

/// `✓ Download saved to <path>` (also the text of `wait --download`).
pub(crate) fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} Download saved to {}", p.ok(), p.green(path)));
}

/// `{"selector", "path"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DownloadRequest {
    /// What to click.
    pub selector: Option<String>,
    /// Where to save the file.
    pub path: Option<String>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DownloadRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let path = required(&request.path, "path")?;
    let session = ctx.session().await?;
    let saved = session.download(selector, path, ctx.timeout()).await?;
    Ok(json!({"path": saved.path}))
}
