//! Applying the page setup: to every tab the session attaches (color scheme, init scripts, the
//! session's own interception), and from the commands that change it (`set credentials`,
//! `open --headers`, `addinitscript`, `removeinitscript`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{emulation, fetch, page};
use abx_cdp::{Event, EventFilter, Session as CdpSession};

use super::{FetchHooks, HttpCredentials, continue_request, lock, origin_of, server_auth_answer};
use crate::error::{EngineError, Result};
use crate::network::Routes;
use crate::policy::{AuthRequired, Paused};
use crate::session::Session;
use crate::tab::Tab;

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
    routes: &Routes,
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

/// Registers `source` for every new document of the tab; returns Chrome's identifier.
async fn add_script(tab: &Tab, source: &str) -> Result<String> {
    let script = page::AddScriptToEvaluateOnNewDocumentParams::new(source);
    let added = tab
        .request("init script", script, Duration::from_secs(5))
        .await?;
    Ok(added.identifier.inner().clone())
}

impl Session {
    /// Everything the session applies to a tab it just attached (before its next document).
    pub(crate) async fn prepare_tab(&self, tab: &Tab) -> Result<()> {
        let setup = &self.options().page;
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
        let hooks = self.enforcement.hooks.clone();
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
        if hooks.active() && !allowlisted(self) {
            intercept(self, tab).await?;
        }
        Ok(())
    }

    /// After the session bound its first tab.
    pub(crate) async fn start_page_setup(&self) -> Result<()> {
        self.options().page.validate()?;
        if self.options().page.download_dir.is_some() {
            self.downloads_started().await?;
        }
        Ok(())
    }

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
