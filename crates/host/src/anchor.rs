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

use abx_cdp::forward::{ClientScope, Forwarder, Upstream};
use abx_cdp::protocol::browser_protocol::browser::{CloseParams, GetVersionParams};
use abx_cdp::{ConnectOptions, Connection};
use abx_engine::{AttachOptions, Browser};
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

use crate::clock::now_ms;
use crate::display::{DisplayChoice, DisplayProbe, Screen};
use crate::env::{self, BrowserEnv, LaunchSettings, SessionPlace, var};
use crate::error::{HostError, Result};
use crate::event::HostEvent;
use crate::fsutil::{private_dir, read_json, remove_file, write_json};
use crate::names::{ProfileKey, RunId, Scope, random_token};
use crate::owner::{OwnerKind, OwnerRecord};
use crate::profile::{ProfileHandle, ProfileStore};
use crate::redact::{redact, redact_text};
use crate::runner::{BrowserRunner, run_ok};
use crate::saved_state::{self, SavedCookie, StateKey};
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

/// Where one profile's anchors come from.
#[derive(Clone, Debug)]
pub enum ProfileBrowser {
    /// An `agent-browser` session with the profile folder, owning a local Chrome.
    Local,
    /// A browser of this remote CDP service.
    Remote(RemoteEndpoint),
}

/// Chooses the browser source of each profile (its scope and name): a fleet sends tenants or
/// sites to different services, each with its own credentials. Called whenever the kit needs
/// the source (anchor start, teardown, sweep), so it should answer the same for one profile.
pub type SourceResolver = Arc<dyn Fn(&ProfileKey) -> ProfileBrowser + Send + Sync>;

/// Where anchors come from.
#[derive(Clone, Default)]
pub enum BrowserSource {
    /// An `agent-browser` session with the profile folder, owning a local Chrome.
    #[default]
    Local,
    /// One remote CDP endpoint for every profile; the Host keeps one connection per anchor
    /// open for the run.
    Remote(RemoteEndpoint),
    /// Chosen per (scope, profile) by the Host.
    PerProfile(SourceResolver),
}

impl std::fmt::Debug for BrowserSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrowserSource::Local => f.write_str("Local"),
            BrowserSource::Remote(endpoint) => f.debug_tuple("Remote").field(endpoint).finish(),
            BrowserSource::PerProfile(_) => f.write_str("PerProfile(..)"),
        }
    }
}

impl BrowserSource {
    /// The source of `profile`'s anchors.
    pub fn for_profile(&self, profile: &ProfileKey) -> ProfileBrowser {
        match self {
            BrowserSource::Local => ProfileBrowser::Local,
            BrowserSource::Remote(endpoint) => ProfileBrowser::Remote(endpoint.clone()),
            BrowserSource::PerProfile(resolve) => resolve(profile),
        }
    }
}

/// `address` with the credentials of `endpoint`: its query (e.g. `?token=…`) when the address
/// has none, and its headers. Addresses the kit stores never carry them.
pub(crate) fn with_credentials(
    address: &str,
    endpoint: &RemoteEndpoint,
) -> (String, Vec<(String, String)>) {
    let url = match endpoint.url.split_once('?') {
        Some((_, query)) if !address.contains('?') && !query.is_empty() => {
            format!("{address}?{query}")
        }
        _ => address.to_string(),
    };
    (url, endpoint.headers.clone())
}

/// A remote anchor's parts that live only in this Host process: the connection that keeps
/// the service's browser up, and the loopback forwarder that holds the service's credentials.
struct RemoteLink {
    keeper: Arc<Browser>,
    forwarder: Arc<Forwarder>,
    /// The Host's own (unfiltered) client token on the forwarder, for its spare tabs.
    host_token: String,
}

/// `anchor.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnchorRecord {
    /// The run.
    pub run: RunId,
    /// The profile.
    pub profile: ProfileKey,
    /// The address stages attach to (remote: the kit's loopback forwarder, without a
    /// stage's token; each stage gets its own URL).
    pub cdp: String,
    /// Headers stages send with it (none for anchors the kit makes: remote credentials stay
    /// in the Host process).
    #[serde(default)]
    pub cdp_headers: Vec<(String, String)>,
    /// The anchor session's env (local anchors).
    #[serde(default)]
    pub env: Option<BrowserEnv>,
    /// The remote browser's address without its credentials (remote anchors).
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
    /// Whether a stage address is this anchor's: its own address, or (a remote anchor) one of
    /// the per-stage token URLs under it.
    pub(crate) fn serves(&self, stage_cdp: &str) -> bool {
        stage_cdp == self.cdp
            || stage_cdp
                .strip_prefix(self.cdp.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }

    /// Recorded before its browser was started, with no address yet: it is starting, or a
    /// start that never finished (its session may still hold the profile; closing or replacing
    /// the anchor closes that session).
    pub fn is_starting(&self) -> bool {
        self.cdp.is_empty()
    }
}

/// The anchor a stage attaches to.
#[derive(Clone, Debug)]
pub(crate) struct AnchorState {
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
    /// Stages see only their own targets through the forwarder (remote anchors).
    pub scoped_stage_cdp: bool,
    /// Seals a remote profile's saved cookies.
    pub state_key: StateKey,
}

pub(crate) struct Anchors {
    pub settings: AnchorSettings,
    runner: Arc<dyn BrowserRunner>,
    profiles: Arc<dyn ProfileStore>,
    inflight: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    remotes: Mutex<HashMap<String, Arc<RemoteLink>>>,
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
        profiles: Arc<dyn ProfileStore>,
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
            profiles,
            inflight: Mutex::new(HashMap::new()),
            remotes: Mutex::new(HashMap::new()),
        }
    }

    /// The connection that keeps a remote anchor's browser up (the watch listens on it).
    fn keeper(&self, id: &str) -> Option<Arc<Browser>> {
        self.remote_link(id).map(|link| link.keeper.clone())
    }

    fn remote_link(&self, id: &str) -> Option<Arc<RemoteLink>> {
        self.remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    fn remote_of_stage(&self, stage_cdp: &str) -> Option<Arc<RemoteLink>> {
        self.remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .find(|link| stage_cdp.starts_with(&format!("{}/", link.forwarder.base_url())))
            .cloned()
    }

    /// The address a stage uses for `record`: a local anchor's own; for a remote one the
    /// forwarder URL with the stage's own token (kept from `current` when it is one of this
    /// forwarder's, so a resumed stage's env stays byte-identical).
    pub(crate) fn stage_cdp(&self, record: &AnchorRecord, current: Option<&str>) -> String {
        let Some(link) = self.remote_link(&identity(&record.run, &record.profile)) else {
            return record.cdp.clone();
        };
        let base = format!("{}/", link.forwarder.base_url());
        let token = current
            .and_then(|cdp| cdp.strip_prefix(&base))
            .filter(|token| !token.is_empty() && !token.contains('/'))
            .map_or_else(random_token, str::to_string);
        let scope = if self.settings.scoped_stage_cdp {
            ClientScope::OwnTargets
        } else {
            ClientScope::Full
        };
        link.forwarder.add_client(&token, scope);
        link.forwarder.client_url(&token)
    }

    /// The address the Host's spare tabs of `record` use (a remote anchor: the forwarder with
    /// the Host's own token, which is never written anywhere).
    pub(crate) fn spare_address(&self, record: &AnchorRecord) -> (String, Vec<(String, String)>) {
        match self.remote_link(&identity(&record.run, &record.profile)) {
            Some(link) => (link.forwarder.client_url(&link.host_token), Vec::new()),
            None => (record.cdp.clone(), record.cdp_headers.clone()),
        }
    }

    /// The spare-tab address of the anchor a stage address belongs to.
    pub(crate) fn spare_address_of_stage(&self, stage_cdp: &str) -> String {
        match self.remote_of_stage(stage_cdp) {
            Some(link) => link.forwarder.client_url(&link.host_token),
            None => stage_cdp.to_string(),
        }
    }

    /// A tab made for a stage (its spare) becomes one of the stage's own targets.
    pub(crate) fn grant(&self, stage_cdp: &str, target_id: &str) {
        if let Some(link) = self.remote_of_stage(stage_cdp)
            && let Some(token) = stage_cdp.rsplit('/').next()
        {
            link.forwarder.grant(token, target_id);
        }
    }

    /// Saves a remote anchor's persistent cookies (sealed) in the profile store, so the
    /// profile's next anchor starts logged in. Quietly does nothing for local anchors.
    pub(crate) async fn save_state(&self, run: &RunId, key: &ProfileKey) {
        let Some(link) = self.remote_link(&identity(run, key)) else {
            return;
        };
        if !link.keeper.is_alive() {
            return;
        }
        let listed = link
            .keeper
            .connection()
            .browser()
            .call_json_within(
                "Storage.getCookies",
                serde_json::json!({}),
                Duration::from_secs(5),
            )
            .await;
        let cookies = match listed {
            Ok(value) => serde_json::from_value::<Vec<SavedCookie>>(value["cookies"].clone())
                .map(saved_state::persistent)
                .unwrap_or_default(),
            Err(err) => {
                tracing::warn!(profile = %key, %err, "could not read the remote browser's cookies; the saved login stays as it was");
                return;
            }
        };
        let saved = serde_json::to_vec(&cookies)
            .map_err(|e| HostError::Profile {
                key: key.clone(),
                reason: e.to_string(),
            })
            .and_then(|plain| self.settings.state_key.seal(key, &plain))
            .and_then(|sealed| self.profiles.save_state(key, saved_state::COOKIES, &sealed));
        match saved {
            Ok(true) => {
                tracing::info!(profile = %key, cookies = cookies.len(), "remote profile state saved");
            }
            Ok(false) => tracing::debug!(profile = %key, "this profile store keeps no state"),
            Err(err) => {
                tracing::warn!(profile = %key, %err, "could not save the remote profile's state");
            }
        }
    }

    /// Sets a profile's saved cookies in a new remote browser.
    async fn restore_state(&self, key: &ProfileKey, keeper: &Browser) {
        let sealed = match self.profiles.load_state(key, saved_state::COOKIES) {
            Ok(Some(sealed)) => sealed,
            Ok(None) => return,
            Err(err) => {
                tracing::warn!(profile = %key, %err, "could not read the saved profile state");
                return;
            }
        };
        let cookies = match self
            .settings
            .state_key
            .open(key, &sealed)
            .and_then(|plain| {
                serde_json::from_slice::<Vec<SavedCookie>>(&plain).map_err(|e| HostError::Profile {
                    key: key.clone(),
                    reason: e.to_string(),
                })
            }) {
            Ok(cookies) => cookies,
            Err(err) => {
                tracing::warn!(profile = %key, %err, "the saved profile state is not usable; the browser starts without it");
                return;
            }
        };
        if cookies.is_empty() {
            return;
        }
        let set = keeper
            .connection()
            .browser()
            .call_json_within(
                "Storage.setCookies",
                saved_state::set_cookies_params(&cookies),
                Duration::from_secs(5),
            )
            .await;
        match set {
            Ok(_) => {
                tracing::info!(profile = %key, cookies = cookies.len(), "remote profile state restored");
            }
            Err(err) => tracing::warn!(profile = %key, %err, "could not restore the saved cookies"),
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
            let mut inflight = self
                .inflight
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
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
            let alive = match (&record.remote, self.remote_link(&id)) {
                // The forwarder and the connection that keeps the service's browser up live in
                // this process: without them (another Host process made it) it is not usable.
                (Some(_), None) => false,
                (_, Some(link)) => {
                    link.keeper.is_alive()
                        && link
                            .keeper
                            .connection()
                            .browser()
                            .call_within(GetVersionParams::default(), Duration::from_secs(3))
                            .await
                            .is_ok()
                }
                (None, None) => probe(&record.cdp, &record.cdp_headers).await,
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
        let mut record = match self.settings.source.for_profile(&key) {
            ProfileBrowser::Local => {
                self.start_local(scope, run, handle, display, restarts, &mut guard)
                    .await?
            }
            ProfileBrowser::Remote(endpoint) => {
                self.start_remote(scope, run, &key, &endpoint, display)
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
        let remote_error = |source: abx_engine::EngineError| HostError::Remote {
            endpoint: redact(&endpoint.url),
            reason: redact_text(&source.to_string()),
        };
        let options = AttachOptions {
            headers: endpoint.headers.clone(),
            connect_timeout: Some(Duration::from_secs(15)),
            ..AttachOptions::default()
        };
        let keeper = Browser::attach(&endpoint.url, options)
            .await
            .map_err(remote_error)?;
        let fail = |reason: String| HostError::Anchor {
            run: run.to_string(),
            profile: key.to_string(),
            reason,
        };
        let upstream = match &endpoint.stage_address {
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
                        return Err(fail(format!(
                            "cannot find the remote browser's address: {reason}"
                        )));
                    }
                }
            }
        };
        // Stored and shown without credentials; the forwarder alone adds them upstream.
        let stored = redact(&upstream);
        let (upstream_url, headers) = with_credentials(&upstream, endpoint);
        let forwarder = match Forwarder::start(Upstream {
            url: upstream_url,
            headers,
            ..Upstream::default()
        })
        .await
        {
            Ok(forwarder) => forwarder,
            Err(err) => {
                keeper.close().await;
                return Err(fail(format!("cannot start the loopback forwarder: {err}")));
            }
        };
        let host_token = random_token();
        forwarder.add_client(&host_token, ClientScope::Full);
        self.restore_state(key, &keeper).await;
        let place =
            SessionPlace::anchor(&self.settings.socket_root, &self.settings.prefix, run, key)?;
        private_dir(&self.settings.socket_root)?;
        private_dir(&place.socket_dir)?;
        OwnerRecord {
            kind: OwnerKind::RemoteAnchor,
            scope: scope.clone(),
            run: run.clone(),
            stage: None,
            profile: Some(key.clone()),
            env: None,
            cdp: Some(stored.clone()),
            cdp_headers: Vec::new(),
            host: Some(self.settings.host.clone()),
        }
        .write(&place.socket_dir)?;
        let cdp = forwarder.base_url();
        self.remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                identity(run, key),
                Arc::new(RemoteLink {
                    keeper: Arc::new(keeper),
                    forwarder: Arc::new(forwarder),
                    host_token,
                }),
            );
        tracing::info!(run = %run, profile = %key, endpoint = %redact(&endpoint.url), "remote anchor connected");
        Ok(AnchorRecord {
            run: run.clone(),
            profile: key.clone(),
            cdp,
            cdp_headers: Vec::new(),
            env: None,
            remote: Some(stored),
            display: display.clone(),
            started_ms: now_ms(),
            restarts: 0,
        })
    }

    /// Ends a remote browser the kit no longer holds a connection to (its Host process is
    /// gone), with the credentials its profile's source gives now.
    pub(crate) async fn close_remote_address(&self, address: &str, key: &ProfileKey) -> bool {
        let ProfileBrowser::Remote(endpoint) = self.settings.source.for_profile(key) else {
            return false;
        };
        let (url, headers) = with_credentials(address, &endpoint);
        close_over_cdp(&url, &headers).await || !probe(&url, &headers).await
    }

    /// A dead anchor's leftovers: its daemon is asked to close (it still cleans its files).
    async fn forget_dead(&self, record: &AnchorRecord) {
        // The loss first (reported unless the watch did), while the pids are still known.
        self.watches.found_dead(record).await;
        let (spare_address, _) = self.spare_address(record);
        self.spares.forget(&spare_address).await;
        if let Some(env) = &record.env {
            let _ = self
                .runner
                .run(env, &["close"], self.settings.command_timeout)
                .await;
        }
        let id = identity(&record.run, &record.profile);
        let link = self
            .remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
        // Seam for loss events: a remote anchor found dead here is where a Host would be told.
        match link {
            Some(link) => {
                link.forwarder.stop();
                link.keeper.close().await;
            }
            None => {
                // Made by a Host process that is gone: end the service's browser if it lives on.
                if let Some(address) = &record.remote {
                    self.close_remote_address(address, &record.profile).await;
                }
            }
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
            // A stage on this profile whose address is not the new anchor's points at a browser
            // that is gone (also after a start that never finished replaced a dead anchor).
            let on_new = stage.env.cdp().is_some_and(|cdp| record.serves(cdp));
            if stage.profile.as_ref() != Some(key) || on_new {
                continue;
            }
            let _ = self
                .runner
                .run(&stage.env, &["close"], self.settings.command_timeout)
                .await;
            stage.env.set(var::CDP, self.stage_cdp(record, None));
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
        let (spare_address, _) = self.spare_address(record);
        self.spares.forget(&spare_address).await;
        // The login outlives the remote browser (saved before it closes).
        self.save_state(&record.run, &record.profile).await;
        let id = identity(&record.run, &record.profile);
        let link = self
            .remotes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
        if let Some(link) = &link {
            link.forwarder.stop();
        }
        let keeper = link.map(|link| link.keeper.clone());
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
                    None => match &record.remote {
                        Some(address) => self.close_remote_address(address, &record.profile).await,
                        None => close_over_cdp(&record.cdp, &record.cdp_headers).await,
                    },
                };
                if let Ok(place) = SessionPlace::anchor(
                    &self.settings.socket_root,
                    &self.settings.prefix,
                    &record.run,
                    &record.profile,
                ) {
                    crate::stage::remove_session_dir(&place.socket_dir);
                }
                closed
                    || match &record.remote {
                        Some(address) => self.close_remote_address(address, &record.profile).await,
                        None => !probe(&record.cdp, &record.cdp_headers).await,
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_texts_lose_every_query() {
        assert_eq!(
            redact_text("cannot connect to ws://h:1/chromium?token=s3cret: refused"),
            "cannot connect to ws://h:1/chromium refused"
        );
        let endpoint = RemoteEndpoint {
            url: "ws://h:1?token=s3cret".into(),
            headers: vec![("A".into(), "b".into())],
            stage_address: None,
        };
        assert_eq!(
            with_credentials("ws://h:1/devtools/browser/x", &endpoint).0,
            "ws://h:1/devtools/browser/x?token=s3cret"
        );
        assert_eq!(
            with_credentials("ws://h:1/d?t=1", &endpoint).0,
            "ws://h:1/d?t=1",
            "an address with its own query keeps it"
        );
    }
}
