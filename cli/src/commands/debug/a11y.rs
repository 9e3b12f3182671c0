//! `a11y [url] [--tags <list>] [--selector <sel>]`: an axe-core accessibility audit of the
//! session's page (or of `url`, loaded first), over its whole frame tree
//! (`abx_engine::a11y_audit`, documented in `docs/a11y.md`): `violations` and `incomplete`
//! with rule ids, impacts, tags and node targets, and `counts`, as upstream reports them.

use crate::commands::prelude::*;
use crate::output::text::without_lifecycle;

/// The wire action.
pub const ACTION: &str = "a11y";

const USAGE: &str = "a11y [url] [--tags <list>] [--selector <sel>]";
/// The usage line of `a11y`'s errors, as upstream prints it.
const ERROR_USAGE: &str = "a11y [url] [--tags <tag1,tag2>] [--selector <css>] [--json]";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Accessibility audit with axe-core 4.12.1 of the page (after loading url, when given) and all its frames, in an isolated world: the page's own scripts and window.axe are untouched. --tags keeps the rules with one of those axe tags; -s/--selector audits one subtree. Node targets are axe selector paths (nested arrays cross shadow roots, several entries cross frames)",
        usage: &[USAGE],
        examples: &[
            "a11y",
            "a11y https://example.com",
            "a11y --tags wcag2a,wcag2aa",
            "a11y --selector \"#main\" --json",
        ],
        description: "\
Runs an axe-core accessibility audit of the page (after loading the URL, when given) and its
frames, in an isolated world so the page's scripts are untouched, and lists the violations
with the elements and how to fix them.",
        sections: &[(
            "Options",
            &[
                (
                    "--tags <list>",
                    "Only rules with one of these axe tags (wcag2a, wcag2aa, best-practice, ...)",
                ),
                ("-s, --selector <sel>", "Audit only this subtree"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(summary),
            example: r#"{"url":"https://x.test/","counts":{"violations":1,"incomplete":0,"passes":10}}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    129,
    "agent_browser_a11y",
    "debug",
    &["a11y"],
    "url:s json:b@G--json selector:s@--selector tags:s@--tags",
)];

/// What `a11y` sends (upstream's wire: `tags` is the comma list as typed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct A11yRequest {
    /// A page to load first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Comma-separated tags (or rule ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<String>,
    /// Only this subtree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

const FLAGS: &[Flag] = &[
    Flag::value(&["--tags"], "a11y --tags", ERROR_USAGE),
    Flag::value(&["-s", "--selector"], "a11y --selector", ERROR_USAGE),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let mut req = A11yRequest::default();
    for word in scan(input.rest, FLAGS) {
        match word? {
            Word::Value("--tags", v) => req.tags = Some(v.to_string()),
            Word::Value("-s", v) => req.selector = Some(v.to_string()),
            Word::Other(other) if other.starts_with('-') => {
                return Err(ParseError::invalid(
                    format!("Unknown flag: {other}"),
                    ERROR_USAGE,
                ));
            }
            Word::Other(other) if req.url.is_none() => req.url = Some(other.to_string()),
            other => {
                return Err(ParseError::invalid(
                    format!("Unexpected argument: {}", other.text()),
                    ERROR_USAGE,
                ));
            }
        }
    }
    Ok(encode(ACTION, &req))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: A11yRequest = ctx.params()?;
    let session = ctx.session().await?;
    if let Some(url) = request.url.as_deref() {
        session
            .navigate(url, abx_engine::WaitUntil::Load, ctx.timeout())
            .await?;
    }
    let tags: Vec<String> = request
        .tags
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let page = session.page(ctx.timeout()).await?;
    Ok(abx_engine::a11y_audit(&page, &tags, request.selector.as_deref()).await?)
}

/// `url:`, a counts line, then per violation `[impact] id: help (N nodes)`, its help URL and
/// its node targets (and the same for incomplete results).
fn summary(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(counts) = data.get("counts") else {
        t.out(&pretty(&without_lifecycle(data)));
        return true;
    };
    if let Some(url) = s(data, "url") {
        t.out(&format!("url: {url}"));
    }
    let n = |k: &str| u(counts, k).unwrap_or(0);
    t.out(&format!(
        "axe-core: {}  violations: {}  incomplete: {}  passes: {}",
        s(data, "axeVersion").unwrap_or(abx_engine::AXE_VERSION),
        n("violations"),
        n("incomplete"),
        n("passes")
    ));
    if n("violations") + n("incomplete") > 0 {
        t.out("");
    }
    for (key, label) in [("violations", ""), ("incomplete", "incomplete ")] {
        for rule in data
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let count = u(rule, "nodeCount").unwrap_or(0);
            t.out(&format!(
                "[{label}{}] {}: {} ({count} node{})",
                s(rule, "impact").unwrap_or("minor"),
                s(rule, "id").unwrap_or_default(),
                s(rule, "help").unwrap_or_default(),
                if count == 1 { "" } else { "s" }
            ));
            if let Some(url) = s(rule, "helpUrl") {
                t.out(&format!("  {url}"));
            }
            for node in rule
                .get("nodes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let target = node.get("target").map(target_text).unwrap_or_default();
                t.out(&format!("  - {target}"));
            }
        }
    }
    true
}

/// An axe node target as text: its entries (one per frame crossed) joined by ` -> `, an entry
/// that crosses shadow roots (an array) joined by ` >>> `.
fn target_text(target: &Value) -> String {
    let entry = |part: &Value| match part {
        Value::String(selector) => selector.clone(),
        Value::Array(path) => path
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" >>> "),
        other => other.to_string(),
    };
    match target {
        Value::Array(parts) => parts.iter().map(entry).collect::<Vec<_>>().join(" -> "),
        other => entry(other),
    }
}
