//! `cookies [get|set|clear]`: the cookies the active page can see. `set` takes a name and
//! value with attributes, or `--curl <file>` (a JSON list, a "Copy as cURL" command or a
//! `Cookie:` header). `clear` deletes the page's cookies only, not the whole browser's.

use serde_json::Map;

use crate::commands::prelude::*;
use crate::commands::support::{flag_value, parse_cookie_file};

/// `cookies [get]`.
pub const GET: &str = "cookies_get";
/// `cookies set`.
pub const SET: &str = "cookies_set";
/// `cookies clear`.
pub const CLEAR: &str = "cookies_clear";

/// `{"cookies": [CDP CookieParam, …]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetRequest {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<Value>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["cookies"],
    help: Some(Help {
        about: "Manage browser cookies",
        usage: &[
            "cookies [get|set|clear]",
            "cookies set <name> <value> [--url <url>] [--domain <domain>] [--path <path>] [--http-only] [--secure] [--same-site <Strict|Lax|None>] [--expires <timestamp>]",
            "cookies set --curl <file> [--domain <domain>] [--url <url>]",
        ],
        examples: &[
            "cookies",
            "cookies set session_id abc123",
            "cookies set session_id abc123 --url https://app.example.com",
            "cookies set auth_token xyz789 --domain example.com --path /api --http-only --secure",
            "cookies set consent yes --same-site Strict",
            "cookies set temp_token temp123 --expires 1735689600",
            "cookies set --curl ./cookies.txt",
            "cookies clear",
        ],
        description: "\
Lists, sets or clears the browser's cookies. Without a subcommand the cookies of the current
page are listed. A cookie set without --url or --domain belongs to the current page's URL.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("get", "List cookies (the default)"),
                    ("set <name> <value>", "Set one cookie"),
                    (
                        "set --curl <file>",
                        "\
Set the cookies of a file: JSON, a cURL command line or a Cookie
header (the format is detected)",
                    ),
                    ("clear", "Delete all cookies"),
                ],
            ),
            (
                "set options",
                &[
                    ("--url <url>", "The URL the cookie belongs to"),
                    ("--domain <domain>", "Cookie domain"),
                    ("--path <path>", "Cookie path"),
                    ("--http-only", "Hidden from page scripts"),
                    ("--secure", "HTTPS only"),
                    ("--same-site <v>", "Strict, Lax or None"),
                    (
                        "--expires <timestamp>",
                        "Expiry in Unix seconds (default: a session cookie)",
                    ),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(GET, |ctx| Box::pin(run_get(ctx))),
        Action::queued(SET, |ctx| Box::pin(run_set(ctx))),
        Action::queued(CLEAR, |ctx| Box::pin(run_clear(ctx))).rendered(Render {
            cleared: "Cookies cleared",
            example: r#"{"cleared":true}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        75,
        "agent_browser_cookies_get",
        "state",
        &["cookies", "get"],
        "",
    )
    .read_only(),
    McpTool::new(
        76,
        "agent_browser_cookies_set",
        "state",
        &["cookies", "set"],
        "name:s! value:s! domain:s@--domain expires:i@--expires httpOnly:b@--http-only path:s@--path sameSite:e(Strict|Lax|None)@--same-site secure:b@--secure url:s@--url",
    ),
    McpTool::new(
        77,
        "agent_browser_cookies_set_curl",
        "state",
        &["cookies", "set", "--curl"],
        "file:s! domain:s@--domain url:s@--url",
    ),
    McpTool::new(
        78,
        "agent_browser_cookies_clear",
        "state",
        &["cookies", "clear"],
        "",
    ),
];

const SAME_SITE_USAGE: &str = "--same-site <Strict|Lax|None>";
const EXPIRES_USAGE: &str = "--expires <timestamp>";

/// `cookies set`'s flags.
const SET_FLAGS: &[Flag] = &[
    Flag::value(&["--url"], "cookies set --url", "--url <url>"),
    Flag::value(&["--domain"], "cookies set --domain", "--domain <domain>"),
    Flag::value(&["--path"], "cookies set --path", "--path <path>"),
    Flag::switch(&["--httpOnly", "--http-only"]),
    Flag::switch(&["--secure"]),
    Flag::value(
        &["--sameSite", "--same-site"],
        "cookies set --same-site",
        SAME_SITE_USAGE,
    ),
    Flag::value(&["--expires"], "cookies set --expires", EXPIRES_USAGE),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const SET_USAGE: &str = "cookies set <name> <value> [--url <url>] [--domain <domain>] [--path <path>] [--http-only] [--secure] [--same-site <Strict|Lax|None>] [--expires <timestamp>]\n  or:  cookies set --curl <file> [--domain <domain>] [--url <url>]";
    match rest.first().copied().unwrap_or("get") {
        "set" => {
            if let Some(path) =
                flag_value(rest, &["--curl"]).or_else(|| rest.contains(&"--curl").then_some(""))
            {
                if path.is_empty() {
                    return Err(ParseError::missing(
                        "cookies set --curl",
                        "cookies set --curl <file> [--domain <domain>] [--url <url>]",
                    ));
                }
                let raw = input
                    .host
                    .read_to_string(std::path::Path::new(path))
                    .map_err(|e| {
                        ParseError::invalid(
                            format!("cookies --curl: cannot read '{path}': {e}"),
                            "cookies set --curl <file>",
                        )
                    })?;
                let mut cookies = parse_cookie_file(&raw).map_err(|e| {
                    ParseError::invalid(format!("cookies --curl: {e}"), "cookies set --curl <file>")
                })?;
                let domain = flag_value(rest, &["--domain"]);
                let url = flag_value(rest, &["--url"]);
                for cookie in &mut cookies {
                    if let Some(d) = domain {
                        cookie["domain"] = json!(d);
                        if cookie.get("path").is_none() {
                            cookie["path"] = json!("/");
                        }
                    }
                    if let Some(u) = url {
                        cookie["url"] = json!(u);
                    }
                }
                return Ok(encode(SET, &SetRequest { cookies }));
            }
            let name = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("cookies set", SET_USAGE))?;
            let value = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("cookies set", SET_USAGE))?;
            let mut cookie = Map::new();
            cookie.insert("name".to_string(), json!(name));
            cookie.insert("value".to_string(), json!(value));
            for word in scan(&rest[3..], SET_FLAGS) {
                match word? {
                    Word::Value(flag @ ("--url" | "--domain" | "--path"), v) => {
                        cookie.insert(flag[2..].into(), json!(v));
                    }
                    Word::Switch(flag) => {
                        cookie.insert(flag[2..].into(), json!(true));
                    }
                    Word::Value("--sameSite", v) => {
                        if !matches!(v, "Strict" | "Lax" | "None") {
                            return Err(ParseError::missing(
                                "cookies set --same-site",
                                SAME_SITE_USAGE,
                            ));
                        }
                        cookie.insert("sameSite".into(), json!(v));
                    }
                    Word::Value(_, v) => {
                        let n = v.parse::<i64>().map_err(|_| {
                            ParseError::missing("cookies set --expires", EXPIRES_USAGE)
                        })?;
                        cookie.insert("expires".into(), json!(n));
                    }
                    // A misspelt flag must not set a cookie without the attribute it meant.
                    Word::Other(flag) if flag.starts_with('-') => {
                        return Err(ParseError::invalid(
                            format!("cookies set: unknown flag '{flag}'"),
                            SET_USAGE,
                        ));
                    }
                    Word::Other(_) => {}
                }
            }
            Ok(encode(
                SET,
                &SetRequest {
                    cookies: vec![Value::Object(cookie)],
                },
            ))
        }
        "clear" => Ok(encode(CLEAR, &NoParams {})),
        _ => Ok(encode(GET, &NoParams {})),
    }
}

async fn run_get(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    Ok(json!({"cookies": session.cookies().await?}))
}

async fn run_set(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SetRequest = ctx.params()?;
    let session = ctx.session().await?;
    session.set_cookies(&request.cookies).await?;
    Ok(json!({"set": true}))
}

async fn run_clear(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let session = ctx.session().await?;
    session.clear_cookies().await?;
    Ok(json!({"cleared": true}))
}
