//! [`Page`]: one command's view of the session's active tab, with that command's deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_cdp::protocol::js_protocol::runtime;

use super::navigation::LOAD_AFTER_PARSE;
use super::{NavigationMarker, Session};
use crate::error::Result;
use crate::tab::Tab;
use crate::tab::settle::{Milestone, NavigationMark, Progress, progress};

/// One command's view of a page: the tab that was active (and so the frame scope chosen on it
/// with [`Session::select_frame`]) when it was taken, and the deadline of the command.
///
/// Take one per command with [`Session::page`]; every action and reader on it (click, fill,
/// type, press, hover, select, scroll, drag, upload, mouse, touch, find, get, is, eval, waits,
/// snapshot, screenshot) runs on that tab within that deadline. Taking it costs what resolving
/// the active tab costs (no CDP call while the tab is attached).
///
/// A `Page` keeps acting on its own tab: a `tab switch` after it was taken does not move it,
/// and when its tab is closed or its renderer crashes, its methods fail with the tab's typed
/// error ([`EngineError::TabGone`], [`EngineError::TargetCrashed`]) instead of acting on
/// another tab. The deadline bounds the command's waits (actionability, navigation settling,
/// `wait …`); a wait begun after it has passed fails at once with a timeout. Each CDP call
/// inside is also bounded by the command's timeout.
///
/// [`EngineError::TabGone`]: crate::EngineError::TabGone
/// [`EngineError::TargetCrashed`]: crate::EngineError::TargetCrashed
#[derive(Clone)]
pub struct Page<'s> {
    pub(crate) session: &'s Session,
    pub(crate) tab: Arc<Tab>,
    pub(crate) deadline: Instant,
    pub(crate) timeout: Duration,
}

impl std::fmt::Debug for Page<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("target_id", &self.tab.target_id())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A view of the active tab for one command whose deadline is `timeout` from now (the
    /// session's default timeout when `None`). A pinned session whose tab is gone gets
    /// [`EngineError::TabGone`](crate::EngineError::TabGone); an unpinned one falls back to
    /// another tab, as [`Session::active_tab`] does.
    pub async fn page(&self, timeout: Option<Duration>) -> Result<Page<'_>> {
        let timeout = timeout.unwrap_or(self.options().default_timeout);
        let tab = self.active_tab().await?;
        Ok(Page {
            session: self,
            tab,
            deadline: Instant::now() + timeout,
            timeout,
        })
    }
}

impl<'s> Page<'s> {
    /// The session this view belongs to.
    pub fn session(&self) -> &'s Session {
        self.session
    }

    /// The tab this view acts on.
    pub fn tab(&self) -> &Arc<Tab> {
        &self.tab
    }

    /// The command's deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The command's timeout (the deadline's distance from when the view was taken).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The tab, deadline and timeout, in the shape the page actions use them.
    pub(crate) fn parts(&self) -> (Arc<Tab>, Instant, Duration) {
        (self.tab.clone(), self.deadline, self.timeout)
    }

    /// The same view with its timeout cut to what is left of the deadline, for a step that
    /// follows another within one command (`hover` after the pointer's human approach).
    pub(crate) fn rest(&self) -> Page<'s> {
        let timeout = self.deadline.saturating_duration_since(Instant::now());
        Page {
            session: self.session,
            tab: self.tab.clone(),
            deadline: Instant::now() + timeout,
            timeout,
        }
    }

    /// The tab's navigation state before an action that may navigate.
    fn navigation_marker(&self) -> NavigationMarker {
        NavigationMarker {
            target_id: self.tab.target_id().to_string(),
            mark: self.tab.read(NavigationMark::of),
            syncs: self.tab.syncs(),
        }
    }

    /// Runs `action` (an input that may start a navigation) and, when it succeeds and
    /// [`SessionOptions::settle_navigation`](crate::SessionOptions::settle_navigation) is on,
    /// waits for the navigation it started, within the command's timeout (see
    /// `settle_navigation`).
    pub(crate) async fn settling<T>(&self, action: impl Future<Output = Result<T>>) -> Result<T> {
        if !self.session.options().settle_navigation {
            return action.await;
        }
        let marker = self.navigation_marker();
        let result = action.await;
        if result.is_ok() {
            self.settle_navigation(&marker, self.timeout).await;
        }
        result
    }

    /// After an action (click, Enter…): if it started a main-frame navigation, waits until the
    /// page it leads to has loaded, so the next command sees that page. Follows the newest
    /// navigation (a redirect by the new page is followed too) and returns at once when nothing
    /// started; never fails the action. A new document whose `load` is held back (a request that
    /// never finishes) is waited for [`LOAD_AFTER_PARSE`] past its `DOMContentLoaded`, then the
    /// action returns: it is usable, and upstream returns without waiting at all. It looks at
    /// the session's active tab as it is after the action — the tab the action led to (`click
    /// --new-tab`), and the fallback tab of an unpinned session whose tab the action closed.
    async fn settle_navigation(&self, marker: &NavigationMarker, within: Duration) {
        let Ok(tab) = self.session.active_tab().await else {
            return;
        };
        // One renderer round trip: a navigation the action requested was requested before this
        // evaluate ran on the page's main thread, and its `frameRequestedNavigation` event travels
        // the same DevTools channel ahead of this reply (a context destroyed by it is fine too).
        // A click already made that round trip when it checked where its events landed.
        let synced = tab.target_id() == marker.target_id && tab.syncs() != marker.syncs;
        // A navigation already pending answers the question (and a document with one pending
        // may not answer until the new one commits).
        if !synced {
            let sync = tab.cdp().call_within(
                runtime::EvaluateParams::new("0"),
                Duration::from_millis(500),
            );
            let navigating = tab.wait_state(
                "navigation",
                Instant::now() + Duration::from_millis(500),
                true,
                |st| st.pending.is_some(),
            );
            tokio::select! {
                _ = sync => {}
                Ok(_) = navigating => {}
            }
        }
        // Another tab (a new tab the action opened and the session moved to) is followed from
        // its own start: whatever it is doing now is the page.
        let mark = if tab.target_id() == marker.target_id {
            marker.mark
        } else {
            NavigationMark::default()
        };
        if tab.read(|st| progress(st, &mark, Milestone::Load)) == Progress::NotStarted {
            return;
        }
        if self.session.options().settle_later {
            tab.defer_settle(mark);
            return;
        }
        let deadline = Instant::now() + within;
        let _ = tab
            .settle(
                "navigation",
                &mark,
                Milestone::Load,
                deadline,
                Some(LOAD_AFTER_PARSE),
                true,
            )
            .await;
    }
}
