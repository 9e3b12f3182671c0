//! Navigation of the active tab (`open`, `back`, `forward`, `reload`) and the state reads
//! `get url` / `get title`. These stay on [`Session`]: a navigation replaces the document a
//! [`Page`](super::Page) views, and `tab new <url>` navigates a tab before it is active.

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::{page, target};
use serde_json::Value;

use super::{Navigated, Session, WaitUntil, deadline_after};
use crate::browser::TargetInfo;
use crate::error::{EngineError, Result};
use crate::tab::settle::{Milestone, NavigationMark};
use crate::tab::{Settled, Tab};

/// How long `get title` waits for a document that just committed to parse its `<title>`.
const TITLE_PARSE_WAIT: Duration = Duration::from_secs(2);

impl Session {
    /// Navigates the active tab and waits per `wait`.
    pub async fn navigate(
        &self,
        url: &str,
        wait: WaitUntil,
        timeout: Option<Duration>,
    ) -> Result<Navigated> {
        let tab = self.active_tab().await?;
        self.navigate_tab(&tab, url, wait, timeout).await
    }

    /// Waits, within `within`, for the navigation the last action started and left for later
    /// ([`SessionOptions::settle_later`](crate::SessionOptions::settle_later)) to reach `until`:
    /// - [`DeferredWait::Load`], as the action would have waited: the page it leads to has
    ///   loaded, or was parsed [`LOAD_AFTER_PARSE`] ago with its `load` held back, or a dialog
    ///   opened; the navigation is then done with;
    /// - [`DeferredWait::Commit`]: the new page is the tab's (a history move or reload needs
    ///   no more); done with too;
    /// - [`DeferredWait::Committed`]: the same, but the next command still waits for the
    ///   page's load (`get url`, `get title` read the tab's state, they do not end the wait).
    ///
    /// Never fails: the command that follows reports what is wrong with the tab. A wait cut
    /// short by `within` leaves the navigation for the next caller and says which URL has not
    /// answered yet, if that is why: until it commits (or is stopped), Chrome runs none of the
    /// old document's scripts, so page commands would hang.
    pub async fn settle_deferred(
        &self,
        within: Duration,
        until: DeferredWait,
    ) -> DeferredNavigation {
        let Ok(tab) = self.active_tab().await else {
            return DeferredNavigation::None;
        };
        let Some(mark) = tab.take_deferred() else {
            return DeferredNavigation::None;
        };
        let (milestone, grace) = match until {
            DeferredWait::Load => (Milestone::Load, Some(LOAD_AFTER_PARSE)),
            DeferredWait::Commit => (Milestone::Commit, None),
            DeferredWait::Committed => (Milestone::Commit, None),
        };
        let settled = tab
            .settle(
                "navigation",
                &mark,
                milestone,
                deadline_after(within),
                grace,
                true,
            )
            .await;
        let over = !matches!(settled, Err(EngineError::Timeout { .. }));
        if !over || until == DeferredWait::Committed {
            tab.restore_deferred(mark);
        }
        if !over
            && let Some(url) = tab.read(|st| {
                st.pending
                    .as_ref()
                    .filter(|p| !p.same_document)
                    .map(|p| p.url.clone())
            })
        {
            return DeferredNavigation::Unanswered { url };
        }
        DeferredNavigation::Settled
    }

    /// Forgets the navigation the last action left for later: a new navigation replaces it.
    fn forget_deferred(tab: &Tab) {
        let _ = tab.take_deferred();
    }

    /// [`Session::navigate`] on a given tab of the session.
    pub(super) async fn navigate_tab(
        &self,
        tab: &Tab,
        url: &str,
        wait: WaitUntil,
        timeout: Option<Duration>,
    ) -> Result<Navigated> {
        let timeout = timeout.unwrap_or(self.options.default_timeout);
        let deadline = deadline_after(timeout);
        // Boxed: keeps the policy's awaits out of every caller's future.
        Box::pin(crate::policy::before_navigation(
            self.browser.connection(),
            &self.options.policy,
            url,
        ))
        .await?;
        Self::forget_deferred(tab);
        let mark = tab.read(NavigationMark::of);
        let reply = tab
            .request("navigate", page::NavigateParams::new(url), timeout)
            .await?;
        if let Some(error) = reply.error_text.filter(|e| !e.is_empty()) {
            // Chrome commits its error page (or settles back on the old one) just after it
            // refuses: the next command must see that page, not the one before it. With
            // `settle_later` the next command waits for it; else this one does.
            if self.options.settle_later {
                tab.defer_settle(mark);
                return Err(self.failed_navigation(tab, error, url));
            }
            let ours: Option<String> = reply.loader_id.map(Into::into);
            let settled = deadline_after(FAILED_NAVIGATION_SETTLE.min(timeout));
            let _ = tab
                .wait_state("navigation", settled, true, |st| {
                    !st.loading
                        || st
                            .pending
                            .as_ref()
                            .is_some_and(|p| p.loader_id.is_some() && p.loader_id != ours)
                })
                .await;
            return Err(self.failed_navigation(tab, error, url));
        }
        let mut load_held = false;
        if let Some(milestone) = wait.milestone() {
            let settled = tab
                .settle(
                    "navigation",
                    &mark,
                    milestone,
                    deadline,
                    Some(LOAD_AFTER_PARSE),
                    false,
                )
                .await
                .map_err(|e| with_timeout(e, timeout))?;
            load_held = settled == Settled::LoadHeld;
        }
        let url = self.url_of(tab);
        // The browser's copy of the title: a read from the page right after `load` waits for
        // the new document's first frame (5-12 ms measured), which the next command that needs
        // the renderer waits for anyway and a `get title`/`get url` does not need.
        let title = self.title_of(tab).await;
        Ok(Navigated {
            url,
            title,
            load_held,
        })
    }

    /// Goes one entry back (`-1`) or forward (`+1`) in history and waits for the page.
    pub async fn history(&self, delta: i64, timeout: Option<Duration>) -> Result<String> {
        let timeout = timeout.unwrap_or(self.options.default_timeout);
        let deadline = deadline_after(timeout);
        let command = if delta < 0 { "back" } else { "forward" };
        let tab = self.active_tab().await?;
        let history = tab
            .request(
                command,
                page::GetNavigationHistoryParams::default(),
                timeout,
            )
            .await?;
        let index = history.current_index + delta;
        let Some(entry) = usize::try_from(index)
            .ok()
            .and_then(|i| history.entries.get(i))
        else {
            return Ok(self.url_of(&tab));
        };
        let mark = tab.read(NavigationMark::of);
        let go = page::NavigateToHistoryEntryParams::new(entry.id);
        tab.request(command, go, timeout).await?;
        tab.settle(
            command,
            &mark,
            Milestone::Load,
            deadline,
            Some(LOAD_AFTER_PARSE),
            false,
        )
        .await
        .map_err(|e| with_timeout(e, timeout))?;
        Ok(self.url_of(&tab))
    }

    /// Whether the active tab waits for a navigation that has not committed (its request not
    /// answered yet, or it was just scheduled).
    pub async fn navigation_pending(&self) -> bool {
        match self.active_tab().await {
            Ok(tab) => {
                tab.read(|st| st.scheduled || st.pending.as_ref().is_some_and(|p| !p.same_document))
            }
            Err(_) => false,
        }
    }

    /// Stops the active tab's loading (`Page.stopLoading`): a navigation not committed yet is
    /// abandoned and the tab keeps the page it shows. For a navigation whose caller gave up.
    pub async fn stop_loading(&self) -> Result<()> {
        let tab = self.active_tab().await?;
        tab.request(
            "stop",
            page::StopLoadingParams::default(),
            Duration::from_secs(2),
        )
        .await?;
        Ok(())
    }

    /// Reloads and waits for the new document's `load`.
    pub async fn reload(&self, timeout: Option<Duration>) -> Result<String> {
        let timeout = timeout.unwrap_or(self.options.default_timeout);
        let deadline = deadline_after(timeout);
        let tab = self.active_tab().await?;
        let mark = tab.read(NavigationMark::of);
        tab.request("reload", page::ReloadParams::default(), timeout)
            .await?;
        tab.settle(
            "reload",
            &mark,
            Milestone::Load,
            deadline,
            Some(LOAD_AFTER_PARSE),
            false,
        )
        .await
        .map_err(|e| with_timeout(e, timeout))?;
        Ok(self.url_of(&tab))
    }

    /// The error for a navigation Chrome refused or abandoned (`errorText` in its reply). An
    /// abort because the page (or another command) started a newer navigation says so.
    fn failed_navigation(&self, tab: &Tab, error: String, url: &str) -> EngineError {
        if error == "net::ERR_ABORTED"
            && let Some(newer) = tab.read(|st| st.pending.as_ref().map(|p| p.url.clone()))
            && newer != url
        {
            return EngineError::Navigation(format!(
                "{error} (interrupted by a navigation to {newer})"
            ));
        }
        EngineError::Navigation(error)
    }

    fn url_of(&self, tab: &Tab) -> String {
        let url = tab.read(|st| st.url.clone());
        if !url.is_empty() {
            return url;
        }
        self.browser
            .target(tab.target_id())
            .map(|t| t.url)
            .unwrap_or_default()
    }

    async fn title_of(&self, tab: &Tab) -> String {
        // Chrome's own view of the title first: answered by the browser process, so a busy page
        // (animation frames, a long task) does not delay it, and never blocked by a dialog. It
        // is current: the renderer reports every title change on the channel that also carries
        // its DevTools replies and lifecycle events, so whatever we saw of the page before is
        // reflected in it (measured: no stale read in 1000 set-then-read rounds, nor in 200
        // titles set by a `load` handler read right after `load`, headless shell and full).
        let browser = self.browser_title(tab).await;
        // After a fragment or History API move Chrome's title is the history entry's (`back`
        // to an entry made before `pushState` shows that entry's old title): ask the page.
        let moved = tab.read(|st| st.moved_within_document);
        // Chrome's view may still be the previous document's just after a navigation commits
        // (its URL says so): then the page answers.
        let current = tab.read(|st| st.url.clone());
        if let Some(info) = &browser
            && (tab.dialog().is_some()
                || (!moved
                    && (current.is_empty() || info.url == current)
                    && names_the_document(&info.title, &info.url)))
        {
            return info.title.clone();
        }
        // An untitled document shows as its URL there; only the page can tell "no title" from
        // a title that reads like its URL. A document that has just committed may not have
        // parsed its `<title>` yet (Chrome shows the URL, the page says ""): ask again, for up
        // to `TITLE_PARSE_WAIT`, until it has a title or is parsed (`DOMContentLoaded`).
        let waited = Instant::now();
        while tab.dialog().is_none()
            && let Ok(reply) = tab
                .cdp()
                .call_within(
                    crate::js::evaluate("document.title"),
                    Duration::from_secs(2),
                )
                .await
            && let Some(title) = reply.result.value.as_ref().and_then(Value::as_str)
        {
            let parsed = tab.read(|st| {
                st.documents == 0 || st.has_lifecycle(&st.loader_id, "DOMContentLoaded")
            });
            if !title.is_empty() || parsed || waited.elapsed() >= TITLE_PARSE_WAIT {
                return title.to_string();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if let Some(info) = browser {
            return info.title;
        }
        self.browser
            .target(tab.target_id())
            .map(|t| t.title)
            .unwrap_or_default()
    }

    /// The tab's target info as the browser process has it now (the discovery cache can lag
    /// behind title changes).
    async fn browser_title(&self, tab: &Tab) -> Option<TargetInfo> {
        // Our lenient target info (see `TargetInfo`), from the typed command.
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Info {
            target_info: TargetInfo,
        }
        let info = target::GetTargetInfoParams {
            target_id: Some(tab.target_id().to_string().into()),
        };
        self.browser
            .connection()
            .browser()
            .call_as::<_, Info>(&info, Some(Duration::from_secs(2)))
            .await
            .ok()
            .map(|info| info.target_info)
    }

    /// `get url`: served from state (works while a dialog is open).
    pub async fn url(&self) -> Result<String> {
        let tab = self.active_tab().await?;
        Ok(self.url_of(&tab))
    }

    /// `get title` (works while a dialog is open, without waiting for a timeout).
    pub async fn title(&self) -> Result<String> {
        let tab = self.active_tab().await?;
        Ok(self.title_of(&tab).await)
    }
}

/// How far [`Session::settle_deferred`] follows the navigation the last action started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredWait {
    /// Until the page it leads to has loaded (or is usable with its `load` held back): a
    /// command that reads or acts on the page.
    Load,
    /// Until the new page is the tab's: a history move or a reload (the navigation is then
    /// done with).
    Commit,
    /// Until the new page is the tab's, leaving the wait for its load to the next command:
    /// `get url`, `get title`.
    Committed,
}

/// What [`Session::settle_deferred`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeferredNavigation {
    /// No action left a navigation to wait for.
    None,
    /// The navigation settled (or the wait ended for another reason than an unanswered request).
    Settled,
    /// The navigation's request to `url` has not been answered within the wait.
    Unanswered {
        /// The URL the tab is still waiting for.
        url: String,
    },
}

/// Whether Chrome's title `title` for a page at `url` is the document's own title, not the
/// URL Chrome shows for an untitled document (`about:blank`, `host:port/path`, a decoded
/// `data:` URL, a file name). Errs towards "cannot tell": anything that could be such a URL
/// display (empty, part of the URL, with a `/` or `:`, a dotted word, an IDN host) is read
/// from the page instead.
fn names_the_document(title: &str, url: &str) -> bool {
    let title = title.trim();
    if title.is_empty() || url.contains(title) || title.contains(['/', ':']) {
        return false;
    }
    if !title.contains(char::is_whitespace) && title.contains('.') {
        return false;
    }
    !url.to_ascii_lowercase().contains("xn--")
}

/// How long a navigation that waits for `load` gives a parsed document (`DOMContentLoaded`)
/// whose `load` is held back (an image, a stylesheet or a script that never finishes) before it
/// takes the page as it is. Upstream waits for `load` until its timeout and fails.
pub const LOAD_AFTER_PARSE: Duration = Duration::from_secs(2);

/// How long a refused navigation waits for Chrome's error page before it reports the error.
const FAILED_NAVIGATION_SETTLE: Duration = Duration::from_secs(1);

fn with_timeout(err: EngineError, after: Duration) -> EngineError {
    match err {
        EngineError::Timeout { what, .. } => EngineError::Timeout { what, after },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::names_the_document;

    #[test]
    fn untitled_pages_and_url_like_titles_are_read_from_the_page() {
        for (title, url) in [
            ("about:blank", "about:blank"),
            (
                "127.0.0.1:18555/echo-headers",
                "http://127.0.0.1:18555/echo-headers",
            ),
            ("localhost", "http://localhost/"),
            ("example.com", "https://example.com/"),
            ("data:text/html,<p>x", "data:text/html,<p>x"),
            ("report.txt", "file:///tmp/report.txt"),
            ("bücher", "http://xn--bcher-kva/"),
            ("", "http://h/"),
            ("Docs: intro", "http://h/"),
        ] {
            assert!(!names_the_document(title, url), "{title:?} at {url:?}");
        }
    }

    #[test]
    fn ordinary_titles_are_taken_from_the_browser() {
        for (title, url) in [
            ("Page One", "http://127.0.0.1:18555/page1.html"),
            ("Example Domain", "https://example.com/"),
            ("GitHub", "https://github.com/"),
            (
                "Loaded complete",
                "http://127.0.0.1:18555/title-at-load.html",
            ),
        ] {
            assert!(names_the_document(title, url), "{title:?} at {url:?}");
        }
    }
}
