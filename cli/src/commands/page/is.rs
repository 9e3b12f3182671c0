//! `is visible|enabled|checked <selector>`: element state as `true`/`false`.

use crate::commands::prelude::*;

/// `is visible`.
pub const VISIBLE: &str = "isvisible";
/// `is enabled`.
pub const ENABLED: &str = "isenabled";
/// `is checked`.
pub const CHECKED: &str = "ischecked";

/// The command.
pub const COMMAND: Command = Command {
    names: &["is"],
    help: Some(Help {
        about: "Check element state",
        usage: &["is <visible|enabled|checked> <selector>"],
        examples: &[
            "is visible '#banner'",
            "is enabled @e3",
            "is checked '#terms'",
        ],

        description: "Prints true or false for one state of an element. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        sections: &[(
            "Subcommands",
            &[
                ("visible <selector>", "Rendered and not hidden"),
                ("enabled <selector>", "Not disabled"),
                ("checked <selector>", "A checked checkbox or radio"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(VISIBLE, |ctx| Box::pin(run_visible(ctx))),
        Action::queued(ENABLED, |ctx| Box::pin(run_enabled(ctx))),
        Action::queued(CHECKED, |ctx| Box::pin(run_checked(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        51,
        "agent_browser_is_visible",
        "all",
        &["is", "visible"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(
        52,
        "agent_browser_is_enabled",
        "all",
        &["is", "enabled"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(
        53,
        "agent_browser_is_checked",
        "all",
        &["is", "checked"],
        "selector:s!",
    )
    .read_only(),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let (action, context, usage) = match rest.first().copied() {
        Some("visible") => (VISIBLE, "is visible", "is visible <selector>"),
        Some("enabled") => (ENABLED, "is enabled", "is enabled <selector>"),
        Some("checked") => (CHECKED, "is checked", "is checked <selector>"),
        Some(sub) => {
            return Err(ParseError::unknown_sub(
                sub,
                &["visible", "enabled", "checked"],
            ));
        }
        None => {
            return Err(ParseError::missing(
                "is",
                "is <visible|enabled|checked> <selector>",
            ));
        }
    };
    let selector = rest
        .get(1)
        .ok_or_else(|| ParseError::missing(context, usage))?;
    Ok(encode(
        action,
        &SelectorRequest {
            selector: Some(selector.to_string()),
        },
    ))
}

async fn run_visible(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .is_visible(selector)
            .await?,
    )
}

async fn run_enabled(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .is_enabled(selector)
            .await?,
    )
}

async fn run_checked(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .is_checked(selector)
            .await?,
    )
}
