//! `read [url] [--outline] [--filter <text>] [--raw]`: the page as Markdown for a reader (an
//! agent): headings, paragraphs, lists, links (absolute), emphasis, code, quotes and tables of
//! the *rendered* DOM, without scripts, styles, navigation or hidden elements.
//!
//! With a URL the page is read in a short-lived tab of the session (so the allowlist, cookies
//! and credentials apply, and script-rendered pages read as they show), closed afterwards; the
//! active tab stays as it was.

mod html;
mod http;
mod sections;

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::session::Session;

/// What `read` returns.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ReadPage {
    /// Markdown (or the outline, or the HTML with `raw`).
    pub content: String,
    /// `text/markdown`, or `text/html` for `raw`.
    pub content_type: String,
    /// The URL read.
    pub final_url: String,
}

/// How to read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadOptions {
    /// Only the heading outline.
    pub outline: bool,
    /// Only the sections whose heading contains this (case-insensitive).
    pub filter: Option<String>,
    /// The page's HTML as it is, unconverted.
    pub raw: bool,
}

pub use html::to_text as html_to_text;
pub use http::{ReadError, UrlRead, UrlReadOptions, read_url};

const MARKDOWN_FN: PageFn = PageFn::new(include_str!("read/markdown.js"));

impl Session {
    /// Reads the active tab, or `url` in a temporary tab.
    pub async fn read(
        &self,
        url: Option<&str>,
        options: &ReadOptions,
        timeout: Option<Duration>,
    ) -> Result<ReadPage> {
        let Some(url) = url else {
            return self.read_active(options, timeout).await;
        };
        let previous = self.active_target();
        let opened = self.tab_new(Some(url), None).await;
        let read = match &opened {
            Ok(_) => self.read_active(options, timeout).await,
            Err(_) => Err(EngineError::Invalid(String::new())),
        };
        // The temporary tab goes, whether or not its page loaded.
        let temporary = match &opened {
            Ok(tab) => Some(tab.tab_id.clone()),
            Err(_) => self
                .active_target()
                .filter(|t| previous.as_ref() != Some(t))
                .and_then(|t| self.tabs().into_iter().find(|l| l.target_id == t))
                .map(|l| l.tab_id),
        };
        if let Some(temporary) = temporary {
            let _ = self.tab_close(Some(&temporary)).await;
        }
        let read = match opened {
            Ok(_) => read,
            Err(err) => Err(err),
        };
        if let Some(previous) = previous
            && let Some(back) = self.tabs().into_iter().find(|t| t.target_id == previous)
        {
            self.tab_switch(&back.tab_id).await?;
        }
        read
    }

    async fn read_active(
        &self,
        options: &ReadOptions,
        timeout: Option<Duration>,
    ) -> Result<ReadPage> {
        let final_url = self.url().await?;
        let page = self.page(timeout).await?;
        let (script, content_type) = if options.raw {
            (
                "document.documentElement ? document.documentElement.outerHTML : ''".to_string(),
                "text/html",
            )
        } else {
            let args = json!({"outline": options.outline, "filter": options.filter});
            (MARKDOWN_FN.call(&[args]), "text/markdown")
        };
        let value = page.evaluate(&script).await?;
        let Value::String(content) = value.value else {
            return Err(EngineError::Evaluation(
                "the page did not give its text".into(),
            ));
        };
        Ok(ReadPage {
            content,
            content_type: content_type.into(),
            final_url,
        })
    }
}
