//! Frame scope: [`Session::select_frame`] points later page commands of the tab at one iframe
//! until [`Session::select_main_frame`] (or a new main-frame document) points them back.
//!
//! A command asks for its [`Realm`] once — the CDP session and execution context its scripts
//! run in — and everything it evaluates goes there: selectors are resolved in the frame's
//! document, `eval` runs in the frame's main world, the snapshot reads the frame's tree. Two
//! kinds of frames:
//!
//! - a same-process iframe runs in the tab's renderer: scripts go to the tab's session with the
//!   frame's default `contextId` (the tab's event pump keeps one per frame from
//!   `Runtime.executionContextCreated`), and input goes to the tab in page coordinates;
//! - a cross-site iframe (out of process) is reached through its own flat session (see
//!   [`crate::snapshot::frames`]); scripts and input go there, in that frame's coordinates.
//!
//! The frame is remembered by its frame id, which survives the frame's own navigations; when
//! the frame is removed, every scoped command fails with [`EngineError::Page`] saying so,
//! rather than quietly acting on the main page.

pub(crate) mod scope;

use std::time::{Duration, Instant};

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::dom;
use abx_cdp::protocol::js_protocol::runtime;
use serde::Serialize;
use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::session::Session;
use crate::tab::Tab;
use scope::FrameScope;

/// How long a scoped command waits for the frame's context or session to (re)appear, e.g.
/// while the frame itself is navigating.
const REALM_WAIT: Duration = Duration::from_millis(1500);

/// The tag and the label attributes of a would-be frame element (`this`).
const FRAME_ELEMENT_FN: PageFn = PageFn::new(include_str!("frame/frame_element.js"));

/// The frame now selected; serializes to upstream's `{"frame": "<label>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FrameSelected {
    /// The frame's `name`, else its `id`, else its `src` (a ref without a name: the ref
    /// itself); `main` for the main frame.
    pub frame: String,
}

/// Where a command's scripts run.
#[derive(Clone, Debug)]
pub(crate) struct Realm {
    /// The session scripts go to.
    pub(crate) session: CdpSession,
    /// The execution context inside it (a same-process frame's main world); `None` for the
    /// session's top document.
    pub(crate) context: Option<i64>,
    /// The session is an out-of-process frame's own.
    pub(crate) oopif: bool,
    /// The frame id when scoped to a child frame.
    pub(crate) frame_id: Option<String>,
}

impl Realm {
    /// The tab's main frame.
    pub(crate) fn main(tab: &Tab) -> Realm {
        Realm {
            session: tab.cdp().clone(),
            context: None,
            oopif: false,
            frame_id: None,
        }
    }

    /// A same-process child frame (its page coordinates come from content quads).
    pub(crate) fn subframe(&self) -> bool {
        self.frame_id.is_some() && !self.oopif
    }

    /// `params` aimed at this realm's context.
    pub(crate) fn evaluate(&self, params: runtime::EvaluateParams) -> runtime::EvaluateParams {
        runtime::EvaluateParams {
            context_id: self.context.map(runtime::ExecutionContextId::new),
            ..params
        }
    }
}

fn gone() -> EngineError {
    EngineError::Page(
        "The selected frame is no longer in the page (it was removed); select another frame \
         or go back to the main frame"
            .into(),
    )
}

impl Session {
    /// Scopes the active tab's page commands (snapshot, eval, selectors and actions, `get`,
    /// `is`, waits) to the iframe `selector` names — CSS, XPath or a snapshot ref — resolved in
    /// the frame currently selected (so nested frames are chosen one level at a time).
    pub async fn select_frame(
        &self,
        selector: &str,
        timeout: Option<Duration>,
    ) -> Result<FrameSelected> {
        let (tab, _, timeout) = self.page(timeout).await?.parts();
        let handle = self.locate_on(&tab, "frame", selector, timeout).await?;
        let outcome = async {
            let info = handle.call(FRAME_ELEMENT_FN, &[], timeout).await?;
            let tag = info.get("tag").and_then(Value::as_str).unwrap_or_default();
            if tag != "IFRAME" && tag != "FRAME" {
                return Err(EngineError::Invalid(format!(
                    "'{selector}' is not an iframe or frame element (it is <{}>)",
                    tag.to_ascii_lowercase()
                )));
            }
            let describe = dom::DescribeNodeParams {
                object_id: Some(handle.object_id.clone().into()),
                depth: Some(1),
                ..Default::default()
            };
            let described = handle
                .session
                .call_as::<_, Value>(&describe, Some(timeout))
                .await?;
            let node = described.get("node").cloned().unwrap_or_default();
            let frame_id = node
                .pointer("/contentDocument/frameId")
                .or_else(|| node.get("frameId"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| {
                    EngineError::Page(format!("'{selector}' has no frame document loaded"))
                })?;
            let text = |key: &str| {
                info.get(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            let label = match crate::element::ref_name(selector) {
                Some(name) => text("name").unwrap_or_else(|| name.to_string()),
                None => text("name")
                    .or_else(|| text("id"))
                    .or_else(|| text("src"))
                    .unwrap_or_else(|| selector.to_string()),
            };
            Ok((frame_id, label))
        }
        .await;
        handle.release().await;
        let (frame_id, label) = outcome?;
        let epoch = tab.read(|st| st.documents);
        let scope = FrameScope { frame_id, epoch };
        // The frame must be reachable now, not only at the next command.
        self.realm_of(&tab, Some(&scope), timeout).await?;
        self.refs
            .with_tab(tab.target_id(), |t| t.frame = Some(scope));
        Ok(FrameSelected { frame: label })
    }

    /// Points the active tab's page commands back at its main frame.
    pub async fn select_main_frame(&self) -> Result<FrameSelected> {
        let tab = self.active_tab().await?;
        self.refs.with_tab(tab.target_id(), |t| t.frame = None);
        Ok(FrameSelected {
            frame: "main".into(),
        })
    }

    /// The frame id the active tab is scoped to, if any (a scope of a replaced main document
    /// counts as none).
    pub async fn selected_frame(&self) -> Result<Option<String>> {
        let tab = self.active_tab().await?;
        Ok(self.selected_frame_of(&tab))
    }

    /// The frame id `tab` is scoped to, if any.
    pub(crate) fn selected_frame_of(&self, tab: &Tab) -> Option<String> {
        self.frame_scope(tab).map(|s| s.frame_id)
    }

    fn frame_scope(&self, tab: &Tab) -> Option<FrameScope> {
        let epoch = tab.read(|st| st.documents);
        self.refs.with_tab(tab.target_id(), |t| {
            if t.frame.as_ref().is_some_and(|s| s.epoch != epoch) {
                t.frame = None;
            }
            t.frame.clone()
        })
    }

    /// Where this command's scripts run on `tab`: its selected frame, else the main frame.
    pub(crate) async fn realm(&self, tab: &Tab, timeout: Duration) -> Result<Realm> {
        let scope = self.frame_scope(tab);
        Box::pin(self.realm_of(tab, scope.as_ref(), timeout)).await
    }

    async fn realm_of(
        &self,
        tab: &Tab,
        scope: Option<&FrameScope>,
        timeout: Duration,
    ) -> Result<Realm> {
        let Some(scope) = scope else {
            return Ok(Realm::main(tab));
        };
        let deadline = Instant::now() + timeout.min(REALM_WAIT);
        let mut auto_attach = false;
        loop {
            let context = tab.read(|st| st.frame_contexts.get(&scope.frame_id).map(|c| c.0));
            if let Some(context) = context {
                return Ok(Realm {
                    session: tab.cdp().clone(),
                    context: Some(context),
                    oopif: false,
                    frame_id: Some(scope.frame_id.clone()),
                });
            }
            if !auto_attach {
                self.ensure_frame_sessions(tab, timeout).await?;
                auto_attach = true;
            }
            if let Some(session) = self
                .frame_session(tab, &scope.frame_id, Duration::ZERO)
                .await
            {
                return Ok(Realm {
                    session,
                    context: None,
                    oopif: true,
                    frame_id: Some(scope.frame_id.clone()),
                });
            }
            if Instant::now() >= deadline || !self.frame_exists(tab, &scope.frame_id).await {
                return Err(gone());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Whether the tab's frame tree still has `frame_id` (a frame between two documents has
    /// no context for a moment; a removed one is gone for good).
    async fn frame_exists(&self, tab: &Tab, frame_id: &str) -> bool {
        let owner = dom::GetFrameOwnerParams::new(frame_id.to_string());
        tab.cdp()
            .call_within(owner, Duration::from_secs(2))
            .await
            .is_ok()
    }

    /// How many elements match `selector` in the tab's selected frame (`get count`).
    pub(crate) async fn count_scoped(
        &self,
        tab: &Tab,
        selector: &str,
        timeout: Duration,
    ) -> Result<u64> {
        let realm = self.realm(tab, timeout).await?;
        if realm.frame_id.is_none() {
            return crate::element::count(tab, selector, timeout).await;
        }
        let all = crate::element::finder_all_js(selector)?;
        let count = realm.evaluate(crate::js::evaluate(format!("{all}.length")));
        let reply = tab
            .guarded("count", async {
                Ok(realm.session.call_within(count, timeout).await?)
            })
            .await?;
        let value = crate::js::value_of(reply.result, reply.exception_details.as_ref())?;
        Ok(value.as_u64().unwrap_or(0))
    }
}
