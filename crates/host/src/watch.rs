//! Anchor watches: the loss of an anchor as an event, and its health on demand.
//!
//! Each anchor is watched over a CDP connection the Host already holds to it: a remote anchor's
//! keeper (the connection that keeps a service's browser alive), a local anchor's spare-tab
//! connection (`spare.rs`, opened even with spare tabs off). When that connection closes and
//! the browser is gone, the Host gets [`HostEvent::AnchorLost`] with a typed
//! [`AnchorLossCause`] and the stages that were on it, at once (the socket closes when Chrome
//! exits), instead of learning of the loss at the next `prepare_stage` or from an agent's
//! output. An anchor that the Host closes on purpose is unwatched first, so it is never
//! reported as lost.

use crate::audit::{Audit, AuditRecord};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::browser::GetVersionParams;
use abx_cdp::protocol::browser_protocol::system_info::GetProcessInfoParams;
use abx_engine::Browser;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::anchor::{AnchorRecord, probe, run_dir};
use crate::clock::now_ms;
use crate::event::{AnchorLossCause, HostEvent};
use crate::fsutil::read_json;
use crate::names::{ProfileKey, RunId, Scope, StageId};
use crate::process::{pid_alive, read_pid};
use crate::spare::SpareTabs;
use crate::stage::{CLOSED_FILE, ENV_FILE, StageRecord};

/// How long a watch waits for the spare-tab connection to an anchor to open.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// How long a loss's classification waits for the browser process to be seen as exited.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// How long the health check waits for an anchor's answer.
const HEALTH_DEADLINE: Duration = Duration::from_secs(2);

/// An anchor's health, as [`Host::anchor_health`](crate::Host::anchor_health) finds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AnchorHealth {
    /// Being started: recorded, no address yet (or a start that never finished; the next
    /// `prepare_stage` or `end_run` closes what it launched).
    Starting,
    /// It answered just now.
    Up,
    /// Its connection is open but it did not answer within 2 s (busy or hung).
    Unresponsive,
    /// It is gone; the next `prepare_stage` on its profile starts a new one.
    Lost {
        /// Why.
        cause: AnchorLossCause,
        /// When the Host noticed (ms since the epoch).
        at_ms: u64,
    },
}

/// One anchor's state: [`Host::anchor_health`](crate::Host::anchor_health),
/// [`Host::anchors_health`](crate::Host::anchors_health).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnchorStatus {
    /// The run.
    pub run: RunId,
    /// The owner scope.
    pub scope: Scope,
    /// The profile.
    pub profile: ProfileKey,
    /// Its health.
    pub health: AnchorHealth,
    /// A local anchor's Chrome browser process, once the Host's watch learned it.
    pub browser_pid: Option<i32>,
    /// When it started (ms since the epoch).
    pub started_ms: u64,
    /// How often it was replaced after dying.
    pub restarts: u32,
    /// The stages attached to it and not ended.
    pub stages: Vec<StageId>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The stages of `record`'s run attached to it (same profile, same address) and not ended.
pub(crate) fn stages_on(home: &Path, record: &AnchorRecord) -> Vec<StageId> {
    let dir = run_dir(home, &record.run).join("stages");
    let mut stages: Vec<StageId> = fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| !entry.path().join(CLOSED_FILE).exists())
        .filter(|entry| {
            read_json::<StageRecord>(&entry.path().join(ENV_FILE))
                .ok()
                .flatten()
                .is_some_and(|stage| {
                    // A remote anchor's stages each have their own token under its address.
                    stage.profile.as_ref() == Some(&record.profile)
                        && stage.env.cdp().is_some_and(|cdp| record.serves(cdp))
                })
        })
        .filter_map(|entry| StageId::new(entry.file_name().to_string_lossy().into_owned()).ok())
        .collect();
    stages.sort();
    stages
}

/// What a watch learned about its anchor.
#[derive(Default)]
struct WatchState {
    /// The connection it watches, while open.
    browser: Option<Arc<Browser>>,
    /// A local anchor's session daemon.
    daemon_pid: Option<i32>,
    /// A local anchor's Chrome browser process.
    browser_pid: Option<i32>,
    /// Reported lost: why and when.
    lost: Option<(AnchorLossCause, u64)>,
    /// Unwatched on purpose (the Host closes or replaced the anchor): never reported.
    stopped: bool,
}

struct Watch {
    record: AnchorRecord,
    state: Mutex<WatchState>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Watch {
    fn stop(&self) {
        lock(&self.state).stopped = true;
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
    }
}

/// The watches of every anchor this Host uses, by (run, profile).
pub(crate) struct Watches {
    home: PathBuf,
    events: broadcast::Sender<HostEvent>,
    audit: Audit,
    table: Mutex<HashMap<String, Arc<Watch>>>,
}

fn key_of(record: &AnchorRecord) -> String {
    format!("{}/{}", record.run, record.profile)
}

impl Watches {
    pub(crate) fn new(home: PathBuf, events: broadcast::Sender<HostEvent>, audit: Audit) -> Self {
        Self {
            home,
            events,
            audit,
            table: Mutex::new(HashMap::new()),
        }
    }

    /// Watches `record`'s anchor unless it is watched already: over `keeper` (a remote
    /// anchor's connection) or the anchor's spare-tab connection.
    pub(crate) fn watch(
        &self,
        record: &AnchorRecord,
        keeper: Option<Arc<Browser>>,
        spares: Arc<SpareTabs>,
    ) {
        if record.cdp.is_empty() {
            return;
        }
        let mut table = lock(&self.table);
        if let Some(existing) = table.get(&key_of(record))
            && existing.record.cdp == record.cdp
        {
            return;
        }
        let watch = Arc::new(Watch {
            record: record.clone(),
            state: Mutex::new(WatchState::default()),
            task: Mutex::new(None),
        });
        let task = tokio::spawn(run_watch(
            watch.clone(),
            keeper,
            spares,
            self.home.clone(),
            self.events.clone(),
            self.audit.clone(),
        ));
        *lock(&watch.task) = Some(task);
        if let Some(old) = table.insert(key_of(record), watch) {
            old.stop();
        }
    }

    /// Stops watching `record`'s anchor (the Host closes it): no loss is reported for it.
    pub(crate) fn unwatch(&self, record: &AnchorRecord) {
        let removed = {
            let mut table = lock(&self.table);
            match table.get(&key_of(record)) {
                Some(watch) if watch.record.cdp == record.cdp => table.remove(&key_of(record)),
                _ => None,
            }
        };
        if let Some(watch) = removed {
            watch.stop();
        }
    }

    /// `record`'s anchor was found dead (by `prepare_stage`): reports the loss unless its watch
    /// did already, then stops watching it.
    pub(crate) async fn found_dead(&self, record: &AnchorRecord) {
        let watch = lock(&self.table)
            .get(&key_of(record))
            .filter(|w| w.record.cdp == record.cdp)
            .cloned();
        let (daemon_pid, browser_pid, reported) = match &watch {
            Some(watch) => {
                let state = lock(&watch.state);
                (state.daemon_pid, state.browser_pid, state.lost.is_some())
            }
            None => (None, None, false),
        };
        if !reported {
            let reason = "it did not answer the Host's probe".to_string();
            let cause = classify(record, daemon_pid, browser_pid, reason).await;
            // Claimed under the lock: a watch that reports at the same moment does not repeat it.
            let claimed = match &watch {
                Some(watch) => {
                    let mut state = lock(&watch.state);
                    let free = state.lost.is_none() && !state.stopped;
                    if free {
                        state.lost = Some((cause.clone(), now_ms()));
                    }
                    free
                }
                None => true,
            };
            if claimed {
                report(&self.home, &self.events, &self.audit, record, cause);
            }
        }
        self.unwatch(record);
    }

    /// The health of `record`'s anchor: its watch's verdict, or an answer to `Browser.getVersion`
    /// (over the watched connection when it is open).
    pub(crate) async fn health(&self, record: &AnchorRecord) -> AnchorStatus {
        let watch = lock(&self.table)
            .get(&key_of(record))
            .filter(|w| w.record.cdp == record.cdp)
            .cloned();
        let (browser, daemon_pid, browser_pid, lost) = match &watch {
            Some(watch) => {
                let state = lock(&watch.state);
                (
                    state.browser.clone(),
                    state.daemon_pid,
                    state.browser_pid,
                    state.lost.clone(),
                )
            }
            None => (None, None, None, None),
        };
        let health = if record.cdp.is_empty() {
            AnchorHealth::Starting
        } else if let Some((cause, at_ms)) = lost {
            AnchorHealth::Lost { cause, at_ms }
        } else if let Some(browser) = browser.filter(|b| b.is_alive()) {
            match browser
                .connection()
                .browser()
                .call_within(GetVersionParams::default(), HEALTH_DEADLINE)
                .await
            {
                Ok(_) => AnchorHealth::Up,
                Err(_) if browser.is_alive() => AnchorHealth::Unresponsive,
                // The connection closed under the check: the watch reports the loss.
                Err(err) => AnchorHealth::Lost {
                    cause: classify(record, daemon_pid, browser_pid, err.to_string()).await,
                    at_ms: now_ms(),
                },
            }
        } else if probe(&record.cdp, &record.cdp_headers).await {
            AnchorHealth::Up
        } else {
            AnchorHealth::Lost {
                cause: classify(record, daemon_pid, browser_pid, "it does not answer".into()).await,
                at_ms: now_ms(),
            }
        };
        AnchorStatus {
            run: record.run.clone(),
            scope: record.profile.scope.clone(),
            profile: record.profile.clone(),
            health,
            browser_pid,
            started_ms: record.started_ms,
            restarts: record.restarts,
            stages: stages_on(&self.home, record),
        }
    }
}

impl Drop for Watches {
    fn drop(&mut self) {
        for watch in lock(&self.table).values() {
            watch.stop();
        }
    }
}

/// Sends [`HostEvent::AnchorLost`] for `record`.
fn report(
    home: &Path,
    events: &broadcast::Sender<HostEvent>,
    audit: &Audit,
    record: &AnchorRecord,
    cause: AnchorLossCause,
) {
    let stages = stages_on(home, record);
    audit.record(AuditRecord::AnchorLost {
        profile: record.profile.clone(),
        run: record.run.clone(),
        cause: cause.to_string(),
    });
    tracing::warn!(run = %record.run, profile = %record.profile, %cause, stages = stages.len(), "anchor lost");
    let _ = events.send(HostEvent::AnchorLost {
        run: record.run.clone(),
        scope: record.profile.scope.clone(),
        profile: record.profile.clone(),
        cause,
        stages,
    });
}

/// Why `record`'s anchor, whose connection closed with `reason` and which no longer answers,
/// is gone.
async fn classify(
    record: &AnchorRecord,
    daemon_pid: Option<i32>,
    browser_pid: Option<i32>,
    reason: String,
) -> AnchorLossCause {
    match &record.env {
        Some(env) => {
            // The socket can close a moment before the killed process is seen as exited.
            let browser_gone = match browser_pid {
                Some(pid) => exits_within(pid, EXIT_WAIT).await,
                None => true,
            };
            // The daemon removes its pid file when it exits: no file, no session. (Its Chrome
            // goes after it, so by now a killed daemon is seen as exited.)
            let daemon_pid =
                daemon_pid.or_else(|| env.session_file("pid").and_then(|p| read_pid(&p)));
            match daemon_pid {
                Some(pid) if pid_alive(pid) => {
                    if browser_gone {
                        AnchorLossCause::BrowserExited { pid: browser_pid }
                    } else {
                        AnchorLossCause::ConnectionClosed { reason }
                    }
                }
                daemon_pid => AnchorLossCause::SessionEnded { daemon_pid },
            }
        }
        None => {
            let service = record.remote.as_deref().unwrap_or(&record.cdp);
            if service_answers(service).await {
                AnchorLossCause::ServiceEnded { reason }
            } else {
                AnchorLossCause::ConnectionClosed { reason }
            }
        }
    }
}

/// Whether `pid` is seen as exited within `wait`.
async fn exits_within(pid: i32, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    while pid_alive(pid) {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

/// `host:port` to connect to for a service URL: its port, else the scheme's (443 for `wss`
/// and `https`, 80 otherwise); IPv6 in brackets. `None` without a host.
fn socket_address(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed.host()?;
    let port = parsed.port().unwrap_or(match parsed.scheme() {
        "wss" | "https" => 443,
        _ => 80,
    });
    Some(format!("{host}:{port}"))
}

/// Whether something accepts TCP connections at `url`'s host and port (within 1 s).
async fn service_answers(url: &str) -> bool {
    let Some(address) = socket_address(url) else {
        return false;
    };
    matches!(
        tokio::time::timeout(
            Duration::from_secs(1),
            tokio::net::TcpStream::connect(address)
        )
        .await,
        Ok(Ok(_))
    )
}

/// A local anchor's daemon (from its pid file) and Chrome (from `SystemInfo.getProcessInfo`).
async fn learn_pids(record: &AnchorRecord, browser: &Browser, state: &Mutex<WatchState>) {
    let Some(env) = &record.env else {
        return;
    };
    let daemon_pid = env.session_file("pid").and_then(|p| read_pid(&p));
    let browser_pid = browser
        .connection()
        .browser()
        .call_within(GetProcessInfoParams::default(), Duration::from_secs(5))
        .await
        .ok()
        .and_then(|info| {
            info.process_info
                .iter()
                .find(|p| p.r#type == "browser")
                .and_then(|p| i32::try_from(p.id).ok())
        });
    let mut state = lock(state);
    state.daemon_pid = state.daemon_pid.or(daemon_pid);
    state.browser_pid = state.browser_pid.or(browser_pid);
}

/// The watch: waits for the connection to close; a local anchor that still answers was only
/// disconnected (watched again), anything else is a loss.
async fn run_watch(
    watch: Arc<Watch>,
    keeper: Option<Arc<Browser>>,
    spares: Arc<SpareTabs>,
    home: PathBuf,
    events: broadcast::Sender<HostEvent>,
    audit: Audit,
) {
    let record = &watch.record;
    let local = record.env.is_some();
    let mut keeper = keeper;
    loop {
        let browser = match keeper.take() {
            Some(browser) => Some(browser),
            None => {
                spares
                    .connection(&record.cdp, &record.cdp_headers, CONNECT_WAIT)
                    .await
            }
        };
        let reason = match browser {
            Some(browser) => {
                lock(&watch.state).browser = Some(browser.clone());
                if local {
                    learn_pids(record, &browser, &watch.state).await;
                }
                let reason = browser.connection().closed().await;
                lock(&watch.state).browser = None;
                reason
            }
            None => "the Host could not connect to it".to_string(),
        };
        // A local anchor's address names its browser: if it answers, only our connection went.
        // A remote address may be a service's launch URL that answers with a new browser, and
        // the keeper's connection is what kept the old one alive: its end is the loss.
        if local && probe(&record.cdp, &record.cdp_headers).await {
            tracing::debug!(run = %record.run, profile = %record.profile, %reason, "anchor connection closed but the anchor answers; watching again");
            tokio::time::sleep(Duration::from_millis(250)).await;
            continue;
        }
        let (daemon_pid, browser_pid) = {
            let state = lock(&watch.state);
            (state.daemon_pid, state.browser_pid)
        };
        let cause = classify(record, daemon_pid, browser_pid, reason).await;
        {
            let mut state = lock(&watch.state);
            if state.stopped || state.lost.is_some() {
                return;
            }
            state.lost = Some((cause.clone(), now_ms()));
        }
        report(&home, &events, &audit, record, cause);
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_addresses_take_the_scheme_port_when_none_is_written() {
        let address = |u: &str| socket_address(u);
        assert_eq!(
            address("ws://127.0.0.1:9222/devtools/browser/x").as_deref(),
            Some("127.0.0.1:9222")
        );
        assert_eq!(
            address("wss://u:p@cloud.test/session?token=a").as_deref(),
            Some("cloud.test:443")
        );
        assert_eq!(
            address("http://Cloud.Test").as_deref(),
            Some("cloud.test:80")
        );
        assert_eq!(address("ws://[::1]:9/").as_deref(), Some("[::1]:9"));
        assert_eq!(
            address("wss://h:443/").as_deref(),
            Some("h:443"),
            "an explicit default port"
        );
        assert_eq!(address("not a url"), None);
    }
}
