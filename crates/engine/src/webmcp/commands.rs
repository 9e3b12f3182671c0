//! The session's WebMCP commands: `webmcp list`, `invoke`, `result` and `cancel` on the active
//! tab's tools.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{
    CALL_DEADLINE, CANCEL, CANCEL_WAIT, INVOKE, WebMcpError, WebMcpInvocation, WebMcpState,
    WebMcpTool, frame_origins, lock,
};
use crate::session::Session;

impl Session {
    fn webmcp_state(&self) -> &Arc<WebMcpState> {
        &self.webmcp
    }

    /// The tools the session's active tab has now (optionally only `name`, only in `frame`),
    /// sorted by name. The frame tree is read first, which also lets every event Chrome sent
    /// before it arrive.
    pub async fn webmcp_list(
        &self,
        name: Option<&str>,
        frame: Option<&str>,
    ) -> Result<Vec<WebMcpTool>, WebMcpError> {
        let tab = self.active_tab().await?;
        let origins = frame_origins(&tab, CALL_DEADLINE).await?;
        let mut tools: Vec<WebMcpTool> = lock(&self.webmcp_state().inner)
            .tools
            .get(tab.target_id())
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|mut t| {
                t.origin = origins.get(&t.frame_id)?.clone();
                Some(t)
            })
            .filter(|t| name.is_none_or(|n| t.name == n))
            .filter(|t| frame.is_none_or(|f| t.frame_id == f))
            .collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name).then(a.frame_id.cmp(&b.frame_id)));
        if let Some(n) = name
            && tools.is_empty()
        {
            return Err(WebMcpError::ToolNotFound(n.to_string()));
        }
        Ok(tools)
    }

    /// Invokes `tool` (in `frame`, or the one frame that has it) with `input`. With `detach`
    /// it returns at once (status `pending`); otherwise it waits up to `timeout`, after which
    /// the invocation is canceled and reported `timed_out`.
    pub async fn webmcp_invoke(
        &self,
        tool: &str,
        frame: Option<&str>,
        input: Value,
        detach: bool,
        timeout: Duration,
    ) -> Result<WebMcpInvocation, WebMcpError> {
        if !input.is_object() {
            return Err(WebMcpError::InvalidInput(input.to_string()));
        }
        let found = self.webmcp_list(Some(tool), frame).await?;
        let chosen = match found.as_slice() {
            [one] => one.clone(),
            many => {
                return Err(WebMcpError::AmbiguousTool {
                    name: tool.to_string(),
                    frames: many.len(),
                });
            }
        };
        let tab = self.active_tab().await?;
        let state = self.webmcp_state();
        let reply = tab
            .call(
                "webmcp_invoke",
                INVOKE,
                json!({"frameId": chosen.frame_id, "toolName": chosen.name, "input": input}),
                CALL_DEADLINE,
            )
            .await
            .map_err(|e| WebMcpError::InvokeFailed(e.to_string()))?;
        let id = reply
            .get("invocationId")
            .and_then(Value::as_str)
            .ok_or_else(|| WebMcpError::InvokeFailed("Chrome returned no invocation id".into()))?
            .to_string();
        // The answer may already have come (a quick tool): `remember` folds it in.
        state.remember(WebMcpInvocation {
            invocation_id: id.clone(),
            tool_name: chosen.name,
            frame_id: chosen.frame_id,
            origin: chosen.origin,
            status: "pending".into(),
            raw_status: None,
            output: None,
            error: None,
            started: Instant::now(),
            duration: None,
            target_id: tab.target_id().to_string(),
        });
        if detach {
            return state
                .invocation(&id)
                .ok_or(WebMcpError::InvocationNotFound(id));
        }
        let done = state
            .wait_ended(&id, timeout)
            .await
            .ok_or_else(|| WebMcpError::InvocationNotFound(id.clone()))?;
        if done.is_pending() {
            state.set_timed_out(&id);
            let _ = tab
                .call(
                    "webmcp_invoke",
                    CANCEL,
                    json!({"invocationId": id}),
                    CALL_DEADLINE,
                )
                .await;
            return state
                .invocation(&id)
                .ok_or(WebMcpError::InvocationNotFound(id));
        }
        Ok(done)
    }

    /// The invocation `id`, after waiting up to `timeout` for it to end.
    pub async fn webmcp_result(
        &self,
        id: &str,
        timeout: Duration,
    ) -> Result<WebMcpInvocation, WebMcpError> {
        self.webmcp_state()
            .wait_ended(id, timeout)
            .await
            .ok_or_else(|| WebMcpError::InvocationNotFound(id.to_string()))
    }

    /// Cancels the pending invocation `id` and returns it once Chrome confirmed.
    pub async fn webmcp_cancel(&self, id: &str) -> Result<WebMcpInvocation, WebMcpError> {
        let state = self.webmcp_state();
        let current = state
            .invocation(id)
            .ok_or_else(|| WebMcpError::InvocationNotFound(id.to_string()))?;
        if !current.is_pending() {
            return Err(WebMcpError::InvocationNotActive {
                id: id.to_string(),
                status: current.status,
            });
        }
        let tab = self
            .attached_tab(&current.target_id)
            .ok_or_else(|| WebMcpError::CancelFailed("the invocation's tab is closed".into()))?;
        tab.call(
            "webmcp_cancel",
            CANCEL,
            json!({"invocationId": id}),
            CALL_DEADLINE,
        )
        .await
        .map_err(|e| WebMcpError::CancelFailed(e.to_string()))?;
        state
            .wait_ended(id, CANCEL_WAIT)
            .await
            .ok_or_else(|| WebMcpError::InvocationNotFound(id.to_string()))
    }
}
