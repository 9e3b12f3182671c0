//! A browser: launched and owned by us, or attached over CDP. Tracks targets without attaching.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::browser as cdp_browser;
use abx_cdp::protocol::browser_protocol::target;
use abx_cdp::{ConnectOptions, Connection, EventFilter};
use abx_chrome::{BrowserBinary, BrowserKind, Chrome, CloseReceipt, LaunchOptions};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::error::{EngineError, Result};

/// What Chrome reports about a target (`Target.TargetInfo`), as far as we use it.
///
/// Read leniently on purpose (not the generated `Target.TargetInfo`, which requires fields such
/// as `canAccessOpener`): target lists and target events must decode from whatever browser or
/// CDP service a session attaches to, or the session cannot even start.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// The target id.
    pub target_id: String,
    /// `page`, `iframe`, `worker`, `browser_ui`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// Current URL.
    #[serde(default)]
    pub url: String,
    /// Current title.
    #[serde(default)]
    pub title: String,
    /// Whether any client is attached.
    #[serde(default)]
    pub attached: bool,
    /// The target that opened this one (popups).
    #[serde(default)]
    pub opener_id: Option<String>,
    /// Browser context.
    #[serde(default)]
    pub browser_context_id: Option<String>,
}

impl TargetInfo {
    /// A tab a person or agent could use: a page that is not Chrome's own UI.
    pub fn is_tab(&self) -> bool {
        self.kind == "page"
            && !self.url.starts_with("chrome://omnibox")
            && !self.url.starts_with("devtools://")
    }
}

/// The browser's targets, kept current from `Target.setDiscoverTargets` events (discovery only:
/// nothing is attached, paused or enabled).
#[derive(Default)]
pub(crate) struct TargetTracker {
    targets: Mutex<Vec<TargetInfo>>,
    version: Mutex<Option<watch::Sender<u64>>>,
}

impl TargetTracker {
    fn bump(&self) {
        if let Ok(guard) = self.version.lock()
            && let Some(tx) = guard.as_ref()
        {
            tx.send_modify(|v| *v += 1);
        }
    }

    fn upsert(&self, info: TargetInfo) {
        if let Ok(mut list) = self.targets.lock() {
            match list.iter_mut().find(|t| t.target_id == info.target_id) {
                Some(existing) => *existing = info,
                None => list.push(info),
            }
        }
        self.bump();
    }

    fn remove(&self, target_id: &str) {
        if let Ok(mut list) = self.targets.lock() {
            list.retain(|t| t.target_id != target_id);
        }
        self.bump();
    }

    pub(crate) fn snapshot(&self) -> Vec<TargetInfo> {
        self.targets.lock().map(|l| l.clone()).unwrap_or_default()
    }

    pub(crate) fn get(&self, target_id: &str) -> Option<TargetInfo> {
        self.targets
            .lock()
            .ok()?
            .iter()
            .find(|t| t.target_id == target_id)
            .cloned()
    }
}

/// How to attach to an existing browser.
#[derive(Clone, Debug, Default)]
pub struct AttachOptions {
    /// HTTP headers for discovery and the WebSocket handshake (`--cdp-headers`).
    pub headers: Vec<(String, String)>,
    /// How long to wait for the endpoint (upstream waits up to 2 s for the port).
    pub connect_timeout: Option<Duration>,
    /// Extra root certificates (DER) trusted for `wss://`/`https://` endpoints.
    pub extra_root_certs: Vec<Vec<u8>>,
}

/// A browser we launched (and will close) or attached to (and will only detach from).
pub struct Browser {
    connection: Connection,
    chrome: tokio::sync::Mutex<Option<Chrome>>,
    owned: bool,
    chrome_pid: Option<i32>,
    binary: Option<BrowserBinary>,
    /// Whether Chrome is a headless shell, once asked (see [`Browser::is_headless_shell`]).
    headless_shell: tokio::sync::OnceCell<bool>,
    pub(crate) targets: Arc<TargetTracker>,
    versions: watch::Receiver<u64>,
    pump: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("url", &self.connection.url())
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// Turns `9222`, `ws://…`, `http://…` into something [`Connection::connect`] takes.
pub fn endpoint_url(endpoint: &str) -> Result<String> {
    let endpoint = endpoint.trim();
    if let Ok(port) = endpoint.parse::<u32>() {
        if port == 0 || port > 65535 {
            return Err(EngineError::Invalid(format!("Invalid CDP port: {port}")));
        }
        return Ok(format!("http://127.0.0.1:{port}"));
    }
    for scheme in ["ws://", "wss://", "http://", "https://"] {
        if endpoint.starts_with(scheme) {
            return Ok(endpoint.to_string());
        }
    }
    Err(EngineError::Invalid(format!(
        "Invalid CDP value: '{endpoint}' is not a valid port number or URL"
    )))
}

/// `Target.getTargets`, each target info decoded on its own (one that does not decode is
/// skipped, not the whole list).
async fn list_targets(browser: &abx_cdp::Session, timeout: Duration) -> Result<Vec<TargetInfo>> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Listed {
        target_infos: Vec<serde_json::Value>,
    }
    let listed: Listed = browser
        .call_as(&target::GetTargetsParams::default(), Some(timeout))
        .await?;
    Ok(listed
        .target_infos
        .into_iter()
        .filter_map(|info| serde_json::from_value(info).ok())
        .collect())
}

/// Brings `target_id` to the front of its window (`Target.activateTarget`). The one
/// implementation of tab activation ([`Browser::activate_target`], [`crate::Tab::activate`]).
pub(crate) async fn activate_target(connection: &Connection, target_id: &str) -> Result<()> {
    let activate = target::ActivateTargetParams::new(target_id.to_string());
    connection
        .browser()
        .call_within(activate, Duration::from_secs(2))
        .await?;
    Ok(())
}

impl Browser {
    /// Launches Chrome and connects to it. The browser is owned: [`Browser::close`] ends Chrome.
    pub async fn launch(options: LaunchOptions) -> Result<Browser> {
        tracing::debug!("launching Chrome");
        let chrome = Chrome::launch(options)
            .await
            .map_err(|e| EngineError::Launch(e.to_string()))?;
        tracing::debug!(pid = chrome.pid(), "Chrome is ready; connecting");
        let connection = match Connection::connect(chrome.ws_url()).await {
            Ok(connection) => connection,
            Err(err) => {
                chrome.kill().await;
                return Err(EngineError::Launch(format!(
                    "cannot connect to the launched Chrome: {err}"
                )));
            }
        };
        tracing::debug!("connected");
        Self::start(connection, Some(chrome)).await
    }

    /// Reconnects to a Chrome we launched whose CDP socket dropped while the process lives on.
    pub async fn adopt(chrome: Chrome) -> Result<Browser> {
        match Connection::connect(chrome.ws_url()).await {
            Ok(connection) => Self::start(connection, Some(chrome)).await,
            Err(err) => {
                chrome.kill().await;
                Err(EngineError::BrowserLost {
                    reason: format!("cannot reconnect to the launched Chrome: {err}"),
                })
            }
        }
    }

    /// Takes the owned Chrome process out of a browser whose connection is gone, if the process
    /// still runs (for [`Browser::adopt`]).
    pub async fn take_live_chrome(&self) -> Option<Chrome> {
        let mut slot = self.chrome.lock().await;
        match slot.as_ref() {
            Some(chrome) if !chrome.has_exited() => slot.take(),
            _ => None,
        }
    }

    /// Attaches to an existing browser (`--cdp <port|url>`). Never launches anything; a failure
    /// is an error. [`Browser::close`] only detaches.
    pub async fn attach(endpoint: &str, options: AttachOptions) -> Result<Browser> {
        let url = endpoint_url(endpoint)?;
        let connect = ConnectOptions {
            headers: options.headers.clone(),
            connect_timeout: options.connect_timeout.unwrap_or(Duration::from_secs(5)),
            extra_root_certs: options.extra_root_certs.clone(),
            ..ConnectOptions::default()
        };
        // The port may be opening right now (upstream waits up to 2 s for it).
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        let connection = loop {
            match Connection::connect_with(&url, connect.clone()).await {
                Ok(connection) => break connection,
                Err(err) if tokio::time::Instant::now() < deadline => {
                    tracing::debug!(%err, "CDP endpoint not ready, retrying");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(err) => {
                    let reason = match err {
                        abx_cdp::Error::Connect { reason, .. } => reason,
                        other => other.to_string(),
                    };
                    let address = url
                        .split_once("://")
                        .map_or(url.as_str(), |(_, rest)| rest)
                        .trim_end_matches('/')
                        .to_string();
                    return Err(EngineError::EndpointUnreachable { address, reason });
                }
            }
        };
        Self::start(connection, None).await
    }

    /// Attaches again after this browser's connection dropped, and only to the *same* browser:
    /// an endpoint that now serves another one (a browser service that launches a fresh browser
    /// per connection once the old one ended) is refused with [`EngineError::BrowserLost`]
    /// instead of handing back a blank browser. "Same" means at least one target this browser
    /// knew still exists there (target ids are unique per browser process).
    pub async fn reattach(&self, endpoint: &str, options: AttachOptions) -> Result<Browser> {
        // The endpoint this browser came from no longer answers: the browser is lost.
        let fresh = Self::attach(endpoint, options)
            .await
            .map_err(|err| match err {
                EngineError::EndpointUnreachable { address, reason } => EngineError::BrowserLost {
                    reason: format!("cannot attach to {address}: {reason}"),
                },
                other => other,
            })?;
        let known = self.targets();
        let same = fresh
            .targets()
            .iter()
            .any(|t| known.iter().any(|k| k.target_id == t.target_id));
        if same {
            return Ok(fresh);
        }
        fresh.close().await;
        Err(EngineError::BrowserLost {
            reason: format!(
                "{endpoint} now serves another browser (none of the {} known targets exist there): \
                 the browser this session used has ended",
                known.len()
            ),
        })
    }

    async fn start(connection: Connection, chrome: Option<Chrome>) -> Result<Browser> {
        let targets = Arc::new(TargetTracker::default());
        let (tx, versions) = watch::channel(0u64);
        if let Ok(mut slot) = targets.version.lock() {
            *slot = Some(tx);
        }
        let mut events = connection.browser().subscribe(
            EventFilter::methods([
                target::EventTargetCreated::IDENTIFIER,
                target::EventTargetInfoChanged::IDENTIFIER,
                target::EventTargetDestroyed::IDENTIFIER,
                target::EventTargetCrashed::IDENTIFIER,
            ]),
            4096,
        );
        let tracker = targets.clone();
        let pump = tokio::spawn(async move {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct InfoEvent {
                target_info: TargetInfo,
            }
            while let Some(event) = events.recv().await {
                match event.method() {
                    target::EventTargetDestroyed::IDENTIFIER => {
                        if let Some(Ok(e)) = event.decode::<target::EventTargetDestroyed>() {
                            tracker.remove(e.target_id.as_ref());
                        }
                    }
                    target::EventTargetCrashed::IDENTIFIER => tracker.bump(),
                    // Created and info changed: our lenient target info (see `TargetInfo`).
                    _ => {
                        if let Ok(e) = event.parse::<InfoEvent>() {
                            tracker.upsert(e.target_info);
                        }
                    }
                }
            }
            tracker.bump();
        });
        let chrome_pid = chrome.as_ref().map(Chrome::pid);
        let binary = chrome.as_ref().map(|c| c.binary().clone());
        let owned = chrome.is_some();
        let browser = Browser {
            connection,
            chrome: tokio::sync::Mutex::new(chrome),
            owned,
            chrome_pid,
            binary,
            headless_shell: tokio::sync::OnceCell::new(),
            targets,
            versions,
            pump,
        };
        let browser_session = browser.connection.browser();
        // Both in one round trip: discovery events start flowing, and the list seeds the table.
        let (discover, listed) = tokio::join!(
            browser_session.call_within(
                target::SetDiscoverTargetsParams::new(true),
                Duration::from_secs(10)
            ),
            list_targets(&browser_session, Duration::from_secs(10))
        );
        discover?;
        for info in listed? {
            browser.targets.upsert(info);
        }
        Ok(browser)
    }

    /// The CDP connection.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The browser's WebSocket URL (`get cdp-url`).
    pub fn cdp_url(&self) -> &str {
        self.connection.url()
    }

    /// The browser's id: the last segment of its `/devtools/browser/<id>` WebSocket URL. Tab
    /// claims (ADR 0005) are keyed by it, so every client of one Chrome agrees on it.
    pub fn browser_id(&self) -> Option<String> {
        let (_, id) = self.cdp_url().split_once("/devtools/browser/")?;
        let id = id.split(['?', '#', '/']).next().unwrap_or("");
        (!id.is_empty()).then(|| id.to_string())
    }

    /// True when we launched this browser and will end it on close.
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// The launched Chrome's pid (its process group), when owned.
    pub fn chrome_pid(&self) -> Option<i32> {
        self.chrome_pid
    }

    /// Which binary runs (headless shell or full Chrome) and why, when we launched it.
    pub fn binary(&self) -> Option<&BrowserBinary> {
        self.binary.as_ref()
    }

    /// Whether this Chrome is a headless shell (the old headless mode), launched by us or not.
    /// A shell has no tab strip: every tab is a window of its own that is always shown, so
    /// Chrome paints every tab at the page's rate, where full Chrome paints only the tab in
    /// front. Known from the binary when we launched it; otherwise from the product name the
    /// shell reports (`HeadlessChrome/…`; full Chrome says `Chrome/…`, headless or not), asked
    /// once. A browser that does not answer counts as full Chrome.
    pub async fn is_headless_shell(&self) -> bool {
        if let Some(binary) = &self.binary {
            return binary.kind == BrowserKind::HeadlessShell;
        }
        *self
            .headless_shell
            .get_or_init(|| async {
                self.connection
                    .browser()
                    .call_within(
                        cdp_browser::GetVersionParams::default(),
                        Duration::from_secs(5),
                    )
                    .await
                    .is_ok_and(|v| v.product.starts_with("HeadlessChrome/"))
            })
            .await
    }

    /// Puts the window that holds `target_id` through `states`, in order, each call within
    /// `deadline`; every state is tried, and the first failure is returned. On a headless shell,
    /// where each tab has its own window, `Minimized` hides that one tab: it keeps its size and
    /// stays usable (scripts, input, screenshots) but paints nothing until it is shown again.
    pub async fn set_window_states(
        &self,
        target_id: &str,
        states: &[cdp_browser::WindowState],
        deadline: Duration,
    ) -> Result<()> {
        let browser = self.connection.browser();
        let window = browser
            .call_within(
                cdp_browser::GetWindowForTargetParams {
                    target_id: Some(target_id.to_string().into()),
                },
                deadline,
            )
            .await?;
        let mut outcome = Ok(());
        for state in states {
            let bounds = cdp_browser::Bounds {
                window_state: Some(state.clone()),
                ..Default::default()
            };
            let set = cdp_browser::SetWindowBoundsParams::new(window.window_id, bounds);
            if let Err(err) = browser.call_within(set, deadline).await
                && outcome.is_ok()
            {
                outcome = Err(err.into());
            }
        }
        outcome
    }

    /// Whether the connection (and, when owned, the process) is alive.
    pub fn is_alive(&self) -> bool {
        !self.connection.is_closed()
    }

    /// All targets Chrome reported, in discovery order.
    pub fn targets(&self) -> Vec<TargetInfo> {
        self.targets.snapshot()
    }

    /// One target by id.
    pub fn target(&self, target_id: &str) -> Option<TargetInfo> {
        self.targets.get(target_id)
    }

    /// Re-reads every target from Chrome (titles are not always pushed as events).
    pub async fn refresh_targets(&self) -> Result<()> {
        let listed = list_targets(&self.connection.browser(), Duration::from_secs(5)).await?;
        for info in listed {
            self.targets.upsert(info);
        }
        Ok(())
    }

    /// A receiver that changes whenever the target list changes.
    pub fn target_changes(&self) -> watch::Receiver<u64> {
        self.versions.clone()
    }

    /// Creates a new tab at `url` (without activating or attaching it) and returns its target id.
    pub async fn create_tab(&self, url: &str, new_window: bool) -> Result<String> {
        self.create_tab_placed(url, new_window, true).await
    }

    /// [`Browser::create_tab`], in front when `background` is false: a window created that way
    /// is also the focused one, which `Target.activateTarget` alone does not give a window that
    /// was opened in the background (its pages then report `document.hasFocus()` false).
    pub async fn create_tab_placed(
        &self,
        url: &str,
        new_window: bool,
        background: bool,
    ) -> Result<String> {
        let create = target::CreateTargetParams {
            new_window: Some(new_window),
            background: Some(background),
            ..target::CreateTargetParams::new(url)
        };
        let created = self
            .connection
            .browser()
            .call_within(create, Duration::from_secs(10))
            .await?;
        let id: String = created.target_id.into();
        // Make sure the tracker knows it before callers look it up.
        let mut changes = self.target_changes();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while self.targets.get(&id).is_none() && tokio::time::Instant::now() < deadline {
            let _ = tokio::time::timeout_at(deadline, changes.changed()).await;
        }
        Ok(id)
    }

    /// Brings a tab to the front of its window: Chrome renders (and screencasts) only the
    /// visible tab of a window.
    pub async fn activate_target(&self, target_id: &str) -> Result<()> {
        activate_target(&self.connection, target_id).await
    }

    /// Closes a target.
    pub async fn close_target(&self, target_id: &str) -> Result<()> {
        self.connection
            .browser()
            .call_within(
                target::CloseTargetParams::new(target_id.to_string()),
                Duration::from_secs(5),
            )
            .await?;
        Ok(())
    }

    /// Ends the browser: an owned Chrome is closed gracefully (cookies flushed, group verified
    /// empty, temp profile removed); an attached browser is only detached from.
    pub async fn close(&self) -> CloseReceipt {
        let chrome = self.chrome.lock().await.take();
        let receipt = match chrome {
            Some(chrome) => chrome.close(Some(&self.connection)).await,
            None => CloseReceipt {
                verified: true,
                ..CloseReceipt::default()
            },
        };
        self.connection.close();
        receipt
    }
}
