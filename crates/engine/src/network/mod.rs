//! A session's view of the network: the request log, routes (mocked or aborted requests) and
//! HAR recording.
//!
//! Everything here is per session. Only the tabs the session attached are watched
//! (`Network.enable` on their own CDP sessions), so on a shared anchor another session's tabs are
//! never enabled, paused or intercepted. The log is a ring buffer of [`MAX_REQUESTS`] entries (the
//! oldest go first), and a HAR recording keeps at most [`MAX_HAR_ENTRIES`] entries and bounded
//! bodies, so a long session does not grow without limit.
//!
//! **Routes and the allowlist.** With a hard allowlist the policy already intercepts every
//! request of the session's targets (`policy.rs`); there the policy decides first (a blocked URL
//! stays blocked whatever a route says) and hands an allowed request to the routes. Without an
//! allowlist this module intercepts the session's own tabs itself, only while a route exists.
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> Result<(), abx_engine::network::NetworkError> {
//! use abx_engine::network::{Route, RouteAction, MockResponse, RequestFilter};
//! session.route(Route::new("**/api/*", RouteAction::Fulfill(MockResponse::body("{}")))).await?;
//! for request in session.network_requests(&RequestFilter::default())? {
//!     println!("{} {} {:?}", request.method, request.url, request.status);
//! }
//! # Ok(()) }
//! ```

mod commands;
mod har;
mod log;
mod route;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{fetch, network};
use abx_cdp::{Event, EventFilter, Session as CdpSession};
use base64::Engine as _;
use serde_json::{Map, Value};

pub use har::{HarContent, HarSaved};
pub use log::{RequestDetail, RequestFilter, RequestRecord};
pub(crate) use route::PausedRequest;
pub use route::{MockResponse, Route, RouteAction};
pub(crate) use route::{Routes, answer_paused};

use crate::error::EngineError;
use crate::tab::Tab;

/// How many requests the log keeps (the oldest go first).
pub const MAX_REQUESTS: usize = 1000;
/// How many entries one HAR recording keeps (the oldest go first; the reply counts the dropped).
pub const MAX_HAR_ENTRIES: usize = 10_000;
/// The largest response body embedded in a HAR entry.
pub const MAX_HAR_BODY: usize = 2 * 1024 * 1024;
/// The budget for all bodies of one HAR recording.
pub const MAX_HAR_BODIES: usize = 64 * 1024 * 1024;

/// How long a body or setup call may take.
const CALL_DEADLINE: Duration = Duration::from_secs(5);
/// Events a tab's network pump may fall behind by.
const NETWORK_EVENTS: usize = 8192;

/// Why a network operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NetworkError {
    /// No logged request has this id.
    #[error("Request not found")]
    RequestNotFound {
        /// The id asked for.
        request_id: String,
    },
    /// `har_stop` without a recording.
    #[error("No HAR recording is in progress")]
    HarNotStarted,
    /// The HAR file could not be written; the recording goes on.
    #[error("Failed to write HAR: {reason}")]
    HarWrite {
        /// Where.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A HAR content mode other than `all`, `text`, `none`.
    #[error("Invalid HAR content mode '{0}'. Valid options: all, text, none")]
    InvalidContentMode(String),
    /// A status filter that is not `200`, `2xx` or `400-499`.
    #[error("Invalid status filter '{0}'. Use a code (200), a class (2xx) or a range (400-499)")]
    InvalidStatusFilter(String),
    /// A route without a pattern, or with a status outside 100-599.
    #[error("{0}")]
    InvalidRoute(String),
    /// The engine failed underneath.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl From<abx_cdp::Error> for NetworkError {
    fn from(err: abx_cdp::Error) -> Self {
        NetworkError::Engine(err.into())
    }
}

/// The live network state of one session (a field of [`Session`](crate::Session)).
pub(crate) struct NetworkState {
    log: Mutex<log::Log>,
    har: Mutex<Option<har::Recording>>,
    routes: Routes,
    /// The policy intercepts the session's targets already (an allowlist is set): routes are
    /// answered from its handler, never from a second `Fetch.enable` here.
    policy_intercepts: bool,
    /// The session's own interception (extra headers, credentials): on a tab it intercepts, it
    /// answers the paused requests, routes first, and owns the tab's `Fetch.enable`.
    hooks: Arc<crate::page_setup::FetchHooks>,
    /// The session's watched tabs: target id → its CDP session.
    tabs: Mutex<HashMap<String, CdpSession>>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Drop for NetworkState {
    fn drop(&mut self) {
        for task in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            task.abort();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl NetworkState {
    /// The state of a session whose routes are `routes` (shared with its policy).
    pub(crate) fn new(
        routes: Routes,
        policy_intercepts: bool,
        hooks: Arc<crate::page_setup::FetchHooks>,
    ) -> NetworkState {
        NetworkState {
            log: Mutex::new(log::Log::new(MAX_REQUESTS)),
            har: Mutex::new(None),
            routes,
            policy_intercepts,
            hooks,
            tabs: Mutex::new(HashMap::new()),
            tasks: Mutex::new(Vec::new()),
        }
    }

    fn keep(&self, task: tokio::task::JoinHandle<()>) {
        let mut tasks = lock(&self.tasks);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }

    /// Starts watching a tab the session just attached: its network events feed the log (and a
    /// HAR recording), and without an allowlist its requests meet the routes.
    pub(crate) async fn watch(self: &Arc<Self>, tab: &Tab) {
        let cdp = tab.cdp().clone();
        let target_id = tab.target_id().to_string();
        let mut methods = vec![
            network::EventRequestWillBeSent::IDENTIFIER,
            network::EventResponseReceived::IDENTIFIER,
            network::EventLoadingFinished::IDENTIFIER,
            network::EventLoadingFailed::IDENTIFIER,
        ];
        if !self.policy_intercepts {
            methods.push(fetch::EventRequestPaused::IDENTIFIER);
        }
        let events = cdp.subscribe(EventFilter::methods(methods), NETWORK_EVENTS);
        self.keep(tokio::spawn(pump(
            events,
            cdp.clone(),
            target_id.clone(),
            Arc::downgrade(self),
        )));
        lock(&self.tabs).insert(target_id, cdp.clone());
        // Queued, not awaited: the session's later commands follow it in order.
        if let Err(err) = cdp.send(&network::EnableParams::default()).await {
            tracing::debug!(%err, "cannot enable Network on the tab");
        }
        if !self.policy_intercepts
            && !self.routes.is_empty()
            && !self.hooks.intercepts(tab.target_id())
        {
            let _ = cdp.send(&intercept_all()).await;
        }
    }

    /// Turns the tab-level interception on or off to match the routes (without an allowlist).
    async fn sync_interception(&self) -> Result<(), NetworkError> {
        if self.policy_intercepts {
            return Ok(());
        }
        // A tab the session's hooks intercept keeps their `Fetch.enable` (every request, and
        // authentication challenges); their pump meets the routes.
        let tabs: Vec<(String, CdpSession)> = lock(&self.tabs)
            .iter()
            .filter(|(id, _)| !self.hooks.intercepts(id))
            .map(|(id, cdp)| (id.clone(), cdp.clone()))
            .collect();
        let on = !self.routes.is_empty();
        for (target_id, cdp) in tabs {
            let done = if on {
                cdp.call_within(intercept_all(), CALL_DEADLINE)
                    .await
                    .map(|_| ())
            } else {
                cdp.call_within(fetch::DisableParams::default(), CALL_DEADLINE)
                    .await
                    .map(|_| ())
            };
            if let Err(err) = done {
                // A tab that is gone has nothing left to intercept.
                tracing::debug!(%err, %target_id, "cannot update a tab's interception");
                lock(&self.tabs).remove(&target_id);
            }
        }
        Ok(())
    }

    fn cdp_of(&self, target_id: &str) -> Option<CdpSession> {
        lock(&self.tabs).get(target_id).cloned()
    }

    fn on_event(&self, target_id: &str, event: &Event) -> Option<FinishedBody> {
        let update = log::Update::parse(event)?;
        lock(&self.log).apply(target_id, &update);
        let mut har = lock(&self.har);
        let recording = har.as_mut()?;
        recording.log.apply(target_id, &update);
        let log::Update::Finished { request_id, .. } = &update else {
            return None;
        };
        let record = recording.log.find(request_id)?;
        recording.wants_body(record).then(|| FinishedBody {
            request_id: request_id.clone(),
            generation: recording.generation,
        })
    }

    fn store_har_body(&self, body: FinishedBody, text: String, base64: bool) {
        let mut har = lock(&self.har);
        if let Some(recording) = har.as_mut()
            && recording.generation == body.generation
        {
            recording.store_body(&body.request_id, text, base64);
        }
    }
}

/// A finished response whose body the HAR recording wants.
struct FinishedBody {
    request_id: String,
    generation: u64,
}

fn intercept_all() -> fetch::EnableParams {
    fetch::EnableParams {
        patterns: Some(vec![fetch::RequestPattern {
            url_pattern: Some("*".into()),
            ..Default::default()
        }]),
        handle_auth_requests: None,
    }
}

/// One tab's network events, until its session ends.
async fn pump(
    mut events: abx_cdp::Subscription,
    cdp: CdpSession,
    target_id: String,
    state: Weak<NetworkState>,
) {
    while let Some(event) = events.recv().await {
        let Some(state) = state.upgrade() else {
            return;
        };
        if event.method() == fetch::EventRequestPaused::IDENTIFIER {
            // Only subscribed without an allowlist: the routes decide alone. With no route, or
            // on a tab the session's page hooks intercept (headers, credentials), the pause is
            // not ours: the hooks answer it, routes first. Two answers to one pause race, and
            // the loser's headers or route is lost.
            if state.routes.is_empty() || state.hooks.intercepts(&target_id) {
                continue;
            }
            if let Ok(paused) = event.parse::<PausedRequest>()
                && !answer_paused(&cdp, &state.routes, &paused).await
            {
                let _ = cdp
                    .send(&fetch::ContinueRequestParams::new(paused.request_id))
                    .await;
            }
            continue;
        }
        let Some(wanted) = state.on_event(&target_id, &event) else {
            continue;
        };
        // Bodies are evicted when the page navigates, so a HAR body is fetched as soon as it
        // finished; never on this pump, which must keep reading events.
        let cdp = cdp.clone();
        let weak = Arc::downgrade(&state);
        state.keep(tokio::spawn(async move {
            let Ok(body) = response_body(&cdp, &wanted.request_id).await else {
                return;
            };
            if let Some(state) = weak.upgrade() {
                state.store_har_body(wanted, body.body, body.base64_encoded);
            }
        }));
    }
    if let Some(state) = state.upgrade() {
        let mut tabs = lock(&state.tabs);
        // A tab attached again has a new session: keep that one.
        if tabs.get(&target_id).is_some_and(|s| s.id() == cdp.id()) {
            tabs.remove(&target_id);
        }
    }
}

async fn response_body(
    cdp: &CdpSession,
    request_id: &str,
) -> Result<network::GetResponseBodyReturns, abx_cdp::Error> {
    cdp.call_within(
        network::GetResponseBodyParams::new(request_id.to_string()),
        CALL_DEADLINE,
    )
    .await
}

/// A response body as text when it is UTF-8, else as base64 (`true`).
fn body_text(body: String, base64_encoded: bool) -> (String, bool) {
    if !base64_encoded {
        return (body, false);
    }
    match base64::engine::general_purpose::STANDARD.decode(body.as_bytes()) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => (text, false),
            Err(_) => (body, true),
        },
        Err(_) => (body, true),
    }
}

/// Headers as CDP sends them (`{name: value}`), values kept as strings.
pub(crate) fn headers_of(value: Option<&Value>) -> Map<String, Value> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => Value::String(s.clone()),
                        other => Value::String(other.to_string()),
                    };
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}
