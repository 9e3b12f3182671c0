//! Status of runs, their anchors and their stages, read from the kit's records (what a Host
//! shows on a dashboard, or checks before it resumes a run).

use std::fs;

use serde::Serialize;

use crate::anchor::{AnchorRecord, run_dir};
use crate::display::DisplayChoice;
use crate::error::Result;
use crate::fsutil::read_json;
use crate::host::{Host, RunRef};
use crate::login::LoginResult;
use crate::names::{ProfileKey, RunId, Scope, StageId};
use crate::process::{pid_alive, read_pid};
use crate::stage::{CLOSED_FILE, ENV_FILE, LOGIN_CHECK_FILE, StageRecord};
use crate::watch::AnchorHealth;

/// One run as the kit's records show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunStatus {
    /// The run.
    pub run: RunId,
    /// Its owner scope (from `run.json`; `None` when that record is missing).
    pub scope: Option<Scope>,
    /// Its anchors (one per profile).
    pub anchors: Vec<RunAnchor>,
    /// Its stages, by id.
    pub stages: Vec<StageStatus>,
    /// Profiles whose lease the run holds.
    pub leases: Vec<ProfileKey>,
}

/// A run's shared browser of one profile, from its record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunAnchor {
    /// The profile.
    pub profile: ProfileKey,
    /// A browser of a remote service (else a local Chrome).
    pub remote: bool,
    /// Headed or headless, and why.
    pub display: DisplayChoice,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
    /// How often it was replaced after dying.
    pub restarts: u32,
    /// Its health ([`Host::anchor_health`]) when asked for; `None` otherwise.
    pub health: Option<AnchorHealth>,
}

/// A stage's browser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StageStatus {
    /// The stage.
    pub stage: StageId,
    /// The profile it attaches to (`None`: a throw-away browser of its own).
    pub profile: Option<ProfileKey>,
    /// Its session was torn down (`browser-closed.json`).
    pub closed: bool,
    /// Its session's daemon is running.
    pub session_running: bool,
    /// A live view relay of the stage is open in this Host.
    pub live_view_open: bool,
    /// Its last login check result.
    pub login: Option<LoginResult>,
}

impl Host {
    /// Runs with records under `<home>/runs`, by id (ended runs whose records remain too).
    pub fn recorded_runs(&self) -> Vec<RunId> {
        let mut runs: Vec<RunId> = fs::read_dir(self.config().home.join("runs"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .filter_map(|e| RunId::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        runs.sort();
        runs
    }

    /// The status of `run`: its anchors (with their health when `probe`: up to 2 s each),
    /// its stages and its leases.
    pub async fn run_status(&self, run: &RunId, probe: bool) -> Result<RunStatus> {
        let dir = run_dir(&self.config().home, run);
        let scope = read_json::<RunRef>(&dir.join("run.json"))
            .ok()
            .flatten()
            .map(|r| r.scope);
        let mut records: Vec<AnchorRecord> = Vec::new();
        for scope_dir in fs::read_dir(dir.join("browser"))
            .into_iter()
            .flatten()
            .flatten()
        {
            for profile in fs::read_dir(scope_dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if let Ok(Some(record)) = read_json(&profile.path().join("anchor.json")) {
                    records.push(record);
                }
            }
        }
        records.sort_by(|a, b| a.profile.cmp(&b.profile));
        let mut anchors = Vec::new();
        for record in records {
            let health = if probe {
                self.anchor_health(run, &record.profile)
                    .await?
                    .map(|status| status.health)
            } else {
                None
            };
            anchors.push(RunAnchor {
                profile: record.profile,
                remote: record.remote.is_some(),
                display: record.display,
                started_ms: record.started_ms,
                restarts: record.restarts,
                health,
            });
        }
        let open_relays = self.live_views().open_relays();
        let mut stages = Vec::new();
        let mut ids: Vec<StageId> = fs::read_dir(dir.join("stages"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| StageId::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        ids.sort();
        for stage in ids {
            let stage_dir = dir.join("stages").join(stage.as_str());
            let Some(record) = read_json::<StageRecord>(&stage_dir.join(ENV_FILE))? else {
                continue;
            };
            let session_running = record
                .env
                .session_file("pid")
                .and_then(|p| read_pid(&p))
                .is_some_and(pid_alive);
            stages.push(StageStatus {
                live_view_open: open_relays.iter().any(|(r, s)| r == run && s == &stage),
                profile: record.profile,
                closed: stage_dir.join(CLOSED_FILE).exists(),
                session_running,
                login: read_json(&stage_dir.join(LOGIN_CHECK_FILE)).ok().flatten(),
                stage,
            });
        }
        Ok(RunStatus {
            run: run.clone(),
            scope,
            anchors,
            stages,
            leases: self.leases().held_by(run)?,
        })
    }
}
