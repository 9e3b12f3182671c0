//! `eval` and the waits (`wait <selector>`, `--text`, `--url`, `--load`, `--fn`) on a [`Page`],
//! within its deadline, and `wait <ms>` on the [`Session`].

use std::time::{Duration, Instant};

use abx_cdp::protocol::js_protocol::runtime;
use serde_json::{Value, json};

use super::{Page, Session, WaitUntil};
use crate::error::{EngineError, Result};
use crate::js::PageFn;

/// The result of `eval`.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    /// The JSON value (`null` for `undefined` and unserializable values).
    pub value: Value,
    /// `NaN`, `Infinity`, `-0`, `undefined`... when the value has no JSON form.
    pub unserializable: Option<String>,
}

impl Session {
    /// `wait <ms>` (no page involved: it also passes while the tab is gone).
    pub async fn wait_ms(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

impl Page<'_> {
    /// `eval`: evaluates `script` in the page (promises awaited), in the selected frame.
    pub async fn evaluate(&self, script: &str) -> Result<Evaluated> {
        let (tab, timeout) = (&self.tab, self.timeout);
        let eval = runtime::EvaluateParams {
            return_by_value: Some(true),
            await_promise: Some(true),
            user_gesture: Some(true),
            ..runtime::EvaluateParams::new(script)
        };
        // Own reply type: the page's code can produce any value, and the generated
        // `RemoteObject` fails on subtypes newer than the pinned protocol (`deferredmodule`).
        let reply: Value = tab
            .guarded("eval", async {
                let realm = self.session.realm(tab, timeout).await?;
                let eval = realm.evaluate(eval);
                Ok(realm.session.call_as(&eval, Some(timeout)).await?)
            })
            .await?;
        evaluated(&reply)
    }

    /// Polls a JS predicate in the page until it is truthy or the view's deadline passes;
    /// survives navigations. `what` names the command in errors.
    pub async fn wait_for_function(&self, expression: &str, what: &str) -> Result<Value> {
        let (tab, deadline, timeout) = (&self.tab, self.deadline, self.timeout);
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(wait_timeout(timeout));
            }
            // Each in-page poll runs at most 1 s so navigations and deadlines are noticed.
            let slice = remaining.min(Duration::from_secs(1));
            let expr = POLL_FN.call_with_code(&[json!(slice.as_millis() as u64)], expression);
            let poll = runtime::EvaluateParams {
                return_by_value: Some(true),
                await_promise: Some(true),
                ..runtime::EvaluateParams::new(expr)
            };
            // Own reply type, as for `evaluate`: the caller's predicate may return anything.
            let reply: Result<Value> = tab
                .guarded(what, async {
                    let realm = self.session.realm(tab, slice).await?;
                    let poll = realm.evaluate(poll.clone());
                    Ok(realm
                        .session
                        .call_as(&poll, Some(slice + Duration::from_secs(2)))
                        .await?)
                })
                .await;
            match reply {
                Ok(reply) => {
                    if reply.get("exceptionDetails").is_none()
                        && let Some(result) = reply.get("result")
                        && result.get("type").and_then(Value::as_str) != Some("undefined")
                    {
                        return Ok(result.get("value").cloned().unwrap_or(Value::Bool(true)));
                    }
                }
                // Context destroyed by a navigation: try again in the new document.
                Err(EngineError::Cdp(abx_cdp::Error::Protocol { .. })) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                // The poll got no answer in its slice: Chrome holds the old document's scripts
                // while a navigation waits for a slow server (a form POST), or the page is busy.
                // Not an answer yet; the wait's own deadline decides.
                Err(EngineError::Timeout { .. }) if Instant::now() < deadline => {}
                Err(err) => return Err(err),
            }
        }
    }

    /// `wait <selector> [--state visible|hidden|attached|detached]`.
    pub async fn wait_selector(&self, selector: &str, state: &str) -> Result<()> {
        let finder = crate::element::finder_js(selector)?;
        let state = match state {
            "attached" | "detached" | "hidden" => state,
            "visible" | "" => "visible",
            other => {
                return Err(EngineError::Invalid(format!(
                    "Invalid state: {other}. Use visible, hidden, attached or detached"
                )));
            }
        };
        let predicate = ELEMENT_STATE_FN.call_exprs(&[&finder, &json!(state).to_string()]);
        self.wait_for_function(&predicate, "wait").await.map(|_| ())
    }

    /// `wait --text <t>`.
    pub async fn wait_text(&self, text: &str) -> Result<()> {
        let predicate = HAS_TEXT_FN.call(&[json!(text)]);
        self.wait_for_function(&predicate, "wait").await.map(|_| ())
    }

    /// `wait --url <glob>`: the URL once it matches and its document is parsed (a page read
    /// right after a match on a document that just committed would find it empty).
    pub async fn wait_url(&self, pattern: &str) -> Result<String> {
        let glob = crate::glob::Glob::new(pattern);
        let state = self
            .tab
            .wait_state("wait for url", self.deadline, true, |st| {
                // A document committed before we attached has no lifecycle events here.
                glob.matches(&st.url)
                    && (st.documents == 0 || st.has_lifecycle(&st.loader_id, "DOMContentLoaded"))
            })
            .await
            .map_err(|e| with_wait_timeout(e, self.timeout))?;
        Ok(state.url)
    }

    /// `wait --load <state>`.
    pub async fn wait_load(&self, wait: WaitUntil) -> Result<()> {
        let Some(milestone) = wait.milestone() else {
            return Ok(());
        };
        self.tab
            .wait_state("wait for load state", self.deadline, false, |st| {
                crate::tab::settle::settled(st, milestone)
            })
            .await
            .map_err(|e| with_wait_timeout(e, self.timeout))?;
        Ok(())
    }
}

/// Polls `predicate` (an async function) until it is truthy or `remain` ms have passed.
const POLL_FN: PageFn = PageFn::new(include_str!("poll.js"));
/// Whether an element (or `null`) is `attached`, `detached`, `visible` or `hidden`.
const ELEMENT_STATE_FN: PageFn = PageFn::new(include_str!("element_state.js"));
/// Whether the page's text contains `needle`.
const HAS_TEXT_FN: PageFn = PageFn::new(include_str!("has_text.js"));

fn wait_timeout(after: Duration) -> EngineError {
    EngineError::Timeout {
        what: "Wait".into(),
        after,
    }
}

fn with_wait_timeout(err: EngineError, after: Duration) -> EngineError {
    match err {
        EngineError::Timeout { .. } => wait_timeout(after),
        other => other,
    }
}

/// Turns a `Runtime.evaluate`/`callFunctionOn` reply into a value or an evaluation error.
fn evaluated(reply: &Value) -> Result<Evaluated> {
    if let Some(details) = reply.get("exceptionDetails") {
        let text = details
            .pointer("/exception/description")
            .and_then(Value::as_str)
            .or_else(|| details.pointer("/exception/value").and_then(Value::as_str))
            .or_else(|| details.get("text").and_then(Value::as_str))
            .unwrap_or("unknown error");
        return Err(EngineError::Evaluation(text.to_string()));
    }
    let result = reply.get("result").cloned().unwrap_or(Value::Null);
    if let Some(unser) = result.get("unserializableValue").and_then(Value::as_str) {
        return Ok(Evaluated {
            value: Value::Null,
            unserializable: Some(unser.to_string()),
        });
    }
    if result.get("type").and_then(Value::as_str) == Some("undefined") {
        return Ok(Evaluated {
            value: Value::Null,
            unserializable: Some("undefined".into()),
        });
    }
    Ok(Evaluated {
        value: result.get("value").cloned().unwrap_or(Value::Null),
        unserializable: None,
    })
}
