//! The cursor-interactive scan: elements that act like controls without being ones (a `div` with
//! `cursor:pointer` or `onclick`, a `tabindex` or `contenteditable` element).
//!
//! One script runs over the document, keeps the matches, and tags each with a temporary
//! `data-__ab-ci` attribute. The tagged elements are then found with one `DOM.querySelectorAll`
//! and their `backendNodeId`s read with `DOM.describeNode` calls sent all at once (pipelined on
//! the socket, not one round trip each: upstream issue #788 was N×2 sequential round trips), and
//! the tags are removed. Results come back in document order on both sides, so the n-th tagged
//! node is the n-th scan result.

use std::collections::HashMap;
use std::time::Duration;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::dom;
use serde::Deserialize;
use serde_json::Value;

use super::tree::CursorInfo;
use crate::error::{EngineError, Result};
use crate::js::PageFn;

/// The attribute the scan tags elements with.
pub(crate) const TAG: &str = "data-__ab-ci";

/// The scan, as a function whose `this` is the document to scan (so it runs unchanged in a
/// child frame through the frame's document object). Returns one small array per match:
/// `[flags, text, hiddenInputType, hiddenInputChecked]`, flags bit 1 pointer, 2 onclick,
/// 4 tabindex, 8 contenteditable.
pub(crate) const SCAN_FN: PageFn = PageFn::new(include_str!("scan.js"));

/// Removes the tags again.
pub(crate) const CLEANUP_FN: PageFn = PageFn::new(include_str!("scan_cleanup.js"));

/// Where the scan ran, so its tags come off in the same document.
pub(crate) enum Cleanup {
    /// The session's top document.
    Top,
    /// A same-process child frame's document, through its remote object.
    Frame {
        /// The document's object id.
        document: String,
    },
}

impl Cleanup {
    /// Queues the tag removal (fire-and-forget, ordered before later commands).
    pub(crate) async fn send(&self, session: &CdpSession) {
        let _ = match self {
            Cleanup::Top => {
                session
                    .send(&crate::js::evaluate(CLEANUP_FN.call_on("document", &[])))
                    .await
            }
            Cleanup::Frame { document } => {
                session
                    .send(&crate::js::call_on(document, CLEANUP_FN, &[]))
                    .await
            }
        };
    }
}

/// `DOM.describeNode`'s reply, read leniently: the generated `DOM.Node` fails on pseudo-element
/// types newer than the pinned protocol (Chrome 156 added five), and only two fields are read.
#[derive(Deserialize)]
pub(crate) struct Described {
    pub(crate) node: Value,
}

/// One scan result as the script returns it.
#[derive(Deserialize)]
struct Found(u8, String, Option<String>, Option<String>);

/// Decodes the script's result into cursor infos, in document order.
pub(crate) fn decode(value: &Value) -> Vec<CursorInfo> {
    let found: Vec<Found> = serde_json::from_value(value.clone()).unwrap_or_default();
    found
        .into_iter()
        .map(|Found(flags, text, hidden_type, hidden_checked)| {
            let (pointer, onclick, tabindex, editable) = (
                flags & 1 != 0,
                flags & 2 != 0,
                flags & 4 != 0,
                flags & 8 != 0,
            );
            let kind = if pointer || onclick {
                "clickable"
            } else if editable {
                "editable"
            } else {
                "focusable"
            };
            let mut hints = Vec::new();
            if pointer {
                hints.push("cursor:pointer");
            }
            if onclick {
                hints.push("onclick");
            }
            if tabindex {
                hints.push("tabindex");
            }
            if editable {
                hints.push("contenteditable");
            }
            let hidden_input = match hidden_type.as_deref() {
                Some("radio") => Some(("radio", hidden_checked.unwrap_or_else(|| "false".into()))),
                Some("checkbox") => {
                    Some(("checkbox", hidden_checked.unwrap_or_else(|| "false".into())))
                }
                _ => None,
            };
            CursorInfo {
                kind,
                hints,
                text,
                hidden_input,
            }
        })
        .collect()
}

/// Maps the tagged elements under `root` (a DOM agent node id of the scanned document) to their
/// backendNodeIds, pairs them with `found`, and removes the tags (fire-and-forget: the removal is
/// ordered before any later command on the session, so nobody sees the tags afterwards).
pub(crate) async fn resolve(
    session: &CdpSession,
    root: i64,
    found: Vec<CursorInfo>,
    cleanup: Cleanup,
    timeout: Duration,
) -> Result<HashMap<i64, CursorInfo>> {
    if found.is_empty() {
        return Ok(HashMap::new());
    }
    let tagged = dom::QuerySelectorAllParams::new(dom::NodeId::new(root), format!("[{TAG}]"));
    let reply = session.call_within(tagged, timeout).await;
    let node_ids: Vec<dom::NodeId> = match &reply {
        Ok(reply) => reply.node_ids.clone(),
        Err(_) => Vec::new(),
    };
    // The descriptions carry the tag's value, so the tags come off only after them.
    let describes = node_ids.into_iter().map(|id| {
        let describe = dom::DescribeNodeParams {
            node_id: Some(id),
            ..Default::default()
        };
        async move {
            session
                .call_as::<_, Described>(&describe, Some(timeout))
                .await
        }
    });
    let described = futures_util::future::join_all(describes).await;
    cleanup.send(session).await;
    reply?;
    let mut map = HashMap::with_capacity(found.len());
    // Pair by the tag's value (the result index) rather than by position, so a page that also
    // uses the attribute cannot shift the pairing.
    let mut found: Vec<Option<CursorInfo>> = found.into_iter().map(Some).collect();
    for reply in described {
        let reply = match reply {
            Ok(reply) => reply,
            Err(abx_cdp::Error::Protocol { .. }) => continue,
            Err(other) => return Err(EngineError::from(other)),
        };
        let node = &reply.node;
        let Some(backend) = node.get("backendNodeId").and_then(Value::as_i64) else {
            continue;
        };
        let index = node
            .get("attributes")
            .and_then(Value::as_array)
            .and_then(|attrs| {
                attrs
                    .chunks(2)
                    .find(|pair| pair.first().and_then(Value::as_str) == Some(TAG))
            })
            .and_then(|pair| pair.get(1).and_then(Value::as_str))
            .and_then(|v| v.parse::<usize>().ok());
        if let Some(info) = index.and_then(|i| found.get_mut(i)).and_then(Option::take) {
            map.insert(backend, info);
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_kind_and_hints_in_upstream_order() {
        let infos = decode(&serde_json::json!([
            [3, "Clickable div", null, null],
            [4, "", null, null],
            [8, "e", null, null],
            [1, "card", "radio", "true"]
        ]));
        assert_eq!(infos[0].kind, "clickable");
        assert_eq!(infos[0].hints, ["cursor:pointer", "onclick"]);
        assert_eq!(infos[1].kind, "focusable");
        assert_eq!(infos[2].kind, "editable");
        assert_eq!(infos[2].hints, ["contenteditable"]);
        assert_eq!(infos[3].hidden_input, Some(("radio", "true".to_string())));
    }
}
