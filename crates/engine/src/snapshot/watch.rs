//! The unchanged-page fast path: a second `snapshot` of a page that did not change answers from
//! the first one, in about the time of `get url`, instead of reading Chrome's whole
//! accessibility tree again.
//!
//! A full snapshot first *arms* a watcher ([`WATCH_FN`]) in an isolated world of the main
//! document, sent on the socket before the tree is read, so anything that happens while it is
//! read counts as a change. The watcher marks the page changed on any DOM mutation (the document
//! and every open shadow root; our own cursor-scan tags excepted), on the events behind changes
//! that are not mutations (input, focus, hover, resources loading, CSS animations and
//! transitions, popovers, fragment moves, viewport and media changes), and compares form
//! controls' values and the style sheets' rule counts, which scripts can change silently. The
//! next snapshot with the same options asks it once (`check`); unchanged, it answers with the
//! stored snapshot and the same refs. The watcher also tells the session of the first change
//! after an arm, through a binding of its world ([`BINDING`]), and looks for silent changes
//! (values, style rules) on a 50 ms timer: while it told nothing and nothing was sent to the
//! page since the snapshot was kept, the stored snapshot answers without asking (ADR 0019,
//! "Fifth pass").
//!
//! Each child frame the snapshot read gets a watcher of its own, in a world of that frame's
//! document (through the frame's own session for a cross-site frame): the check asks them all
//! at once, and a frame that navigated has lost its world, which fails the check.
//!
//! It only vouches for what it can see: a custom element without an open shadow root (a
//! closed shadow tree is invisible to scripts), a frame that could not be read or watched, a
//! tab scoped to a frame, a changed document, refs reassigned by another snapshot since, and
//! emulation changes all take the full path. `ABX_SNAPSHOT_CACHE=0` turns it off.

mod cache;

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::page;
use abx_cdp::protocol::js_protocol::runtime;
use serde_json::json;

use super::{Snapshot, SnapshotOptions};
use crate::js::PageFn;

/// The watcher: `arm` before a full snapshot, `check` before answering from it.
pub(crate) const WATCH_FN: PageFn = PageFn::new(include_str!("watch.js"));

/// The isolated world's name (visible in DevTools' context list).
pub(crate) const WORLD: &str = "abx-snapshot-watch";

/// The binding the watcher calls on the first change after an arm (exposed in the snapshot's
/// world only: the page cannot see or call it). Chrome reports each call as
/// `Runtime.bindingCalled` on the tab's session ([`crate::tab::TabState::snapshot_pushes`]).
pub(crate) const BINDING: &str = "__abxSnapshotChanged";

/// `Runtime.addBinding` of [`BINDING`] in the snapshot's world of every frame of the session,
/// now and in later documents.
pub(crate) fn binding_in_world() -> runtime::AddBindingParams {
    runtime::AddBindingParams {
        execution_context_name: Some(WORLD.into()),
        ..runtime::AddBindingParams::new(BINDING)
    }
}

/// Has Chrome make the snapshot's world in every new document of the session's frames (and in
/// the current ones), as each document is created: the context is then reported by
/// `Runtime.executionContextCreated` ([`crate::tab::TabState::snapshot_worlds`]) and the
/// first snapshot of a page does not wait for one `Page.createIsolatedWorld` per frame, each of
/// which builds a new context (about 1.3 ms in the renderer, one after another; Playwright
/// makes its utility world the same way).
pub(crate) fn world_on_new_documents() -> page::AddScriptToEvaluateOnNewDocumentParams {
    page::AddScriptToEvaluateOnNewDocumentParams {
        world_name: Some(WORLD.into()),
        run_immediately: Some(true),
        ..page::AddScriptToEvaluateOnNewDocumentParams::new("")
    }
}

/// Per-tab state of the fast path (kept with the tab's refs).
#[derive(Default)]
pub(crate) struct WatchState {
    /// The watcher's world in the main document: (loader id, execution context id).
    world: Option<(String, i64)>,
    /// The watchers' worlds in child frames, by frame id: (loader id of the document it was
    /// made in, execution context id). Reused while the frame shows that document, so frames
    /// do not collect a new world per snapshot.
    frame_worlds: std::collections::HashMap<String, (String, i64)>,
    /// The last full snapshot the watcher vouches for.
    cached: Option<Cached>,
}

struct Cached {
    options: SnapshotOptions,
    loader: String,
    epoch: u64,
    assigns: u64,
    /// The tab's count of watcher pushes before the watchers were armed (or last asked).
    pushes: u64,
    /// Messages sent on the tab's session when the snapshot was kept (or last confirmed): while
    /// nothing was sent since, no command touched the page.
    sent: u64,
    snapshot: Snapshot,
    /// The watchers of the child frames the snapshot read.
    frames: Vec<FrameWatch>,
}

/// A child frame's watcher, armed when the frame was read.
#[derive(Clone)]
pub(crate) struct FrameWatch {
    /// The session its world is reached through (the tab's, or a cross-site frame's own).
    pub(crate) session: CdpSession,
    /// The world in the frame's document.
    pub(crate) context: i64,
}

/// Whether the fast path is on (`ABX_SNAPSHOT_CACHE=0` turns it off).
pub(crate) fn enabled() -> bool {
    std::env::var("ABX_SNAPSHOT_CACHE").map_or(true, |v| v != "0")
}

/// `Runtime.evaluate` of the watcher in `context`. `arm` sends its source and keeps the
/// function in the world; `check` calls the kept one (0, "changed", when there is none), so the
/// check the unchanged path waits for compiles nothing.
pub(crate) fn watch_call(context: i64, mode: &str) -> runtime::EvaluateParams {
    let expression = match mode {
        "check" => format!("typeof {KEPT} === 'function' ? {KEPT}('check') : 0"),
        _ => format!(
            "({KEPT} = {}).call(null, {})",
            WATCH_FN.source().trim_end(),
            json!(mode)
        ),
    };
    runtime::EvaluateParams {
        context_id: Some(runtime::ExecutionContextId::new(context)),
        return_by_value: Some(true),
        ..runtime::EvaluateParams::new(expression)
    }
}

/// `arm` in `context`, answering `[armed, elements]`: the document's element count comes with
/// it, so a child frame's read can pick the walker or Chrome's tree ([`armed_size`]) without a
/// call of its own.
pub(crate) fn arm_sized(context: i64) -> runtime::EvaluateParams {
    let mut call = watch_call(context, "arm");
    call.expression = format!(
        "[{}, document.getElementsByTagName('*').length]",
        call.expression
    );
    call
}

/// What [`arm_sized`] answered: whether the watcher is armed, and the element count (`None`
/// when the call failed or threw).
pub(crate) fn armed_size(reply: &runtime::EvaluateReturns) -> (bool, Option<usize>) {
    let value = match &reply.exception_details {
        None => reply.result.value.as_ref(),
        Some(_) => None,
    };
    let field = |i: usize| {
        value
            .and_then(|v| v.get(i))
            .and_then(serde_json::Value::as_u64)
    };
    let armed = field(0) == Some(1);
    let elements = field(1).and_then(|n| usize::try_from(n).ok());
    (armed, elements)
}

/// Where `arm` keeps the watcher function in its world (a global of the isolated world: the
/// page cannot see it).
const KEPT: &str = "globalThis.__abxSnapshotWatchFn";

/// What the watcher answered: 1 (unchanged / watching).
pub(crate) fn answered_yes(reply: &runtime::EvaluateReturns) -> bool {
    reply.exception_details.is_none()
        && reply
            .result
            .value
            .as_ref()
            .and_then(serde_json::Value::as_i64)
            == Some(1)
}
