//! The abx browser engine: the library the Host links.
//!
//! A [`Browser`] is either launched and owned by us ([`Browser::launch`], closed gracefully with
//! cookies flushed and every process verified gone) or attached over CDP ([`Browser::attach`],
//! detached on close, never launched as a fallback). Target bookkeeping uses discovery only, so
//! other clients' tabs are never attached, paused or Network-enabled.
//!
//! A [`Session`] is what one agent drives: its tabs (`t1`, `t2`, … never reused), its active
//! tab, optionally *pinned* (a fresh tab on attach, never drifting, `tab_gone` when it closes,
//! claimed across processes so no other session can take it: [`claim`]), and its network
//! [`policy`] (hard domain allowlist, proxy credentials, denied permission prompts).
//! Each attached [`Tab`] runs an event pump that keeps its state (URL, document, lifecycle,
//! dialog, console, errors, crash); commands wait on that state with deadlines, so a dialog, a
//! closed tab or a crashed renderer ends a wait at once with a typed [`EngineError`].
//!
//! Page work goes through a [`Page`]: `session.page(timeout)` takes one command's view of the
//! active tab (and its `frame` scope) with that command's deadline, resolved once; its methods
//! (`click`, `fill`, `press`, `find`, `get_text`, `evaluate`, `wait_selector`, `snapshot`,
//! `screenshot`, …) take no timeout of their own. A click or key press that starts a navigation
//! waits for the new page before it returns ([`SessionOptions::settle_navigation`]). What
//! outlives one command stays on [`Session`]: tabs, navigation, frame selection, cookies,
//! storage, emulation, network, dialogs, downloads, close.
//!
//! ```no_run
//! # async fn demo() -> Result<(), abx_engine::EngineError> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use abx_engine::{Browser, ClickOptions, Session, SessionOptions, WaitUntil};
//! let browser = Arc::new(Browser::launch(abx_chrome::LaunchOptions::default()).await?);
//! let session = Session::start(browser.clone(), SessionOptions::default()).await?;
//! let loaded = session.navigate("http://127.0.0.1:8080/", WaitUntil::Load, None).await?;
//! println!("{} — {}", loaded.title, loaded.url);
//! let page = session.page(Some(Duration::from_secs(10))).await?;
//! page.fill("#name", "Ada").await?;
//! page.click("button[type=submit]", &ClickOptions::default()).await?;
//! println!("{}", page.get_text("#greeting").await?.text);
//! let receipt = session.close().await;
//! assert!(receipt.verified);
//! # Ok(()) }
//! ```

mod a11y;
mod actions;
mod audit;
mod browser;
mod capture;
pub mod claim;
mod clipboard;
pub mod dates;
mod dialog;
pub mod discover;
mod download;
pub mod element;
pub mod emulation;
mod error;
#[cfg(test)]
mod fake_chrome;
mod find;
mod frame;
pub mod glob;
mod image_diff;
mod input;
mod js;
mod locate;
pub mod network;
mod page_setup;
mod pointer;
pub mod policy;
mod popup;
mod react;
mod read;
pub mod refs;
mod reopen;
mod session;
mod snapshot;
pub mod storage_state;
mod tab;
pub mod tls;
mod touch;
mod trace;
mod webmcp;

pub use actions::{
    Checked, ClickOptions, Clicked, Dragged, Filled, Focused, Highlighted, Hovered, Inserted,
    KeyDown, KeyUp, MouseDown, MouseMoved, MouseUp, Pressed, Scrolled, ScrolledIntoView, Selected,
    Typed, Unchecked, Uploaded, Wheeled,
};
pub use browser::{AttachOptions, Browser, TargetInfo, endpoint_url};
pub use capture::{AnnotatedScreenshot, Annotation, PdfOptions};
pub use claim::{ClaimDir, ClaimError, ClaimHolder, TabClaim};
pub use clipboard::{ClipboardCopied, ClipboardPasted, ClipboardText, ClipboardWritten};
pub use dialog::DialogStatus;
pub use download::Downloaded;
pub use error::{EngineError, Result, Unanswerable};
pub use find::{
    AttributeOf, CountOf, FindAction, Found, HtmlOf, IsChecked, IsEnabled, IsVisible, Locator,
    StylesOf, TextOf, ValueOf,
};
pub use frame::FrameSelected;
pub use image_diff::{ConditionalShot, ImageDiff, diff_images};
pub use input::InputEvent;
pub use page_setup::PageSetup;
pub use pointer::Motion;
pub use policy::{
    BlockRule, BlockedBy, BlockedNavigation, BlockedSink, DomainFilter, GuardFailure, Policy,
    ProxyAuth, SiteBlocklist,
};
pub use read::{ReadError, ReadOptions, ReadPage, UrlRead, UrlReadOptions, html_to_text, read_url};
pub use session::{
    DeferredNavigation, DeferredWait, Evaluated, LOAD_AFTER_PARSE, Navigated, Page,
    ScreenshotOptions, Session, SessionOptions, TabListing, WaitUntil,
};
pub use snapshot::delta::{DeltaSnapshot, RefChange, SnapshotDelta, TreeChange};
pub use snapshot::{RefInfo, Snapshot, SnapshotDiff, SnapshotOptions, SnapshotSource, diff_text};
pub use tab::{
    ConsoleMessage, Dialog, DialogEvent, PageError, PageEvent, Tab, TabOptions, TabState,
};
pub use touch::{Swiped, Tapped};

pub use a11y::{AXE_VERSION, a11y_audit};
pub use abx_chrome::{BrowserBinary, BrowserKind, CloseReceipt, LaunchOptions};
pub use audit::web_vitals;
pub use react::{
    REACT_DEVTOOLS_HOOK, ReactError, ReactQuery, RendersStarted, react_query, react_renders_start,
};
pub use trace::{
    CpuProfile, DEFAULT_PROFILE_CATEGORIES, DEFAULT_TRACE_CATEGORIES, Finished as TraceFinished,
    Trace,
};
pub use webmcp::{WebMcpError, WebMcpInvocation, WebMcpTool, tools_report as webmcp_tools_report};
