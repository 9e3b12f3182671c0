//! The in-page walker: the accessibility tree of the main document built by page JavaScript
//! (`walker.js`) instead of read from Chrome with `Accessibility.getFullAXTree`, whose reply
//! costs seconds on large pages (ADR 0018).
//!
//! The walker knows a small set of page features exactly (plain block and inline elements,
//! headings, lists, links, buttons, checkbox/radio/text inputs with `label for` or inside their
//! label, fieldsets, single-choice `select`s, images, simple data tables, `role=grid` tables,
//! named `aside`s, flex rows of blocks, ARIA lists and `span role=status`, custom elements with
//! open shadow roots and slots, walked as the flat tree) and answers "unsupported" on anything
//! else (other ARIA, other elements or attributes, other `display`s, stylesheets with generated
//! content, custom elements without an open shadow root, shadow roots on built-in elements,
//! `frame`/`object`/`embed`…); the snapshot then reads Chrome's tree for that document, which
//! stays the reference. An `iframe` is a leaf (`Iframe`, named by its title): its document is
//! read on its own. A child frame is walked the same way in the world of its own document (reached
//! through the frame's session when it is in another renderer), and left to Chrome's tree when
//! it is small (its watcher's arm tells its size); a tab scoped to a frame (`frame <sel>`)
//! always reads Chrome's tree.
//!
//! It runs in the snapshot's isolated world of the document (the watcher's, [`super::watch`]),
//! where it keeps the DOM nodes it numbered: a node's *key* stands for it in the tree where
//! Chrome's tree has a backendNodeId, and a key is resolved to a backendNodeId only when
//! something needs one ([`backend_of`]: an action on a ref, an annotated screenshot). Keys are
//! negative (`-(context << 32 | number) - 1`), so they can never be taken for a backendNodeId,
//! and carry the world they are resolved in. A node keeps its number for the life of the world
//! (one per document), so ref stability follows the same rule on both paths; when one document's
//! snapshots switch between the walker and Chrome's tree (a page change the walker refuses, or
//! one it accepts again), the previous refs are translated ([`translate`]) before refs are
//! assigned. The node array is put in `getFullAXTree`'s order (breadth first over unignored
//! nodes, ignored nodes' children in place), which is what ref numbering follows.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::dom;
use abx_cdp::protocol::js_protocol::runtime;
use serde::Deserialize;
use serde_json::{Value, json};

use super::tree::{Node, Tree};
use crate::error::{EngineError, Result};
use crate::js::PageFn;

/// The walker, evaluated in the document's isolated world. Returns JSON text:
/// `["ok", [[parent, role, name, ignored, number, prop], …], [[scan index, number], …]]` or
/// `["unsupported", reason]`.
/// Below this many elements, a page of unknown size is read from Chrome's tree, which is cheap
/// there (its first snapshot; later ones go by the size of the last tree, see
/// `SnapshotSource::walks`).
pub(crate) const SMALL_PAGE_ELEMENTS: usize = 250;

pub(crate) const WALKER_FN: PageFn = PageFn::new(include_str!("walker.js"));

/// The node the walker numbered `number` (`undefined` once the page let it go).
const NODE_FN: PageFn = PageFn::new(
    "(function(number) { const s = globalThis.__abxWalk; const r = s && s.nodes[number]; return r ? r.deref() : undefined; })",
);

/// The walker's number of `this` (-1 when it has none).
const NUMBER_FN: PageFn = PageFn::new(
    "(function() { const s = globalThis.__abxWalk; const n = s && s.keys.get(this); return n === undefined ? -1 : n; })",
);

/// The numbers of the walked nodes in the subtree of the first match of a selector (`-s`);
/// `null` when nothing matches; throws as `querySelector` does on a bad selector.
const SUBTREE_FN: PageFn = PageFn::new(
    "(function(selector) { const root = document.querySelector(selector); if (!root) return null; const s = globalThis.__abxWalk; const out = []; const walker = document.createTreeWalker(root, NodeFilter.SHOW_ALL); for (let n = root; n; n = walker.nextNode()) { const k = s && s.keys.get(n); if (k !== undefined) out.push(k); } return out; })",
);

/// One node as the walker returns it.
#[derive(Deserialize)]
pub(crate) struct WalkNode(i64, String, String, u8, i64, Value);

/// The walker's answer.
pub(crate) enum Walked {
    /// The tree, and the (scan index, number) of each element the cursor scan tagged.
    Tree {
        nodes: Vec<WalkNode>,
        tagged: Vec<(usize, i64)>,
    },
    /// A page feature the walker cannot map exactly.
    Unsupported(String),
}

/// Decodes the walker's JSON text.
pub(crate) fn decode(text: &str) -> Option<Walked> {
    if text.starts_with("[\"ok\"") {
        let (_, nodes, tagged): (String, Vec<WalkNode>, Vec<(usize, i64)>) =
            serde_json::from_str(text).ok()?;
        return Some(Walked::Tree { nodes, tagged });
    }
    let (_, reason): (String, String) = serde_json::from_str(text).ok()?;
    Some(Walked::Unsupported(reason))
}

/// The key of the node the walker numbered `number` in the world `context`; `None` when either
/// does not fit.
pub(crate) fn key(context: i64, number: i64) -> Option<i64> {
    // A context id below 2^31 keeps `context << 32 | number` within i64.
    let context = i32::try_from(context).ok().filter(|&c| c >= 0)?;
    let number = u32::try_from(number).ok()?;
    Some(-(i64::from(context) << 32 | i64::from(number)) - 1)
}

/// The (world, number) a key stands for; `None` for a backendNodeId.
pub(crate) fn unkey(key: i64) -> Option<(i64, i64)> {
    let n = key.checked_add(1)?.checked_neg()?;
    (n >= 0 && key < 0).then_some((n >> 32, n & 0xffff_ffff))
}

/// A walked document: its tree (keys in place of backendNodeIds) and the keys of the elements
/// the cursor scan tagged, by scan index.
pub(crate) struct Walk {
    pub(crate) tree: Tree,
    pub(crate) tagged: Vec<(usize, i64)>,
}

/// Builds the tree from the walker's nodes, keyed in the world `context`; `None` when the
/// answer is malformed.
pub(crate) fn build(context: i64, nodes: Vec<WalkNode>) -> Option<Tree> {
    if nodes.is_empty() {
        return None;
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, node) in nodes.iter().enumerate().skip(1) {
        let parent = usize::try_from(node.0).ok().filter(|&p| p < i)?;
        children[parent].push(i);
    }
    // getFullAXTree's order: a queue of unignored nodes; each one's children follow in order,
    // an ignored child's own children right after it.
    let mut order = Vec::with_capacity(nodes.len());
    let mut queue = VecDeque::new();
    order.push(0);
    queue.push_back(0);
    fn place(
        i: usize,
        nodes: &[WalkNode],
        children: &[Vec<usize>],
        order: &mut Vec<usize>,
        queue: &mut VecDeque<usize>,
    ) {
        order.push(i);
        if nodes[i].3 != 0 {
            for &c in &children[i] {
                place(c, nodes, children, order, queue);
            }
        } else {
            queue.push_back(i);
        }
    }
    while let Some(n) = queue.pop_front() {
        for &c in &children[n] {
            place(c, &nodes, &children, &mut order, &mut queue);
        }
    }
    // Built straight into the tree's nodes, in that order, each one's children by position.
    let mut position = vec![0; nodes.len()];
    for (p, &i) in order.iter().enumerate() {
        position[i] = p;
    }
    let mut built = Vec::with_capacity(nodes.len());
    let mut links = Vec::with_capacity(nodes.len());
    let mut nodes: Vec<Option<WalkNode>> = nodes.into_iter().map(Some).collect();
    for i in order {
        let WalkNode(_, role, name, ignored, number, prop) = nodes[i].take()?;
        let backend = match number {
            -1 => None,
            n => Some(key(context, n)?),
        };
        built.push(Node::walked(role, name, ignored != 0, prop, backend));
        links.push(children[i].iter().map(|&c| position[c]).collect());
    }
    Some(Tree::link(built, links))
}

/// `Runtime.evaluate` of `expression` in the world `context`.
pub(crate) fn in_world(
    context: i64,
    expression: String,
    by_value: bool,
) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        context_id: Some(runtime::ExecutionContextId::new(context)),
        return_by_value: Some(by_value),
        ..runtime::EvaluateParams::new(expression)
    }
}

/// Walks the session's top document in the isolated world `context`. `None` when the walker
/// cannot answer exactly, or, with `leave_small`, when the document has fewer than
/// [`SMALL_PAGE_ELEMENTS`] elements: the caller then reads Chrome's tree.
pub(crate) async fn capture(
    session: &CdpSession,
    context: i64,
    leave_small: bool,
    timeout: Duration,
) -> Option<Walk> {
    let call = WALKER_FN.call_on("document", &[]);
    // Counted before the walker runs: V8 only pre-parses a function it is not about to call, so
    // a small page does not pay for compiling and running the walker (5 ms of a 20 ms first
    // snapshot on a form page) before its cheap AX read.
    let expression = match leave_small {
        true => format!(
            "document.getElementsByTagName('*').length < {SMALL_PAGE_ELEMENTS} ? '[\"unsupported\",\"small page\"]' : {call}"
        ),
        false => call,
    };
    let walk = in_world(context, expression, true);
    let reply = session.call_within(walk, timeout).await.ok()?;
    match decode(reply.result.value.as_ref()?.as_str()?)? {
        Walked::Tree { nodes, tagged } => {
            let tree = build(context, nodes)?;
            let tagged = tagged
                .into_iter()
                .filter_map(|(index, number)| Some((index, key(context, number)?)))
                .collect();
            Some(Walk { tree, tagged })
        }
        Walked::Unsupported(reason) => {
            tracing::debug!(%reason, "snapshot walker: unsupported page, reading the AX tree");
            None
        }
    }
}

/// `find role`: the walker's numbered nodes of `role` (ASCII case-insensitive) as (name, key),
/// in getFullAXTree's order, without the whole tree crossing the socket. `None` when the walker
/// cannot answer exactly: the caller then reads Chrome's tree.
pub(crate) async fn nodes_of_role(
    session: &CdpSession,
    context: i64,
    role: &str,
    timeout: Duration,
) -> Option<Vec<(String, i64)>> {
    let walk = in_world(context, WALKER_FN.call_on("document", &[json!(role)]), true);
    let reply = session.call_within(walk, timeout).await.ok()?;
    let text = reply.result.value.as_ref()?.as_str()?;
    if text.starts_with("[\"role\"") {
        let (_, found): (String, Vec<(String, i64)>) = serde_json::from_str(text).ok()?;
        return found
            .into_iter()
            .map(|(name, number)| Some((name, key(context, number)?)))
            .collect();
    }
    if let Some(Walked::Unsupported(reason)) = decode(text) {
        tracing::debug!(%reason, "find role: walker cannot answer, reading the AX tree");
    }
    None
}

/// The backendNodeId of the node behind a walker key, `None` when the page let the node go or
/// its world is gone (its document was replaced).
pub(crate) async fn backend_of(session: &CdpSession, key: i64, timeout: Duration) -> Option<i64> {
    described(session, key, None, timeout)
        .await?
        .get("backendNodeId")?
        .as_i64()
}

/// `DOM.describeNode` (to `depth`) of the node behind a walker key: an iframe's frame id and
/// content document come with `Some(1)`. `None` as for [`backend_of`].
pub(crate) async fn described(
    session: &CdpSession,
    key: i64,
    depth: Option<i64>,
    timeout: Duration,
) -> Option<Value> {
    let (context, number) = unkey(key)?;
    let find = in_world(context, NODE_FN.call(&[json!(number)]), false);
    let reply = session.call_within(find, timeout).await.ok()?;
    let object = crate::js::element_object(&reply.result)?;
    let describe = dom::DescribeNodeParams {
        object_id: Some(object.clone().into()),
        depth,
        ..Default::default()
    };
    let described = session
        .call_as::<_, super::scan::Described>(&describe, Some(timeout))
        .await;
    let _ = session
        .send(&runtime::ReleaseObjectParams::new(object))
        .await;
    Some(described.ok()?.node)
}

/// The walker key of a backendNodeId in the world `context` (`None` when the walker did not
/// number that node).
async fn key_of(
    session: &CdpSession,
    context: i64,
    backend: i64,
    timeout: Duration,
) -> Option<i64> {
    let resolve = dom::ResolveNodeParams {
        backend_node_id: Some(dom::BackendNodeId::new(backend)),
        execution_context_id: Some(runtime::ExecutionContextId::new(context)),
        ..Default::default()
    };
    let object = session
        .call_within(resolve, timeout)
        .await
        .ok()?
        .object
        .object_id?;
    let object = String::from(object);
    let number = session
        .call_within(crate::js::call_on(&object, NUMBER_FN, &[]), timeout)
        .await;
    let _ = session
        .send(&runtime::ReleaseObjectParams::new(object))
        .await;
    key(context, number.ok()?.result.value?.as_i64()?)
}

/// Translates the node keys of a document's previous refs to the key space of the snapshot
/// being taken — walker keys of the world `walked` when it is the walker's, backendNodeIds when
/// it is Chrome's tree (`None`) — so a node keeps its ref when the source changes. Keys already
/// in the right space are left out; a node that cannot be translated (gone, not numbered) is
/// too, and gets a fresh ref as a vanished node would.
pub(crate) async fn translate(
    session: &CdpSession,
    previous: Vec<i64>,
    walked: Option<i64>,
    timeout: Duration,
) -> HashMap<i64, i64> {
    let foreign: Vec<i64> = previous
        .into_iter()
        .filter(|&k| match (walked, unkey(k)) {
            (Some(world), Some((context, _))) => context != world,
            (Some(_), None) => true,
            (None, Some(_)) => true,
            (None, None) => false,
        })
        .collect();
    let translated = futures_util::future::join_all(foreign.iter().map(|&k| async move {
        // From a walker key of another world: through its backendNodeId.
        let backend = match unkey(k) {
            Some(_) => backend_of(session, k, timeout).await?,
            None => k,
        };
        match walked {
            Some(world) => key_of(session, world, backend, timeout).await,
            None => Some(backend),
        }
    }))
    .await;
    foreign
        .into_iter()
        .zip(translated)
        .filter_map(|(from, to)| Some((from, to?)))
        .collect()
}

/// The walker keys of the walked nodes under the first match of `selector` (`-s`), with the
/// errors of the Chrome-tree path for a bad or unmatched selector.
pub(crate) async fn subtree(
    session: &CdpSession,
    context: i64,
    selector: &str,
    timeout: Duration,
) -> Result<HashSet<i64>> {
    let find = in_world(context, SUBTREE_FN.call(&[json!(selector)]), true);
    let reply = session.call_within(find, timeout).await?;
    if let Some(details) = &reply.exception_details {
        return Err(EngineError::Invalid(format!(
            "Invalid selector '{selector}': {}",
            crate::js::exception_text(details)
        )));
    }
    let numbers: Vec<i64> = reply
        .result
        .value
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let keys: HashSet<i64> = numbers
        .into_iter()
        .filter_map(|n| key(context, n))
        .collect();
    if keys.is_empty() {
        return Err(EngineError::Page(format!(
            "Selector '{selector}' did not match any element"
        )));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(parent: i64, role: &str, name: &str, ignored: bool, dom: i64) -> WalkNode {
        WalkNode(
            parent,
            role.into(),
            name.into(),
            u8::from(ignored),
            dom,
            Value::Null,
        )
    }

    #[test]
    fn nodes_follow_get_full_ax_tree_order_so_ref_numbers_match() {
        // root → ignored body → [link A (text), ignored label → text, button B (text)]
        let nodes = vec![
            node(-1, "RootWebArea", "t", false, 0),
            node(0, "", "", true, 1),
            node(1, "link", "A", false, 2),
            node(2, "StaticText", "A text", false, 3),
            node(1, "", "", true, 4),
            node(4, "", "", true, 5),
            node(1, "button", "B", false, 6),
            node(6, "StaticText", "B text", false, 7),
        ];
        let tree = build(7, nodes).expect("tree");
        let order: Vec<Option<i64>> = tree
            .nodes
            .iter()
            .map(|n| n.backend.map(|k| unkey(k).expect("a walker key")))
            .map(|k| k.map(|(context, number)| context * 1000 + number))
            .collect();
        // Breadth first over unignored nodes, an ignored node's children right after it:
        // 0, 1, 2, 4, 5, 6, then 3 and 7 (ignored nodes keep no backend once built).
        let expected = [
            Some(7000),
            None,
            Some(7002),
            None,
            None,
            Some(7006),
            Some(7003),
            Some(7007),
        ];
        assert_eq!(order, expected);
        let candidates = tree.ref_candidates(&Default::default());
        let roles: Vec<&str> = candidates
            .iter()
            .map(|&i| tree.nodes[i].role.as_str())
            .collect();
        assert_eq!(roles, ["link", "button"]);
    }

    #[test]
    fn walker_keys_never_collide_with_backend_node_ids_and_name_their_world() {
        for (context, number) in [(1, 0), (3, 17), (i64::from(i32::MAX), i64::from(u32::MAX))] {
            let k = key(context, number).expect("fits");
            assert!(k < 0, "a key is negative: {k}");
            assert_eq!(unkey(k), Some((context, number)));
        }
        assert_eq!(unkey(42), None, "a backendNodeId is not a key");
        assert_eq!(unkey(0), None, "0 is no key");
        assert_eq!(key(-1, 0), None);
        assert_eq!(key(1 << 31, 0), None, "a context that would overflow");
        assert_eq!(key(1, -1), None);
    }

    #[test]
    fn a_malformed_answer_refuses() {
        let nodes = vec![
            node(-1, "RootWebArea", "", false, 0),
            node(5, "generic", "", false, 1),
        ];
        assert!(build(1, nodes).is_none(), "a parent after its child");
    }

    #[test]
    fn refusals_carry_their_reason() {
        match decode(r#"["unsupported","attribute role on div"]"#) {
            Some(Walked::Unsupported(reason)) => assert_eq!(reason, "attribute role on div"),
            _ => panic!("not decoded as a refusal"),
        }
        assert!(matches!(
            decode(r#"["ok",[[-1,"RootWebArea","",0,0,null]],[[0,3]]]"#),
            Some(Walked::Tree { tagged, .. }) if tagged == [(0, 3)]
        ));
    }
}
