//! The session side of the fast path: the watcher's world in each tab's main document, the
//! snapshot it vouches for, and the answer from it while the page is unchanged.

use std::time::Duration;

use abx_cdp::Session as CdpSession;
use serde_json::json;

use super::{Cached, WORLD, answered_yes, watch_call};
use crate::session::Session;
use crate::snapshot::{Snapshot, SnapshotOptions};
use crate::tab::Tab;

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
