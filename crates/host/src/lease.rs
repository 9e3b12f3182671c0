//! Run-scoped profile leases (seed Revision 2, rules 1 and 2): a profile belongs to one *run*
//! from its first stage that needs it until the run ends. Stages of the holding run join at once;
//! another run queues, sees the holder, and takes over when the holder's run has ended (a stale
//! lease) or the holder releases. Waiting has a limit (limitation 6) and can be cancelled; a
//! resume queues like a fresh start instead of failing (limitation 7).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};
use tokio_util::sync::CancellationToken;

use crate::error::{HostError, Result};
use crate::fsutil::{private_dir, read_json, remove_file, write_json};
use crate::liveness::{AsyncRunLiveness, RunLiveness, RunState};
use crate::names::{LeaseHolder, ProfileKey, ProfileName, RunId, Scope};

/// What an acquire got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// The lease was free and is now this run's.
    Taken,
    /// This run held it already.
    Joined,
}

/// The answer of one non-waiting attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TryAcquire {
    /// This run holds the lease now.
    Acquired(Acquired),
    /// Another run holds it.
    Held(LeaseHolder),
}

/// A profile lease store. Every operation is atomic with respect to the others, also across
/// processes for a shared implementation.
pub trait ProfileLease: Send + Sync {
    /// Takes the lease for `holder.run`, or joins it when that run holds it already.
    fn try_acquire(&self, key: &ProfileKey, holder: &LeaseHolder) -> Result<TryAcquire>;
    /// The current holder.
    fn holder(&self, key: &ProfileKey) -> Result<Option<LeaseHolder>>;
    /// Releases `run`'s lease; `false` when `run` did not hold it (release is idempotent and
    /// never drops another run's lease).
    fn release(&self, key: &ProfileKey, run: &RunId) -> Result<bool>;
    /// Drops the lease only if `stale` still holds it; `true` when dropped.
    fn reclaim(&self, key: &ProfileKey, stale: &LeaseHolder) -> Result<bool>;
    /// Every lease.
    fn leases(&self) -> Result<Vec<(ProfileKey, LeaseHolder)>>;

    /// The profiles `run` holds.
    fn held_by(&self, run: &RunId) -> Result<Vec<ProfileKey>> {
        Ok(self
            .leases()?
            .into_iter()
            .filter(|(_, h)| &h.run == run)
            .map(|(k, _)| k)
            .collect())
    }

    /// Drops the leases of ended runs; returns what was dropped.
    fn reclaim_stale(&self, liveness: &dyn RunLiveness) -> Result<Vec<(ProfileKey, LeaseHolder)>> {
        let mut dropped = Vec::new();
        for (key, holder) in self.leases()? {
            if liveness.state(&holder.run) == RunState::Ended && self.reclaim(&key, &holder)? {
                tracing::info!(profile = %key, run = %holder.run, "reclaimed the lease of an ended run");
                dropped.push((key, holder));
            }
        }
        Ok(dropped)
    }
}

/// How [`acquire`] waits.
#[derive(Clone, Debug)]
pub struct AcquireOptions {
    /// Give up after this long (limitation 6). `None` waits until the holder's run ends.
    pub wait_limit: Option<Duration>,
    /// How often to look again.
    pub poll: Duration,
    /// Stops the wait (run cancelled, Host halting).
    pub cancel: Option<CancellationToken>,
}

impl Default for AcquireOptions {
    fn default() -> Self {
        Self {
            wait_limit: Some(Duration::from_secs(30 * 60)),
            poll: Duration::from_millis(250),
            cancel: None,
        }
    }
}

/// Takes or joins the lease, queueing behind another run: while queued, `on_wait` hears the
/// holder (once per holder), leases of ended runs are reclaimed, and the wait ends at the limit
/// or on cancel. The same call serves a fresh start and a resume (limitation 7: a resume queues).
pub async fn acquire(
    lease: &dyn ProfileLease,
    key: &ProfileKey,
    holder: &LeaseHolder,
    liveness: &dyn AsyncRunLiveness,
    options: &AcquireOptions,
    mut on_wait: impl FnMut(&LeaseHolder),
) -> Result<Acquired> {
    let started = Instant::now();
    let mut announced: Option<RunId> = None;
    loop {
        let other = match lease.try_acquire(key, holder)? {
            TryAcquire::Acquired(acquired) => return Ok(acquired),
            TryAcquire::Held(other) => other,
        };
        if liveness.state_of(&other.run).await == RunState::Ended && lease.reclaim(key, &other)? {
            tracing::info!(profile = %key, run = %other.run, "reclaimed the lease of an ended run");
            continue;
        }
        if announced.as_ref() != Some(&other.run) {
            tracing::info!(profile = %key, holder = %other.run, run = %holder.run, "waiting for a browser profile");
            on_wait(&other);
            announced = Some(other.run.clone());
        }
        let mut pause = options.poll;
        if let Some(limit) = options.wait_limit {
            let waited = started.elapsed();
            if waited >= limit {
                return Err(HostError::LeaseWaitTimedOut {
                    key: key.clone(),
                    holder: other,
                    waited,
                });
            }
            pause = pause.min(limit - waited);
        }
        match &options.cancel {
            Some(cancel) => tokio::select! {
                _ = cancel.cancelled() => return Err(HostError::LeaseWaitCancelled { key: key.clone() }),
                _ = tokio::time::sleep(pause) => {}
            },
            None => tokio::time::sleep(pause).await,
        }
    }
}

/// Leases in memory (one process; a test double, or a Host that runs alone).
#[derive(Debug, Default)]
pub struct MemoryLease {
    leases: Mutex<BTreeMap<ProfileKey, LeaseHolder>>,
}

impl MemoryLease {
    /// No leases.
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<ProfileKey, LeaseHolder>> {
        self.leases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ProfileLease for MemoryLease {
    fn try_acquire(&self, key: &ProfileKey, holder: &LeaseHolder) -> Result<TryAcquire> {
        let mut map = self.map();
        match map.get(key) {
            Some(existing) if existing.run == holder.run => {
                Ok(TryAcquire::Acquired(Acquired::Joined))
            }
            Some(existing) => Ok(TryAcquire::Held(existing.clone())),
            None => {
                map.insert(key.clone(), holder.clone());
                Ok(TryAcquire::Acquired(Acquired::Taken))
            }
        }
    }

    fn holder(&self, key: &ProfileKey) -> Result<Option<LeaseHolder>> {
        Ok(self.map().get(key).cloned())
    }

    fn release(&self, key: &ProfileKey, run: &RunId) -> Result<bool> {
        let mut map = self.map();
        if map.get(key).is_some_and(|h| &h.run == run) {
            map.remove(key);
            return Ok(true);
        }
        Ok(false)
    }

    fn reclaim(&self, key: &ProfileKey, stale: &LeaseHolder) -> Result<bool> {
        let mut map = self.map();
        if map.get(key) == Some(stale) {
            map.remove(key);
            return Ok(true);
        }
        Ok(false)
    }

    fn leases(&self) -> Result<Vec<(ProfileKey, LeaseHolder)>> {
        Ok(self
            .map()
            .iter()
            .map(|(k, h)| (k.clone(), h.clone()))
            .collect())
    }
}

/// Leases as files, shared by every process on the machine: `<root>/<scope>/<name>.lock`
/// (mode 0600, `{run, stage, since_ms}`), every change made under an exclusive `flock` of
/// `<root>/.guard` (released by the kernel if a process dies holding it). A lock file that
/// cannot be parsed is treated as stale and replaced.
#[derive(Debug, Clone)]
pub struct FileLease {
    root: PathBuf,
}

impl FileLease {
    /// Leases under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    fn path(&self, key: &ProfileKey) -> PathBuf {
        self.root
            .join(key.scope.as_str())
            .join(format!("{}.lock", key.name))
    }

    fn guarded<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<T> {
        private_dir(&self.root)?;
        let guard_path = self.root.join(".guard");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&guard_path)
            .map_err(|e| HostError::io("cannot open lock guard", &guard_path, e))?;
        let _lock = Flock::lock(file, FlockArg::LockExclusive)
            .map_err(|(_, errno)| HostError::io("cannot lock", &guard_path, errno.into()))?;
        work()
    }

    fn read(&self, path: &Path) -> Option<LeaseHolder> {
        match read_json::<LeaseHolder>(path) {
            Ok(holder) => holder,
            Err(err) => {
                tracing::warn!(%err, "replacing a corrupt lease file");
                None
            }
        }
    }
}

impl ProfileLease for FileLease {
    fn try_acquire(&self, key: &ProfileKey, holder: &LeaseHolder) -> Result<TryAcquire> {
        let path = self.path(key);
        self.guarded(|| match self.read(&path) {
            Some(existing) if existing.run == holder.run => {
                Ok(TryAcquire::Acquired(Acquired::Joined))
            }
            Some(existing) => Ok(TryAcquire::Held(existing)),
            None => {
                write_json(&path, holder)?;
                Ok(TryAcquire::Acquired(Acquired::Taken))
            }
        })
    }

    fn holder(&self, key: &ProfileKey) -> Result<Option<LeaseHolder>> {
        let path = self.path(key);
        self.guarded(|| Ok(self.read(&path)))
    }

    fn release(&self, key: &ProfileKey, run: &RunId) -> Result<bool> {
        let path = self.path(key);
        self.guarded(|| {
            if self.read(&path).is_some_and(|h| &h.run == run) {
                remove_file(&path)?;
                return Ok(true);
            }
            Ok(false)
        })
    }

    fn reclaim(&self, key: &ProfileKey, stale: &LeaseHolder) -> Result<bool> {
        let path = self.path(key);
        self.guarded(|| {
            if self.read(&path).as_ref() == Some(stale) {
                remove_file(&path)?;
                return Ok(true);
            }
            Ok(false)
        })
    }

    fn leases(&self) -> Result<Vec<(ProfileKey, LeaseHolder)>> {
        self.guarded(|| {
            let mut out = Vec::new();
            let Ok(scopes) = fs::read_dir(&self.root) else {
                return Ok(out);
            };
            for scope_entry in scopes.flatten() {
                let Ok(scope) = Scope::new(scope_entry.file_name().to_string_lossy().into_owned())
                else {
                    continue;
                };
                let Ok(files) = fs::read_dir(scope_entry.path()) else {
                    continue;
                };
                for file in files.flatten() {
                    let file_name = file.file_name().to_string_lossy().into_owned();
                    let Some(name) = file_name.strip_suffix(".lock") else {
                        continue;
                    };
                    let Ok(name) = ProfileName::new(name) else {
                        continue;
                    };
                    if let Some(holder) = self.read(&file.path()) {
                        out.push((
                            ProfileKey {
                                scope: scope.clone(),
                                name,
                            },
                            holder,
                        ));
                    }
                }
            }
            out.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(out)
        })
    }
}
