//! The abx browser engine: the library the Host links.
//!
//! A [`Browser`] is either launched and owned by us ([`Browser::launch`], closed gracefully with
//! cookies flushed and every process verified gone) or attached over CDP ([`Browser::attach`],
//! detached on close, never launched as a fallback). Target bookkeeping uses discovery only, so
//! other clients' tabs are never attached, paused or Network-enabled.
//!
//! A [`Session`] is what one agent drives: its tabs (`t1`, `t2`, … never reused), its active
//! tab, optionally *pinned* (a fresh tab on attach, never drifting, `tab_gone` when it closes).
//! Each attached [`Tab`] runs an event pump that keeps its state (URL, document, lifecycle,
//! dialog, console, errors, crash); commands wait on that state with deadlines, so a dialog, a
//! closed tab or a crashed renderer ends a wait at once with a typed [`EngineError`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), abx_engine::EngineError> {
//! use std::sync::Arc;
//! use abx_engine::{Browser, Session, SessionOptions, WaitUntil};
//! let browser = Arc::new(Browser::launch(abx_chrome::LaunchOptions::default()).await?);
//! let session = Session::start(browser.clone(), SessionOptions::default()).await?;
//! let page = session.navigate("http://127.0.0.1:8080/", WaitUntil::Load, None).await?;
//! println!("{} — {}", page.title, page.url);
//! let receipt = session.close().await;
//! assert!(receipt.verified);
//! # Ok(()) }
//! ```

mod browser;
pub mod claim;
pub mod element;
mod error;
pub mod glob;
pub mod policy;
pub mod refs;
mod session;
mod tab;

pub use browser::{AttachOptions, Browser, TargetInfo, endpoint_url};
pub use claim::{ClaimDir, ClaimHolder};
pub use error::{EngineError, Result};
pub use policy::{DomainFilter, Policy, ProxyAuth};
pub use session::{
    Evaluated, Navigated, ScreenshotOptions, Session, SessionOptions, TabListing, WaitUntil,
};
pub use tab::{ConsoleMessage, Dialog, DialogEvent, PageError, Tab, TabOptions, TabState};

pub use abx_chrome::{CloseReceipt, LaunchOptions};
