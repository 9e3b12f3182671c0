//! The session side of the fast path: the watcher's world in each tab's main document, the
//! snapshot it vouches for, and the answer from it while the page is unchanged.

use std::time::Duration;

use abx_cdp::Session as CdpSession;
use serde_json::json;

use super::{Cached, FrameWatch, WORLD, answered_yes, watch_call};
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
        let (loader, epoch, pushes) =
            tab.read(|st| (st.loader_id.clone(), st.documents, st.snapshot_pushes));
        let sent = tab.cdp().messages_sent();
        // A frame watched through the tab's own session (not a cross-site frame's).
        let here = |frame: &FrameWatch| frame.session.id() == tab.cdp().id();
        let watchers = self.refs.with_tab(tab.target_id(), |t| {
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
            // Nothing sent to the page since it was read (no command touched it) and no
            // watcher told of a change: the page is as it was, without asking it. A watcher
            // reached through another session (a cross-site frame in its own renderer) tells
            // that session, which is not heard here: those pages are always asked.
            let quiet =
                cached.pushes == pushes && cached.sent == sent && cached.frames.iter().all(here);
            Some((*context, cached.frames.clone(), quiet))
        })?;
        let (context, frames, quiet) = watchers;
        if quiet {
            tracing::debug!("snapshot answered from the quiet watch");
            return self.refs.with_tab(tab.target_id(), |t| {
                let cached = t.watch.cached.as_ref()?;
                Some(Snapshot {
                    removed_refs: Vec::new(),
                    ..cached.snapshot.clone()
                })
            });
        }
        // The main document and every frame are asked at once.
        let main = tab.cdp().call_within(watch_call(context, "check"), timeout);
        let in_frames = futures_util::future::join_all(frames.iter().map(|frame| {
            frame
                .session
                .call_within(watch_call(frame.context, "check"), timeout)
        }));
        let (reply, frame_replies) = futures_util::join!(main, in_frames);
        // Only the checks went out since `sent`: the answer can be confirmed without asking
        // until something else is sent or a watcher tells of a change.
        let asked_here = 1 + frames.iter().filter(|f| here(f)).count() as u64;
        let confirmed_at = Some(tab.cdp().messages_sent()).filter(|&now| now == sent + asked_here);
        let unchanged = reply.as_ref().is_ok_and(answered_yes)
            && frame_replies
                .iter()
                .all(|r| r.as_ref().is_ok_and(answered_yes));
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
                let mut cached = cached;
                if let Some(now) = confirmed_at {
                    cached.pushes = pushes;
                    cached.sent = now;
                }
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
        // Made by Chrome with the document (reported by the pump after the document's
        // commit), else made now.
        let made = tab.read(|st| {
            st.snapshot_worlds
                .get(tab.target_id())
                .filter(|(_, _, document)| *document == loader)
                .map(|w| w.0)
        });
        let world = match made {
            Some(world) => world,
            None => create_world(tab.cdp(), tab.target_id(), timeout).await?,
        };
        self.refs.with_tab(tab.target_id(), |t| {
            t.watch.world = Some((loader, world));
            t.watch.frame_worlds.clear();
            t.watch.cached = None;
        });
        Some(world)
    }

    /// The watcher's world in child frame `frame_id` (reached through `session`): the one an
    /// earlier snapshot made, with the loader id of the document it was made in (the frame may
    /// have navigated since, and the world gone with its document), or a new one (`None`).
    pub(crate) async fn frame_world(
        &self,
        tab: &Tab,
        session: &CdpSession,
        frame_id: &str,
        timeout: Duration,
    ) -> Option<(i64, Option<String>)> {
        let known = self.refs.with_tab(tab.target_id(), |t| {
            t.watch.frame_worlds.get(frame_id).cloned()
        });
        if let Some((loader, context)) = known {
            return Some((context, Some(loader)));
        }
        // A same-process frame's world, made by Chrome with its document (the pump reports
        // those of the tab's own session only).
        let made = match session.id() == tab.cdp().id() {
            true => tab.read(|st| st.snapshot_worlds.get(frame_id).map(|w| w.0)),
            false => None,
        };
        match made {
            Some(context) => Some((context, None)),
            None => create_world(session, frame_id, timeout)
                .await
                .map(|context| (context, None)),
        }
    }

    /// Settles child frame `frame_id`'s world after the frame was read from document `loader`
    /// with the world `context` that [`Session::frame_world`] gave (`made_in`): whether the
    /// watcher armed there counts. A world made in another document is gone: forgotten, so the
    /// next snapshot makes a new one.
    pub(crate) fn settle_frame_world(
        &self,
        tab: &Tab,
        frame_id: &str,
        context: i64,
        made_in: Option<String>,
        loader: &str,
    ) -> bool {
        let current = made_in.as_deref().is_none_or(|made| made == loader) && !loader.is_empty();
        self.refs.with_tab(tab.target_id(), |t| {
            if current {
                t.watch
                    .frame_worlds
                    .insert(frame_id.to_string(), (loader.to_string(), context));
            } else {
                t.watch.frame_worlds.remove(frame_id);
            }
        });
        current
    }

    /// Keeps `snapshot` as the answer for the next unchanged snapshot with `options`; `loader`
    /// is the document it was read from (refs are already assigned), `frames` the watchers of
    /// the child frames it read, `pushes` the tab's count of watcher pushes before they were
    /// armed.
    pub(crate) fn keep_snapshot(
        &self,
        tab: &Tab,
        options: &SnapshotOptions,
        loader: &str,
        snapshot: &Snapshot,
        frames: Vec<FrameWatch>,
        pushes: u64,
    ) {
        let epoch = tab.read(|st| st.documents);
        let sent = tab.cdp().messages_sent();
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
                pushes,
                sent,
                snapshot: snapshot.clone(),
                frames,
            });
        });
    }

    /// Forgets every tab's stored snapshot (emulation changed what pages look like).
    pub(crate) fn forget_snapshots(&self) {
        self.refs.for_each_tab(|t| t.watch.cached = None);
    }
}

/// A new world named [`WORLD`] in the document of `frame_id`, reached through `session`.
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
