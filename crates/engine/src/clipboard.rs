//! The page's clipboard (`clipboard read|write|copy|paste`) as [`Page`] methods.
//!
//! Reading and writing go through the page's own `navigator.clipboard`, after granting
//! `clipboard-read` and `clipboard-write` to the page's origin only, in the tab's own
//! browser context (`Browser.setPermission` with both), so no other origin or context gains
//! access. Focus emulation is on for the call: the Clipboard API refuses a document without
//! focus, which a background tab (a stage tab on a shared anchor) never has. `copy` and `paste`
//! are Ctrl+C / Ctrl+V on the focused element with the editing command attached, which is how
//! Chrome runs them for synthetic keys.

use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{browser as cdp_browser, emulation, input as cdp};
use serde::Serialize;

use crate::error::{EngineError, Result};
use crate::input::{self, InputEvent};
use crate::session::{Page, Session};
use crate::tab::Tab;

/// `{"text": "<clipboard text>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClipboardText {
    /// The text on the clipboard.
    pub text: String,
}

/// `{"written": "<text>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClipboardWritten {
    /// The text written.
    pub written: String,
}

/// `{"copied": true}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClipboardCopied {
    /// Always true.
    pub copied: bool,
}

/// `{"pasted": true}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClipboardPasted {
    /// Always true.
    pub pasted: bool,
}

const CLIPBOARD_PERMISSIONS: &[&str] = &["clipboard-read", "clipboard-write"];

impl Page<'_> {
    /// `clipboard read`: the clipboard's text, read by the page.
    pub async fn clipboard_read(&self) -> Result<ClipboardText> {
        let value = self
            .with_clipboard("navigator.clipboard.readText()")
            .await?;
        Ok(ClipboardText {
            text: value.as_str().unwrap_or_default().to_string(),
        })
    }

    /// `clipboard write <text>`: puts `text` on the clipboard from the page.
    pub async fn clipboard_write(&self, text: &str) -> Result<ClipboardWritten> {
        let literal = serde_json::to_string(text)
            .map_err(|e| EngineError::Internal(format!("cannot encode the text: {e}")))?;
        self.with_clipboard(&format!(
            "navigator.clipboard.writeText({literal}).then(() => true)"
        ))
        .await?;
        Ok(ClipboardWritten {
            written: text.to_string(),
        })
    }

    /// `clipboard copy`: Ctrl+C on the focused element (the page's selection).
    pub async fn clipboard_copy(&self) -> Result<ClipboardCopied> {
        self.editing_key("c", "KeyC", 67, "copy").await?;
        Ok(ClipboardCopied { copied: true })
    }

    /// `clipboard paste`: Ctrl+V into the focused element.
    pub async fn clipboard_paste(&self) -> Result<ClipboardPasted> {
        self.editing_key("v", "KeyV", 86, "paste").await?;
        Ok(ClipboardPasted { pasted: true })
    }

    /// Grants the clipboard to the view's origin, then evaluates `script` with focus.
    async fn with_clipboard(&self, script: &str) -> Result<serde_json::Value> {
        let (tab, _, timeout) = self.parts();
        let origin = self
            .evaluate("location.origin")
            .await?
            .value
            .as_str()
            .unwrap_or_default()
            .to_string();
        if origin.is_empty() || origin == "null" {
            return Err(EngineError::Page(
                "the clipboard needs a page with an origin (http, https or file): this page has none"
                    .to_string(),
            ));
        }
        self.session.grant_clipboard(&tab, &origin, timeout).await?;
        let focus = |enabled: bool| emulation::SetFocusEmulationEnabledParams::new(enabled);
        tab.cdp().call_within(focus(true), timeout).await?;
        let outcome = self.evaluate(script).await;
        if let Err(err) = tab.cdp().send(&focus(false)).await {
            tracing::debug!(%err, "cannot turn focus emulation off");
        }
        Ok(outcome?.value)
    }

    async fn editing_key(&self, key: &str, code: &str, key_code: i64, command: &str) -> Result<()> {
        let (tab, deadline, _) = self.parts();
        let event = |kind: cdp::DispatchKeyEventType, commands: Option<Vec<String>>| {
            InputEvent::Key(cdp::DispatchKeyEventParams {
                modifiers: Some(CONTROL),
                key: Some(key.to_string()),
                code: Some(code.to_string()),
                windows_virtual_key_code: Some(key_code),
                commands,
                ..cdp::DispatchKeyEventParams::new(kind)
            })
        };
        let events = [
            event(
                cdp::DispatchKeyEventType::RawKeyDown,
                Some(vec![command.to_string()]),
            ),
            event(cdp::DispatchKeyEventType::KeyUp, None),
        ];
        input::dispatch(&tab, tab.cdp(), "clipboard", &events, deadline).await?;
        Ok(())
    }
}

impl Session {
    async fn grant_clipboard(&self, tab: &Tab, origin: &str, timeout: Duration) -> Result<()> {
        let context = self
            .browser()
            .target(tab.target_id())
            .and_then(|t| t.browser_context_id);
        let browser = self.browser().connection().browser();
        for name in CLIPBOARD_PERMISSIONS {
            let grant = cdp_browser::SetPermissionParams {
                origin: Some(origin.to_string()),
                browser_context_id: context.clone().map(cdp_browser::BrowserContextId::from),
                ..cdp_browser::SetPermissionParams::new(
                    cdp_browser::PermissionDescriptor::new(*name),
                    cdp_browser::PermissionSetting::Granted,
                )
            };
            browser.call_within(grant, timeout).await?;
        }
        Ok(())
    }
}

/// CDP's modifier bit for Ctrl.
const CONTROL: i64 = 2;
