//! Taking snapshots: the page's `snapshot`, `diff snapshot` and `snapshot --delta`, and the
//! session's read of a tab behind them (main document, child frames, refs, the unchanged-page
//! fast path).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::dom;
use serde_json::Value;

use super::delta::DeltaSnapshot;
use super::tree::Tree;
use super::walker::{WALKER_FN, Walked, decode, in_world};
use super::{
    Capture, DOCUMENT_SETTLE, FRAME_ATTACH_WAIT, FRAME_BUDGET, RefInfo, Scope, Snapshot,
    SnapshotDiff, SnapshotOptions, SnapshotSource, apply_refs, capture, diff_text, finish,
    render_options, scan, selector_subtree, tree, walker, watch,
};
use crate::error::{EngineError, Result};
use crate::refs::{DocumentId, FrameKey, RefRequest};
use crate::session::{Page, Session};
use crate::tab::Tab;

/// A child frame of the main document, once read.
struct ChildFrame {
    /// Its `Iframe` node in the main tree (whose ref marks where its text goes).
    iframe_node: usize,
    /// Its unchanged-page watcher, when one was armed before it was read.
    watch: Option<watch::FrameWatch>,
    capture: Capture,
    document: DocumentId,
    candidates: Vec<usize>,
}

impl Page<'_> {
    /// Takes a snapshot of the view's tab (upstream's algorithm, contract §4) and updates the
    /// tab's refs.
    pub async fn snapshot(&self, options: &SnapshotOptions) -> Result<Snapshot> {
        let (tab, _, timeout) = self.parts();
        let snapshot = tab
            .guarded(
                "snapshot",
                // Boxed: the whole read (AX tree or walker, frames, watcher) is a large future.
                Box::pin(self.session.snapshot_on(&tab, options, timeout)),
            )
            .await?;
        let text = snapshot.snapshot.clone();
        self.session
            .refs
            .with_tab(tab.target_id(), |t| t.last_snapshot = Some(text));
        Ok(snapshot)
    }

    /// `diff snapshot`: takes a snapshot and diffs it against `baseline` — a file path when such
    /// a file exists, else the text itself — or, without one, against the previous snapshot of
    /// the tab (empty when there was none).
    pub async fn diff_snapshot(
        &self,
        options: &SnapshotOptions,
        baseline: Option<&str>,
    ) -> Result<SnapshotDiff> {
        let before = match baseline {
            Some(b) => match std::fs::read_to_string(b) {
                Ok(text) => text,
                Err(_) => b.to_string(),
            },
            None => {
                let tab = &self.tab;
                self.session
                    .refs
                    .with_tab(tab.target_id(), |t| t.last_snapshot.clone())
                    .map(|text| text.to_string())
                    .unwrap_or_default()
            }
        };
        let after = self.snapshot(options).await?.snapshot;
        Ok(diff_text(&before, &after))
    }

    /// `snapshot --delta [--full]`: takes a snapshot (refs update as for
    /// [`Page::snapshot`]) and reports it against the tab's previous delta snapshot with the
    /// same options and frame.
    pub async fn snapshot_delta(
        &self,
        options: &SnapshotOptions,
        full: bool,
    ) -> Result<DeltaSnapshot> {
        let snapshot = self.snapshot(options).await?;
        let tab = &self.tab;
        let frame = self.session.selected_frame_of(tab);
        let key = format!("{options:?}|{frame:?}");
        let delta = self.session.refs.with_tab(tab.target_id(), |t| {
            t.deltas.record(
                key,
                &snapshot.origin,
                snapshot.snapshot.to_string(),
                snapshot.refs.as_ref().clone(),
                full,
            )
        });
        Ok(DeltaSnapshot {
            origin: snapshot.origin,
            snapshot: delta,
        })
    }

    /// The frames of the view's tab (by frame id) whose current document has the snapshot's
    /// world that Chrome made with it, as the tab's event pump reported them (for tests).
    #[doc(hidden)]
    pub fn snapshot_worlds_made_at_load(&self) -> Vec<String> {
        let mut frames: Vec<String> = self
            .tab
            .read(|st| st.snapshot_worlds.keys().cloned().collect());
        frames.sort();
        frames
    }

    /// The view's live refs as (ref, walked): whether the walker read the node's document
    /// (its ref is keyed by a walker key) rather than Chrome's tree (for tests).
    #[doc(hidden)]
    pub fn refs_walked(&self) -> Vec<(String, bool)> {
        self.session
            .refs
            .live(self.tab.target_id())
            .into_iter()
            .map(|r| (r.name, walker::unkey(r.backend_node_id).is_some()))
            .collect()
    }

    /// Whether the walker can answer for the view's top document: `None` when it can, else the
    /// page feature it cannot map (for the equality harness and the ADR's figures).
    #[doc(hidden)]
    pub async fn snapshot_walker_verdict(&self) -> Result<Option<String>> {
        let (tab, _, timeout) = self.parts();
        let world = self
            .session
            .watch_world(&tab, timeout)
            .await
            .ok_or_else(|| EngineError::Chrome("no isolated world for the walker".into()))?;
        let walk = in_world(world, WALKER_FN.call_on("document", &[]), true);
        let reply = tab.cdp().call_within(walk, timeout).await?;
        let text = reply
            .result
            .value
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Ok(match decode(&text) {
            Some(Walked::Tree { .. }) => None,
            Some(Walked::Unsupported(reason)) => Some(reason),
            None => Some(format!("undecodable answer: {text:.80}")),
        })
    }
}

impl Session {
    async fn snapshot_on(
        &self,
        tab: &Tab,
        options: &SnapshotOptions,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let realm = self.realm(tab, timeout).await?;
        if realm.frame_id.is_some() {
            return self.snapshot_frame(tab, &realm, options, timeout).await;
        }
        let fast_path = watch::enabled();
        if fast_path && let Some(unchanged) = self.unchanged_snapshot(tab, options, timeout).await {
            return Ok(Snapshot {
                origin: self.origin_of(tab),
                ..unchanged
            });
        }
        // Read before the watchers are armed: a change they tell of while the page is read
        // counts against the snapshot kept below.
        let pushes = tab.read(|st| st.snapshot_pushes);
        let session = tab.cdp();
        let walker = options
            .source
            .walks(self.refs.with_tab(tab.target_id(), |t| t.last_tree_nodes));
        // The walker's `-s` subtree is read in its world once it has walked.
        let mut subtree = match &options.selector {
            Some(selector) if !walker => {
                Some(selector_subtree(session, None, selector, timeout).await?)
            }
            _ => None,
        };
        let world = match fast_path || walker {
            true => self.watch_world(tab, timeout).await,
            false => None,
        };
        let watch_world = world.filter(|_| fast_path);
        // A page of unknown size may be small: `Auto` leaves a small one to Chrome's tree.
        let leave_small = matches!(options.source, SnapshotSource::Auto);
        let walker_world = world.filter(|_| walker).map(|w| (w, leave_small));
        let mut main = capture(
            session,
            &Scope::Top,
            walker_world,
            watch_world,
            false,
            timeout,
        )
        .await?;
        if walker && let Some(selector) = &options.selector {
            subtree = Some(match main.walked {
                Some(world) => walker::subtree(session, world, selector, timeout).await?,
                None => selector_subtree(session, None, selector, timeout).await?,
            });
        }

        // Tie the refs to the document the pump reports; give it a moment to catch up with a
        // navigation that committed just before the snapshot.
        if tab.read(|st| st.loader_id != main.loader) && !main.loader.is_empty() {
            let loader = main.loader.clone();
            let _ = tab
                .wait_state("snapshot", Instant::now() + DOCUMENT_SETTLE, true, |st| {
                    st.loader_id == loader
                })
                .await;
        }
        let epoch = tab.read(|st| st.documents);
        let main_document = DocumentId {
            frame: FrameKey::MAIN,
            loader: main.loader.clone(),
            epoch,
            session: None,
        };
        // The previous refs of this document keyed in the other source's space (the walker
        // answered then and not now, or the other way round) are translated, so their nodes
        // keep their refs.
        let previous = self.refs.document_keys(tab.target_id(), &main_document);
        let translated = walker::translate(session, previous, main.walked, timeout).await;
        if !translated.is_empty() {
            self.refs
                .rekey(tab.target_id(), &main_document, &translated);
        }

        let tree_nodes = main.tree.nodes.len();
        self.refs
            .with_tab(tab.target_id(), |t| t.last_tree_nodes = Some(tree_nodes));
        main.tree.promote_hidden_inputs(&main.cursor);
        let main_candidates = main.tree.ref_candidates(&main.cursor);
        let roots = match &subtree {
            Some(ids) => {
                let roots = main.tree.subtree_roots(ids);
                if roots.is_empty() {
                    return Err(EngineError::Page(format!(
                        "No accessibility node found for selector '{}'",
                        options.selector.as_deref().unwrap_or_default()
                    )));
                }
                roots
            }
            None => main.tree.roots.clone(),
        };

        let children = self
            .capture_children(
                tab,
                &main,
                &main_candidates,
                fast_path,
                options.source,
                timeout,
            )
            .await;
        // The answer is kept when every document in it is watched: the main one and each
        // frame's.
        let iframes = main_candidates
            .iter()
            .filter(|&&i| main.tree.nodes[i].role == "Iframe")
            .count();
        let frame_watches: Vec<watch::FrameWatch> =
            children.iter().filter_map(|c| c.watch.clone()).collect();
        let keep = main.armed && frame_watches.len() == iframes;

        // Refs: main frame first, then each child frame, each in array order.
        let mut documents = vec![main_document];
        let mut requests = Vec::new();
        let request = |tree: &Tree, idx: usize, document: usize| RefRequest {
            document,
            backend_node_id: tree.nodes[idx].backend.unwrap_or_default(),
            role: tree.nodes[idx].role.clone(),
            label: tree.nodes[idx].name.clone(),
        };
        requests.extend(main_candidates.iter().map(|&i| request(&main.tree, i, 0)));
        for child in &children {
            documents.push(child.document.clone());
            let n = documents.len() - 1;
            requests.extend(
                child
                    .candidates
                    .iter()
                    .map(|&i| request(&child.capture.tree, i, n)),
            );
        }
        let assigned = self.refs.assign(tab.target_id(), &documents, &requests);
        let mut refs = BTreeMap::new();
        for (request, name) in requests.iter().zip(&assigned.names) {
            refs.insert(
                name.clone(),
                RefInfo {
                    role: request.role.clone(),
                    name: request.label.clone(),
                },
            );
        }
        let (main_names, mut rest) = assigned
            .names
            .split_at(main_candidates.len().min(assigned.names.len()));
        apply_refs(&mut main.tree, &main.cursor, &main_candidates, main_names);

        let render = render_options(options);
        let mut output = main.tree.render(&roots, render);
        for mut child in children {
            let (names, tail) = rest.split_at(child.candidates.len().min(rest.len()));
            rest = tail;
            apply_refs(
                &mut child.capture.tree,
                &child.capture.cursor,
                &child.candidates,
                names,
            );
            let mut text = child.capture.tree.render(&child.capture.tree.roots, render);
            if options.compact {
                text = tree::compact(&text, options.interactive);
            }
            let text = text.trim();
            if text.is_empty() || text == "(no interactive elements)" {
                continue;
            }
            if let Some(iframe_ref) = &main.tree.nodes[child.iframe_node].reference {
                tree::insert_frame(&mut output, iframe_ref, text);
            }
        }
        if options.compact {
            output = tree::compact(&output, options.interactive);
        }
        let snapshot = Snapshot {
            snapshot: finish(&output, options).into(),
            origin: self.origin_of(tab),
            refs: Arc::new(refs),
            removed_refs: assigned.removed,
        };
        tracing::debug!(armed = main.armed, keep, "snapshot read in full");
        if keep {
            self.keep_snapshot(tab, options, &main.loader, &snapshot, frame_watches, pushes);
        }
        Ok(snapshot)
    }

    /// The watcher of a child frame read as `capture` with `world` (from
    /// [`Session::frame_world`]), when it was armed in that frame's current document.
    fn frame_watcher(
        &self,
        tab: &Tab,
        frame_id: &str,
        world: Option<(i64, Option<String>)>,
        capture: &Capture,
        session: &abx_cdp::Session,
    ) -> Option<watch::FrameWatch> {
        let (context, made_in) = world?;
        let current = self.settle_frame_world(tab, frame_id, context, made_in, &capture.loader);
        (current && capture.armed).then(|| watch::FrameWatch {
            session: session.clone(),
            context,
        })
    }

    /// Reads the child frames behind the main document's `Iframe` nodes (one level deep, like
    /// upstream). A frame that cannot be read is left out, as upstream does. With `watch`, each
    /// frame's unchanged-page watcher is armed in a world of its own document before it is
    /// read. Each frame is walked in that world as the main document is (`source`; a small
    /// frame is left to Chrome's tree under `Auto`), else read from Chrome's tree.
    async fn capture_children(
        &self,
        tab: &Tab,
        main: &Capture,
        candidates: &[usize],
        watch: bool,
        source: SnapshotSource,
        timeout: Duration,
    ) -> Vec<ChildFrame> {
        let leave_small = source.frame_walker();
        let world_needed = watch || leave_small.is_some();
        // A frame's world, as the walker's (with the small-frame rule) and as the watcher's.
        let worlds = |world: &Option<(i64, Option<String>)>| {
            let context = world.as_ref().map(|w| w.0);
            (context.zip(leave_small), context.filter(|_| watch))
        };
        let iframes: Vec<(usize, i64)> = candidates
            .iter()
            .filter(|&&i| main.tree.nodes[i].role == "Iframe")
            .filter_map(|&i| main.tree.nodes[i].backend.map(|b| (i, b)))
            .collect();
        if iframes.is_empty() {
            return Vec::new();
        }
        let session = tab.cdp();
        let described = futures_util::future::join_all(iframes.iter().map(|(_, backend)| {
            let describe = dom::DescribeNodeParams {
                backend_node_id: Some(dom::BackendNodeId::new(*backend)),
                depth: Some(1),
                ..Default::default()
            };
            async move {
                // An iframe the walker read is named by its walker key.
                if walker::unkey(*backend).is_some() {
                    return walker::described(session, *backend, Some(1), timeout).await;
                }
                session
                    .call_as::<_, scan::Described>(&describe, Some(timeout))
                    .await
                    .ok()
                    .map(|d| d.node)
            }
        }))
        .await;
        // Each iframe: its node, its frame id, and its document's node when the frame is in
        // this renderer (a cross-site frame's document is in another one: no node here).
        let frames: Vec<(usize, String, Option<i64>)> = iframes
            .iter()
            .zip(described)
            .filter_map(|((idx, _), node)| {
                let node = node?;
                let frame_id = node
                    .pointer("/contentDocument/frameId")
                    .or_else(|| node.get("frameId"))
                    .and_then(Value::as_str)?
                    .to_string();
                let document = node
                    .pointer("/contentDocument/backendNodeId")
                    .and_then(Value::as_i64);
                Some((*idx, frame_id, document))
            })
            .collect();
        // Auto-attach is turned on once, before the frames are read side by side.
        let cross_site = frames.iter().any(|(_, _, document)| document.is_none())
            && self.ensure_frame_sessions(tab, timeout).await.is_ok();
        // Every frame at once: same-site frames queue in this renderer, cross-site ones run in
        // their own.
        let read = frames.into_iter().map(|(idx, frame_id, document)| async move {
            let captured = match document {
                Some(document_backend) => {
                    let scope = Scope::Child {
                        frame_id: frame_id.clone(),
                        document_backend,
                        loader: main.child_loaders.get(&frame_id).cloned(),
                    };
                    let world = match world_needed {
                        true => self.frame_world(tab, session, &frame_id, timeout).await,
                        false => None,
                    };
                    let (walker, watch_world) = worlds(&world);
                    capture(session, &scope, walker, watch_world, true, timeout)
                        .await
                        .map(|c| {
                            let watcher = self.frame_watcher(tab, &frame_id, world, &c, session);
                            // The main capture's loader for this frame when it had one.
                            let loader = c.loader.clone();
                            (
                                c,
                                DocumentId {
                                    frame: FrameKey(Some(frame_id.clone())),
                                    loader,
                                    epoch: 0,
                                    session: None,
                                },
                                watcher,
                                session.clone(),
                            )
                        })
                }
                None => {
                    if !cross_site {
                        return None;
                    }
                    let frame_session =
                        self.frame_session(tab, &frame_id, FRAME_ATTACH_WAIT).await?;
                    let budget = timeout.min(FRAME_BUDGET);
                    let world = match world_needed {
                        true => {
                            self.frame_world(tab, &frame_session, &frame_id, budget)
                                .await
                        }
                        false => None,
                    };
                    let (walker, watch_world) = worlds(&world);
                    tokio::time::timeout(
                        budget,
                        capture(&frame_session, &Scope::Top, walker, watch_world, true, budget),
                    )
                    .await
                    .unwrap_or_else(|_| {
                        Err(EngineError::Timeout {
                            what: "cross-site frame snapshot".into(),
                            after: budget,
                        })
                    })
                    .map(|c| {
                        let document = DocumentId {
                            frame: FrameKey(Some(frame_id.clone())),
                            loader: c.loader.clone(),
                            epoch: 0,
                            session: frame_session.id().map(str::to_string),
                        };
                        let watcher =
                            self.frame_watcher(tab, &frame_id, world, &c, &frame_session);
                        (c, document, watcher, frame_session.clone())
                    })
                }
            };
            match captured {
                Ok((mut capture, document, watch, frame_session)) => {
                    // As for the main document: refs keyed in the other source's space are
                    // translated, so a frame that switched between the walker and Chrome's
                    // tree keeps its refs.
                    let previous = self.refs.document_keys(tab.target_id(), &document);
                    let translated =
                        walker::translate(&frame_session, previous, capture.walked, timeout)
                            .await;
                    if !translated.is_empty() {
                        self.refs.rekey(tab.target_id(), &document, &translated);
                    }
                    capture.tree.promote_hidden_inputs(&capture.cursor);
                    let candidates = capture.tree.ref_candidates(&capture.cursor);
                    Some(ChildFrame {
                        iframe_node: idx,
                        watch,
                        capture,
                        document,
                        candidates,
                    })
                }
                Err(err) => {
                    tracing::debug!(%err, frame = %frame_id, "child frame left out of the snapshot");
                    None
                }
            }
        });
        futures_util::future::join_all(read)
            .await
            .into_iter()
            .flatten()
            .collect()
    }
}
