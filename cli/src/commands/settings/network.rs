//! `network route|unroute|requests|request|har`: routes (mock, abort), the request log and
//! HAR recording of the session's own tabs (`abx_engine::network`).

use std::path::PathBuf;

use abx_engine::network::{
    HarContent, MockResponse, NetworkError, RequestFilter, Route, RouteAction,
};

use crate::commands::prelude::*;
use crate::commands::support::flag_value;

/// `network route <url>`.
pub const ROUTE: &str = "route";
/// `network unroute [url]`.
pub const UNROUTE: &str = "unroute";
/// `network requests`.
pub const REQUESTS: &str = "requests";
/// `network request <id>`.
pub const REQUEST: &str = "request_detail";
/// `network har start`.
pub const HAR_START: &str = "har_start";
/// `network har stop [path]`.
pub const HAR_STOP: &str = "har_stop";

/// The usage line of `network route`'s errors, as upstream prints it (the help lists every flag).
const ROUTE_USAGE: &str =
    "network route <url> [--abort|--body <json> [--allow-origin <origin>]] [--resource-type <csv>]";
const HAR_START_USAGE: &str = "network har start [--content <all|text|none>]";

/// The command.
pub const COMMAND: Command = Command {
    names: &["network"],
    help: Some(Help {
        about: "Interception, request log, HAR",
        usage: &[
            "network route <url> [--abort | --body <text>] [--status <code>] [--content-type <type>] [--resource-type <csv>] [--allow-origin <origin>]",
            "network unroute [url]",
            "network requests [--filter <substr>] [--type <csv>] [--method <m>] [--status <200|2xx|400-499>] [--clear]",
            "network request <requestId>",
            "network har start [--content text|all|none]",
            "network har stop [path]",
        ],
        examples: &[
            "network route '**/ads/*' --abort",
            "network route '**/api/items' --body '{\"items\":[]}' --status 200",
            "network unroute",
            "network requests --filter api --type fetch,xhr --method POST --status 2xx",
            "network request 1234.5",
            "network har start --content all",
            "network har stop ./capture.har",
        ],
        description: "Intercepts requests (mock, block), shows the requests the page made, and records HAR files.",
        sections: &[
            (
                "Subcommands",
                &[
                    (
                        "route <url>",
                        "Intercept requests whose URL matches the glob pattern",
                    ),
                    (
                        "unroute [url]",
                        "Remove that route (all routes when none is given)",
                    ),
                    ("requests", "List the requests the session has seen"),
                    (
                        "request <requestId>",
                        "One request in full, response body included",
                    ),
                    ("har start", "Start recording a HAR"),
                    (
                        "har stop [path]",
                        "\
Stop and write the HAR (it stays recorded if the
write fails, so stop can be retried)",
                    ),
                ],
            ),
            (
                "route options",
                &[
                    ("--abort", "Fail matching requests"),
                    ("--body <text>", "Answer with this body"),
                    ("--status <code>", "Status of the answer (default 200)"),
                    ("--content-type <type>", "Content-Type of the answer"),
                    (
                        "--resource-type <csv>",
                        "Only these resource types (document, script, xhr, fetch, ...)",
                    ),
                    (
                        "--allow-origin <origin>",
                        "Let a page on this origin read the mocked answer",
                    ),
                ],
            ),
            (
                "requests options",
                &[
                    ("--filter <text>", "URL contains the text"),
                    ("--type <csv>", "Resource types, e.g. xhr,fetch"),
                    ("--method <m>", "HTTP method"),
                    ("--status <s>", "Status: 200, 2xx or a range like 400-499"),
                    ("--clear", "Empty the log"),
                ],
            ),
            (
                "har options",
                &[(
                    "--content <mode>",
                    "Response bodies in the HAR: text (default), all or none",
                )],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ROUTE, |ctx| Box::pin(route(ctx))),
        Action::queued(UNROUTE, |ctx| Box::pin(unroute(ctx))),
        Action::fast(REQUESTS, |ctx| Box::pin(requests(ctx))),
        Action::fast(REQUEST, |ctx| Box::pin(request_detail(ctx))).rendered(Render {
            first: Some(detail_text),
            example: r#"{"requestId":"1.2","method":"POST","url":"https://x.test/api","resourceType":"XHR","status":201,"statusText":"Created"}"#,
            ..Render::DEFAULT
        }),
        Action::fast(HAR_START, |ctx| Box::pin(har_start(ctx)))
            .completing()
            .rendered(Render {
                started: Some("HAR recording started"),
                example: r#"{"started":true}"#,
                ..Render::DEFAULT
            }),
        Action::fast(HAR_STOP, |ctx| Box::pin(har_stop(ctx)))
            .completing()
            .rendered(Render {
                saved: Some(har_saved),
                example: r#"{"path":"/tmp/x.har","requestCount":3}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        66,
        "agent_browser_network_route",
        "network",
        &["network", "route"],
        "url:s! abort:b@--abort allowOrigin:s@--allow-origin body:s@--body resourceType:s@--resource-type",
    ),
    McpTool::new(
        67,
        "agent_browser_network_unroute",
        "network",
        &["network", "unroute"],
        "url:s",
    ),
    McpTool::new(
        68,
        "agent_browser_network_requests",
        "network",
        &["network", "requests"],
        "clear:b@--clear filter:s@--filter method:s@--method status:s@--status type:s@--type",
    ),
    McpTool::new(
        69,
        "agent_browser_network_request",
        "network",
        &["network", "request"],
        "requestId:s!",
    )
    .read_only(),
    McpTool::new(
        70,
        "agent_browser_network_har_start",
        "network",
        &["network", "har", "start"],
        "content:e(all|text|none)@--content",
    ),
    McpTool::new(
        71,
        "agent_browser_network_har_stop",
        "network",
        &["network", "har", "stop"],
        "path:s",
    ),
];

fn har_saved(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!(
        "{} HAR saved to {} ({} requests)",
        p.ok(),
        p.green(path),
        u(data, "requestCount").unwrap_or(0)
    ));
}

/// `network request <id>` as text: the request line, then headers and bodies.
fn detail_text(t: &mut Text<'_>, data: &Value) -> bool {
    let (Some(url), Some(_)) = (s(data, "url"), s(data, "requestId")) else {
        return false;
    };
    let p = t.p;
    let mut line = format!(
        "{} {} ({})",
        s(data, "method").unwrap_or("GET"),
        url,
        s(data, "resourceType").unwrap_or("")
    );
    if let Some(status) = i(data, "status") {
        line.push_str(&format!(" {status}"));
        if let Some(text) = s(data, "statusText") {
            line.push_str(&format!(" {text}"));
        }
    }
    if let Some(error) = s(data, "errorText") {
        line.push_str(&format!(" {}", p.red(error)));
    }
    t.out(&line);
    let headers = |t: &mut Text<'_>, title: &str, key: &str| {
        if let Some(map) = data.get(key).and_then(Value::as_object) {
            t.out(&p.bold(title));
            for (name, value) in map {
                t.out(&format!("  {name}: {}", value.as_str().unwrap_or_default()));
            }
        }
    };
    headers(t, "Request headers:", "headers");
    if let Some(post) = s(data, "postData") {
        t.out(&p.bold("Request body:"));
        t.page(post, Some(url));
    }
    headers(t, "Response headers:", "responseHeaders");
    if let Some(body) = s(data, "responseBody") {
        let title = if b(data, "responseBodyBase64") == Some(true) {
            "Response body (base64):"
        } else {
            "Response body:"
        };
        t.out(&p.bold(title));
        t.page(body, Some(url));
    }
    true
}

/// The value after `flag`, refusing a missing one (`--body` at the end, or followed by a flag).
fn value_of<'a>(
    rest: &[&'a str],
    flags: &[&str],
    usage: &'static str,
) -> Result<Option<&'a str>, ParseError> {
    let Some(at) = rest.iter().position(|s| flags.contains(s)) else {
        return Ok(None);
    };
    match rest.get(at + 1) {
        Some(v) if !v.starts_with("--") => Ok(Some(v)),
        _ => Err(ParseError::invalid(
            format!("{} needs a value", rest[at]),
            usage,
        )),
    }
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const VALID: &[&str] = &["route", "unroute", "requests", "request", "har"];
    match rest.first().copied() {
        Some("route") => {
            let url = rest
                .get(1)
                .filter(|u| !u.starts_with("--"))
                .ok_or_else(|| ParseError::missing("network route", ROUTE_USAGE))?;
            let abort = rest.contains(&"--abort");
            let mut req = RouteRequest {
                url: Some(url.to_string()),
                abort,
                ..RouteRequest::default()
            };
            let body = value_of(rest, &["--body"], ROUTE_USAGE)?;
            let status = value_of(rest, &["--status"], ROUTE_USAGE)?;
            let content_type = value_of(rest, &["--content-type"], ROUTE_USAGE)?;
            if abort && (body.is_some() || status.is_some() || content_type.is_some()) {
                return Err(ParseError::invalid(
                    "--abort cannot be combined with --body, --status or --content-type",
                    ROUTE_USAGE,
                ));
            }
            if body.is_some() || status.is_some() || content_type.is_some() {
                let mut response = MockRequest {
                    body: Some(body.unwrap_or("").to_string()),
                    ..MockRequest::default()
                };
                if let Some(status) = status {
                    let code = status
                        .parse::<u16>()
                        .ok()
                        .filter(|c| (100..=599).contains(c))
                        .ok_or_else(|| {
                            ParseError::invalid(
                                format!("Invalid --status '{status}': use an HTTP status from 100 to 599"),
                                ROUTE_USAGE,
                            )
                        })?;
                    response.status = Some(code);
                }
                response.content_type = content_type.map(str::to_string);
                req.response = Some(response);
            }
            if let Some(rt) = value_of(rest, &["--resource-type", "--resource-types"], ROUTE_USAGE)?
            {
                req.resource_type = Some(Value::from(rt));
            }
            if let Some(origin) = value_of(rest, &["--allow-origin"], ROUTE_USAGE)? {
                req.allow_origin = Some(origin.to_string());
            }
            Ok(encode(ROUTE, &req))
        }
        Some("unroute") => Ok(encode(
            UNROUTE,
            &UnrouteRequest {
                url: rest.get(1).map(|u| u.to_string()),
            },
        )),
        Some("requests") => {
            let value = |flag: &str| flag_value(rest, &[flag]).map(str::to_string);
            let req = RequestsRequest {
                clear: rest.contains(&"--clear"),
                filter: value("--filter"),
                kind: value("--type"),
                method: value("--method"),
                status: value("--status"),
            };
            Ok(encode(REQUESTS, &req))
        }
        Some("request") => {
            let id = rest.get(1).ok_or_else(|| {
                ParseError::missing("network request", "network request <requestId>")
            })?;
            Ok(encode(
                REQUEST,
                &DetailRequest {
                    request_id: Some(id.to_string()),
                },
            ))
        }
        Some("har") => match rest.get(1).copied() {
            Some("start") => {
                let mut req = HarStartRequest::default();
                if rest.contains(&"--content") {
                    let content = flag_value(rest, &["--content"]).unwrap_or("");
                    if HarContent::parse(content).is_err() {
                        return Err(ParseError::invalid(
                            format!("Invalid --content mode '{content}'"),
                            HAR_START_USAGE,
                        ));
                    }
                    req.content = Some(content.to_string());
                }
                Ok(encode(HAR_START, &req))
            }
            Some("stop") => Ok(encode(
                HAR_STOP,
                &HarStopRequest {
                    path: rest.get(2).map(|p| p.to_string()),
                },
            )),
            Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
            None => Err(ParseError::missing(
                "network har",
                "network har <start|stop> [path]",
            )),
        },
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "network",
            "network <route|unroute|requests|request|har> [args...]",
        )),
    }
}

fn failure(err: NetworkError) -> Failure {
    match err {
        NetworkError::Engine(err) => err.into(),
        other => Failure::message(other.to_string()),
    }
}

/// `route`'s request (upstream's keys).
/// `network route`: `{"url", "abort", "response"?, "resourceType"?, "allowOrigin"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RouteRequest {
    url: Option<String>,
    #[serde(default)]
    abort: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response: Option<MockRequest>,
    /// Upstream also reads `body` at the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(
        default,
        alias = "resourceTypes",
        skip_serializing_if = "Option::is_none"
    )]
    resource_type: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow_origin: Option<String>,
}

/// A mocked response: `{"body", "status"?, "contentType"?, "headers"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MockRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    headers: Option<serde_json::Map<String, Value>>,
}

async fn route(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: RouteRequest = ctx.params()?;
    let pattern = required(&request.url, "url")?.to_string();
    let resource_types = match &request.resource_type {
        Some(Value::String(csv)) => csv
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let mock = request.response.clone().or_else(|| {
        request.body.clone().map(|body| MockRequest {
            body: Some(body),
            ..MockRequest::default()
        })
    });
    let action = if request.abort {
        RouteAction::Abort
    } else if let Some(mock) = mock {
        let mut headers: Vec<(String, String)> = mock
            .headers
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_string())))
            .collect();
        if let Some(origin) = &request.allow_origin {
            headers.push(("Access-Control-Allow-Origin".into(), origin.clone()));
        }
        RouteAction::Fulfill(MockResponse {
            status: mock.status.unwrap_or(200),
            body: mock.body.unwrap_or_default(),
            content_type: mock.content_type,
            headers,
        })
    } else {
        RouteAction::Continue
    };
    let session = ctx.session().await?;
    session
        .route(Route {
            pattern: pattern.clone(),
            action,
            resource_types,
        })
        .await
        .map_err(failure)?;
    Ok(json!({"routed": pattern}))
}

/// `network unroute`: `{"url"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct UnrouteRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

async fn unroute(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: UnrouteRequest = ctx.params()?;
    let session = ctx.session().await?;
    session
        .unroute(request.url.as_deref())
        .await
        .map_err(failure)?;
    Ok(json!({"unrouted": request.url.as_deref().unwrap_or("all")}))
}

/// `network requests`: `{"clear", "filter"?, "type"?, "method"?, "status"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct RequestsRequest {
    #[serde(default)]
    clear: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filter: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<String>,
}

async fn requests(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: RequestsRequest = ctx.params()?;
    let session = ctx.session().await?;
    if request.clear {
        session.clear_network_requests();
        return Ok(json!({"cleared": true}));
    }
    let filter = RequestFilter {
        url: request.filter,
        types: request.kind,
        method: request.method,
        status: request.status,
    };
    let requests = session.network_requests(&filter).map_err(failure)?;
    Ok(json!({"requests": requests}))
}

/// `network request`: `{"requestId"}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DetailRequest {
    request_id: Option<String>,
}

async fn request_detail(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DetailRequest = ctx.params()?;
    let id = required(&request.request_id, "requestId")?;
    let session = ctx.session().await?;
    let detail = session.network_request(id).await.map_err(failure)?;
    data(detail)
}

/// `network har start`: `{"content"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct HarStartRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

async fn har_start(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: HarStartRequest = ctx.params()?;
    let content = match request.content.as_deref() {
        Some(mode) => HarContent::parse(mode).map_err(failure)?,
        None => HarContent::default(),
    };
    let session = ctx.session().await?;
    session.har_start(content);
    Ok(json!({"started": true}))
}

/// `network har stop`: `{"path"?}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct HarStopRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
}

async fn har_stop(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: HarStopRequest = ctx.params()?;
    let session = ctx.session().await?;
    if !session.har_recording() {
        return Err(failure(NetworkError::HarNotStarted));
    }
    let path = match request.path {
        Some(path) => PathBuf::from(path),
        None => {
            // Upstream's default place: ~/.agent-browser/tmp/har/har-<ms>.har.
            let home = std::env::var("HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|_| std::env::temp_dir());
            let dir = home.join(".agent-browser").join("tmp").join("har");
            std::fs::create_dir_all(&dir)
                .map_err(|e| Failure::message(format!("Failed to write HAR: {e}")))?;
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0);
            dir.join(format!("har-{ms}.har"))
        }
    };
    // Upstream names itself as the HAR's creator; tools that read HARs see the same.
    let saved = session
        .har_stop_as(&path, "agent-browser", crate::upstream::UPSTREAM_VERSION)
        .await
        .map_err(failure)?;
    let mut reply = json!({
        "path": saved.path.display().to_string(),
        "requestCount": saved.request_count,
    });
    if saved.dropped > 0 {
        reply["dropped"] = json!(saved.dropped);
    }
    Ok(reply)
}
