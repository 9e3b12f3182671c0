//! Spare tabs: a blank tab per anchor made ahead of time, so a starting stage does not wait for
//! Chrome to create one. `Target.createTarget` and the new tab's first renderer answers are
//! 40–90 ms of a pinned stage's ~100 ms attach (BENCHMARKS.md, "Stage attach"); attaching to a
//! tab that already exists costs Chrome 6–16 ms.
//!
//! [`SpareTabs`] keeps, per anchor address, one CDP connection for as long as the Host uses the
//! anchor (Chrome resets permission overrides whenever a client detaches, so a connection per
//! spare would disturb the stages), and up to `per_anchor` unattached `about:blank` tabs. Each
//! spare's tab claim (ADR 0005) is held by the Host while it waits, so no other session adopts
//! it. [`SpareTabs::take`] releases the claim and returns the tab's id; the Host names it in the
//! stage's `<session>.target` with `"fresh": true`, and the stage's daemon takes it on its first
//! command when it is still an unattached, unclaimed `about:blank` page (else it opens its own
//! tab, as without a spare). The pool then makes the next spare in the background.
//!
//! The same connection is the one the anchor's watch (`watch.rs`) waits on; with spares off
//! (`per_anchor` 0) the pool only connects.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use abx_engine::{AttachOptions, Browser, ClaimDir, ClaimHolder, TabClaim};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

/// How long a stage's preparation waits for a spare that is being made (the first stage on a
/// new anchor); past it the stage opens its own tab.
const WAIT_FOR_SPARE: Duration = Duration::from_secs(3);

/// The session name written into a waiting spare's claim (what `tab_pinned` errors show).
const HOLDER_NAME: &str = "abx-host spare tab";

/// Names `target_id` in a stage's `<session>.target` as a spare handed to it: the daemon's own
/// binding fields plus `"fresh": true`, which only a Host writes.
pub(crate) fn write_handed(path: &Path, target_id: &str) -> crate::error::Result<()> {
    let binding = serde_json::json!({
        "targetId": target_id,
        "url": "about:blank",
        "pinned": true,
        "fresh": true,
    });
    crate::fsutil::write_private(path, format!("{binding}\n").as_bytes())
}

/// The spare named in `<session>.target` that no daemon took yet (a daemon rewrites the file
/// without `fresh` once it binds).
pub(crate) fn untaken(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    if value.get("fresh").and_then(serde_json::Value::as_bool) != Some(true) {
        return None;
    }
    value
        .get("targetId")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// The spare tabs of every anchor this Host uses.
pub(crate) struct SpareTabs {
    per_anchor: usize,
    claims: ClaimDir,
    pools: Mutex<HashMap<String, Arc<Pool>>>,
}

/// A spare waiting for a stage; its claim keeps other sessions off it.
struct Spare {
    target_id: String,
    _claim: Option<TabClaim>,
}

/// One anchor's spares and the task that makes them.
struct Pool {
    state: Mutex<PoolState>,
    /// Bumped whenever a spare is ready or the maker stopped.
    changed: watch::Sender<u64>,
    /// Wakes the maker after a spare was taken.
    wake: Notify,
    maker: Mutex<Option<JoinHandle<()>>>,
    browser: Mutex<Option<Arc<Browser>>>,
}

#[derive(Default)]
struct PoolState {
    ready: VecDeque<Spare>,
    /// The maker is connecting or creating a tab.
    making: bool,
    /// A preparation is already waiting for the spare being made (others do not queue behind it).
    waiter: bool,
    /// The maker gave up (anchor unreachable or gone).
    stopped: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pool {
    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    fn stop(&self) {
        let mut state = lock(&self.state);
        state.making = false;
        state.stopped = true;
        drop(state);
        self.bump();
    }

    /// Ends the maker and takes out the waiting spares and the connection, for the caller to
    /// close or drop; the pool is stopped.
    fn dismantle(&self) -> (Vec<Spare>, Option<Arc<Browser>>) {
        if let Some(maker) = lock(&self.maker).take() {
            maker.abort();
        }
        let spares = lock(&self.state).ready.drain(..).collect();
        let browser = lock(&self.browser).take();
        self.stop();
        (spares, browser)
    }
}

impl SpareTabs {
    /// Up to `per_anchor` spares per anchor (0: none, every stage opens its own tab).
    pub(crate) fn new(per_anchor: usize, claims: ClaimDir) -> Self {
        Self {
            per_anchor,
            claims,
            pools: Mutex::new(HashMap::new()),
        }
    }

    /// The pool of the anchor at `cdp`, started (connecting, then making spares) if there is none
    /// or the old one stopped.
    fn pool(&self, cdp: &str, headers: &[(String, String)]) -> Arc<Pool> {
        let mut pools = lock(&self.pools);
        if let Some(pool) = pools.get(cdp)
            && !lock(&pool.state).stopped
        {
            return pool.clone();
        }
        let pool = Arc::new(Pool {
            state: Mutex::new(PoolState {
                making: true,
                ..PoolState::default()
            }),
            changed: watch::Sender::new(0),
            wake: Notify::new(),
            maker: Mutex::new(None),
            browser: Mutex::new(None),
        });
        let maker = tokio::spawn(make_spares(
            pool.clone(),
            cdp.to_string(),
            headers.to_vec(),
            self.per_anchor,
            self.claims.clone(),
        ));
        *lock(&pool.maker) = Some(maker);
        // A stopped pool's anchor is gone or refused tabs: nothing of it to close.
        if let Some(old) = pools.insert(cdp.to_string(), pool.clone()) {
            old.dismantle();
        }
        pool
    }

    /// A spare tab of the anchor at `cdp` for a starting stage, its claim released: ready at once
    /// in the steady state; the first stage on an anchor waits (bounded) for the one being made.
    /// `None` when spares are off, the anchor cannot be reached, or another preparation is
    /// already waiting for the spare being made: the stage then opens its own tab.
    pub(crate) async fn take(&self, cdp: &str, headers: &[(String, String)]) -> Option<String> {
        if self.per_anchor == 0 {
            return None;
        }
        let pool = self.pool(cdp, headers);
        let mut changes = pool.changed.subscribe();
        let mut waiting = false;
        let deadline = tokio::time::Instant::now() + WAIT_FOR_SPARE;
        loop {
            {
                let mut state = lock(&pool.state);
                if let Some(spare) = state.ready.pop_front() {
                    if waiting {
                        state.waiter = false;
                    }
                    // The maker makes the next one now: a preparation right behind may wait for it.
                    state.making = true;
                    drop(state);
                    pool.wake.notify_one();
                    tracing::debug!(target = %spare.target_id, "spare tab handed to a stage");
                    return Some(spare.target_id);
                }
                let busy = state.waiter && !waiting;
                if state.stopped || !state.making || busy {
                    if waiting {
                        state.waiter = false;
                    }
                    return None;
                }
                state.waiter = true;
                waiting = true;
            }
            if tokio::time::timeout_at(deadline, changes.changed())
                .await
                .is_err()
            {
                lock(&pool.state).waiter = false;
                return None;
            }
        }
    }

    /// The Host's connection to the anchor at `cdp` (the one its spares are made over), opened
    /// if there is none, also when spares are off; the anchor's watch (`watch.rs`) waits on it.
    /// `None` when it cannot be opened within `wait`.
    pub(crate) async fn connection(
        &self,
        cdp: &str,
        headers: &[(String, String)],
        wait: Duration,
    ) -> Option<Arc<Browser>> {
        let pool = self.pool(cdp, headers);
        let mut changes = pool.changed.subscribe();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(browser) = lock(&pool.browser).clone() {
                return Some(browser);
            }
            if lock(&pool.state).stopped {
                return None;
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return None,
            }
        }
    }

    /// Closes a spare that was handed to a stage whose session never started (its teardown
    /// found no daemon), so nothing of the stage is left in the anchor.
    pub(crate) async fn discard(&self, cdp: &str, target_id: &str) {
        let pool = lock(&self.pools).get(cdp).cloned();
        let browser = pool.and_then(|p| lock(&p.browser).clone());
        if let Some(browser) = browser
            && browser.is_alive()
            && let Err(err) = browser.close_target(target_id).await
        {
            tracing::debug!(%err, target = %target_id, "could not close an unused spare tab");
        }
    }

    /// Stops the pool of the anchor at `cdp` before the anchor closes or after it died: its
    /// waiting spares are closed, their claims released, its connection dropped.
    pub(crate) async fn forget(&self, cdp: &str) {
        let Some(pool) = lock(&self.pools).remove(cdp) else {
            return;
        };
        let (spares, browser) = pool.dismantle();
        if let Some(browser) = browser {
            if browser.is_alive() {
                for spare in &spares {
                    let _ = browser.close_target(&spare.target_id).await;
                }
            }
            browser.close().await;
        }
    }
}

impl Drop for SpareTabs {
    fn drop(&mut self) {
        // No waiting here: the spares' claims are released, their tabs stay with the anchor.
        for pool in lock(&self.pools).values() {
            pool.dismantle();
        }
    }
}

/// The maker: connects to the anchor once, then keeps `per_anchor` spares ready, making the next
/// after each one is taken. Stops (the stages open their own tabs) when the anchor cannot be
/// reached or refuses a tab.
async fn make_spares(
    pool: Arc<Pool>,
    cdp: String,
    headers: Vec<(String, String)>,
    per_anchor: usize,
    claims: ClaimDir,
) {
    let options = AttachOptions {
        headers,
        connect_timeout: Some(Duration::from_secs(5)),
        ..AttachOptions::default()
    };
    let browser = match Browser::attach(&cdp, options).await {
        Ok(browser) => Arc::new(browser),
        Err(err) => {
            tracing::warn!(%err, "spare tabs off for this anchor: cannot connect to it");
            pool.stop();
            return;
        }
    };
    *lock(&pool.browser) = Some(browser.clone());
    pool.bump();
    let holder = ClaimHolder {
        session: HOLDER_NAME.into(),
        pid: std::process::id(),
    };
    while browser.is_alive() {
        let wanted = {
            let mut state = lock(&pool.state);
            let wanted = state.ready.len() < per_anchor;
            state.making = wanted;
            wanted
        };
        if !wanted {
            pool.bump();
            tokio::select! {
                () = pool.wake.notified() => {}
                // The anchor is gone: the pool stops, so the next use connects afresh.
                _ = browser.connection().closed() => break,
            }
            continue;
        }
        let target_id = match browser.create_tab("about:blank", false).await {
            Ok(id) => id,
            Err(err) => {
                tracing::warn!(%err, "spare tabs off for this anchor: it refused a new tab");
                break;
            }
        };
        let claim = browser
            .browser_id()
            .and_then(|browser_id| claims.acquire(&browser_id, &target_id, &holder).ok());
        lock(&pool.state).ready.push_back(Spare {
            target_id,
            _claim: claim,
        });
        pool.bump();
    }
    pool.stop();
}
