//! Typed errors of the engine, worded for a library user. The daemon maps each to upstream's
//! text (with its CLI advice) and `code` in one place (`abx_daemon::errors`).

use std::time::Duration;

/// Why an engine operation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The session's pinned tab was closed (by someone else or by the page).
    #[error(
        "the session's tab is gone (target {target_id}); open a new tab (Session::tab_new) or switch \
         to an existing one (Session::tab_switch)"
    )]
    TabGone {
        /// The CDP target id of the lost tab.
        target_id: String,
        /// Its last known URL.
        last_url: Option<String>,
    },
    /// The browser process or its connection is gone.
    #[error("browser_lost: the browser is gone ({reason})")]
    BrowserLost {
        /// What was observed.
        reason: String,
    },
    /// Nothing answered as a DevTools endpoint at the address given to
    /// [`crate::Browser::attach`] (no browser was ever reached there).
    #[error("no DevTools endpoint answers at {address}: {reason}")]
    EndpointUnreachable {
        /// `host:port` (or the URL) that was tried.
        address: String,
        /// What the last attempt observed.
        reason: String,
    },
    /// The tab's renderer crashed.
    #[error("target_crashed: the page crashed (target {target_id}); open a new tab or reload")]
    TargetCrashed {
        /// The crashed target.
        target_id: String,
    },
    /// An operation hit its deadline.
    #[error("{what} timed out after {} ms", after.as_millis())]
    Timeout {
        /// What was being waited for.
        what: String,
        /// The deadline.
        after: Duration,
    },
    /// A JavaScript dialog blocks the page.
    #[error(
        "a JavaScript {kind} dialog is blocking the page: \"{message}\"; answer it \
         (Session::dialog_accept or Session::dialog_dismiss) before retrying {command}"
    )]
    DialogBlocking {
        /// alert | confirm | prompt | beforeunload.
        kind: String,
        /// The dialog's message.
        message: String,
        /// The operation that could not run.
        command: String,
    },
    /// No dialog is open.
    #[error("No dialog is showing")]
    NoDialog,
    /// A dialog exists but cannot be answered this way.
    #[error("{0}")]
    DialogUnanswerable(Unanswerable),
    /// A ref from an earlier snapshot no longer points at its element.
    #[error("ref {reference} is stale: {reason}; a new snapshot gives fresh refs")]
    StaleRef {
        /// The ref, e.g. `@e3`.
        reference: String,
        /// Why it is stale.
        reason: String,
    },
    /// An unknown ref.
    #[error("Unknown ref: {0}")]
    UnknownRef(String),
    /// No element matches the selector.
    #[error(
        "Element not found: {selector}. Verify the selector, role, or name is correct and the element \
         exists in the DOM."
    )]
    NotFound {
        /// The selector.
        selector: String,
    },
    /// `find <text|label|placeholder|alt|title|testid> <value>` matched nothing (upstream's words).
    #[error(
        "No element found by {strategy} '{value}'. Verify the selector, role, or name is correct \
         and the element exists in the DOM."
    )]
    NoElementBy {
        /// `text`, `label`, `placeholder`, `alt`, `title` or `testid`.
        strategy: String,
        /// What was looked for.
        value: String,
    },
    /// Another element would receive the click.
    #[error(
        "Element '{selector}' is covered by {cover} at its click point ({x:.0}, {y:.0}); scroll, close the overlay, or pick another element"
    )]
    Covered {
        /// The selector.
        selector: String,
        /// A short description of the covering element.
        cover: String,
        /// Click point x.
        x: f64,
        /// Click point y.
        y: f64,
    },
    /// The element moved between the hit test and the click, every time it was tried; the
    /// click guard blocked the events that landed elsewhere, so nothing was clicked.
    #[error(
        "Click on '{selector}' landed on {landed} instead, {attempts} times (the page kept moving or covering the element); the events were blocked, nothing was clicked"
    )]
    ClickIntercepted {
        /// The selector.
        selector: String,
        /// A short description of where the last attempt landed.
        landed: String,
        /// How many clicks were tried.
        attempts: u32,
    },
    /// Navigation failed.
    #[error("Navigation failed: {0}")]
    Navigation(String),
    /// The domain policy refused a URL.
    #[error("Domain '{host}' is not in the allowed domains list")]
    DomainBlocked {
        /// The refused host.
        host: String,
    },
    /// The Host's site policy blocks this host (`blocked_sites`).
    #[error("Site '{host}' is blocked by the Host's site policy")]
    SiteBlocked {
        /// The refused host.
        host: String,
    },
    /// A URL without a host cannot be checked against the allowlist.
    #[error("No hostname in URL: {0}")]
    NoHostname(String),
    /// Another live session has pinned this tab (beyond upstream, issue #1790).
    #[error(
        "tab {target_id} is pinned by another session ({holder}); a pinned tab cannot be taken over \
         or closed by another session (open a tab of your own with Session::tab_new)"
    )]
    TabPinned {
        /// The tab's CDP target id.
        target_id: String,
        /// Who holds it (session name, pid).
        holder: String,
    },
    /// A cookie without a URL or domain cannot be scoped to the page: the page is not http(s).
    #[error(
        "a cookie without a url or domain needs an http(s) page to scope it to (the page is {page_url})"
    )]
    CookieNeedsUrl {
        /// The active page's URL.
        page_url: String,
    },
    /// A tab reference was a position (`2`); tabs are referred to by stable id (`t2`), label or
    /// target id.
    #[error(
        "expected a tab id like t2, a label or a target id, not a position ({reference}); \
         Session::tab_list gives the stable ids"
    )]
    TabPosition {
        /// The reference as given.
        reference: String,
    },
    /// No tab has this id, label or target id.
    #[error("Tab not found: {reference}")]
    TabNotFound {
        /// The reference as given.
        reference: String,
    },
    /// Opening a link in a new tab needs an element inside a link.
    #[error("'{selector}' is not inside an element with an href, so there is no link to open")]
    NotALink {
        /// The selector.
        selector: String,
    },
    /// A JavaScript exception.
    #[error("Evaluation error: {0}")]
    Evaluation(String),
    /// Extra HTTP headers were given for a URL without an origin (`about:blank`, `data:`, ...):
    /// they are scoped to an origin.
    #[error("extra HTTP headers need a URL with an origin, got {url}")]
    HeadersNeedOrigin {
        /// The URL as given.
        url: String,
    },
    /// The caller gave an invalid argument (an unknown name, a value out of range, a selector
    /// that does not parse, an element of the wrong kind for the operation).
    #[error("{0}")]
    Invalid(String),
    /// Chrome, or a script the engine ran in the page, answered in a form the engine cannot use
    /// (a missing field, data that does not decode). Not the caller's mistake.
    #[error("{0}")]
    Chrome(String),
    /// The page is not in a state the operation needs, or changed under it: the element is
    /// disabled or has no box, the frame was removed or has no document, the tab closed or has
    /// no URL, a download was canceled.
    #[error("{0}")]
    Page(String),
    /// A local file or directory could not be written (downloads).
    #[error("{0}")]
    Io(String),
    /// Data the engine built itself could not be encoded (a bug, not the caller's mistake).
    #[error("{0}")]
    Internal(String),
    /// The operation was cancelled (e.g. by `close`).
    #[error("cancelled: {0}")]
    Cancelled(String),
    /// Launching Chrome failed.
    #[error("{0}")]
    Launch(String),
    /// A CDP call failed in a way no other variant describes.
    #[error(transparent)]
    Cdp(abx_cdp::Error),
}

/// Why a JavaScript dialog cannot be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unanswerable {
    /// It opened before this session attached to the tab: Chrome lets only the client that was
    /// attached then accept it (dismissing still works).
    #[error(
        "this dialog opened before this session attached to the tab; Chrome only lets the client \
         that was attached when it opened answer it, so it can be dismissed but not accepted"
    )]
    OpenedBeforeAttach,
    /// It stayed when the tab was hidden, as a `beforeunload` dialog does; only closing the tab
    /// clears it.
    #[error(
        "the dialog did not go away when the tab was hidden; this is what a beforeunload dialog \
         does, and only closing the tab clears it"
    )]
    Beforeunload,
}

impl EngineError {
    /// The machine-readable `code` upstream puts next to the message, when there is one.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            EngineError::TabGone { .. } => Some("tab_gone"),
            EngineError::BrowserLost { .. } => Some("browser_lost"),
            EngineError::TargetCrashed { .. } => Some("target_crashed"),
            EngineError::Timeout { .. } => Some("timeout"),
            EngineError::DialogBlocking { .. } => Some("dialog_blocking"),
            EngineError::StaleRef { .. } => Some("stale_ref"),
            EngineError::DomainBlocked { .. } | EngineError::NoHostname(_) => {
                Some("domain_blocked")
            }
            EngineError::SiteBlocked { .. } => Some("site_blocked"),
            EngineError::TabPinned { .. } => Some("tab_pinned"),
            EngineError::Covered { .. } | EngineError::ClickIntercepted { .. } => Some("covered"),
            EngineError::Cancelled(_) => Some("cancelled"),
            _ => None,
        }
    }
}

impl From<abx_cdp::Error> for EngineError {
    fn from(err: abx_cdp::Error) -> Self {
        match err {
            abx_cdp::Error::ConnectionClosed { reason } => EngineError::BrowserLost { reason },
            abx_cdp::Error::Timeout { method, after } => EngineError::Timeout {
                what: format!("CDP command {method}"),
                after,
            },
            other => EngineError::Cdp(other),
        }
    }
}

/// Engine result.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;
