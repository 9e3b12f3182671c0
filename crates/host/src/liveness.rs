//! Run liveness: what the Host knows of a run ([`RunState`]), answered synchronously from the
//! Host's run table ([`RunLiveness`]) or asynchronously, for a Host whose run table is in
//! another process, a database or at the other end of a channel (the `abx-host` JSON front asks
//! its Host over stdio). The kit always asks through [`AsyncRunLiveness`]; every synchronous
//! [`RunLiveness`] (a closure over the run table) is one.

use std::collections::HashMap;
use std::time::Duration;

use crate::names::RunId;
use crate::runner::BoxFuture;

/// What the Host knows of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Stages are running or scheduled.
    Running,
    /// The run waits at a gate (for a person); its browsers stay up.
    Waiting,
    /// The run has ended (succeeded, failed, cancelled, abandoned): the Host knows it. Only
    /// this state lets a sweep close a run's sessions or reclaim its leases.
    Ended,
    /// The Host has no such run in its table, or cannot tell (another Host's run, a read
    /// error). Counts as live: nothing of an unknown run is ever closed or reclaimed. A Host's
    /// liveness must answer this, never `Ended`, for a run it does not know.
    Unknown,
}

impl RunState {
    /// Whether the run may still use its browser (everything but [`RunState::Ended`]).
    pub fn is_live(self) -> bool {
        !matches!(self, RunState::Ended)
    }
}

/// "Is this run still able to use its browser?", answered from the Host's run table.
pub trait RunLiveness: Send + Sync {
    /// The run's state.
    fn state(&self, run: &RunId) -> RunState;
}

impl<F: Fn(&RunId) -> RunState + Send + Sync> RunLiveness for F {
    fn state(&self, run: &RunId) -> RunState {
        self(run)
    }
}

/// "Is this run still able to use its browser?", answered asynchronously.
///
/// An implementation bounds its own wait: an answer that does not come in time is
/// [`RunState::Unknown`], which counts as live (nothing of the run is closed or reclaimed).
/// [`AnswerWithin`] adds such a bound to any implementation.
pub trait AsyncRunLiveness: Send + Sync {
    /// The run's state.
    fn state_of<'a>(&'a self, run: &'a RunId) -> BoxFuture<'a, RunState>;
}

impl<L: RunLiveness> AsyncRunLiveness for L {
    fn state_of<'a>(&'a self, run: &'a RunId) -> BoxFuture<'a, RunState> {
        let state = self.state(run);
        Box::pin(std::future::ready(state))
    }
}

/// An [`AsyncRunLiveness`] whose answer counts as [`RunState::Unknown`] (live) when it takes
/// longer than `limit`.
///
/// ```
/// # let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # runtime.block_on(async {
/// use std::time::Duration;
/// use abx_host::{AnswerWithin, AsyncRunLiveness, BoxFuture, RunId, RunState};
/// struct Slow;
/// impl AsyncRunLiveness for Slow {
///     fn state_of<'a>(&'a self, _: &'a RunId) -> BoxFuture<'a, RunState> {
///         Box::pin(async {
///             tokio::time::sleep(Duration::from_secs(3600)).await;
///             RunState::Ended
///         })
///     }
/// }
/// let bounded = AnswerWithin::new(Slow, Duration::from_millis(20));
/// let run = RunId::new("r1").unwrap();
/// assert_eq!(bounded.state_of(&run).await, RunState::Unknown);
/// # });
/// ```
#[derive(Debug)]
pub struct AnswerWithin<L> {
    inner: L,
    limit: Duration,
}

impl<L> AnswerWithin<L> {
    /// Asks `inner`, waiting at most `limit`.
    pub fn new(inner: L, limit: Duration) -> Self {
        Self { inner, limit }
    }
}

impl<L: AsyncRunLiveness> AsyncRunLiveness for AnswerWithin<L> {
    fn state_of<'a>(&'a self, run: &'a RunId) -> BoxFuture<'a, RunState> {
        Box::pin(async move {
            tokio::time::timeout(self.limit, self.inner.state_of(run))
                .await
                .unwrap_or(RunState::Unknown)
        })
    }
}

/// Answers asked once per run, for decisions made synchronously afterwards (lease
/// reclaims); a run not asked is [`RunState::Unknown`].
#[derive(Debug, Default)]
pub(crate) struct LivenessSnapshot(HashMap<RunId, RunState>);

impl LivenessSnapshot {
    /// Asks `liveness` about each distinct run of `runs`.
    pub(crate) async fn ask(
        liveness: &dyn AsyncRunLiveness,
        runs: impl IntoIterator<Item = RunId>,
    ) -> LivenessSnapshot {
        let mut known = HashMap::new();
        for run in runs {
            if let std::collections::hash_map::Entry::Vacant(slot) = known.entry(run) {
                let state = liveness.state_of(slot.key()).await;
                slot.insert(state);
            }
        }
        LivenessSnapshot(known)
    }
}

impl RunLiveness for LivenessSnapshot {
    fn state(&self, run: &RunId) -> RunState {
        self.0.get(run).copied().unwrap_or(RunState::Unknown)
    }
}
