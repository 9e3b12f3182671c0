//! How the daemon runs an action: the table of actions the binary hands it at start
//! ([`Routes`]), the lane each one runs on, and what a handler gets to work with ([`Ctx`]).
//!
//! The daemon knows no command by name: `agent-browser` builds one [`Route`] per wire action
//! from its command registry and passes them to [`crate::run`]. An action the table does not
//! hold is answered with upstream's `Not yet implemented: <action>`, here and nowhere else.
//!
//! ```
//! use abx_daemon::dispatch::{Ctx, Reply, Route, Routes};
//!
//! fn hello<'a>(_ctx: &'a Ctx<'_>) -> Reply<'a> {
//!     Box::pin(async { Ok(serde_json::json!({"hello": true})) })
//! }
//! let routes = Routes::new([Route::fast("hello", hello)]);
//! assert!(routes.get("hello").is_some());
//! assert!(routes.get("bye").is_none());
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_engine::Session;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{DaemonConfig, LaunchSpec};
use crate::daemon::{Daemon, LaunchNote, Live};
use crate::errors::Failure;
use crate::protocol::{EncodedData, Request};

/// How a command is scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// `close`: cancels everything else and ends the daemon.
    Close,
    /// Served at once, even while a page command hangs.
    Fast,
    /// FIFO behind other page commands, under a deadline.
    Queued,
}

/// What a handler returns: the reply's `data`, or why it failed.
pub type Reply<'a> = Pin<Box<dyn Future<Output = Result<Value, Failure>> + Send + 'a>>;

/// A handler: runs one request.
pub type Handler = for<'a, 'c> fn(&'a Ctx<'c>) -> Reply<'a>;

/// Chooses a request's lane from the request and the daemon's state (see [`Route::lane_of`]).
pub type LaneOf = for<'a, 'c> fn(&'a Ctx<'c>) -> Lane;

/// One wire action the daemon serves.
#[derive(Clone, Copy)]
pub struct Route {
    /// The wire action name.
    pub action: &'static str,
    /// Its lane.
    pub lane: Lane,
    /// It can change the page or the active tab: afterwards the daemon rewrites
    /// `<session>.target` and retargets the live view.
    pub moves_tab: bool,
    /// Its reply describes the pending dialog itself, so the daemon adds no dialog `warning`.
    pub reports_dialog: bool,
    /// When it fails, the requests after it on the same connection are answered without being
    /// run (a CLI may pipeline `launch` and its command: the command must not run on a browser
    /// the failed launch did not set up).
    pub fences_on_failure: bool,
    /// It navigates the active tab (`open`, `back`, `forward`, `reload`): it interrupts a
    /// navigation or a [`Route::follows_navigation`] command still running, is interrupted by a
    /// later one, and when its client goes away the tab stops loading.
    pub navigates: bool,
    /// It may start a navigation and then waits for the page (`click`, `press`, …): a later
    /// navigation interrupts it (the page is going elsewhere), and when its client goes away the
    /// tab stops loading. It interrupts nothing itself.
    pub follows_navigation: bool,
    /// A fast command that reads the page's state (`get url`, `get title`): it first waits, for
    /// a moment, for a navigation the last action left for later (queued commands wait for it
    /// within their deadline; see `SessionOptions::settle_later`).
    pub sees_navigation: bool,
    /// A wait (`wait …`): it waits for the page its own way, not first for a navigation the
    /// last action left for later.
    pub waits: bool,
    /// It runs to its end even when its client goes away (it finishes a file, or creates
    /// something the session must keep track of). Other commands are cancelled then.
    pub completes: bool,
    /// Chooses the lane per request instead of [`Route::lane`] (a `launch` that only reuses the
    /// running browser needs no turn in the page queue).
    pub lane_of: Option<LaneOf>,
    /// What runs it.
    pub handler: Handler,
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Route")
            .field("action", &self.action)
            .field("lane", &self.lane)
            .field("moves_tab", &self.moves_tab)
            .field("reports_dialog", &self.reports_dialog)
            .field("fences_on_failure", &self.fences_on_failure)
            .field("navigates", &self.navigates)
            .field("follows_navigation", &self.follows_navigation)
            .field("sees_navigation", &self.sees_navigation)
            .field("waits", &self.waits)
            .field("completes", &self.completes)
            .finish_non_exhaustive()
    }
}

impl Route {
    /// A page command: FIFO behind the others.
    pub const fn queued(action: &'static str, handler: Handler) -> Route {
        Route {
            action,
            lane: Lane::Queued,
            moves_tab: false,
            reports_dialog: false,
            fences_on_failure: false,
            navigates: false,
            follows_navigation: false,
            sees_navigation: false,
            waits: false,
            completes: false,
            lane_of: None,
            handler,
        }
    }

    /// A control command, served at once.
    pub const fn fast(action: &'static str, handler: Handler) -> Route {
        Route {
            lane: Lane::Fast,
            ..Route::queued(action, handler)
        }
    }

    /// A command on the close lane.
    pub const fn close(action: &'static str, handler: Handler) -> Route {
        Route {
            lane: Lane::Close,
            ..Route::queued(action, handler)
        }
    }

    /// Marks it as able to change the page or the active tab (see [`Route::moves_tab`]).
    pub const fn moving_tab(self) -> Route {
        Route {
            moves_tab: true,
            ..self
        }
    }

    /// Marks its reply as describing the dialog itself (see [`Route::reports_dialog`]).
    pub const fn reporting_dialog(self) -> Route {
        Route {
            reports_dialog: true,
            ..self
        }
    }

    /// Marks its failure as fencing its connection (see [`Route::fences_on_failure`]).
    pub const fn fencing_on_failure(self) -> Route {
        Route {
            fences_on_failure: true,
            ..self
        }
    }

    /// Marks it as a navigation (see [`Route::navigates`]).
    pub const fn navigating(self) -> Route {
        Route {
            navigates: true,
            ..self
        }
    }

    /// Marks it as one that may navigate and waits for the page (see
    /// [`Route::follows_navigation`]).
    pub const fn following_navigation(self) -> Route {
        Route {
            follows_navigation: true,
            ..self
        }
    }

    /// Marks it as reading the page's state after a navigation (see
    /// [`Route::sees_navigation`]).
    pub const fn seeing_navigation(self) -> Route {
        Route {
            sees_navigation: true,
            ..self
        }
    }

    /// Marks it as a wait (see [`Route::waits`]).
    pub const fn waiting(self) -> Route {
        Route {
            waits: true,
            ..self
        }
    }

    /// Marks it as running to its end without its client (see [`Route::completes`]).
    pub const fn completing(self) -> Route {
        Route {
            completes: true,
            ..self
        }
    }

    /// Chooses its lane per request with `lane_of` (see [`Route::lane_of`]).
    pub const fn with_lane_of(self, lane_of: LaneOf) -> Route {
        Route {
            lane_of: Some(lane_of),
            ..self
        }
    }

    /// Whether a client that goes away cancels it: not `close`, not a launch (a half-started
    /// browser), not a command marked [`Route::completes`].
    pub fn cancelled_with_its_client(&self) -> bool {
        self.lane != Lane::Close && !self.fences_on_failure && !self.completes
    }

    /// Whether a later navigation interrupts it, and its cancellation stops the tab's loading.
    pub fn yields_to_navigation(&self) -> bool {
        self.navigates || self.follows_navigation
    }
}

/// The daemon's action table.
#[derive(Debug, Default)]
pub struct Routes {
    by_action: HashMap<&'static str, Route>,
}

impl Routes {
    /// A table of `routes` plus the daemon's own internal actions. When two routes name the
    /// same action the first one stays (the binary's registry test forbids duplicates).
    pub fn new(routes: impl IntoIterator<Item = Route>) -> Routes {
        let mut by_action = HashMap::new();
        for route in routes.into_iter().chain(internal::routes()) {
            by_action.entry(route.action).or_insert(route);
        }
        Routes { by_action }
    }

    /// The route of `action`.
    pub fn get(&self, action: &str) -> Option<&Route> {
        self.by_action.get(action)
    }

    /// The lane of `action` (an unknown action queues like a page command).
    pub fn lane(&self, action: &str) -> Lane {
        self.get(action).map_or(Lane::Queued, |r| r.lane)
    }
}

/// Upstream's answer to an action nobody handles.
pub fn not_implemented(action: &str) -> Failure {
    Failure::message(format!("Not yet implemented: {action}"))
}

/// What a handler works with: the request, the session's browser (launched on demand), the
/// daemon's settings and its launch, close and stream controls.
#[derive(Debug)]
pub struct Ctx<'r> {
    daemon: &'r Arc<Daemon>,
    request: &'r Request,
    launch: Mutex<(LaunchNote, u64)>,
    used_session: std::sync::atomic::AtomicBool,
    encoded: Mutex<Option<EncodedData>>,
}

impl<'r> Ctx<'r> {
    pub(crate) fn new(daemon: &'r Arc<Daemon>, request: &'r Request) -> Ctx<'r> {
        Ctx {
            daemon,
            request,
            launch: Mutex::new((LaunchNote::default(), 0)),
            used_session: std::sync::atomic::AtomicBool::new(false),
            encoded: Mutex::new(None),
        }
    }

    /// The request.
    pub fn request(&self) -> &Request {
        self.request
    }

    /// The request's parameters as the command's request type (a wrong type is an
    /// `Invalid request: …` failure).
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, Failure> {
        self.request
            .decode()
            .map_err(|e| Failure::message(e.to_string()))
    }

    /// The command's own deadline (`timeout` in ms), if it carries one.
    pub fn timeout(&self) -> Option<Duration> {
        self.request
            .u64(abx_wire::extras::TIMEOUT)
            .map(Duration::from_millis)
    }

    /// The daemon's settings.
    pub fn config(&self) -> &DaemonConfig {
        &self.daemon.config
    }

    /// Records a refusal the site policy made outside the browser (an HTTP read), as the
    /// browser's refusals are recorded (`ABX_BLOCKED_LOG`).
    pub fn report_blocked(&self, blocked: &abx_engine::BlockedNavigation) {
        if let Some(log) = self.daemon.blocked_log() {
            log.append(blocked);
        }
    }

    /// Applies this command's changes to the roots HTTP reads trust and returns them (see
    /// [`Daemon::update_http_trust`]).
    pub fn update_http_trust(
        &self,
        ca_file: Option<Option<std::path::PathBuf>>,
        native: Option<bool>,
    ) -> abx_engine::tls::Trust {
        self.daemon.update_http_trust(ca_file, native)
    }

    /// The live browser, if one is up (never launches).
    pub fn live(&self) -> Option<Live> {
        self.daemon.live()
    }

    /// The session, launching or attaching the browser with the daemon's settings first when
    /// none is up.
    pub async fn session(&self) -> Result<Arc<Session>, Failure> {
        let mut note = LaunchNote::default();
        let mut launch_ms = 0;
        let session = self.daemon.ensure_session(&mut note, &mut launch_ms).await;
        self.note(note, launch_ms);
        if session.is_ok() {
            self.used_session
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        session
    }

    /// An explicit launch (the `launch` action): replaces a running browser whose settings
    /// differ.
    pub async fn launch(&self, spec: LaunchSpec) -> Result<Live, Failure> {
        let mut note = LaunchNote::default();
        let mut launch_ms = 0;
        let live = Box::pin(self.daemon.launch(spec, &mut note, &mut launch_ms, true)).await;
        self.note(note, launch_ms);
        live
    }

    /// What happened to the browser during this command so far.
    pub fn launch_note(&self) -> LaunchNote {
        self.launch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
    }

    /// Closes the session: cancels running commands, closes (owned) or detaches from
    /// (attached) the browser, removes the socket files and ends the daemon once the reply is
    /// written. Returns the reply's data, with the cleanup receipt for `lifecycle`.
    pub async fn close(&self) -> Value {
        self.daemon.close().await
    }

    /// `confirm <id>`: runs the command parked for confirmation `id`; its action and whole reply.
    pub async fn run_confirmed(&self, id: &str) -> Result<(String, Value), Failure> {
        let (action, request) = self.daemon.gate.take(id, true)?;
        let reply = Box::pin(self.daemon.handle(request)).await;
        Ok((action, reply))
    }

    /// `deny <id>`: drops the command parked for confirmation `id`; its action.
    pub fn deny_pending(&self, id: &str) -> Result<String, Failure> {
        self.daemon.gate.take(id, false).map(|(action, _)| action)
    }

    /// The live-view stream server's controls, when the daemon runs one.
    pub fn stream(&self) -> Option<Arc<dyn crate::daemon::StreamHooks>> {
        self.daemon.stream_hooks()
    }

    fn note(&self, note: LaunchNote, launch_ms: u64) {
        let mut slot = self
            .launch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.0.launched_now |= note.launched_now;
        slot.0.relaunched |= note.relaunched;
        slot.1 += launch_ms;
    }

    /// Answers with `data` the handler encoded itself (see [`EncodedData`]); the handler returns
    /// what this returns.
    pub fn answer_encoded(&self, data: EncodedData) -> Result<Value, Failure> {
        *self
            .encoded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(data);
        Ok(Value::Null)
    }

    pub(crate) fn take_encoded(&self) -> Option<EncodedData> {
        self.encoded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    pub(crate) fn finish(&self) -> (LaunchNote, u64, bool) {
        let slot = self
            .launch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (
            slot.0,
            slot.1,
            self.used_session.load(std::sync::atomic::Ordering::Relaxed),
        )
    }
}

/// The daemon's own actions (not commands of the CLI).
mod internal {
    use serde_json::json;

    use super::{Ctx, Reply, Route, not_implemented};
    use crate::errors::Failure;

    /// Fault injection for the reliability tests (only with `ABX_FAULT_INJECTION=1`).
    const FAULT: &str = "__abx_fault";

    pub(super) fn routes() -> [Route; 1] {
        [Route::fast(FAULT, fault)]
    }

    fn fault<'a>(ctx: &'a Ctx<'_>) -> Reply<'a> {
        let result = (|| {
            if !ctx.config().fault_injection {
                return Err(not_implemented(FAULT));
            }
            let live = ctx.live().ok_or_else(|| Failure::message("no browser"))?;
            match ctx.request().str("kind") {
                Some("drop_cdp") => {
                    live.session.browser().connection().close();
                    Ok(json!({"injected": "drop_cdp"}))
                }
                other => Err(Failure::message(format!("unknown fault {other:?}"))),
            }
        })();
        Box::pin(async move { result })
    }
}
