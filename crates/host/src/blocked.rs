//! Blocked navigations of a stage, from the daemon to the Host. The stage's daemon appends one
//! JSON line per navigation its site policy refused to `<socket_dir>/<session>.blocked` (see
//! `ABX_BLOCKED_SITES` in `abx-wire`); the kit tails that file while the stage is prepared
//! (every 250 ms) and once more at teardown, after the session closed and before its socket dir
//! is removed, and turns each line into [`HostEvent::BlockedNavigation`] and an audit record.
//! The sweep reads the file of a stage it closes (its Host died before reporting it).

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::audit::{Audit, AuditRecord};
use crate::event::HostEvent;
use crate::names::{RunId, StageId};

/// How often a prepared stage's file is looked at.
const POLL: Duration = Duration::from_millis(250);

/// One line of `<session>.blocked`.
#[derive(Deserialize)]
struct Line {
    url: String,
    #[serde(default)]
    host: String,
    rule: abx_engine::BlockRule,
    by: abx_engine::BlockedBy,
}

/// Reads new complete lines of one stage's file.
struct Tail {
    path: PathBuf,
    offset: Mutex<u64>,
    run: RunId,
    stage: StageId,
    events: broadcast::Sender<HostEvent>,
    audit: Audit,
}

impl Tail {
    fn drain(&self) {
        let mut offset = self
            .offset
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Ok(mut file) = std::fs::File::open(&self.path) else {
            return;
        };
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(*offset)).is_err() || file.read_to_end(&mut bytes).is_err() {
            return;
        }
        // Only whole lines: the daemon may be writing the next one.
        let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        *offset += end as u64 + 1;
        for raw in bytes[..end].split(|b| *b == b'\n') {
            let Ok(line) = serde_json::from_slice::<Line>(raw) else {
                continue;
            };
            tracing::info!(run = %self.run, stage = %self.stage, host = %line.host, rule = ?line.rule, "navigation blocked");
            self.audit.record(AuditRecord::BlockedNavigation {
                run: self.run.clone(),
                stage: self.stage.clone(),
                host: line.host.clone(),
                rule: line.rule,
                by: line.by,
            });
            let _ = self.events.send(HostEvent::BlockedNavigation {
                run: self.run.clone(),
                stage: self.stage.clone(),
                url: line.url,
                host: line.host,
                rule: line.rule,
                by: line.by,
            });
        }
    }
}

/// Reports everything in a stage's file once (the sweep, for a session of a Host that died).
pub(crate) fn drain_once(
    path: PathBuf,
    run: &RunId,
    stage: &StageId,
    events: broadcast::Sender<HostEvent>,
    audit: Audit,
) {
    Tail {
        path,
        offset: Mutex::new(0),
        run: run.clone(),
        stage: stage.clone(),
        events,
        audit,
    }
    .drain();
}

/// The tail of one stage's file, polled until [`BlockedWatch::finish`].
pub(crate) struct BlockedWatch {
    tail: Arc<Tail>,
    stop: CancellationToken,
}

impl BlockedWatch {
    pub(crate) fn start(
        path: PathBuf,
        run: &RunId,
        stage: &StageId,
        events: broadcast::Sender<HostEvent>,
        audit: Audit,
    ) -> BlockedWatch {
        let tail = Arc::new(Tail {
            path,
            offset: Mutex::new(0),
            run: run.clone(),
            stage: stage.clone(),
            events,
            audit,
        });
        let stop = CancellationToken::new();
        let (task_tail, task_stop) = (tail.clone(), stop.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = task_stop.cancelled() => return,
                    _ = tokio::time::sleep(POLL) => task_tail.drain(),
                }
            }
        });
        BlockedWatch { tail, stop }
    }

    /// Stops polling and reads what is left (call after the session closed, before its
    /// socket dir is removed).
    pub(crate) fn finish(self) {
        self.stop.cancel();
        self.tail.drain();
    }
}

impl Drop for BlockedWatch {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
