//! A session's network policy: the hard domain allowlist, proxy credentials and denied permission
//! prompts. See `docs/adr/0004-allowlist.md` for the measurements behind each layer.
//!
//! The allowlist ([`DomainFilter`], upstream's `example.com` / `*.example.com` rules) is enforced in
//! layers, each installed before the tab's first navigation:
//! 1. **Navigation check** ([`DomainFilter::check_navigation`]) before `Page.navigate`, with
//!    upstream's error texts.
//! 2. **Tab-level interception**: `Fetch.enable {urlPattern:"*"}` on the tab's session and
//!    `Target.setAutoAttach {waitForDebuggerOnStart:true, flatten:true}`, so out-of-process iframes
//!    and workers start paused, get the same interception (and the guard script) and only then
//!    run. Disallowed requests fail with `BlockedByClient`.
//! 3. **Popups**: no auto-attach mode of Chromium 156 covers windows a page opens, and attaching on
//!    `Target.targetCreated` always loses the race against the popup's first request (measured
//!    20/20). So an allowlisted session also intercepts at the *browser* level and decides by the
//!    request's frame: requests of its own tab and of the popups it (transitively) opened are
//!    checked, every other request is continued at once. A popup's requests are held until the
//!    popup has its own tab-level interception. Nothing of other sessions is attached or paused
//!    for a debugger; their requests pass through this interceptor (one round trip).
//! 4. **Guard script** (`Page.addScriptToEvaluateOnNewDocument` in every frame, evaluated in paused
//!    workers): `WebSocket` checks its URL (Fetch does not see WebSocket handshakes) and
//!    `RTCPeerConnection` throws.
//!
//! A **site blocklist** ([`SiteBlocklist`], a Host's `blocked_sites`) rides on the same layers:
//! with one, a session intercepts as it does with an allowlist, and a request (or navigation) to
//! a blocked host fails whether or not an allowlist would let it through. Every navigation either
//! list refuses — a command's, or a document request of the session's tabs, their frames and
//! popups — is handed to [`Policy::on_blocked`] as a [`BlockedNavigation`].
//!
//! Proxy credentials are answered on `Fetch.authRequired` for proxy challenges only, at the
//! browser level: the session that launched Chrome with that proxy answers for every tab, frame
//! and worker of it (stage tabs attached to an anchor included). Permission
//! prompts (geolocation, notifications, clipboard, camera, microphone) are denied with
//! `Browser.setPermission` for the browser context; Chrome resets such overrides whenever *any*
//! client that set one detaches, so they are applied again before every navigation. Geolocation
//! in a *background* tab of headed Chrome never settles whatever the override or the
//! `--deny-permission-prompts` flag say (stage tabs are background tabs), so the session's own
//! tabs also get a script that answers `getCurrentPosition`/`watchPosition` with
//! `PERMISSION_DENIED` at once.

mod containment;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{browser as cdp_browser, fetch, network, page, target};
use abx_cdp::protocol::js_protocol::runtime;
use abx_cdp::{Connection, Event, EventFilter, Session as CdpSession};
use serde::Deserialize;
use serde_json::json;

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::network::Routes;

/// Upstream's domain allowlist: `example.com` matches exactly, `*.example.com` matches the apex
/// and every subdomain; patterns are lower-cased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainFilter {
    patterns: Vec<String>,
}

impl DomainFilter {
    /// A filter from patterns (trimmed, lower-cased, empty ones dropped); `None` when no pattern
    /// remains (no allowlist).
    pub fn new<I, S>(patterns: I) -> Option<DomainFilter>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let patterns: Vec<String> = patterns
            .into_iter()
            .map(|p| p.as_ref().trim().trim_end_matches('.').to_ascii_lowercase())
            .filter(|p| !p.is_empty())
            .collect();
        (!patterns.is_empty()).then_some(DomainFilter { patterns })
    }

    /// The patterns.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether `host` (already lower-case or not) is allowed.
    pub fn is_allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.patterns
            .iter()
            .any(|pattern| match pattern.strip_prefix("*.") {
                Some(apex) => host == apex || host.ends_with(&format!(".{apex}")),
                None => host == *pattern,
            })
    }

    /// The check before a navigation, with upstream's texts: `about:blank` is always allowed, a
    /// URL without a host fails with `No hostname in URL: …`, a host outside the list with
    /// `Domain '<host>' is not in the allowed domains list`.
    pub fn check_navigation(&self, url: &str) -> Result<()> {
        if url.trim() == "about:blank" {
            return Ok(());
        }
        match host_of(url) {
            Some(host) if self.is_allowed(&host) => Ok(()),
            Some(host) => Err(EngineError::DomainBlocked { host }),
            None => Err(EngineError::NoHostname(url.to_string())),
        }
    }

    /// Whether a network request to `url` may go out. Schemes that never reach the network
    /// (`data:`, `blob:`, `about:`, ...) are allowed; network schemes need an allowed host.
    pub fn allows_request(&self, url: &str) -> bool {
        let scheme = url
            .split_once(':')
            .map(|(s, _)| s.to_ascii_lowercase())
            .unwrap_or_default();
        if !matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp") {
            return true;
        }
        host_of(url).is_some_and(|host| self.is_allowed(&host))
    }
}

/// Sites no tab of a session may reach (a Host's `blocked_sites`). A pattern is a host name,
/// optionally written `*.example.com` or as a URL (its host is taken; other wildcards are
/// dropped); it blocks that host
/// and every subdomain of it (`example.com` blocks `www.example.com`: a blocklist errs on the
/// side of blocking). Only network schemes are checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteBlocklist {
    apexes: Vec<String>,
}

impl SiteBlocklist {
    /// A blocklist from patterns (trimmed, lower-cased, empty ones dropped); `None` when no
    /// pattern remains.
    pub fn new<I, S>(patterns: I) -> Option<SiteBlocklist>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let apexes: Vec<String> = patterns
            .into_iter()
            .filter_map(|p| {
                let p = p.as_ref().trim();
                let host = if p.contains("://") {
                    host_of(p)?
                } else {
                    p.trim_end_matches('.').to_ascii_lowercase()
                };
                let apex = host.trim_start_matches("*.").to_string();
                // A wildcard anywhere else is not a site (`*` alone would block everything).
                (!apex.is_empty() && !apex.contains('*')).then_some(apex)
            })
            .collect();
        (!apexes.is_empty()).then_some(SiteBlocklist { apexes })
    }

    /// The blocked hosts (each with its subdomains).
    pub fn patterns(&self) -> &[String] {
        &self.apexes
    }

    /// Whether `host` is blocked.
    pub fn blocks_host(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.apexes
            .iter()
            .any(|apex| host == *apex || host.ends_with(&format!(".{apex}")))
    }

    /// The blocked host of a network URL, if it is one.
    pub fn blocked_host(&self, url: &str) -> Option<String> {
        let scheme = url
            .split_once(':')
            .map(|(s, _)| s.to_ascii_lowercase())
            .unwrap_or_default();
        if !matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp") {
            return None;
        }
        host_of(url).filter(|host| self.blocks_host(host))
    }
}

/// Which list refused a navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockRule {
    /// The host is on the blocklist.
    BlockedSites,
    /// The host is not on the allowlist.
    AllowedDomains,
}

/// How a refused navigation started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockedBy {
    /// A command asked for it (`open`, `tab new <url>`): the command failed.
    Command,
    /// The page went there itself (a link, a redirect, a script, a frame, a popup): the
    /// document request failed and the tab or frame shows Chrome's error page.
    Page,
}

/// A navigation the session's policy refused.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BlockedNavigation {
    /// The URL asked for (it may carry tokens: a Host keeps it private).
    pub url: String,
    /// Its host.
    pub host: String,
    /// Which list refused it.
    pub rule: BlockRule,
    /// Who asked.
    pub by: BlockedBy,
}

/// Hears every navigation a session's policy refuses (called on the session's tasks: keep it
/// short, never block on I/O that may hang).
#[derive(Clone)]
pub struct BlockedSink(pub Arc<dyn Fn(&BlockedNavigation) + Send + Sync>);

impl std::fmt::Debug for BlockedSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlockedSink")
    }
}

/// The lower-cased host of a URL, read the way Chrome and upstream (`new URL(u).hostname`) read
/// it: credentials and port dropped, IPv6 in brackets, IPv4 and IDN hosts normalized (`127.1` is
/// `127.0.0.1`, `bücher.de` is `xn--bcher-kva.de`), a trailing dot dropped. A `blob:`,
/// `filesystem:` or `view-source:` URL has the host of the URL inside it. `None` without a host.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    let Some(host) = parsed.host_str() else {
        return match parsed.scheme() {
            "blob" | "filesystem" | "view-source" => host_of(parsed.path()),
            _ => None,
        };
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// Credentials for an authenticating proxy.
#[derive(Clone, PartialEq, Eq)]
pub struct ProxyAuth {
    /// User name.
    pub username: String,
    /// Password.
    pub password: String,
}

impl std::fmt::Debug for ProxyAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyAuth")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// What a session enforces on its tabs.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The hard allowlist; `None` allows everything.
    pub allowed_domains: Option<DomainFilter>,
    /// Answer proxy authentication challenges with these.
    pub proxy_auth: Option<ProxyAuth>,
    /// Deny permission prompts (geolocation, notifications, clipboard, camera, microphone).
    pub deny_permissions: bool,
    /// Sites no tab may reach, whatever the allowlist says; `None` blocks nothing.
    pub blocked_sites: Option<SiteBlocklist>,
    /// Hears refused navigations (of either list).
    pub on_blocked: Option<BlockedSink>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            allowed_domains: None,
            proxy_auth: None,
            deny_permissions: true,
            blocked_sites: None,
            on_blocked: None,
        }
    }
}

impl Policy {
    /// Whether requests are checked at all (an allowlist or a blocklist).
    pub fn fenced(&self) -> bool {
        self.allowed_domains.is_some() || self.blocked_sites.is_some()
    }

    /// Why a network request to `url` may not go out, if it may not.
    pub fn refuses_request(&self, url: &str) -> Option<BlockRule> {
        if self
            .blocked_sites
            .as_ref()
            .is_some_and(|b| b.blocked_host(url).is_some())
        {
            return Some(BlockRule::BlockedSites);
        }
        match &self.allowed_domains {
            Some(filter) if !filter.allows_request(url) => Some(BlockRule::AllowedDomains),
            _ => None,
        }
    }

    /// Whether a network request to `url` may go out.
    pub fn allows_request(&self, url: &str) -> bool {
        self.refuses_request(url).is_none()
    }

    /// The check before a navigation a command asks for: the blocklist
    /// ([`EngineError::SiteBlocked`]), then the allowlist (upstream's texts). A refusal is
    /// reported to [`Policy::on_blocked`].
    pub fn check_navigation(&self, url: &str) -> Result<()> {
        if let Some(host) = self
            .blocked_sites
            .as_ref()
            .and_then(|b| b.blocked_host(url))
        {
            self.report(url, BlockRule::BlockedSites, BlockedBy::Command);
            return Err(EngineError::SiteBlocked { host });
        }
        if let Some(filter) = &self.allowed_domains {
            let checked = filter.check_navigation(url);
            if checked.is_err() {
                self.report(url, BlockRule::AllowedDomains, BlockedBy::Command);
            }
            checked?;
        }
        Ok(())
    }

    /// Tells [`Policy::on_blocked`] of a refused navigation.
    pub(crate) fn report(&self, url: &str, rule: BlockRule, by: BlockedBy) {
        if let Some(sink) = &self.on_blocked {
            (sink.0)(&BlockedNavigation {
                url: url.to_string(),
                host: host_of(url).unwrap_or_default(),
                rule,
                by,
            });
        }
    }
}

/// The permissions denied for every session (W3C permission names).
const DENIED_PERMISSIONS: &[&str] = &[
    "geolocation",
    "notifications",
    "clipboard-read",
    "camera",
    "microphone",
];

const SETUP_DEADLINE: Duration = Duration::from_secs(5);

/// Capacity of the channels carrying `Fetch.requestPaused`: a dropped event would leave its
/// request paused for good (the browser-level one sees every request of the browser), so these
/// are deep; the pumps answer without waiting on Chrome.
const PAUSED_EVENTS: usize = 65_536;

/// The policy's live state for one session: the targets that belong to it (its tabs, their
/// frames and workers, the popups they opened) and the tasks that answer interception events.
#[derive(Default)]
pub(crate) struct Enforcement {
    /// The session's routes: an allowed request is answered from them (`network/`).
    pub(crate) routes: Routes,
    family: Mutex<Family>,
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    failures: Mutex<Vec<GuardFailure>>,
    /// Credentials and origin headers the tab-level interception applies (`page_setup.rs`).
    pub(crate) hooks: Arc<crate::page_setup::FetchHooks>,
}

/// A target of the session the allowlist could not guard (its interception or guard script did
/// not install). It was left paused, never resumed, so none of its requests went out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardFailure {
    /// The target id.
    pub target_id: String,
    /// Its CDP type (`iframe`, `worker`, `service_worker`, ...).
    pub kind: String,
    /// What failed.
    pub reason: String,
}

/// How many guard failures a session keeps (the oldest go first).
const MAX_FAILURES: usize = 100;

#[derive(Default)]
struct Family {
    /// Targets whose requests this session checks.
    members: HashSet<String>,
    /// Popups whose own interception is being installed, with the browser-level requests held
    /// until it is.
    pending: HashMap<String, Vec<Paused>>,
}

impl Drop for Enforcement {
    fn drop(&mut self) {
        for task in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            task.abort();
        }
    }
}

impl Enforcement {
    fn family(&self) -> MutexGuard<'_, Family> {
        self.family
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn keep(&self, task: tokio::task::JoinHandle<()>) {
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }

    /// Whether `target_id` is one of this session's targets.
    pub(crate) fn is_member(&self, target_id: &str) -> bool {
        self.family().members.contains(target_id)
    }

    fn report(&self, failure: GuardFailure) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failures.len() >= MAX_FAILURES {
            failures.remove(0);
        }
        failures.push(failure);
    }

    fn failures(&self) -> Vec<GuardFailure> {
        self.failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Session start: deny permissions, and for an allowlist the browser-level popup watch.
pub(crate) async fn start(
    connection: &Connection,
    owned: bool,
    policy: &Arc<Policy>,
    enforcement: &Arc<Enforcement>,
) -> Result<()> {
    deny_permissions(connection, policy).await;
    if policy.fenced() || policy.proxy_auth.is_some() {
        watch_browser(connection, owned, policy, enforcement).await?;
    }
    Ok(())
}

/// Before a navigation: the blocklist and allowlist checks, and permissions again (another
/// client's detach may have reset them).
pub(crate) async fn before_navigation(
    connection: &Connection,
    policy: &Policy,
    url: &str,
) -> Result<()> {
    policy.check_navigation(url)?;
    deny_permissions(connection, policy).await;
    Ok(())
}

/// Geolocation requests of a background tab in headed Chrome 156 never settle, whatever the
/// permission override or `--deny-permission-prompts` say (measured; stage tabs are background
/// tabs): the page gets an immediate `PERMISSION_DENIED` instead.
async fn deny_prompts_in_page(session: &CdpSession) -> Result<()> {
    add_document_script(session, NO_PROMPT_JS).await
}

/// Registers a script for every new document of the target (and runs it in the current one).
///
/// Queued, not awaited: the call is served by the renderer, and while a popup's first
/// (cross-process) navigation is pending Chrome holds renderer-bound messages until the new
/// document's agent exists — awaiting it there deadlocks against our own held request (measured:
/// 5 s timeouts). Messages of a session keep their order, so the script is registered before
/// any later command of ours (e.g. `Page.navigate`), and Chrome hands it to the new document's
/// agent before that document runs.
async fn add_document_script(session: &CdpSession, source: &str) -> Result<()> {
    let script = page::AddScriptToEvaluateOnNewDocumentParams {
        run_immediately: Some(true),
        ..page::AddScriptToEvaluateOnNewDocumentParams::new(source)
    };
    session.send(&script).await?;
    Ok(())
}

const NO_PROMPT_JS: &str = include_str!("policy/no_prompt.js");

async fn deny_permissions(connection: &Connection, policy: &Policy) {
    if !policy.deny_permissions {
        return;
    }
    // Queued, not awaited: the browser handles this connection's messages in order, so the
    // overrides are in place before any navigation we send after them, and a navigation does not
    // pay one round trip per permission.
    let browser = connection.browser();
    for name in DENIED_PERMISSIONS {
        let deny = cdp_browser::SetPermissionParams::new(
            cdp_browser::PermissionDescriptor::new(*name),
            cdp_browser::PermissionSetting::Denied,
        );
        if let Err(err) = browser.send(&deny).await {
            tracing::debug!(%err, permission = name, "cannot deny permission");
        }
    }
}

/// Installs the tab-level layers on a page session the session just attached, before anything
/// navigates it. A no-op without an allowlist or proxy credentials.
pub(crate) async fn guard_tab(
    connection: &Connection,
    session: &CdpSession,
    target_id: &str,
    policy: &Arc<Policy>,
    enforcement: &Arc<Enforcement>,
) -> Result<()> {
    enforcement.family().members.insert(target_id.to_string());
    if policy.deny_permissions {
        deny_prompts_in_page(session).await?;
    }
    if !policy.fenced() {
        // Proxy challenges alone are answered at the browser level (`watch_browser`).
        return Ok(());
    }
    install(connection, session, TargetKind::Page, policy, enforcement).await
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TargetKind {
    Page,
    Frame,
    Worker,
}

impl TargetKind {
    fn of(kind: &str) -> Option<TargetKind> {
        match kind {
            "page" => Some(TargetKind::Page),
            "iframe" => Some(TargetKind::Frame),
            "worker" | "shared_worker" | "service_worker" => Some(TargetKind::Worker),
            _ => None,
        }
    }
}

/// Fetch interception, auto-attach of children (paused) and the guard script on one target
/// session. Children are installed the same way before they are resumed.
async fn install(
    connection: &Connection,
    session: &CdpSession,
    kind: TargetKind,
    policy: &Arc<Policy>,
    enforcement: &Arc<Enforcement>,
) -> Result<()> {
    let events = session.subscribe(
        EventFilter::methods([
            fetch::EventRequestPaused::IDENTIFIER,
            fetch::EventAuthRequired::IDENTIFIER,
            target::EventAttachedToTarget::IDENTIFIER,
        ]),
        PAUSED_EVENTS,
    );
    enforcement.keep(tokio::spawn(answer(
        events,
        connection.clone(),
        session.clone(),
        policy.clone(),
        Arc::downgrade(enforcement),
    )));
    let enabled = session
        .call_within(intercept_all(policy, true), SETUP_DEADLINE)
        .await;
    match enabled {
        Ok(_) => {}
        // Some worker kinds have no Fetch domain; their requests are still seen by the page's or
        // the browser-level interception. The guard script below must run regardless.
        Err(err) if kind == TargetKind::Worker => {
            tracing::debug!(%err, "no Fetch interception in this worker");
        }
        Err(err) => return Err(err.into()),
    }
    if policy.deny_permissions && kind != TargetKind::Worker && kind != TargetKind::Page {
        let _ = deny_prompts_in_page(session).await;
    }
    if policy.fenced() {
        let script = policy_guard_script(policy);
        match kind {
            TargetKind::Page | TargetKind::Frame => add_document_script(session, &script).await?,
            TargetKind::Worker => {
                // A paused worker has not run its script yet: the guard goes first.
                let evaluated = session
                    .call_within(runtime::EvaluateParams::new(script), SETUP_DEADLINE)
                    .await;
                // A worker that would run without its guard is not resumed (fail closed).
                match evaluated {
                    Ok(runtime::EvaluateReturns {
                        exception_details: Some(details),
                        ..
                    }) => {
                        return Err(EngineError::Evaluation(format!(
                            "the worker guard script threw: {}",
                            crate::js::exception_text(&details)
                        )));
                    }
                    Ok(_) => {}
                    Err(err) => return Err(err.into()),
                }
            }
        }
        let attach = target::SetAutoAttachParams {
            flatten: Some(true),
            ..target::SetAutoAttachParams::new(true, true)
        };
        let attached = session.call_within(attach, SETUP_DEADLINE).await;
        if let Err(err) = attached
            && kind != TargetKind::Worker
        {
            return Err(err.into());
        }
    }
    Ok(())
}

/// `Fetch.requestPaused`, read leniently (by the policy and by the page setup's own
/// interception, `page_setup.rs`): every request of the browser passes through here, and
/// only three fields are read (the generated event decodes the whole `Network.Request`, whose
/// enums grow with Chrome; a request whose event failed to decode would stay paused).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Paused {
    pub(crate) request_id: String,
    pub(crate) request: PausedRequest,
    #[serde(default)]
    pub(crate) frame_id: Option<String>,
    #[serde(default)]
    pub(crate) resource_type: String,
}

#[derive(Deserialize)]
pub(crate) struct PausedRequest {
    pub(crate) url: String,
    /// Kept to add origin headers (`page_setup.rs`).
    #[serde(default)]
    pub(crate) headers: serde_json::Map<String, serde_json::Value>,
}

impl Paused {
    /// A refused document request is a refused navigation (of the tab, a frame or a popup).
    fn report_if_navigation(&self, policy: &Policy, rule: BlockRule) {
        if self.resource_type == "Document" {
            policy.report(&self.request.url, rule, BlockedBy::Page);
        }
    }

    /// What the routes read of it.
    pub(crate) fn routed(&self) -> crate::network::PausedRequest {
        crate::network::PausedRequest::new(&self.request_id, &self.request.url, &self.resource_type)
    }
}

/// `Fetch.authRequired`, read leniently like [`Paused`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthRequired {
    pub(crate) request_id: String,
    pub(crate) auth_challenge: AuthChallenge,
}

#[derive(Deserialize)]
pub(crate) struct AuthChallenge {
    #[serde(default)]
    pub(crate) source: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Attached {
    session_id: String,
    target_info: crate::browser::TargetInfo,
    #[serde(default)]
    waiting_for_debugger: bool,
}

/// Answers one target session's interception events until the session ends.
async fn answer(
    mut events: abx_cdp::Subscription,
    connection: Connection,
    session: CdpSession,
    policy: Arc<Policy>,
    enforcement: std::sync::Weak<Enforcement>,
) {
    let mut auth_tries: HashMap<String, u8> = HashMap::new();
    let hooks = enforcement.upgrade().map(|e| e.hooks.clone());
    let hooks = hooks.as_deref();
    while let Some(event) = events.recv().await {
        match event.method() {
            fetch::EventRequestPaused::IDENTIFIER => {
                // Fail closed: without the session's state the allowlist still applies.
                let routes = enforcement
                    .upgrade()
                    .map(|e| e.routes.clone())
                    .unwrap_or_default();
                decide(&session, &policy, hooks, &event, Some(&routes)).await;
            }
            fetch::EventAuthRequired::IDENTIFIER => {
                answer_auth(&session, &policy, hooks, &event, &mut auth_tries).await;
            }
            target::EventAttachedToTarget::IDENTIFIER => {
                let Ok(child) = event.parse::<Attached>() else {
                    continue;
                };
                let Some(enforcement) = enforcement.upgrade() else {
                    return;
                };
                enforcement
                    .family()
                    .members
                    .insert(child.target_info.target_id.clone());
                let connection = connection.clone();
                let policy = policy.clone();
                let weak = Arc::downgrade(&enforcement);
                // Installing waits on the child's replies: never block this pump on it.
                enforcement.keep(tokio::spawn(async move {
                    let Some(enforcement) = weak.upgrade() else {
                        return;
                    };
                    adopt_child(connection, child, policy, enforcement).await;
                }));
            }
            _ => {}
        }
    }
}

/// A child target auto-attached paused (frame, worker): same interception, then resume. Boxed:
/// `install` → `answer` → `adopt_child` → `install` is recursive.
///
/// Fails closed: a child whose interception or guard script could not be installed is never
/// resumed. It stays paused before its first request (a frame shows nothing, a worker never
/// runs), and the failure is recorded ([`Session::guard_failures`](crate::Session::guard_failures))
/// and logged. Resuming it would let it talk to any host.
fn adopt_child(
    connection: Connection,
    child: Attached,
    policy: Arc<Policy>,
    enforcement: Arc<Enforcement>,
) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let session = connection.session(&child.session_id);
        let guarded = match TargetKind::of(&child.target_info.kind) {
            Some(kind) => install(&connection, &session, kind, &policy, &enforcement).await,
            // A kind with no layer of ours (e.g. a worklet): its requests are its page's.
            None => Ok(()),
        };
        if let Err(err) = guarded {
            tracing::warn!(%err, kind = %child.target_info.kind,
                "cannot guard a child target; it stays paused");
            enforcement.report(GuardFailure {
                target_id: child.target_info.target_id.clone(),
                kind: child.target_info.kind.clone(),
                reason: err.to_string(),
            });
            return;
        }
        if child.waiting_for_debugger {
            let _ = session
                .send(&runtime::RunIfWaitingForDebuggerParams::default())
                .await;
        }
    })
}

/// Continues or fails one paused request of the session's own targets (`routes` given), or
/// continues one of another session's (`None`). An allowed request meets the session's routes,
/// then its page hooks (extra headers); a blocked one stays blocked whatever a route says.
async fn decide(
    session: &CdpSession,
    policy: &Policy,
    hooks: Option<&crate::page_setup::FetchHooks>,
    event: &Event,
    routes: Option<&Routes>,
) {
    let Ok(paused) = event.parse::<Paused>() else {
        return;
    };
    let refused = routes
        .is_some()
        .then(|| policy.refuses_request(&paused.request.url))
        .flatten();
    let allowed = refused.is_none();
    if let Some(rule) = refused {
        tracing::debug!(
            host = host_of(&paused.request.url).unwrap_or_default(),
            ?rule,
            "blocked a request"
        );
        paused.report_if_navigation(policy, rule);
    }
    if routed(session, &paused, allowed, routes).await {
        return;
    }
    match hooks {
        Some(hooks) if allowed => {
            crate::page_setup::continue_request(
                session,
                hooks,
                paused.request_id,
                &paused.request.url,
                &paused.request.headers,
            )
            .await;
        }
        _ => release(session, paused.request_id, allowed).await,
    }
}

/// Whether one of the session's routes answered the allowed request.
async fn routed(
    session: &CdpSession,
    paused: &Paused,
    allowed: bool,
    routes: Option<&Routes>,
) -> bool {
    match routes {
        Some(routes) if allowed => {
            crate::network::answer_paused(session, routes, &paused.routed()).await
        }
        _ => false,
    }
}

/// [`release`], unless a route answers the allowed request.
async fn routed_release(
    session: &CdpSession,
    paused: Paused,
    allowed: bool,
    routes: Option<&Routes>,
) {
    if !routed(session, &paused, allowed, routes).await {
        release(session, paused.request_id, allowed).await;
    }
}

/// Lets a paused request go on, or fails it as blocked by the client.
async fn release(session: &CdpSession, request_id: String, allowed: bool) {
    let request_id = fetch::RequestId::from(request_id);
    let _ = if allowed {
        session
            .send(&fetch::ContinueRequestParams::new(request_id))
            .await
    } else {
        session
            .send(&fetch::FailRequestParams::new(
                request_id,
                network::ErrorReason::BlockedByClient,
            ))
            .await
    };
}

/// `Fetch.enable` for every request, answering proxy challenges too when there are credentials
/// (and, on a tab, servers' challenges: `set credentials` may give some later).
fn intercept_all(policy: &Policy, tab_level: bool) -> fetch::EnableParams {
    fetch::EnableParams {
        patterns: Some(vec![fetch::RequestPattern {
            url_pattern: Some("*".into()),
            ..Default::default()
        }]),
        handle_auth_requests: Some(policy.proxy_auth.is_some() || tab_level),
    }
}

async fn answer_auth(
    session: &CdpSession,
    policy: &Policy,
    hooks: Option<&crate::page_setup::FetchHooks>,
    event: &Event,
    tries: &mut HashMap<String, u8>,
) {
    let Ok(auth) = event.parse::<AuthRequired>() else {
        return;
    };
    let count = tries.entry(auth.request_id.clone()).or_insert(0);
    *count += 1;
    use fetch::AuthChallengeResponseResponse as Answer;
    let answer = |response: Answer| fetch::AuthChallengeResponse {
        response,
        username: None,
        password: None,
    };
    let response = match (&policy.proxy_auth, auth.auth_challenge.source.as_deref()) {
        // Wrong credentials would loop: the second challenge of a request is cancelled.
        (Some(_), Some("Proxy")) if *count > 1 => answer(Answer::CancelAuth),
        (Some(creds), Some("Proxy")) => fetch::AuthChallengeResponse {
            username: Some(creds.username.clone()),
            password: Some(creds.password.clone()),
            ..answer(Answer::ProvideCredentials)
        },
        (_, Some("Proxy")) => answer(Answer::Default),
        _ => match hooks {
            Some(hooks) => crate::page_setup::server_auth_answer(hooks, *count),
            None => answer(Answer::Default),
        },
    };
    if tries.len() > 4096 {
        tries.clear();
    }
    let _ = session
        .send(&fetch::ContinueWithAuthParams::new(
            auth.request_id,
            response,
        ))
        .await;
}

/// The browser-level layer for popups (see the module docs).
/// With proxy credentials the same browser-level interception also answers the proxy's
/// challenges for every tab, frame and worker of the browser (a session with credentials owns the
/// Chrome it launched with that proxy), so cross-site iframes, popups and stage tabs attached to
/// it load through the authenticating proxy too.
async fn watch_browser(
    connection: &Connection,
    owned: bool,
    policy: &Arc<Policy>,
    enforcement: &Arc<Enforcement>,
) -> Result<()> {
    let browser = connection.browser();
    // One subscription, so a popup's `targetCreated` is seen before its first request.
    let events = browser.subscribe(
        EventFilter::methods([
            target::EventTargetCreated::IDENTIFIER,
            target::EventTargetInfoChanged::IDENTIFIER,
            fetch::EventRequestPaused::IDENTIFIER,
            fetch::EventAuthRequired::IDENTIFIER,
        ]),
        PAUSED_EVENTS,
    );
    enforcement.keep(tokio::spawn(popup_pump(
        events,
        connection.clone(),
        owned,
        policy.clone(),
        Arc::downgrade(enforcement),
    )));
    browser
        .call_within(intercept_all(policy, false), SETUP_DEADLINE)
        .await?;
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Created {
    target_info: crate::browser::TargetInfo,
}

async fn popup_pump(
    mut events: abx_cdp::Subscription,
    connection: Connection,
    owned: bool,
    policy: Arc<Policy>,
    enforcement: std::sync::Weak<Enforcement>,
) {
    let browser = connection.browser();
    let mut auth_tries: HashMap<String, u8> = HashMap::new();
    while let Some(event) = events.recv().await {
        let Some(enforcement) = enforcement.upgrade() else {
            return;
        };
        match event.method() {
            fetch::EventAuthRequired::IDENTIFIER => {
                answer_auth(&browser, &policy, None, &event, &mut auth_tries).await;
            }
            target::EventTargetInfoChanged::IDENTIFIER => {
                if let Ok(changed) = event.parse::<Created>() {
                    contain_stray_tab(&browser, owned, &policy, &enforcement, &changed.target_info)
                        .await;
                }
            }
            target::EventTargetCreated::IDENTIFIER if policy.fenced() => {
                let Ok(created) = event.parse::<Created>() else {
                    continue;
                };
                let info = created.target_info;
                contain_stray_tab(&browser, owned, &policy, &enforcement, &info).await;
                let ours = info
                    .opener_id
                    .as_deref()
                    .is_some_and(|opener| enforcement.is_member(opener));
                if !ours || info.kind != "page" {
                    continue;
                }
                {
                    let mut family = enforcement.family();
                    family.members.insert(info.target_id.clone());
                    family.pending.insert(info.target_id.clone(), Vec::new());
                }
                let connection = connection.clone();
                let policy = policy.clone();
                let weak = Arc::downgrade(&enforcement);
                enforcement.keep(tokio::spawn(async move {
                    let Some(enforcement) = weak.upgrade() else {
                        return;
                    };
                    adopt_popup(&connection, &info.target_id, &policy, &enforcement).await;
                }));
            }
            fetch::EventRequestPaused::IDENTIFIER => {
                let Ok(paused) = event.parse::<Paused>() else {
                    continue;
                };
                let frame = paused.frame_id.clone().unwrap_or_default();
                let held = {
                    let mut family = enforcement.family();
                    if !family.members.contains(&frame) {
                        None
                    } else if let Some(queue) = family.pending.get_mut(&frame) {
                        // Its own interception is not in place yet: hold the request.
                        queue.push(paused);
                        Some(true)
                    } else {
                        Some(false)
                    }
                };
                match held {
                    // Not ours: let it go at once.
                    None => decide(&browser, &policy, None, &event, None).await,
                    Some(true) => {}
                    Some(false) => {
                        decide(&browser, &policy, None, &event, Some(&enforcement.routes)).await;
                    }
                }
            }
            _ => {}
        }
    }
}

/// In a browser the fenced session launched (so owns), a tab that is not the session's and shows
/// a page outside the allowlist — a profile's tab restored after the session started — is closed.
async fn contain_stray_tab(
    browser: &CdpSession,
    owned: bool,
    policy: &Policy,
    enforcement: &Enforcement,
    info: &crate::browser::TargetInfo,
) {
    let Some(filter) = &policy.allowed_domains else {
        return;
    };
    let network = info.url.starts_with("http://") || info.url.starts_with("https://");
    if !owned || !info.is_tab() || !network || filter.allows_request(&info.url) {
        return;
    }
    if enforcement.family().members.is_empty() {
        // The session has not bound its tab yet (it may pick this very tab); what is open then
        // is handled by `contain_open_pages` right after the bind.
        return;
    }
    if enforcement.is_member(&info.target_id)
        || info
            .opener_id
            .as_deref()
            .is_some_and(|o| enforcement.is_member(o))
    {
        // The session's own tabs and popups are fenced by interception instead.
        return;
    }
    tracing::debug!("closing a tab outside the allowlist in the session's own browser");
    let _ = browser
        .send(&target::CloseTargetParams::new(info.target_id.clone()))
        .await;
}

/// Attaches to a popup our tab opened, installs the tab-level layers, then releases the requests
/// the browser-level layer held for it (each checked against the allowlist).
async fn adopt_popup(
    connection: &Connection,
    target_id: &str,
    policy: &Arc<Policy>,
    enforcement: &Arc<Enforcement>,
) {
    match connection.attach(target_id).await {
        Ok(session) => {
            if policy.deny_permissions {
                let _ = deny_prompts_in_page(&session).await;
            }
            if let Err(err) =
                install(connection, &session, TargetKind::Page, policy, enforcement).await
            {
                tracing::debug!(%err, "cannot guard a popup; its requests stay checked at the browser level");
            }
            let _ = session
                .send(&runtime::RunIfWaitingForDebuggerParams::default())
                .await;
        }
        Err(err) => tracing::debug!(%err, "cannot attach to a popup"),
    }
    let held = enforcement
        .family()
        .pending
        .remove(target_id)
        .unwrap_or_default();
    let browser = connection.browser();
    for paused in held {
        let refused = policy.refuses_request(&paused.request.url);
        if let Some(rule) = refused {
            paused.report_if_navigation(policy, rule);
        }
        routed_release(
            &browser,
            paused,
            refused.is_none(),
            Some(&enforcement.routes),
        )
        .await;
    }
}

/// The in-page guard: `WebSocket` checks its URL, `RTCPeerConnection` throws. Runs in windows
/// (every frame, before page scripts) and in workers (before their script).
pub fn guard_script(filter: &DomainFilter) -> String {
    GUARD_FN.call(&[json!(filter.patterns()), json!([])])
}

/// The guard for a whole policy: `WebSocket` checks the allowlist (if any) and the blocklist;
/// `RTCPeerConnection` throws only with an allowlist (a blocklist cannot see its peers' hosts,
/// and only fences sites, not all egress).
fn policy_guard_script(policy: &Policy) -> String {
    let allowed = policy
        .allowed_domains
        .as_ref()
        .map_or(serde_json::Value::Null, |f| json!(f.patterns()));
    let blocked = policy
        .blocked_sites
        .as_ref()
        .map_or_else(|| json!([]), |b| json!(b.patterns()));
    GUARD_FN.call(&[allowed, blocked])
}

/// The guard, a function of the allowlist's patterns.
const GUARD_FN: PageFn = PageFn::new(include_str!("policy/guard.js"));

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(list: &[&str]) -> DomainFilter {
        DomainFilter::new(list.iter().copied()).unwrap_or(DomainFilter {
            patterns: Vec::new(),
        })
    }

    #[test]
    fn exact_and_wildcard_patterns_match_like_upstream() {
        let f = filter(&["Example.com", "*.test.org"]);
        assert!(f.is_allowed("example.com"));
        assert!(f.is_allowed("EXAMPLE.COM."));
        assert!(!f.is_allowed("www.example.com"), "exact means exact");
        assert!(f.is_allowed("test.org"), "wildcard includes the apex");
        assert!(f.is_allowed("a.b.test.org"));
        assert!(!f.is_allowed("nottest.org"));
        assert!(DomainFilter::new(["", " "]).is_none());
    }

    #[test]
    fn navigation_check_uses_upstreams_texts() {
        let f = filter(&["a.localhost"]);
        assert!(f.check_navigation("about:blank").is_ok());
        assert!(f.check_navigation("http://a.localhost:8080/x?y#z").is_ok());
        assert_eq!(
            f.check_navigation("http://user:pw@B.localhost:1/")
                .map_err(|e| e.to_string()),
            Err("Domain 'b.localhost' is not in the allowed domains list".to_string())
        );
        assert_eq!(
            f.check_navigation("data:text/html,hi")
                .map_err(|e| e.to_string()),
            Err("No hostname in URL: data:text/html,hi".to_string())
        );
    }

    #[test]
    fn a_blocked_site_blocks_its_subdomains_and_wins_over_the_allowlist() {
        let blocked = SiteBlocklist::new(["Example.com", "*.ads.test", "https://x.org:8/p", " "])
            .expect("patterns");
        assert_eq!(blocked.patterns(), ["example.com", "ads.test", "x.org"]);
        assert!(blocked.blocks_host("example.com"));
        assert!(blocked.blocks_host("WWW.example.com."));
        assert!(!blocked.blocks_host("notexample.com"));
        assert!(
            blocked.blocks_host("ads.test"),
            "a wildcard blocks its apex too"
        );
        assert_eq!(
            blocked.blocked_host("http://a.x.org/"),
            Some("a.x.org".to_string())
        );
        assert_eq!(blocked.blocked_host("data:text/html,example.com"), None);
        assert!(SiteBlocklist::new(["", "*."]).is_none());

        let reported = Arc::new(Mutex::new(Vec::new()));
        let sink = reported.clone();
        let policy = Policy {
            allowed_domains: DomainFilter::new(["*.example.com", "ok.test"]),
            blocked_sites: Some(blocked),
            on_blocked: Some(BlockedSink(Arc::new(move |b: &BlockedNavigation| {
                sink.lock().expect("sink").push(b.clone());
            }))),
            ..Policy::default()
        };
        assert!(policy.fenced());
        assert_eq!(
            policy.refuses_request("https://www.example.com/"),
            Some(BlockRule::BlockedSites),
            "the blocklist wins over the allowlist"
        );
        assert_eq!(
            policy.refuses_request("https://other.test/"),
            Some(BlockRule::AllowedDomains)
        );
        assert!(policy.allows_request("https://ok.test/"));
        assert_eq!(
            policy
                .check_navigation("https://example.com/x?token=1")
                .map_err(|e| e.to_string()),
            Err("Site 'example.com' is blocked by the Host's site policy".to_string())
        );
        assert!(policy.check_navigation("https://ok.test/").is_ok());
        let reported = reported.lock().expect("reported").clone();
        assert_eq!(
            reported,
            vec![BlockedNavigation {
                url: "https://example.com/x?token=1".into(),
                host: "example.com".into(),
                rule: BlockRule::BlockedSites,
                by: BlockedBy::Command,
            }]
        );
    }

    #[test]
    fn requests_without_network_are_allowed() {
        let f = filter(&["a.localhost"]);
        assert!(f.allows_request("data:image/png;base64,xx"));
        assert!(f.allows_request("blob:http://a.localhost/uuid"));
        assert!(!f.allows_request("wss://b.localhost/socket"));
        assert!(!f.allows_request("http://[::1]:80/"));
        assert_eq!(host_of("http://[::1]:80/"), Some("[::1]".into()));
        assert_eq!(host_of("https://x.y"), Some("x.y".into()));
        assert_eq!(host_of("mailto:a@b"), None);
    }

    #[test]
    fn host_of_reads_hosts_as_chrome_does() {
        let host = |u: &str| host_of(u);
        assert_eq!(
            host("HTTPS://User:Pw@Example.COM.:8443/a?b#c").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            host("http://[0:0::1]:8080/").as_deref(),
            Some("[::1]"),
            "IPv6 normalized"
        );
        assert_eq!(
            host("http://127.1/").as_deref(),
            Some("127.0.0.1"),
            "IPv4 normalized"
        );
        assert_eq!(
            host("http://a@b@c.test/").as_deref(),
            Some("c.test"),
            "last @ ends userinfo"
        );
        assert_eq!(
            host("https://bücher.de/").as_deref(),
            Some("xn--bcher-kva.de")
        );
        assert_eq!(host("blob:https://a.test/uuid").as_deref(), Some("a.test"));
        assert_eq!(host("file://server/share").as_deref(), Some("server"));
        assert_eq!(
            host("wss://b.localhost:9/s").as_deref(),
            Some("b.localhost")
        );
        assert_eq!(host("chrome://settings").as_deref(), Some("settings"));
        assert_eq!(host("file:///etc/hosts"), None);
        assert_eq!(host("data:text/html,x"), None);
        assert_eq!(host("about:blank"), None);
        assert_eq!(host("example.com"), None, "no scheme, no URL");
    }
}

#[cfg(test)]
mod adopt_tests {
    use super::*;
    use crate::fake_chrome::FakeChrome;

    fn paused_frame() -> Attached {
        serde_json::from_value(json!({
            "sessionId": "child",
            "targetInfo": {"targetId": "F1", "type": "iframe", "url": ""},
            "waitingForDebugger": true,
        }))
        .expect("attached event")
    }

    fn fenced() -> Arc<Policy> {
        Arc::new(Policy {
            allowed_domains: DomainFilter::new(["a.localhost"]),
            ..Policy::default()
        })
    }

    /// Adopts the paused frame against a fake Chrome whose child session fails `fail_method`,
    /// and returns the methods the child session received and the recorded failures.
    async fn adopt_with_failing(fail_method: &'static str) -> (Vec<String>, Vec<GuardFailure>) {
        let (connection, chrome) = FakeChrome::start(move |request| {
            let on_child = request["sessionId"] == "child";
            if on_child && request["method"] == fail_method {
                Some(Err(format!("'{fail_method}' wasn't found")))
            } else {
                Some(Ok(json!({})))
            }
        });
        let enforcement = Arc::new(Enforcement::default());
        adopt_child(
            connection.clone(),
            paused_frame(),
            fenced(),
            enforcement.clone(),
        )
        .await;
        // One round trip: whatever adopt_child queued was written before this call.
        connection
            .browser()
            .call_json("Browser.getVersion", json!({}))
            .await
            .expect("round trip");
        (chrome.methods_on(Some("child")), enforcement.failures())
    }

    #[tokio::test]
    async fn a_guarded_child_frame_is_resumed() {
        let (methods, failures) = adopt_with_failing("Nothing.fails").await;
        assert!(
            methods
                .iter()
                .any(|m| m == "Runtime.runIfWaitingForDebugger"),
            "{methods:?}"
        );
        assert!(failures.is_empty(), "{failures:?}");
    }

    /// Regression: the allowlist resumed a child frame whose interception failed to install, so
    /// it loaded from any host. It must stay paused and the failure must be reported.
    #[tokio::test]
    async fn a_child_frame_whose_guard_fails_to_install_stays_paused_and_is_reported() {
        for failing in ["Fetch.enable", "Target.setAutoAttach"] {
            let (methods, failures) = adopt_with_failing(failing).await;
            assert!(
                !methods
                    .iter()
                    .any(|m| m == "Runtime.runIfWaitingForDebugger"),
                "{failing}: resumed although unguarded: {methods:?}"
            );
            assert_eq!(failures.len(), 1, "{failing}: {failures:?}");
            assert_eq!(failures[0].target_id, "F1");
            assert_eq!(failures[0].kind, "iframe");
            assert!(failures[0].reason.contains(failing), "{failures:?}");
        }
    }
}
