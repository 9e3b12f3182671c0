//! Page actions (`click`, `fill`, `type`, `press`, `hover`, `select`, `check`, `scroll`, `drag`,
//! `upload`, `highlight`, `mouse …`, `keyboard …`) as [`Page`] methods, one file per kind of input.
//!
//! Each takes a selector that may be CSS, `xpath=…` or a snapshot ref, and returns a small
//! serializable result shaped like upstream's `data` for that action (contract §2.4). Element
//! actions go through `Session::locate` and `Session::actionable` (visible, enabled, stable,
//! not covered), then real input events, on the view's tab within its deadline. A click whose
//! mouse-up opens a JavaScript dialog reports `dialogOpened: true` instead of waiting for the
//! dialog. The handle-level steps (`click_handle`, `fill_handle`, …) stay on [`Session`]:
//! `find` and `check` reuse them on an element they located themselves.

mod click;
mod drag;
mod fill;
mod highlight;
mod keyboard;
mod mouse;
mod scroll;
mod select;
mod upload;

pub use highlight::Highlighted;

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::{dom, input as cdp};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::input::{self, InputEvent, Stroke};
use crate::js::PageFn;
use crate::locate::{Checks, Direct, Handle, Point};
use crate::session::{Page, Session};
use crate::tab::Tab;

/// `click` options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClickOptions {
    /// `--new-tab`: open the link's target in a new tab instead of clicking.
    pub new_tab: bool,
    /// `left` (default), `right` or `middle`.
    pub button: Option<String>,
    /// `--human`: the pointer travels to the element along a curved path first.
    pub human: bool,
}

/// `{"clicked": "<selector>"}` (+ `dialogOpened: true`, or `newTab: true, url` for `--new-tab`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Clicked {
    /// The selector as given.
    pub clicked: String,
    /// The click opened a JavaScript dialog that now waits for an answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dialog_opened: bool,
    /// `--new-tab` opened the link in a new (now active) tab.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_tab: Option<bool>,
    /// The URL opened by `--new-tab`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `{"filled": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Filled {
    /// The selector.
    pub filled: String,
}

/// `{"typed": "<text>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Typed {
    /// The text typed.
    pub typed: String,
    /// A key opened a JavaScript dialog (typing stopped there).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dialog_opened: bool,
}

/// `{"pressed": "<key>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Pressed {
    /// The key or chord.
    pub pressed: String,
    /// The key opened a JavaScript dialog.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dialog_opened: bool,
}

/// `{"keydown": "<key>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct KeyDown {
    /// The key.
    pub keydown: String,
}

/// `{"keyup": "<key>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct KeyUp {
    /// The key.
    pub keyup: String,
}

/// `{"hovered": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Hovered {
    /// The selector.
    pub hovered: String,
}

/// `{"focused": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Focused {
    /// The selector.
    pub focused: String,
}

/// `{"checked": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Checked {
    /// The selector.
    pub checked: String,
}

/// `{"unchecked": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Unchecked {
    /// The selector.
    pub unchecked: String,
}

/// `{"selected": ["<value>", …]}` (the values as given).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Selected {
    /// The requested values or labels.
    pub selected: Vec<String>,
}

/// `{"scrolled": true}` (`scroll`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Scrolled {
    /// Always true.
    pub scrolled: bool,
}

/// `{"scrolled": "<selector>"}` (`scrollintoview`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ScrolledIntoView {
    /// The selector.
    pub scrolled: String,
}

/// `{"dragged": true, "source", "target"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Dragged {
    /// Always true.
    pub dragged: bool,
    /// The source selector.
    pub source: String,
    /// The target selector.
    pub target: String,
}

/// `{"uploaded": n, "selector"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Uploaded {
    /// How many files were set.
    pub uploaded: usize,
    /// The selector.
    pub selector: String,
}

/// `{"moved": true}` (`mouse move`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MouseMoved {
    /// Always true.
    pub moved: bool,
}

/// `{"pressed": true}` (`mouse down`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct MouseDown {
    /// Always true.
    pub pressed: bool,
    /// The press opened a JavaScript dialog.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dialog_opened: bool,
}

/// `{"released": true}` (`mouse up`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct MouseUp {
    /// Always true.
    pub released: bool,
    /// The release opened a JavaScript dialog.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dialog_opened: bool,
}

/// `{"scrolled": true, "deltaX", "deltaY"}` (`mouse wheel`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Wheeled {
    /// Always true.
    pub scrolled: bool,
    /// Horizontal delta.
    pub delta_x: f64,
    /// Vertical delta.
    pub delta_y: f64,
}

/// `{"inserted": true}` (`keyboard inserttext`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Inserted {
    /// Always true.
    pub inserted: bool,
}

/// Clears an input, textarea or contenteditable (value setter plus an `input` event, so
/// frameworks see it) and leaves it focused. Returns `insert` when text may now be inserted,
/// `done` when the value was set directly (date/color/range inputs), or an error text.
const CLEAR_FN: PageFn = PageFn::new(include_str!("clear.js"));

/// Selects options by value or visible label.
const SELECT_FN: PageFn = PageFn::new(include_str!("select.js"));

/// The checked state of a checkbox, radio or ARIA checkable; `null` when it has none.
pub(crate) const CHECKED_FN: PageFn = PageFn::new(include_str!("checked.js"));

/// Whether an element is rendered (for choosing between a real click and a script click).
const RENDERED_FN: PageFn = PageFn::new(include_str!("rendered.js"));

/// The `href` of the link the element is in (`null` outside a link).
const LINK_HREF_FN: PageFn = PageFn::new(include_str!("link_href.js"));
/// Focuses the element.
const FOCUS_FN: PageFn = PageFn::new(include_str!("focus.js"));
/// Whether the element is a radio button.
const IS_RADIO_FN: PageFn = PageFn::new(include_str!("is_radio.js"));
/// `HTMLElement.click()`: a click without pointer events, for controls the page hides.
const SCRIPT_CLICK_FN: PageFn = PageFn::new(include_str!("script_click.js"));
/// Scrolls the element by (dx, dy).
const SCROLL_ELEMENT_FN: PageFn = PageFn::new(include_str!("scroll_element.js"));
/// Scrolls the window by (dx, dy).
const SCROLL_PAGE_FN: PageFn = PageFn::new(include_str!("scroll_page.js"));
/// Scrolls the element to the middle of the viewport.
const SCROLL_INTO_VIEW_FN: PageFn = PageFn::new(include_str!("scroll_into_view.js"));
/// Whether the element is (in) an HTML5 `draggable` element.
const IS_DRAGGABLE_FN: PageFn = PageFn::new(include_str!("is_draggable.js"));
/// `[type, multiple]` of an `<input>`, `null` for other elements.
const FILE_INPUT_FN: PageFn = PageFn::new(include_str!("file_input.js"));

/// How often a click the guard blocked is retried before giving up.
const MAX_CLICK_ATTEMPTS: u32 = 5;

use cdp::DispatchMouseEventType as Mouse;
use cdp::MouseButton;

fn mouse(
    kind: cdp::DispatchMouseEventType,
    point: Point,
    button: MouseButton,
    buttons: i64,
    count: i64,
) -> InputEvent {
    input::mouse_event(kind, point.x, point.y, button, buttons, count)
}

/// `mouse` with the held keyboard modifiers.
fn mouse_with(
    kind: cdp::DispatchMouseEventType,
    point: Point,
    button: MouseButton,
    buttons: i64,
    count: i64,
    modifiers: i64,
) -> InputEvent {
    let mut event = mouse(kind, point, button, buttons, count);
    if let InputEvent::Mouse(params) = &mut event {
        params.modifiers = Some(modifiers);
    }
    event
}

/// A move, then one press and release carrying `count` as its click count: with 2 the page sees
/// `click` then `dblclick` (both with `detail` 2), as upstream's `dblclick` gives it.
fn click_events(point: Point, button: MouseButton, bit: i64, count: i64) -> Vec<InputEvent> {
    vec![
        mouse(Mouse::MouseMoved, point, MouseButton::None, 0, 0),
        mouse(Mouse::MousePressed, point, button.clone(), bit, count),
        mouse(Mouse::MouseReleased, point, button, 0, count),
    ]
}

impl Session {
    /// Locates `selector` with the tab's dialog/close/crash guard.
    pub(crate) async fn locate_on(
        &self,
        tab: &Tab,
        command: &str,
        selector: &str,
        timeout: Duration,
    ) -> Result<Handle> {
        tab.guarded(command, self.locate(tab, selector, timeout))
            .await
    }

    /// The session input for an element goes to: a cross-site frame's own, else the tab's.
    fn input_session(tab: &Tab, handle: &Handle) -> abx_cdp::Session {
        if handle.oopif {
            handle.session.clone()
        } else {
            tab.cdp().clone()
        }
    }

    fn note_mouse(&self, tab: &Tab, handle: Option<&Handle>, point: Point, buttons: i64) {
        // Coordinates inside a cross-site frame are that frame's, not the page's.
        if handle.is_some_and(|h| h.oopif) {
            return;
        }
        self.refs.with_tab(tab.target_id(), |t| {
            t.mouse.x = point.x;
            t.mouse.y = point.y;
            t.mouse.buttons = buttons;
        });
    }
}
