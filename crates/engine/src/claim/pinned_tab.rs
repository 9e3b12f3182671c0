//! The session side of claims: a pinned session holds one on its tab, and every session refuses
//! tabs another session pinned.

use super::{ClaimError, ClaimHolder, TabClaim};
use crate::session::Session;

/// The session side of claims: pinned sessions hold one on their tab, every session refuses tabs
/// pinned by another.
impl Session {
    fn browser_id(&self) -> Option<String> {
        self.browser().browser_id()
    }

    /// Who else holds `target_id`, if another live session pinned it.
    pub(crate) fn claim_holder(&self, target_id: &str) -> Option<ClaimHolder> {
        let claims = self.options().claims.as_ref()?;
        if self.owns_claim(target_id) {
            return None;
        }
        claims.holder(&self.browser_id()?, target_id)
    }

    /// Whether another live session pinned `target_id`.
    pub(crate) fn claimed_by_other(&self, target_id: &str) -> bool {
        self.claim_holder(target_id).is_some()
    }

    /// Fails with `TabPinned` when another live session pinned `target_id`.
    pub(crate) fn ensure_not_claimed_by_other(&self, target_id: &str) -> crate::Result<()> {
        match self.claim_holder(target_id) {
            Some(holder) => Err(crate::EngineError::TabPinned {
                target_id: target_id.to_string(),
                holder: holder.to_string(),
            }),
            None => Ok(()),
        }
    }

    fn owns_claim(&self, target_id: &str) -> bool {
        self.pin_claim
            .lock()
            .is_ok_and(|c| c.as_ref().is_some_and(|(t, _)| t == target_id))
    }

    /// Before binding `target_id`: a pinned session takes its claim (returned, kept once the bind
    /// succeeded); any session fails when another one holds it.
    pub(crate) fn claim_for(&self, target_id: &str) -> crate::Result<Option<TabClaim>> {
        let (Some(claims), Some(browser_id)) = (self.options().claims.as_ref(), self.browser_id())
        else {
            return Ok(None);
        };
        if self.owns_claim(target_id) {
            return Ok(None);
        }
        if !self.options().pin_tab {
            return self.ensure_not_claimed_by_other(target_id).map(|()| None);
        }
        let holder = ClaimHolder {
            session: self.options().name.clone(),
            pid: std::process::id(),
        };
        match claims.acquire(&browser_id, target_id, &holder) {
            Ok(claim) => Ok(Some(claim)),
            Err(ClaimError::Held(holder)) => Err(crate::EngineError::TabPinned {
                target_id: target_id.to_string(),
                holder: holder.to_string(),
            }),
            Err(ClaimError::Io(err)) => {
                // A claim dir we cannot use must not make the session unusable; say so.
                tracing::warn!(%err, dir = %claims.path().display(), "cannot claim the pinned tab");
                Ok(None)
            }
        }
    }

    /// After a successful bind: the new claim replaces the previous one (which is released).
    pub(crate) fn keep_claim(&self, target_id: &str, claim: Option<TabClaim>) {
        if let Some(claim) = claim
            && let Ok(mut slot) = self.pin_claim.lock()
        {
            *slot = Some((target_id.to_string(), claim));
        }
    }

    /// A pinned session's `tab close` also closes the popups its tab opened (transitively), so a
    /// stage's teardown leaves nothing of its own in a shared browser; tabs another session holds
    /// are left alone.
    pub(crate) async fn close_popups_of(&self, opener: &str) {
        let mut openers = vec![opener.to_string()];
        while let Some(current) = openers.pop() {
            let popups: Vec<String> = self
                .popups_of(&current)
                .into_iter()
                .map(|t| t.target_id)
                .collect();
            for popup in popups {
                if self.claimed_by_other(&popup) {
                    continue;
                }
                if let Err(err) = self.browser().close_target(&popup).await {
                    tracing::debug!(%err, "cannot close a popup of the closed tab");
                }
                openers.push(popup);
            }
        }
    }

    /// Lets go of the pinned tab's claim (a replacement session of this process takes it next,
    /// e.g. after a CDP reconnect).
    pub fn release_pin_claim(&self) {
        if let Ok(mut slot) = self.pin_claim.lock() {
            slot.take();
        }
    }

    /// Releases the claim on `target_id` if it is ours (the tab was closed).
    pub(crate) fn release_claim(&self, target_id: &str) {
        if let Ok(mut slot) = self.pin_claim.lock()
            && slot.as_ref().is_some_and(|(t, _)| t == target_id)
        {
            slot.take();
        }
    }
}
