//! Audit records: who used which login, and what the kit did with it (seed 000 §26: the audit
//! never breaks a run). [`AuditSink`] is where records go; [`JsonlAudit`] is the default, one
//! JSON line per record in `<home>/audit.jsonl` (0600). Records carry names and ids only: no
//! paths, no URLs (a blocked navigation is recorded by its host), no cookie or env values.
//!
//! The Host writes through [`Audit`], which never returns a sink's error: it is logged and
//! reported as [`HostEvent::AuditFailed`](crate::HostEvent::AuditFailed), and the run goes on.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::clock::now_ms;
use crate::fsutil::append_private;
use crate::names::{ProfileKey, RunId, StageId};

/// What happened, for the audit trail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditRecord {
    /// A profile folder was created in the store (its first use).
    ProfileCreated {
        /// The profile.
        profile: ProfileKey,
        /// The run that needed it.
        run: RunId,
    },
    /// A run's stage was given a browser on a profile (once per stage: when its env is built).
    ProfileUsed {
        /// The profile.
        profile: ProfileKey,
        /// The run.
        run: RunId,
        /// The stage.
        stage: StageId,
    },
    /// A profile was deleted through [`Host::delete_profile`](crate::Host::delete_profile).
    ProfileDeleted {
        /// The profile.
        profile: ProfileKey,
    },
    /// A stage waited for a profile another run holds.
    LeaseWait {
        /// The profile.
        profile: ProfileKey,
        /// The waiting run.
        run: RunId,
        /// The waiting stage.
        stage: StageId,
        /// The run holding it.
        holder: RunId,
    },
    /// An anchor (the browser that owns a profile for a run) started.
    AnchorStarted {
        /// The profile.
        profile: ProfileKey,
        /// The run.
        run: RunId,
        /// It replaced one that had died.
        restarted: bool,
        /// `headed` or `headless`.
        mode: String,
    },
    /// An anchor was lost while its run used it (recorded through [`Host::audit_anchor_lost`](
    /// crate::Host::audit_anchor_lost) by whatever detects the loss).
    AnchorLost {
        /// The profile.
        profile: ProfileKey,
        /// The run.
        run: RunId,
        /// Why, in a few words (`browser_exited`, `connection_closed`, ...).
        cause: String,
    },
    /// The site policy refused a navigation of a stage.
    BlockedNavigation {
        /// The run.
        run: RunId,
        /// The stage.
        stage: StageId,
        /// The refused host (never the URL).
        host: String,
        /// `blocked_sites` or `allowed_domains`.
        rule: abx_engine::BlockRule,
        /// `command` (the agent asked) or `page` (the page went there).
        by: abx_engine::BlockedBy,
    },
    /// A stage's browser was torn down.
    StageTeardown {
        /// The run.
        run: RunId,
        /// The stage.
        stage: StageId,
        /// Verified gone.
        gone: bool,
        /// `close` attempts.
        attempts: u32,
        /// The session's close receipt (`lifecycle.cleanup` of `close --json`: graceful,
        /// signals, survivors, verified...), when the daemon answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cleanup: Option<serde_json::Value>,
    },
    /// A run's browsers were torn down.
    RunTeardown {
        /// The run.
        run: RunId,
        /// Anchors closed and verified gone.
        anchors_closed: usize,
        /// Anchors that would not close.
        anchors_left: usize,
        /// Leases released.
        leases_released: usize,
    },
}

/// One line of the audit trail: the record, when, and which Host wrote it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: u64,
    /// `HostConfig::host_id`.
    pub host: String,
    /// What happened.
    #[serde(flatten)]
    pub record: AuditRecord,
}

/// `<home>/audit.jsonl`: the default sink's file.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// Where audit entries go (a tenant's audit store, a log pipeline, a file).
pub trait AuditSink: Send + Sync {
    /// Stores one entry. An error is reported by the kit, never returned into a run.
    fn write(&self, entry: &AuditEntry) -> std::io::Result<()>;
}

/// The default sink: one JSON line per entry appended to a file (0600; its folder 0700).
#[derive(Clone, Debug)]
pub struct JsonlAudit {
    path: PathBuf,
}

impl JsonlAudit {
    /// Entries appended to `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl AuditSink for JsonlAudit {
    fn write(&self, entry: &AuditEntry) -> std::io::Result<()> {
        append_private(&self.path, entry)
    }
}

/// Entries kept in memory (tests, or a Host that forwards them itself).
#[derive(Debug, Default)]
pub struct MemoryAudit {
    entries: std::sync::Mutex<Vec<AuditEntry>>,
}

impl MemoryAudit {
    /// None yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry so far.
    pub fn entries(&self) -> Vec<AuditEntry> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl AuditSink for MemoryAudit {
    fn write(&self, entry: &AuditEntry) -> std::io::Result<()> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(entry.clone());
        Ok(())
    }
}

/// The kit's handle on its sink: stamps entries and swallows errors (logged, evented).
#[derive(Clone)]
pub(crate) struct Audit {
    /// Shared by every clone, so a sink set with `Host::with_audit` reaches the anchor watches
    /// too.
    sink: Arc<std::sync::RwLock<Arc<dyn AuditSink>>>,
    host: String,
    events: broadcast::Sender<crate::event::HostEvent>,
}

impl Audit {
    pub(crate) fn new(
        sink: Arc<dyn AuditSink>,
        host: String,
        events: broadcast::Sender<crate::event::HostEvent>,
    ) -> Self {
        Self {
            sink: Arc::new(std::sync::RwLock::new(sink)),
            host,
            events,
        }
    }

    /// Sends every later record (of every clone) to `sink`.
    pub(crate) fn set_sink(&self, sink: Arc<dyn AuditSink>) {
        *self
            .sink
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = sink;
    }

    /// Records `record`; never fails.
    pub(crate) fn record(&self, record: AuditRecord) {
        let entry = AuditEntry {
            ts_ms: now_ms(),
            host: self.host.clone(),
            record,
        };
        let sink = self
            .sink
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Err(err) = sink.write(&entry) {
            tracing::warn!(%err, "audit record not written");
            let _ = self.events.send(crate::event::HostEvent::AuditFailed {
                reason: err.to_string(),
            });
        }
    }
}
