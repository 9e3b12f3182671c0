//! Run liveness asked of the Host over its connections: `{"ask":"run_state","ask_id":N,
//! "run":…}` to every connection, the first `answer` wins, no answer within the limit (or no
//! connection) counts as `unknown`, which the kit treats as live.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use abx_host::{AsyncRunLiveness, BoxFuture, RunId, RunState};
use tokio::sync::oneshot;

use crate::clients::Clients;

/// An answer this recent is reused: a stage waiting for a profile asks on every poll (250 ms).
const FRESH: Duration = Duration::from_secs(1);

/// The kit's [`AsyncRunLiveness`], answered by the Host over the channel.
pub(crate) struct ChannelLiveness {
    clients: Arc<Clients>,
    limit: Duration,
    next: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<RunState>>>,
    /// The last state the Host gave for each run (answered or pushed with `run_state`).
    known: Mutex<HashMap<RunId, (RunState, Instant)>>,
}

impl ChannelLiveness {
    pub(crate) fn new(clients: Arc<Clients>, limit: Duration) -> Self {
        Self {
            clients,
            limit,
            next: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
            known: Mutex::new(HashMap::new()),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<RunState>>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, (RunState, Instant)>> {
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The Host's answer to question `ask_id`; `false` when no such question waits (answered
    /// already, or timed out).
    pub(crate) fn answer(&self, ask_id: u64, state: RunState) -> bool {
        match self.pending().remove(&ask_id) {
            Some(waiter) => waiter.send(state).is_ok(),
            None => false,
        }
    }

    /// A state the Host told without being asked.
    pub(crate) fn note(&self, run: RunId, state: RunState) {
        self.known().insert(run, (state, Instant::now()));
    }

    /// Runs whose last known state is `waiting` (kept when the Host goes away).
    pub(crate) fn waiting_runs(&self) -> Vec<RunId> {
        self.known()
            .iter()
            .filter(|(_, (s, _))| *s == RunState::Waiting)
            .map(|(r, _)| r.clone())
            .collect()
    }
}

impl AsyncRunLiveness for ChannelLiveness {
    fn state_of<'a>(&'a self, run: &'a RunId) -> BoxFuture<'a, RunState> {
        Box::pin(async move {
            if let Some((state, at)) = self.known().get(run)
                && at.elapsed() < FRESH
            {
                return *state;
            }
            let ask_id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
            let (waiter, answer) = oneshot::channel();
            self.pending().insert(ask_id, waiter);
            let question = serde_json::json!({ "ask": "run_state", "ask_id": ask_id, "run": run });
            if !self.clients.ask(&question.to_string()) {
                // Nobody to ask: unknown, which counts as live.
                self.pending().remove(&ask_id);
                return RunState::Unknown;
            }
            let state = match tokio::time::timeout(self.limit, answer).await {
                Ok(Ok(state)) => state,
                _ => {
                    tracing::warn!(run = %run, ask_id, "the Host did not say whether the run is live in time; counting it as live");
                    RunState::Unknown
                }
            };
            self.pending().remove(&ask_id);
            if state != RunState::Unknown {
                self.note(run.clone(), state);
            }
            state
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str) -> RunId {
        RunId::new(id).expect("run id")
    }

    #[tokio::test]
    async fn with_nobody_to_ask_a_run_is_unknown_at_once() {
        let liveness = ChannelLiveness::new(Arc::default(), Duration::from_secs(3600));
        assert_eq!(liveness.state_of(&run("r1")).await, RunState::Unknown);
    }

    #[tokio::test]
    async fn an_answer_that_does_not_come_in_time_counts_as_unknown() {
        let clients = Arc::new(Clients::default());
        let (_id, mut outbound) = clients.add();
        let liveness = ChannelLiveness::new(clients, Duration::from_millis(50));
        assert_eq!(liveness.state_of(&run("r1")).await, RunState::Unknown);
        let question: serde_json::Value =
            serde_json::from_str(&outbound.lines.recv().await.expect("asked")).expect("JSON");
        assert_eq!(question["ask"], "run_state");
        assert_eq!(question["run"], "r1");
        assert!(
            !liveness.answer(question["ask_id"].as_u64().expect("id"), RunState::Ended),
            "a late answer finds nobody waiting"
        );
    }

    #[tokio::test]
    async fn the_hosts_answer_is_the_state_and_is_remembered() {
        let clients = Arc::new(Clients::default());
        let (_id, mut outbound) = clients.add();
        let liveness = Arc::new(ChannelLiveness::new(clients, Duration::from_secs(30)));
        let asking = {
            let liveness = liveness.clone();
            tokio::spawn(async move { liveness.state_of(&run("r2")).await })
        };
        let question: serde_json::Value =
            serde_json::from_str(&outbound.lines.recv().await.expect("asked")).expect("JSON");
        assert!(liveness.answer(question["ask_id"].as_u64().expect("id"), RunState::Waiting));
        assert_eq!(asking.await.expect("task"), RunState::Waiting);
        assert_eq!(liveness.waiting_runs(), [run("r2")]);
        liveness.note(run("r2"), RunState::Running);
        assert!(liveness.waiting_runs().is_empty());
    }
}
