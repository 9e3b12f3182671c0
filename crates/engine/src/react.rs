//! React introspection of the session's page: the fibers React commits to the DevTools global
//! hook, read by page JavaScript. [`REACT_DEVTOOLS_HOOK`] is abx's own hook (not React's
//! DevTools backend), installed as an init script when a session launches with `--enable
//! react-devtools`; React finds it when it boots and reports every commit to it.
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> Result<(), abx_engine::ReactError> {
//! let tree = abx_engine::react_query(&session.page(None).await?, abx_engine::ReactQuery::Tree).await?;
//! println!("{} components", tree["nodes"].as_array().map_or(0, Vec::len));
//! # Ok(()) }
//! ```

use serde_json::{Value, json};

use crate::error::EngineError;
use crate::session::Page;

/// The DevTools global hook (`window.__REACT_DEVTOOLS_GLOBAL_HOOK__`) as an init script.
pub const REACT_DEVTOOLS_HOOK: &str = include_str!("react/hook.js");

/// The queries, a function of `(op, arg)`.
const QUERY_JS: &str = include_str!("react/query.js");

/// What to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReactQuery {
    /// The component tree: `{nodes: [{id, parent, depth, tag, name, key}]}` (parent 0 for a root).
    Tree,
    /// One component: `{id, name, tag, key, parent, props, state, hooks, source}`.
    Inspect(i64),
    /// Start recording renders (every commit after this).
    RendersStart,
    /// Stop and report: `{elapsed, commits, fps, totalRenders, totalMounts, totalReRenders,
    /// totalComponents, components: [{name, count, mounts, reRenders, instanceCount, changes,
    /// changeSummary}]}`.
    RendersStop,
    /// The Suspense boundaries: `{boundaries: [{id, parent, key, suspended, dynamic, children}]}`.
    Suspense,
}

/// Why a React query has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ReactError {
    /// The page has no DevTools global hook.
    #[error("the page has no React DevTools hook (install it before React boots)")]
    NoHook,
    /// The hook is there but no React renderer committed a root to it.
    #[error("no React renderer has committed a root to the DevTools hook")]
    NoRenderer,
    /// No component with that id in the current tree.
    #[error("no React component with id {0} in the current tree")]
    NotFound(i64),
    /// `RendersStop` without a recording.
    #[error("no render recording is running on this page")]
    NotRecording,
    /// The page could not be reached.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The page script that answers `query`.
fn query_script(query: ReactQuery) -> String {
    let (op, arg) = match query {
        ReactQuery::Tree => ("tree", Value::Null),
        ReactQuery::Inspect(id) => ("inspect", json!(id)),
        ReactQuery::RendersStart => ("renders_start", Value::Null),
        ReactQuery::RendersStop => ("renders_stop", Value::Null),
        ReactQuery::Suspense => ("suspense", Value::Null),
    };
    format!("({QUERY_JS})({}, {arg})", json!(op))
}

/// What [`react_renders_start`] set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RendersStarted {
    /// The init script that starts a recording in every new document of the session
    /// (`Session::remove_init_script` takes it).
    pub identifier: String,
    /// Whether the current page records now (false: it has no DevTools hook).
    pub recording_now: bool,
}

/// Starts recording renders on the page and, through an init script, in every new document of
/// the session, so a recording survives navigations. A page without the DevTools hook is not an
/// error (upstream's `react renders start` succeeds there too): it records nothing, and a later
/// document that has the hook records from its first commit.
pub async fn react_renders_start(page: &Page<'_>) -> Result<RendersStarted, ReactError> {
    // The hook's own init script (added at launch) runs first, so the listener is in place
    // before React boots; a document without the hook just answers `no_hook`.
    let identifier = page
        .session
        .add_init_script(&query_script(ReactQuery::RendersStart))
        .await?;
    let recording_now = match react_query(page, ReactQuery::RendersStart).await {
        Ok(_) => true,
        Err(ReactError::NoHook) => false,
        Err(err) => return Err(err),
    };
    Ok(RendersStarted {
        identifier,
        recording_now,
    })
}

/// Runs `query` on the session's page.
pub async fn react_query(page: &Page<'_>, query: ReactQuery) -> Result<Value, ReactError> {
    let value = page.evaluate(&query_script(query)).await?.value;
    match value.get("error").and_then(Value::as_str) {
        None if value.is_object() => Ok(value),
        None => Err(EngineError::Chrome(format!("react: the page returned {value}")).into()),
        Some("no_hook") => Err(ReactError::NoHook),
        Some("no_renderer") => Err(ReactError::NoRenderer),
        Some("not_found") => Err(ReactError::NotFound(match query {
            ReactQuery::Inspect(id) => id,
            _ => 0,
        })),
        Some("not_recording") => Err(ReactError::NotRecording),
        Some(other) => Err(EngineError::Chrome(format!("react: {other}")).into()),
    }
}
