//! Which of a session's tabs Chrome shows: the active one, as a browser shows the tab in front
//! of its window.
//!
//! A page can tell whether it is shown (`document.visibilityState`, `visibilitychange`,
//! `document.hasFocus()`, paused animations and media), so which tab is in front is behaviour
//! an agent sees, not a detail. Upstream brings the tab it switches to (and every tab it opens)
//! to the front; abx does the same on both binaries it runs:
//! - **Full Chrome**: `Target.activateTarget`. Without it a tab opened by `tab new` stayed a
//!   hidden background tab while it was the active one, and no tab of a browser started with
//!   `--no-startup-window` had focus.
//! - **Headless shell**: no tab strip; every tab is a window of its own, always shown. The
//!   session keeps the front of each of its windows by hand: the tab it makes active gets its
//!   window restored, and the tab that was in front in that window gets its window minimized,
//!   which the shell treats as hidden (ADR 0015). A tab opened by `window new` is a window of its
//!   own and hides nothing.
//! - **A stage of a shared anchor** (pinned, on a browser it does not own) never takes the
//!   front: its tabs are background tabs that a live view shows through focus emulation (ADR
//!   0009), and on a shell each of them is minimized.

use std::time::Duration;

use abx_cdp::protocol::browser_protocol::browser::WindowState;

use super::Session;

/// The deadline of each window call. Showing a tab is best effort: a Chrome that refuses leaves
/// the tab as it was.
const WINDOW_CALL: Duration = Duration::from_secs(5);

impl Session {
    /// Whether this session is a stage of a browser it does not own: its tabs stay in the
    /// background, whatever is active.
    pub(super) fn is_background_stage(&self) -> bool {
        self.options.pin_tab && !self.browser.is_owned()
    }

    /// Shows `target`, which the session has just made its active tab, and hides the tab it
    /// replaces in front of the same window (see the module docs). Best effort, logged.
    pub(crate) async fn show_active_tab(&self, target: &str) {
        if self.is_background_stage() {
            self.keep_stage_tab_in_background(target).await;
            return;
        }
        if !self.browser.is_headless_shell().await {
            if let Err(err) = self.browser.activate_target(target).await {
                tracing::debug!(%err, target, "could not bring the active tab to the front");
            }
            return;
        }
        let (restore, hide) = {
            let mut table = self.table();
            let window = table.window_of(target);
            let hide: Vec<String> = table
                .entries
                .iter()
                .map(|e| e.target_id.clone())
                .filter(|id| id != target && table.window_of(id) == window)
                .filter(|id| !table.minimized.contains(id))
                .filter(|id| self.browser.target(id).is_some())
                .collect();
            table.minimized.extend(hide.iter().cloned());
            (table.minimized.remove(target), hide)
        };
        if restore {
            self.set_window_state(target, WindowState::Normal).await;
        }
        for other in &hide {
            self.set_window_state(other, WindowState::Minimized).await;
        }
    }

    /// Minimizes the stage tab's window where [`Session::hides_stage_tab_by_minimizing`] says
    /// so. Best effort: a Chrome that refuses leaves the tab shown, as before.
    pub(super) async fn keep_stage_tab_in_background(&self, target: &str) {
        if self.hides_stage_tab_by_minimizing().await {
            self.set_window_state(target, WindowState::Minimized).await;
        }
    }

    async fn set_window_state(&self, target: &str, state: WindowState) {
        if let Err(err) = self
            .browser
            .set_window_states(target, std::slice::from_ref(&state), WINDOW_CALL)
            .await
        {
            tracing::debug!(%err, target, ?state, "could not change the tab's window");
        }
    }
}
