//! What a session applies to every tab it attaches, before the tab's next document: the
//! launch-time page settings ([`PageSetup`]: `--color-scheme`, `--init-script`,
//! `--download-path`) and the ones commands add later (`addinitscript`/`removeinitscript`,
//! `set credentials`, `open --headers`).
//!
//! Credentials and origin-scoped headers need the request interception of `Fetch`: on a tab the
//! allowlist already intercepts, its interceptor consults the same [`FetchHooks`] (one
//! `Fetch.enable` per target, never two fighting over it); on other tabs the session enables
//! its own interception the first time either is set.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{emulation, fetch, page};
use abx_cdp::{Event, EventFilter, Session as CdpSession};

use crate::error::{EngineError, Result};
use crate::policy::{AuthRequired, Paused};
use crate::session::Session;
use crate::tab::Tab;

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
    m.lock().unwrap_or_else(|p| p.into_inner())
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
    /// requests: then it answers them alone, routes first (see [`answer`]).
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

/// The session's own interception on a tab the allowlist does not intercept.
async fn intercept(session: &Session, tab: &Tab) -> Result<()> {
    let hooks = session.enforcement.hooks.clone();
    if hooks.intercepts(tab.target_id()) {
        return Ok(());
    }
    let cdp = tab.cdp().clone();
    // Subscribed before the tab is marked ours: from the mark on, the network pump leaves the
    // tab's paused requests to this one, which must not miss any (a missed pause hangs the
    // request).
    let events = cdp.subscribe(
        EventFilter::methods([
            fetch::EventRequestPaused::IDENTIFIER,
            fetch::EventAuthRequired::IDENTIFIER,
        ]),
        65_536,
    );
    if !lock(&hooks.intercepted).insert(tab.target_id().to_string()) {
        return Ok(());
    }
    let pump_cdp = cdp.clone();
    let weak = Arc::downgrade(&hooks);
    // The same routes the network state holds: one pump answers each paused request.
    let routes = session.enforcement.routes.clone();
    tokio::spawn(async move {
        let mut events = events;
        let mut tries: HashMap<String, u8> = HashMap::new();
        while let Some(event) = events.recv().await {
            let Some(hooks) = weak.upgrade() else { return };
            answer(&pump_cdp, &hooks, &routes, &event, &mut tries).await;
        }
    });
    let enable = fetch::EnableParams {
        patterns: Some(vec![fetch::RequestPattern {
            url_pattern: Some("*".into()),
            ..Default::default()
        }]),
        handle_auth_requests: Some(true),
    };
    let enabled = tab
        .request("set credentials", enable, Duration::from_secs(5))
        .await;
    if enabled.is_err() {
        lock(&hooks.intercepted).remove(tab.target_id());
    }
    enabled.map(|_| ())
}

/// Answers one event of a tab the session intercepts itself. A paused request meets the
/// session's routes first (mocked or aborted there), and otherwise goes on with the origin's
/// extra headers; one answer per request, so neither drops the other's.
async fn answer(
    cdp: &CdpSession,
    hooks: &FetchHooks,
    routes: &crate::network::Routes,
    event: &Event,
    tries: &mut HashMap<String, u8>,
) {
    match event.method() {
        fetch::EventRequestPaused::IDENTIFIER => {
            if let Ok(paused) = event.parse::<Paused>() {
                let routed = paused.routed();
                if crate::network::answer_paused(cdp, routes, &routed).await {
                    return;
                }
                continue_request(
                    cdp,
                    hooks,
                    paused.request_id,
                    &paused.request.url,
                    &paused.request.headers,
                )
                .await;
            }
        }
        fetch::EventAuthRequired::IDENTIFIER => {
            let Ok(auth) = event.parse::<AuthRequired>() else {
                return;
            };
            let attempt = tries.entry(auth.request_id.clone()).or_insert(0);
            *attempt = attempt.saturating_add(1);
            let response = if auth.auth_challenge.source.as_deref() == Some("Proxy") {
                fetch::AuthChallengeResponse {
                    response: fetch::AuthChallengeResponseResponse::Default,
                    username: None,
                    password: None,
                }
            } else {
                server_auth_answer(hooks, *attempt)
            };
            if tries.len() > 4096 {
                tries.clear();
            }
            let _ = cdp
                .send(&fetch::ContinueWithAuthParams::new(
                    auth.request_id,
                    response,
                ))
                .await;
        }
        _ => {}
    }
}

/// Whether the site policy intercepts every request of the tab already.
fn allowlisted(session: &Session) -> bool {
    session.options().policy.fenced()
}

/// Everything the session applies to a tab it just attached (before its next document).
pub(crate) async fn prepare_tab(session: &Session, tab: &Tab) -> Result<()> {
    let setup = &session.options().page;
    if let Some(scheme) = &setup.color_scheme {
        let media = emulation::SetEmulatedMediaParams {
            features: Some(vec![emulation::MediaFeature::new(
                "prefers-color-scheme",
                scheme.as_str(),
            )]),
            ..Default::default()
        };
        tab.request("color scheme", media, Duration::from_secs(5))
            .await?;
    }
    for source in &setup.init_scripts {
        add_script(tab, source).await?;
    }
    let hooks = session.enforcement.hooks.clone();
    let added: Vec<(usize, String)> = lock(&hooks.scripts)
        .added
        .iter()
        .enumerate()
        .filter(|(_, (_, _, on))| !on.contains_key(tab.target_id()))
        .map(|(i, (_, source, _))| (i, source.clone()))
        .collect();
    for (index, source) in added {
        let id = add_script(tab, &source).await?;
        if let Some(entry) = lock(&hooks.scripts).added.get_mut(index) {
            entry.2.insert(tab.target_id().to_string(), id);
        }
    }
    if hooks.active() && !allowlisted(session) {
        intercept(session, tab).await?;
    }
    Ok(())
}

/// Registers `source` for every new document of the tab; returns Chrome's identifier.
async fn add_script(tab: &Tab, source: &str) -> Result<String> {
    let script = page::AddScriptToEvaluateOnNewDocumentParams::new(source);
    let added = tab
        .request("init script", script, Duration::from_secs(5))
        .await?;
    Ok(added.identifier.inner().clone())
}

/// After the session bound its first tab.
pub(crate) async fn session_started(session: &Session) -> Result<()> {
    session.options().page.validate()?;
    if session.options().page.download_dir.is_some() {
        session.downloads_started().await?;
    }
    Ok(())
}

impl Session {
    fn attached_tabs(&self) -> Vec<Arc<Tab>> {
        self.tabs()
            .iter()
            .filter_map(|t| self.attached_tab(&t.target_id))
            .collect()
    }

    /// `set credentials <user> <pass>`: answers servers' HTTP authentication challenges (Basic,
    /// Digest) with these, for every tab of the session from now on. Nothing is sent to a server
    /// that does not ask; wrong credentials get the server's refusal, not a loop.
    pub async fn set_http_credentials(&self, username: &str, password: &str) -> Result<()> {
        if username.is_empty() {
            return Err(EngineError::Invalid(
                "The user name of HTTP credentials cannot be empty".into(),
            ));
        }
        *lock(&self.enforcement.hooks.credentials) = Some(HttpCredentials {
            username: username.to_string(),
            password: password.to_string(),
        });
        self.active_tab().await?;
        if !allowlisted(self) {
            for tab in self.attached_tabs() {
                intercept(self, &tab).await?;
            }
        }
        Ok(())
    }

    /// `open <url> --headers <json>`: sends these headers with every request to the URL's
    /// origin (and only there) from now on.
    pub async fn set_origin_headers(
        &self,
        url: &str,
        headers: Vec<(String, String)>,
    ) -> Result<()> {
        let origin = origin_of(url).ok_or_else(|| EngineError::HeadersNeedOrigin {
            url: url.to_string(),
        })?;
        {
            let mut all = lock(&self.enforcement.hooks.headers);
            all.retain(|(o, _)| *o != origin);
            all.push((origin, headers));
        }
        self.active_tab().await?;
        if !allowlisted(self) {
            for tab in self.attached_tabs() {
                intercept(self, &tab).await?;
            }
        }
        Ok(())
    }

    /// `addinitscript <source>`: runs `source` in every new document of the session's tabs,
    /// before the page's own scripts. Returns its identifier for `removeinitscript`.
    pub async fn add_init_script(&self, source: &str) -> Result<String> {
        let tab = self.active_tab().await?;
        let chrome_id = add_script(&tab, source).await?;
        let mut scripts = lock(&self.enforcement.hooks.scripts);
        scripts.next += 1;
        let id = scripts.next.to_string();
        let on = HashMap::from([(tab.target_id().to_string(), chrome_id)]);
        scripts.added.push((id.clone(), source.to_string(), on));
        Ok(id)
    }

    /// `removeinitscript <id>`: stops running an `addinitscript` script in new documents.
    pub async fn remove_init_script(&self, id: &str) -> Result<()> {
        let removed = {
            let mut scripts = lock(&self.enforcement.hooks.scripts);
            let at = scripts.added.iter().position(|(i, _, _)| i == id);
            at.map(|at| scripts.added.remove(at))
        };
        let Some((_, _, on)) = removed else {
            return Err(EngineError::Invalid(format!(
                "No init script with identifier {id}"
            )));
        };
        for (target, chrome_id) in on {
            if let Some(tab) = self.attached_tab(&target) {
                let remove = page::RemoveScriptToEvaluateOnNewDocumentParams::new(chrome_id);
                tab.request("removeinitscript", remove, Duration::from_secs(5))
                    .await?;
            }
        }
        Ok(())
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
