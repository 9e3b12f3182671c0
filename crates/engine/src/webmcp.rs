//! WebMCP: the tools a page registers with `document.modelContext.registerTool(...)` (Chrome's
//! experimental WebMCP, on with the `WebMCPTesting` and `DevToolsWebMCPSupport` features), seen
//! through Chrome's `WebMCP` DevTools domain and invoked through it. Every tab the session
//! attaches is watched from the start, so a tool registered while the page loads is known by the
//! time the load returns; tools and invocations belong to the session's own tabs only.
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> Result<(), abx_engine::WebMcpError> {
//! let tools = session.webmcp_list(None, None).await?;
//! println!("{} tools", tools.len());
//! let done = session
//!     .webmcp_invoke("add", None, serde_json::json!({"a": 2, "b": 3}), false,
//!                    std::time::Duration::from_secs(5))
//!     .await?;
//! println!("{}", done.to_json());
//! # Ok(()) }
//! ```

mod commands;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::page;
use abx_cdp::{EventFilter, Subscription};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::error::EngineError;
use crate::tab::Tab;

// The pinned protocol types have no `WebMCP` domain: these are raw method and event names.
const ENABLE: &str = "WebMCP.enable";
const INVOKE: &str = "WebMCP.invokeTool";
const CANCEL: &str = "WebMCP.cancelInvocation";
const TOOLS_ADDED: &str = "WebMCP.toolsAdded";
const TOOLS_REMOVED: &str = "WebMCP.toolsRemoved";
const TOOL_RESPONDED: &str = "WebMCP.toolResponded";
const FRAME_NAVIGATED: &str = "Page.frameNavigated";

/// How many invocations are remembered per session (the oldest finished ones go first).
const MAX_INVOCATIONS: usize = 256;
/// How long `cancel` waits for Chrome to confirm the cancellation.
const CANCEL_WAIT: Duration = Duration::from_secs(5);
/// The deadline of one WebMCP or frame-tree call.
const CALL_DEADLINE: Duration = Duration::from_secs(10);

/// A WebMCP failure, worded for a library user; [`WebMcpError::code`] is the stable code.
#[derive(Debug, thiserror::Error)]
pub enum WebMcpError {
    /// No tool of that name (in that frame) on the session's page.
    #[error("No WebMCP tool named '{0}'")]
    ToolNotFound(String),
    /// Several frames register a tool of that name and no frame was given.
    #[error("WebMCP tool '{name}' is registered in {frames} frames; choose one with a frame id")]
    AmbiguousTool {
        /// The tool name.
        name: String,
        /// How many frames have it.
        frames: usize,
    },
    /// No invocation with that id in this session.
    #[error("Unknown WebMCP invocation '{0}'")]
    InvocationNotFound(String),
    /// The invocation already ended.
    #[error("WebMCP invocation '{id}' is already {status}")]
    InvocationNotActive {
        /// The invocation id.
        id: String,
        /// How it ended.
        status: String,
    },
    /// The input is not a JSON object.
    #[error("WebMCP tool input must be a JSON object, got {0}")]
    InvalidInput(String),
    /// Chrome refused the invocation.
    #[error("WebMCP invocation failed: {0}")]
    InvokeFailed(String),
    /// Chrome refused the cancellation.
    #[error("WebMCP cancellation failed: {0}")]
    CancelFailed(String),
    /// The session's page could not be reached.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl WebMcpError {
    /// The stable code (upstream's `webmcp_*` codes).
    pub fn code(&self) -> Option<&'static str> {
        Some(match self {
            WebMcpError::ToolNotFound(_) => "webmcp_tool_not_found",
            WebMcpError::AmbiguousTool { .. } => "webmcp_ambiguous_tool",
            WebMcpError::InvocationNotFound(_) => "webmcp_invocation_not_found",
            WebMcpError::InvocationNotActive { .. } => "webmcp_invocation_not_active",
            WebMcpError::InvalidInput(_) => "webmcp_invalid_input",
            WebMcpError::InvokeFailed(_) => "webmcp_invoke_failed",
            WebMcpError::CancelFailed(_) => "webmcp_cancel_failed",
            WebMcpError::Engine(_) => return None,
        })
    }
}

/// One tool a page registered.
#[derive(Clone, Debug)]
pub struct WebMcpTool {
    /// The tool name.
    pub name: String,
    /// Its description (page-provided, untrusted).
    pub description: String,
    /// Its JSON schema (`{}` when the page gave none).
    pub input_schema: Value,
    /// Its annotations (`{}` when none).
    pub annotations: Value,
    /// The frame that registered it.
    pub frame_id: String,
    /// That frame's origin (filled in when listed).
    pub origin: String,
}

impl WebMcpTool {
    /// The listing shape: `{name, description, frameId, origin, inputSchema, annotations}`
    /// (`full: false` leaves out the schema and annotations).
    pub fn to_json(&self, full: bool) -> Value {
        let mut out = json!({
            "name": self.name,
            "description": self.description,
            "frameId": self.frame_id,
            "origin": self.origin,
        });
        if full {
            out["inputSchema"] = self.input_schema.clone();
            out["annotations"] = self.annotations.clone();
        }
        out
    }
}

/// An invocation and, once it ended, its outcome.
#[derive(Clone, Debug)]
pub struct WebMcpInvocation {
    /// Chrome's invocation id.
    pub invocation_id: String,
    /// The tool.
    pub tool_name: String,
    /// The frame it ran in.
    pub frame_id: String,
    /// That frame's origin.
    pub origin: String,
    /// `pending`, `completed`, `failed`, `canceled` or `timed_out`.
    pub status: String,
    /// Chrome's status word (`Completed`, `Error`, `Canceled`), once it answered.
    pub raw_status: Option<String>,
    /// The tool's output, when it completed.
    pub output: Option<Value>,
    /// The error text, when it failed, was canceled or timed out.
    pub error: Option<String>,
    started: Instant,
    duration: Option<Duration>,
    target_id: String,
}

impl WebMcpInvocation {
    /// Upstream's reply shape.
    pub fn to_json(&self) -> Value {
        let elapsed = self.duration.unwrap_or_else(|| self.started.elapsed());
        let mut out = json!({
            "invocationId": self.invocation_id,
            "toolName": self.tool_name,
            "frameId": self.frame_id,
            "origin": self.origin,
            "status": self.status,
            "durationMs": u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        });
        if let Some(raw) = &self.raw_status {
            out["rawStatus"] = json!(raw);
        }
        if let Some(output) = &self.output {
            out["output"] = output.clone();
        }
        if let Some(error) = &self.error {
            out["error"] = json!(error);
        }
        out
    }

    fn is_pending(&self) -> bool {
        self.status == "pending"
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// Per tab: its tools in registration order.
    tools: HashMap<String, Vec<WebMcpTool>>,
    invocations: HashMap<String, WebMcpInvocation>,
    order: Vec<String>,
    /// Answers that came before their invocation was remembered.
    early: HashMap<String, Responded>,
}

/// The session's WebMCP view: every watched tab's tools and the invocations it made.
#[derive(Default)]
pub(crate) struct WebMcpState {
    inner: Mutex<Inner>,
    /// Woken whenever an invocation ends.
    ended: Notify,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Drop for WebMcpState {
    fn drop(&mut self) {
        for task in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            task.abort();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTool {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    input_schema: Option<Value>,
    #[serde(default)]
    annotations: Option<Value>,
    frame_id: String,
}

#[derive(Deserialize)]
struct ToolsEvent {
    #[serde(default)]
    tools: Vec<RawTool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Responded {
    invocation_id: String,
    status: String,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error_text: Option<String>,
    #[serde(default)]
    exception: Option<Value>,
}

impl WebMcpState {
    /// Starts watching a tab the session just attached. A Chrome without the domain (the
    /// headless shell, or WebMCP turned off) answers `enable` with an error: then it simply
    /// never reports tools.
    pub(crate) async fn watch(self: &Arc<Self>, tab: &Tab) {
        let cdp = tab.cdp().clone();
        let events = cdp.subscribe(
            EventFilter::methods([TOOLS_ADDED, TOOLS_REMOVED, TOOL_RESPONDED, FRAME_NAVIGATED]),
            256,
        );
        let task = tokio::spawn(pump(
            events,
            tab.target_id().to_string(),
            Arc::downgrade(self),
        ));
        {
            let mut tasks = lock(&self.tasks);
            tasks.retain(|t| !t.is_finished());
            tasks.push(task);
        }
        // Queued, not awaited: the session's later commands follow it in order.
        if let Err(err) = cdp.send_json(ENABLE, &json!({})).await {
            tracing::debug!(%err, "cannot enable WebMCP on the tab");
        }
    }

    fn on_event(&self, target_id: &str, method: &str, params: Value) {
        let mut inner = lock(&self.inner);
        match method {
            TOOLS_ADDED => {
                let Ok(event) = serde_json::from_value::<ToolsEvent>(params) else {
                    return;
                };
                let tools = inner.tools.entry(target_id.to_string()).or_default();
                for raw in event.tools {
                    tools.retain(|t| !(t.name == raw.name && t.frame_id == raw.frame_id));
                    tools.push(WebMcpTool {
                        name: raw.name,
                        description: raw.description,
                        input_schema: raw.input_schema.unwrap_or_else(|| json!({})),
                        annotations: raw.annotations.unwrap_or_else(|| json!({})),
                        frame_id: raw.frame_id,
                        origin: String::new(),
                    });
                }
            }
            TOOLS_REMOVED => {
                let Ok(event) = serde_json::from_value::<ToolsEvent>(params) else {
                    return;
                };
                if let Some(tools) = inner.tools.get_mut(target_id) {
                    for raw in event.tools {
                        tools.retain(|t| !(t.name == raw.name && t.frame_id == raw.frame_id));
                    }
                }
            }
            FRAME_NAVIGATED => {
                // A new document in a frame: the old document's tools are gone with it.
                let frame = params
                    .pointer("/frame/id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let Some(tools) = inner.tools.get_mut(target_id) {
                    tools.retain(|t| t.frame_id != frame);
                }
            }
            TOOL_RESPONDED => {
                let Ok(done) = serde_json::from_value::<Responded>(params) else {
                    return;
                };
                match inner.invocations.get_mut(&done.invocation_id) {
                    Some(inv) => apply(inv, done),
                    // A quick tool can answer before `invokeTool`'s reply is handled and the
                    // invocation remembered: keep the answer for `remember`.
                    None => {
                        if inner.early.len() >= MAX_INVOCATIONS {
                            inner.early.clear();
                        }
                        inner.early.insert(done.invocation_id.clone(), done);
                    }
                }
                drop(inner);
                self.ended.notify_waiters();
            }
            _ => {}
        }
    }

    fn remember(&self, invocation: WebMcpInvocation) {
        let mut inner = lock(&self.inner);
        if inner.order.len() >= MAX_INVOCATIONS {
            let finished = inner
                .order
                .iter()
                .position(|id| inner.invocations.get(id).is_none_or(|i| !i.is_pending()));
            if let Some(at) = finished {
                let id = inner.order.remove(at);
                inner.invocations.remove(&id);
            }
        }
        let mut invocation = invocation;
        if let Some(done) = inner.early.remove(&invocation.invocation_id) {
            apply(&mut invocation, done);
        }
        inner.order.push(invocation.invocation_id.clone());
        inner
            .invocations
            .insert(invocation.invocation_id.clone(), invocation);
    }

    fn invocation(&self, id: &str) -> Option<WebMcpInvocation> {
        lock(&self.inner).invocations.get(id).cloned()
    }

    /// Waits until `id` is no longer pending, or `within` passed; its record then.
    async fn wait_ended(&self, id: &str, within: Duration) -> Option<WebMcpInvocation> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let ended = self.ended.notified();
            tokio::pin!(ended);
            ended.as_mut().enable();
            let current = self.invocation(id)?;
            if !current.is_pending() {
                return Some(current);
            }
            if tokio::time::timeout_at(deadline, ended).await.is_err() {
                return self.invocation(id);
            }
        }
    }

    fn set_timed_out(&self, id: &str) {
        if let Some(inv) = lock(&self.inner).invocations.get_mut(id)
            && inv.is_pending()
        {
            inv.status = "timed_out".into();
            inv.error = Some("WebMCP invocation timed out".into());
            inv.duration = Some(inv.started.elapsed());
        }
    }
}

/// Folds Chrome's answer into a pending invocation.
fn apply(inv: &mut WebMcpInvocation, done: Responded) {
    if !inv.is_pending() {
        return;
    }
    inv.status = match done.status.as_str() {
        "Completed" => "completed",
        "Canceled" => "canceled",
        _ => "failed",
    }
    .to_string();
    inv.duration = Some(inv.started.elapsed());
    if done.status == "Completed" {
        inv.output = Some(decode_output(done.output.unwrap_or(Value::Null)));
    } else {
        let thrown = done
            .exception
            .as_ref()
            .and_then(|e| e.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string);
        inv.error = Some(
            done.error_text
                .filter(|t| !t.is_empty())
                .or(thrown)
                .unwrap_or_default(),
        );
    }
    inv.raw_status = Some(done.status);
}

/// Chrome hands a tool's output over as the page returned it; a string that holds JSON (the
/// spec has tools return serialized results) is decoded, any other string stays a string.
fn decode_output(output: Value) -> Value {
    match &output {
        Value::String(text) => serde_json::from_str(text).unwrap_or(output),
        _ => output,
    }
}

async fn pump(mut events: Subscription, target_id: String, state: Weak<WebMcpState>) {
    while let Some(event) = events.recv().await {
        let Some(state) = state.upgrade() else {
            return;
        };
        let Ok(params) = event.parse::<Value>() else {
            continue;
        };
        state.on_event(&target_id, event.method(), params);
    }
}

/// Frame id → security origin of the tab's frames now.
async fn frame_origins(
    tab: &Tab,
    timeout: Duration,
) -> Result<HashMap<String, String>, EngineError> {
    let tree = tab
        .request("webmcp", page::GetFrameTreeParams::default(), timeout)
        .await?;
    let mut out = HashMap::new();
    let mut stack = vec![tree.frame_tree];
    while let Some(node) = stack.pop() {
        let origin = node.frame.security_origin.clone();
        out.insert(node.frame.id.inner().clone(), origin);
        stack.extend(node.child_frames.unwrap_or_default());
    }
    Ok(out)
}

/// Tools as upstream's `webmcp list` data: `{experimental, untrusted, tools}`.
pub fn tools_report(tools: &[WebMcpTool]) -> Value {
    let list: Vec<Value> = tools.iter().map(|t| t.to_json(true)).collect();
    let mut out = Map::new();
    out.insert("experimental".into(), json!(true));
    out.insert("untrusted".into(), json!(true));
    out.insert("tools".into(), Value::Array(list));
    Value::Object(out)
}
