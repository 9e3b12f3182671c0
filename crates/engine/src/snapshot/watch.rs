//! The unchanged-page fast path: a second `snapshot` of a page that did not change answers from
//! the first one, in about the time of `get url`, instead of reading Chrome's whole
//! accessibility tree again.
//!
//! A full snapshot first *arms* a watcher ([`WATCH_FN`]) in an isolated world of the main
//! document, sent on the socket before the tree is read, so anything that happens while it is
//! read counts as a change. The watcher marks the page changed on any DOM mutation (the document
//! and every open shadow root; our own cursor-scan tags excepted), on the events behind changes
//! that are not mutations (input, focus, hover, resources loading, CSS animations and
//! transitions, popovers, fragment moves, viewport and media changes), and compares form
//! controls' values and the style sheets' rule counts, which scripts can change silently. The
//! next snapshot with the same options asks it once (`check`); unchanged, it answers with the
//! stored snapshot and the same refs.
//!
//! It only vouches for what it can see: a page with frames (their documents are not watched), a
//! custom element without an open shadow root (a closed shadow tree is invisible to scripts),
//! a tab scoped to a frame, a changed document, refs reassigned by another snapshot since, and
//! emulation changes all take the full path. `ABX_SNAPSHOT_CACHE=0` turns it off.

use std::time::Duration;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::js_protocol::runtime;
use serde_json::json;

use super::{Snapshot, SnapshotOptions};
use crate::js::PageFn;
use crate::session::Session;
use crate::tab::Tab;

/// The watcher: `arm` before a full snapshot, `check` before answering from it.
pub(crate) const WATCH_FN: PageFn = PageFn::new(include_str!("watch.js"));

/// The isolated world's name (visible in DevTools' context list).
const WORLD: &str = "abx-snapshot-watch";

/// Per-tab state of the fast path (kept with the tab's refs).
#[derive(Default)]
pub(crate) struct WatchState {
    /// The watcher's world in the main document: (loader id, execution context id).
    world: Option<(String, i64)>,
    /// The last full snapshot the watcher vouches for.
    cached: Option<Cached>,
}

struct Cached {
    options: SnapshotOptions,
    loader: String,
    epoch: u64,
    assigns: u64,
    snapshot: Snapshot,
}

/// Whether the fast path is on (`ABX_SNAPSHOT_CACHE=0` turns it off).
pub(crate) fn enabled() -> bool {
    std::env::var("ABX_SNAPSHOT_CACHE").map_or(true, |v| v != "0")
}

/// `Runtime.evaluate` of the watcher in `context`.
pub(crate) fn watch_call(context: i64, mode: &str) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        context_id: Some(runtime::ExecutionContextId::new(context)),
        return_by_value: Some(true),
        ..runtime::EvaluateParams::new(WATCH_FN.call_on("null", &[json!(mode)]))
    }
}

/// What the watcher answered: 1 (unchanged / watching).
pub(crate) fn answered_yes(reply: &runtime::EvaluateReturns) -> bool {
    reply.exception_details.is_none()
        && reply.result.value.as_ref().and_then(|v| v.as_i64()) == Some(1)
}

impl Session {
    /// The stored snapshot of `tab`, when the page did not change since it was taken.
    pub(crate) async fn unchanged_snapshot(
        &self,
        tab: &Tab,
        options: &SnapshotOptions,
        timeout: Duration,
    ) -> Option<Snapshot> {
        let (loader, epoch) = tab.read(|st| (st.loader_id.clone(), st.documents));
        let context = self.refs.with_tab(tab.target_id(), |t| {
            let cached = t.watch.cached.as_ref()?;
            let (world_loader, context) = t.watch.world.as_ref()?;
            let same = cached.options == *options
                && cached.loader == loader
                && *world_loader == loader
                && cached.epoch == epoch
                && cached.assigns == t.assigns;
            if !same {
                tracing::debug!(
                    options = cached.options == *options,
                    loader = cached.loader == loader,
                    world = *world_loader == loader,
                    epoch = cached.epoch == epoch,
                    refs = cached.assigns == t.assigns,
                    "stored snapshot no longer applies"
                );
                t.watch.cached = None;
                return None;
            }
            Some(*context)
        })?;
        let reply = tab
            .cdp()
            .call_within(watch_call(context, "check"), timeout)
            .await;
        let unchanged = reply.as_ref().is_ok_and(answered_yes);
        tracing::debug!(unchanged, "snapshot watcher asked");
        self.refs.with_tab(tab.target_id(), |t| {
            let cached = t.watch.cached.take()?;
            // A navigation or another snapshot may have landed while the check was out.
            let still = unchanged && cached.assigns == t.assigns && cached.loader == loader;
            let answer = still.then(|| Snapshot {
                removed_refs: Vec::new(),
                ..cached.snapshot.clone()
            });
            if still {
                t.watch.cached = Some(cached);
            }
            answer
        })
    }

    /// The watcher's world in the main document of `tab` (made once per document), or `None`
    /// when Chrome would not make one.
    pub(crate) async fn watch_world(&self, tab: &Tab, timeout: Duration) -> Option<i64> {
        let loader = tab.read(|st| st.loader_id.clone());
        let known = self.refs.with_tab(tab.target_id(), |t| {
            t.watch
                .world
                .as_ref()
                .filter(|(l, _)| *l == loader)
                .map(|(_, c)| *c)
        });
        if known.is_some() {
            return known;
        }
        let world = create_world(tab.cdp(), tab.target_id(), timeout).await?;
        self.refs.with_tab(tab.target_id(), |t| {
            t.watch.world = Some((loader, world));
            t.watch.cached = None;
        });
        Some(world)
    }

    /// Keeps `snapshot` as the answer for the next unchanged snapshot with `options`; `loader`
    /// is the document it was read from (refs are already assigned).
    pub(crate) fn keep_snapshot(
        &self,
        tab: &Tab,
        options: &SnapshotOptions,
        loader: &str,
        snapshot: &Snapshot,
    ) {
        let epoch = tab.read(|st| st.documents);
        self.refs.with_tab(tab.target_id(), |t| {
            if t.watch.world.as_ref().is_none_or(|(l, _)| l != loader) {
                t.watch.cached = None;
                return;
            }
            t.watch.cached = Some(Cached {
                options: options.clone(),
                loader: loader.to_string(),
                epoch,
                assigns: t.assigns,
                snapshot: snapshot.clone(),
            });
        });
    }

    /// Forgets every tab's stored snapshot (emulation changed what pages look like).
    pub(crate) fn forget_snapshots(&self) {
        self.refs.for_each_tab(|t| t.watch.cached = None);
    }
}

async fn create_world(session: &CdpSession, frame_id: &str, timeout: Duration) -> Option<i64> {
    let world = session
        .call_json_within(
            "Page.createIsolatedWorld",
            json!({ "frameId": frame_id, "worldName": WORLD }),
            timeout,
        )
        .await
        .ok()?;
    world["executionContextId"].as_i64()
}
