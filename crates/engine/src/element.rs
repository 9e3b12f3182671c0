//! Finding elements by CSS selector or `xpath=` expression, and reading from them.
//!
//! Snapshot refs (`@e3`) are resolved by the session's ref map before they reach this module;
//! here a selector is always CSS or XPath.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::tab::Tab;

/// A selector the page can evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// `document.querySelector`.
    Css(String),
    /// `document.evaluate` (from `xpath=...`).
    XPath(String),
}

impl Selector {
    /// Parses `xpath=…` or a CSS selector. Refs must be handled by the caller.
    pub fn parse(text: &str) -> Selector {
        match text.strip_prefix("xpath=") {
            Some(expr) => Selector::XPath(expr.to_string()),
            None => Selector::Css(text.to_string()),
        }
    }
}

/// Whether `text` is a snapshot ref (`@e3`, `e3`, `ref=e3`).
pub fn ref_name(text: &str) -> Option<&str> {
    let name = text
        .strip_prefix('@')
        .or_else(|| text.strip_prefix("ref="))
        .unwrap_or(text);
    let digits = name.strip_prefix('e')?;
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())).then_some(name)
}

/// Every node an XPath expression selects, in document order.
const XPATH_ALL_FN: PageFn = PageFn::new(include_str!("element/xpath_all.js"));

/// A JS expression evaluating to the first matching element or `null` (one DOM call with the
/// selector as a JSON literal, so an invalid selector's error names that call).
pub fn finder_js(selector: &str) -> Result<String> {
    if ref_name(selector).is_some() {
        return Err(EngineError::Invalid(format!(
            "{selector} is a snapshot ref; this command needs a CSS selector"
        )));
    }
    Ok(match Selector::parse(selector) {
        Selector::Css(css) => {
            format!(
                "document.querySelector({})",
                serde_json::to_string(&css).unwrap_or_default()
            )
        }
        Selector::XPath(expr) => format!(
            "document.evaluate({}, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue",
            serde_json::to_string(&expr).unwrap_or_default()
        ),
    })
}

/// A JS expression evaluating to an array of all matching elements.
pub fn finder_all_js(selector: &str) -> Result<String> {
    Ok(match Selector::parse(selector) {
        Selector::Css(css) => format!(
            "Array.from(document.querySelectorAll({}))",
            serde_json::to_string(&css).unwrap_or_default()
        ),
        Selector::XPath(expr) => XPATH_ALL_FN.call(&[json!(expr)]),
    })
}

/// An element's box in CSS pixels (viewport coordinates).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct BoundingBox {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// How many elements match.
pub async fn count(tab: &Tab, selector: &str, timeout: Duration) -> Result<u64> {
    let all = finder_all_js(selector)?;
    let count = crate::js::evaluate(format!("{all}.length"));
    let reply = tab.request("count", count, timeout).await?;
    let value = crate::js::value_of(reply.result, reply.exception_details.as_ref())?;
    Ok(value.as_u64().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_recognised_in_all_forms() {
        assert_eq!(ref_name("@e3"), Some("e3"));
        assert_eq!(ref_name("e12"), Some("e12"));
        assert_eq!(ref_name("ref=e1"), Some("e1"));
        assert_eq!(ref_name("#e3"), None);
        assert_eq!(ref_name("e"), None);
        assert_eq!(ref_name("email"), None);
    }

    #[test]
    fn xpath_prefix_selects_xpath() {
        assert_eq!(Selector::parse("xpath=//a"), Selector::XPath("//a".into()));
        assert_eq!(Selector::parse("a.b"), Selector::Css("a.b".into()));
    }
}
