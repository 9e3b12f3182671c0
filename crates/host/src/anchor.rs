//! Anchors: one browser per (run, profile) that owns the profile for the whole run (seed §4
//! step 3). Callers in one process are deduplicated, processes are serialized by a `flock` on
//! `anchor.lock`, the record (`anchor.json`, 0600, atomic) holds the CDP address, and a stored
//! anchor is probed over CDP before use. A dead anchor is replaced and every stage env of the
//! run that pointed at it gets the new address (limitation 10). Every anchor in use is watched
//! (`watch.rs`): its loss is an event at once, not a surprise at the next stage.
//!
//! A local anchor is recorded *before* it is launched (`anchor.json` with no address yet), and
//! a start that does not finish (its preparation dropped, `get cdp-url` failing) closes what it
//! launched, holding the anchor's locks until it is gone; a Host that dies mid-start leaves the
//! record for `end_run`, the next `prepare_stage` or the sweep. No Chrome is left holding a
//! profile without a record.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::browser::{CloseParams, GetVersionParams};
use abx_cdp::{ConnectOptions, Connection};
use abx_engine::{AttachOptions, Browser};
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

use crate::display::{DisplayChoice, DisplayProbe, Screen};
use crate::env::{self, BrowserEnv, LaunchSettings, SessionPlace, var};
use crate::error::{HostError, Result};
use crate::fsutil::{now_ms, private_dir, read_json, remove_file, write_json};
use crate::host::HostEvent;
use crate::names::{ProfileKey, RunId, Scope};
use crate::owner::{OwnerKind, OwnerRecord};
use crate::profile::ProfileHandle;
use crate::runner::{BrowserRunner, run_ok};
use crate::spare::SpareTabs;
use crate::stage::StageRecord;
use crate::watch::Watches;

/// What a [`StageAddressResolver`] learns about a remote browser the Host just connected to.
#[derive(Clone, Debug)]
pub struct RemoteBrowser {
    /// The WebSocket URL the Host's connection speaks to (after discovery).
    pub connected_url: String,
    /// The target ids of that browser (its tabs), to recognise it in a service's listing.
    pub target_ids: Vec<String>,
}

/// Finds the address other clients (the stages) use to reach the *same* remote browser.
pub type StageAddressResolver = Arc<
    dyn Fn(RemoteBrowser) -> crate::runner::BoxFuture<'static, std::result::Result<String, String>>
        + Send
        + Sync,
>;

/// A browser service instead of a local Chrome (seed §8: the seam a fleet uses).
#[derive(Clone)]
pub struct RemoteEndpoint {
    /// `ws(s)://…` or `http(s)://…`, e.g. `wss://browsers.example/chromium?token=…`.
    pub url: String,
    /// Headers for discovery and the handshake (e.g. `Authorization`); stages send them too.
    pub headers: Vec<(String, String)>,
    /// How stages reach the browser the Host's connection opened. `None`: the URL that
    /// connection speaks to (right for a remote Chrome, whose discovered URL names its browser).
    /// A service that launches a browser per connection to its launch URL needs a resolver
    /// (e.g. its session listing: see `docs/host.md`).
    pub stage_address: Option<StageAddressResolver>,
}

impl std::fmt::Debug for RemoteEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEndpoint")
            .field("url", &redact(&self.url))
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("stage_address", &self.stage_address.is_some())
            .finish()
    }
}

/// Where anchors come from.
#[derive(Clone, Debug, Default)]
pub enum BrowserSource {
    /// An `agent-browser` session with the profile folder, owning a local Chrome.
    #[default]
    Local,
    /// A remote CDP endpoint; the Host keeps one connection per anchor open for the run.
    Remote(RemoteEndpoint),
}

/// `anchor.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnchorRecord {
    /// The run.
    pub run: RunId,
    /// The profile.
    pub profile: ProfileKey,
    /// The address stages attach to.
    pub cdp: String,
    /// Headers stages send with it (remote).
    #[serde(default)]
    pub cdp_headers: Vec<(String, String)>,
    /// The anchor session's env (local anchors).
    #[serde(default)]
    pub env: Option<BrowserEnv>,
    /// The remote endpoint it came from (remote anchors).
    #[serde(default)]
    pub remote: Option<String>,
    /// Headed or headless, and why.
    pub display: DisplayChoice,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
    /// How often it was replaced after dying.
    pub restarts: u32,
}

impl AnchorRecord {
    /// Recorded before its browser was started, with no address yet: it is starting, or a
    /// start that never finished (its session may still hold the profile; closing or replacing
    /// the anchor closes that session).
    pub fn is_starting(&self) -> bool {
        self.cdp.is_empty()
    }
}

/// The anchor a stage attaches to.
#[derive(Clone, Debug)]
pub struct AnchorState {
    /// Its record.
    pub record: AnchorRecord,
    /// It was started (or restarted) by this call.
    pub started: bool,
    /// A previous anchor of this run and profile had died and was replaced.
    pub restarted: bool,
}

pub(crate) struct AnchorSettings {
    pub home: PathBuf,
    pub socket_root: PathBuf,
    pub prefix: String,
    pub config_file: PathBuf,
    pub launch: LaunchSettings,
    pub display: DisplayProbe,
    pub source: BrowserSource,
    pub command_timeout: Duration,
    pub lock_wait: Duration,
    pub close_attempts: u32,
    pub spare_tabs: usize,
    /// This Host process, named in the owner records of its anchors.
    pub host: crate::owner::HostIdentity,
}

pub(crate) struct Anchors {
    pub settings: AnchorSettings,
    runner: Arc<dyn BrowserRunner>,
    inflight: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    keepers: Mutex<HashMap<String, Arc<Browser>>>,
    /// Blank tabs made ahead for starting stages (see `spare.rs`), over the connection the
    /// watches use.
    pub spares: Arc<SpareTabs>,
    /// The loss watch of every anchor in use (see `watch.rs`).
    pub watches: Watches,
}

/// Closes what an anchor start launched when the start does not finish. Armed with the
/// anchor's session env before its `open`; on an error the start awaits [`StartGuard::abandon`];
/// when the preparation is dropped mid-start, `Drop` hands the cleanup to a task that keeps the
/// anchor's locks until the session is gone, so no other start reuses the session meanwhile.
struct StartGuard {
    runner: Arc<dyn BrowserRunner>,
    record_path: PathBuf,
    close_attempts: u32,
    timeout: Duration,
    session: Option<BrowserEnv>,
    locks: Option<(tokio::sync::OwnedMutexGuard<()>, Flock<fs::File>)>,
}

impl StartGuard {
    async fn abandon(&mut self) {
        if let Some(env) = self.session.take() {
            abandon_start(
                &*self.runner,
                &env,
                &self.record_path,
                self.close_attempts,
                self.timeout,
            )
            .await;
        }
    }
}

impl Drop for StartGuard {
    fn drop(&mut self) {
        let Some(env) = self.session.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(
                "an anchor start was dropped outside a runtime; end_run or the sweep closes it"
            );
            return;
        };
        tracing::info!(
            session = env.session().unwrap_or(""),
            "anchor start dropped; closing what it launched"
        );
        let runner = self.runner.clone();
        let record_path = self.record_path.clone();
        let (attempts, timeout) = (self.close_attempts, self.timeout);
        let locks = self.locks.take();
        runtime.spawn(async move {
            abandon_start(&*runner, &env, &record_path, attempts, timeout).await;
            // A client ended right after it spawned the session's daemon leaves a daemon that
            // comes up only now: give it a moment to appear, and close it too.
            let deadline = tokio::time::Instant::now() + DAEMON_APPEARS;
            while tokio::time::Instant::now() < deadline {
                if env.session_file("pid").is_some_and(|p| p.exists()) {
                    abandon_start(&*runner, &env, &record_path, attempts, timeout).await;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            drop(locks);
        });
    }
}

/// How long the cleanup of a dropped start watches for a session daemon still coming up.
const DAEMON_APPEARS: Duration = Duration::from_secs(1);

/// Closes a start's session (verified gone), then removes its socket dir and its record.
async fn abandon_start(
    runner: &dyn BrowserRunner,
    env: &BrowserEnv,
    record_path: &Path,
    attempts: u32,
    timeout: Duration,
) {
    if crate::stage::close_session(runner, env, attempts, timeout).await {
        if let Some(dir) = env.socket_dir() {
            crate::stage::remove_session_dir(dir);
        }
        if read_json::<AnchorRecord>(record_path)
            .ok()
            .flatten()
            .is_some_and(|r| r.is_starting())
        {
            let _ = remove_file(record_path);
        }
    } else {
        tracing::warn!(
            session = env.session().unwrap_or(""),
            "an unfinished anchor start did not close; end_run or the sweep retries"
        );
    }
}

pub(crate) fn run_dir(home: &Path, run: &RunId) -> PathBuf {
    home.join("runs").join(run.as_str())
}

pub(crate) fn anchor_dir(home: &Path, run: &RunId, key: &ProfileKey) -> PathBuf {
    run_dir(home, run)
        .join("browser")
        .join(key.scope.as_str())
        .join(key.name.as_str())
}

fn identity(run: &RunId, key: &ProfileKey) -> String {
    format!("{run}/{key}")
}

/// Strips the query (tokens) from an address for messages.
pub(crate) fn redact(url: &str) -> String {
    url.split('?').next().unwrap_or(url).to_string()
}

/// Whether a CDP address answers `Browser.getVersion`.
pub(crate) async fn probe(cdp: &str, headers: &[(String, String)]) -> bool {
    let options = ConnectOptions {
        headers: headers.to_vec(),
        connect_timeout: Duration::from_secs(3),
        ..ConnectOptions::default()
    };
    let Ok(connection) = Connection::connect_with(cdp, options).await else {
        return false;
    };
    let alive = connection
        .browser()
        .call_within(GetVersionParams::default(), Duration::from_secs(3))
        .await
        .is_ok();
    connection.close();
    alive
}

/// Ends a browser over CDP with `Browser.close` (graceful: cookies flushed).
pub(crate) async fn close_over_cdp(cdp: &str, headers: &[(String, String)]) -> bool {
    let options = ConnectOptions {
        headers: headers.to_vec(),
        connect_timeout: Duration::from_secs(3),
        ..ConnectOptions::default()
    };
    let Ok(connection) = Connection::connect_with(cdp, options).await else {
        return false;
    };
    let _ = connection
        .browser()
        .call_within(CloseParams::default(), Duration::from_secs(5))
        .await;
    let closed = tokio::time::timeout(Duration::from_secs(10), connection.closed())
        .await
        .is_ok();
    connection.close();
    closed
}

impl Anchors {
    pub(crate) fn new(
        settings: AnchorSettings,
        runner: Arc<dyn BrowserRunner>,
        events: tokio::sync::broadcast::Sender<HostEvent>,
        audit: crate::audit::Audit,
    ) -> Self {
        Self {
            spares: Arc::new(SpareTabs::new(
                settings.spare_tabs,
                abx_engine::ClaimDir::for_current_user(),
            )),
            watches: Watches::new(settings.home.clone(), events, audit),
            settings,
            runner,
            inflight: Mutex::new(HashMap::new()),
            keepers: Mutex::new(HashMap::new()),
        }
    }

    fn record_path(&self, run: &RunId, key: &ProfileKey) -> PathBuf {
        anchor_dir(&self.settings.home, run, key).join("anchor.json")
    }

    /// The stored anchor of `run` on `key`.
    pub(crate) fn record(&self, run: &RunId, key: &ProfileKey) -> Result<Option<AnchorRecord>> {
        read_json(&self.record_path(run, key))
    }

    /// Every stored anchor of `run`.
    pub(crate) fn records_of(&self, run: &RunId) -> Vec<AnchorRecord> {
        let base = run_dir(&self.settings.home, run).join("browser");
        let mut out = Vec::new();
        for scope in fs::read_dir(&base).into_iter().flatten().flatten() {
            for profile in fs::read_dir(scope.path()).into_iter().flatten().flatten() {
                if let Ok(Some(record)) =
                    read_json::<AnchorRecord>(&profile.path().join("anchor.json"))
                {
                    out.push(record);
                }
            }
        }
        out
    }

    fn keeper(&self, id: &str) -> Option<Arc<Browser>> {
        self.keepers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    /// The anchor of `run` on `handle`'s profile, started or replaced as needed. `display` is
    /// what the calling stage needs; a headless anchor is replaced when a window is needed.
    pub(crate) async fn ensure(
        &self,
        scope: &Scope,
        run: &RunId,
        handle: &ProfileHandle,
        display: &DisplayChoice,
    ) -> Result<AnchorState> {
        let key = handle.key().clone();
        let id = identity(run, &key);
        let mut restarts_before = 0;
        let gate = {
            let mut inflight = self.inflight.lock().unwrap_or_else(|p| p.into_inner());
            inflight.entry(id.clone()).or_default().clone()
        };
        // One caller per anchor in this process; the others wait and reuse its result.
        let one = gate.lock_owned().await;
        let dir = anchor_dir(&self.settings.home, run, &key);
        private_dir(&dir)?;
        let cross = self.lock(&dir.join("anchor.lock")).await?;
        let mut previous = self.record(run, &key)?;
        if let Some(record) = previous.take_if(|r| r.is_starting()) {
            tracing::warn!(run = %run, profile = %key, "closing an anchor start that never finished");
            self.close_record(&record).await;
            // Not a restart: the anchor never served a stage. Its count carries over.
            previous = None;
            restarts_before = record.restarts;
        }
        if let Some(record) = &previous {
            let alive = match self.keeper(&id) {
                Some(keeper) => keeper.is_alive() && probe(&record.cdp, &record.cdp_headers).await,
                None => probe(&record.cdp, &record.cdp_headers).await,
            };
            let needs_window = display.headed && !record.display.headed;
            if alive && !needs_window {
                self.watches
                    .watch(record, self.keeper(&id), self.spares.clone());
                return Ok(AnchorState {
                    record: record.clone(),
                    started: false,
                    restarted: false,
                });
            }
            if alive {
                tracing::info!(run = %run, profile = %key, "replacing a headless anchor with a headed one");
                self.close_record(record).await;
            } else {
                tracing::warn!(run = %run, profile = %key, "the anchor died; starting a new one");
                self.forget_dead(record).await;
            }
        }
        let restarted = previous.is_some();
        let restarts = previous
            .as_ref()
            .map_or(restarts_before, |old| old.restarts + 1);
        let mut guard = StartGuard {
            runner: self.runner.clone(),
            record_path: self.record_path(run, &key),
            close_attempts: self.settings.close_attempts,
            timeout: self.settings.command_timeout,
            session: None,
            locks: Some((one, cross)),
        };
        let mut record = match &self.settings.source {
            BrowserSource::Local => {
                self.start_local(scope, run, handle, display, restarts, &mut guard)
                    .await?
            }
            BrowserSource::Remote(endpoint) => {
                self.start_remote(scope, run, &key, endpoint, display)
                    .await?
            }
        };
        record.restarts = restarts;
        write_json(&self.record_path(run, &key), &record)?;
        // Recorded: from here on `end_run` closes it like any anchor.
        guard.session = None;
        self.watches
            .watch(&record, self.keeper(&id), self.spares.clone());
        // Also after a start that never finished replaced a dead anchor: every stage env on
        // this profile that points elsewhere points at a browser that is gone.
        self.repoint_stages(run, &key, &record).await?;
        Ok(AnchorState {
            record,
            started: true,
            restarted,
        })
    }

    /// Waits for the cross-process anchor lock (a dead holder's lock is freed by the kernel).
    async fn lock(&self, path: &Path) -> Result<Flock<fs::File>> {
        let started = Instant::now();
        loop {
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)
                .map_err(|e| HostError::io("cannot open anchor lock", path, e))?;
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => return Ok(lock),
                Err((_, nix::errno::Errno::EWOULDBLOCK)) => {}
                Err((_, errno)) => return Err(HostError::io("cannot lock", path, errno.into())),
            }
            if started.elapsed() > self.settings.lock_wait {
                return Err(HostError::AnchorLockTimedOut {
                    path: path.to_path_buf(),
                    waited: started.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn start_local(
        &self,
        scope: &Scope,
        run: &RunId,
        handle: &ProfileHandle,
        display: &DisplayChoice,
        restarts: u32,
        guard: &mut StartGuard,
    ) -> Result<AnchorRecord> {
        let key = handle.key();
        let fail = |reason: String| HostError::Anchor {
            run: run.to_string(),
            profile: key.to_string(),
            reason,
        };
        let profile_dir = handle.user_data_dir().ok_or_else(|| {
            fail("a local anchor needs a profile folder; this profile store keeps none".into())
        })?;
        let place =
            SessionPlace::anchor(&self.settings.socket_root, &self.settings.prefix, run, key)?;
        private_dir(&self.settings.socket_root)?;
        private_dir(&place.socket_dir)?;
        let mut anchor_env = BrowserEnv::new();
        env::common(&mut anchor_env, &place, &self.settings.config_file);
        env::launching(&mut anchor_env, &self.settings.launch, display.headed);
        anchor_env.set(var::PROFILE, profile_dir.to_string_lossy());
        if display.headed && matches!(self.settings.display.screen(), Screen::Window { .. }) {
            for (name, value) in self.settings.display.window_vars() {
                anchor_env.set(&name, value);
            }
        }
        // The owner record first: a Host that dies right now still leaves a sweepable trace.
        OwnerRecord {
            kind: OwnerKind::Anchor,
            scope: scope.clone(),
            run: run.clone(),
            stage: None,
            profile: Some(key.clone()),
            env: Some(anchor_env.clone()),
            cdp: None,
            cdp_headers: Vec::new(),
            host: Some(self.settings.host.clone()),
        }
        .write(&place.socket_dir)?;
        // Then the anchor record, with no address yet: `end_run` and the next start close
        // whatever this start leaves behind if it never finishes.
        let mut record = AnchorRecord {
            run: run.clone(),
            profile: key.clone(),
            cdp: String::new(),
            cdp_headers: Vec::new(),
            env: Some(anchor_env.clone()),
            remote: None,
            display: display.clone(),
            started_ms: now_ms(),
            restarts,
        };
        write_json(&guard.record_path, &record)?;
        guard.session = Some(anchor_env.clone());
        let timeout = self.settings.command_timeout;
        if let Err(err) = run_ok(
            &*self.runner,
            &anchor_env,
            &["open", "about:blank"],
            timeout,
        )
        .await
        {
            guard.abandon().await;
            return Err(fail(err.to_string()));
        }
        let cdp = match run_ok(&*self.runner, &anchor_env, &["get", "cdp-url"], timeout).await {
            Ok(out) if !out.answer("cdpUrl").trim().is_empty() => {
                out.answer("cdpUrl").trim().to_string()
            }
            Ok(_) => {
                guard.abandon().await;
                return Err(fail("the shared browser reported no address".into()));
            }
            Err(e) => {
                guard.abandon().await;
                return Err(fail(format!(
                    "could not read the shared browser address: {e}"
                )));
            }
        };
        let mode = display.to_string();
        tracing::info!(run = %run, profile = %key, %mode, "anchor started");
        record.cdp = cdp;
        record.started_ms = now_ms();
        Ok(record)
    }

    async fn start_remote(
        &self,
        scope: &Scope,
        run: &RunId,
        key: &ProfileKey,
        endpoint: &RemoteEndpoint,
        display: &DisplayChoice,
    ) -> Result<AnchorRecord> {
        let remote_error = |source| HostError::Remote {
            endpoint: redact(&endpoint.url),
            source,
        };
        let options = AttachOptions {
            headers: endpoint.headers.clone(),
            connect_timeout: Some(Duration::from_secs(15)),
            ..AttachOptions::default()
        };
        let keeper = Browser::attach(&endpoint.url, options)
            .await
            .map_err(remote_error)?;
        let cdp = match &endpoint.stage_address {
            None => keeper.cdp_url().to_string(),
            Some(resolve) => {
                let browser = RemoteBrowser {
                    connected_url: keeper.cdp_url().to_string(),
                    target_ids: keeper.targets().into_iter().map(|t| t.target_id).collect(),
                };
                match resolve(browser).await {
                    Ok(address) => address,
                    Err(reason) => {
                        keeper.close().await;
                        return Err(HostError::Anchor {
                            run: run.to_string(),
                            profile: key.to_string(),
                            reason: format!("cannot find the remote browser's address: {reason}"),
                        });
                    }
                }
            }
        };
        let place =
            SessionPlace::anchor(&self.settings.socket_root, &self.settings.prefix, run, key)?;
        private_dir(&place.socket_dir)?;
        OwnerRecord {
            kind: OwnerKind::RemoteAnchor,
            scope: scope.clone(),
            run: run.clone(),
            stage: None,
            profile: Some(key.clone()),
            env: None,
            cdp: Some(cdp.clone()),
            cdp_headers: endpoint.headers.clone(),
            host: Some(self.settings.host.clone()),
        }
        .write(&place.socket_dir)?;
        self.keepers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(identity(run, key), Arc::new(keeper));
        tracing::info!(run = %run, profile = %key, endpoint = %redact(&endpoint.url), "remote anchor connected");
        Ok(AnchorRecord {
            run: run.clone(),
            profile: key.clone(),
            cdp,
            cdp_headers: endpoint.headers.clone(),
            env: None,
            remote: Some(redact(&endpoint.url)),
            display: display.clone(),
            started_ms: now_ms(),
            restarts: 0,
        })
    }

    /// A dead anchor's leftovers: its daemon is asked to close (it still cleans its files).
    async fn forget_dead(&self, record: &AnchorRecord) {
        // The loss first (reported unless the watch did), while the pids are still known.
        self.watches.found_dead(record).await;
        self.spares.forget(&record.cdp).await;
        if let Some(env) = &record.env {
            let _ = self
                .runner
                .run(env, &["close"], self.settings.command_timeout)
                .await;
        }
        let id = identity(&record.run, &record.profile);
        let keeper = self
            .keepers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        if let Some(keeper) = keeper {
            keeper.close().await;
        }
    }

    /// Points every stage env of `run` on `key` that does not use the new anchor at it; each
    /// old stage session is closed first (its browser is gone; a close never re-attaches).
    async fn repoint_stages(
        &self,
        run: &RunId,
        key: &ProfileKey,
        record: &AnchorRecord,
    ) -> Result<()> {
        let stages = run_dir(&self.settings.home, run).join("stages");
        for entry in fs::read_dir(&stages).into_iter().flatten().flatten() {
            let path = entry.path().join(crate::stage::ENV_FILE);
            let Ok(Some(mut stage)) = read_json::<StageRecord>(&path) else {
                continue;
            };
            if stage.profile.as_ref() != Some(key) || stage.env.cdp() == Some(record.cdp.as_str()) {
                continue;
            }
            let _ = self
                .runner
                .run(&stage.env, &["close"], self.settings.command_timeout)
                .await;
            stage.env.set(var::CDP, record.cdp.clone());
            write_json(&path, &stage)?;
            tracing::info!(run = %run, stage = %entry.file_name().to_string_lossy(), "stage env points at the new anchor");
        }
        Ok(())
    }

    /// Closes an anchor gracefully: `agent-browser close` for a local one (retried; then
    /// `Browser.close` over CDP if the daemon cannot do it), `Browser.close` for a remote one.
    /// Never a signal. Returns whether it is verified gone.
    pub(crate) async fn close_record(&self, record: &AnchorRecord) -> bool {
        // Unwatched first: closing it on purpose is no loss. Then the spares: their connection
        // must not outlive the anchor's graceful close.
        self.watches.unwatch(record);
        self.spares.forget(&record.cdp).await;
        let id = identity(&record.run, &record.profile);
        let keeper = self
            .keepers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        let gone = match &record.env {
            Some(env) => {
                let mut gone = crate::stage::close_session(
                    &*self.runner,
                    env,
                    self.settings.close_attempts,
                    self.settings.command_timeout,
                )
                .await;
                if !gone && close_over_cdp(&record.cdp, &[]).await {
                    gone = crate::stage::close_session(
                        &*self.runner,
                        env,
                        1,
                        self.settings.command_timeout,
                    )
                    .await;
                }
                if gone && let Some(dir) = env.socket_dir() {
                    crate::stage::remove_session_dir(dir);
                }
                gone
            }
            None => {
                let closed = match &keeper {
                    Some(keeper) => {
                        let _ = keeper
                            .connection()
                            .browser()
                            .call_within(CloseParams::default(), Duration::from_secs(5))
                            .await;
                        tokio::time::timeout(Duration::from_secs(10), keeper.connection().closed())
                            .await
                            .is_ok()
                    }
                    None => close_over_cdp(&record.cdp, &record.cdp_headers).await,
                };
                if let Ok(place) = SessionPlace::anchor(
                    &self.settings.socket_root,
                    &self.settings.prefix,
                    &record.run,
                    &record.profile,
                ) {
                    crate::stage::remove_session_dir(&place.socket_dir);
                }
                closed || !probe(&record.cdp, &record.cdp_headers).await
            }
        };
        if let Some(keeper) = keeper {
            keeper.close().await;
        }
        if gone {
            let _ = remove_file(&self.record_path(&record.run, &record.profile));
        }
        gone
    }
}
