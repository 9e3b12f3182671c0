//! Chrome as a process we own.
//!
//! [`Chrome::launch`] finds the executable (`AGENT_BROWSER_EXECUTABLE_PATH` as
//! [`LaunchOptions::executable`]; else, for a headless launch that needs nothing only full Chrome
//! has, `chromium-headless-shell` or `chrome-headless-shell` on `PATH`; else chromium,
//! chromium-browser, google-chrome, google-chrome-stable, chrome — see [`select_browser`]; a
//! persistent profile keeps the kind it first ran with), builds upstream agent-browser's argument
//! set plus the caller's,
//! uses a persistent profile or a throw-away temp profile, starts a private Xvfb for headed Chrome
//! without a display, puts Chrome in its own process group, and reads the DevTools address from
//! `DevToolsActivePort` (no stderr scraping). An orphan guard (see [`guard`]) takes Chrome, Xvfb
//! and the temp profile down within a second if the owning process dies, even by SIGKILL.
//!
//! [`Chrome::close`] is the graceful path that keeps cookies: `Browser.close`, a bounded wait,
//! SIGTERM then SIGKILL to the group, verification that no process of the group survives, then
//! Xvfb and the temp profile. It returns a [`CloseReceipt`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), abx_chrome::LaunchError> {
//! let chrome = abx_chrome::Chrome::launch(abx_chrome::LaunchOptions::default()).await?;
//! println!("DevTools at {}", chrome.ws_url());
//! let receipt = chrome.close(None).await;
//! assert!(receipt.verified);
//! # Ok(()) }
//! ```

mod args;
mod ca_trust;
mod discovery;
pub mod encoder;
pub mod group;
pub mod guard;
mod launch;
mod profile_in_use;
mod xvfb;

pub use args::{DEFAULT_ARGS, build_args, build_args_for, split_user_args};
pub use discovery::{
    BrowserBinary, BrowserKind, CANDIDATES, Choice, HEADLESS_SHELL_CANDIDATES, PROFILE_RECORD,
    find_chrome, full_chrome_needs, profile_kind, select_browser, skip_passthrough_wrapper,
};
pub use launch::{Chrome, CloseReceipt, LaunchError, LaunchOptions, Proxy, Transport};
pub use profile_in_use::{ProfileUser, profile_user};
