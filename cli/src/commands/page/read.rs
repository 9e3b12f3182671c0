//! `read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>]
//! [--timeout <ms>]`: a URL read over HTTP without a browser (as upstream: no browser launched,
//! no tab used), or the active tab's live DOM put through the same conversion (`--require-md`
//! fetches the active tab's URL instead, as upstream does: Markdown is an HTTP answer). TLS
//! trusts the bundled roots plus `--ca-cert` and, with `--use-system-ca`, the platform's store;
//! both stay for the session until changed.
//! `--llms` (upstream's `llms.txt` index) is refused with an error rather than ignored.

use std::path::PathBuf;

use crate::commands::prelude::*;
use crate::commands::support::SYSTEM_CA_BUNDLES;

/// The wire action.
pub const ACTION: &str = "read";

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Read a page (or URL) as text/markdown",
        usage: &[
            "read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>] [--timeout <ms>]",
        ],
        examples: &["read https://example.com/docs --outline"],
        description: "\
Prints a page as text for agents: the active tab's rendered page as Markdown, or with a URL an
HTTP read (no browser) that prefers Markdown (Accept: text/markdown, then the URL with .md)
and falls back to the text of the HTML.",
        sections: &[(
            "Options",
            &[
                ("--raw", "The response body as it came, no HTML extraction"),
                ("--require-md", "Fail unless the answer is text/markdown"),
                (
                    "--llms <index|full>",
                    "The nearest llms.txt (index) or llms-full.txt (full)",
                ),
                ("--outline", "Only the headings"),
                (
                    "--filter <text>",
                    "Only sections (or links, headings) matching the text",
                ),
                ("--timeout <ms>", "HTTP timeout (default 10000)"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(content),
            example: r##"{"content":"# Doc","url":"https://x.test/","finalUrl":"https://x.test/doc"}"##,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(6, "agent_browser_read", "core", &["read"], "url:s filter:s@--filter llms:e(index|full)@--llms outline:b@--outline raw:b@--raw readTimeoutMs:i@--timeout requireMd:b@--require-md").read_only(),
];

/// The fetched content as page text (its origin is the final URL).
fn content(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(content) = s(data, "content") else {
        return false;
    };
    let origin = s(data, "finalUrl").or(s(data, "url")).or(s(data, "origin"));
    // A body that ends its last line gets no second newline (upstream's text).
    t.page(content.strip_suffix('\n').unwrap_or(content), origin);
    true
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const USAGE: &str = "read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>] [--timeout <ms>]";
    const OPTIONS: &[&str] = &[
        "--raw",
        "--require-md",
        "--llms",
        "--outline",
        "--filter",
        "--timeout",
        "--json",
    ];
    const FLAGS: &[Flag] = &[
        Flag::switch(&["--raw"]),
        Flag::switch(&["--require-md"]),
        Flag::switch(&["--outline"]),
        Flag::value(&["--llms"], "read --llms", USAGE),
        Flag::value(&["--filter"], "read --filter", USAGE),
        Flag::value(&["--timeout"], "read --timeout", USAGE),
    ];
    let mut req = ReadRequest {
        timeout: Some(10_000),
        ..ReadRequest::default()
    };
    for word in scan(rest, FLAGS) {
        match word? {
            Word::Switch("--raw") => req.raw = true,
            Word::Switch("--require-md") => req.require_md = true,
            Word::Switch("--outline") => req.outline = true,
            Word::Value("--llms", v) => {
                if !matches!(v, "index" | "full") {
                    return Err(ParseError::invalid(
                        format!("Invalid read --llms value '{v}': expected index or full"),
                        USAGE,
                    ));
                }
                req.llms = Some(v.to_string());
            }
            Word::Value("--filter", v) => req.filter = Some(v.to_string()),
            Word::Value("--timeout", v) => {
                let timeout = v.parse::<u64>().map_err(|_| {
                    ParseError::invalid(format!("Invalid read timeout: {v}"), USAGE)
                })?;
                if timeout == 0 {
                    return Err(ParseError::invalid(
                        "Read timeout must be greater than 0",
                        USAGE,
                    ));
                }
                req.timeout = Some(timeout);
            }
            Word::Other(other) if other.starts_with("--") => {
                return Err(ParseError::unknown_sub(other, OPTIONS));
            }
            other if req.url.is_some() => {
                return Err(ParseError::invalid(
                    format!("Unexpected read argument: {}", other.text()),
                    USAGE,
                ));
            }
            other => req.url = Some(other.text().to_string()),
        }
    }
    if req.llms.is_some() && req.outline {
        return Err(ParseError::invalid(
            "read --llms and --outline cannot be used together",
            USAGE,
        ));
    }
    req.tls = tls_changes(input);
    Ok(encode(ACTION, &req))
}

/// The `tls` object of a `read` request, upstream's three keys: `caCert` (an explicit
/// `--ca-cert`, made absolute, or else the system bundle found here with `caCertIsImplicit`) and
/// `useSystemCa`. Beyond upstream, and only when said: `clearCaCert` (`--no-ca-cert`) and
/// `useSystemCaSet` (`useSystemCa` was given, so it changes the session's setting).
pub fn tls_changes(input: &Input<'_>) -> TlsChanges {
    let flags = input.flags;
    let explicit = flags
        .ca_cert
        .as_deref()
        .filter(|p| !p.is_empty() && !flags.clear_ca_cert)
        .map(|p| {
            let path = std::path::Path::new(p);
            // The daemon runs elsewhere: a relative path means the caller's directory.
            match std::env::current_dir() {
                Ok(cwd) if path.is_relative() => cwd.join(path).to_string_lossy().into_owned(),
                _ => p.to_string(),
            }
        });
    let (ca_cert, implicit) = match explicit {
        Some(path) => (Some(path), false),
        None if flags.clear_ca_cert => (None, false),
        None => match SYSTEM_CA_BUNDLES
            .iter()
            .find(|p| input.host.exists(std::path::Path::new(p)))
        {
            Some(p) => (Some(p.to_string()), true),
            None => (None, false),
        },
    };
    TlsChanges {
        ca_cert,
        ca_cert_is_implicit: implicit,
        clear_ca_cert: flags.clear_ca_cert,
        use_system_ca: flags.use_system_ca,
        use_system_ca_set: flags.use_system_ca_given,
    }
}

/// [`tls_changes`] as the daemon reads them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TlsChanges {
    /// A CA file (`null` when none: upstream's key).
    #[serde(default)]
    pub ca_cert: Option<String>,
    /// `ca_cert` is the system bundle the CLI found, not a `--ca-cert` (no change then).
    #[serde(default)]
    pub ca_cert_is_implicit: bool,
    /// Trust no CA file from now on (sent only when said).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear_ca_cert: bool,
    /// The platform's store.
    #[serde(default)]
    pub use_system_ca: bool,
    /// `use_system_ca` was said, so it is the session's setting from now on (sent only then).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub use_system_ca_set: bool,
}

/// The fields of a `read` request the daemon acts on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadRequest {
    /// Read this URL instead of the active page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTML as it is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw: bool,
    /// The heading outline only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outline: bool,
    /// Sections whose heading contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// `--llms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llms: Option<String>,
    /// `--require-md`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_md: bool,
    /// Deadline (ms).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Changes to the session's HTTP trust.
    #[serde(default)]
    pub tls: TlsChanges,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ReadRequest = ctx.params()?;
    let tls = &request.tls;
    let ca_file = if tls.clear_ca_cert {
        Some(None)
    } else if tls.ca_cert_is_implicit {
        None
    } else {
        tls.ca_cert.clone().map(|p| Some(PathBuf::from(p)))
    };
    let native = tls.use_system_ca_set.then_some(tls.use_system_ca);
    let trust = ctx.update_http_trust(ca_file, native);
    if request.llms.is_some() {
        return Err(Failure::message(
            "read --llms (the site's llms.txt index) is not provided by abx: read the page itself (without --llms)",
        ));
    }
    let timeout = std::time::Duration::from_millis(request.timeout.unwrap_or(10_000));
    if let Some(url) = request.url.as_deref() {
        return read_over_http(ctx, url, &request, &trust, timeout).await;
    }
    let session = ctx.session().await?;
    if request.require_md {
        // Markdown is a property of the HTTP answer: upstream fetches the active tab's URL.
        let url = session
            .read_location(session_allowlist(ctx).as_ref(), Some(timeout))
            .await?;
        return read_over_http(ctx, &url, &request, &trust, timeout).await;
    }
    let options = abx_engine::ReadOptions {
        outline: request.outline,
        filter: request.filter.clone(),
        raw: request.raw,
        allowed: session_allowlist(ctx),
    };
    let page = session.read(&options, Some(timeout)).await?;
    data(page)
}

/// The session's allowlist: the running browser's, else the configured one.
fn session_allowlist(ctx: &Ctx<'_>) -> Option<abx_engine::DomainFilter> {
    let allowed = ctx
        .live()
        .map(|live| live.spec.allowed_domains)
        .unwrap_or_else(|| ctx.config().launch.allowed_domains.clone());
    abx_engine::DomainFilter::new(&allowed)
}

/// `read <url>`: an HTTP read in the daemon, no browser (one that runs is left alone).
async fn read_over_http(
    ctx: &Ctx<'_>,
    url: &str,
    request: &ReadRequest,
    trust: &abx_engine::tls::Trust,
    timeout: std::time::Duration,
) -> Result<Value, Failure> {
    let tls = trust
        .client_config()
        .map_err(|e| Failure::message(e.to_string()))?;
    let options = abx_engine::UrlReadOptions {
        raw: request.raw,
        outline: request.outline,
        filter: request.filter.clone(),
        require_md: request.require_md,
        timeout,
        // The session's allowlist and the Host's blocklist fence reads too.
        allowed: session_allowlist(ctx),
        blocked: abx_engine::SiteBlocklist::new(&ctx.config().blocked_sites),
        user_agent: format!("agent-browser/{} read", crate::upstream::UPSTREAM_VERSION),
    };
    let read = abx_engine::read_url(url, &options, tls)
        .await
        .map_err(|e| {
            // A refused read is recorded like a refused navigation (for a Host that asked).
            let refused = match &e {
                abx_engine::ReadError::SiteBlocked(host) => {
                    Some((abx_engine::BlockRule::BlockedSites, host))
                }
                abx_engine::ReadError::Blocked(host) => {
                    Some((abx_engine::BlockRule::AllowedDomains, host))
                }
                _ => None,
            };
            if let Some((rule, host)) = refused {
                ctx.report_blocked(&abx_engine::BlockedNavigation {
                    url: url.to_string(),
                    host: host.clone(),
                    rule,
                    by: abx_engine::BlockedBy::Command,
                });
            }
            Failure::message(e.to_string())
        })?;
    data(read)
}
