//! `vitals [url]` (alias `web-vitals`): web vitals of the session's page (or of `url`, loaded
//! first): TTFB, FCP, LCP (with its element), CLS (the largest session window) and INP (the
//! longest interaction, `null` without one), read by page JS (`abx_engine::web_vitals`) from the page's own buffered
//! performance entries. Upstream's React hydration fields are present and empty (`hydration:
//! null`, no phases): abx reads no React internals here.

use crate::commands::prelude::*;
use crate::output::text::without_lifecycle;

/// The wire action.
pub const ACTION: &str = "vitals";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION, "web-vitals"],
    help: Some(Help {
        about: "Core Web Vitals",
        usage: &["vitals [url]"],
        examples: &["vitals", "vitals https://example.com", "vitals --json"],

        description: "\
Measures web vitals of the page (after loading the URL, when given): TTFB, FCP, LCP and its
element, CLS and INP (null until there was an interaction), from the page's own performance
entries. --json gives every field; the React hydration fields are present and empty.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(summary),
            example: r#"{"url":"https://x.test/","ttfb":12.5,"fcp":80}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    128,
    "agent_browser_vitals",
    "react",
    &["vitals"],
    "url:s json:b@G--json",
)
.read_only()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let url = input.rest.iter().find(|a| !a.starts_with("--"));
    Ok(encode(
        ACTION,
        &VitalsRequest {
            url: url.map(|u| u.to_string()),
        },
    ))
}

/// What `vitals` sends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VitalsRequest {
    /// A page to load first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: VitalsRequest = ctx.params()?;
    let session = ctx.session().await?;
    if let Some(url) = request.url.as_deref() {
        session
            .navigate(url, abx_engine::WaitUntil::Load, ctx.timeout())
            .await?;
    }
    Ok(abx_engine::web_vitals(&session.page(ctx.timeout()).await?).await?)
}

/// Upstream's summary: `url:`, then `ttfb: …ms  fcp: …ms  lcp: …ms  cls: …  inp: …`, the LCP
/// element and the hydration line.
fn summary(t: &mut Text<'_>, data: &Value) -> bool {
    if data.get("ttfb").is_none() {
        return report(t, data);
    }
    let ms = |v: Option<&Value>| match v.and_then(Value::as_f64) {
        Some(n) => format!("{}ms", (n * 10.0).round() / 10.0),
        None => "-".to_string(),
    };
    if let Some(url) = s(data, "url") {
        t.out(&format!("url: {url}"));
    }
    let lcp = data.get("lcp").filter(|v| v.is_object());
    let cls = data
        .get("cls")
        .and_then(|c| c.get("score"))
        .and_then(Value::as_f64)
        .map_or("-".to_string(), |c| {
            format!("{}", (c * 10000.0).round() / 10000.0)
        });
    t.out(&format!(
        "ttfb: {}  fcp: {}  lcp: {}  cls: {cls}  inp: {}",
        ms(data.get("ttfb")),
        ms(data.get("fcp")),
        ms(lcp.and_then(|l| l.get("startTime"))),
        ms(data.get("inp")),
    ));
    if let Some(element) = lcp.and_then(|l| s(l, "element")) {
        t.out(&format!("lcp: element: {element}"));
    }
    let count = |k: &str| data.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    t.out(&format!(
        "hydration: {}  phases: {}  hydratedComponents: {}",
        data.get("hydration")
            .filter(|h| !h.is_null())
            .map_or("-".to_string(), |h| h.to_string()),
        count("phases"),
        count("hydratedComponents")
    ));
    true
}

/// The report as pretty JSON (without `lifecycle`); also `a11y`'s text.
pub(crate) fn report(t: &mut Text<'_>, data: &Value) -> bool {
    t.out(&pretty(&without_lifecycle(data)));
    true
}
