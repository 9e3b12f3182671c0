//! Storage state: a session's cookies and web storage as one value, saved and put back.
//!
//! The shape is the one Playwright calls `storageState` and upstream agent-browser writes to its
//! state files: `{"cookies":[…],"origins":[{"origin","localStorage":[{name,value}],
//! "sessionStorage":[…]}]}`. [`Session::storage_state`] reads it from the browser (every cookie
//! of the browser, the web storage of the active page's origin), [`Session::apply_storage_state`]
//! writes it back: cookies through CDP, each origin's storage by visiting that origin's root in
//! the active tab, which stays on the last one visited (as upstream's `state load` leaves it).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::session::{Session, WaitUntil};

/// Reads the active page's origin and its local and session storage.
const COLLECT_FN: PageFn = PageFn::new(include_str!("storage_state/collect.js"));
/// Writes local and session storage entries into the active page's origin.
const APPLY_FN: PageFn = PageFn::new(include_str!("storage_state/apply.js"));

const SHORT: Duration = Duration::from_secs(10);

/// Cookies and web storage, in the state-file shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageState {
    /// Cookies as Chrome reports them (`name`, `value`, `domain`, `path`, `expires`, …).
    pub cookies: Vec<Value>,
    /// Web storage per origin.
    #[serde(default)]
    pub origins: Vec<OriginStorage>,
}

/// The web storage of one origin.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginStorage {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// `localStorage` entries.
    #[serde(default)]
    pub local_storage: Vec<StorageEntry>,
    /// `sessionStorage` entries.
    #[serde(default)]
    pub session_storage: Vec<StorageEntry>,
}

/// One storage entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageEntry {
    /// The key.
    pub name: String,
    /// The value.
    pub value: String,
}

impl StorageState {
    /// `<n> cookies, <m> origins`.
    pub fn summary(&self) -> String {
        format!(
            "{} cookies, {} origins",
            self.cookies.len(),
            self.origins.len()
        )
    }
}

/// The fields of a reported cookie that `Network.setCookies` takes back.
fn cookie_param(cookie: &Value) -> Option<Value> {
    let map = cookie.as_object()?;
    let mut param = serde_json::Map::new();
    for key in [
        "name",
        "value",
        "domain",
        "path",
        "secure",
        "httpOnly",
        "sameSite",
        "priority",
        "sameParty",
        "sourceScheme",
        "sourcePort",
        "partitionKey",
    ] {
        if let Some(value) = map.get(key).filter(|v| !v.is_null()) {
            param.insert(key.into(), value.clone());
        }
    }
    // A session cookie is reported with `expires: -1` (and `session: true`); setting that
    // would expire it at once.
    let session = map.get("session").and_then(Value::as_bool) == Some(true);
    if let Some(expires) = map.get("expires").and_then(Value::as_f64)
        && !session
        && expires > 0.0
    {
        param.insert("expires".into(), json!(expires));
    }
    param.contains_key("name").then_some(Value::Object(param))
}

impl Session {
    /// Every cookie of the browser and the web storage of the active page's origin.
    pub async fn storage_state(&self) -> Result<StorageState> {
        let tab = self.active_tab().await?;
        // Raw JSON: cookies are kept as Chrome sent them (the generated `Cookie` type would drop
        // fields newer than the pinned protocol).
        let reply = tab
            .call("state save", "Network.getAllCookies", json!({}), SHORT)
            .await?;
        let cookies = reply
            .get("cookies")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut origins = Vec::new();
        let collected = self
            .page(Some(SHORT))
            .await?
            .evaluate(&COLLECT_FN.call(&[]))
            .await?;
        if let Ok(origin) = serde_json::from_value::<OriginStorage>(collected.value)
            && origin.origin.starts_with("http")
            && !(origin.local_storage.is_empty() && origin.session_storage.is_empty())
        {
            origins.push(origin);
        }
        Ok(StorageState { cookies, origins })
    }

    /// Puts `state` into the browser: its cookies, then each origin's web storage, visiting the
    /// origin's root in the active tab. The tab stays on the last origin visited, as upstream
    /// leaves it (when no origin has storage it stays where it was). Returns the origins whose
    /// storage could not be written (the origin did not load or redirected elsewhere).
    pub async fn apply_storage_state(
        &self,
        state: &StorageState,
        timeout: Option<Duration>,
    ) -> Result<Vec<String>> {
        let cookies: Vec<Value> = state.cookies.iter().filter_map(cookie_param).collect();
        if !cookies.is_empty() {
            let tab = self.active_tab().await?;
            // Raw JSON: the saved cookie objects go to Chrome as they were reported.
            tab.call(
                "state load",
                "Network.setCookies",
                json!({"cookies": cookies}),
                SHORT,
            )
            .await?;
        }
        let wanted: Vec<&OriginStorage> = state
            .origins
            .iter()
            .filter(|o| !(o.local_storage.is_empty() && o.session_storage.is_empty()))
            .collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let mut skipped = Vec::new();
        for origin in wanted {
            if !origin.origin.starts_with("http") {
                skipped.push(origin.origin.clone());
                continue;
            }
            let here = format!("{}/", origin.origin.trim_end_matches('/'));
            if self
                .navigate(&here, WaitUntil::Load, timeout)
                .await
                .is_err()
            {
                skipped.push(origin.origin.clone());
                continue;
            }
            let collected = self
                .page(Some(SHORT))
                .await?
                .evaluate(&COLLECT_FN.call(&[]))
                .await?;
            let landed = collected
                .value
                .get("origin")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if landed != origin.origin.trim_end_matches('/') {
                skipped.push(origin.origin.clone());
                continue;
            }
            let local = serde_json::to_value(&origin.local_storage)
                .map_err(|e| EngineError::Internal(e.to_string()))?;
            let session = serde_json::to_value(&origin.session_storage)
                .map_err(|e| EngineError::Internal(e.to_string()))?;
            self.page(Some(SHORT))
                .await?
                .evaluate(&APPLY_FN.call(&[local, session]))
                .await?;
        }
        Ok(skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_cookies_are_set_without_an_expiry() {
        let session = json!({"name":"s","value":"1","domain":"127.0.0.1","path":"/","expires":-1.0,"session":true,"size":2});
        let param = cookie_param(&session).expect("param");
        assert!(param.get("expires").is_none());
        assert!(
            param.get("size").is_none(),
            "report-only fields are dropped"
        );
        let persistent =
            json!({"name":"p","value":"1","domain":"x","path":"/","expires":1.9e9,"session":false});
        assert_eq!(
            cookie_param(&persistent).expect("param")["expires"],
            json!(1.9e9)
        );
    }

    #[test]
    fn the_state_file_shape_reads_upstream_files() {
        let text = r#"{"cookies":[{"name":"a","value":"b"}],"origins":[{"origin":"http://x","localStorage":[{"name":"k","value":"v"}]}]}"#;
        let state: StorageState = serde_json::from_str(text).expect("parse");
        assert_eq!(state.summary(), "1 cookies, 1 origins");
        assert!(state.origins[0].session_storage.is_empty());
    }
}
