//! `open [url]` (aliases `goto`, `navigate`): navigates the active tab and waits for the load
//! event. `open` without a URL only launches the browser (a `launch` request).

use abx_engine::WaitUntil;
use abx_wire::LaunchRequest;

use crate::commands::browser::launch;
use crate::commands::prelude::*;
use crate::commands::support::normalize_url;

/// The wire action.
pub const ACTION: &str = "navigate";

/// `{"url", "waitUntil"?, "headers"?, "iosDevice"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateRequest {
    /// The URL (`https://` added when it has no scheme).
    pub url: Option<String>,
    /// `load` (default), `domcontentloaded`, `networkidle` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_until: Option<String>,
    /// `--headers`: extra headers for the URL's origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Value>,
    /// The iOS device of the `ios` provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ios_device: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["open", "goto", "navigate"],
    help: Some(Help {
        about: "Launch the browser and navigate (https:// is added when no scheme is given)",
        usage: &["open [url]", "goto <url>", "navigate <url>"],
        examples: &[
            "open",
            "open example.com",
            "open http://127.0.0.1:8080/form.html",
            "open localhost:3000",
            "open api.example.com --headers '{\"Authorization\": \"Bearer token\"}'",
        ],

        description: "\
Starts the session's browser if it is not running, then loads the URL in the active tab and
waits for the load event. A URL without a scheme gets https:// (localhost:3000 included).
Without a URL, `open` only launches the browser and leaves it on about:blank, so routes,
cookies, headers and init scripts can be set up before the first real page load.
The aliases `goto` and `navigate` need a URL.",
        notes: "\
Launch settings that matter here are global options: --headed, --headers <json> (sent only to
the URL's origin), --init-script <path>, --enable react-devtools, --profile, --state.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))
        .moving_tab()
        .navigating()],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    1,
    "agent_browser_open",
    "core",
    &["open"],
    "url:s headed:b@G--headed webgpu:b@G--webgpu webmcp:b@!--no-webmcp",
)
.in_core()];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let flags = input.flags;
    let url = match input.rest.iter().find(|a| !a.starts_with("--")) {
        Some(u) => *u,
        None if input.word == COMMAND.names[0] => {
            let launch = LaunchRequest {
                headless: Some(!flags.headed),
                ..LaunchRequest::default()
            };
            return Ok(encode(launch::ACTION, &launch));
        }
        None => return Err(ParseError::missing(input.word, "goto <url>")),
    };
    let mut request = NavigateRequest {
        url: Some(normalize_url(url)),
        ..NavigateRequest::default()
    };
    if flags.provider.is_some() {
        request.wait_until = Some("none".into());
    }
    if let Some(raw) = &flags.headers {
        let headers: Value = serde_json::from_str(raw).map_err(|_| {
            ParseError::invalid(
                format!("Invalid JSON for --headers: {raw}"),
                "open <url> --headers '{\"Key\": \"Value\"}'",
            )
        })?;
        request.headers = Some(headers);
    }
    if flags.provider.as_deref() == Some("ios")
        && let Some(device) = &flags.device
    {
        request.ios_device = Some(device.clone());
    }
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: NavigateRequest = ctx.params()?;
    let url = required(&request.url, "url")?;
    let wait = match &request.wait_until {
        Some(name) => WaitUntil::parse(name)?,
        None => WaitUntil::Load,
    };
    let session = ctx.session().await?;
    if let Some(headers) = &request.headers {
        let Some(map) = headers.as_object() else {
            return Err(Failure::message(
                "--headers must be a JSON object of header names to values",
            ));
        };
        // Upstream's scope: every later request to this URL's origin, and only there.
        let headers = map
            .iter()
            .map(|(k, v)| {
                let value = v
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string());
                (k.clone(), value)
            })
            .collect();
        session.set_origin_headers(url, headers).await?;
    }
    let nav = session.navigate(url, wait, ctx.timeout()).await?;
    let mut reply = json!({"url": nav.url, "title": nav.title});
    if nav.load_held {
        reply["__warning"] = json!(format!(
            "The page was parsed, but its load event had not fired {} s later (a request that never finishes): it is usable and may still change",
            abx_engine::LOAD_AFTER_PARSE.as_secs()
        ));
    }
    Ok(reply)
}
