//! Popups: tabs a session's tab opened (`window.open`, `target=_blank` links).
//!
//! The one place that says which tabs are popups of a tab ([`Session::popups_of`]) and how the
//! session attaches to one to watch it ([`Session::attach_popup`]): the live view follows a
//! popup with these, and a pinned session's `tab close` closes them. (The allowlist's popup
//! layer, in `policy.rs`, attaches earlier and differently: before the popup's first request,
//! at the browser level.)

use std::sync::Arc;

use crate::browser::TargetInfo;
use crate::error::{EngineError, Result};
use crate::session::Session;
use crate::tab::{Tab, TabOptions};

impl Session {
    /// The tabs `opener` opened (direct popups, in discovery order).
    pub fn popups_of(&self, opener: &str) -> Vec<TargetInfo> {
        self.browser()
            .targets()
            .into_iter()
            .filter(|t| t.is_tab() && t.opener_id.as_deref() == Some(opener))
            .collect()
    }

    /// Attaches to a popup to watch it: its own event pump (state, dialogs, page events) with
    /// the session's dialog policy. The popup does not become the session's tab; the caller
    /// owns the attachment and ends it with [`Tab::detach`]. Not `fresh`: a popup may have raised
    /// a dialog before we got to it, and the attach-time probe must look.
    pub async fn attach_popup(&self, target_id: &str) -> Result<Arc<Tab>> {
        let target = self
            .browser()
            .target(target_id)
            .filter(TargetInfo::is_tab)
            .ok_or_else(|| EngineError::TabGone {
                target_id: target_id.to_string(),
                last_url: None,
            })?;
        let options = TabOptions {
            auto_dialog: self.options().auto_dialog,
            fresh: false,
        };
        Tab::attach(self.browser().connection(), &target.target_id, options).await
    }
}
