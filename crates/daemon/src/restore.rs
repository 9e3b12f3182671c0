//! Session persistence: `--state <file>` (storage state loaded into every browser this daemon
//! launches) and `--restore [key]` (the newest saved state of the key loaded at launch, the
//! session's state saved back when it closes, by the `--restore-save` policy), with the optional
//! `--restore-check-url|-text|-fn` that tells whether the restored login still holds.
//!
//! The statuses are upstream's (`lifecycle.restoreStatus`: `not_configured`, `pending`,
//! `loaded`, `loaded_but_invalid`, `load_failed`, `missing`; `saveStatus`: `not_attempted`,
//! `not_configured`, `saved`, `disabled`, `skipped_restore_failed`, `error`). Beyond upstream, a
//! failed check is said in the reply's `warning`, not only in a status field.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use abx_engine::Session;
use abx_engine::storage_state::StorageState;
use abx_wire::env;

use crate::errors::Failure;
use crate::protocol::Request;
use crate::state_files::{self, StateDirs, StateKey};

/// How long each restore check may wait for the page.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// The session's persistence settings and where they stand.
#[derive(Debug)]
pub struct Restore {
    dirs: StateDirs,
    key: Option<StateKey>,
    expire_days: Option<u64>,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// `--state <file>`.
    state_file: Option<String>,
    /// The restore key.
    restore_key: Option<String>,
    /// `auto`, `always` or `never`.
    save_policy: String,
    check_url: Option<String>,
    check_text: Option<String>,
    check_fn: Option<String>,
    restore_status: &'static str,
    detail: Option<String>,
    loaded_path: Option<PathBuf>,
    load_failed: bool,
    validation_pending: bool,
    save_status: &'static str,
    saved_path: Option<PathBuf>,
    /// The restore key whose state is in the current browser.
    loaded_key: Option<String>,
    /// A failed load was said in a reply.
    warned: bool,
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

impl Restore {
    /// Settings from the daemon's environment (`AGENT_BROWSER_STATE`, `…_SESSION_NAME`,
    /// `…_RESTORE_SAVE`, `…_RESTORE_CHECK_*`, `…_ENCRYPTION_KEY`, `…_STATE_EXPIRE_DAYS`).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Restore {
        let restore_key =
            non_empty(var(env::SESSION_NAME)).or_else(|| non_empty(var(env::RESTORE)));
        let inner = Inner {
            state_file: non_empty(var(env::STATE)),
            restore_status: if restore_key.is_some() {
                "pending"
            } else {
                "not_configured"
            },
            restore_key,
            save_policy: non_empty(var(env::RESTORE_SAVE)).unwrap_or_else(|| "auto".into()),
            check_url: non_empty(var(env::RESTORE_CHECK_URL)),
            check_text: non_empty(var(env::RESTORE_CHECK_TEXT)),
            check_fn: non_empty(var(env::RESTORE_CHECK_FN)),
            save_status: "not_attempted",
            ..Inner::default()
        };
        Restore {
            dirs: StateDirs::from_env(var),
            key: StateKey::from_env(var),
            expire_days: state_files::expire_days(var),
            inner: Mutex::new(inner),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Deletes saved states older than `AGENT_BROWSER_STATE_EXPIRE_DAYS` (daemon start).
    pub fn expire_old_states(&self) {
        if let Some(days) = self.expire_days {
            let removed = state_files::expire(&self.dirs, days);
            if removed > 0 {
                tracing::debug!(removed, days, "expired saved states deleted");
            }
        }
    }

    /// `(restoreStatus, saveStatus)` for `lifecycle`.
    pub fn statuses(&self) -> (&'static str, &'static str) {
        let inner = self.lock();
        (inner.restore_status, inner.save_status)
    }

    /// Facts for `session info`.
    pub fn info(&self) -> serde_json::Value {
        let inner = self.lock();
        serde_json::json!({
            "restoreKey": inner.restore_key,
            "restoreStatus": inner.restore_status,
            "restoreStatusDetail": inner.detail,
            "restoreLoadedPath": inner.loaded_path.as_ref().map(|p| p.display().to_string()),
            "restoreValidationPending": inner.validation_pending,
            "restoreSave": inner.save_policy,
            "saveStatus": inner.save_status,
            "restoreSavedPath": inner.saved_path.as_ref().map(|p| p.display().to_string()),
            "restoreCheckUrl": inner.check_url,
            "restoreCheckText": inner.check_text,
            "restoreCheckFn": inner.check_fn,
        })
    }

    /// Takes the restore fields a request carries (`restoreKey`, `restoreSave`,
    /// `restoreCheckUrl|Text|Fn`) and a launch's `storageState`. Returns whether the restore key
    /// changed, so its state must be loaded into the running browser.
    pub fn apply_request(&self, request: &Request) -> Result<bool, Failure> {
        let mut inner = self.lock();
        if let Some(policy) = request.str("restoreSave") {
            if !matches!(policy, "auto" | "always" | "never") {
                return Err(Failure::message(format!(
                    "Invalid restore save policy '{policy}'. Use auto, always, or never."
                )));
            }
            inner.save_policy = policy.to_string();
        }
        let has_checks = ["restoreCheckUrl", "restoreCheckText", "restoreCheckFn"]
            .iter()
            .any(|k| request.str(k).is_some());
        if has_checks {
            let url = request.str("restoreCheckUrl").map(str::to_string);
            let text = request.str("restoreCheckText").map(str::to_string);
            let func = request.str("restoreCheckFn").map(str::to_string);
            if (&url, &text, &func) != (&inner.check_url, &inner.check_text, &inner.check_fn) {
                inner.check_url = url;
                inner.check_text = text;
                inner.check_fn = func;
                if matches!(inner.restore_status, "loaded" | "loaded_but_invalid") {
                    inner.restore_status = "loaded";
                    inner.load_failed = false;
                    inner.detail = None;
                    inner.validation_pending = true;
                }
            }
        }
        if request.action == "launch"
            && let Some(path) = request.str("storageState").filter(|p| !p.is_empty())
        {
            inner.state_file = Some(path.to_string());
        }
        let mut changed = false;
        if let Some(key) = request.str("restoreKey").filter(|k| !k.is_empty()) {
            if !state_files::is_valid_name(key) {
                return Err(Failure::message(format!(
                    "Invalid session name '{key}'. Only alphanumeric characters, hyphens, and underscores are allowed."
                )));
            }
            if inner.restore_key.as_deref() != Some(key) {
                inner.restore_key = Some(key.to_string());
                inner.restore_status = "pending";
                inner.detail = None;
                inner.loaded_path = None;
                inner.load_failed = false;
                inner.validation_pending = false;
                inner.save_status = "not_attempted";
                inner.saved_path = None;
            }
            changed = inner.loaded_key.as_deref() != Some(key);
        }
        Ok(changed)
    }

    /// Reads a state file for loading (expiry, then decryption).
    fn read(&self, path: &Path) -> Result<StorageState, state_files::StateFileError> {
        let mut effective = path.to_path_buf();
        if !path.exists() && self.key.is_some() && !state_files::is_encrypted(path) {
            let mut sealed = path.as_os_str().to_owned();
            sealed.push(".enc");
            effective = sealed.into();
        }
        state_files::check_not_expired(&effective, self.expire_days)?;
        state_files::load(path, self.key.as_ref())
    }

    /// After a browser was launched: loads the `--state` file (a failure fails the launch, as
    /// upstream does), then the restore key's saved state (a failure is only a status).
    pub async fn after_launch(&self, session: &Session) -> Result<(), Failure> {
        let state_file = self.lock().state_file.clone();
        if let Some(path) = state_file {
            let state = self
                .read(Path::new(&path))
                .map_err(|e| Failure::message(format!("Failed to load --state: {e}")))?;
            session
                .apply_storage_state(&state, None)
                .await
                .map_err(|e| Failure::message(format!("Failed to load --state {path}: {e}")))?;
        }
        self.load_restore(session).await;
        Ok(())
    }

    /// Loads the restore key's newest saved state into `session`, recording the outcome.
    pub async fn load_restore(&self, session: &Session) {
        let Some(key) = self.lock().restore_key.clone() else {
            return;
        };
        let Some(path) = state_files::find_restore_file(&self.dirs, &key) else {
            let mut inner = self.lock();
            inner.restore_status = "missing";
            inner.loaded_key = Some(key);
            return;
        };
        let outcome = match self.read(&path) {
            Ok(state) => session
                .apply_storage_state(&state, None)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let mut inner = self.lock();
        inner.loaded_key = Some(key);
        inner.loaded_path = Some(path);
        match outcome {
            Ok(()) => {
                inner.restore_status = "loaded";
                inner.detail = None;
                inner.load_failed = false;
                inner.validation_pending = inner.check_url.is_some()
                    || inner.check_text.is_some()
                    || inner.check_fn.is_some();
            }
            Err(detail) => {
                tracing::debug!(%detail, "restore load failed");
                inner.warned = false;
                inner.restore_status = "load_failed";
                inner.detail = Some(detail);
                inner.load_failed = true;
                inner.validation_pending = false;
            }
        }
    }

    /// After a successful command: runs the pending restore checks. Returns the warning to put
    /// in the reply when the restored state does not hold (or could not be loaded).
    pub async fn validate_if_pending(&self, session: &Session) -> Option<String> {
        let (url, text, func, key, path) = {
            let mut inner = self.lock();
            if inner.restore_status == "load_failed" && !inner.warned {
                inner.warned = true;
                return Some(format!(
                    "Restore of '{}' failed: {}. The session started without it",
                    inner.restore_key.clone().unwrap_or_default(),
                    inner.detail.clone().unwrap_or_default()
                ));
            }
            if !inner.validation_pending {
                return None;
            }
            inner.validation_pending = false;
            (
                inner.check_url.clone(),
                inner.check_text.clone(),
                inner.check_fn.clone(),
                inner.restore_key.clone().unwrap_or_default(),
                inner.loaded_path.clone(),
            )
        };
        let failure = check(session, url, text, func).await.err();
        let mut inner = self.lock();
        match failure {
            None => {
                inner.restore_status = "loaded";
                inner.detail = None;
                inner.load_failed = false;
                None
            }
            Some(detail) => {
                inner.restore_status = "loaded_but_invalid";
                inner.detail = Some(detail.clone());
                inner.load_failed = true;
                let keep = if inner.save_policy == "always" {
                    "it will still be saved over on close (--restore-save always)"
                } else {
                    "it will not be saved over on close"
                };
                Some(format!(
                    "Restored state '{key}' ({}) does not hold: {detail}. The saved login may have expired; {keep}",
                    path.map(|p| p.display().to_string()).unwrap_or_default()
                ))
            }
        }
    }

    /// Before the browser closes: saves the restore key's state by the save policy.
    pub async fn save_before_close(&self, session: &Session, session_name: &str) {
        let (key, policy, load_failed) = {
            let inner = self.lock();
            (
                inner.restore_key.clone(),
                inner.save_policy.clone(),
                inner.load_failed,
            )
        };
        let Some(key) = key else {
            self.lock().save_status = "not_configured";
            return;
        };
        match policy.as_str() {
            "never" => {
                self.lock().save_status = "disabled";
                return;
            }
            "auto" if load_failed => {
                self.lock().save_status = "skipped_restore_failed";
                return;
            }
            _ => {}
        }
        let saved = match session.storage_state().await {
            Ok(state) => {
                state_files::save_restore(&self.dirs, &key, session_name, &state, self.key.as_ref())
                    .map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        };
        let mut inner = self.lock();
        match saved {
            Ok(path) => {
                inner.save_status = "saved";
                inner.saved_path = Some(path);
            }
            Err(detail) => {
                tracing::debug!(%detail, "restore save failed");
                inner.save_status = "error";
                inner.detail = Some(detail);
            }
        }
    }

    /// Whether a restore key is in effect (there is something to save).
    pub fn has_key(&self) -> bool {
        self.lock().restore_key.is_some()
    }

    /// Where the last save went.
    pub fn saved_path(&self) -> Option<PathBuf> {
        self.lock().saved_path.clone()
    }
}

/// Runs the configured checks; the first that fails, in words.
async fn check(
    session: &Session,
    url: Option<String>,
    text: Option<String>,
    func: Option<String>,
) -> Result<(), String> {
    if let Some(pattern) = url {
        let here = session.url().await.unwrap_or_default();
        if !abx_engine::glob::Glob::new(&pattern).matches(&here) {
            return Err(format!(
                "--restore-check-url: the page is {here}, which does not match '{pattern}'"
            ));
        }
    }
    if let Some(text) = text {
        let found = match session.page(Some(CHECK_TIMEOUT)).await {
            Ok(page) => page.wait_text(&text).await.is_ok(),
            Err(_) => false,
        };
        if !found {
            return Err(format!("--restore-check-text: '{text}' is not on the page"));
        }
    }
    let holds = |func: String| async move {
        match session.page(Some(CHECK_TIMEOUT)).await {
            Ok(page) => page.wait_for_function(&func, "restore check").await.is_ok(),
            Err(_) => false,
        }
    };
    if let Some(func) = func
        && !holds(func.clone()).await
    {
        return Err(format!(
            "--restore-check-fn: '{func}' is not true on the page"
        ));
    }
    Ok(())
}

impl Restore {
    /// The daemon's last step on a reply: after a successful command (not `launch`), runs the
    /// pending restore checks and adds their warning; puts the statuses into `lifecycle`.
    pub async fn finish_reply(
        &self,
        live: Option<std::sync::Arc<Session>>,
        action: &str,
        response: &mut serde_json::Value,
    ) {
        let success = response.get("success").and_then(serde_json::Value::as_bool) == Some(true);
        if success
            && action != "launch"
            && let Some(session) = live
            && let Some(warning) = self.validate_if_pending(&session).await
        {
            let joined = match response.get("warning").and_then(serde_json::Value::as_str) {
                Some(existing) => format!("{existing}\n{warning}"),
                None => warning,
            };
            response["warning"] = serde_json::json!(joined);
        }
        let (restore, save) = self.statuses();
        if let Some(lifecycle) = response
            .get_mut("data")
            .and_then(|d| d.get_mut("lifecycle"))
            .and_then(serde_json::Value::as_object_mut)
        {
            lifecycle.insert("restoreStatus".into(), restore.into());
            lifecycle.insert("saveStatus".into(), save.into());
        }
    }
}
