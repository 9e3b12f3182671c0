//! Reading a URL over HTTP, without a browser: one GET (plus the page's Markdown twin,
//! `<path>.md`, when the page itself is not Markdown), the body turned into reading text by its
//! content type. TLS is rustls with the roots the caller gives ([`crate::tls::Trust`]).

use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, USER_AGENT};
use serde::Serialize;

use super::{html, sections};
use crate::policy::{DomainFilter, SiteBlocklist};

/// Bodies are read up to this size; the rest is cut off (`truncated`).
const BODY_LIMIT: usize = 2 * 1024 * 1024;
/// Markdown first, then text, then HTML.
const READ_ACCEPT: &str = "text/markdown, text/plain;q=0.9, text/html;q=0.7, */*;q=0.1";
/// At most this many redirects are followed.
const MAX_REDIRECTS: usize = 10;

/// Why a URL could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The URL is not one an HTTP read can fetch.
    #[error("{0}")]
    Url(String),
    /// The host is outside the session's allowlist.
    #[error("Domain '{0}' is not in the allowed domains list")]
    Blocked(String),
    /// The host is on the Host's blocklist.
    #[error("Site '{0}' is blocked by the Host's site policy")]
    SiteBlocked(String),
    /// No response: connection, TLS, timeout or redirect failure (the whole cause chain).
    #[error("Read request failed: {0}")]
    Request(String),
    /// The server answered with an error status.
    #[error("Read failed with HTTP {0}")]
    Status(u16),
    /// `require_md`, and the answer was not Markdown.
    #[error("Expected text/markdown, got {0}")]
    NotMarkdown(String),
    /// The HTTP client could not be built.
    #[error("Failed to create HTTP client: {0}")]
    Client(String),
}

/// How to read a URL.
#[derive(Clone, Debug, Default)]
pub struct UrlReadOptions {
    /// The body as it came.
    pub raw: bool,
    /// Only the heading outline.
    pub outline: bool,
    /// Only the sections whose heading contains this.
    pub filter: Option<String>,
    /// Fail unless the answer is `text/markdown`.
    pub require_md: bool,
    /// The whole read's deadline (each request's).
    pub timeout: Duration,
    /// Hosts a read (and each redirect) may reach.
    pub allowed: Option<DomainFilter>,
    /// Hosts a read (and each redirect) may not reach, whatever `allowed` says.
    pub blocked: Option<SiteBlocklist>,
    /// The `User-Agent` sent.
    pub user_agent: String,
}

/// What a URL read gives.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct UrlRead {
    /// The URL asked for (normalized).
    pub url: String,
    /// The URL the content came from, after redirects.
    pub final_url: String,
    /// Its HTTP status.
    pub status: u16,
    /// Its `Content-Type`, as sent (empty when none).
    pub content_type: String,
    /// How the content was made: `accept-markdown`, `text`, `html-fallback`, `raw` or
    /// `path-markdown`, with `-outline` or `-filtered` appended for those options.
    pub source: String,
    /// The body was longer than the read limit.
    pub truncated: bool,
    /// The reading text.
    pub content: String,
}

/// One response, its body read up to the limit.
struct Fetched {
    final_url: String,
    status: u16,
    content_type: String,
    ok: bool,
    body: String,
    truncated: bool,
}

impl Fetched {
    fn base_type(&self) -> String {
        base_type(&self.content_type)
    }
}

fn base_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn is_markdown(base: &str) -> bool {
    base == "text/markdown"
}

fn is_markdown_like(base: &str) -> bool {
    matches!(
        base,
        "text/markdown" | "text/x-markdown" | "application/markdown"
    )
}

/// `example.com/docs` → `https://example.com/docs`; only http and https, with a host; no
/// fragment.
pub(super) fn normalize_read_url(raw: &str) -> Result<Url, ReadError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(ReadError::Url("Read URL is empty".into()));
    }
    let candidate = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("https://{raw}")
    };
    let mut url =
        Url::parse(&candidate).map_err(|e| ReadError::Url(format!("Invalid read URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ReadError::Url(format!(
            "Unsupported read URL scheme '{}': use http or https",
            url.scheme()
        )));
    }
    if url.host_str().is_none() {
        return Err(ReadError::Url("Read URL must include a host".into()));
    }
    url.set_fragment(None);
    Ok(url)
}

fn check_allowed(
    url: &Url,
    allowed: Option<&DomainFilter>,
    blocked: Option<&SiteBlocklist>,
) -> Result<(), ReadError> {
    let host = url.host_str().unwrap_or_default();
    if blocked.is_some_and(|b| b.blocks_host(host)) {
        return Err(ReadError::SiteBlocked(host.to_string()));
    }
    let Some(filter) = allowed else {
        return Ok(());
    };
    if filter.is_allowed(host) {
        Ok(())
    } else {
        Err(ReadError::Blocked(host.to_string()))
    }
}

/// The error and its causes, each once: reqwest's `Display` names only the outermost.
fn chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(err) = cause {
        let part = err.to_string();
        if !part.is_empty() && !message.contains(&part) {
            message.push_str(": ");
            message.push_str(&part);
        }
        cause = err.source();
    }
    message
}

/// Reads `url` over HTTP(S) with the roots of `tls`.
pub async fn read_url(
    url: &str,
    options: &UrlReadOptions,
    tls: Arc<rustls::ClientConfig>,
) -> Result<UrlRead, ReadError> {
    let target = normalize_read_url(url)?;
    check_allowed(&target, options.allowed.as_ref(), options.blocked.as_ref())?;
    let allowed = options.allowed.clone();
    let blocked = options.blocked.clone();
    let redirects = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        match check_allowed(attempt.url(), allowed.as_ref(), blocked.as_ref()) {
            Ok(()) => attempt.follow(),
            Err(blocked) => attempt.error(blocked),
        }
    });
    let client = reqwest::Client::builder()
        .use_preconfigured_tls(Arc::unwrap_or_clone(tls))
        .timeout(options.timeout)
        .redirect(redirects)
        .build()
        .map_err(|e| ReadError::Client(chain(&e)))?;
    let fetch = |url: Url| fetch(&client, url, options);

    let primary = fetch(target.clone()).await.map_err(ReadError::Request)?;
    let base = primary.base_type();
    let markdown_direct = is_markdown(&base) || (!options.require_md && is_markdown_like(&base));
    if primary.ok && (options.raw || markdown_direct) {
        return finish(&target, &primary, options);
    }
    if !options.raw
        && !is_markdown(&base)
        && let Some(twin) = markdown_twin(&target)
        && let Ok(md) = fetch(twin).await
    {
        let md_base = md.base_type();
        let usable = if options.require_md {
            is_markdown(&md_base)
        } else {
            is_markdown_like(&md_base) || md_base == "text/plain"
        };
        if md.ok && usable {
            return Ok(shaped(
                &target,
                &md,
                "path-markdown",
                md.body.clone(),
                options,
            ));
        }
    }
    if primary.ok && !options.require_md && base == "text/plain" {
        return finish(&target, &primary, options);
    }
    if !primary.ok {
        return Err(ReadError::Status(primary.status));
    }
    finish(&target, &primary, options)
}

/// `/docs/intro` → `/docs/intro.md`, `/` → `/index.md`; none for a path already ending `.md`.
fn markdown_twin(url: &Url) -> Option<Url> {
    let path = url.path();
    if path.ends_with(".md") {
        return None;
    }
    let mut twin = url.clone();
    if path.is_empty() || path == "/" {
        twin.set_path("/index.md");
    } else {
        twin.set_path(&format!("{}.md", path.trim_end_matches('/')));
    }
    Some(twin)
}

async fn fetch(
    client: &reqwest::Client,
    url: Url,
    options: &UrlReadOptions,
) -> Result<Fetched, String> {
    check_allowed(&url, options.allowed.as_ref(), options.blocked.as_ref())
        .map_err(|e| e.to_string())?;
    let mut response = client
        .get(url)
        .header(USER_AGENT, &options.user_agent)
        .header(ACCEPT, READ_ACCEPT)
        .send()
        .await
        .map_err(|e| chain(&e))?;
    let status = response.status();
    let final_url = response.url().to_string();
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| chain(&e))? {
        let room = BODY_LIMIT - body.len();
        if chunk.len() > room || room == 0 {
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched {
        final_url,
        status: status.as_u16(),
        content_type,
        ok: status.is_success(),
        body: String::from_utf8_lossy(&body).into_owned(),
        truncated,
    })
}

/// The content of a response by its type, shaped by the options.
fn finish(target: &Url, fetched: &Fetched, options: &UrlReadOptions) -> Result<UrlRead, ReadError> {
    let base = fetched.base_type();
    if options.require_md && !is_markdown(&base) {
        let shown = fetched
            .content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim();
        return Err(ReadError::NotMarkdown(if shown.is_empty() {
            "unknown content type".into()
        } else {
            shown.into()
        }));
    }
    let (source, content) = if options.raw {
        ("raw", fetched.body.clone())
    } else if is_markdown_like(&base) {
        ("accept-markdown", fetched.body.clone())
    } else if base == "text/plain" {
        ("text", fetched.body.clone())
    } else if base == "text/html" || base == "application/xhtml+xml" {
        ("html-fallback", html::to_text(&fetched.body))
    } else {
        ("raw", fetched.body.clone())
    };
    Ok(shaped(target, fetched, source, content, options))
}

fn shaped(
    target: &Url,
    fetched: &Fetched,
    source: &str,
    content: String,
    options: &UrlReadOptions,
) -> UrlRead {
    let (source, content) = sections::shape(
        source,
        content,
        &fetched.final_url,
        options.outline,
        options.filter.as_deref(),
    );
    UrlRead {
        url: target.to_string(),
        final_url: fetched.final_url.clone(),
        status: fetched.status,
        content_type: fetched.content_type.clone(),
        source,
        truncated: fetched.truncated,
        content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_https_and_lose_their_fragment() {
        assert_eq!(
            normalize_read_url("example.com/docs#top")
                .map(|u| u.to_string())
                .ok(),
            Some("https://example.com/docs".to_string())
        );
        let ftp = normalize_read_url("ftp://x/").expect_err("ftp");
        assert_eq!(
            ftp.to_string(),
            "Unsupported read URL scheme 'ftp': use http or https"
        );
    }

    #[test]
    fn the_markdown_twin_of_a_page() {
        let twin = |u: &str| markdown_twin(&Url::parse(u).expect("url")).map(|u| u.to_string());
        assert_eq!(
            twin("http://h/a/b?x=1").as_deref(),
            Some("http://h/a/b.md?x=1")
        );
        assert_eq!(twin("http://h/").as_deref(), Some("http://h/index.md"));
        assert_eq!(twin("http://h/dir/").as_deref(), Some("http://h/dir.md"));
        assert_eq!(twin("http://h/x.md"), None);
    }
}
