//! `get text|html|value|attr|url|title|count|box|styles|cdp-url`: reads element or page
//! properties. `get url`, `get title` and `get cdp-url` are served at once, even while a page
//! command hangs or a dialog is open.

use crate::commands::prelude::*;

/// `get text <selector>`.
pub const TEXT: &str = "gettext";
/// `get html <selector>`.
pub const HTML: &str = "innerhtml";
/// `get value <selector>`.
pub const VALUE: &str = "inputvalue";
/// `get attr <selector> <attribute>`.
pub const ATTRIBUTE: &str = "getattribute";
/// `get url`.
pub const URL: &str = "url";
/// `get cdp-url`.
pub const CDP_URL: &str = "cdp_url";
/// `get title`.
pub const TITLE: &str = "title";
/// `get count <selector>`.
pub const COUNT: &str = "count";
/// `get box <selector>`.
pub const BOX: &str = "boundingbox";
/// `get styles <selector>`.
pub const STYLES: &str = "styles";

/// `{"selector", "attribute"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AttributeRequest {
    /// The element.
    pub selector: Option<String>,
    /// The attribute's name.
    pub attribute: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["get"],
    help: Some(Help {
        about: "Read element or page properties",
        usage: &["get <text|html|value|attr|url|title|count|box|styles|cdp-url> [args...]"],
        examples: &[
            "get text '#headline'",
            "get attr 'a.next' href",
            "get url",
            "get count 'li.result'",
            "get box @e4",
        ],

        description: "Prints one property of an element or of the page. <selector> is a CSS selector, an XPath (xpath=… or //…), or a ref such as @e3 from the last snapshot.",
        sections: &[(
            "Subcommands",
            &[
                ("text <selector>", "The element's text"),
                ("html <selector>", "Its inner HTML"),
                ("value <selector>", "The value of an input"),
                ("attr <selector> <name>", "One attribute"),
                ("title", "The page title"),
                ("url", "The page URL"),
                ("count <selector>", "How many elements match"),
                ("box <selector>", "Position and size: x, y, width, height"),
                (
                    "styles <selector>",
                    "Computed styles of the matching elements",
                ),
                (
                    "cdp-url",
                    "The browser's CDP WebSocket URL (never starts a browser)",
                ),
            ],
        )],
        notes: "\
`get url`, `get title` and `get cdp-url` answer at once, even while another command waits or
a dialog is open.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(TEXT, |ctx| Box::pin(run_text(ctx))),
        Action::queued(HTML, |ctx| Box::pin(run_html(ctx))),
        Action::queued(VALUE, |ctx| Box::pin(run_value(ctx))),
        Action::queued(ATTRIBUTE, |ctx| Box::pin(run_attribute(ctx))),
        Action::fast(URL, |ctx| Box::pin(run_url(ctx))).seeing_navigation(),
        Action::fast(CDP_URL, |ctx| Box::pin(run_cdp_url(ctx))),
        Action::fast(TITLE, |ctx| Box::pin(run_title(ctx))).seeing_navigation(),
        Action::queued(COUNT, |ctx| Box::pin(run_count(ctx))),
        Action::queued(BOX, |ctx| Box::pin(run_box(ctx))).rendered(Render {
            geometry: Some(geometry),
            example: r#"{"x":8,"y":8.5,"width":100,"height":20}"#,
            ..Render::DEFAULT
        }),
        Action::queued(STYLES, |ctx| Box::pin(run_styles(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        26,
        "agent_browser_get_text",
        "core",
        &["get", "text"],
        "selector:s!",
    )
    .read_only()
    .in_core(),
    McpTool::new(
        27,
        "agent_browser_get_html",
        "all",
        &["get", "html"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(
        28,
        "agent_browser_get_value",
        "all",
        &["get", "value"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(29, "agent_browser_get_url", "core", &["get", "url"], "")
        .read_only()
        .in_core(),
    McpTool::new(30, "agent_browser_get_title", "core", &["get", "title"], "").read_only(),
    McpTool::new(
        31,
        "agent_browser_get_cdp_url",
        "all",
        &["get", "cdp-url"],
        "",
    )
    .read_only(),
    McpTool::new(
        47,
        "agent_browser_get_attr",
        "all",
        &["get", "attr"],
        "selector:s! name:s!",
    )
    .read_only(),
    McpTool::new(
        48,
        "agent_browser_get_count",
        "all",
        &["get", "count"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(
        49,
        "agent_browser_get_box",
        "all",
        &["get", "box"],
        "selector:s!",
    )
    .read_only(),
    McpTool::new(
        50,
        "agent_browser_get_styles",
        "all",
        &["get", "styles"],
        "selector:s!",
    )
    .read_only(),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "text", "html", "value", "attr", "url", "title", "count", "box", "styles", "cdp-url",
    ];
    let rest = input.rest;
    let with_selector = |context: &str, usage: &'static str, action: &str| {
        let selector = rest
            .get(1)
            .ok_or_else(|| ParseError::missing(context, usage))?;
        Ok(encode(
            action,
            &SelectorRequest {
                selector: Some(selector.to_string()),
            },
        ))
    };
    match rest.first().copied() {
        Some("text") => with_selector("get text", "get text <selector>", TEXT),
        Some("html") => with_selector("get html", "get html <selector>", HTML),
        Some("value") => with_selector("get value", "get value <selector>", VALUE),
        Some("attr") => {
            const USAGE: &str = "get attr <selector> <attribute>";
            let selector = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("get attr", USAGE))?;
            let attribute = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("get attr", USAGE))?;
            let request = AttributeRequest {
                selector: Some(selector.to_string()),
                attribute: Some(attribute.to_string()),
            };
            Ok(encode(ATTRIBUTE, &request))
        }
        Some("url") => Ok(encode(URL, &NoParams {})),
        Some("cdp-url") => Ok(encode(CDP_URL, &NoParams {})),
        Some("title") => Ok(encode(TITLE, &NoParams {})),
        Some("count") => with_selector("get count", "get count <selector>", COUNT),
        Some("box") => with_selector("get box", "get box <selector>", BOX),
        Some("styles") => with_selector("get styles", "get styles <selector>", STYLES),
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "get",
            "get <text|html|value|attr|url|title|count|box|styles|cdp-url> [args...]",
        )),
    }
}

/// `x:      8` / `y:` / `width:` / `height:` lines.
fn geometry(t: &mut Text<'_>, data: &Value) {
    if data.is_object() {
        let f = |k: &str| data.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        t.out(&format!("x:      {}", f("x")));
        t.out(&format!("y:      {}", f("y")));
        t.out(&format!("width:  {}", f("width")));
        t.out(&format!("height: {}", f("height")));
    }
}

async fn run_text(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_text(selector)
            .await?,
    )
}

async fn run_html(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_html(selector)
            .await?,
    )
}

async fn run_value(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_value(selector)
            .await?,
    )
}

async fn run_attribute(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: AttributeRequest = ctx.params()?;
    let selector = required(&request.selector, "selector")?;
    let attribute = required(&request.attribute, "attribute")?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_attribute(selector, attribute)
            .await?,
    )
}

async fn run_url(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"url": session.url().await?}))
}

async fn run_cdp_url(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    match ctx.live() {
        Some(live) => Ok(json!({"cdpUrl": live.session.browser().cdp_url()})),
        None => Err(Failure::message(
            "Browser not launched. Run `agent-browser open` first",
        )),
    }
}

async fn run_title(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"title": session.title().await?}))
}

async fn run_count(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_count(selector)
            .await?,
    )
}

async fn run_box(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(session.page(ctx.timeout()).await?.get_box(selector).await?)
}

async fn run_styles(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SelectorRequest = ctx.params()?;
    let selector = request.selector()?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .get_styles(selector)
            .await?,
    )
}
