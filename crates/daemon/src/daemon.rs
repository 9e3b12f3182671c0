//! The daemon's state: the session's browser (launched, attached, relaunched, closed), the
//! command lanes, cancellation and activity tracking.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use abx_engine::{AttachOptions, Browser, Session, SessionOptions};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::{BrowserSource, DaemonConfig, LaunchSpec};
use crate::dispatch::{Ctx, Route, Routes};
use crate::errors::Failure;
use crate::protocol::{EffectiveLaunch, EncodedData, Lifecycle, ReplyLine, Request, Timings};
use crate::sidecar::Sidecars;

/// The live browser of the session.
#[derive(Clone)]
pub struct Live {
    /// The engine session.
    pub session: Arc<Session>,
    /// What launched it.
    pub spec: LaunchSpec,
    /// `spec.hash()`.
    pub hash: u64,
}

pub use crate::dispatch::Lane;
pub use crate::sidecar::sanitize_url;

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

/// What a command's execution produced, before it is put on the wire.
#[derive(Debug)]
pub struct Outcome {
    /// `data` or the failure.
    pub result: Result<Value, Failure>,
    /// `data` as the command encoded it itself (then `result`'s is empty).
    pub encoded: Option<EncodedData>,
    /// Lifecycle flags set by a launch during this command.
    pub launch: LaunchNote,
    /// Time spent launching.
    pub launch_ms: u64,
}

impl Outcome {
    fn failed(failure: Failure) -> Outcome {
        Outcome {
            result: Err(failure),
            encoded: None,
            launch: LaunchNote::default(),
            launch_ms: 0,
        }
    }
}

/// What happened to the browser during a command.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchNote {
    /// A browser was launched or attached by this command.
    pub launched_now: bool,
    /// A running browser was replaced.
    pub relaunched: bool,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("session", &self.config.session)
            .finish_non_exhaustive()
    }
}

/// The daemon.
pub struct Daemon {
    /// Configuration read at start.
    pub config: DaemonConfig,
    /// The session's files.
    pub files: Sidecars,
    live: Mutex<Option<Live>>,
    launching: tokio::sync::Mutex<()>,
    queue: tokio::sync::Mutex<()>,
    running: Mutex<Vec<Running>>,
    next_command: std::sync::atomic::AtomicU64,
    last_activity: Mutex<Instant>,
    in_flight: std::sync::atomic::AtomicUsize,
    /// The last launch failed (cleared by one that succeeds).
    launch_failed: std::sync::atomic::AtomicBool,
    /// `<s>.target` names the current browser's tab: written by the first command that used the
    /// session after a launch, not by the launch itself (a session that only ran `stream status`
    /// has bound no tab and has no `.target`, as upstream).
    target_written: std::sync::atomic::AtomicBool,
    /// Cancelled when the daemon should exit.
    pub shutdown: CancellationToken,
    /// Hooks for the live view (the stream server), set by the server at start.
    pub stream: Mutex<Option<Arc<dyn StreamHooks>>>,
    /// The actions this daemon serves.
    pub routes: Routes,
    /// `--state` and `--restore`: what is loaded at launch and saved at close.
    pub restore: crate::restore::Restore,
    /// `--action-policy` and `--confirm-actions`.
    pub gate: crate::action_policy::ActionGate,
    /// The roots HTTP reads trust: set by `--ca-cert`, `--no-ca-cert` and `--use-system-ca` of
    /// any later command, kept until changed (the files are read again for every read).
    http_trust: Mutex<abx_engine::tls::Trust>,
}

/// What the daemon tells the stream server.
pub trait StreamHooks: Send + Sync {
    /// A command starts.
    fn command(&self, request: &Request);
    /// A command ended; `data` makes its reply's `data` (only called when wanted: it copies
    /// or decodes the whole answer).
    fn result(&self, request: &Request, success: bool, data: &dyn Fn() -> Value, duration_ms: u64);
    /// The session's browser or active tab changed.
    fn session_changed(&self, session: Option<Arc<Session>>);
    /// `stream status`: `{"enabled","port","connected","screencasting"}`.
    fn status(&self) -> Value;
    /// `stream enable [--port N]` (0: any free port): the new status.
    fn enable(&self, port: u16) -> Result<Value, Failure>;
    /// `stream disable`.
    fn disable(&self) -> Result<Value, Failure>;
    /// `record start|stop|restart`: recordings from the live view's screencast.
    fn recorder(&self) -> Option<&abx_relay::Recorder> {
        None
    }
}

impl Daemon {
    /// A daemon for `config` (nothing started yet).
    pub fn new(config: DaemonConfig, files: Sidecars, routes: Routes) -> Arc<Daemon> {
        let restore = crate::restore::Restore::from_env(&|name| std::env::var(name).ok());
        restore.expire_old_states();
        let http_trust = abx_engine::tls::Trust {
            ca_file: config.launch.ca_cert.as_ref().map(std::path::PathBuf::from),
            native: config.use_system_ca,
        };
        Arc::new(Daemon {
            http_trust: Mutex::new(http_trust),
            config,
            files,
            live: Mutex::new(None),
            launching: tokio::sync::Mutex::new(()),
            queue: tokio::sync::Mutex::new(()),
            running: Mutex::new(Vec::new()),
            next_command: std::sync::atomic::AtomicU64::new(1),
            last_activity: Mutex::new(Instant::now()),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            launch_failed: std::sync::atomic::AtomicBool::new(false),
            target_written: std::sync::atomic::AtomicBool::new(false),
            shutdown: CancellationToken::new(),
            stream: Mutex::new(None),
            routes,
            restore,
            gate: crate::action_policy::ActionGate::from_env(&|name| std::env::var(name).ok()),
        })
    }

    /// Applies a command's trust changes (`ca_file`: `Some(None)` clears, `Some(Some(p))` sets;
    /// `native`: `Some` sets) and returns the trust now in force.
    pub fn update_http_trust(
        &self,
        ca_file: Option<Option<std::path::PathBuf>>,
        native: Option<bool>,
    ) -> abx_engine::tls::Trust {
        let mut trust = self
            .http_trust
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(ca_file) = ca_file {
            trust.ca_file = ca_file;
        }
        if let Some(native) = native {
            trust.native = native;
        }
        trust.clone()
    }

    fn live_slot(&self) -> MutexGuard<'_, Option<Live>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The live session, if a browser is up.
    pub fn live(&self) -> Option<Live> {
        self.live_slot().clone()
    }

    /// Marks activity now (for the idle timeout).
    pub fn touch(&self) {
        *self
            .last_activity
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
    }

    /// Commands being served now (running, or waiting for their turn in the queue).
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Time since the last command or viewer input.
    pub fn idle_for(&self) -> Duration {
        self.last_activity
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .elapsed()
    }

    pub(crate) fn stream_hooks(&self) -> Option<Arc<dyn StreamHooks>> {
        self.stream.lock().ok().and_then(|s| s.clone())
    }

    /// Handles one request and returns the response line.
    pub async fn handle(self: &Arc<Self>, request: Request) -> Value {
        self.handle_for(request, &CancellationToken::new()).await
    }

    /// [`Daemon::reply_for`], as one [`Value`].
    pub async fn handle_for(
        self: &Arc<Self>,
        request: Request,
        caller: &CancellationToken,
    ) -> Value {
        self.reply_for(request, caller).await.into_value()
    }

    /// [`Daemon::handle`] for a client that may go away: cancelling `caller` cancels the
    /// command (waiting for its turn or running) unless its route runs to completion
    /// ([`Route::cancelled_with_its_client`]). The reply then says so; nobody reads it.
    pub async fn reply_for(
        self: &Arc<Self>,
        request: Request,
        caller: &CancellationToken,
    ) -> ReplyLine {
        self.touch();
        let _running = InFlight::enter(&self.in_flight);
        let started = Instant::now();
        if let Some(hooks) = self.stream_hooks() {
            hooks.command(&request);
        }
        if let Some(stopped) = self.gate.admit(&request) {
            return stopped.into();
        }
        match self.restore.apply_request(&request) {
            Err(f) => {
                return crate::protocol::failure(&request.id, &f.message, f.code, None, None)
                    .into();
            }
            Ok(true) if request.action != "close" => {
                if let Some(live) = self.live() {
                    self.restore.load_restore(&live.session).await;
                }
            }
            Ok(_) => {}
        }
        let route = self.routes.get(&request.action).copied();
        let lane = match route {
            Some(Route {
                lane_of: Some(lane_of),
                ..
            }) => lane_of(&Ctx::new(self, &request)),
            Some(route) => route.lane,
            None => Lane::Queued,
        };
        // A command that runs to completion ignores its client's departure.
        let never = CancellationToken::new();
        let caller = if route.is_none_or(|r| r.cancelled_with_its_client()) {
            caller
        } else {
            &never
        };
        let (outcome, queue_ms) = match lane {
            Lane::Close => (self.run_route(route, &request).await, 0),
            Lane::Fast => (self.execute(route, lane, &request, caller).await, 0),
            Lane::Queued => {
                if route.is_some_and(|r| r.navigates) {
                    self.interrupt_navigations(&request).await;
                }
                let waited = Instant::now();
                let _turn = tokio::select! {
                    turn = self.queue.lock() => turn,
                    _ = self.shutdown.cancelled() => {
                        return crate::protocol::failure(&request.id, "cancelled: the session is closing", Some("cancelled"), None, None).into();
                    }
                    _ = caller.cancelled() => {
                        return crate::protocol::failure(&request.id, &caller_gone(&request.action), Some("cancelled"), None, None).into();
                    }
                };
                let queue_ms = waited.elapsed().as_millis() as u64;
                let outcome = self.execute(route, lane, &request, caller).await;
                // A navigation whose client left is not finished for nobody: the tab stays on
                // the page it shows (still under the queue, so no later navigation is stopped).
                if caller.is_cancelled() && route.is_some_and(|r| r.yields_to_navigation()) {
                    self.stop_loading().await;
                }
                (outcome, queue_ms)
            }
        };
        self.touch();
        let execute_ms = started.elapsed().as_millis() as u64 - queue_ms - outcome.launch_ms;
        let timings = Timings {
            queue_ms,
            launch_ms: outcome.launch_ms,
            execute_ms,
        };
        let reports_dialog = route.is_some_and(|r| r.reports_dialog);
        let mut reply = self.respond(&request, outcome, timings, reports_dialog);
        let live_session = self.live().map(|l| l.session);
        self.restore
            .finish_reply(live_session, &request.action, reply.response_mut())
            .await;
        if let Some(hooks) = self.stream_hooks() {
            hooks.result(
                &request,
                reply.succeeded(),
                &|| reply.data(),
                started.elapsed().as_millis() as u64,
            );
        }
        reply
    }

    fn respond(
        &self,
        request: &Request,
        outcome: Outcome,
        timings: Timings,
        reports_dialog: bool,
    ) -> ReplyLine {
        let live = self.live();
        // Replies that describe the dialog themselves get no warning about it (upstream).
        let warning = live
            .as_ref()
            .filter(|_| !reports_dialog)
            .and_then(|l| dialog_warning(&l.session))
            .or_else(|| {
                // A launch that switched a profile's binary says so, once.
                live.as_ref()
                    .filter(|_| outcome.launch.launched_now)
                    .and_then(|l| l.session.browser().binary())
                    .and_then(abx_chrome::BrowserBinary::warning)
            });
        match outcome.result {
            Ok(data) => {
                // Encoded data is the command's whole answer, without the keys read here.
                let data = match outcome.encoded {
                    Some(_) => Value::Object(serde_json::Map::new()),
                    None => data,
                };
                let cleanup = data.get("__cleanup").cloned();
                let mut data = data;
                // A handler's own warning (`__warning`) goes with the reply's, after it.
                let mut warning = warning;
                if let Value::Object(map) = &mut data {
                    map.remove("__cleanup");
                    if let Some(Value::String(own)) = map.remove("__warning") {
                        warning = Some(match warning {
                            Some(first) => format!("{first}\n{own}"),
                            None => own,
                        });
                    }
                }
                // Upstream ORs a reply's own `launched`/`reused`/`relaunchedBrowser` (a
                // `launch` reports them in its data) into the lifecycle flags.
                let said = |key: &str| data.get(key).and_then(Value::as_bool).unwrap_or(false);
                let lifecycle = Lifecycle {
                    reused: (live.is_some() && !outcome.launch.launched_now) || said("reused"),
                    // Upstream: `launched` only when this command started the browser.
                    launched: (live.is_some() && outcome.launch.launched_now) || said("launched"),
                    relaunched_browser: outcome.launch.relaunched || said("relaunchedBrowser"),
                    restarted_background: false,
                    restore_status: "not_configured",
                    save_status: "not_attempted",
                    effective_launch: EffectiveLaunch {
                        browser_launched: live.is_some(),
                        engine: "chrome",
                        launch_hash: live.as_ref().map(|l| l.hash),
                        browser: live
                            .as_ref()
                            .and_then(|l| l.session.browser().binary().cloned()),
                    },
                    timings,
                    cleanup,
                };
                let line =
                    crate::protocol::success(&request.id, data, &lifecycle, warning.as_deref());
                match outcome.encoded {
                    Some(encoded) => ReplyLine::with_encoded(line, encoded)
                        .for_text(request.flag(abx_wire::extras::TEXT_REPLY)),
                    None => line.into(),
                }
            }
            Err(failure) => crate::protocol::failure(
                &request.id,
                &failure.message,
                failure.code,
                failure.data,
                warning.as_deref(),
            )
            .into(),
        }
    }

    /// Runs a command's handler (or answers that nothing handles it).
    async fn run_route(self: &Arc<Self>, route: Option<Route>, request: &Request) -> Outcome {
        let Some(route) = route else {
            return Outcome {
                result: Err(crate::dispatch::not_implemented(&request.action)),
                encoded: None,
                launch: LaunchNote::default(),
                launch_ms: 0,
            };
        };
        let ctx = Ctx::new(self, request);
        let result = (route.handler)(&ctx)
            .await
            .map_err(|failure| failure.for_action(&request.action));
        let (launch, launch_ms, used_session) = ctx.finish();
        let encoded = ctx.take_encoded().filter(|_| result.is_ok());
        if route.moves_tab && used_session {
            self.write_target_binding();
            if let Some(live) = self.live() {
                self.notify_session(Some(live.session));
            }
        } else if used_session
            && !self
                .target_written
                .load(std::sync::atomic::Ordering::Relaxed)
        {
            self.write_target_binding();
        }
        Outcome {
            result,
            encoded,
            launch,
            launch_ms,
        }
    }

    /// Runs a command with its deadline, cancelled by `close`, by a later navigation (for a
    /// navigation) or by its client going away (`caller`).
    async fn execute(
        self: &Arc<Self>,
        route: Option<Route>,
        lane: Lane,
        request: &Request,
        caller: &CancellationToken,
    ) -> Outcome {
        let token = CancellationToken::new();
        let interrupt = Arc::new(std::sync::OnceLock::new());
        let command_id = self
            .next_command
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(Running {
                id: command_id,
                yields: route.is_some_and(|r| r.yields_to_navigation()),
                url: request.str("url").map(str::to_string),
                token: token.clone(),
                interrupt: interrupt.clone(),
            });
        // Waits carry their own timeout; everything else gets the default, plus slack so the
        // engine's own deadline (with its precise message) fires first.
        let budget = request
            .u64(abx_wire::extras::TIMEOUT)
            .map_or(self.config.command_timeout, Duration::from_millis)
            + Duration::from_secs(5);
        // The wait for the last action's navigation has its own bound; the command's deadline
        // starts after it.
        let work = async {
            if let Some(failure) = self.settle_before(route, lane, request).await {
                return Ok(Outcome::failed(failure));
            }
            tokio::time::timeout(budget, self.run_route(route, request)).await
        };
        // A command that finished as the session began closing keeps its result.
        let outcome = tokio::select! {
            biased;
            outcome = work => match outcome {
                Ok(outcome) => outcome,
                Err(_) => Outcome::failed(Failure::coded(
                    format!(
                        "Operation timed out after {}ms ({}). The page may still be loading or the element may not exist.",
                        budget.as_millis(), request.action
                    ),
                    "timeout",
                )),
            },
            _ = token.cancelled() => Outcome::failed(match interrupt.get() {
                Some(Interrupt::Navigation(by)) => Failure::coded(
                    match request.str("url") {
                        Some(url) => format!("Navigation to {url} was interrupted by {by}"),
                        None => format!("`{}` was interrupted by {by}", request.action),
                    },
                    "interrupted",
                ),
                _ => Failure::coded(
                    format!("cancelled: `{}` was cancelled because the session is closing", request.action),
                    "cancelled",
                ),
            }),
            _ = caller.cancelled() => Outcome::failed(Failure::coded(caller_gone(&request.action), "cancelled")),
        };
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|r| r.id != command_id);
        outcome
    }

    /// Waits for the navigation the last action left for later (`settle_later`), so this command
    /// sees the page it led to: a queued command within its budget, a fast one that reads the
    /// page's state for a moment. A navigation to a URL replaces it instead; `close`, a
    /// `launch`, the waits and the other fast commands do not wait. A queued command fails at
    /// once when the navigation's request is still unanswered: Chrome runs no script of the old
    /// page meanwhile, so it would hang.
    async fn settle_before(
        &self,
        route: Option<Route>,
        lane: Lane,
        request: &Request,
    ) -> Option<Failure> {
        let route = route?;
        if route.fences_on_failure || route.waits {
            return None;
        }
        let timeout = request
            .u64(abx_wire::extras::TIMEOUT)
            .map_or(self.config.command_timeout, Duration::from_millis);
        use abx_engine::DeferredWait;
        let (within, until) = match lane {
            // A navigation to a URL replaces it.
            Lane::Queued if route.navigates && request.str("url").is_some() => return None,
            // A history move or reload needs the page to be the tab's, not loaded.
            Lane::Queued if route.navigates => (timeout.min(DEFERRED_SETTLE), DeferredWait::Commit),
            Lane::Queued => (timeout.min(DEFERRED_SETTLE), DeferredWait::Load),
            Lane::Fast if route.sees_navigation => {
                (timeout.min(STATE_READ_SETTLE), DeferredWait::Committed)
            }
            _ => return None,
        };
        let live = self.live()?;
        match live.session.settle_deferred(within, until).await {
            abx_engine::DeferredNavigation::Unanswered { url } if lane == Lane::Queued => {
                Some(Failure::coded(
                    format!(
                        "The tab is still waiting for {url} to answer (the navigation the last action started; this command waited {} s for it): `open` another page, `reload`, or `wait --load load` to keep waiting",
                        within.as_secs()
                    ),
                    "navigation_pending",
                ))
            }
            _ => None,
        }
    }

    /// A navigation arrived while the tab waits for a page that has not answered yet: the
    /// navigations (and actions waiting for theirs) still running lose the tab to it (Chrome
    /// aborts theirs when the new one starts) and end now instead of at their timeout. A page
    /// that answered and is only loading its resources is waited for, as upstream does.
    async fn interrupt_navigations(&self, request: &Request) {
        let Some(live) = self.live() else {
            return;
        };
        if !live.session.navigation_pending().await {
            return;
        }
        let url = request.str("url");
        let by = match url {
            Some(url) => format!("a navigation to {url}"),
            None => format!("`{}`", request.action),
        };
        // A second `open` of the page being opened (two shells asking for the same page) waits
        // for it instead: both get the page.
        for running in self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|r| r.yields && (url.is_none() || r.url.as_deref() != url))
        {
            let _ = running.interrupt.set(Interrupt::Navigation(by.clone()));
            running.token.cancel();
        }
    }

    /// Stops the active tab's loading (best effort, bounded).
    async fn stop_loading(&self) {
        if let Some(live) = self.live() {
            let _ = live.session.stop_loading().await;
        }
    }

    /// The session's browser, launching or attaching with the spawn-time settings if needed.
    pub async fn ensure_session(
        &self,
        note: &mut LaunchNote,
        launch_ms: &mut u64,
    ) -> Result<Arc<Session>, Failure> {
        if let Some(live) = self.live()
            && live.session.browser().is_alive()
        {
            return Ok(live.session);
        }
        let spec = self.config.launch.clone();
        // Boxed: a launch is rare and large; every command's future stays small.
        Box::pin(self.launch(spec, note, launch_ms, false))
            .await
            .map(|l| l.session)
    }

    /// Launches or attaches per `spec`, replacing a running browser when the settings differ.
    pub async fn launch(
        &self,
        spec: LaunchSpec,
        note: &mut LaunchNote,
        launch_ms: &mut u64,
        explicit: bool,
    ) -> Result<Live, Failure> {
        let result = Box::pin(self.launch_or_reuse(spec, note, launch_ms, explicit)).await;
        self.launch_failed
            .store(result.is_err(), std::sync::atomic::Ordering::SeqCst);
        result
    }

    /// A launch failed and left no browser, and no command is running: nothing this daemon
    /// could serve any more, so it should exit (a later command starts a fresh one).
    pub fn failed_launch_left_nothing(&self) -> bool {
        self.launch_failed.load(std::sync::atomic::Ordering::SeqCst)
            && self.live().is_none()
            && self.in_flight() == 0
    }

    async fn launch_or_reuse(
        &self,
        spec: LaunchSpec,
        note: &mut LaunchNote,
        launch_ms: &mut u64,
        explicit: bool,
    ) -> Result<Live, Failure> {
        let _one_at_a_time = self.launching.lock().await;
        let hash = spec.hash();
        let previous = self.live();
        if let Some(live) = &previous
            && live.session.browser().is_alive()
            && live.hash == hash
        {
            return Ok(live.clone());
        }
        // The CDP socket dropped but the browser may still be there: reconnect to the same
        // browser and the same tab before anything else.
        if let Some(live) = &previous
            && !live.session.browser().is_alive()
            && live.hash == hash
            && let Some(reconnected) = self.reconnect(live).await
        {
            *self.live_slot() = Some(reconnected.clone());
            self.notify_session(Some(reconnected.session.clone()));
            note.launched_now = true;
            return Ok(reconnected);
        }
        // A browser we were attached to is gone: never fall back to launching one (#1421), and
        // never re-attach to the same endpoint unchecked (a browser service would hand out a new,
        // blank browser there; `reconnect` above only takes the same browser back).
        if let Some(live) = &previous
            && live.spec.is_attach()
            && (!explicit || (live.hash == hash && !live.session.browser().is_alive()))
        {
            return Err(Failure::coded(
                format!(
                    "browser_lost: the attached browser at {} is gone; close this session (`agent-browser close`) and start again, or connect to another browser with `agent-browser connect <port|url>`",
                    live.session.browser().cdp_url()
                ),
                "browser_lost",
            ));
        }
        let started = Instant::now();
        // Bad page settings (an unreadable init script...) fail before anything is replaced.
        let page = spec.pages.page_setup()?;
        if let Some(old) = previous {
            note.relaunched = true;
            let _ = old.session.close().await;
            *self.live_slot() = None;
            self.notify_session(None);
        }
        // Attaching ignores the engine (the browser at the endpoint is what it is), as upstream.
        if spec.engine != "chrome" && matches!(spec.source, BrowserSource::Local) {
            return Err(Failure::message(format!(
                "Unsupported engine: {}. abx drives Chrome/Chromium only",
                spec.engine
            )));
        }
        let browser = match &spec.source {
            BrowserSource::Local => {
                let display = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
                Browser::launch(spec.launch_options(display))
                    .await
                    .map_err(|e| Failure::message(crate::errors::launch_failed(&e)))?
            }
            BrowserSource::Cdp(endpoint) => {
                let options = AttachOptions {
                    headers: spec.cdp_headers.clone(),
                    connect_timeout: None,
                    ..AttachOptions::default()
                };
                Browser::attach(endpoint, options)
                    .await
                    .map_err(Failure::from)?
            }
            BrowserSource::AutoConnect => auto_connect().await?,
        };
        let binding = self.read_target_binding().filter(|_| spec.is_attach());
        let (preferred, handed) = match binding {
            Some(TargetBinding {
                target_id,
                fresh: true,
            }) => (None, Some(target_id)),
            Some(TargetBinding { target_id, .. }) => (Some(target_id), None),
            None => (None, None),
        };
        let options = SessionOptions {
            default_timeout: self.config.command_timeout,
            auto_dialog: self.config.auto_dialog,
            pin_tab: spec.pin_tab,
            preferred_target: preferred,
            handed_target: handed,
            policy: Arc::new(self.policy_for(&spec)),
            claims: Some(abx_engine::ClaimDir::for_current_user()),
            name: self.config.session.clone(),
            settle_navigation: true,
            settle_later: true,
            page,
        };
        let browser = Arc::new(browser);
        let session = match Box::pin(Session::start(browser.clone(), options)).await {
            Ok(session) => Arc::new(session),
            Err(err) => {
                browser.close().await;
                return Err(err.into());
            }
        };
        if let Err(failure) = self.restore.after_launch(&session).await {
            session.close().await;
            return Err(failure);
        }
        let live = Live {
            session,
            spec,
            hash,
        };
        self.target_written
            .store(false, std::sync::atomic::Ordering::Relaxed);
        *self.live_slot() = Some(live.clone());
        if !live.spec.is_attach() {
            let _ = self.files.write("engine", "chrome");
        }
        self.notify_session(Some(live.session.clone()));
        note.launched_now = true;
        *launch_ms += started.elapsed().as_millis() as u64;
        Ok(live)
    }

    /// The engine policy of `spec` plus the daemon's own blocklist (`ABX_BLOCKED_SITES`); with
    /// `ABX_BLOCKED_LOG=1`, refused navigations (of either list) are appended to
    /// `<session>.blocked`.
    fn policy_for(&self, spec: &LaunchSpec) -> abx_engine::Policy {
        abx_engine::Policy {
            blocked_sites: abx_engine::SiteBlocklist::new(&self.config.blocked_sites),
            on_blocked: self
                .blocked_log()
                .map(|log| abx_engine::BlockedSink(Arc::new(move |blocked| log.append(blocked)))),
            ..spec.policy()
        }
    }

    /// Where refused navigations are recorded, when the Host asked for it.
    pub fn blocked_log(&self) -> Option<crate::sidecar::BlockedLog> {
        self.config
            .blocked_log
            .then(|| crate::sidecar::BlockedLog::new(self.files.path("blocked")))
    }

    /// Reconnects a session whose CDP connection dropped to the same browser, rebinding its tab.
    async fn reconnect(&self, live: &Live) -> Option<Live> {
        let previous_target = live.session.active_target();
        let browser = match &live.spec.source {
            BrowserSource::Cdp(endpoint) => {
                let options = AttachOptions {
                    headers: live.spec.cdp_headers.clone(),
                    connect_timeout: None,
                    ..AttachOptions::default()
                };
                // Only the same browser: a service may hand out a new, blank one (browser_lost).
                live.session
                    .browser()
                    .reattach(endpoint, options)
                    .await
                    .ok()?
            }
            BrowserSource::Local => {
                let chrome = live.session.browser().take_live_chrome().await?;
                Browser::adopt(chrome).await.ok()?
            }
            BrowserSource::AutoConnect => return None,
        };
        let options = SessionOptions {
            default_timeout: self.config.command_timeout,
            auto_dialog: self.config.auto_dialog,
            pin_tab: live.spec.pin_tab,
            preferred_target: previous_target,
            handed_target: None,
            policy: Arc::new(self.policy_for(&live.spec)),
            claims: Some(abx_engine::ClaimDir::for_current_user()),
            name: self.config.session.clone(),
            settle_navigation: true,
            settle_later: true,
            page: live.spec.pages.page_setup().ok()?,
        };
        let browser = Arc::new(browser);
        // The new session re-takes the pinned tab's claim: the old one lets go first.
        live.session.release_pin_claim();
        let session = Box::pin(Session::start(browser, options)).await.ok()?;
        tracing::debug!("reconnected to the browser after a CDP socket drop");
        Some(Live {
            session: Arc::new(session),
            spec: live.spec.clone(),
            hash: live.hash,
        })
    }

    pub(crate) fn notify_session(&self, session: Option<Arc<Session>>) {
        if let Some(hooks) = self.stream_hooks() {
            hooks.session_changed(session);
        }
    }

    /// The tab named in `<s>.target`: the one this session was bound to before, or (with
    /// `"fresh": true`, written by a Host) a blank tab made for it in advance.
    fn read_target_binding(&self) -> Option<TargetBinding> {
        let text = std::fs::read_to_string(self.files.path("target")).ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        let target_id = value.get("targetId").and_then(Value::as_str)?.to_string();
        let fresh = value.get("fresh").and_then(Value::as_bool).unwrap_or(false);
        Some(TargetBinding { target_id, fresh })
    }

    /// Writes `<s>.target` for the active tab (URL without query, fragment or credentials).
    pub fn write_target_binding(&self) {
        if let Some(live) = self.live() {
            self.write_target_binding_for(&live);
        }
    }

    /// `close`: cancels running commands, closes (owned) or detaches (attached), removes the
    /// socket files, and asks the server to exit once the reply is written. Returns the reply's
    /// data (its `__cleanup` becomes `lifecycle.cleanup`).
    pub async fn close(&self) -> Value {
        for running in self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain(..)
        {
            let _ = running.interrupt.set(Interrupt::Closing);
            running.token.cancel();
        }
        let receipt = self.close_browser().await;
        self.files.remove_ephemeral();
        self.shutdown.cancel();
        let cleanup = serde_json::to_value(&receipt).unwrap_or(Value::Null);
        let (restore_status, save_status) = self.restore.statuses();
        let mut reply = json!({"closed": true, "restoreStatus": restore_status, "saveStatus": save_status, "__cleanup": cleanup});
        if let Some(path) = self.restore.saved_path() {
            reply["statePath"] = json!(path.display().to_string());
        }
        reply
    }

    /// Closes the browser (if any) and forgets it.
    pub async fn close_browser(&self) -> abx_chrome::CloseReceipt {
        let live = self.live_slot().take();
        self.notify_session(None);
        match live {
            Some(live) => {
                if self
                    .target_written
                    .load(std::sync::atomic::Ordering::Relaxed)
                {
                    self.write_target_binding_for(&live);
                }
                self.restore
                    .save_before_close(&live.session, &self.config.session)
                    .await;
                live.session.close().await
            }
            None => abx_chrome::CloseReceipt {
                verified: true,
                ..Default::default()
            },
        }
    }

    fn write_target_binding_for(&self, live: &Live) {
        let Some(target) = live.session.active_target() else {
            return;
        };
        let url = live
            .session
            .browser()
            .target(&target)
            .map(|t| sanitize_url(&t.url))
            .unwrap_or_default();
        let content =
            json!({"targetId": target, "url": url, "pinned": live.spec.pin_tab}).to_string();
        if self.files.write("target", &content).is_ok() {
            self.target_written
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// How long `get url` / `get title` wait for a navigation the last action started (a page that
/// does not commit by then is reported as the tab shows it: the old one).
const STATE_READ_SETTLE: Duration = Duration::from_secs(2);

/// How long a queued command waits for a navigation the last action started before it runs on
/// what the tab shows (a link to a server that never answers must not hold every later
/// command for its whole timeout).
const DEFERRED_SETTLE: Duration = Duration::from_secs(10);

/// A command being run (see `Daemon::execute`).
struct Running {
    id: u64,
    /// A later navigation interrupts it.
    yields: bool,
    /// The URL it navigates to, if it names one.
    url: Option<String>,
    token: CancellationToken,
    /// Why `token` was cancelled, set before it is.
    interrupt: Arc<std::sync::OnceLock<Interrupt>>,
}

/// Why a running command was stopped before its end.
#[derive(Clone, Debug)]
enum Interrupt {
    /// `close`.
    Closing,
    /// A later navigation (described) took the tab.
    Navigation(String),
}

/// The reply to a command whose client went away (nobody reads it; logs and tests do).
fn caller_gone(action: &str) -> String {
    format!("cancelled: the client that sent `{action}` went away")
}

/// What `<s>.target` names (see `Daemon::read_target_binding`).
struct TargetBinding {
    target_id: String,
    fresh: bool,
}

/// Counts a command as running for as long as it lives (also when its future is dropped).
struct InFlight<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> InFlight<'a> {
    fn enter(counter: &'a std::sync::atomic::AtomicUsize) -> Self {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        InFlight(counter)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Upstream's dialog warning, attached to every response while a dialog is pending.
pub fn dialog_warning(session: &Session) -> Option<String> {
    let dialog = session.active_dialog()?;
    Some(format!(
        "A JavaScript {} dialog is blocking the page: \"{}\" — use `dialog accept` or `dialog dismiss` to resolve it",
        dialog.kind, dialog.message
    ))
}

/// `--auto-connect`: the first running Chrome found through a `DevToolsActivePort` file in the
/// user-data directories under `HOME`, else on port 9222 or 9229.
async fn auto_connect() -> Result<Browser, Failure> {
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    for endpoint in abx_engine::discover::auto_connect_candidates(&home) {
        let options = AttachOptions {
            connect_timeout: Some(Duration::from_secs(2)),
            ..AttachOptions::default()
        };
        match Browser::attach(&endpoint, options).await {
            Ok(browser) => return Ok(browser),
            Err(err) => tracing::debug!(%endpoint, %err, "auto-connect candidate failed"),
        }
    }
    Err(Failure::message(
        "No running Chrome instance found. Launch Chrome with --remote-debugging-port or use --cdp.",
    ))
}
