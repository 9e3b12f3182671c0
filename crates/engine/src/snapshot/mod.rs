//! `snapshot`: the page's accessibility tree as upstream prints it, with refs (contract §4).
//!
//! One snapshot of a tab is, per frame document: one `Accessibility.getFullAXTree`, one
//! cursor-interactive scan ([`scan`]), and the frame tree for document identity — sent together,
//! so the common case costs about three round trips. Child frames are snapshotted one level deep
//! (same-process frames through the tab's session with `frameId`, cross-site frames through their
//! own session, see [`frames`]) and inserted under their `Iframe` line. Refs are assigned in
//! `getFullAXTree` array order, main frame first, by the session's [`RefStore`](crate::refs::RefStore),
//! which keeps a surviving node's ref across snapshots of the same document.
//!
//! Deliberate differences from upstream 0.41.2, each a fix:
//! - the cursor scan of a child frame runs in that frame's document (upstream scans the top
//!   document again, so clickable `div`s inside iframes never get refs);
//! - with `-s`, child frames inside the selected subtree are still expanded (upstream drops them);
//! - `diff snapshot` compares with the previous snapshot of the tab, not with an empty text;
//! - `-s` roots are nodes with no AX *ancestor* in the selected subtree (upstream checks the parent
//!   only and prints a `<select>`'s options a second time);
//! - names turn no-break spaces into spaces (upstream's newer sources do; 0.33.2 dropped them);
//! - `-u` prints the URLs of links inside cross-site (out-of-process) frames too (upstream
//!   prints none for them on full Chromium; `tests/snapshot_upstream.rs` exempts exactly that);
//! - an AX node without a DOM node gets no ref (it could never be acted on); Chrome gives every
//!   ref-worthy node one, so numbering is unaffected in practice.

pub(crate) mod delta;
pub(crate) mod frames;
pub(crate) mod scan;
mod scoped;
mod take;
pub(crate) mod tree;
pub(crate) mod walker;
pub(crate) mod watch;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::{accessibility, dom, page};
use abx_cdp::protocol::js_protocol::runtime;
use serde::Serialize;
use serde_json::Value;

use crate::error::{EngineError, Result};
use scan::Cleanup;
use tree::{CursorInfo, RawTree, Render, Tree};

/// How to snapshot (the `snapshot` command's flags).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// `-i`: only nodes with refs.
    pub interactive: bool,
    /// `-c`: only lines with a ref or a value, and their ancestors.
    pub compact: bool,
    /// `-d N`: only lines indented at most `N` levels.
    pub max_depth: Option<usize>,
    /// `-s CSS`: only the subtree of the first match.
    pub selector: Option<String>,
    /// `-u`: print each link's URL.
    pub urls: bool,
    /// Where the tree comes from.
    pub source: SnapshotSource,
}

/// Where a snapshot reads each frame's accessibility tree from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotSource {
    /// Chrome's own tree (`Accessibility.getFullAXTree`), the reference.
    Accessibility,
    /// The in-page walker where it can answer exactly, Chrome's tree elsewhere (ADR 0018).
    Walker,
    /// The walker, except on a tab whose last snapshot read a small tree (under
    /// [`SMALL_TREE_NODES`] nodes): there Chrome's tree answers a few ms sooner than the walker
    /// (ADR 0018, "Small pages").
    #[default]
    Auto,
}

/// Below this many nodes in the tab's last tree, [`SnapshotSource::Auto`] reads Chrome's tree.
pub(crate) const SMALL_TREE_NODES: usize = 500;

impl SnapshotSource {
    /// Whether a snapshot tries the walker first, given the size of the tab's last tree
    /// (`None`: no snapshot of the tab yet, so its size is unknown and the walker goes first).
    pub(crate) fn walks(self, last_tree_nodes: Option<usize>) -> bool {
        match self {
            SnapshotSource::Accessibility => false,
            SnapshotSource::Walker => true,
            SnapshotSource::Auto => last_tree_nodes.is_none_or(|nodes| nodes >= SMALL_TREE_NODES),
        }
    }

    /// For a child frame: `None` when it reads Chrome's tree, else whether a small one is left
    /// to Chrome's tree (its size is read in the page, as a first snapshot's).
    pub(crate) fn frame_walker(self) -> Option<bool> {
        match self {
            SnapshotSource::Accessibility => None,
            SnapshotSource::Walker => Some(false),
            SnapshotSource::Auto => Some(true),
        }
    }
}

/// What a ref names, as reported in the snapshot's `refs` map.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RefInfo {
    /// The role as printed.
    pub role: String,
    /// The accessible name (empty when it has none).
    pub name: String,
}

/// A snapshot; serializes to upstream's `data`:
/// `{"snapshot": "<text>", "origin": "<url>", "refs": {"e1": {"role", "name"}}, "removedRefs": ["@e5"]}`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Snapshot {
    /// The tree text, or `(empty page)` / `(no interactive elements)`.
    pub snapshot: Arc<str>,
    /// The page URL.
    pub origin: String,
    /// Every live ref of the tab (keys without `@`). Shared: an unchanged page's next snapshot
    /// answers with the same map, so a caller can tell it is the same (`Arc::ptr_eq`) and
    /// reuse whatever it made of it (the daemon reuses its encoding).
    pub refs: Arc<BTreeMap<String, RefInfo>>,
    /// Refs of the previous snapshot of the tab that are gone (`@`-prefixed).
    #[serde(rename = "removedRefs")]
    pub removed_refs: Vec<String>,
}

/// The result of `diff snapshot`; serializes to upstream's
/// `{"changed", "diff", "additions", "removals", "unchanged"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SnapshotDiff {
    /// Whether anything changed.
    pub changed: bool,
    /// A unified diff (`--- before` / `+++ after`, 3 lines of context); empty when unchanged.
    pub diff: String,
    /// Added lines.
    pub additions: usize,
    /// Removed lines.
    pub removals: usize,
    /// Unchanged lines.
    pub unchanged: usize,
}

/// How long a snapshot waits for the tab's event pump to report the document it just read.
const DOCUMENT_SETTLE: Duration = Duration::from_secs(1);
/// How long a snapshot waits for a cross-site frame's session to attach.
const FRAME_ATTACH_WAIT: Duration = Duration::from_millis(500);
/// How long a cross-site frame (its own renderer, which may be busy or hung while the page is
/// fine) may take before the snapshot goes on without its content.
const FRAME_BUDGET: Duration = Duration::from_secs(5);

/// One frame document, read.
struct Capture {
    tree: Tree,
    cursor: HashMap<i64, CursorInfo>,
    /// The document's loader id (from the frame tree).
    loader: String,
    /// Loader ids of same-process child frames, by frame id.
    child_loaders: HashMap<String, String>,
    /// The unchanged-page watcher was armed before the tree was read ([`watch`]).
    armed: bool,
    /// The isolated world the walker read the tree in, when it did: the tree's nodes carry
    /// walker keys instead of backendNodeIds ([`walker`]).
    walked: Option<i64>,
}

/// Where a capture runs.
enum Scope {
    /// The session's own top document (the tab's main frame, or an out-of-process frame through
    /// its own session).
    Top,
    /// A same-process child frame, through the tab's session.
    Child {
        frame_id: String,
        document_backend: i64,
        /// Its document's loader id when the main document's capture read it: the frame tree
        /// is then not read again, nor the document root (the main capture requested it).
        loader: Option<String>,
    },
}

fn loaders(tree: &page::FrameTree, out: &mut HashMap<String, String>) {
    out.insert(
        tree.frame.id.as_ref().to_string(),
        tree.frame.loader_id.as_ref().to_string(),
    );
    for child in tree.child_frames.iter().flatten() {
        loaders(child, out);
    }
}

fn collect_backend_ids(node: &Value, ids: &mut HashSet<i64>) {
    if let Some(id) = node.get("backendNodeId").and_then(Value::as_i64) {
        ids.insert(id);
    }
    for key in ["children", "shadowRoots"] {
        for child in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_backend_ids(child, ids);
        }
    }
    if let Some(doc) = node.get("contentDocument") {
        collect_backend_ids(doc, ids);
    }
}

/// Reads one frame document: AX tree (or the walker's, in the isolated world `walker_world`
/// when given), cursor scan, frame tree, all sent at once — after arming the unchanged-page
/// watcher in `watch_world` when given (sent first, so a change while the tree is read counts).
///
/// `walker_world`'s flag leaves a small document to Chrome's tree. When the watcher is armed in
/// the walker's own world, a child frame (`sized`) learns its size from the arm's answer and
/// sends the walker or Chrome's tree after it, instead of a call that only counts: a page of
/// many small frames makes no more calls than with Chrome's tree alone.
async fn capture(
    session: &CdpSession,
    scope: &Scope,
    walker_world: Option<(i64, bool)>,
    watch_world: Option<i64>,
    sized: bool,
    timeout: Duration,
) -> Result<Capture> {
    let (ax_params, cleanup) = match scope {
        Scope::Top => (accessibility::GetFullAxTreeParams::default(), Cleanup::Top),
        Scope::Child {
            frame_id,
            document_backend,
            ..
        } => {
            let resolve = dom::ResolveNodeParams {
                backend_node_id: Some(dom::BackendNodeId::new(*document_backend)),
                ..Default::default()
            };
            let resolved = session.call_within(resolve, timeout).await?;
            let document = resolved
                .object
                .object_id
                .map(String::from)
                .unwrap_or_default();
            let ax = accessibility::GetFullAxTreeParams {
                frame_id: Some(frame_id.clone().into()),
                ..Default::default()
            };
            (ax, Cleanup::Frame { document })
        }
    };
    // The scan's value, or `None` when it threw.
    let scan_reply = async {
        let (result, exception) = match &cleanup {
            Cleanup::Top => {
                let scan = crate::js::evaluate(scan::SCAN_FN.call_on("document", &[]));
                let reply = session.call_within(scan, timeout).await?;
                (reply.result, reply.exception_details)
            }
            Cleanup::Frame { document } => {
                let scan = crate::js::call_on(document, scan::SCAN_FN, &[]);
                let reply = session.call_within(scan, timeout).await?;
                (reply.result, reply.exception_details)
            }
        };
        Ok::<_, abx_cdp::Error>(exception.is_none().then_some(result.value).flatten())
    };
    // A child frame read after the main document needs neither the document root nor the
    // frame tree: each is a call the renderer runs in turn, for every frame.
    let known_loader = match scope {
        Scope::Child { loader, .. } => loader.clone(),
        Scope::Top => None,
    };
    let document = async {
        match known_loader {
            Some(_) => None,
            None => Some(
                session
                    .call_within(
                        dom::GetDocumentParams {
                            depth: Some(0),
                            ..Default::default()
                        },
                        timeout,
                    )
                    .await,
            ),
        }
    };
    // Sent after the scan, so the walker sees the scan's tags. `elements`: the document's size
    // when the arm told it (the walker then needs no size check of its own).
    let read_tree = |elements: Option<usize>| async move {
        let walker_world = match (walker_world, elements) {
            (Some((_, true)), Some(n)) if n < walker::SMALL_PAGE_ELEMENTS => None,
            (Some((world, leave_small)), n) => Some((world, leave_small && n.is_none())),
            (None, _) => None,
        };
        if let Some((world, leave_small)) = walker_world
            && let Some(walk) = walker::capture(session, world, leave_small, timeout).await
        {
            return Ok((walk.tree, Some((world, walk.tagged))));
        }
        // Own reply type: a whole AX tree, of which the tree builder reads a few fields.
        let ax = session
            .call_as::<_, RawTree>(&ax_params, Some(timeout))
            .await;
        ax.map(|raw| (Tree::build(raw.nodes), None))
    };
    let sized =
        sized && matches!((walker_world, watch_world), (Some((w, true)), Some(a)) if w == a);
    let frame_tree = async {
        match known_loader {
            Some(_) => None,
            None => Some(
                session
                    .call_within(page::GetFrameTreeParams::default(), timeout)
                    .await,
            ),
        }
    };
    let arm = async {
        match watch_world {
            Some(context) if sized => session
                .call_within(watch::arm_sized(context), timeout)
                .await
                .map_or((false, None), |reply| watch::armed_size(&reply)),
            Some(context) => {
                let armed = session
                    .call_within(watch::watch_call(context, "arm"), timeout)
                    .await
                    .is_ok_and(|reply| watch::answered_yes(&reply));
                (armed, None)
            }
            None => (false, None),
        }
    };
    let (armed, scan_reply, document, frame_tree, tree) = if sized {
        let arm_then_tree = async {
            let (armed, elements) = arm.await;
            (armed, read_tree(elements).await)
        };
        let ((armed, tree), scan_reply, document, frame_tree) =
            futures_util::join!(arm_then_tree, scan_reply, document, frame_tree);
        (armed, scan_reply, document, frame_tree, tree)
    } else {
        let ((armed, _), scan_reply, document, frame_tree, tree) =
            futures_util::join!(arm, scan_reply, document, frame_tree, read_tree(None));
        (armed, scan_reply, document, frame_tree, tree)
    };

    let (tree, walked) = tree?;
    let mut child_loaders = HashMap::new();
    if let Some(Ok(frame_tree)) = &frame_tree {
        loaders(&frame_tree.frame_tree, &mut child_loaders);
    }
    let loader = match (scope, &known_loader) {
        (_, Some(known)) => known.clone(),
        (Scope::Top, None) => frame_tree
            .as_ref()
            .and_then(|t| t.as_ref().ok())
            .map(|t| t.frame_tree.frame.loader_id.as_ref().to_string())
            .unwrap_or_default(),
        (Scope::Child { frame_id, .. }, None) => {
            child_loaders.get(frame_id).cloned().unwrap_or_default()
        }
    };

    // The scan is best effort, like upstream: a page whose script cannot run still snapshots.
    let found = match &scan_reply {
        Ok(Some(value)) => scan::decode(value),
        _ => Vec::new(),
    };
    let cursor = if found.is_empty() {
        HashMap::new()
    } else if let Some((_, tagged)) = walked.as_ref() {
        // The walker read the tags: its keys stand for the elements.
        cleanup.send(session).await;
        let mut found: Vec<Option<CursorInfo>> = found.into_iter().map(Some).collect();
        tagged
            .iter()
            .filter_map(|&(index, key)| Some((key, found.get_mut(index)?.take()?)))
            .collect()
    } else {
        let root = match (&document, &cleanup) {
            (Some(Ok(doc)), Cleanup::Top) => Some(*doc.root.node_id.inner()),
            // A child frame's root: its document object as a node (the main capture, or the
            // call above, made the DOM agent hold the document).
            (None | Some(Ok(_)), Cleanup::Frame { document }) => {
                let request = dom::RequestNodeParams::new(document.clone());
                session
                    .call_within(request, timeout)
                    .await
                    .ok()
                    .map(|r| *r.node_id.inner())
            }
            (Some(Err(_)) | None, _) => None,
        };
        match root {
            Some(root) => scan::resolve(session, root, found, cleanup, timeout)
                .await
                .unwrap_or_default(),
            None => {
                cleanup.send(session).await;
                HashMap::new()
            }
        }
    };
    Ok(Capture {
        tree,
        cursor,
        loader,
        child_loaders,
        armed,
        walked: walked.map(|(world, _)| world),
    })
}

/// The backendNodeIds of the DOM subtree under the first match of `selector` (`-s`).
async fn selector_subtree(
    session: &CdpSession,
    context: Option<i64>,
    selector: &str,
    timeout: Duration,
) -> Result<HashSet<i64>> {
    let expression = format!(
        "document.querySelector({})",
        serde_json::to_string(selector).unwrap_or_default()
    );
    let find = runtime::EvaluateParams {
        context_id: context.map(runtime::ExecutionContextId::new),
        return_by_value: Some(false),
        ..runtime::EvaluateParams::new(expression)
    };
    let reply = session.call_within(find, timeout).await?;
    if let Some(details) = &reply.exception_details {
        return Err(EngineError::Invalid(format!(
            "Invalid selector '{selector}': {}",
            crate::js::exception_text(details)
        )));
    }
    let no_match = || EngineError::Page(format!("Selector '{selector}' did not match any element"));
    let object = crate::js::element_object(&reply.result).ok_or_else(no_match)?;
    let describe = dom::DescribeNodeParams {
        object_id: Some(object.clone().into()),
        depth: Some(-1),
        ..Default::default()
    };
    let described = session
        .call_as::<_, scan::Described>(&describe, Some(timeout))
        .await;
    let _ = session
        .send(&runtime::ReleaseObjectParams::new(object))
        .await;
    let mut ids = HashSet::new();
    collect_backend_ids(&described?.node, &mut ids);
    if ids.is_empty() {
        return Err(no_match());
    }
    Ok(ids)
}

fn render_options(options: &SnapshotOptions) -> Render {
    Render {
        interactive: options.interactive,
        max_depth: options.max_depth,
        urls: options.urls,
    }
}

/// Upstream's empty-result texts.
fn finish(text: &str, options: &SnapshotOptions) -> String {
    let trimmed = text.trim();
    if !trimmed.is_empty() {
        return trimmed.to_string();
    }
    if options.interactive {
        "(no interactive elements)"
    } else {
        "(empty page)"
    }
    .to_string()
}

/// Marks the ref'd nodes of a tree.
fn apply_refs(
    tree: &mut Tree,
    cursor: &HashMap<i64, CursorInfo>,
    candidates: &[usize],
    names: &[String],
) {
    for (&idx, name) in candidates.iter().zip(names) {
        let node = &mut tree.nodes[idx];
        node.reference = Some(name.clone());
        if let Some(info) = node.backend.and_then(|b| cursor.get(&b))
            && (!info.hints.is_empty() || info.hidden_input.is_some())
        {
            node.cursor = Some(info.clone());
        }
    }
}

/// Line diff in upstream's format (Myers via `similar`, unified, 3 lines of context).
pub fn diff_text(before: &str, after: &str) -> SnapshotDiff {
    let diff = similar::TextDiff::from_lines(before, after);
    let (mut additions, mut removals, mut unchanged) = (0, 0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => additions += 1,
            similar::ChangeTag::Delete => removals += 1,
            similar::ChangeTag::Equal => unchanged += 1,
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header("before", "after")
        .to_string();
    SnapshotDiff {
        changed: additions > 0 || removals > 0,
        diff: text,
        additions,
        removals,
        unchanged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_source_reads_chromes_tree_only_after_a_small_tree_on_the_tab() {
        let auto = SnapshotSource::Auto;
        assert!(auto.walks(None), "unknown size: the walker first");
        assert!(auto.walks(Some(SMALL_TREE_NODES)));
        assert!(auto.walks(Some(30_000)));
        assert!(!auto.walks(Some(SMALL_TREE_NODES - 1)));
        assert!(!auto.walks(Some(40)));
        assert!(SnapshotSource::Walker.walks(Some(40)), "forced walker");
        assert!(!SnapshotSource::Accessibility.walks(None));
        assert!(!SnapshotSource::Accessibility.walks(Some(30_000)));
        assert_eq!(SnapshotSource::default(), SnapshotSource::Auto);
    }

    #[test]
    fn diff_counts_lines_like_upstream() {
        let d = diff_text("line1\nline2\n", "line1\nline3\n");
        assert!(d.changed);
        assert_eq!((d.additions, d.removals, d.unchanged), (1, 1, 1));
        assert!(d.diff.starts_with("--- before\n+++ after\n"), "{}", d.diff);
        let same = diff_text("a\n", "a\n");
        assert!(!same.changed);
        assert_eq!(same.diff, "");
    }
}
