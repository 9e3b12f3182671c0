//! The in-page walker: the accessibility tree of a frame document built by page JavaScript
//! (`walker.js`) instead of read from Chrome with `Accessibility.getFullAXTree`, whose reply
//! costs seconds on large pages (ADR 0018).
//!
//! The walker knows a small set of page features exactly (plain block and inline elements,
//! headings, lists, links, buttons, checkbox/radio/text inputs with `label for`, images, simple
//! data tables) and answers "unsupported" on anything else (ARIA, other elements or attributes,
//! non-default `display`, stylesheets with generated content, shadow roots, frames…); the
//! snapshot then reads Chrome's tree for that frame, which stays the reference.
//!
//! Its nodes carry their position in the DOM agent's preorder; one `DOM.describeNode` of the
//! whole document (depth -1) turns those positions into backendNodeIds, so refs key on the same
//! nodes as on the accessibility path. The node array is put in `getFullAXTree`'s order
//! (breadth first over unignored nodes, ignored nodes' children in place), which is what ref
//! numbering follows.

use std::collections::VecDeque;
use std::time::Duration;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::dom;
use abx_cdp::protocol::js_protocol::runtime;
use serde::Deserialize;
use serde_json::Value;

use super::tree::{RawNode, Tree};
use crate::js::PageFn;

/// The walker, as a function whose `this` is the document to walk. Returns JSON text:
/// `["ok", domCount, [[parent, role, name, ignored, domIndex, prop], …]]` or
/// `["unsupported", reason]`.
pub(crate) const WALKER_FN: PageFn = PageFn::new(include_str!("walker.js"));

/// One node as the walker returns it.
#[derive(Deserialize)]
pub(crate) struct WalkNode(i64, String, String, u8, i64, Value);

/// The walker's answer.
pub(crate) enum Walked {
    /// The tree, and how many DOM nodes the walker numbered.
    Tree {
        dom_count: usize,
        nodes: Vec<WalkNode>,
    },
    /// A page feature the walker cannot map exactly.
    Unsupported(String),
}

/// Decodes the walker's JSON text.
pub(crate) fn decode(text: &str) -> Option<Walked> {
    if text.starts_with("[\"ok\"") {
        let (_, dom_count, nodes): (String, usize, Vec<WalkNode>) =
            serde_json::from_str(text).ok()?;
        return Some(Walked::Tree { dom_count, nodes });
    }
    let (_, reason): (String, String) = serde_json::from_str(text).ok()?;
    Some(Walked::Unsupported(reason))
}

/// A DOM node as `DOM.describeNode` reports it, the fields the mapping reads.
#[derive(Deserialize)]
struct DomNode {
    #[serde(rename = "backendNodeId")]
    backend: i64,
    #[serde(default)]
    children: Vec<DomNode>,
    #[serde(default, rename = "shadowRoots")]
    shadow_roots: Vec<ShadowRoot>,
}

#[derive(Deserialize)]
struct ShadowRoot {
    #[serde(default, rename = "shadowRootType")]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct DescribedDocument {
    node: DomNode,
}

/// The document's backendNodeIds in the DOM agent's preorder (children only: pseudo-elements,
/// template contents, frame documents and user-agent shadow roots are not walked). `None` when
/// the document has an author shadow root (the walker cannot see a closed one).
fn preorder(node: &DomNode, out: &mut Vec<i64>) -> Option<()> {
    out.push(node.backend);
    if node
        .shadow_roots
        .iter()
        .any(|root| root.kind.as_deref() != Some("user-agent"))
    {
        return None;
    }
    for child in &node.children {
        preorder(child, out)?;
    }
    Some(())
}

/// Builds the tree from the walker's nodes and the document's backendNodeIds; `None` when the
/// two numberings disagree.
pub(crate) fn build(dom_count: usize, nodes: Vec<WalkNode>, backends: &[i64]) -> Option<Tree> {
    if backends.len() != dom_count || nodes.is_empty() {
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
    let mut raw = Vec::with_capacity(nodes.len());
    let mut nodes: Vec<Option<WalkNode>> = nodes.into_iter().map(Some).collect();
    for i in order {
        let WalkNode(_, role, name, ignored, dom, prop) = nodes[i].take()?;
        let backend = usize::try_from(dom)
            .ok()
            .map(|d| backends.get(d).copied())
            .map(|b| b.ok_or(()));
        let backend = match backend {
            None => None,
            Some(Ok(b)) => Some(b),
            Some(Err(())) => return None,
        };
        let properties = match role.as_str() {
            "heading" | "listitem" => vec![("level", prop)],
            "checkbox" | "radio" => vec![("checked", prop)],
            "link" => vec![("url", prop)],
            _ => Vec::new(),
        };
        raw.push(RawNode::from_walker(
            i.to_string(),
            ignored != 0,
            role,
            name,
            properties,
            children[i].iter().map(usize::to_string).collect(),
            backend,
        ));
    }
    Some(Tree::build(raw))
}

/// Walks one frame document (`document`: its object id, or `None` for the session's top
/// document). `None` when the walker cannot answer exactly; the caller reads Chrome's tree.
pub(crate) async fn capture(
    session: &CdpSession,
    document: Option<&str>,
    timeout: Duration,
) -> Option<Tree> {
    let walked = async {
        let reply = match document {
            None => {
                let walk = crate::js::evaluate(WALKER_FN.call_on("document", &[]));
                session.call_within(walk, timeout).await.ok()?.result
            }
            Some(object) => {
                let walk = crate::js::call_on(object, WALKER_FN, &[]);
                session.call_within(walk, timeout).await.ok()?.result
            }
        };
        decode(reply.value.as_ref()?.as_str()?)
    };
    let object = async {
        match document {
            Some(object) => Some((object.to_string(), false)),
            None => {
                let find = runtime::EvaluateParams::new("document");
                let reply = session.call_within(find, timeout).await.ok()?;
                reply.result.object_id.map(|id| (String::from(id), true))
            }
        }
    };
    let (walked, object) = futures_util::join!(walked, object);
    let release = |object: &Option<(String, bool)>| {
        object
            .as_ref()
            .filter(|(_, ours)| *ours)
            .map(|(id, _)| runtime::ReleaseObjectParams::new(id.clone()))
    };
    let (dom_count, nodes) = match walked {
        Some(Walked::Tree { dom_count, nodes }) => (dom_count, nodes),
        other => {
            if let Some(Walked::Unsupported(reason)) = other {
                tracing::debug!(%reason, "snapshot walker: unsupported page, reading the AX tree");
            }
            if let Some(release) = release(&object) {
                let _ = session.send(&release).await;
            }
            return None;
        }
    };
    let (object_id, _) = object.as_ref()?;
    let describe = dom::DescribeNodeParams {
        object_id: Some(object_id.clone().into()),
        depth: Some(-1),
        pierce: Some(true),
        ..Default::default()
    };
    let described = session
        .call_as::<_, DescribedDocument>(&describe, Some(timeout))
        .await;
    if let Some(release) = release(&object) {
        let _ = session.send(&release).await;
    }
    let described = described.ok()?;
    let mut backends = Vec::with_capacity(dom_count);
    preorder(&described.node, &mut backends)?;
    let tree = build(dom_count, nodes, &backends);
    if tree.is_none() {
        tracing::debug!("snapshot walker: DOM numbering differs, reading the AX tree");
    }
    tree
}

impl crate::session::Page<'_> {
    /// Whether the walker can answer for the view's top document: `None` when it can, else the
    /// page feature it cannot map (for the equality harness and the ADR's figures).
    #[doc(hidden)]
    pub async fn snapshot_walker_verdict(&self) -> crate::error::Result<Option<String>> {
        let (tab, _, timeout) = self.parts();
        let walk = crate::js::evaluate(WALKER_FN.call_on("document", &[]));
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
        let backends: Vec<i64> = (100..108).collect();
        let tree = build(8, nodes, &backends).expect("tree");
        let order: Vec<Option<i64>> = tree.nodes.iter().map(|n| n.backend).collect();
        // Breadth first over unignored nodes, an ignored node's children right after it:
        // 0, 1, 2, 4, 5, 6, then 3 and 7 (ignored nodes keep no backend once built).
        let expected = [
            Some(100),
            None,
            Some(102),
            None,
            None,
            Some(106),
            Some(103),
            Some(107),
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
    fn a_dom_count_that_differs_from_the_document_refuses() {
        let nodes = vec![node(-1, "RootWebArea", "", false, 0)];
        assert!(build(2, nodes, &[1]).is_none());
    }

    #[test]
    fn refusals_carry_their_reason() {
        match decode(r#"["unsupported","attribute role on div"]"#) {
            Some(Walked::Unsupported(reason)) => assert_eq!(reason, "attribute role on div"),
            _ => panic!("not decoded as a refusal"),
        }
        assert!(matches!(
            decode(r#"["ok",1,[[-1,"RootWebArea","",0,0,null]]]"#),
            Some(Walked::Tree { dom_count: 1, .. })
        ));
    }
}
