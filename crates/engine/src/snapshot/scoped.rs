//! A snapshot of the iframe the tab is scoped to ([`crate::frame`]): the frame's own tree,
//! with refs on the frame's document, as if it were the page. Frames nested inside it are
//! listed by their `Iframe` line, not expanded (scope to them to read them).

use std::collections::BTreeMap;
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::dom;
use abx_cdp::protocol::js_protocol::runtime;

use super::{RefInfo, Scope, Snapshot, SnapshotOptions, apply_refs, capture, finish, tree};
use crate::error::{EngineError, Result};
use crate::frame::Realm;
use crate::refs::{DocumentId, FrameKey, RefRequest};
use crate::session::Session;
use crate::tab::Tab;

impl Session {
    pub(super) async fn snapshot_frame(
        &self,
        tab: &Tab,
        realm: &Realm,
        options: &SnapshotOptions,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let frame_id = realm.frame_id.clone().unwrap_or_default();
        let session = &realm.session;
        let subtree = match &options.selector {
            Some(selector) => {
                Some(super::selector_subtree(session, realm.context, selector, timeout).await?)
            }
            None => None,
        };
        let scope = if realm.oopif {
            Scope::Top
        } else {
            Scope::Child {
                frame_id: frame_id.clone(),
                document_backend: document_backend(realm, timeout).await?,
                loader: None,
            }
        };
        let mut frame = capture(session, &scope, None, None, false, timeout).await?;
        frame.tree.promote_hidden_inputs(&frame.cursor);
        let candidates = frame.tree.ref_candidates(&frame.cursor);
        let roots = match &subtree {
            Some(ids) => {
                let roots = frame.tree.subtree_roots(ids);
                if roots.is_empty() {
                    return Err(EngineError::Page(format!(
                        "No accessibility node found for selector '{}'",
                        options.selector.as_deref().unwrap_or_default()
                    )));
                }
                roots
            }
            None => frame.tree.roots.clone(),
        };
        let document = DocumentId {
            frame: FrameKey(Some(frame_id)),
            loader: frame.loader.clone(),
            epoch: 0,
            session: realm
                .oopif
                .then(|| session.id().map(str::to_string))
                .flatten(),
        };
        let requests: Vec<RefRequest> = candidates
            .iter()
            .map(|&i| RefRequest {
                document: 0,
                backend_node_id: frame.tree.nodes[i].backend.unwrap_or_default(),
                role: frame.tree.nodes[i].role.clone(),
                label: frame.tree.nodes[i].name.clone(),
            })
            .collect();
        let assigned = self.refs.assign(tab.target_id(), &[document], &requests);
        let refs: BTreeMap<String, RefInfo> = requests
            .iter()
            .zip(&assigned.names)
            .map(|(r, name)| {
                let info = RefInfo {
                    role: r.role.clone(),
                    name: r.label.clone(),
                };
                (name.clone(), info)
            })
            .collect();
        apply_refs(&mut frame.tree, &frame.cursor, &candidates, &assigned.names);
        let mut output = frame.tree.render(&roots, super::render_options(options));
        if options.compact {
            output = tree::compact(&output, options.interactive);
        }
        Ok(Snapshot {
            snapshot: finish(&output, options).into(),
            origin: tab.read(|st| st.url.clone()),
            refs: std::sync::Arc::new(refs),
            removed_refs: assigned.removed,
        })
    }
}

/// The backend node id of a same-process frame's document.
async fn document_backend(realm: &Realm, timeout: Duration) -> Result<i64> {
    let document = realm.evaluate(runtime::EvaluateParams {
        return_by_value: Some(false),
        ..runtime::EvaluateParams::new("document")
    });
    let reply = realm.session.call_within(document, timeout).await?;
    let object = reply.result.object_id.map(String::from).ok_or_else(|| {
        EngineError::Page("the selected frame has no document to snapshot".into())
    })?;
    let describe = dom::DescribeNodeParams {
        object_id: Some(object.clone().into()),
        ..Default::default()
    };
    let described = realm.session.call_within(describe, timeout).await;
    let _ = realm
        .session
        .send(&runtime::ReleaseObjectParams::new(object))
        .await;
    Ok(*described?.node.backend_node_id.inner())
}
