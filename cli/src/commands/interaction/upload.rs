//! `upload <selector> <files...>`: sets the files of a file input.

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "upload";

/// `{"selector", "files"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UploadRequest {
    /// The `<input type=file>`.
    pub selector: Option<String>,
    /// Paths of the files.
    #[serde(default)]
    pub files: Vec<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Set files on a file input",
        usage: &["upload <selector> <files...>"],
        examples: &["upload '#avatar' ./me.png", "upload @e3 ./a.png ./b.png"],

        description: "\
Sets one or more local files on a file input (<input type=file>), as if chosen in the file
dialog. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    39,
    "agent_browser_upload",
    "debug",
    &["upload"],
    "selector:s! files:a!",
)];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let selector = rest
        .first()
        .ok_or_else(|| ParseError::missing(ACTION, "upload <selector> <files...>"))?;
    let request = UploadRequest {
        selector: Some(selector.to_string()),
        files: rest[1..].iter().map(|f| f.to_string()).collect(),
    };
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: UploadRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .upload(selector, &request.files)
            .await?,
    )
}
