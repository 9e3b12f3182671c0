//! `read`: a page as reading text for an agent, the way upstream (agent-browser 0.41.2) gives it.
//!
//! [`read_url`] fetches a URL over HTTP without a browser. [`Session::read`] reads the active
//! tab: the live DOM of its main frame (scripts' changes included, whatever frame is selected),
//! serialized and put through the same HTML conversion as an HTTP read's ([`html_to_text`]),
//! so both give the same text for the same markup. Pages Chrome shows in a document of its own
//! (plain text, JSON, a PDF viewer) are read from that document too, as upstream does.

mod html;
mod http;
mod sections;

use std::time::Duration;

use abx_cdp::protocol::js_protocol::runtime;
use serde::Serialize;
use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::frame::Realm;
use crate::policy::DomainFilter;
use crate::session::Session;

/// What `read` of the active tab returns (upstream's fields).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ReadPage {
    /// The main frame's `location.href`.
    pub url: String,
    /// The same URL (an HTTP read's field: there was no redirect to follow).
    pub final_url: String,
    /// Always `text/html`: the DOM is serialized as HTML whatever the page was served as.
    pub content_type: String,
    /// `active-tab-html` (converted) or `active-tab-raw` (`raw`), with `-outline` or
    /// `-filtered` appended for those options.
    pub source: String,
    /// Always `false`: the DOM is read whole.
    pub truncated: bool,
    /// The reading text (or the outline, or the HTML with `raw`).
    pub content: String,
}

/// How to read the active tab.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadOptions {
    /// Only the heading outline.
    pub outline: bool,
    /// Only the sections whose heading contains this (case-insensitive).
    pub filter: Option<String>,
    /// The page's HTML as it is, unconverted.
    pub raw: bool,
    /// The session's allowlist: a page outside it (or not on http/https) is not read.
    pub allowed: Option<DomainFilter>,
}

pub use html::to_text as html_to_text;
pub use http::{ReadError, UrlRead, UrlReadOptions, read_url};

/// The main frame's address and markup, taken in one evaluation so they belong together.
const DOCUMENT_SCRIPT: &str = "({url: location.href, \
     html: document.documentElement ? document.documentElement.outerHTML : ''})";
/// The main frame's address alone.
const LOCATION_SCRIPT: &str = "({url: location.href, html: ''})";

impl Session {
    /// Reads the active tab's main frame as it is now (see the module docs).
    pub async fn read(&self, options: &ReadOptions, timeout: Option<Duration>) -> Result<ReadPage> {
        let (url, html) = self.main_document(DOCUMENT_SCRIPT, timeout).await?;
        check_active_url(&url, options.allowed.as_ref())?;
        let (source, content) = if options.raw {
            ("active-tab-raw", html)
        } else {
            ("active-tab-html", html::to_text(&html))
        };
        let (source, content) = sections::shape(
            source,
            content,
            &url,
            options.outline,
            options.filter.as_deref(),
        );
        Ok(ReadPage {
            final_url: url.clone(),
            url,
            content_type: "text/html".into(),
            source,
            truncated: false,
            content,
        })
    }

    /// The main frame's `location.href`, checked against `allowed` as [`Session::read`] checks
    /// it (`read --require-md` of the active tab fetches this URL over HTTP).
    pub async fn read_location(
        &self,
        allowed: Option<&DomainFilter>,
        timeout: Option<Duration>,
    ) -> Result<String> {
        let (url, _) = self.main_document(LOCATION_SCRIPT, timeout).await?;
        check_active_url(&url, allowed)?;
        Ok(url)
    }

    /// `(location.href, outerHTML)` of the active tab's main frame: upstream reads the top
    /// document even while a frame is selected.
    async fn main_document(
        &self,
        script: &str,
        timeout: Option<Duration>,
    ) -> Result<(String, String)> {
        let page = self.page(timeout).await?;
        let (tab, timeout) = (page.tab(), page.timeout);
        let eval = runtime::EvaluateParams {
            return_by_value: Some(true),
            ..runtime::EvaluateParams::new(script)
        };
        // Own reply type, as `eval`'s: the generated `RemoteObject` fails on newer subtypes.
        let reply: Value = tab
            .guarded("read", async {
                let realm = Realm::main(tab);
                Ok(realm
                    .session
                    .call_as(&realm.evaluate(eval), Some(timeout))
                    .await?)
            })
            .await?;
        if let Some(details) = reply.get("exceptionDetails") {
            let text = details
                .pointer("/exception/description")
                .or_else(|| details.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("unknown error");
            return Err(EngineError::Evaluation(text.to_string()));
        }
        let field = |name: &str| {
            reply
                .pointer(&format!("/result/value/{name}"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match (field("url"), field("html")) {
            (Some(url), _) if url.is_empty() => {
                Err(EngineError::Page("Active tab has no URL".into()))
            }
            (Some(url), Some(html)) => Ok((url, html)),
            _ => Err(EngineError::Evaluation(
                "the page did not give its document".into(),
            )),
        }
    }
}

/// With an allowlist, only an http(s) page on an allowed host is read (upstream's rule and
/// words).
fn check_active_url(url: &str, allowed: Option<&DomainFilter>) -> Result<()> {
    let Some(filter) = allowed else {
        return Ok(());
    };
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| EngineError::Page(format!("Invalid active tab URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(EngineError::Page(format!(
            "Active tab URL scheme '{}' is not allowed by domain filter",
            parsed.scheme()
        )));
    }
    let host = parsed.host_str().unwrap_or_default();
    if filter.is_allowed(host) {
        Ok(())
    } else {
        Err(EngineError::DomainBlocked { host: host.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_allowlist_reads_only_http_pages_on_its_hosts() {
        let filter = DomainFilter::new(["127.0.0.1"]);
        assert!(check_active_url("about:blank", None).is_ok());
        assert!(check_active_url("http://127.0.0.1:8/x", filter.as_ref()).is_ok());
        let about = check_active_url("about:blank", filter.as_ref()).expect_err("about");
        assert_eq!(
            about.to_string(),
            "Active tab URL scheme 'about' is not allowed by domain filter"
        );
        let other = check_active_url("https://example.com/", filter.as_ref()).expect_err("host");
        assert_eq!(
            other.to_string(),
            "Domain 'example.com' is not in the allowed domains list"
        );
    }
}
