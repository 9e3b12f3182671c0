//! Page audits run as page JavaScript on the session's own tab: web vitals ([`web_vitals`]).
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> abx_engine::Result<()> {
//! let report = abx_engine::web_vitals(&session.page(None).await?).await?;
//! println!("LCP at {} ms", report["lcp"]["startTime"]);
//! # Ok(()) }
//! ```

use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::session::Page;

/// Web vitals from the browser's own performance entries (buffered, so what happened before the
/// script ran counts), as a promise of upstream's report shape: TTFB from navigation timing, FCP
/// from the paint entry, LCP the last largest-contentful-paint candidate, CLS the largest session
/// window of layout shifts without recent input, INP the longest interaction (event timing
/// entries with an interactionId; null without interactions).
const VITALS_JS: &str = include_str!("audit/vitals.js");

/// Web vitals of the page now: `{url, ttfb, fcp, lcp: {element, size, startTime, url}, cls:
/// {score, entries}, inp, hydration, phases, hydratedComponents}` (times in ms, `null` where
/// the page has no such entry).
pub async fn web_vitals(page: &Page<'_>) -> Result<Value> {
    let value = page.evaluate(VITALS_JS).await?;
    match value.value {
        Value::Object(report) => Ok(Value::Object(report)),
        other => Err(EngineError::Chrome(format!(
            "vitals: the page returned no report ({other})"
        ))),
    }
}
