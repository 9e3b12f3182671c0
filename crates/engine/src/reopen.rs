//! Reopen tab: replace the session's tab with a fresh one at the same URL.
//!
//! The workaround for a tab that stops taking input (seed 000, limitation 18: after a login
//! submitted by real input, headless Chrome 154 left the pinned tab deaf to mouse and keys from
//! every client; reload, navigate and activate did not help, a fresh tab in the same Chrome did).
//! The state cannot be detected, so this is offered as an explicit, user-triggered action: the
//! live view's "Reopen tab" and [`Session::reopen_tab`] for the Host.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::session::{Session, TabListing};

/// How long `reopen_tab` waits for the new tab's document to finish loading. The reopen has
/// succeeded once the new tab is bound; a slow page only means we return before it is complete.
const LOAD_WAIT: Duration = Duration::from_secs(10);

impl Session {
    /// Replaces the active tab with a fresh tab at the same URL in the same browser, rebinds the
    /// session to it (pinned or not) and closes the old tab.
    ///
    /// The new tab keeps the old one's `tN` id and label, so the session's tab list reads the
    /// same. It opens in its own window: a tab created in a shared window is a background tab,
    /// and Chrome renders (and screencasts) nothing for background tabs; its own window is
    /// visible without hiding any other session's tab. Page state that lived only in the old tab
    /// (form input, `sessionStorage`, history) is gone; cookies stay (same browser context).
    ///
    /// ```no_run
    /// # async fn demo(session: &abx_engine::Session) -> Result<(), abx_engine::EngineError> {
    /// let before = session.url().await?;
    /// let tab = session.reopen_tab().await?;
    /// assert_eq!(tab.url, before);
    /// # Ok(()) }
    /// ```
    pub async fn reopen_tab(&self) -> Result<TabListing> {
        let old = self
            .active_target()
            .ok_or_else(|| EngineError::Page("No active tab to reopen".into()))?;
        let url = self
            .attached_tab(&old)
            .map(|tab| tab.read(|st| st.url.clone()))
            .filter(|url| !url.is_empty())
            .or_else(|| self.browser().target(&old).map(|t| t.url))
            .filter(|url| !url.is_empty())
            .unwrap_or_else(|| "about:blank".to_string());
        let new = self.browser().create_tab(&url, true).await?;
        let tab = match self.bind(&new).await {
            Ok(tab) => tab,
            Err(err) => {
                // Leave things as they were: the old tab is still bound and active.
                let _ = self.browser().close_target(&new).await;
                return Err(err);
            }
        };
        self.hand_over_tab(&old, &new);
        self.show_active_tab(&new).await;
        if let Err(err) = self.browser().close_target(&old).await {
            // Already gone (closed by the page or a person): nothing left to close.
            tracing::debug!(%err, target = %old, "old tab did not close");
        }
        wait_loaded(&tab, &url).await;
        self.tabs()
            .into_iter()
            .find(|t| t.target_id == new)
            .ok_or(EngineError::TabGone {
                target_id: new,
                last_url: Some(url),
            })
    }
}

/// Polls the new document until it is complete (bounded by [`LOAD_WAIT`]). Polling, not lifecycle
/// events: the load can finish before our attach enabled them.
async fn wait_loaded(tab: &crate::tab::Tab, url: &str) {
    let deadline = Instant::now() + LOAD_WAIT;
    let blank = url == "about:blank";
    while Instant::now() < deadline {
        if tab.read(|st| st.dialog.is_some() || st.detached) {
            return;
        }
        let probe = crate::js::evaluate("[document.readyState, location.href]");
        let reply = tab.cdp().call_within(probe, Duration::from_secs(1)).await;
        if let Ok(reply) = reply
            && let Some(state) = reply.result.value.as_ref().and_then(Value::as_array)
        {
            let complete = state.first().and_then(Value::as_str) == Some("complete");
            let navigated = blank || state.get(1).and_then(Value::as_str) != Some("about:blank");
            if complete && navigated {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
