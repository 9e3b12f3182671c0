//! A session: what one `agent-browser` session (one daemon) drives in a browser — its tabs
//! (`t1`, `t2`, … never reused), its active tab, pin-tab semantics — and [`Page`], the view one
//! command takes of the active tab to act on it.
//!
//! Where the line runs: [`Session`] keeps what outlives one command or belongs to the browser —
//! binding and attaching, the tab table (`tab new|switch|close`, windows), navigation (it
//! replaces the document a `Page` views), frame selection (like a tab switch, it chooses what
//! later views act on), cookies, storage, emulation, network log and routes, dialog answers,
//! downloads, tracing, WebMCP, close. [`Page`] (from [`Session::page`]) carries the active tab
//! and one command's deadline, resolved once, and hosts the work done on the document within
//! that deadline: input (click, fill, type, press, keys, mouse, touch, drag, upload, scroll),
//! element reads (`find`, `get`, `is`), `eval`, waits, snapshots and screenshots.

mod front;
mod navigation;
mod view;
mod wait;

pub use navigation::{DeferredNavigation, DeferredWait, LOAD_AFTER_PARSE};
pub use view::Page;
pub use wait::Evaluated;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::browser::{Browser, TargetInfo};
use crate::error::{EngineError, Result};
use crate::tab::settle::{Milestone, NavigationMark};
use crate::tab::{Tab, TabOptions};

/// When a navigation counts as done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WaitUntil {
    /// The `load` event (default).
    #[default]
    Load,
    /// `DOMContentLoaded`.
    DomContentLoaded,
    /// No network activity for 500 ms.
    NetworkIdle,
    /// Return as soon as the navigation is committed.
    None,
}

impl WaitUntil {
    /// Parses upstream's names (`load`, `domcontentloaded`, `networkidle`, `none`).
    pub fn parse(name: &str) -> Result<WaitUntil> {
        match name.to_ascii_lowercase().as_str() {
            "load" => Ok(WaitUntil::Load),
            "domcontentloaded" => Ok(WaitUntil::DomContentLoaded),
            "networkidle" => Ok(WaitUntil::NetworkIdle),
            "none" | "commit" => Ok(WaitUntil::None),
            other => Err(EngineError::Invalid(format!(
                "Invalid load state: {other}. Use load, domcontentloaded or networkidle"
            ))),
        }
    }

    /// The milestone a wait ends at (`None`: no wait).
    fn milestone(self) -> Option<Milestone> {
        match self {
            WaitUntil::Load => Some(Milestone::Load),
            WaitUntil::DomContentLoaded => Some(Milestone::DomContentLoaded),
            WaitUntil::NetworkIdle => Some(Milestone::NetworkIdle),
            WaitUntil::None => None,
        }
    }
}

/// How a session binds to tabs and behaves.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Deadline of commands that do not pass one (upstream: 25 s).
    pub default_timeout: Duration,
    /// Accept `alert` and `beforeunload` at once.
    pub auto_dialog: bool,
    /// Strict binding: open a fresh tab on attach, never drift to another tab, `tab_gone` when
    /// the bound tab is closed.
    pub pin_tab: bool,
    /// The tab this session used before (from the `.target` sidecar), preferred on attach.
    pub preferred_target: Option<String>,
    /// A blank tab someone made for this session before it started (a Host's spare tab, named
    /// in the `.target` sidecar with `"fresh": true`). When it is still an unattached, unclaimed
    /// `about:blank` page, the session takes it as if it had created it: no tab creation on the
    /// start's critical path, attached without the dialog probe, closed with a pinned session.
    /// Otherwise it is ignored and the session binds as it would without it.
    pub handed_target: Option<String>,
    /// The network policy: hard allowlist, proxy credentials, denied permission prompts.
    pub policy: Arc<crate::policy::Policy>,
    /// Where pinned tabs are claimed across processes (`None`: no claims).
    pub claims: Option<crate::claim::ClaimDir>,
    /// This session's name, written into its claims so others can say who holds a tab.
    pub name: String,
    /// A click, key press, typing or `find` action that starts a main-frame navigation waits,
    /// within the action's timeout, for the page it leads to before it returns, so the next
    /// call sees that page (default). `false` returns as soon as the input is delivered.
    pub settle_navigation: bool,
    /// With `settle_navigation`, the action returns as soon as its input is delivered and the
    /// navigation it started is waited for by the next caller of [`Session::settle_deferred`]
    /// (the daemon calls it before the next command), so an action costs what upstream's does
    /// and the next command still sees the page it led to. Default `false`: the action waits.
    pub settle_later: bool,
    /// Page settings applied to every tab: color scheme, init scripts, download directory.
    pub page: crate::page_setup::PageSetup,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            default_timeout: Duration::from_secs(25),
            auto_dialog: true,
            pin_tab: false,
            preferred_target: None,
            handed_target: None,
            policy: Arc::new(crate::policy::Policy::default()),
            claims: None,
            name: String::new(),
            settle_navigation: true,
            settle_later: false,
            page: crate::page_setup::PageSetup::default(),
        }
    }
}

/// One line of `tab list`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TabListing {
    /// `t1`, `t2`, ...
    pub tab_id: String,
    /// Optional label.
    pub label: Option<String>,
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
    /// Always `page`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether this is the session's active tab.
    pub active: bool,
    /// The CDP target id.
    pub target_id: String,
}

/// The outcome of a navigation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Navigated {
    /// The URL after the navigation.
    pub url: String,
    /// The page title.
    pub title: String,
    /// The page was parsed but its `load` event had not come [`LOAD_AFTER_PARSE`] later (a
    /// request that never finishes): it is usable and may still change.
    ///
    /// [`LOAD_AFTER_PARSE`]: crate::LOAD_AFTER_PARSE
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub load_held: bool,
}

/// Screenshot options.
#[derive(Clone, Debug, Default)]
pub struct ScreenshotOptions {
    /// Whole scrollable page.
    pub full_page: bool,
    /// `png` (default) or `jpeg`.
    pub format: Option<String>,
    /// JPEG quality 0-100.
    pub quality: Option<u8>,
    /// Only this element.
    pub selector: Option<String>,
}

struct TabEntry {
    number: u32,
    label: Option<String>,
    target_id: String,
}

#[derive(Default)]
struct TabTable {
    entries: Vec<TabEntry>,
    next: u32,
    active: Option<String>,
    attached: HashMap<String, Arc<Tab>>,
    /// Targets this session created (or the first tab of a browser it launched).
    created: std::collections::HashSet<String>,
    /// The window each tab belongs to as the session sees it: a tab opened by `tab new` joins
    /// the active tab's window, one opened by `window new` gets a window of its own. Missing
    /// means the first window (0). Only a headless shell needs it, where every tab is a real
    /// window of its own (see `front.rs`).
    windows: HashMap<String, u32>,
    /// The last window number handed out by `window new`.
    last_window: u32,
    /// Tabs whose windows this session minimized to hide them behind another of its tabs
    /// (headless shell only; see `front.rs`).
    minimized: std::collections::HashSet<String>,
}

impl TabTable {
    fn entry_for(&mut self, target_id: &str) -> &TabEntry {
        if let Some(i) = self.entries.iter().position(|e| e.target_id == target_id) {
            return &self.entries[i];
        }
        self.next += 1;
        self.entries.push(TabEntry {
            number: self.next,
            label: None,
            target_id: target_id.to_string(),
        });
        let last = self.entries.len() - 1;
        &self.entries[last]
    }

    /// The session's window number of `target_id` (see [`TabTable::windows`]).
    fn window_of(&self, target_id: &str) -> u32 {
        self.windows.get(target_id).copied().unwrap_or(0)
    }

    /// Forgets what the table knows about a tab's window.
    fn forget_window(&mut self, target_id: &str) {
        self.windows.remove(target_id);
        self.minimized.remove(target_id);
    }
}

/// A session bound to a browser. Cheap to share (`Arc<Session>`); all methods take `&self` and
/// never hold a lock across a CDP call, so `tab list` or `close` can run while a command waits.
pub struct Session {
    browser: Arc<Browser>,
    options: SessionOptions,
    tabs: Mutex<TabTable>,
    /// Snapshot refs per tab.
    pub(crate) refs: crate::refs::RefStore,
    /// The policy's live state (see `policy.rs`).
    pub(crate) enforcement: Arc<crate::policy::Enforcement>,
    /// The request log, routes and HAR recording (see `network/`).
    pub(crate) network: Arc<crate::network::NetworkState>,
    /// The claim on the pinned tab (see `claim.rs`).
    pub(crate) pin_claim: Mutex<Option<(String, crate::claim::TabClaim)>>,
    /// Downloads seen and saved (see `download.rs`).
    pub(crate) downloads: crate::download::Downloads,
    /// The last reported `screenshot --if-changed` per tab and scope.
    pub(crate) shots: crate::image_diff::History,
    /// The tabs' WebMCP tools and invocations (see `webmcp.rs`).
    pub(crate) webmcp: Arc<crate::webmcp::WebMcpState>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("browser", &self.browser)
            .finish_non_exhaustive()
    }
}

/// A tab's navigation state before an action that may navigate (see `Page::settling`).
#[derive(Clone, Debug)]
pub(crate) struct NavigationMarker {
    target_id: String,
    mark: NavigationMark,
    syncs: u64,
}

fn deadline_after(timeout: Duration) -> Instant {
    Instant::now() + timeout
}

impl Session {
    /// Binds a session to `browser`: adopts a tab (or, pinned on an attached browser, opens a
    /// fresh one) and attaches to it.
    pub async fn start(browser: Arc<Browser>, options: SessionOptions) -> Result<Session> {
        let enforcement = Arc::<crate::policy::Enforcement>::default();
        let intercepts = options.policy.fenced();
        let network = crate::network::NetworkState::new(
            enforcement.routes.clone(),
            intercepts,
            enforcement.hooks.clone(),
        );
        let session = Session {
            browser,
            downloads: crate::download::Downloads::new(options.page.download_dir.clone()),
            shots: crate::image_diff::History::default(),
            options,
            tabs: Mutex::new(TabTable::default()),
            refs: crate::refs::RefStore::default(),
            enforcement,
            network: Arc::new(network),
            pin_claim: Mutex::new(None),
            webmcp: Arc::default(),
        };
        crate::policy::start(
            session.browser.connection(),
            session.browser.is_owned(),
            &session.options.policy,
            &session.enforcement,
        )
        .await?;
        let (target, fresh) = session.initial_target().await?;
        if fresh {
            session.table().created.insert(target.clone());
        }
        session.bind(&target).await?;
        session.show_active_tab(&target).await;
        session.contain_open_pages().await?;
        session.start_page_setup().await?;
        Ok(session)
    }

    /// Whether this session's tab is a stage tab that must be hidden by hand. A stage's pinned
    /// tab on a browser it did not launch is a background tab: on full Chrome it sits behind
    /// the anchor's own tab, so Chrome paints nothing for it while no one watches (a live view
    /// turns on focus emulation to show it, ADR 0009). A headless shell has no background tabs,
    /// so each stage would paint at the page's rate for as long as it lives (an animated page:
    /// 180–280 ms of Chrome CPU a second per stage). There the tab's own window is minimized,
    /// which the shell treats as hidden, as full Chrome treats a tab behind another. ADR 0015.
    pub(crate) async fn hides_stage_tab_by_minimizing(&self) -> bool {
        self.options.pin_tab && !self.browser.is_owned() && self.browser.is_headless_shell().await
    }

    /// The browser's tabs that no other session has claimed.
    fn unclaimed_tabs(&self) -> Vec<TargetInfo> {
        self.browser
            .targets()
            .into_iter()
            .filter(TargetInfo::is_tab)
            .filter(|t| !self.claimed_by_other(&t.target_id))
            .collect()
    }

    /// The tab to bind at start, and whether it is fresh (created by us or the first tab of a
    /// Chrome we launched).
    async fn initial_target(&self) -> Result<(String, bool)> {
        let tabs = self.unclaimed_tabs();
        if let Some(handed) = &self.options.handed_target
            && tabs
                .iter()
                .any(|t| &t.target_id == handed && t.url == "about:blank" && !t.attached)
        {
            return Ok((handed.clone(), true));
        }
        if let Some(preferred) = &self.options.preferred_target
            && tabs.iter().any(|t| &t.target_id == preferred)
        {
            return Ok((preferred.clone(), false));
        }
        let adopt = if self.browser.is_owned() {
            // Our own Chrome: its first tab is ours.
            tabs.first().map(|t| t.target_id.clone())
        } else if self.options.pin_tab {
            None
        } else {
            tabs.iter()
                .find(|t| !t.attached)
                .or(tabs.first())
                .map(|t| t.target_id.clone())
        };
        // A Chrome with no window at all (started with `--no-startup-window`) only opens a tab
        // in a new window.
        let no_window = !self.browser.targets().iter().any(TargetInfo::is_tab);
        match adopt {
            Some(id) => Ok((id, self.browser.is_owned())),
            // A tab in a window of its own is created in front (and so focused) unless it is a
            // stage's: a stage never takes the front of a shared anchor.
            None => Ok((
                self.browser
                    .create_tab_placed(
                        "about:blank",
                        no_window,
                        !no_window || self.is_background_stage(),
                    )
                    .await?,
                true,
            )),
        }
    }

    fn table(&self) -> MutexGuard<'_, TabTable> {
        self.tabs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Attaches to `target_id` (if not yet) and makes it the active tab.
    pub(crate) async fn bind(&self, target_id: &str) -> Result<Arc<Tab>> {
        let claim = self.claim_for(target_id)?;
        let tab = self.attach_tab(target_id).await?;
        self.keep_claim(target_id, claim);
        self.activate(target_id);
        Ok(tab)
    }

    /// The session's attachment to `target_id` (attaching and fencing it if needed), without
    /// making it the active tab.
    async fn attach_tab(&self, target_id: &str) -> Result<Arc<Tab>> {
        let existing = self.table().attached.get(target_id).cloned();
        if let Some(tab) = existing
            && !tab.read(|st| st.detached)
        {
            return Ok(tab);
        }
        let fresh = self.table().created.contains(target_id);
        let tab = Tab::attach(
            self.browser.connection(),
            target_id,
            TabOptions {
                fresh,
                auto_dialog: self.options.auto_dialog,
            },
        )
        .await?;
        crate::policy::guard_tab(
            self.browser.connection(),
            tab.cdp(),
            target_id,
            &self.options.policy,
            &self.enforcement,
        )
        .await?;
        self.network.watch(&tab).await;
        if !self.options.page.no_webmcp {
            self.webmcp.watch(&tab).await;
        }
        self.prepare_tab(&tab).await?;
        self.table()
            .attached
            .insert(target_id.to_string(), tab.clone());
        Ok(tab)
    }

    fn activate(&self, target_id: &str) {
        let mut table = self.table();
        table.entry_for(target_id);
        table.active = Some(target_id.to_string());
    }

    /// Gives `to` the tab number and label of `from` and forgets `from` (its attachment too), so a
    /// replaced tab keeps its `tN` id. Used by `reopen_tab`.
    pub(crate) fn hand_over_tab(&self, from: &str, to: &str) {
        let mut table = self.table();
        let Some(old) = table.entries.iter().position(|e| e.target_id == from) else {
            table.attached.remove(from);
            return;
        };
        let old = table.entries.remove(old);
        let window = table.window_of(from);
        table.forget_window(from);
        table.windows.insert(to.to_string(), window);
        table.entries.retain(|e| e.target_id != to);
        table.entries.push(TabEntry {
            number: old.number,
            label: old.label,
            target_id: to.to_string(),
        });
        table.attached.remove(from);
    }

    /// The browser.
    pub fn browser(&self) -> &Arc<Browser> {
        &self.browser
    }

    /// The options.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// The dialog pending on the active tab, if any (no CDP call).
    pub fn active_dialog(&self) -> Option<crate::tab::Dialog> {
        let table = self.table();
        let active = table.active.as_ref()?;
        table.attached.get(active)?.dialog()
    }

    /// The attached tab for a target id, if this session attached it.
    pub fn attached_tab(&self, target_id: &str) -> Option<Arc<Tab>> {
        self.table().attached.get(target_id).cloned()
    }

    /// Forgets (and detaches from) an attached tab, keeping it active: the next `bind` attaches
    /// afresh. Used to step aside so Chrome's own dialog manager can act on the tab.
    pub(crate) async fn detach_tab(&self, target_id: &str) {
        let tab = self.table().attached.remove(target_id);
        if let Some(tab) = tab {
            let _ = tab.detach().await;
        }
    }

    /// The active tab's target id.
    pub fn active_target(&self) -> Option<String> {
        self.table().active.clone()
    }

    /// The active tab, usable for page commands. A pinned session whose tab is gone gets
    /// `TabGone`; an unpinned one falls back to another tab, like upstream.
    pub async fn active_tab(&self) -> Result<Arc<Tab>> {
        if !self.browser.is_alive() {
            return Err(EngineError::BrowserLost {
                reason: "the CDP connection is closed".into(),
            });
        }
        let (active, tab) = {
            let table = self.table();
            let active = table.active.clone();
            let tab = active
                .as_ref()
                .and_then(|id| table.attached.get(id).cloned());
            (active, tab)
        };
        if let Some(tab) = tab {
            // Read in place: every command comes through here, and a copy of the state would
            // copy its console and error buffers too.
            let detached = tab.read(|st| st.detached);
            let target_exists = self.browser.target(tab.target_id()).is_some();
            if !detached && target_exists {
                return Ok(tab);
            }
            if self.options.pin_tab {
                let last_url = tab.read(|st| st.url.clone());
                return Err(EngineError::TabGone {
                    target_id: tab.target_id().to_string(),
                    last_url: Some(last_url).filter(|u| !u.is_empty()),
                });
            }
        } else if let Some(active) = active
            && self.options.pin_tab
        {
            return Err(EngineError::TabGone {
                target_id: active,
                last_url: None,
            });
        }
        // Unpinned: fall back to a tab this session knows, else any tab, else a new one.
        let known: Vec<String> = self
            .table()
            .entries
            .iter()
            .map(|e| e.target_id.clone())
            .collect();
        let live = self.unclaimed_tabs();
        let pick = known
            .iter()
            .find(|id| live.iter().any(|t| &&t.target_id == id))
            .cloned()
            .or_else(|| live.first().map(|t| t.target_id.clone()));
        let target = match pick {
            Some(target) => target,
            None => {
                let created = self.browser.create_tab("about:blank", false).await?;
                self.table().created.insert(created.clone());
                created
            }
        };
        let tab = self.bind(&target).await?;
        self.show_active_tab(&target).await;
        Ok(tab)
    }

    /// Every tab of the browser, numbered for this session, with fresh titles.
    pub async fn tab_list(&self) -> Result<Vec<TabListing>> {
        self.browser.refresh_targets().await?;
        Ok(self.tabs())
    }

    /// Every tab of the browser, numbered for this session (titles as last reported).
    pub fn tabs(&self) -> Vec<TabListing> {
        let targets: Vec<TargetInfo> = self
            .browser
            .targets()
            .into_iter()
            .filter(TargetInfo::is_tab)
            .collect();
        let mut table = self.table();
        let active = table.active.clone();
        let mut out = Vec::new();
        for target in targets {
            let entry = table.entry_for(&target.target_id);
            out.push(TabListing {
                tab_id: format!("t{}", entry.number),
                label: entry.label.clone(),
                title: target.title.clone(),
                url: target.url.clone(),
                kind: "page".into(),
                active: active.as_deref() == Some(target.target_id.as_str()),
                target_id: target.target_id.clone(),
            });
        }
        out.sort_by_key(|t| t.tab_id[1..].parse::<u32>().unwrap_or(u32::MAX));
        out
    }

    fn resolve_tab_ref(&self, reference: &str) -> Result<String> {
        let tabs = self.tabs();
        if reference.parse::<u64>().is_ok() {
            return Err(EngineError::TabPosition {
                reference: reference.to_string(),
            });
        }
        let found = tabs
            .iter()
            .find(|t| t.tab_id == reference)
            .or_else(|| tabs.iter().find(|t| t.label.as_deref() == Some(reference)))
            .or_else(|| {
                tabs.iter()
                    .find(|t| t.target_id.eq_ignore_ascii_case(reference))
            });
        found
            .map(|t| t.target_id.clone())
            .ok_or_else(|| EngineError::TabNotFound {
                reference: reference.to_string(),
            })
    }

    /// `tab new [url]`: opens a tab, makes it active (this rebinds a pinned session).
    pub async fn tab_new(&self, url: Option<&str>, label: Option<&str>) -> Result<TabListing> {
        self.open_tab(url, label, false).await
    }

    /// `window new`: a new browser window whose tab becomes the active tab.
    pub async fn window_new(&self) -> Result<TabListing> {
        self.open_tab(None, None, true).await
    }

    async fn open_tab(
        &self,
        url: Option<&str>,
        label: Option<&str>,
        new_window: bool,
    ) -> Result<TabListing> {
        if let Some(label) = label {
            validate_label(label)?;
            if self
                .table()
                .entries
                .iter()
                .any(|e| e.label.as_deref() == Some(label))
            {
                return Err(EngineError::Invalid(format!(
                    "Tab label already in use: {label}"
                )));
            }
        }
        if let Some(url) = url
            && !url.is_empty()
        {
            self.options.policy.check_navigation(url)?;
        }
        // In front, as a browser opens a tab (`window new`: a focused window), unless this is a
        // stage, which never takes the front of a shared anchor.
        let target = self
            .browser
            .create_tab_placed("about:blank", new_window, self.is_background_stage())
            .await?;
        {
            let mut table = self.table();
            table.created.insert(target.clone());
            let window = if new_window {
                table.last_window += 1;
                table.last_window
            } else {
                let active = table.active.clone().unwrap_or_default();
                table.window_of(&active)
            };
            table.windows.insert(target.clone(), window);
        }
        // The new tab becomes active once it has navigated, so whoever follows the active tab
        // (a live view) sees it at its URL, never at the interim about:blank.
        let claim = self.claim_for(&target)?;
        let tab = self.attach_tab(&target).await?;
        let navigated = match url.filter(|u| !u.is_empty() && *u != "about:blank") {
            Some(url) => self
                .navigate_tab(&tab, url, WaitUntil::Load, None)
                .await
                .map(|_| ()),
            None => Ok(()),
        };
        self.keep_claim(&target, claim);
        self.activate(&target);
        self.show_active_tab(&target).await;
        if let Some(label) = label {
            let mut table = self.table();
            if let Some(entry) = table.entries.iter_mut().find(|e| e.target_id == target) {
                entry.label = Some(label.to_string());
            }
        }
        navigated?;
        self.listing_of(target)
    }

    /// The `tab list` row of `target`, or `TabGone` when it is no longer listed.
    fn listing_of(&self, target: String) -> Result<TabListing> {
        self.tabs()
            .into_iter()
            .find(|t| t.target_id == target)
            .ok_or(EngineError::TabGone {
                target_id: target,
                last_url: None,
            })
    }

    /// `tab <ref>`: makes another tab active.
    pub async fn tab_switch(&self, reference: &str) -> Result<TabListing> {
        let target = self.resolve_tab_ref(reference)?;
        self.bind(&target).await?;
        self.show_active_tab(&target).await;
        self.listing_of(target)
    }

    /// `tab close [ref]`: closes the active tab (default) or the given one.
    pub async fn tab_close(&self, reference: Option<&str>) -> Result<TabListing> {
        let target = match reference {
            Some(r) => self.resolve_tab_ref(r)?,
            None => self
                .active_target()
                .ok_or_else(|| EngineError::Page("No active tab to close".into()))?,
        };
        // A stage never closes another stage's tab; an unpinned session (a Host's anchor, which
        // owns the browser) may, as upstream: the stage then answers `tab_gone`.
        if self.options.pin_tab {
            self.ensure_not_claimed_by_other(&target)?;
        }
        let listing = self.tabs().into_iter().find(|t| t.target_id == target);
        let live_tabs = self
            .browser
            .targets()
            .into_iter()
            .filter(TargetInfo::is_tab)
            .count();
        if live_tabs <= 1 && self.browser.is_owned() {
            return Err(EngineError::Invalid("Cannot close the last tab".into()));
        }
        let Some(listing) = listing else {
            return Err(EngineError::TabGone {
                target_id: target,
                last_url: None,
            });
        };
        self.browser.close_target(&target).await?;
        // Wait for Chrome to report it gone, so the next command sees a consistent list.
        let mut changes = self.browser.target_changes();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while self.browser.target(&target).is_some() && tokio::time::Instant::now() < deadline {
            let _ = tokio::time::timeout_at(deadline, changes.changed()).await;
        }
        self.release_claim(&target);
        if self.options.pin_tab {
            self.close_popups_of(&target).await;
        }
        let successor = {
            let mut table = self.table();
            table.attached.remove(&target);
            table.forget_window(&target);
            let was_active = table.active.as_deref() == Some(target.as_str());
            if was_active && !self.options.pin_tab {
                table.active = None;
                // Like upstream: the tab that took the closed one's place becomes active (the
                // next one, or the previous one when the last was closed).
                let at = table.entries.iter().position(|e| e.target_id == target);
                let live: Vec<String> = table
                    .entries
                    .iter()
                    .filter(|e| e.target_id != target)
                    .filter(|e| self.browser.target(&e.target_id).is_some())
                    .filter(|e| !self.claimed_by_other(&e.target_id))
                    .map(|e| e.target_id.clone())
                    .collect();
                let before = at.map_or(0, |at| {
                    table.entries[..at]
                        .iter()
                        .filter(|e| live.contains(&e.target_id))
                        .count()
                });
                live.get(before).or(live.last()).cloned()
            } else {
                None
            }
        };
        if let Some(next) = successor {
            match self.bind(&next).await {
                Ok(_) => self.show_active_tab(&next).await,
                Err(err) => tracing::debug!(%err, "cannot make the next tab active after a close"),
            }
        }
        Ok(listing)
    }

    /// Ends the session's hold on the browser: an owned browser is closed gracefully, an
    /// attached one is detached from (its tabs stay).
    pub async fn close(&self) -> abx_chrome::CloseReceipt {
        let tabs: Vec<Arc<Tab>> = self.table().attached.drain().map(|(_, t)| t).collect();
        if !self.browser.is_owned() {
            for tab in &tabs {
                let _ = tab.detach().await;
            }
        }
        drop(tabs);
        let claim = self.pin_claim.lock().map(|mut c| c.take()).ok().flatten();
        drop(claim);
        self.browser.close().await
    }
}

fn validate_label(label: &str) -> Result<()> {
    let ok = label
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !(label.starts_with('t') && label[1..].parse::<u64>().is_ok());
    if ok {
        Ok(())
    } else {
        Err(EngineError::Invalid(format!(
            "Invalid tab label '{label}': start with a letter, use letters, digits, '_' or '-', and not the t<N> form"
        )))
    }
}
