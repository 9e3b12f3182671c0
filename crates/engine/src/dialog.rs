//! JavaScript dialogs: status, answers, and the dismissal of a dialog that opened before this
//! session attached (docs/adr/0003-dialog-at-attach.md).
//!
//! A dialog seen by our own event pump is answerable (`Page.handleJavaScriptDialog` on the
//! session that had Page enabled when it opened). A dialog found by the attach-time probe is not:
//! Chrome gives the answer callback only to the client attached when it opened. Such a dialog can
//! still be *dismissed*: with no DevTools session on the tab, Chrome's tab-modal dialog manager
//! dismisses it when the tab is hidden (window minimized, or another tab activated).

use std::sync::Arc;
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{browser as cdp_browser, target};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::error::{EngineError, Result};
use crate::session::Session;
use crate::tab::{Dialog, DialogEvent, Tab};

/// `dialog status`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DialogStatus {
    /// Whether a dialog is open on the active tab.
    pub has_dialog: bool,
    /// `alert|confirm|prompt|beforeunload`, or `unknown` for one found by probing.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The prompt's default text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
    /// False when the dialog opened before this session attached: it can be dismissed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answerable: Option<bool>,
}

impl Session {
    /// The dialog state of the active tab.
    pub async fn dialog_status(&self) -> Result<DialogStatus> {
        let tab = self.active_tab().await?;
        Ok(match tab.dialog() {
            None => DialogStatus {
                has_dialog: false,
                kind: None,
                message: None,
                default_prompt: None,
                answerable: None,
            },
            Some(d) => DialogStatus {
                has_dialog: true,
                kind: Some(d.kind),
                message: Some(d.message),
                default_prompt: d.default_prompt,
                answerable: Some(d.answerable),
            },
        })
    }

    /// Dialog events of the active tab (opened, closed and by whom), for the live view.
    pub async fn dialog_events(&self) -> Result<broadcast::Receiver<DialogEvent>> {
        Ok(self.active_tab().await?.dialog_events())
    }

    /// `dialog accept [text]`.
    pub async fn dialog_accept(&self, prompt_text: Option<&str>, by: &str) -> Result<()> {
        let tab = self.active_tab().await?;
        tab.answer_dialog(true, prompt_text, by).await
    }

    /// `dialog dismiss`: answers `false`, or, for a dialog that opened before we attached,
    /// dismisses it by hiding the tab from Chrome's dialog manager.
    pub async fn dialog_dismiss(&self, by: &str) -> Result<()> {
        let tab = self.active_tab().await?;
        match tab.dialog() {
            None => Err(EngineError::NoDialog),
            Some(Dialog {
                answerable: true, ..
            }) => tab.answer_dialog(false, None, by).await,
            Some(_) => self.dismiss_unanswerable(tab).await,
        }
    }

    async fn dismiss_unanswerable(&self, tab: Arc<Tab>) -> Result<()> {
        let target = tab.target_id().to_string();
        drop(tab);
        let browser = self.browser().connection().browser();
        let short = Duration::from_secs(2);

        // Recipe 1: minimize and restore the tab's window (5–13 ms on Chromium 156).
        self.detach_tab(&target).await;
        let _ = self.browser().activate_target(&target).await;
        // Restoring shows the tab; a stage tab on a headless shell goes back into the
        // background (ADR 0015).
        let mut states = vec![
            cdp_browser::WindowState::Minimized,
            cdp_browser::WindowState::Normal,
        ];
        if self.hides_stage_tab_by_minimizing().await {
            states.push(cdp_browser::WindowState::Minimized);
        }
        let _ = self
            .browser()
            .set_window_states(&target, &states, short)
            .await;
        if self.rebind_clear(&target).await? {
            return Ok(());
        }

        // Recipe 2: activate another (throwaway) tab, then come back.
        self.detach_tab(&target).await;
        let _ = self.browser().activate_target(&target).await;
        let create = target::CreateTargetParams {
            background: Some(false),
            ..target::CreateTargetParams::new("about:blank")
        };
        let throwaway = browser
            .call_within(create, short)
            .await
            .ok()
            .map(|created| String::from(created.target_id));
        if let Some(other) = &throwaway {
            let _ = self.browser().activate_target(other).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            let _ = self.browser().activate_target(&target).await;
            let _ = browser
                .call_within(target::CloseTargetParams::new(other.clone()), short)
                .await;
        }
        if self.rebind_clear(&target).await? {
            return Ok(());
        }
        Err(EngineError::DialogUnanswerable(
            crate::Unanswerable::Beforeunload,
        ))
    }

    /// Re-attaches to `target` and reports whether the page answers again (dialog gone).
    async fn rebind_clear(&self, target: &str) -> Result<bool> {
        // The dialog closes 20–50 ms after the tab is hidden; give it a moment, then probe.
        tokio::time::sleep(Duration::from_millis(60)).await;
        let tab = self.bind(target).await?;
        Ok(tab.dialog().is_none())
    }
}
