//! The session side of frame sessions: auto-attach turned on once per tab session, and the
//! lookup of a cross-process child frame's session.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::target;
use abx_cdp::{EventFilter, Session as CdpSession};

use super::{EVENT_CAPACITY, FrameSessions};
use crate::error::Result;
use crate::session::Session;
use crate::tab::Tab;

impl Session {
    /// Turns on iframe auto-attach for the tab once per tab session.
    pub(crate) async fn ensure_frame_sessions(&self, tab: &Tab, timeout: Duration) -> Result<()> {
        let tab_session = tab.cdp().id().unwrap_or_default().to_string();
        let enabled = self.refs.with_tab(tab.target_id(), |t| {
            t.frames.enabled_on.as_deref() == Some(tab_session.as_str())
        });
        if enabled {
            return Ok(());
        }
        let events = tab.cdp().subscribe(
            EventFilter::methods([
                target::EventAttachedToTarget::IDENTIFIER,
                target::EventDetachedFromTarget::IDENTIFIER,
            ]),
            EVENT_CAPACITY,
        );
        let iframes = target::FilterEntry {
            r#type: Some("iframe".into()),
            exclude: Some(false),
        };
        let auto_attach = target::SetAutoAttachParams {
            flatten: Some(true),
            filter: Some(target::TargetFilter::new(vec![iframes])),
            ..target::SetAutoAttachParams::new(true, false)
        };
        tab.request("snapshot", auto_attach, timeout).await?;
        self.refs.with_tab(tab.target_id(), |t| {
            t.frames = FrameSessions {
                enabled_on: Some(tab_session),
                events: Some(events),
                children: HashMap::new(),
            };
            t.frames.drain();
        });
        Ok(())
    }

    /// The session of a cross-process child frame, waiting up to `wait` for its attach event.
    /// `None` when the frame is not out of process (or never attached).
    pub(crate) async fn frame_session(
        &self,
        tab: &Tab,
        frame_id: &str,
        wait: Duration,
    ) -> Option<CdpSession> {
        let deadline = Instant::now() + wait;
        loop {
            let found = self.refs.with_tab(tab.target_id(), |t| {
                t.frames.drain();
                t.frames.children.get(frame_id).cloned()
            });
            if let Some(session_id) = found {
                return Some(self.browser().connection().session(&session_id));
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
