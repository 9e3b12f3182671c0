//! Out-of-process iframes (OOPIFs): a cross-site iframe lives in another renderer, reachable only
//! through its own CDP session.
//!
//! The first time a snapshot meets an iframe that is not in the tab's own frame tree, this module
//! turns on `Target.setAutoAttach {autoAttach, flatten, waitForDebuggerOnStart: false}` on the
//! tab's session (iframes only). Chrome then attaches us to every cross-process child frame, now
//! and later, and reports each with `Target.attachedToTarget` on the tab's session — for the
//! frames that already exist, before the reply to `setAutoAttach`. Those events land on a small
//! bounded subscription kept per tab; it is drained (without waiting) whenever a frame session
//! is looked up, and a lookup that misses waits briefly, bounded, for a late attach.

mod attach;

use std::collections::HashMap;

use abx_cdp::Subscription;
use abx_cdp::protocol::browser_protocol::target;
use serde::Deserialize;

/// How many attach/detach events may queue between two drains (dropped beyond that; a dropped
/// attach only means that frame is snapshotted without its content).
const EVENT_CAPACITY: usize = 256;

/// The cross-process child frames of one tab, by frame id.
#[derive(Default)]
pub(crate) struct FrameSessions {
    /// The tab session auto-attach was turned on for (a re-attached tab needs it again).
    enabled_on: Option<String>,
    events: Option<Subscription>,
    children: HashMap<String, String>,
}

impl std::fmt::Debug for FrameSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameSessions")
            .field("children", &self.children.len())
            .finish_non_exhaustive()
    }
}

/// `Target.attachedToTarget`, read with our own target info (target infos are read leniently
/// everywhere, see `browser::TargetInfo`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Attached {
    session_id: String,
    target_info: AttachedTarget,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AttachedTarget {
    target_id: String,
    #[serde(rename = "type")]
    kind: String,
}

impl FrameSessions {
    fn drain(&mut self) {
        let Some(events) = self.events.as_mut() else {
            return;
        };
        while let Some(event) = events.try_recv() {
            match event.method() {
                target::EventAttachedToTarget::IDENTIFIER => {
                    if let Ok(attached) = event.parse::<Attached>()
                        && attached.target_info.kind == "iframe"
                    {
                        // An OOPIF's target id is its frame id.
                        self.children
                            .insert(attached.target_info.target_id, attached.session_id);
                    }
                }
                target::EventDetachedFromTarget::IDENTIFIER => {
                    if let Some(Ok(detached)) = event.decode::<target::EventDetachedFromTarget>() {
                        let gone: String = detached.session_id.into();
                        self.children.retain(|_, session| *session != gone);
                    }
                }
                _ => {}
            }
        }
    }
}
