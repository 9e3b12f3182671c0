//! `react tree|inspect <id>|renders start|stop|suspense [--only-dynamic]`: the React components
//! of the session's page, read from the fibers React commits to the DevTools global hook
//! (`abx_engine::react_query`). The hook is abx's own (`abx_engine::REACT_DEVTOOLS_HOOK`),
//! installed before the page's scripts when the session launched with `--enable
//! react-devtools`; without it, or on a page without React, the error says which is missing
//! (except `renders start`, which succeeds there as upstream's does and records nothing).

use abx_engine::{ReactError, ReactQuery};

use crate::commands::prelude::*;

/// `react tree`.
pub const TREE: &str = "react_tree";
/// `react inspect <id>`.
pub const INSPECT: &str = "react_inspect";
/// `react renders [start]`.
pub const RENDERS_START: &str = "react_renders_start";
/// `react renders stop`.
pub const RENDERS_STOP: &str = "react_renders_stop";
/// `react suspense`.
pub const SUSPENSE: &str = "react_suspense";

/// The command.
pub const COMMAND: Command = Command {
    names: &["react"],
    help: Some(Help {
        about: "React components of the page (launch with --enable react-devtools)",
        usage: &[
            "react tree",
            "react inspect <id>",
            "react renders start|stop",
            "react suspense [--only-dynamic]",
        ],
        examples: &[
            "react tree",
            "react inspect 3",
            "react renders start",
            "react renders stop --json",
            "react suspense --only-dynamic",
        ],
        description: "\
Reads React's component tree through the DevTools hook, which must be installed before the
page's scripts: launch with --enable react-devtools (`open --enable react-devtools <url>`).",
        sections: &[
            (
                "Subcommands",
                &[
                    ("tree", "The component tree with fiber ids"),
                    ("inspect <id>", "One component: props, hooks, state, source"),
                    ("renders start", "Start counting re-renders"),
                    ("renders stop", "Stop and print the render profile"),
                    ("suspense", "Suspense boundaries and what each waits for"),
                ],
            ),
            (
                "Options",
                &[(
                    "--only-dynamic",
                    "With suspense: leave out the static boundaries",
                )],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(TREE, |ctx| Box::pin(run(ctx, Op::Tree))).rendered(Render {
            first: Some(tree),
            example: r#"{"nodes":[{"id":1,"parent":0,"depth":0,"name":"App"},{"id":2,"parent":1,"depth":1,"name":"Button","key":"ok"}]}"#,
            ..Render::DEFAULT
        }),
        Action::queued(INSPECT, |ctx| Box::pin(run(ctx, Op::Inspect))).rendered(Render {
            first: Some(inspected),
            example: r#"{"id":2,"name":"Button","key":"ok","parent":"App","props":{"label":"OK"},"hooks":[]}"#,
            ..Render::DEFAULT
        }),
        Action::queued(RENDERS_START, |ctx| Box::pin(run(ctx, Op::RendersStart))),
        Action::queued(RENDERS_STOP, |ctx| Box::pin(run(ctx, Op::RendersStop))).rendered(Render {
            first: Some(renders),
            example: r#"{"components":[]}"#,
            ..Render::DEFAULT
        }),
        Action::queued(SUSPENSE, |ctx| Box::pin(run(ctx, Op::Suspense))).rendered(Render {
            first: Some(suspense),
            example: r#"{"boundaries":[]}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        123,
        "agent_browser_react_tree",
        "react",
        &["react", "tree"],
        "json:b@G--json",
    )
    .read_only(),
    McpTool::new(
        124,
        "agent_browser_react_inspect",
        "react",
        &["react", "inspect"],
        "id:i! json:b@G--json",
    )
    .read_only(),
    McpTool::new(
        125,
        "agent_browser_react_renders_start",
        "react",
        &["react", "renders", "start"],
        "json:b@G--json",
    ),
    McpTool::new(
        126,
        "agent_browser_react_renders_stop",
        "react",
        &["react", "renders", "stop"],
        "json:b@G--json",
    ),
    McpTool::new(
        127,
        "agent_browser_react_suspense",
        "react",
        &["react", "suspense"],
        "json:b@G--json onlyDynamic:b@--only-dynamic",
    )
    .read_only(),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let sub = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("react", "react <tree|inspect|renders|suspense>"))?;
    match sub {
        "tree" => Ok(encode(TREE, &NoParams {})),
        "inspect" => {
            let id = rest
                .iter()
                .skip(1)
                .find(|a| !a.starts_with("--"))
                .ok_or_else(|| ParseError::missing("react inspect", "react inspect <id>"))?;
            let n = id.parse::<i64>().map_err(|_| {
                ParseError::invalid(
                    format!("react inspect id must be a number, got '{id}'"),
                    "react inspect <id>",
                )
            })?;
            Ok(encode(
                INSPECT,
                &ReactRequest {
                    fiber_id: Some(n),
                    ..ReactRequest::default()
                },
            ))
        }
        "renders" => match rest.get(1).copied().unwrap_or("start") {
            "start" => Ok(encode(RENDERS_START, &NoParams {})),
            "stop" => Ok(encode(RENDERS_STOP, &NoParams {})),
            other => Err(ParseError::unknown_sub(other, &["start", "stop"])),
        },
        "suspense" => {
            let req = ReactRequest {
                only_dynamic: rest.contains(&"--only-dynamic"),
                ..ReactRequest::default()
            };
            Ok(encode(SUSPENSE, &req))
        }
        other => Err(ParseError::unknown_sub(
            other,
            &["tree", "inspect", "renders", "suspense"],
        )),
    }
}

#[derive(Clone, Copy)]
enum Op {
    Tree,
    Inspect,
    RendersStart,
    RendersStop,
    Suspense,
}

/// What the `react_*` actions send.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReactRequest {
    /// `inspect`: the component id from `react tree`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fiber_id: Option<i64>,
    /// `suspense`: only boundaries that suspended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only_dynamic: bool,
}

fn failure(err: ReactError) -> Failure {
    match err {
        ReactError::NoHook => Failure::message(
            "React DevTools hook not found on this page: relaunch with --enable react-devtools (the hook must be installed before React loads)",
        ),
        ReactError::NoRenderer => Failure::message(
            "No React renderer is attached to the DevTools hook: this page has not rendered with React (or React loaded before the hook)",
        ),
        ReactError::NotFound(id) => Failure::message(format!(
            "React component {id} not found: ids come from `react tree` and last until the page navigates"
        )),
        ReactError::NotRecording => {
            Failure::message("No render recording is running: start one with `react renders start`")
        }
        ReactError::Engine(err) => Failure::from(err),
    }
}

async fn run(ctx: &Ctx<'_>, op: Op) -> Result<Value, Failure> {
    let request: ReactRequest = ctx.params()?;
    let session = ctx.session().await?;
    let query = match op {
        Op::Tree => ReactQuery::Tree,
        Op::Inspect => ReactQuery::Inspect(required_id(&request)?),
        Op::RendersStart => ReactQuery::RendersStart,
        Op::RendersStop => ReactQuery::RendersStop,
        Op::Suspense => ReactQuery::Suspense,
    };
    let page = session.page(ctx.timeout()).await?;
    if let Op::RendersStart = op {
        // Upstream's reply (text `✓ Done`), also on a page without the hook.
        let started = abx_engine::react_renders_start(&page)
            .await
            .map_err(failure)?;
        return Ok(json!({
            "recording": true,
            "identifier": started.identifier,
            "message": "recording renders - interact with the page, then run `react renders stop`",
        }));
    }
    let mut data = abx_engine::react_query(&page, query)
        .await
        .map_err(failure)?;
    match op {
        Op::Suspense if request.only_dynamic => {
            if let Some(list) = data.get_mut("boundaries").and_then(Value::as_array_mut) {
                list.retain(|b| b["dynamic"] == true);
            }
            Ok(data)
        }
        _ => Ok(data),
    }
}

fn required_id(request: &ReactRequest) -> Result<i64, Failure> {
    request
        .fiber_id
        .ok_or_else(|| Failure::message("Missing 'fiberId' parameter"))
}

/// A header, then one line per component: `depth id parent name [key=…]` (parent `-` for a root).
fn tree(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(nodes) = data.get("nodes").and_then(Value::as_array) else {
        return false;
    };
    t.out("# React components: depth id parent name [key=...]");
    t.out(
        "# `react inspect <id>` shows props, state and hooks; ids last until the page navigates.",
    );
    for n in nodes {
        let parent = match i(n, "parent") {
            Some(0) | None => "-".to_string(),
            Some(p) => p.to_string(),
        };
        let key = s(n, "key").map_or(String::new(), |k| format!(" key={k:?}"));
        t.out(&format!(
            "{} {} {} {}{key}",
            u(n, "depth").unwrap_or(0),
            i(n, "id").unwrap_or(0),
            parent,
            s(n, "name").unwrap_or("?"),
        ));
    }
    true
}

/// `name (id N)`, then props, state and hooks as JSON lines.
fn inspected(t: &mut Text<'_>, data: &Value) -> bool {
    let (Some(name), Some(_)) = (s(data, "name"), data.get("hooks")) else {
        return false;
    };
    let key = s(data, "key").map_or(String::new(), |k| format!(" key={k:?}"));
    t.out(&format!("{name} (id {}){key}", i(data, "id").unwrap_or(0)));
    if let Some(parent) = s(data, "parent") {
        t.out(&format!("parent: {parent}"));
    }
    t.out(&format!(
        "props: {}",
        data.get("props").unwrap_or(&Value::Null)
    ));
    if let Some(state) = data.get("state").filter(|v| !v.is_null()) {
        t.out(&format!("state: {state}"));
    }
    for hook in data
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        t.out(&format!(
            "hook {} ({}): {}",
            u(hook, "index").unwrap_or(0),
            s(hook, "kind").unwrap_or("?"),
            hook.get("value").unwrap_or(&Value::Null)
        ));
    }
    if let Some(src) = data.get("source").filter(|v| !v.is_null()) {
        t.out(&format!(
            "source: {}:{}",
            s(src, "fileName").unwrap_or("?"),
            u(src, "lineNumber").unwrap_or(0)
        ));
    }
    true
}

/// The render profile: totals, then one line per component (most renders first) with its
/// change reasons.
fn renders(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(components) = data.get("components").and_then(Value::as_array) else {
        return false;
    };
    if components.is_empty() {
        t.out("(no renders captured)");
        return true;
    }
    t.out(&format!(
        "# Renders over {}s: {} ({} mounts, {} re-renders) in {} components, {} commits, {} fps",
        data.get("elapsed").unwrap_or(&Value::Null),
        u(data, "totalRenders").unwrap_or(0),
        u(data, "totalMounts").unwrap_or(0),
        u(data, "totalReRenders").unwrap_or(0),
        u(data, "totalComponents").unwrap_or(0),
        u(data, "commits").unwrap_or(0),
        u(data, "fps").unwrap_or(0),
    ));
    for c in components {
        let mut reasons: Vec<(String, u64)> = c
            .get("changeSummary")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let reasons: Vec<String> = reasons.iter().map(|(k, n)| format!("{k}×{n}")).collect();
        t.out(&format!(
            "{}: {} renders ({} mounts, {} re-renders, {} instances) {}",
            s(c, "name").unwrap_or("?"),
            u(c, "count").unwrap_or(0),
            u(c, "mounts").unwrap_or(0),
            u(c, "reRenders").unwrap_or(0),
            u(c, "instanceCount").unwrap_or(0),
            reasons.join(", ")
        ));
    }
    true
}

/// One line per boundary: `id parent state [children]`.
fn suspense(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(list) = data.get("boundaries").and_then(Value::as_array) else {
        return false;
    };
    if list.is_empty() {
        t.out("(no Suspense boundaries)");
        return true;
    }
    for b in list {
        let state = if b["suspended"] == true {
            "suspended (showing fallback)"
        } else if b["dynamic"] == true {
            "resolved (suspended before)"
        } else {
            "static (never suspended)"
        };
        let key = s(b, "key").map_or(String::new(), |k| format!(" key={k:?}"));
        let children: Vec<&str> = b
            .get("children")
            .and_then(Value::as_array)
            .map(|c| c.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        t.out(&format!(
            "Suspense {}{key} in {}: {state}{}",
            i(b, "id").unwrap_or(0),
            s(b, "parent").unwrap_or("-"),
            if children.is_empty() {
                String::new()
            } else {
                format!(" [{}]", children.join(", "))
            }
        ));
    }
    true
}
