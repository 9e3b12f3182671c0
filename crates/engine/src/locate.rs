//! Turning a selector — CSS, `xpath=…`, or a snapshot ref (`@e3`, `e3`, `ref=e3`) — into an
//! element handle, and making the element ready for input.
//!
//! A ref resolves through the [`RefStore`](crate::refs::RefStore): it must be live (in the latest
//! snapshot of the active tab), its main-frame document must still be the current one, and its
//! node must still be connected; otherwise the action fails with
//! [`EngineError::StaleRef`] and never touches another element (upstream issues #1443, #1922).
//! A ref inside a cross-site iframe resolves on that frame's own CDP session.
//!
//! [`Session::actionable`] waits, within the deadline, until the element is visible, enabled and
//! stable, scrolls it into view, and hit-tests its click point with `elementFromPoint`: an
//! unrelated element on top fails at once with [`EngineError::Covered`] naming it. All of that is
//! one `Runtime.callFunctionOn` in the common case (no animation running, element ready).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::dom;
use abx_cdp::protocol::js_protocol::runtime;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::element::{finder_js, ref_name};
use crate::error::{EngineError, Result};
use crate::js::{PageFn, element_object};
use crate::refs::{FrameKey, Lookup};
use crate::session::Session;
use crate::tab::Tab;

static GROUPS: AtomicU64 = AtomicU64::new(1);

/// A fresh object group name: each action releases only its own remote objects.
pub(crate) fn new_group() -> String {
    format!("abx-{}", GROUPS.fetch_add(1, Ordering::Relaxed))
}

/// The marker [`Handle::call`] returns for an element that left its document.
const DETACHED: &str = "__abxDetached";

/// Runs a function on an element only while it is in its document ([`DETACHED`] otherwise);
/// [`Handle::call`] puts the function in at `__ABX_FUNCTION__`.
const IF_CONNECTED_FN: PageFn = PageFn::new(include_str!("locate/if_connected.js"));

/// A resolved element: a remote object in its document, and how to reach it.
#[derive(Clone, Debug)]
pub(crate) struct Handle {
    /// The session of the element's document (the tab's, or a cross-site frame's).
    pub(crate) session: CdpSession,
    /// Whether `session` is a cross-site frame's own session (input then goes there, in that
    /// frame's coordinates).
    pub(crate) oopif: bool,
    /// A same-process child frame: page coordinates come from `DOM.getContentQuads`.
    pub(crate) subframe: bool,
    /// The remote object.
    pub(crate) object_id: String,
    /// The object group to release when the action is done.
    pub(crate) group: String,
    /// The selector as the caller wrote it (for messages).
    pub(crate) selector: String,
    /// Whether it came from a ref (a vanished node is then stale, not re-resolved).
    pub(crate) from_ref: bool,
}

impl Handle {
    /// The element's first content quad (`DOM.getContentQuads`: four corners, in the
    /// coordinates of the page the session shows), or `None` when it has no box.
    pub(crate) async fn content_quad(&self, timeout: Duration) -> Result<Option<[f64; 8]>> {
        let quads = dom::GetContentQuadsParams {
            object_id: Some(self.object_id.clone().into()),
            ..Default::default()
        };
        let quads = self
            .session
            .call_within(quads, timeout)
            .await
            .map_err(|err| self.vanished(err))?;
        let first = quads.quads.first().map(|q| q.inner().as_slice());
        Ok(first
            .and_then(|q| q.get(..8))
            .and_then(|q| q.try_into().ok()))
    }

    /// Releases the handle's remote objects (fire-and-forget; ordered before later commands).
    pub(crate) async fn release(&self) {
        let _ = self
            .session
            .send(&runtime::ReleaseObjectGroupParams::new(self.group.clone()))
            .await;
    }

    /// Calls `function` with `this` = the element and returns its JSON value. An element that is
    /// no longer in its document fails: a ref as stale, a selector as not found.
    pub(crate) async fn call(
        &self,
        function: PageFn,
        args: &[Value],
        timeout: Duration,
    ) -> Result<Value> {
        let call = runtime::CallFunctionOnParams {
            object_id: Some(self.object_id.clone().into()),
            arguments: Some(args.iter().map(crate::js::by_value).collect()),
            return_by_value: Some(true),
            await_promise: Some(true),
            ..runtime::CallFunctionOnParams::new(IF_CONNECTED_FN.wrap(function))
        };
        let reply = self
            .session
            .call_within(call, timeout)
            .await
            .map_err(|err| self.vanished(err))?;
        let value = crate::js::value_of(reply.result, reply.exception_details.as_ref())?;
        if value.get(DETACHED).is_some() {
            return Err(if self.from_ref {
                stale(&self.selector, "the element is no longer in the page")
            } else {
                EngineError::NotFound {
                    selector: self.selector.clone(),
                }
            });
        }
        Ok(value)
    }

    /// Maps a failed call on the element to what it means: a ref whose node or frame went away
    /// is stale; anything else keeps its meaning.
    pub(crate) fn vanished(&self, err: abx_cdp::Error) -> EngineError {
        match err {
            abx_cdp::Error::Protocol { .. } | abx_cdp::Error::SessionDetached { .. }
                if self.from_ref =>
            {
                stale(&self.selector, "the element is no longer in the page")
            }
            // A cross-site frame that went away is not the tab going away.
            abx_cdp::Error::SessionDetached { .. } if self.oopif => EngineError::NotFound {
                selector: self.selector.clone(),
            },
            other => other.into(),
        }
    }
}

/// The unique id of the tab's main document's default context, as the tab's events last
/// reported it.
fn main_context(tab: &Tab) -> Option<String> {
    tab.read(|st| {
        st.frame_contexts
            .get(tab.target_id())
            .map(|(_, unique)| unique.clone())
    })
}

fn stale(selector: &str, reason: &str) -> EngineError {
    let reference = ref_name(selector).map_or_else(|| selector.to_string(), |n| format!("@{n}"));
    EngineError::StaleRef {
        reference,
        reason: reason.to_string(),
    }
}

/// What the element must be before the action.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Checks {
    pub(crate) visible: bool,
    pub(crate) enabled: bool,
    pub(crate) editable: bool,
    pub(crate) stable: bool,
    pub(crate) scroll: bool,
    /// Hit-test the click point.
    pub(crate) hit: bool,
    /// A click on an `<option>` selects it in its `<select>` (its box is not on screen while
    /// the select is closed).
    pub(crate) option: bool,
    /// Arm the click guard for this many presses (0: none): a listener in the element's window
    /// that blocks the mouse events of the click if they land on another element, because the
    /// page moved between the hit test and the click. See [`Session::click_verdict`].
    pub(crate) guard_presses: u8,
}

impl Checks {
    /// Clicks, double clicks, drags.
    pub(crate) const CLICK: Checks = Checks {
        visible: true,
        enabled: true,
        editable: false,
        stable: true,
        scroll: true,
        hit: true,
        option: true,
        guard_presses: 0,
    };
    /// Hover: no enabled requirement.
    pub(crate) const HOVER: Checks = Checks {
        visible: true,
        enabled: false,
        editable: false,
        stable: true,
        scroll: true,
        hit: true,
        option: false,
        guard_presses: 0,
    };
    /// Typing and filling: focusable text input, no pointer involved.
    pub(crate) const TYPE: Checks = Checks {
        visible: true,
        enabled: true,
        editable: true,
        stable: false,
        scroll: true,
        hit: false,
        option: false,
        guard_presses: 0,
    };
}

/// Reads and disarms the click guard of the element's window (`this` is the element, which the
/// click may have removed from the document).
const GUARD_VERDICT_FN: PageFn = PageFn::new(include_str!("locate/guard_verdict.js"));

/// A click the guard blocked because its events landed outside the element.
#[derive(Clone, Debug)]
pub(crate) struct ClickMiss {
    /// A short description of the element the events landed on.
    pub(crate) landed: String,
}

/// Where to click, in the coordinates of the session input goes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

#[derive(Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
enum Readiness {
    Ready {
        x: f64,
        y: f64,
    },
    Waiting {
        reason: String,
    },
    Covered {
        cover: String,
        x: f64,
        y: f64,
    },
    Detached,
    Selected,
    /// Only from [`FIND_ACTIONABLE_FN`]: nothing matched the selector.
    Missing,
}

/// What [`Session::prepare_direct`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Direct {
    /// Ready: click here (the guard is armed when the checks asked for it).
    Ready(Point),
    /// An `<option>` was selected in its `<select>`.
    Selected,
    /// Not decided in one call (no element yet, not ready within the slice, a frame or a ref,
    /// the page's context changing): take the handle path, which waits and reports.
    Fallback,
}

/// Waits (in the page, up to `slice` ms per call) for the element to pass the checks, scrolls
/// it into view and hit-tests the click point. `this` is the element.
const ACTIONABLE_FN: PageFn = PageFn::new(include_str!("locate/actionable.js"));

/// Finds the element by a selector given as an argument and runs [`ACTIONABLE_FN`] on it, in one
/// `Runtime.callFunctionOn` on the page's context; [`ACTIONABLE_FN`] goes in where it names
/// `__ABX_FUNCTION__`.
const FIND_ACTIONABLE_FN: PageFn = PageFn::new(include_str!("locate/find_actionable.js"));

/// The action after the checks when there is none (`click`: its mouse events follow).
const NO_THEN_FN: PageFn = PageFn::new("(function() { return null; })");

/// [`FIND_ACTIONABLE_FN`] with [`ACTIONABLE_FN`] and no action after it, composed once.
static FIND_ACTIONABLE_SOURCE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| find_actionable_then(NO_THEN_FN));

/// [`FIND_ACTIONABLE_FN`] with [`ACTIONABLE_FN`] and `then` in it: `then` runs on a ready
/// element (as `this`) in the same call, with the arguments given to
/// [`Session::prepare_direct_then`]. Compose it once per action (a `LazyLock`).
pub(crate) fn find_actionable_then(then: PageFn) -> String {
    FIND_ACTIONABLE_FN
        .wrap(ACTIONABLE_FN)
        .replace("__ABX_THEN__", then.source().trim_end())
}

/// Finds the element by a selector given as an argument and calls a page function on it, in
/// one `Runtime.callFunctionOn` on the page's context; the function goes in where it names
/// `__ABX_FUNCTION__`.
const FIND_THEN_FN: PageFn = PageFn::new(include_str!("locate/find_then.js"));

/// What [`FIND_THEN_FN`] answers.
#[derive(Deserialize)]
struct FoundThen {
    #[serde(default)]
    found: bool,
    #[serde(default)]
    value: Value,
}

/// The options object [`ACTIONABLE_FN`] takes.
fn actionable_options(checks: Checks, slice: Duration) -> Value {
    json!({"visible": checks.visible, "enabled": checks.enabled, "editable": checks.editable,
           "stable": checks.stable, "scroll": checks.scroll, "hit": checks.hit,
           "option": checks.option, "guard": checks.guard_presses,
           "slice": u64::try_from(slice.as_millis()).unwrap_or(u64::MAX)})
}

impl Session {
    /// Resolves `selector` on the active tab to an element handle.
    pub(crate) async fn locate(
        &self,
        tab: &Tab,
        selector: &str,
        timeout: Duration,
    ) -> Result<Handle> {
        let group = new_group();
        if let Some(name) = ref_name(selector) {
            return self.locate_ref(tab, selector, name, group, timeout).await;
        }
        let find = runtime::EvaluateParams {
            return_by_value: Some(false),
            object_group: Some(group.clone()),
            ..runtime::EvaluateParams::new(finder_js(selector)?)
        };
        // Boxed: the realm lookup's future would make every action's future too large.
        let realm = Box::pin(self.realm(tab, timeout)).await?;
        let reply = realm
            .session
            .call_within(realm.evaluate(find), timeout)
            .await?;
        if let Some(details) = &reply.exception_details {
            return Err(EngineError::Invalid(format!(
                "Invalid selector '{selector}': {}",
                crate::js::exception_text(details)
            )));
        }
        let object_id = element_object(&reply.result).ok_or_else(|| EngineError::NotFound {
            selector: selector.to_string(),
        })?;
        Ok(Handle {
            subframe: realm.subframe(),
            oopif: realm.oopif,
            session: realm.session,
            object_id,
            group,
            selector: selector.to_string(),
            from_ref: false,
        })
    }

    async fn locate_ref(
        &self,
        tab: &Tab,
        selector: &str,
        name: &str,
        group: String,
        timeout: Duration,
    ) -> Result<Handle> {
        let entry = match self.refs.lookup(tab.target_id(), name) {
            Lookup::Live(entry) => entry,
            Lookup::Retired => {
                return Err(stale(
                    selector,
                    "it is not in the latest snapshot (the element was removed or the page changed)",
                ));
            }
            Lookup::OtherTab => return Err(stale(selector, "it was taken in another tab")),
            Lookup::Unknown => return Err(EngineError::UnknownRef(name.to_string())),
        };
        if let Some(page) = &entry.page {
            let moved = tab.read(|st| st.loader_id != page.loader || st.documents != page.epoch);
            if moved {
                return Err(stale(selector, "the page navigated since the snapshot"));
            }
        }
        let oopif = entry.document.session.is_some();
        let session = match &entry.document.session {
            Some(id) => self.browser().connection().session(id),
            None => tab.cdp().clone(),
        };
        // A ref from the snapshot walker names its node by a walker key (ADR 0018).
        let backend = match crate::snapshot::walker::unkey(entry.backend_node_id) {
            None => Some(entry.backend_node_id),
            Some(_) => {
                crate::snapshot::walker::backend_of(&session, entry.backend_node_id, timeout).await
            }
        };
        let Some(backend) = backend else {
            return Err(stale(selector, "the element is no longer in the page"));
        };
        let resolve = dom::ResolveNodeParams {
            backend_node_id: Some(dom::BackendNodeId::new(backend)),
            object_group: Some(group.clone()),
            ..Default::default()
        };
        let resolved = session.call_within(resolve, timeout).await;
        let object_id = match resolved {
            Ok(reply) => reply.object.object_id.map(String::from),
            Err(abx_cdp::Error::Protocol { .. }) | Err(abx_cdp::Error::SessionDetached { .. }) => {
                None
            }
            Err(other) => return Err(other.into()),
        };
        let Some(object_id) = object_id else {
            return Err(stale(selector, "the element is no longer in the page"));
        };
        // A node of a replaced document can still resolve while it is alive: every call on the
        // handle checks `isConnected` first (see `Handle::call`), at no extra round trip.
        Ok(Handle {
            session,
            oopif,
            subframe: entry.document.frame != FrameKey::MAIN && !oopif,
            object_id,
            group,
            selector: selector.to_string(),
            from_ref: true,
        })
    }

    /// Waits until the element passes `checks` (within `deadline`) and returns its click point
    /// in the coordinates of the session input must go to.
    pub(crate) async fn actionable(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        checks: Checks,
        action: &str,
        deadline: Instant,
    ) -> Result<Point> {
        let checks = Checks {
            option: false,
            ..checks
        };
        self.prepare(tab, handle, checks, action, deadline)
            .await?
            .ok_or_else(|| EngineError::Page(format!("cannot {action} '{}'", handle.selector)))
    }

    /// [`Session::actionable`], except that with `checks.option` an `<option>` is selected in
    /// the page instead (`Ok(None)`).
    pub(crate) async fn prepare(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        checks: Checks,
        action: &str,
        deadline: Instant,
    ) -> Result<Option<Point>> {
        let total = deadline.saturating_duration_since(Instant::now());
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            // Each in-page wait is at most a second, so a deadline is never overshot by much.
            let slice = remaining.min(Duration::from_secs(1));
            let opts = actionable_options(checks, slice);
            let outcome = handle
                .call(ACTIONABLE_FN, &[opts], slice + Duration::from_secs(5))
                .await;
            let value = match outcome {
                Ok(value) => value,
                // The document went away under a CSS selector: find the element again.
                Err(
                    EngineError::Cdp(abx_cdp::Error::Protocol { .. })
                    | EngineError::NotFound { .. },
                ) if !handle.from_ref => {
                    handle.release().await;
                    if Instant::now() >= deadline {
                        return Err(EngineError::Timeout {
                            what: format!("{action} {}", handle.selector),
                            after: total,
                        });
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    *handle = self
                        .locate(tab, &handle.selector.clone(), remaining)
                        .await?;
                    continue;
                }
                Err(err) => return Err(err),
            };
            let readiness: Readiness = serde_json::from_value(value)
                .map_err(|e| EngineError::Chrome(format!("unexpected actionability reply: {e}")))?;
            match readiness {
                Readiness::Ready { x, y } => {
                    if handle.subframe {
                        return self.page_point(handle, remaining).await.map(Some);
                    }
                    return Ok(Some(Point { x, y }));
                }
                Readiness::Selected => return Ok(None),
                Readiness::Covered { cover, x, y } => {
                    return Err(EngineError::Covered {
                        selector: handle.selector.clone(),
                        cover,
                        x,
                        y,
                    });
                }
                Readiness::Detached if handle.from_ref => {
                    return Err(stale(
                        &handle.selector,
                        "the element is no longer in the page",
                    ));
                }
                Readiness::Detached | Readiness::Missing => {
                    handle.release().await;
                    *handle = self
                        .locate(tab, &handle.selector.clone(), remaining)
                        .await?;
                }
                Readiness::Waiting { reason } => {
                    if reason.starts_with("not an ") {
                        // The reasons mix page state (disabled) with the caller's choice of
                        // element (not fillable): the caller's, as upstream treats them.
                        return Err(EngineError::Invalid(format!(
                            "Element '{}' is {reason}",
                            handle.selector
                        )));
                    }
                    if Instant::now() >= deadline {
                        return Err(EngineError::Timeout {
                            what: format!("{action} {} (element is {reason})", handle.selector),
                            after: total,
                        });
                    }
                }
            }
        }
    }

    /// The element's readiness in one renderer round trip, without a handle: finds a CSS or
    /// XPath selector in the tab's main document and runs the checks of [`Session::prepare`]
    /// there (waiting in the page up to a slice of the deadline). A ready element's click guard
    /// is armed then; [`Session::direct_verdict`] reads it. Anything this cannot settle is
    /// [`Direct::Fallback`], so the caller takes the handle path, which reports as before: a
    /// ref, a selected frame, a missing element, an invalid selector, a context being replaced.
    pub(crate) async fn prepare_direct(
        &self,
        tab: &Tab,
        selector: &str,
        checks: Checks,
        deadline: Instant,
    ) -> Result<Direct> {
        let source = FIND_ACTIONABLE_SOURCE.as_str();
        let (direct, _) = self
            .prepare_direct_then(tab, selector, checks, source, None, deadline)
            .await?;
        Ok(direct)
    }

    /// [`Session::prepare_direct`] with an action after the checks: `source` is composed by
    /// [`find_actionable_then`], and its action runs on a ready element with `then_args`.
    /// Returns what that action returned alongside [`Direct::Ready`]; with anything else the
    /// action did not run, so the handle path can start from scratch.
    pub(crate) async fn prepare_direct_then(
        &self,
        tab: &Tab,
        selector: &str,
        checks: Checks,
        source: &str,
        then_args: Option<&[Value]>,
        deadline: Instant,
    ) -> Result<(Direct, Option<Value>)> {
        const FALLBACK: (Direct, Option<Value>) = (Direct::Fallback, None);
        let Some((context, selector)) = self.direct_target(tab, selector) else {
            return Ok(FALLBACK);
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        let slice = remaining.min(Duration::from_secs(1));
        let mut arguments = vec![
            crate::js::by_value(&selector),
            crate::js::by_value(&actionable_options(checks, slice)),
        ];
        if let Some(args) = then_args {
            arguments.push(crate::js::by_value(&Value::Array(args.to_vec())));
        }
        let call = runtime::CallFunctionOnParams {
            unique_context_id: Some(context),
            arguments: Some(arguments),
            return_by_value: Some(true),
            await_promise: Some(true),
            ..runtime::CallFunctionOnParams::new(source)
        };
        let reply = match tab
            .cdp()
            .call_within(call, slice + Duration::from_secs(5))
            .await
        {
            Ok(reply) => reply,
            // The context went away (a navigation): the handle path finds the element anew.
            Err(abx_cdp::Error::Protocol { .. }) => return Ok(FALLBACK),
            Err(other) => return Err(other.into()),
        };
        if reply.exception_details.is_some() {
            return Ok(FALLBACK);
        }
        let Some(mut value) = reply.result.value else {
            return Ok(FALLBACK);
        };
        let then = value.as_object_mut().and_then(|o| o.remove("then"));
        let Ok(readiness) = serde_json::from_value::<Readiness>(value) else {
            return Ok(FALLBACK);
        };
        Ok(match readiness {
            Readiness::Ready { x, y } => (Direct::Ready(Point { x, y }), then),
            Readiness::Selected => (Direct::Selected, None),
            Readiness::Covered { .. }
            | Readiness::Waiting { .. }
            | Readiness::Detached
            | Readiness::Missing => FALLBACK,
        })
    }

    /// Calls `function` (`this` = the element, `args` by value) on the element `selector`
    /// names in the tab's main document: found and called in one `Runtime.callFunctionOn`,
    /// with no handle to release. `None` when that cannot decide: a ref, a selected frame, no
    /// page context yet, no match, an invalid selector, the function throwing, the context being
    /// replaced. The caller then takes the handle path, which reports each of those as before
    /// (run again there, `function` must be a read or otherwise safe to repeat).
    pub(crate) async fn call_direct(
        &self,
        tab: &Tab,
        selector: &str,
        function: PageFn,
        args: &[Value],
        timeout: Duration,
    ) -> Result<Option<Value>> {
        let Some((context, selector)) = self.direct_target(tab, selector) else {
            return Ok(None);
        };
        let call = runtime::CallFunctionOnParams {
            unique_context_id: Some(context),
            arguments: Some(vec![
                crate::js::by_value(&selector),
                crate::js::by_value(&Value::Array(args.to_vec())),
            ]),
            return_by_value: Some(true),
            await_promise: Some(true),
            ..runtime::CallFunctionOnParams::new(FIND_THEN_FN.wrap(function))
        };
        let reply = match tab.cdp().call_within(call, timeout).await {
            Ok(reply) => reply,
            Err(abx_cdp::Error::Protocol { .. }) => return Ok(None),
            Err(other) => return Err(other.into()),
        };
        if reply.exception_details.is_some() {
            return Ok(None);
        }
        let found = reply
            .result
            .value
            .and_then(|v| serde_json::from_value::<FoundThen>(v).ok());
        Ok(found.filter(|f| f.found).map(|f| f.value))
    }

    /// The main document's context and the selector as the direct calls take it, or `None`
    /// when the element is not simply "this selector in the main document": a ref (resolved
    /// through the snapshot), a selected frame, or no context yet.
    fn direct_target(&self, tab: &Tab, selector: &str) -> Option<(String, Value)> {
        if ref_name(selector).is_some() || self.selected_frame_of(tab).is_some() {
            return None;
        }
        let context = main_context(tab)?;
        let selector = match crate::element::Selector::parse(selector) {
            crate::element::Selector::Css(css) => json!({"css": css}),
            crate::element::Selector::XPath(xpath) => json!({"xpath": xpath}),
        };
        Some((context, selector))
    }

    /// [`Session::click_verdict`] for a click [`Session::prepare_direct`] armed: the guard is
    /// read from the main document's window.
    pub(crate) async fn direct_verdict(&self, tab: &Tab) -> Option<ClickMiss> {
        let context = main_context(tab)?;
        let reply = unless_navigating(tab, async {
            tab.guarded("click", async {
                let verdict = runtime::CallFunctionOnParams {
                    unique_context_id: Some(context),
                    return_by_value: Some(true),
                    ..runtime::CallFunctionOnParams::new(GUARD_VERDICT_FN.source())
                };
                Ok(synced_by_reply(
                    tab,
                    tab.cdp().call_within(verdict, Duration::from_secs(2)).await,
                )?)
            })
            .await
            .ok()
        })
        .await?;
        let landed = reply.result.value.as_ref().and_then(Value::as_str)?;
        Some(ClickMiss {
            landed: landed.to_string(),
        })
    }

    /// Where the click guard armed by [`Session::prepare`] blocked the click, if it did, and
    /// disarms it. `None` also when nothing can be said: no guarded event reached the element's
    /// window (a page listener stopped them first, or the click went to another frame), the
    /// document went away (the click navigated), a dialog opened, or the page is too busy to
    /// answer; all of these mean the click was not blocked, so it counts as delivered.
    pub(crate) async fn click_verdict(&self, tab: &Tab, handle: &Handle) -> Option<ClickMiss> {
        let reply = unless_navigating(tab, async {
            tab.guarded("click", async {
                let verdict = crate::js::call_on(&handle.object_id, GUARD_VERDICT_FN, &[]);
                let reply = handle
                    .session
                    .call_within(verdict, Duration::from_secs(2))
                    .await;
                // Only the main frame's answer orders the page's navigation events.
                Ok(if handle.oopif || handle.subframe {
                    reply?
                } else {
                    synced_by_reply(tab, reply)?
                })
            })
            .await
            .ok()
        })
        .await?;
        let landed = reply.result.value.as_ref().and_then(Value::as_str)?;
        Some(ClickMiss {
            landed: landed.to_string(),
        })
    }

    /// The centre of a same-process child frame's element in page coordinates.
    async fn page_point(&self, handle: &Handle, timeout: Duration) -> Result<Point> {
        let Some(quad) = handle.content_quad(timeout).await? else {
            return Err(EngineError::Timeout {
                what: format!("{} (element is not visible)", handle.selector),
                after: timeout,
            });
        };
        let x = (quad[0] + quad[2] + quad[4] + quad[6]) / 4.0;
        let y = (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0;
        Ok(Point { x, y })
    }
}

/// Notes the tab synced when the page's renderer answered a call made after an input: with a
/// result, or with a protocol error, which after a click means the document it ran in went
/// away (the click navigated; Chrome held the call until the new document committed). Either
/// way the navigation events the input caused came ahead of the answer, so the settle after
/// the action needs no extra `Runtime.evaluate` to order them. A timeout or a lost session
/// says nothing about the page.
/// Runs a click's verdict call unless the main frame starts navigating first: the click was then
/// delivered (it led somewhere), and a document with a navigation pending may not answer until
/// the new one commits (a slow first byte held `click` for as long). The navigation's events
/// came in, which is what the round trip was for.
async fn unless_navigating<T>(tab: &Tab, verdict: impl Future<Output = Option<T>>) -> Option<T> {
    let navigating = async {
        let deadline = Instant::now() + Duration::from_secs(5);
        if tab
            .wait_state("click", deadline, true, |st| st.pending.is_some())
            .await
            .is_err()
        {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        biased;
        verdict = verdict => verdict,
        () = navigating => {
            tab.note_sync();
            None
        }
    }
}

fn synced_by_reply<T>(
    tab: &Tab,
    reply: std::result::Result<T, abx_cdp::Error>,
) -> std::result::Result<T, abx_cdp::Error> {
    if matches!(reply, Ok(_) | Err(abx_cdp::Error::Protocol { .. })) {
        tab.note_sync();
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connected_wrapper_answers_the_marker_the_handle_checks() {
        let wrapped = IF_CONNECTED_FN.wrap(PageFn::new("(function() { return 1; })\n"));
        assert!(
            wrapped.contains(&format!("{{{DETACHED}: true}}")),
            "{wrapped}"
        );
        assert!(
            wrapped.contains("return await ((function() { return 1; })).apply(this, args);"),
            "{wrapped}"
        );
    }
}
