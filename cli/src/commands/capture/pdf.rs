//! `pdf <path>`: saves the page as PDF.

use abx_engine::PdfOptions;

use crate::commands::prelude::*;
use crate::commands::support::write_file;

/// The wire action.
pub const ACTION: &str = "pdf";

/// `{"path"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PdfRequest {
    /// Where to write it.
    pub path: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Save the page as PDF",
        usage: &["pdf <path>"],
        examples: &["pdf invoice.pdf", "pdf ./out/page.pdf"],

        description: "Prints the current page to a PDF file at <path>.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            saved: Some(saved),
            example: r#"{"path":"/tmp/page.pdf"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    46,
    "agent_browser_pdf",
    "debug",
    &["pdf"],
    "path:s!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let path = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "pdf <path>"))?;
    Ok(encode(
        ACTION,
        &PdfRequest {
            path: Some(path.to_string()),
        },
    ))
}

fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} PDF saved to {}", p.ok(), p.green(path)));
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: PdfRequest = ctx.params()?;
    let path = required(&request.path, "path")?;
    let session = ctx.session().await?;
    let bytes = session
        .page(ctx.timeout())
        .await?
        .pdf(&PdfOptions::default())
        .await?;
    write_file(std::path::Path::new(path), &bytes)?;
    Ok(json!({"path": path}))
}
