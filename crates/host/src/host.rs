//! [`Host`]: the one object a pipeline Host holds. It ties the profile store, the lease, the
//! anchors, stage envs and teardown, the sweep and the live views together.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::anchor::{AnchorSettings, Anchors, BrowserSource, run_dir};
use crate::audit::{AUDIT_FILE, Audit, AuditRecord, AuditSink, JsonlAudit};
use crate::blocked::BlockedWatch;
use crate::display::{DisplayChoice, DisplayProbe, choose_display};
use crate::env::{self, BrowserEnv, LaunchSettings, SessionPlace, var};
use crate::error::{HostError, Result};
use crate::event::HostEvent;
use crate::fsutil::{private_dir, read_json, remove_file, write_json, write_private};
use crate::lease::{AcquireOptions, Acquired, FileLease, ProfileLease, acquire};
use crate::live::{
    Credential, Grant, LiveViewError, LiveViewSettings, LiveViews, StreamAddress, ViewMode, Viewer,
};
use crate::liveness::{AsyncRunLiveness, LivenessSnapshot, RunState};
use crate::login::{LoginCheck, LoginResult, run_check};
use crate::names::{LeaseHolder, ProfileKey, RunId, Scope, StageId, random_token, short_hash};
use crate::owner::{HostIdentity, OWNER_FILE, OwnerKind, OwnerRecord};
use crate::profile::{FileProfileStore, ProfileStore};
use crate::runner::{BrowserRunner, CliRunner, RECEIPTS_FILE, Recorder, run_ok};
use crate::saved_state::StateKey;
use crate::stage::{
    CLOSED_FILE, ENV_FILE, LOGIN_CHECK_FILE, StageBrowser, StageRecord, StageSpec, StageTeardown,
    close_session, remove_session_dir,
};
use crate::watch::AnchorStatus;

/// How the Host kit is set up.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// The kit's own folder: profiles, leases, run records (mode 0700).
    pub home: PathBuf,
    /// Root of the per-session socket dirs; keep it short (103-byte socket paths).
    pub socket_root: PathBuf,
    /// Session names start with this.
    pub session_prefix: String,
    /// Chrome arguments and binary for browsers the Host launches.
    pub launch: LaunchSettings,
    /// The display probe.
    pub display: DisplayProbe,
    /// The Host offers a live view, so a person can log in without a screen.
    pub live_view_handoff: bool,
    /// Live view lifetimes and the controller limit.
    pub live_view: LiveViewSettings,
    /// Waiting for a profile held by another run.
    pub lease_wait: AcquireOptions,
    /// Local anchors, or a remote browser service.
    pub browsers: BrowserSource,
    /// Deadline of one `agent-browser` command.
    pub command_timeout: Duration,
    /// `close` attempts before a teardown reports the session as not gone.
    pub close_attempts: u32,
    /// Waiting for another process that is starting the same anchor.
    pub anchor_lock_wait: Duration,
    /// Blank tabs kept ready on each anchor, so a starting stage takes one instead of waiting
    /// for Chrome to create its tab (default 1; 0 turns them off). Each costs one idle
    /// `about:blank` renderer in the anchor while it waits.
    pub spare_tabs: usize,
    /// This Host's name in the owner records it writes (with its pid and start time). A
    /// sweep closes only records of this process or of a Host process that is gone, so Hosts
    /// sharing a socket root never close each other's sessions. Default: a hash of `home`, so
    /// a Host restarted on the same home is the same Host.
    pub host_id: String,
    /// Sites no stage may reach (the Host's `blocked_sites`), added to each stage's own
    /// [`StageSpec::blocked_sites`]; enforced by the stage's daemon at every navigation.
    pub blocked_sites: Vec<String>,
    /// Remote anchors: each stage's CDP address (the kit's loopback forwarder with the stage's
    /// own token) reaches only the stage's own tabs and their popups (default `true`; ADR 0017).
    /// `false`: the whole browser, as the service's own address would.
    pub scoped_stage_cdp: bool,
    /// Seals a remote profile's saved login in the profile store. `None`: the key in
    /// `<home>/state.key` (0600), created on first use.
    pub state_key: Option<StateKey>,
}

impl HostConfig {
    /// Defaults under `home`; sockets under `/tmp/abxh-<uid>`.
    pub fn new(home: impl Into<PathBuf>) -> Self {
        let uid = nix::unistd::getuid().as_raw();
        let home: PathBuf = home.into();
        Self {
            host_id: format!("h-{}", short_hash(&home.to_string_lossy(), 12)),
            blocked_sites: Vec::new(),
            home,
            socket_root: PathBuf::from(format!("/tmp/abxh-{uid}")),
            session_prefix: "abx".into(),
            launch: LaunchSettings::default(),
            display: DisplayProbe::from_env(),
            live_view_handoff: false,
            live_view: LiveViewSettings::default(),
            lease_wait: AcquireOptions::default(),
            browsers: BrowserSource::Local,
            command_timeout: Duration::from_secs(60),
            close_attempts: 3,
            anchor_lock_wait: Duration::from_secs(120),
            spare_tabs: 1,
            scoped_stage_cdp: true,
            state_key: None,
        }
    }
}

/// A run: its id and its owner's scope (from the Host's authenticated user, never from YAML).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunRef {
    /// The owner scope.
    pub scope: Scope,
    /// The run id.
    pub id: RunId,
}

impl RunRef {
    /// Validates both.
    pub fn parse(scope: &str, id: &str) -> Result<RunRef> {
        Ok(RunRef {
            scope: Scope::new(scope)?,
            id: RunId::new(id)?,
        })
    }
}

/// How a run teardown went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunTeardown {
    /// Each stage's teardown.
    pub stages: Vec<(StageId, StageTeardown)>,
    /// Anchors closed and verified gone.
    pub anchors_closed: usize,
    /// Anchors that did not close (the sweep retries).
    pub anchors_left: usize,
    /// Leases released.
    pub leases_released: usize,
}

impl RunTeardown {
    /// Everything of the run is gone.
    pub fn complete(&self) -> bool {
        self.anchors_left == 0 && self.stages.iter().all(|(_, t)| t.gone)
    }
}

/// What a sweep did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Stage sessions of ended runs closed.
    pub stages_closed: usize,
    /// Anchors of ended runs closed.
    pub anchors_closed: usize,
    /// Sessions that would not close (tried again next sweep).
    pub left: usize,
    /// Socket dirs of this Host's (or a gone Host's) live, waiting or unknown runs left alone,
    /// and unreadable records.
    pub skipped_live: usize,
    /// Socket dirs of another Host process that is still running, or of a record that names no
    /// Host: never touched.
    pub skipped_other_host: usize,
    /// Empty socket dirs removed.
    pub empty_dirs_removed: usize,
    /// Leases of ended runs reclaimed.
    pub leases_reclaimed: usize,
}

/// The Host kit. See the crate docs for the lifecycle.
pub struct Host {
    config: HostConfig,
    profiles: Arc<dyn ProfileStore>,
    leases: Arc<dyn ProfileLease>,
    liveness: Arc<dyn AsyncRunLiveness>,
    runner: Arc<dyn BrowserRunner>,
    anchors: Anchors,
    live: LiveViews,
    runs: Mutex<BTreeMap<RunId, Scope>>,
    events: broadcast::Sender<HostEvent>,
    identity: HostIdentity,
    audit: Audit,
    blocked: Mutex<BTreeMap<(RunId, StageId), BlockedWatch>>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("home", &self.config.home)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// A Host with its own store, lease, liveness and runner. Any [`crate::RunLiveness`] (a
    /// closure over the run table) is an [`AsyncRunLiveness`].
    pub fn new(
        config: HostConfig,
        profiles: Arc<dyn ProfileStore>,
        leases: Arc<dyn ProfileLease>,
        liveness: Arc<dyn AsyncRunLiveness>,
        runner: Arc<dyn BrowserRunner>,
    ) -> Result<Host> {
        private_dir(&config.home)?;
        let config_file = config.home.join("agent-browser.empty.json");
        write_private(&config_file, b"{}\n")?;
        let identity = HostIdentity::current(config.host_id.clone());
        let (events, _) = broadcast::channel(256);
        let audit = Audit::new(
            Arc::new(JsonlAudit::new(config.home.join(AUDIT_FILE))),
            config.host_id.clone(),
            events.clone(),
        );
        let state_key = match &config.state_key {
            Some(key) => key.clone(),
            None => StateKey::load_or_create(&config.home.join("state.key"))?,
        };
        let anchors = Anchors::new(
            AnchorSettings {
                home: config.home.clone(),
                socket_root: config.socket_root.clone(),
                prefix: config.session_prefix.clone(),
                config_file,
                launch: config.launch.clone(),
                display: config.display.clone(),
                source: config.browsers.clone(),
                command_timeout: config.command_timeout,
                lock_wait: config.anchor_lock_wait,
                close_attempts: config.close_attempts,
                spare_tabs: config.spare_tabs,
                host: identity.clone(),
                scoped_stage_cdp: config.scoped_stage_cdp,
                state_key,
            },
            runner.clone(),
            profiles.clone(),
            events.clone(),
            audit.clone(),
        );
        Ok(Host {
            live: LiveViews::new(config.live_view.clone()),
            config,
            profiles,
            leases,
            liveness,
            runner,
            anchors,
            runs: Mutex::new(BTreeMap::new()),
            events,
            identity,
            audit,
            blocked: Mutex::new(BTreeMap::new()),
        })
    }

    /// The local setup: folder profiles under `<home>/profiles`, file leases under
    /// `<home>/locks`, and the `agent-browser` binary at `agent_browser`.
    pub fn local(
        config: HostConfig,
        liveness: Arc<dyn AsyncRunLiveness>,
        agent_browser: impl Into<PathBuf>,
    ) -> Result<Host> {
        let profiles = Arc::new(FileProfileStore::new(config.home.join("profiles")));
        let leases = Arc::new(FileLease::new(config.home.join("locks")));
        Host::new(
            config,
            profiles,
            leases,
            liveness,
            Arc::new(CliRunner::new(agent_browser)),
        )
    }

    /// The configuration.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// The profile store.
    pub fn profiles(&self) -> &dyn ProfileStore {
        &*self.profiles
    }

    /// The lease store.
    pub fn leases(&self) -> &dyn ProfileLease {
        &*self.leases
    }

    /// The live views.
    pub fn live_views(&self) -> &LiveViews {
        &self.live
    }

    /// Audit records go to `sink` instead of `<home>/audit.jsonl`.
    pub fn with_audit(self, sink: Arc<dyn AuditSink>) -> Host {
        self.audit.set_sink(sink);
        self
    }

    /// Records that an anchor was lost while its run used it (for the code that detects the
    /// loss). Never fails.
    pub fn audit_anchor_lost(&self, run: &RunId, profile: &ProfileKey, cause: &str) {
        self.audit.record(AuditRecord::AnchorLost {
            profile: profile.clone(),
            run: run.clone(),
            cause: cause.to_string(),
        });
    }

    /// Deletes a profile from the store (its cookies and site data) and audits it; `false`
    /// when it did not exist. Refused while a run holds its lease.
    pub fn delete_profile(&self, key: &ProfileKey) -> Result<bool> {
        if let Some(holder) = self.leases.holder(key)? {
            return Err(HostError::Profile {
                key: key.clone(),
                reason: format!("run {} holds it; end that run first", holder.run),
            });
        }
        let deleted = self.profiles.delete(key)?;
        if deleted {
            self.audit.record(AuditRecord::ProfileDeleted {
                profile: key.clone(),
            });
        }
        Ok(deleted)
    }

    /// The lifecycle receipts of the commands the kit ran in a stage's session (`close`,
    /// `tab close`, the login check's `open`/`get url`, ...), oldest first: each `{ts_ms,
    /// command, code, receipt}` as kept in `<stage_dir>/browser-receipts.jsonl`.
    pub fn stage_receipts(&self, run: &RunId, stage: &StageId) -> Vec<serde_json::Value> {
        fs::read_to_string(self.stage_dir(run, stage).join(RECEIPTS_FILE))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    fn recorder(&self, run: &RunId, stage: &StageId) -> Recorder<'_> {
        Recorder::new(
            &*self.runner,
            self.stage_dir(run, stage).join(RECEIPTS_FILE),
        )
    }

    fn watch_blocked(&self, run: &RunId, stage: &StageId, env: &BrowserEnv) {
        let logged = env.get(var::BLOCKED_LOG) == Some("1");
        let Some(path) = env.session_file("blocked").filter(|_| logged) else {
            return;
        };
        let mut watches = self
            .blocked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        watches
            .entry((run.clone(), stage.clone()))
            .or_insert_with(|| {
                BlockedWatch::start(path, run, stage, self.events.clone(), self.audit.clone())
            });
    }

    fn finish_blocked(&self, run: &RunId, stage: &StageId) {
        let watch = self
            .blocked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&(run.clone(), stage.clone()));
        if let Some(watch) = watch {
            watch.finish();
        }
    }

    /// This Host process as its owner records name it.
    pub fn identity(&self) -> &HostIdentity {
        &self.identity
    }

    /// Events from now on.
    pub fn events(&self) -> broadcast::Receiver<HostEvent> {
        self.events.subscribe()
    }

    /// The health of the anchor of `run` on `profile`: `None` when there is none (never
    /// started, or closed). A lost anchor is reported as its watch found it; otherwise the
    /// anchor is asked for `Browser.getVersion` (2 s) over the connection the Host holds.
    pub async fn anchor_health(
        &self,
        run: &RunId,
        profile: &ProfileKey,
    ) -> Result<Option<AnchorStatus>> {
        match self.anchors.record(run, profile)? {
            Some(record) => Ok(Some(self.anchors.watches.health(&record).await)),
            None => Ok(None),
        }
    }

    /// The runs this Host prepared stages of and did not end.
    fn open_runs(&self) -> Vec<RunId> {
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// [`Host::anchor_health`] of every anchor of the runs this Host prepared stages of and did
    /// not end, by run, then profile.
    pub async fn anchors_health(&self) -> Result<Vec<AnchorStatus>> {
        let runs = self.open_runs();
        let mut out = Vec::new();
        for run in runs {
            let mut records = self.anchors.records_of(&run);
            records.sort_by(|a, b| a.profile.cmp(&b.profile));
            for record in records {
                out.push(self.anchors.watches.health(&record).await);
            }
        }
        Ok(out)
    }

    /// `<home>/runs/<run>/stages/<stage>`.
    pub fn stage_dir(&self, run: &RunId, stage: &StageId) -> PathBuf {
        run_dir(&self.config.home, run)
            .join("stages")
            .join(stage.as_str())
    }

    /// The stage's persisted env.
    pub fn stage_env(&self, run: &RunId, stage: &StageId) -> Result<Option<BrowserEnv>> {
        Ok(read_json::<StageRecord>(&self.stage_dir(run, stage).join(ENV_FILE))?.map(|r| r.env))
    }

    /// The stage's persisted login check result.
    pub fn stage_login(&self, run: &RunId, stage: &StageId) -> Result<Option<LoginResult>> {
        read_json(&self.stage_dir(run, stage).join(LOGIN_CHECK_FILE))
    }

    fn remember_run(&self, run: &RunRef) -> Result<()> {
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(run.id.clone(), run.scope.clone());
        let path = run_dir(&self.config.home, &run.id).join("run.json");
        if !path.exists() {
            write_json(&path, run)?;
        }
        Ok(())
    }

    /// Gets a stage's browser ready before its agent starts (seed §4 step 2): the lease (join
    /// or queue), the anchor, the env (built once, then read back), the owner record, then the
    /// human login page or the login check.
    pub async fn prepare_stage(
        &self,
        run: &RunRef,
        stage: &StageId,
        spec: &StageSpec,
    ) -> Result<StageBrowser> {
        // Boxed: the preparation is large and callers hold several of these futures at once.
        Box::pin(self.prepare(run, stage, spec, false)).await
    }

    /// The same for a stage resumed after a gate: the lease is joined, or queued for like a
    /// fresh start when another run took it (limitation 7); the persisted env is reused; no page
    /// is opened and no check is run (seed invariant 19).
    pub async fn resume_stage(
        &self,
        run: &RunRef,
        stage: &StageId,
        spec: &StageSpec,
    ) -> Result<StageBrowser> {
        Box::pin(self.prepare(run, stage, spec, true)).await
    }

    async fn prepare(
        &self,
        run: &RunRef,
        stage: &StageId,
        spec: &StageSpec,
        resuming: bool,
    ) -> Result<StageBrowser> {
        self.remember_run(run)?;
        let screen = self.config.display.screen();
        let mut display = choose_display(
            &screen,
            spec.headed,
            spec.human_login.is_some(),
            self.config.live_view_handoff,
        )?;
        let stage_dir = self.stage_dir(&run.id, stage);
        private_dir(&stage_dir)?;
        let env_path = stage_dir.join(ENV_FILE);
        let mut anchor_started = false;
        let mut anchor_restarted = false;
        let mut anchor = None;
        let key = match &spec.profile {
            Some(name) => {
                let key = ProfileKey {
                    scope: run.scope.clone(),
                    name: name.clone(),
                };
                let holder = LeaseHolder::new(&run.id, Some(stage));
                let acquired = acquire(
                    &*self.leases,
                    &key,
                    &holder,
                    &*self.liveness,
                    &self.config.lease_wait,
                    |other| {
                        self.audit.record(AuditRecord::LeaseWait {
                            profile: key.clone(),
                            run: run.id.clone(),
                            stage: stage.clone(),
                            holder: other.run.clone(),
                        });
                        let _ = self.events.send(HostEvent::WaitingForProfile {
                            run: run.id.clone(),
                            stage: stage.clone(),
                            profile: key.clone(),
                            holder: other.clone(),
                        });
                    },
                )
                .await?;
                if acquired == Acquired::Taken {
                    tracing::info!(run = %run.id, profile = %key, "profile leased");
                }
                let handle = self.profiles.open(&key)?;
                if handle.created() {
                    self.audit.record(AuditRecord::ProfileCreated {
                        profile: key.clone(),
                        run: run.id.clone(),
                    });
                }
                let state =
                    Box::pin(self.anchors.ensure(&run.scope, &run.id, &handle, &display)).await?;
                anchor_started = state.started;
                anchor_restarted = state.restarted;
                if state.started {
                    self.audit.record(AuditRecord::AnchorStarted {
                        profile: key.clone(),
                        run: run.id.clone(),
                        restarted: state.restarted,
                        mode: if state.record.display.headed {
                            "headed".into()
                        } else {
                            "headless".into()
                        },
                    });
                    let _ = self.events.send(HostEvent::AnchorStarted {
                        run: run.id.clone(),
                        profile: key.clone(),
                        display: state.record.display.clone(),
                        restarted: state.restarted,
                    });
                }
                // The stage runs in the anchor's mode; when that is the mode it asked for,
                // its own reason is the more telling one.
                if state.record.display.headed != display.headed {
                    display = state.record.display.clone();
                }
                anchor = Some(state.record);
                Some(key)
            }
            None => None,
        };
        let record = match read_json::<StageRecord>(&env_path)? {
            Some(mut record) => {
                // Byte-identical: only the anchor address may change, after the old session
                // (attached to a browser that is gone) was closed.
                if let Some(anchor) = &anchor {
                    let wanted = self.anchors.stage_cdp(anchor, record.env.cdp());
                    if record.env.cdp() != Some(wanted.as_str()) {
                        let _ = self
                            .runner
                            .run(&record.env, &["close"], self.config.command_timeout)
                            .await;
                        record.env.set(var::CDP, wanted);
                        write_json(&env_path, &record)?;
                    }
                }
                record
            }
            None => {
                let record = self.build_stage_env(
                    &run.id,
                    stage,
                    spec,
                    key.as_ref(),
                    anchor.as_ref(),
                    &display,
                )?;
                write_json(&env_path, &record)?;
                tracing::info!(run = %run.id, stage = %stage, "stage env persisted");
                if let Some(profile) = &key {
                    self.audit.record(AuditRecord::ProfileUsed {
                        profile: profile.clone(),
                        run: run.id.clone(),
                        stage: stage.clone(),
                    });
                }
                record
            }
        };
        remove_file(&stage_dir.join(CLOSED_FILE))?;
        if let Some(dir) = record.env.socket_dir() {
            private_dir(&self.config.socket_root)?;
            private_dir(dir)?;
            OwnerRecord {
                kind: OwnerKind::Stage,
                scope: run.scope.clone(),
                run: run.id.clone(),
                stage: Some(stage.clone()),
                profile: key.clone(),
                env: Some(record.env.clone()),
                cdp: None,
                cdp_headers: Vec::new(),
                host: Some(self.identity.clone()),
            }
            .write(dir)?;
        }
        self.watch_blocked(&run.id, stage, &record.env);
        if !resuming && let Some(anchor) = &anchor {
            self.hand_spare_tab(&record.env, anchor).await?;
        }
        let mut login = None;
        if !resuming {
            if let Some(url) = &spec.human_login {
                run_ok(
                    &self.recorder(&run.id, stage),
                    &record.env,
                    &["open", url],
                    self.config.command_timeout,
                )
                .await?;
            } else if let Some(check) = &spec.login_check {
                login = Some(self.check_login(&run.id, stage, &record.env, check).await?);
            }
        } else {
            login = self.stage_login(&run.id, stage)?;
        }
        Ok(StageBrowser {
            env: record.env,
            display,
            login,
            anchor_started,
            anchor_restarted,
        })
    }

    /// Names a spare tab of the anchor in the stage's `<session>.target`, so the stage's first
    /// command takes it instead of creating a tab (see `spare.rs`). Only for a stage whose session
    /// has not bound a tab yet (no `.target`): a stage that ran before keeps its own tab.
    async fn hand_spare_tab(
        &self,
        env: &BrowserEnv,
        anchor: &crate::anchor::AnchorRecord,
    ) -> Result<()> {
        let Some(path) = env.session_file("target") else {
            return Ok(());
        };
        if path.exists() {
            return Ok(());
        }
        let (address, headers) = self.anchors.spare_address(anchor);
        let Some(target_id) = self.anchors.spares.take(&address, &headers).await else {
            return Ok(());
        };
        if let Some(cdp) = env.cdp() {
            self.anchors.grant(cdp, &target_id);
        }
        crate::spare::write_handed(&path, &target_id)
    }

    fn build_stage_env(
        &self,
        run: &RunId,
        stage: &StageId,
        spec: &StageSpec,
        key: Option<&ProfileKey>,
        anchor: Option<&crate::anchor::AnchorRecord>,
        display: &DisplayChoice,
    ) -> Result<StageRecord> {
        let place = SessionPlace::stage(
            &self.config.socket_root,
            &self.config.session_prefix,
            run,
            stage,
            key,
        )?;
        let mut stage_env = BrowserEnv::new();
        env::common(&mut stage_env, &place, &self.anchors.settings.config_file);
        stage_env.set(var::STREAM_TOKEN, random_token());
        match anchor {
            Some(anchor) => {
                stage_env.set(var::CDP, self.anchors.stage_cdp(anchor, None));
                stage_env.set(var::PIN_TAB, "1");
                if !anchor.cdp_headers.is_empty() {
                    let headers: serde_json::Map<String, serde_json::Value> = anchor
                        .cdp_headers
                        .iter()
                        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                        .collect();
                    stage_env.set(
                        var::CDP_HEADERS,
                        serde_json::Value::Object(headers).to_string(),
                    );
                }
            }
            None => {
                env::launching(&mut stage_env, &self.config.launch, display.headed);
                if display.headed
                    && matches!(
                        self.config.display.screen(),
                        crate::display::Screen::Window { .. }
                    )
                {
                    for (name, value) in self.config.display.window_vars() {
                        stage_env.set(&name, value);
                    }
                }
            }
        }
        let domains: Vec<&str> = spec
            .allowed_domains
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
            .collect();
        if !domains.is_empty() {
            stage_env.set(var::ALLOWED_DOMAINS, domains.join(","));
        }
        let mut blocked: Vec<String> = Vec::new();
        for site in self.config.blocked_sites.iter().chain(&spec.blocked_sites) {
            let site = site.trim().to_ascii_lowercase();
            if !site.is_empty() && !site.contains(',') && !blocked.contains(&site) {
                blocked.push(site);
            }
        }
        if !blocked.is_empty() {
            stage_env.set(var::BLOCKED_SITES, blocked.join(","));
        }
        if !blocked.is_empty() || !domains.is_empty() {
            // The daemon tells the kit of every navigation either list refuses.
            stage_env.set(var::BLOCKED_LOG, "1");
        }
        Ok(StageRecord {
            profile: key.cloned(),
            env: stage_env,
        })
    }

    async fn check_login(
        &self,
        run: &RunId,
        stage: &StageId,
        env: &BrowserEnv,
        check: &LoginCheck,
    ) -> Result<LoginResult> {
        let result = run_check(&self.recorder(run, stage), env, check).await?;
        write_json(&self.stage_dir(run, stage).join(LOGIN_CHECK_FILE), &result)?;
        tracing::info!(run = %run, stage = %stage, state = ?result.state, "login check");
        Ok(result)
    }

    /// Runs a login check in a prepared stage's session (e.g. after a person logged in) and
    /// persists the result.
    pub async fn login_check(
        &self,
        run: &RunRef,
        stage: &StageId,
        check: &LoginCheck,
    ) -> Result<LoginResult> {
        let env = self
            .stage_env(&run.id, stage)?
            .ok_or_else(|| HostError::NoStageEnv {
                run: run.id.to_string(),
                stage: stage.to_string(),
            })?;
        self.check_login(&run.id, stage, &env, check).await
    }

    /// Ends a stage's browser (seed §4 step 6): its live view first, then its tab (attached
    /// stages), then its session, verified gone, then the `browser-closed.json` marker. A
    /// close that fails is retried; a session that still does not end is reported and left
    /// for the next teardown or the sweep. The anchor stays.
    pub async fn end_stage(&self, run: &RunId, stage: &StageId) -> Result<StageTeardown> {
        Box::pin(self.end_stage_inner(run, stage)).await
    }

    async fn end_stage_inner(&self, run: &RunId, stage: &StageId) -> Result<StageTeardown> {
        self.live.close_stage(run, stage).await;
        let dir = self.stage_dir(run, stage);
        let Some(record) = read_json::<StageRecord>(&dir.join(ENV_FILE))? else {
            return Ok(StageTeardown {
                gone: true,
                attempts: 0,
                already: true,
            });
        };
        if dir.join(CLOSED_FILE).exists() {
            return Ok(StageTeardown {
                gone: true,
                attempts: 0,
                already: true,
            });
        }
        let timeout = self.config.command_timeout;
        let daemon_up = record.env.session_file("sock").is_some_and(|s| s.exists());
        if !daemon_up
            && let (Some(cdp), Some(spare)) = (
                record.env.cdp(),
                record
                    .env
                    .session_file("target")
                    .and_then(|path| crate::spare::untaken(&path)),
            )
        {
            let address = self.anchors.spare_address_of_stage(cdp);
            self.anchors.spares.discard(&address, &spare).await;
        }
        let recorder = self.recorder(run, stage);
        if record.env.cdp().is_some() && daemon_up {
            let closed = recorder.run(&record.env, &["tab", "close"], timeout).await;
            if closed.code != 0 {
                tracing::debug!(stage = %stage, "tab close failed (anchor gone or tab already closed)");
            }
        }
        let attempts = self.config.close_attempts.max(1);
        let gone = close_session(&recorder, &record.env, attempts, timeout).await;
        let cleanup = self
            .stage_receipts(run, stage)
            .into_iter()
            .rev()
            .find(|r| r["command"] == "close")
            .and_then(|r| r["receipt"].get("cleanup").cloned());
        self.audit.record(AuditRecord::StageTeardown {
            run: run.clone(),
            stage: stage.clone(),
            gone,
            attempts,
            cleanup,
        });
        if !gone {
            tracing::warn!(run = %run, stage = %stage, "stage session did not close; the next teardown or sweep retries");
            return Ok(StageTeardown {
                gone: false,
                attempts,
                already: false,
            });
        }
        // What the daemon refused up to its close, before its socket dir goes.
        self.finish_blocked(run, stage);
        if let Some(socket_dir) = record.env.socket_dir() {
            remove_session_dir(socket_dir);
        }
        write_private(&dir.join(CLOSED_FILE), b"{}\n")?;
        // A login the stage made (e.g. a person in a human-login stage) is kept from now on.
        if let Some(key) = &record.profile {
            self.anchors.save_state(run, key).await;
        }
        Ok(StageTeardown {
            gone: true,
            attempts,
            already: false,
        })
    }

    fn stages_of(&self, run: &RunId) -> Vec<StageId> {
        let dir = run_dir(&self.config.home, run).join("stages");
        let mut stages: Vec<StageId> = fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| StageId::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        stages.sort();
        stages
    }

    /// Ends a run's browsers (seed §4 step 7): its live views, every stage session, then its
    /// anchors (graceful close), then its leases. Leases of an anchor that would not close are
    /// kept (its Chrome still holds the profile); the sweep retries.
    pub async fn end_run(&self, run: &RunId) -> Result<RunTeardown> {
        Box::pin(self.end_run_inner(run)).await
    }

    async fn end_run_inner(&self, run: &RunId) -> Result<RunTeardown> {
        self.live.close_run(run).await;
        let mut report = RunTeardown::default();
        for stage in self.stages_of(run) {
            let teardown = self.end_stage_inner(run, &stage).await?;
            report.stages.push((stage, teardown));
        }
        let mut kept = Vec::new();
        for record in self.anchors.records_of(run) {
            if self.anchors.close_record(&record).await {
                report.anchors_closed += 1;
            } else {
                report.anchors_left += 1;
                kept.push(record.profile.clone());
            }
        }
        for key in self.leases.held_by(run)? {
            if !kept.contains(&key) && self.leases.release(&key, run)? {
                report.leases_released += 1;
            }
        }
        self.audit.record(AuditRecord::RunTeardown {
            run: run.clone(),
            anchors_closed: report.anchors_closed,
            anchors_left: report.anchors_left,
            leases_released: report.leases_released,
        });
        if report.complete() {
            self.runs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(run);
        }
        Ok(report)
    }

    /// The Host-start sweep (seed §4 step 11): leases of ended runs are reclaimed, then every
    /// socket dir's `owner.json` is read. Only records written by this process or by a Host
    /// process that is provably gone (pid dead, or reused by a process with another start time)
    /// are considered; of those, sessions of runs the liveness calls [`RunState::Ended`] are
    /// closed, stage sessions before anchors. Running, waiting and unknown runs, records of
    /// another running Host and records that name no Host are left alone; empty dirs are
    /// removed.
    pub async fn sweep(&self) -> Result<SweepReport> {
        Box::pin(self.sweep_inner()).await
    }

    async fn sweep_inner(&self) -> Result<SweepReport> {
        // Asked once per holding run (a Host may answer over a channel), then judged at once.
        let known = LivenessSnapshot::ask(
            &*self.liveness,
            self.leases.leases()?.into_iter().map(|(_, h)| h.run),
        )
        .await;
        let mut report = SweepReport {
            leases_reclaimed: self.leases.reclaim_stale(&known)?.len(),
            ..SweepReport::default()
        };
        let root = &self.config.socket_root;
        let mut owned: Vec<(PathBuf, OwnerRecord)> = Vec::new();
        for entry in fs::read_dir(root).into_iter().flatten().flatten() {
            let dir = entry.path();
            if !dir.is_dir() {
                continue;
            }
            match OwnerRecord::read(&dir) {
                Ok(Some(owner)) => owned.push((dir, owner)),
                Ok(None) => {
                    if dir_is_empty(&dir) && fs::remove_dir(&dir).is_ok() {
                        report.empty_dirs_removed += 1;
                    }
                }
                // Unreadable: not ours to judge.
                Err(_) => report.skipped_live += 1,
            }
        }
        // Stage sessions first: they are attached to the anchors.
        owned.sort_by_key(|(_, o)| o.kind != OwnerKind::Stage);
        let mut ended_runs = Vec::new();
        for (dir, owner) in owned {
            let ownership = self.identity.judge(owner.host.as_ref());
            if !ownership.sweepable() {
                tracing::debug!(dir = %dir.display(), ?ownership, "not this Host's session; left alone");
                report.skipped_other_host += 1;
                continue;
            }
            // Only a run the Host knows has ended is closed: an unknown run may be another
            // Host's, or one this Host cannot see right now.
            if self.liveness.state_of(&owner.run).await != RunState::Ended {
                report.skipped_live += 1;
                continue;
            }
            if !ended_runs.contains(&owner.run) {
                ended_runs.push(owner.run.clone());
            }
            let gone = match (owner.kind, &owner.env) {
                (OwnerKind::RemoteAnchor, _) => match (&owner.cdp, &owner.profile) {
                    // Records of this kit hold no credentials: the profile's source gives them.
                    (Some(cdp), Some(key)) if owner.cdp_headers.is_empty() => {
                        self.anchors.close_remote_address(cdp, key).await
                    }
                    (Some(cdp), _) => {
                        crate::anchor::close_over_cdp(cdp, &owner.cdp_headers).await
                            || !crate::anchor::probe(cdp, &owner.cdp_headers).await
                    }
                    (None, _) => true,
                },
                (_, Some(env)) => {
                    close_session(
                        &*self.runner,
                        env,
                        self.config.close_attempts,
                        self.config.command_timeout,
                    )
                    .await
                }
                (_, None) => true,
            };
            if !gone {
                report.left += 1;
                continue;
            }
            if let (OwnerKind::Stage, Some(stage), Some(env)) =
                (owner.kind, &owner.stage, &owner.env)
                && env.get(var::BLOCKED_LOG) == Some("1")
                && let Some(path) = env.session_file("blocked")
            {
                // Refusals the Host that died had not reported yet (or reported before dying:
                // a Host may hear one twice, never zero times).
                crate::blocked::drain_once(
                    path,
                    &owner.run,
                    stage,
                    self.events.clone(),
                    self.audit.clone(),
                );
            }
            remove_session_dir(&dir);
            match owner.kind {
                OwnerKind::Stage => {
                    report.stages_closed += 1;
                    if let Some(stage) = &owner.stage {
                        let marker = self.stage_dir(&owner.run, stage).join(CLOSED_FILE);
                        if marker.parent().is_some_and(Path::exists) {
                            let _ = write_private(&marker, b"{}\n");
                        }
                    }
                }
                OwnerKind::Anchor | OwnerKind::RemoteAnchor => {
                    report.anchors_closed += 1;
                    if let Some(key) = &owner.profile {
                        let _ = remove_file(
                            &crate::anchor::anchor_dir(&self.config.home, &owner.run, key)
                                .join("anchor.json"),
                        );
                    }
                }
            }
        }
        for run in ended_runs {
            for key in self.leases.held_by(&run)? {
                if self.leases.release(&key, &run)? {
                    report.leases_reclaimed += 1;
                }
            }
        }
        if dir_is_empty(root) {
            let _ = fs::remove_dir(root);
        }
        Ok(report)
    }

    /// Host shutdown (limitation 9): closes the browsers of every run this Host opened unless
    /// `keep` says the run will resume (e.g. it waits at a gate), then ends all live views.
    pub async fn shutdown(
        &self,
        keep: impl Fn(&RunId) -> bool,
    ) -> Result<Vec<(RunId, RunTeardown)>> {
        let runs = self.open_runs();
        let mut out = Vec::new();
        for run in runs {
            if keep(&run) {
                continue;
            }
            let teardown = self.end_run(&run).await?;
            out.push((run, teardown));
        }
        self.live.close_all().await;
        Ok(out)
    }

    /// A one-use live view ticket (60 s) for a stage.
    pub fn live_view_ticket(&self, run: &RunRef, stage: &StageId, mode: ViewMode) -> String {
        self.live.tickets().issue(Grant {
            scope: run.scope.clone(),
            run: run.id.clone(),
            stage: stage.clone(),
            mode,
        })
    }

    /// Trades a ticket for a credential (24 h).
    pub fn redeem_live_view_ticket(&self, ticket: &str) -> Result<Credential, LiveViewError> {
        self.live.tickets().redeem(ticket)
    }

    /// Attaches a viewer to a stage with a credential of `scope`.
    pub async fn open_viewer(
        &self,
        scope: &Scope,
        credential: &str,
    ) -> Result<Viewer, LiveViewError> {
        let home = self.config.home.clone();
        self.live
            .attach(scope, credential, async |grant: &Grant| {
                let path = run_dir(&home, &grant.run)
                    .join("stages")
                    .join(grant.stage.as_str())
                    .join(ENV_FILE);
                let no_browser = |reason: &str| LiveViewError::NoBrowser {
                    run: grant.run.to_string(),
                    stage: grant.stage.to_string(),
                    reason: reason.to_string(),
                };
                let record = read_json::<StageRecord>(&path)
                    .ok()
                    .flatten()
                    .ok_or_else(|| no_browser("the stage was never prepared"))?;
                if path.with_file_name(CLOSED_FILE).exists() {
                    return Err(no_browser("its browser is closed"));
                }
                let port = record
                    .env
                    .session_file("stream")
                    .and_then(|p| fs::read_to_string(p).ok())
                    .and_then(|s| s.trim().parse::<u16>().ok())
                    .ok_or_else(|| no_browser("its session is not running (no stream port)"))?;
                Ok(StreamAddress {
                    port,
                    token: record.env.get(var::STREAM_TOKEN).map(str::to_string),
                })
            })
            .await
    }
}

fn dir_is_empty(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

/// The owner record file name, for Hosts that inspect socket dirs.
pub const OWNER_RECORD: &str = OWNER_FILE;
