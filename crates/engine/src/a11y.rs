//! The accessibility audit: axe-core (the version upstream ships, fetched from the npm registry
//! at build time, see `build.rs`) run over the page's whole frame tree, reported as upstream
//! reports it.
//!
//! axe-core never runs in the page's own JavaScript world: each frame gets an isolated world
//! (`Page.createIsolatedWorld`) where axe is installed, so a page's own `window.axe`, its
//! prototypes and its CSP neither see nor disturb the audit. Frames are audited with axe's
//! partial API: `runPartial` in each frame, top first, then the child frames axe asks for
//! (`utils.getFrameContexts`), depth first — same-process frames through the tab's session,
//! cross-site ones through their own — and `finishRun` in the top frame merges the results.
//! Nothing goes through page messaging (`postMessage`), which a page could intercept. A frame
//! that cannot be audited (gone, still loading, nested too deep) counts as not tested, as axe
//! reports a frame that did not answer.
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> abx_engine::Result<()> {
//! let report = abx_engine::a11y_audit(&session.page(None).await?, &[], None).await?;
//! println!("{} violations", report["violations"].as_array().map_or(0, Vec::len));
//! # Ok(()) }
//! ```

use std::time::{Duration, Instant};

use abx_cdp::Session as CdpSession;
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::session::Page;

/// The axe-core version `a11y` runs.
pub const AXE_VERSION: &str = env!("ABX_AXE_VERSION");

/// axe-core itself (`axe.min.js` of the npm package, checked against its published hash).
const AXE_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/axe.min.js"));

/// One frame's partial audit and the child frames to audit next.
const PARTIAL_FN: PageFn = PageFn::new(include_str!("a11y/partial.js"));

/// The merge of every frame's partial audit into the report.
const FINISH_FN: PageFn = PageFn::new(include_str!("a11y/finish.js"));

/// The isolated world's name (visible in DevTools' context list).
const WORLD: &str = "abx-a11y";

/// Frames nested deeper than this are not audited (a page that nests frames without end).
const MAX_FRAME_DEPTH: usize = 16;

/// How long a cross-site frame's own session may take to appear.
const FRAME_SESSION_WAIT: Duration = Duration::from_millis(500);

/// Audits the session's page with axe-core: only rules with one of `tags` (axe's `runOnly`
/// by tag; all rules when empty), only inside `selector` when given (an invalid selector or
/// one that matches nothing is an [`EngineError::Invalid`]). The report: `{url, axeVersion,
/// counts: {violations, incomplete, passes, inapplicable}, violations, incomplete}`, each rule
/// `{id, impact, help, helpUrl, tags, nodeCount, nodes}` with at most 10 nodes `{target, html,
/// failureSummary}` (`html` cut to 300 characters).
pub async fn a11y_audit(page: &Page<'_>, tags: &[String], selector: Option<&str>) -> Result<Value> {
    let mut options = json!({ "resultTypes": ["violations", "incomplete"] });
    if !tags.is_empty() {
        options["runOnly"] = json!({ "type": "tag", "values": tags });
    }
    let audit = Audit { page, options };
    let tab_session = page.tab.cdp().clone();
    let top_frame = audit.main_frame_id().await?;
    let top_context = audit.install(&tab_session, &top_frame).await?;
    let top = audit
        .partial(&tab_session, top_context, &json!(selector), true)
        .await?;

    let mut partials = vec![top.partial];
    // Depth first, in the order axe listed the frames: the order `finishRun` expects.
    let mut pending: Vec<(CdpSession, i64, Value, usize)> = top
        .frames
        .into_iter()
        .rev()
        .map(|f| (tab_session.clone(), top_context, f, 1))
        .collect();
    while let Some((parent_session, parent_context, frame, depth)) = pending.pop() {
        match audit
            .child(&parent_session, parent_context, &frame, depth)
            .await
        {
            Ok((session, context, result)) => {
                partials.push(result.partial);
                pending.extend(
                    result
                        .frames
                        .into_iter()
                        .rev()
                        .map(|f| (session.clone(), context, f, depth + 1)),
                );
            }
            Err(EngineError::BrowserLost { reason }) => {
                return Err(EngineError::BrowserLost { reason });
            }
            Err(_) => partials.push(Value::Null),
        }
    }

    let finish = FINISH_FN.call(&[Value::Array(partials), audit.options.clone()]);
    let text = audit
        .evaluate(&tab_session, top_context, finish, true)
        .await?;
    parse_report(&text)
}

/// One frame's answer to [`PARTIAL_FN`].
struct FramePartial {
    /// axe's partial result (`null` when the frame could not be audited).
    partial: Value,
    /// `{frameSelector, frameContext}` of each child frame axe wants audited.
    frames: Vec<Value>,
}

struct Audit<'p, 's> {
    page: &'p Page<'s>,
    options: Value,
}

impl Audit<'_, '_> {
    /// What is left of the command's deadline, or a timeout.
    fn left(&self) -> Result<Duration> {
        let left = self.page.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(EngineError::Timeout {
                what: "a11y".into(),
                after: self.page.timeout,
            });
        }
        Ok(left)
    }

    /// A CDP call on `session`: the tab's own goes through the tab's guard (a dialog, a closed
    /// tab or a crash ends the audit with that error).
    async fn call(&self, session: &CdpSession, method: &str, params: Value) -> Result<Value> {
        let left = self.left()?;
        if session.id() == self.page.tab.cdp().id() {
            return self.page.tab.call("a11y", method, params, left).await;
        }
        Ok(session.call_json_within(method, params, left).await?)
    }

    async fn main_frame_id(&self) -> Result<String> {
        let tree = self
            .call(self.page.tab.cdp(), "Page.getFrameTree", json!({}))
            .await?;
        tree["frameTree"]["frame"]["id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| EngineError::Evaluation("the page has no main frame".into()))
    }

    /// Creates the audit's isolated world in `frame_id` and installs axe-core there; returns the
    /// world's execution context id.
    async fn install(&self, session: &CdpSession, frame_id: &str) -> Result<i64> {
        let world = self
            .call(
                session,
                "Page.createIsolatedWorld",
                json!({ "frameId": frame_id, "worldName": WORLD }),
            )
            .await?;
        let context = world["executionContextId"].as_i64().ok_or_else(|| {
            EngineError::Evaluation("Chrome created no isolated world for the audit".into())
        })?;
        let installed = self
            .evaluate(
                session,
                context,
                format!("{AXE_SOURCE}\n;typeof axe === 'object' && axe.version"),
                false,
            )
            .await?;
        if installed != AXE_VERSION {
            return Err(EngineError::Evaluation(format!(
                "axe-core {AXE_VERSION} did not initialise in the page"
            )));
        }
        Ok(context)
    }

    /// `Runtime.evaluate` of one of our expressions in `context`; its value as text (our page
    /// functions answer JSON text, the install answers the version).
    async fn evaluate(
        &self,
        session: &CdpSession,
        context: i64,
        expression: String,
        await_promise: bool,
    ) -> Result<String> {
        let reply = self
            .call(
                session,
                "Runtime.evaluate",
                json!({
                    "expression": expression,
                    "contextId": context,
                    "returnByValue": true,
                    "awaitPromise": await_promise,
                }),
            )
            .await?;
        if let Some(details) = reply.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("an exception");
            return Err(EngineError::Evaluation(format!("a11y: {text}")));
        }
        Ok(match &reply["result"]["value"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
    }

    /// axe's partial audit of the frame whose audit world is `context`.
    async fn partial(
        &self,
        session: &CdpSession,
        context: i64,
        frame_context: &Value,
        top: bool,
    ) -> Result<FramePartial> {
        let call = PARTIAL_FN.call(&[frame_context.clone(), self.options.clone(), json!(top)]);
        let text = self.evaluate(session, context, call, true).await?;
        let mut answer: Value = serde_json::from_str(&text)
            .map_err(|e| EngineError::Evaluation(format!("a11y: unreadable partial audit: {e}")))?;
        if let Some(error) = answer.get("error").and_then(Value::as_str) {
            return Err(EngineError::Invalid(error.to_string()));
        }
        let frames = match answer["frames"].take() {
            Value::Array(frames) => frames,
            _ => Vec::new(),
        };
        Ok(FramePartial {
            partial: answer["partial"].take(),
            frames,
        })
    }

    /// Audits one child frame axe listed in the parent's world `parent_context`; returns the
    /// session and world its own children are reached from.
    async fn child(
        &self,
        parent_session: &CdpSession,
        parent_context: i64,
        frame: &Value,
        depth: usize,
    ) -> Result<(CdpSession, i64, FramePartial)> {
        if depth > MAX_FRAME_DEPTH {
            return Err(EngineError::Page("frames nested too deep".into()));
        }
        let frame_id = self
            .frame_id_of(parent_session, parent_context, &frame["frameSelector"])
            .await;
        let _ = self.release(parent_session).await;
        let frame_id = frame_id?;
        let (session, context) = match self.install(parent_session, &frame_id).await {
            Ok(context) => (parent_session.clone(), context),
            Err(EngineError::BrowserLost { reason }) => {
                return Err(EngineError::BrowserLost { reason });
            }
            // Not in this renderer: a cross-site frame, reached through its own session.
            Err(_) => {
                let tab = &self.page.tab;
                let engine = self.page.session;
                engine.ensure_frame_sessions(tab, self.left()?).await?;
                let session = engine
                    .frame_session(tab, &frame_id, FRAME_SESSION_WAIT)
                    .await
                    .ok_or_else(|| EngineError::Page("frame not reachable".into()))?;
                let context = self.install(&session, &frame_id).await?;
                (session, context)
            }
        };
        let result = self
            .partial(&session, context, &frame["frameContext"], false)
            .await?;
        Ok((session, context, result))
    }

    /// The frame id of the frame element axe's `selector` names in the parent's world.
    async fn frame_id_of(
        &self,
        session: &CdpSession,
        context: i64,
        selector: &Value,
    ) -> Result<String> {
        let element = self
            .call(
                session,
                "Runtime.evaluate",
                json!({
                    "expression": format!("axe.utils.shadowSelect({selector})"),
                    "contextId": context,
                    "objectGroup": WORLD,
                }),
            )
            .await?;
        let object_id = element["result"]["objectId"]
            .as_str()
            .ok_or_else(|| EngineError::Page("frame element gone".into()))?;
        let node = self
            .call(
                session,
                "DOM.describeNode",
                json!({ "objectId": object_id }),
            )
            .await?;
        node["node"]["frameId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| EngineError::Page("frame has no document yet".into()))
    }

    /// Frees the frame element handles the audit took in `session`.
    async fn release(&self, session: &CdpSession) -> Result<()> {
        self.call(
            session,
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": WORLD }),
        )
        .await
        .map(drop)
    }
}

/// The report [`FINISH_FN`] answered.
fn parse_report(text: &str) -> Result<Value> {
    let report: Value = serde_json::from_str(text)
        .map_err(|e| EngineError::Evaluation(format!("a11y: unreadable report: {e}")))?;
    if !report.is_object() {
        return Err(EngineError::Evaluation(
            "a11y: the page returned no report".into(),
        ));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_axe_core_is_the_version_upstream_ships() {
        assert_eq!(AXE_VERSION, "4.12.1");
        assert!(AXE_SOURCE.contains("axe v4.12.1"));
    }
}
