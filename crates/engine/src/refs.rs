//! Snapshot refs (`@e1`, `@e2`, …): which DOM node each ref names, per tab.
//!
//! The snapshot module assigns refs ([`RefStore::assign`]); actions resolve them
//! ([`RefStore::lookup`]). Semantics (upstream 0.41, contract §4.3, plus the fixes for upstream
//! issues #1443 and #1922):
//!
//! - A ref names one DOM node: its `backendNodeId` in one document of one frame (main frame or a
//!   child frame, the latter possibly behind its own out-of-process CDP session). A node that
//!   survives from one snapshot to the next keeps its ref.
//! - Numbers come from one counter per session and are never reused, so a ref never silently
//!   names a different element later.
//! - Only the refs of the latest snapshot of a tab are live. A ref issued earlier that is not in
//!   the latest snapshot is stale (it is listed in that snapshot's `removedRefs`), and so is any
//!   ref taken in a main-frame document that has since been replaced — whatever replaced it (an
//!   explicit `navigate` or a click on a link).
//!
//! The store also keeps the small per-tab state the observation and input modules share: the
//! out-of-process iframe sessions found by auto-attach, the mouse position and buttons, and the
//! text of the last snapshot (the baseline of `diff snapshot`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Where a node lives: the tab's main frame or one of its child frames.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FrameKey(pub Option<String>);

impl FrameKey {
    /// The main frame.
    pub const MAIN: FrameKey = FrameKey(None);
}

/// The identity of one document a snapshot read nodes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentId {
    /// The frame.
    pub frame: FrameKey,
    /// The frame's loader (document) id.
    pub loader: String,
    /// For the main frame: how many main-frame documents the tab had committed when the snapshot
    /// ran. A back/forward-cache restore brings an old loader id back; the epoch still differs,
    /// so refs from before the navigation stay dead.
    pub epoch: u64,
    /// The flat CDP session the frame is reached through when it is out of process (its
    /// `backendNodeId`s belong to that renderer); `None` for the tab's own session.
    pub session: Option<String>,
}

/// One live ref.
#[derive(Clone, Debug, PartialEq)]
pub struct RefEntry {
    /// The ref name without `@`, e.g. `e3`.
    pub name: String,
    /// The document the node was read from (shared by the refs of one snapshot's document).
    pub document: Arc<DocumentId>,
    /// The tab's main-frame document when the snapshot ran (for a child-frame ref too: any
    /// main-frame navigation retires every ref of the tab).
    pub page: Option<Arc<DocumentId>>,
    /// The node.
    pub backend_node_id: i64,
    /// Its role as printed in the snapshot.
    pub role: String,
    /// Its accessible name as printed in the snapshot.
    pub label: String,
}

/// A node a snapshot wants a ref for.
#[derive(Clone, Debug)]
pub struct RefRequest {
    /// Index into the documents passed to [`RefStore::assign`].
    pub document: usize,
    /// The node.
    pub backend_node_id: i64,
    /// Its role.
    pub role: String,
    /// Its name.
    pub label: String,
}

/// What [`RefStore::assign`] decided.
#[derive(Clone, Debug, Default)]
pub struct Assigned {
    /// One ref name per request, in request order.
    pub names: Vec<String>,
    /// Refs of the previous snapshot of the tab that are gone, `@`-prefixed, in number order.
    pub removed: Vec<String>,
}

/// What a ref resolves to right now.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    /// A live ref of the tab.
    Live(Box<RefEntry>),
    /// Issued in this session, but not by the latest snapshot of this tab.
    Retired,
    /// Issued by a snapshot of another tab.
    OtherTab,
    /// Never issued.
    Unknown,
}

/// Mouse state of a tab, so `mouse down`/`up` happen where the pointer is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mouse {
    /// Last x in CSS pixels.
    pub x: f64,
    /// Last y.
    pub y: f64,
    /// Pressed buttons as CDP's bit mask (left 1, right 2, middle 4).
    pub buttons: i64,
}

#[derive(Default)]
struct DocumentRefs {
    id: Option<DocumentId>,
    nodes: HashMap<i64, String>,
}

/// Per-tab state.
#[derive(Default)]
pub(crate) struct TabRefs {
    documents: HashMap<FrameKey, DocumentRefs>,
    live: HashMap<String, RefEntry>,
    pub(crate) last_snapshot: Option<Arc<str>>,
    pub(crate) frames: crate::snapshot::frames::FrameSessions,
    pub(crate) mouse: Mouse,
    /// Modifier keys held down by `keydown` (CDP bits), applied to later input.
    pub(crate) modifiers: i64,
    /// The iframe the tab's page commands are scoped to (`None`: the main frame).
    pub(crate) frame: Option<crate::frame::scope::FrameScope>,
    /// The bases of `snapshot --delta`.
    pub(crate) deltas: crate::snapshot::delta::DeltaHistory,
    /// How many times refs were assigned for this tab (a stored snapshot is only good while
    /// nothing reassigned them).
    pub(crate) assigns: u64,
    /// The unchanged-page fast path of `snapshot`.
    pub(crate) watch: crate::snapshot::watch::WatchState,
    /// How many nodes the main document's tree had at the tab's last full snapshot: what
    /// [`crate::SnapshotSource::Auto`] judges the next page's size by.
    pub(crate) last_tree_nodes: Option<usize>,
}

#[derive(Default)]
struct Inner {
    /// The next ref number (session-wide, starts at 1).
    next: u64,
    tabs: HashMap<String, TabRefs>,
}

/// The refs of every tab of a session, keyed by target id.
#[derive(Default)]
pub struct RefStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for RefStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("RefStore")
            .field("next", &inner.next.max(1))
            .field("tabs", &inner.tabs.len())
            .finish()
    }
}

/// The number of a ref name (`e12` → 12).
fn number(name: &str) -> Option<u64> {
    name.strip_prefix('e')?.parse().ok()
}

impl RefStore {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding this lock would be a bug here; keep serving the refs anyway.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on the per-tab state of `target_id` (never across an await).
    pub(crate) fn with_tab<T>(&self, target_id: &str, f: impl FnOnce(&mut TabRefs) -> T) -> T {
        let mut inner = self.lock();
        f(inner.tabs.entry(target_id.to_string()).or_default())
    }

    /// Runs `f` on the per-tab state of every tab (never across an await).
    pub(crate) fn for_each_tab(&self, mut f: impl FnMut(&mut TabRefs)) {
        let mut inner = self.lock();
        for tab in inner.tabs.values_mut() {
            f(tab);
        }
    }

    /// Assigns refs for one snapshot of `target_id`: nodes already known in the same document keep
    /// their ref, others get fresh numbers; the result also lists the refs that disappeared.
    pub fn assign(
        &self,
        target_id: &str,
        documents: &[DocumentId],
        requests: &[RefRequest],
    ) -> Assigned {
        let mut inner = self.lock();
        let Inner { next, tabs } = &mut *inner;
        if *next == 0 {
            *next = 1;
        }
        let tab = tabs.entry(target_id.to_string()).or_default();
        tab.assigns += 1;

        // A changed main-frame document invalidates every frame of the tab; a changed child
        // document (or a child reached through another session) only that frame.
        let main_changed = documents
            .iter()
            .find(|d| d.frame == FrameKey::MAIN)
            .is_some_and(|d| {
                tab.documents
                    .get(&FrameKey::MAIN)
                    .and_then(|r| r.id.as_ref())
                    != Some(d)
            });
        if main_changed {
            tab.documents.clear();
        }
        let mut fresh: HashMap<FrameKey, DocumentRefs> = HashMap::new();
        for document in documents {
            let previous = tab
                .documents
                .remove(&document.frame)
                .filter(|r| r.id.as_ref() == Some(document));
            let mut refs = previous.unwrap_or_default();
            refs.id = Some(document.clone());
            fresh.insert(document.frame.clone(), refs);
        }

        // One shared copy per document: a large page has thousands of refs.
        let shared: Vec<Arc<DocumentId>> = documents.iter().cloned().map(Arc::new).collect();
        let page = shared.iter().find(|d| d.frame == FrameKey::MAIN).cloned();
        let mut names = Vec::with_capacity(requests.len());
        let mut live = HashMap::with_capacity(requests.len());
        let mut kept: HashMap<FrameKey, HashMap<i64, String>> = HashMap::new();
        for request in requests {
            let Some(document) = documents.get(request.document) else {
                names.push(String::new());
                continue;
            };
            let known = fresh
                .get(&document.frame)
                .and_then(|r| r.nodes.get(&request.backend_node_id))
                .cloned();
            // The same node twice in one snapshot (it cannot happen with Chrome's tree, but a
            // duplicate must not share a number with a different entry) keeps one name.
            let name = match known {
                Some(name) => name,
                None => {
                    let name = format!("e{next}");
                    *next += 1;
                    name
                }
            };
            kept.entry(document.frame.clone())
                .or_default()
                .insert(request.backend_node_id, name.clone());
            live.insert(
                name.clone(),
                RefEntry {
                    name: name.clone(),
                    document: Arc::clone(&shared[request.document]),
                    page: page.clone(),
                    backend_node_id: request.backend_node_id,
                    role: request.role.clone(),
                    label: request.label.clone(),
                },
            );
            names.push(name);
        }
        // Only nodes seen in this snapshot stay known: a node that left the page and came back
        // gets a new number instead of resurrecting a ref reported as removed.
        for (frame, refs) in &mut fresh {
            refs.nodes = kept.remove(frame).unwrap_or_default();
        }
        tab.documents = fresh;

        let mut removed: Vec<&String> = tab
            .live
            .keys()
            .filter(|name| !live.contains_key(*name))
            .collect();
        removed.sort_by_key(|name| number(name).unwrap_or(u64::MAX));
        let removed = removed.into_iter().map(|name| format!("@{name}")).collect();
        tab.live = live;
        Assigned { names, removed }
    }

    /// The node keys the refs of `document` were last assigned on (none when the tab's refs
    /// are of another document of that frame).
    pub(crate) fn document_keys(&self, target_id: &str, document: &DocumentId) -> Vec<i64> {
        let inner = self.lock();
        inner
            .tabs
            .get(target_id)
            .and_then(|t| t.documents.get(&document.frame))
            .filter(|r| r.id.as_ref() == Some(document))
            .map(|r| r.nodes.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Re-keys nodes of `document` (`from` → `to`), so the next [`RefStore::assign`] finds them
    /// under the keys the snapshot being taken uses (the walker's or Chrome's, ADR 0018).
    pub(crate) fn rekey(&self, target_id: &str, document: &DocumentId, map: &HashMap<i64, i64>) {
        let mut inner = self.lock();
        let Some(refs) = inner
            .tabs
            .get_mut(target_id)
            .and_then(|t| t.documents.get_mut(&document.frame))
            .filter(|r| r.id.as_ref() == Some(document))
        else {
            return;
        };
        refs.nodes = std::mem::take(&mut refs.nodes)
            .into_iter()
            .map(|(key, name)| (map.get(&key).copied().unwrap_or(key), name))
            .collect();
    }

    /// Resolves a ref name (`e3`) for `target_id`.
    pub fn lookup(&self, target_id: &str, name: &str) -> Lookup {
        let inner = self.lock();
        if let Some(entry) = inner.tabs.get(target_id).and_then(|t| t.live.get(name)) {
            return Lookup::Live(Box::new(entry.clone()));
        }
        if inner
            .tabs
            .iter()
            .any(|(id, t)| id != target_id && t.live.contains_key(name))
        {
            return Lookup::OtherTab;
        }
        match number(name) {
            Some(n) if n >= 1 && n < inner.next => Lookup::Retired,
            _ => Lookup::Unknown,
        }
    }

    /// The live refs of a tab, in number order.
    pub fn live(&self, target_id: &str) -> Vec<RefEntry> {
        let inner = self.lock();
        let mut out: Vec<RefEntry> = inner
            .tabs
            .get(target_id)
            .map(|t| t.live.values().cloned().collect())
            .unwrap_or_default();
        out.sort_by_key(|e| number(&e.name).unwrap_or(u64::MAX));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_doc(loader: &str, epoch: u64) -> DocumentId {
        DocumentId {
            frame: FrameKey::MAIN,
            loader: loader.into(),
            epoch,
            session: None,
        }
    }

    fn req(backend: i64) -> RefRequest {
        RefRequest {
            document: 0,
            backend_node_id: backend,
            role: "button".into(),
            label: String::new(),
        }
    }

    #[test]
    fn surviving_nodes_keep_their_refs_and_new_nodes_continue_the_sequence() {
        let store = RefStore::default();
        let doc = main_doc("L1", 1);
        let first = store.assign(
            "t",
            std::slice::from_ref(&doc),
            &[req(10), req(11), req(12)],
        );
        assert_eq!(first.names, ["e1", "e2", "e3"]);
        assert!(first.removed.is_empty());
        let second = store.assign(
            "t",
            std::slice::from_ref(&doc),
            &[req(10), req(12), req(13)],
        );
        assert_eq!(second.names, ["e1", "e3", "e4"]);
        assert_eq!(second.removed, ["@e2"]);
        assert_eq!(store.lookup("t", "e2"), Lookup::Retired);
        assert!(matches!(store.lookup("t", "e4"), Lookup::Live(_)));
        assert_eq!(store.lookup("t", "e99"), Lookup::Unknown);
    }

    #[test]
    fn a_removed_node_that_comes_back_gets_a_new_number() {
        let store = RefStore::default();
        let doc = main_doc("L1", 1);
        store.assign("t", std::slice::from_ref(&doc), &[req(10), req(11)]);
        store.assign("t", std::slice::from_ref(&doc), &[req(10)]);
        let third = store.assign("t", std::slice::from_ref(&doc), &[req(10), req(11)]);
        assert_eq!(third.names, ["e1", "e3"]);
    }

    #[test]
    fn a_new_document_renumbers_and_never_reuses() {
        let store = RefStore::default();
        store.assign("t", &[main_doc("L1", 1)], &[req(10)]);
        // Same loader id after a back/forward-cache restore, but a later epoch.
        let again = store.assign("t", &[main_doc("L1", 3)], &[req(10)]);
        assert_eq!(again.names, ["e2"]);
        assert_eq!(again.removed, ["@e1"]);
    }

    #[test]
    fn refs_of_another_tab_are_reported_as_such() {
        let store = RefStore::default();
        store.assign("a", &[main_doc("L1", 1)], &[req(10)]);
        store.assign("b", &[main_doc("L2", 1)], &[req(10)]);
        assert_eq!(store.lookup("b", "e1"), Lookup::OtherTab);
        assert!(matches!(store.lookup("b", "e2"), Lookup::Live(_)));
    }

    #[test]
    fn a_child_frame_document_change_only_renumbers_that_frame() {
        let store = RefStore::default();
        let child = |loader: &str| DocumentId {
            frame: FrameKey(Some("F".into())),
            loader: loader.into(),
            epoch: 0,
            session: None,
        };
        let main = main_doc("L1", 1);
        let mut r = req(50);
        r.document = 1;
        let first = store.assign("t", &[main.clone(), child("C1")], &[req(10), r.clone()]);
        assert_eq!(first.names, ["e1", "e2"]);
        let second = store.assign("t", &[main, child("C2")], &[req(10), r]);
        assert_eq!(second.names, ["e1", "e3"]);
        assert_eq!(second.removed, ["@e2"]);
    }
}
