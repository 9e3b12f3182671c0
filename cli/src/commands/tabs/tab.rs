//! `tab [list]`, `tab new [--label <name>] [url]`, `tab <tN|label|targetId>`, `tab close [ref]`:
//! the session's tabs. Tab ids (`t1`, `t2`, …) are stable for the session's life. `tab list`
//! is served at once, even while a page command hangs.

use crate::commands::prelude::*;

/// `tab new`.
pub const NEW: &str = "tab_new";
/// `tab [list]`.
pub const LIST: &str = "tab_list";
/// `tab close [ref]`.
pub const CLOSE: &str = "tab_close";
/// `tab <ref>`.
pub const SWITCH: &str = "tab_switch";

/// `tab new`: `{"url"?, "label"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NewRequest {
    /// Open this URL in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A label to refer to it by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// `tab <ref>` / `tab close [ref]`: `{"tabId"}` (a `tN` id, a label or a target id).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabRequest {
    /// The tab (`tab close` without one closes the active tab).
    #[serde(rename = "tabId", default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["tab"],
    help: Some(Help {
        about: "Tabs",
        usage: &[
            "tab [list]",
            "tab new [--label <name>] [url]",
            "tab <tN|label|targetId>",
            "tab close [ref]",
        ],
        examples: &[
            "tab",
            "tab new --label docs https://example.com/docs",
            "tab t2",
            "tab docs",
            "tab close",
            "tab close t3",
        ],

        description: "\
Lists, opens, switches and closes the session's tabs. Tab ids look like t1, t2, ... and are
never reused within a session. A tab may also get a label (a letter, then letters, digits, -
or _; unique in the session; not of the t<N> form), usable wherever an id is. The CDP target
id from `tab list --json` works too and, unlike t<N>, survives a daemon restart.
New tabs get the session's user agent, headers, credentials, init scripts, routes and
emulation before their first load. The session remembers its active tab across daemon
restarts; with --pin-tab it fails with tab_gone instead of moving to another tab when that
tab is closed (recover with `tab new` or `tab list`).",
        sections: &[(
            "Subcommands",
            &[
                (
                    "list",
                    "Tabs with ids, labels, titles and URLs (the default)",
                ),
                (
                    "new [url]",
                    "Open a tab (and load the URL) and make it active",
                ),
                ("new --label <name> [url]", "The same, with a label"),
                ("<t<N>|label|targetId>", "Make that tab the active one"),
                ("close [ref]", "Close that tab (default: the active one)"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(NEW, |ctx| Box::pin(run_new(ctx)))
            .moving_tab()
            .completing(),
        Action::fast(LIST, |ctx| Box::pin(run_list(ctx))),
        Action::queued(CLOSE, |ctx| Box::pin(run_close(ctx)))
            .completing()
            .moving_tab()
            .rendered(Render {
                closed: Some(closed),
                example: r#"{"tabId":"t3","label":null,"closed":true}"#,
                ..Render::DEFAULT
            }),
        Action::queued(SWITCH, |ctx| Box::pin(run_switch(ctx)))
            .completing()
            .moving_tab()
            .rendered(Render {
                switched: Some(switched),
                example: r#"{"tabId":"t2","label":"docs","total":3}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        79,
        "agent_browser_tab_new",
        "tabs",
        &["tab", "new"],
        "url:s label:s@--label",
    ),
    McpTool::new(80, "agent_browser_tab_list", "tabs", &["tab", "list"], "").read_only(),
    McpTool::new(81, "agent_browser_tab_switch", "tabs", &["tab"], "tab:s!"),
    McpTool::new(
        82,
        "agent_browser_tab_close",
        "tabs",
        &["tab", "close"],
        "tab:s",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("new") => {
            let mut request = NewRequest::default();
            const FLAGS: &[Flag] = &[Flag::value(
                &["--label"],
                "tab new --label",
                "tab new --label <name> [url]",
            )];
            for word in scan(&rest[1..], FLAGS) {
                match word? {
                    Word::Value(_, name) => request.label = Some(name.to_string()),
                    Word::Other(other) if !other.starts_with("--") && request.url.is_none() => {
                        request.url = Some(other.to_string());
                    }
                    other => {
                        return Err(ParseError::unknown_sub(other.text(), &["--label", "<url>"]));
                    }
                }
            }
            Ok(encode(NEW, &request))
        }
        Some("list") | None => Ok(encode(LIST, &NoParams {})),
        Some("close") => Ok(encode(
            CLOSE,
            &TabRequest {
                tab_id: rest.get(1).map(|r| r.to_string()),
            },
        )),
        Some(tab) => Ok(encode(
            SWITCH,
            &TabRequest {
                tab_id: Some(tab.to_string()),
            },
        )),
    }
}

/// `✓ Switched to tab [tN]` (a reply without a URL; one with a URL prints it like `open`).
fn switched(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(id) = s(data, "tabId") else {
        return false;
    };
    t.out(&format!("{} Switched to tab [{id}]", t.p.ok()));
    true
}

/// `✓ Tab [tN] closed`.
fn closed(t: &mut Text<'_>, data: &Value) {
    match s(data, "tabId") {
        Some(id) => t.out(&format!("{} Tab [{id}] closed", t.p.ok())),
        None => t.out(&format!("{} Tab closed", t.p.ok())),
    }
}

async fn run_new(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: NewRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tab = session
        .tab_new(request.url.as_deref(), request.label.as_deref())
        .await?;
    let total = session.tabs().len();
    Ok(json!({"tabId": tab.tab_id, "label": tab.label, "url": tab.url, "total": total}))
}

async fn run_list(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"tabs": session.tab_list().await?}))
}

async fn run_close(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: TabRequest = ctx.params()?;
    let session = ctx.session().await?;
    let tab = session.tab_close(request.tab_id.as_deref()).await?;
    Ok(json!({"tabId": tab.tab_id, "label": tab.label, "targetId": tab.target_id, "closed": true}))
}

async fn run_switch(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: TabRequest = ctx.params()?;
    let reference = required(&request.tab_id, "tabId")?;
    let session = ctx.session().await?;
    let tab = session.tab_switch(reference).await?;
    Ok(json!({"tabId": tab.tab_id, "label": tab.label, "url": tab.url, "title": tab.title}))
}
