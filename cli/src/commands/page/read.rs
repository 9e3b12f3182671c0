//! `read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>]
//! [--timeout <ms>]`: the active page (or a URL, read in a short-lived tab) as Markdown.
//! `--llms` and `--require-md` (upstream's HTTP fetch of `llms.txt` / `.md` twins) are refused
//! with an error rather than ignored.

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
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(content),
            ..Render::DEFAULT
        }),
    ],
};

/// The fetched content as page text (its origin is the final URL).
fn content(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(content) = s(data, "content") else {
        return false;
    };
    let origin = s(data, "finalUrl").or(s(data, "url")).or(s(data, "origin"));
    t.page(content, origin);
    true
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const USAGE: &str = "read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>] [--timeout <ms>]";
    let mut req = Req::new(ACTION);
    let mut timeout: u64 = 10_000;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--raw" => req.put("raw", true),
            "--require-md" => req.put("requireMd", true),
            "--outline" => req.put("outline", true),
            "--llms" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --llms", USAGE))?;
                if !matches!(*v, "index" | "full") {
                    return Err(ParseError::invalid(
                        format!("Invalid --llms value: {v} (expected index or full)"),
                        USAGE,
                    ));
                }
                req.put("llms", *v);
                i += 1;
            }
            "--filter" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --filter", USAGE))?;
                req.put("filter", *v);
                i += 1;
            }
            "--timeout" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --timeout", USAGE))?;
                timeout = v
                    .parse::<u64>()
                    .map_err(|_| ParseError::invalid(format!("Invalid timeout: {v}"), USAGE))?;
                i += 1;
            }
            other if other.starts_with("--") => {
                return Err(ParseError::invalid(format!("Unknown flag: {other}"), USAGE));
            }
            other => {
                if !req.has("url") {
                    req.put("url", other);
                }
            }
        }
        i += 1;
    }
    req.put("timeout", timeout);
    req.put("tls", read_tls(input));
    ok(req)
}

/// The `tls` object of a `read` request: the CA bundle the daemon's HTTP client should trust.
fn read_tls(input: &Input<'_>) -> Value {
    let flags = input.flags;
    let (ca_cert, implicit) = if flags.clear_ca_cert {
        (Value::Null, false)
    } else if let Some(path) = &flags.ca_cert {
        (Value::from(path.as_str()), false)
    } else {
        match SYSTEM_CA_BUNDLES
            .iter()
            .find(|p| input.host.exists(std::path::Path::new(p)))
        {
            Some(p) => (Value::from(*p), true),
            None => (Value::Null, false),
        }
    };
    json!({
        "caCert": ca_cert,
        "caCertIsImplicit": implicit,
        "useSystemCa": flags.use_system_ca,
    })
}

/// The fields of a `read` request the daemon acts on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadRequest {
    /// Read this URL instead of the active page.
    #[serde(default)]
    pub url: Option<String>,
    /// The HTML as it is.
    #[serde(default)]
    pub raw: bool,
    /// The heading outline only.
    #[serde(default)]
    pub outline: bool,
    /// Sections whose heading contains this.
    #[serde(default)]
    pub filter: Option<String>,
    /// `--llms`.
    #[serde(default)]
    pub llms: Option<String>,
    /// `--require-md`.
    #[serde(default)]
    pub require_md: bool,
    /// Deadline (ms).
    #[serde(default)]
    pub timeout: Option<u64>,
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ReadRequest = ctx.params()?;
    if request.llms.is_some() || request.require_md {
        return Err(Failure::message(
            "read --llms and --require-md fetch llms.txt or Markdown twins over HTTP, which abx does not do: read the page itself (without these flags)",
        ));
    }
    let session = ctx.session().await?;
    let options = abx_engine::ReadOptions {
        outline: request.outline,
        filter: request.filter.clone(),
        raw: request.raw,
    };
    let timeout = request.timeout.map(std::time::Duration::from_millis);
    let url = request
        .url
        .as_deref()
        .map(crate::commands::support::normalize_url);
    let page = session.read(url.as_deref(), &options, timeout).await?;
    data(page)
}
