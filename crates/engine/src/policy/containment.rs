//! The policy's part in a session: pages open outside the allowlist when the session starts are
//! contained, and targets the allowlist could not guard are reported.

use super::GuardFailure;
use crate::error::Result;
use crate::session::Session;

impl Session {
    /// Targets of this session (frames, workers) the allowlist could not guard, oldest first.
    /// Each was kept paused instead of being let run unguarded; a page with one may miss that
    /// frame's content or that worker's work.
    pub fn guard_failures(&self) -> Vec<GuardFailure> {
        self.enforcement.failures()
    }

    /// After the session bound its tab: pages already open outside the allowlist (a profile's
    /// restored tabs) are contained, as upstream does for launches: the session's own tab goes to
    /// `about:blank`; other tabs of a browser the session launched (and so owns) are closed. Tabs
    /// of a browser we only attached to are never touched.
    pub(crate) async fn contain_open_pages(&self) -> Result<()> {
        let policy = &self.options().policy;
        if !policy.fenced() {
            return Ok(());
        }
        let outside = |url: &str| {
            let network = url.starts_with("http://") || url.starts_with("https://");
            network && !policy.allows_request(url)
        };
        let active = self.active_target();
        for target in self.browser().targets() {
            if !target.is_tab() || !outside(&target.url) {
                continue;
            }
            if active.as_deref() == Some(target.target_id.as_str()) {
                tracing::debug!("blanking the session's tab: it was open outside the allowlist");
                self.navigate("about:blank", crate::WaitUntil::Load, None)
                    .await?;
            } else if self.browser().is_owned() {
                tracing::debug!("closing a restored tab outside the allowlist");
                self.browser().close_target(&target.target_id).await?;
            }
        }
        Ok(())
    }
}
