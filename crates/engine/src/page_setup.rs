//! What a session applies to every tab it attaches, before the tab's next document: the
//! launch-time page settings ([`PageSetup`]: `--color-scheme`, `--init-script`,
//! `--download-path`) and the ones commands add later (`addinitscript`/`removeinitscript`,
//! `set credentials`, `open --headers`).
//!
//! Credentials and origin-scoped headers need the request interception of `Fetch`: on a tab the
//! allowlist already intercepts, its interceptor consults the same [`FetchHooks`] (one
//! `Fetch.enable` per target, never two fighting over it); on other tabs the session enables
//! its own interception the first time either is set.

mod apply;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::fetch;

use crate::error::{EngineError, Result};

/// Page settings fixed when the session starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageSetup {
    /// Where downloads are saved (`--download-path`); `None`: only `download`/`wait --download`
    /// save them, where they are asked to.
    pub download_dir: Option<PathBuf>,
    /// `prefers-color-scheme`: `dark`, `light` or `no-preference`.
    pub color_scheme: Option<String>,
    /// Scripts run in every new document before its own scripts (the sources).
    pub init_scripts: Vec<String>,
    /// Leave WebMCP off in the session's tabs (no `WebMCP.enable`, so no tools are seen), also
    /// on a browser the session attached to, whose features it cannot change.
    pub no_webmcp: bool,
}

impl PageSetup {
    /// Checks the settings a user gave.
    pub fn validate(&self) -> Result<()> {
        if let Some(scheme) = &self.color_scheme
            && !matches!(scheme.as_str(), "dark" | "light" | "no-preference")
        {
            return Err(EngineError::Invalid(format!(
                "Invalid color scheme: {scheme}. Use dark, light or no-preference"
            )));
        }
        Ok(())
    }
}

/// HTTP credentials answered to servers' authentication challenges (`set credentials`).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct HttpCredentials {
    pub(crate) username: String,
    pub(crate) password: String,
}

/// State shared by the session and the allowlist's interceptors: credentials, headers per
/// origin, and the tabs the session intercepts itself.
/// An origin and the extra headers its requests get.
type OriginHeaders = (String, Vec<(String, String)>);

#[derive(Default)]
pub(crate) struct FetchHooks {
    credentials: Mutex<Option<HttpCredentials>>,
    /// `(origin, headers)`, the last `open --headers` for an origin winning.
    headers: Mutex<Vec<OriginHeaders>>,
    /// Tabs with the session's own interception (no allowlist on them).
    intercepted: Mutex<HashSet<String>>,
    /// Init scripts added by `addinitscript`: our id → (source, per-target CDP identifiers).
    scripts: Mutex<InitScripts>,
}

#[derive(Default)]
struct InitScripts {
    next: u64,
    added: Vec<(String, String, HashMap<String, String>)>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `scheme://host[:port]` of a URL, lower-cased, without the scheme's default port (`None`
/// for URLs without a host).
pub(crate) fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed
        .host_str()
        .filter(|h| !h.is_empty())?
        .to_ascii_lowercase();
    let scheme = parsed.scheme();
    Some(match parsed.port() {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

impl FetchHooks {
    fn active(&self) -> bool {
        lock(&self.credentials).is_some() || !lock(&self.headers).is_empty()
    }

    /// Whether the session's own interception (headers, credentials) owns `target_id`'s paused
    /// requests: then it answers them alone, routes first (see `answer` in `apply.rs`).
    pub(crate) fn intercepts(&self, target_id: &str) -> bool {
        lock(&self.intercepted).contains(target_id)
    }

    /// The credentials for a server challenge, if any were set.
    pub(crate) fn credentials(&self) -> Option<HttpCredentials> {
        lock(&self.credentials).clone()
    }

    /// The request headers to send for `url` when they differ from `original`: the original
    /// ones plus the origin's extra headers (those replace same-named ones).
    pub(crate) fn headers_for(
        &self,
        url: &str,
        original: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<Vec<fetch::HeaderEntry>> {
        let origin = origin_of(url)?;
        let headers = lock(&self.headers);
        let extra = &headers.iter().find(|(o, _)| *o == origin)?.1;
        let mut out: Vec<fetch::HeaderEntry> = original
            .iter()
            .filter(|(k, _)| !extra.iter().any(|(e, _)| e.eq_ignore_ascii_case(k)))
            .map(|(k, v)| fetch::HeaderEntry::new(k.clone(), v.as_str().unwrap_or_default()))
            .collect();
        out.extend(
            extra
                .iter()
                .map(|(k, v)| fetch::HeaderEntry::new(k.clone(), v.clone())),
        );
        Some(out)
    }
}

/// Continues a paused request, with the origin's extra headers when it has some.
pub(crate) async fn continue_request(
    session: &CdpSession,
    hooks: &FetchHooks,
    request_id: String,
    url: &str,
    original: &serde_json::Map<String, serde_json::Value>,
) {
    let mut next = fetch::ContinueRequestParams::new(fetch::RequestId::from(request_id));
    next.headers = hooks.headers_for(url, original);
    let _ = session.send(&next).await;
}

/// The answer to a server's authentication challenge (proxy challenges are the policy's):
/// the credentials once per request (a second challenge means they were wrong: cancel, so the
/// page shows the server's 401 instead of looping), Chrome's default without credentials.
pub(crate) fn server_auth_answer(hooks: &FetchHooks, attempt: u8) -> fetch::AuthChallengeResponse {
    use fetch::AuthChallengeResponseResponse as Answer;
    let bare = |response| fetch::AuthChallengeResponse {
        response,
        username: None,
        password: None,
    };
    match hooks.credentials() {
        Some(_) if attempt > 1 => bare(Answer::CancelAuth),
        Some(creds) => fetch::AuthChallengeResponse {
            username: Some(creds.username),
            password: Some(creds.password),
            ..bare(Answer::ProvideCredentials)
        },
        None => bare(Answer::Default),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn origin_of_drops_paths_default_ports_and_credentials() {
        assert_eq!(
            origin_of("http://127.0.0.1:8080/a?b#c").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(
            origin_of("HTTPS://u:p@Example.com:443/x").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(origin_of("about:blank"), None);
        assert_eq!(origin_of("file:///tmp/x.html"), None);
        assert_eq!(
            origin_of("http://[::1]:80/x").as_deref(),
            Some("http://[::1]"),
            "IPv6 keeps its brackets, the default port goes"
        );
        assert_eq!(
            origin_of("http://Example.com:8443").as_deref(),
            Some("http://example.com:8443")
        );
    }

    #[test]
    fn headers_apply_to_their_origin_only() {
        let hooks = FetchHooks::default();
        lock(&hooks.headers).push(("http://a.test".into(), vec![("X-Token".into(), "1".into())]));
        let mut original = serde_json::Map::new();
        original.insert("x-token".into(), "0".into());
        original.insert("Accept".into(), "*/*".into());
        let sent = hooks.headers_for("http://a.test/p", &original).unwrap();
        let names: Vec<_> = sent
            .iter()
            .map(|h| (h.name.as_str(), h.value.as_str()))
            .collect();
        assert_eq!(names, vec![("Accept", "*/*"), ("X-Token", "1")]);
        assert!(hooks.headers_for("http://b.test/p", &original).is_none());
    }
}
