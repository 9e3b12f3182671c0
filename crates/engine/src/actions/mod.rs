//! Page actions (`click`, `fill`, `type`, `press`, `hover`, `select`, `check`, `scroll`, `drag`,
//! `upload`, `mouse …`, `keyboard …`) as [`Session`] methods.
//!
//! Each takes a selector that may be CSS, `xpath=…` or a snapshot ref, and returns a small
//! serializable result shaped like upstream's `data` for that action (contract §2.4). Element
//! actions go through [`Session::locate`] and [`Session::actionable`] (visible, enabled, stable,
//! not covered), then real input events. A click whose mouse-up opens a JavaScript dialog reports
//! `dialogOpened: true` instead of waiting for the dialog.

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::{dom, input as cdp};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::input::{self, InputEvent, Stroke};
use crate::js::PageFn;
use crate::locate::{Checks, Handle, Point};
use crate::session::Session;
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

fn click_events(point: Point, button: MouseButton, bit: i64, count: i64) -> Vec<InputEvent> {
    let mut events = vec![mouse(Mouse::MouseMoved, point, MouseButton::None, 0, 0)];
    for n in 1..=count {
        events.push(mouse(Mouse::MousePressed, point, button.clone(), bit, n));
        events.push(mouse(Mouse::MouseReleased, point, button.clone(), 0, n));
    }
    events
}

impl Session {
    /// The active tab and the deadline of one command.
    pub(crate) async fn begin(
        &self,
        timeout: Option<Duration>,
    ) -> Result<(std::sync::Arc<Tab>, Instant, Duration)> {
        let timeout = timeout.unwrap_or(self.options().default_timeout);
        let tab = self.active_tab().await?;
        Ok((tab, Instant::now() + timeout, timeout))
    }

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

    /// `click <selector> [--new-tab]`: scrolls the element into view, waits until it can be
    /// clicked, checks nothing covers it, and clicks its centre with real mouse events; then
    /// waits for a navigation the click started (see [`SessionOptions::settle_navigation`]).
    ///
    /// [`SessionOptions::settle_navigation`]: crate::SessionOptions::settle_navigation
    pub async fn click(
        &self,
        selector: &str,
        options: &ClickOptions,
        timeout: Option<Duration>,
    ) -> Result<Clicked> {
        self.settling(timeout, self.click_unsettled(selector, options, timeout))
            .await
    }

    async fn click_unsettled(
        &self,
        selector: &str,
        options: &ClickOptions,
        timeout: Option<Duration>,
    ) -> Result<Clicked> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "click", selector, timeout).await?;
        let outcome = if options.new_tab {
            self.open_link_in_new_tab(&tab, &handle, timeout).await
        } else {
            if options.human {
                let motion = crate::Motion {
                    human: true,
                    ..crate::Motion::default()
                };
                self.approach(&tab, selector, &motion, deadline).await?;
            }
            self.click_handle(
                &tab,
                &mut handle,
                options.button.as_deref().unwrap_or("left"),
                1,
                deadline,
            )
            .await
        };
        handle.release().await;
        outcome
    }

    /// `dblclick <selector>` (then waits for a navigation it started, like [`Session::click`]).
    pub async fn dblclick(&self, selector: &str, timeout: Option<Duration>) -> Result<Clicked> {
        self.settling(timeout, self.dblclick_unsettled(selector, timeout))
            .await
    }

    async fn dblclick_unsettled(
        &self,
        selector: &str,
        timeout: Option<Duration>,
    ) -> Result<Clicked> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "dblclick", selector, timeout).await?;
        let outcome = self
            .click_handle(&tab, &mut handle, "left", 2, deadline)
            .await;
        handle.release().await;
        outcome
    }

    pub(crate) async fn click_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        button: &str,
        count: i64,
        deadline: Instant,
    ) -> Result<Clicked> {
        let (button, bit) = input::button(button)?;
        let checks = Checks {
            guard_presses: u8::try_from(count).unwrap_or(u8::MAX),
            ..Checks::CLICK
        };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let prepared = tab
                .guarded(
                    "click",
                    self.prepare(tab, handle, checks, "click", deadline),
                )
                .await?;
            // An `<option>` was selected in its `<select>` in the page: nothing to click.
            let Some(point) = prepared else {
                return Ok(Clicked {
                    clicked: handle.selector.clone(),
                    dialog_opened: false,
                    new_tab: None,
                    url: None,
                });
            };
            let session = Self::input_session(tab, handle);
            let dialog = input::dispatch(
                tab,
                &session,
                "click",
                &click_events(point, button.clone(), bit, count),
                deadline,
            )
            .await?;
            self.note_mouse(tab, Some(handle), point, 0);
            let miss = if dialog {
                None
            } else {
                self.click_verdict(tab, handle).await
            };
            match miss {
                None => {
                    return Ok(Clicked {
                        clicked: handle.selector.clone(),
                        dialog_opened: dialog,
                        new_tab: None,
                        url: None,
                    });
                }
                // Blocked, so nothing happened: hit-test again where the element is now.
                Some(miss) if attempts >= MAX_CLICK_ATTEMPTS || Instant::now() >= deadline => {
                    return Err(EngineError::ClickIntercepted {
                        selector: handle.selector.clone(),
                        landed: miss.landed,
                        attempts,
                    });
                }
                Some(_) => {
                    tokio::time::sleep(Duration::from_millis(20 * u64::from(attempts))).await
                }
            }
        }
    }

    async fn open_link_in_new_tab(
        &self,
        tab: &Tab,
        handle: &Handle,
        timeout: Duration,
    ) -> Result<Clicked> {
        let href = tab
            .guarded("click", handle.call(LINK_HREF_FN, &[], timeout))
            .await?;
        let Some(url) = href.as_str().filter(|u| !u.is_empty()).map(str::to_string) else {
            return Err(EngineError::NotALink {
                selector: handle.selector.clone(),
            });
        };
        self.tab_new(Some(&url), None).await?;
        Ok(Clicked {
            clicked: handle.selector.clone(),
            dialog_opened: false,
            new_tab: Some(true),
            url: Some(url),
        })
    }

    /// `fill <selector> <value>`: focuses, clears (with an `input` event) and inserts the text
    /// in one `Input.insertText`.
    pub async fn fill(
        &self,
        selector: &str,
        value: &str,
        timeout: Option<Duration>,
    ) -> Result<Filled> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "fill", selector, timeout).await?;
        let outcome = self
            .fill_handle(&tab, &mut handle, value, deadline, timeout)
            .await;
        handle.release().await;
        outcome.map(|_| Filled {
            filled: selector.to_string(),
        })
    }

    pub(crate) async fn fill_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        value: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        tab.guarded(
            "fill",
            self.actionable(tab, handle, Checks::TYPE, "fill", deadline),
        )
        .await?;
        let prepared = tab
            .guarded(
                "fill",
                handle.call(CLEAR_FN, &[json!(value), json!(true)], timeout),
            )
            .await?;
        match prepared.as_str() {
            Some("done") => Ok(()),
            Some("insert") => {
                if !value.is_empty() {
                    tab.request("fill", cdp::InsertTextParams::new(value), timeout)
                        .await?;
                }
                Ok(())
            }
            other => Err(EngineError::Invalid(
                other.unwrap_or("cannot fill this element").to_string(),
            )),
        }
    }

    /// `type <selector> <text> [--clear] [--delay ms]`: focuses the element and types with real
    /// key events (keydown/keypress/input/keyup per character), then waits for a navigation
    /// the keys started (like [`Session::click`]).
    pub async fn type_text(
        &self,
        selector: &str,
        text: &str,
        clear: bool,
        delay: Option<Duration>,
        timeout: Option<Duration>,
    ) -> Result<Typed> {
        self.settling(
            timeout,
            self.type_text_unsettled(selector, text, clear, delay, timeout),
        )
        .await
    }

    async fn type_text_unsettled(
        &self,
        selector: &str,
        text: &str,
        clear: bool,
        delay: Option<Duration>,
        timeout: Option<Duration>,
    ) -> Result<Typed> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "type", selector, timeout).await?;
        let outcome = async {
            let checks = Checks {
                editable: false,
                ..Checks::TYPE
            };
            tab.guarded(
                "type",
                self.actionable(&tab, &mut handle, checks, "type", deadline),
            )
            .await?;
            if clear {
                let prepared = tab
                    .guarded(
                        "type",
                        handle.call(CLEAR_FN, &[json!(""), json!(false)], timeout),
                    )
                    .await?;
                if prepared.as_str() != Some("insert") {
                    return Err(EngineError::Invalid(
                        prepared
                            .as_str()
                            .unwrap_or("cannot clear this element")
                            .to_string(),
                    ));
                }
            } else {
                tab.guarded("type", handle.call(FOCUS_FN, &[], timeout))
                    .await?;
            }
            self.type_into_focus(&tab, text, delay, deadline).await
        }
        .await;
        handle.release().await;
        outcome
    }

    /// Types `text` into whatever has focus.
    async fn type_into_focus(
        &self,
        tab: &Tab,
        text: &str,
        delay: Option<Duration>,
        deadline: Instant,
    ) -> Result<Typed> {
        let held = self.refs.with_tab(tab.target_id(), |t| t.modifiers);
        let session = tab.cdp().clone();
        let to_events = |strokes: Vec<Stroke>| -> Vec<InputEvent> {
            strokes.into_iter().map(Stroke::into_event).collect()
        };
        let delay = delay.filter(|d| !d.is_zero());
        let mut dialog = false;
        if let Some(delay) = delay {
            for (i, c) in text.chars().enumerate() {
                if i > 0 {
                    tokio::time::sleep(delay).await;
                }
                dialog = input::dispatch(
                    tab,
                    &session,
                    "type",
                    &to_events(input::char_strokes(c, held)),
                    deadline,
                )
                .await?;
                if dialog {
                    break;
                }
            }
        } else {
            let events: Vec<Stroke> = text
                .chars()
                .flat_map(|c| input::char_strokes(c, held))
                .collect();
            dialog = input::dispatch(tab, &session, "type", &to_events(events), deadline).await?;
        }
        Ok(Typed {
            typed: text.to_string(),
            dialog_opened: dialog,
        })
    }

    /// `press <key>` / `key <key>`: a key or chord (`Enter`, `Control+a`, `Shift+Tab`) on the
    /// focused element, then waits for a navigation it started (like [`Session::click`]).
    pub async fn press(&self, key: &str, timeout: Option<Duration>) -> Result<Pressed> {
        self.settling(timeout, self.press_unsettled(key, timeout))
            .await
    }

    async fn press_unsettled(&self, key: &str, timeout: Option<Duration>) -> Result<Pressed> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let chord = input::parse_chord(key)?;
        let held = self.refs.with_tab(tab.target_id(), |t| t.modifiers);
        let events: Vec<InputEvent> = input::press_events(&chord, held)
            .into_iter()
            .map(InputEvent::Key)
            .collect();
        let dialog = input::dispatch(&tab, tab.cdp(), "press", &events, deadline).await?;
        Ok(Pressed {
            pressed: key.to_string(),
            dialog_opened: dialog,
        })
    }

    /// `keydown <key>`: holds a key (a held modifier applies to later keys and clicks).
    pub async fn key_down(&self, key: &str, timeout: Option<Duration>) -> Result<KeyDown> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let k = input::named_key(key)
            .ok_or_else(|| EngineError::Invalid(format!("Unknown key: \"{key}\"")))?;
        let held = self.refs.with_tab(tab.target_id(), |t| {
            t.modifiers |= k.modifier;
            t.modifiers
        });
        let event = input::key_event("keyDown", &k, held);
        input::dispatch(
            &tab,
            tab.cdp(),
            "key down",
            &[InputEvent::Key(event)],
            deadline,
        )
        .await?;
        Ok(KeyDown {
            keydown: key.to_string(),
        })
    }

    /// `keyup <key>`.
    pub async fn key_up(&self, key: &str, timeout: Option<Duration>) -> Result<KeyUp> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let k = input::named_key(key)
            .ok_or_else(|| EngineError::Invalid(format!("Unknown key: \"{key}\"")))?;
        let held = self.refs.with_tab(tab.target_id(), |t| {
            t.modifiers &= !k.modifier;
            t.modifiers
        });
        let event = input::key_event("keyUp", &k, held);
        input::dispatch(
            &tab,
            tab.cdp(),
            "key up",
            &[InputEvent::Key(event)],
            deadline,
        )
        .await?;
        Ok(KeyUp {
            keyup: key.to_string(),
        })
    }

    /// `keyboard type <text>`: types into the focused element with key events, then waits for
    /// a navigation the keys started (like [`Session::click`]).
    pub async fn keyboard_type(
        &self,
        text: &str,
        delay: Option<Duration>,
        timeout: Option<Duration>,
    ) -> Result<Typed> {
        self.settling(timeout, async {
            let (tab, deadline, _) = self.begin(timeout).await?;
            self.type_into_focus(&tab, text, delay, deadline).await
        })
        .await
    }

    /// `keyboard inserttext <text>`: inserts text without key events (`Input.insertText`),
    /// then waits for a navigation it started (like [`Session::click`]).
    pub async fn insert_text(&self, text: &str, timeout: Option<Duration>) -> Result<Inserted> {
        self.settling(timeout, self.insert_text_unsettled(text, timeout))
            .await
    }

    async fn insert_text_unsettled(
        &self,
        text: &str,
        timeout: Option<Duration>,
    ) -> Result<Inserted> {
        let (tab, _, timeout) = self.begin(timeout).await?;
        tab.request("keyboard", cdp::InsertTextParams::new(text), timeout)
            .await?;
        Ok(Inserted { inserted: true })
    }

    /// `hover <selector>`: moves the mouse over the element's centre.
    pub async fn hover(&self, selector: &str, timeout: Option<Duration>) -> Result<Hovered> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "hover", selector, timeout).await?;
        let outcome = self.hover_handle(&tab, &mut handle, deadline).await;
        handle.release().await;
        outcome.map(|_| Hovered {
            hovered: selector.to_string(),
        })
    }

    pub(crate) async fn hover_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        deadline: Instant,
    ) -> Result<()> {
        let point = tab
            .guarded(
                "hover",
                self.actionable(tab, handle, Checks::HOVER, "hover", deadline),
            )
            .await?;
        let session = Self::input_session(tab, handle);
        input::dispatch(
            tab,
            &session,
            "hover",
            &[mouse(Mouse::MouseMoved, point, MouseButton::None, 0, 0)],
            deadline,
        )
        .await?;
        self.note_mouse(tab, Some(handle), point, 0);
        Ok(())
    }

    /// `focus <selector>`.
    pub async fn focus(&self, selector: &str, timeout: Option<Duration>) -> Result<Focused> {
        let (tab, _, timeout) = self.begin(timeout).await?;
        let handle = self.locate_on(&tab, "focus", selector, timeout).await?;
        let outcome = tab
            .guarded("focus", handle.call(FOCUS_FN, &[], timeout))
            .await;
        handle.release().await;
        outcome.map(|_| Focused {
            focused: selector.to_string(),
        })
    }

    /// `select <selector> <value…>`: selects options by value or visible label (all matches on a
    /// `<select multiple>`, the first otherwise) and fires `input` and `change`.
    pub async fn select(
        &self,
        selector: &str,
        values: &[String],
        timeout: Option<Duration>,
    ) -> Result<Selected> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "select", selector, timeout).await?;
        let outcome = async {
            let checks = Checks {
                visible: true,
                enabled: true,
                ..Checks::default()
            };
            tab.guarded(
                "select",
                self.actionable(&tab, &mut handle, checks, "select", deadline),
            )
            .await?;
            let reply = tab
                .guarded("select", handle.call(SELECT_FN, &[json!(values)], timeout))
                .await?;
            if let Some(error) = reply.get("error").and_then(Value::as_str) {
                return Err(EngineError::Invalid(error.to_string()));
            }
            Ok(Selected {
                selected: values.to_vec(),
            })
        }
        .await;
        handle.release().await;
        outcome
    }

    /// `check <selector>`.
    pub async fn check(&self, selector: &str, timeout: Option<Duration>) -> Result<Checked> {
        self.set_checked(selector, true, timeout)
            .await
            .map(|_| Checked {
                checked: selector.to_string(),
            })
    }

    /// `uncheck <selector>`.
    pub async fn uncheck(&self, selector: &str, timeout: Option<Duration>) -> Result<Unchecked> {
        self.set_checked(selector, false, timeout)
            .await
            .map(|_| Unchecked {
                unchecked: selector.to_string(),
            })
    }

    async fn set_checked(
        &self,
        selector: &str,
        want: bool,
        timeout: Option<Duration>,
    ) -> Result<()> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        let mut handle = self.locate_on(&tab, "check", selector, timeout).await?;
        let outcome = self
            .set_checked_handle(&tab, &mut handle, want, deadline, timeout)
            .await;
        handle.release().await;
        outcome
    }

    pub(crate) async fn set_checked_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        want: bool,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        let command = if want { "check" } else { "uncheck" };
        let state = |h: &Handle| {
            let h = h.clone();
            async move { tab.guarded(command, h.call(CHECKED_FN, &[], timeout)).await }
        };
        let now = state(handle).await?;
        if now.is_null() {
            return Err(EngineError::Invalid(format!(
                "Element '{}' is not a checkbox or radio button",
                handle.selector
            )));
        }
        if now.as_bool() == Some(want) {
            return Ok(());
        }
        if !want && handle.call(IS_RADIO_FN, &[], timeout).await? == Value::Bool(true) {
            return Err(EngineError::Invalid(
                "Cannot uncheck a radio button; check another one in its group".into(),
            ));
        }
        // A real click when the control is rendered; styled controls often hide the input itself,
        // and then a script click is what a user's click on its label amounts to.
        let rendered = tab
            .guarded(command, handle.call(RENDERED_FN, &[], timeout))
            .await?
            == Value::Bool(true);
        if rendered {
            let clicked = self.click_handle(tab, handle, "left", 1, deadline).await?;
            if clicked.dialog_opened {
                return Ok(());
            }
        }
        if state(handle).await?.as_bool() != Some(want) {
            tab.guarded(command, handle.call(SCRIPT_CLICK_FN, &[], timeout))
                .await?;
        }
        if state(handle).await?.as_bool() != Some(want) {
            return Err(EngineError::Invalid(format!(
                "Clicking '{}' did not {command} it (the page may prevent the change)",
                handle.selector
            )));
        }
        Ok(())
    }

    /// `scroll [up|down|left|right] [px] [--selector sel]`: scrolls the page, or the element.
    pub async fn scroll(
        &self,
        direction: &str,
        amount: Option<f64>,
        selector: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<Scrolled> {
        let amount = amount.unwrap_or(300.0);
        let (dx, dy) = match direction.to_ascii_lowercase().as_str() {
            "" | "down" => (0.0, amount),
            "up" => (0.0, -amount),
            "right" => (amount, 0.0),
            "left" => (-amount, 0.0),
            other => {
                return Err(EngineError::Invalid(format!(
                    "Invalid direction: {other}. Use up, down, left or right"
                )));
            }
        };
        let (tab, _, timeout) = self.begin(timeout).await?;
        match selector {
            Some(selector) => {
                let handle = self.locate_on(&tab, "scroll", selector, timeout).await?;
                let outcome = tab
                    .guarded(
                        "scroll",
                        handle.call(SCROLL_ELEMENT_FN, &[json!(dx), json!(dy)], timeout),
                    )
                    .await;
                handle.release().await;
                outcome?;
            }
            None => {
                let scroll = crate::js::evaluate(SCROLL_PAGE_FN.call(&[json!(dx), json!(dy)]));
                let reply = tab.request("scroll", scroll, timeout).await?;
                crate::js::value_of(reply.result, reply.exception_details.as_ref())?;
            }
        }
        Ok(Scrolled { scrolled: true })
    }

    /// `scrollintoview <selector>`.
    pub async fn scroll_into_view(
        &self,
        selector: &str,
        timeout: Option<Duration>,
    ) -> Result<ScrolledIntoView> {
        let (tab, _, timeout) = self.begin(timeout).await?;
        let handle = self
            .locate_on(&tab, "scroll into view", selector, timeout)
            .await?;
        let outcome = tab
            .guarded(
                "scroll into view",
                handle.call(SCROLL_INTO_VIEW_FN, &[], timeout),
            )
            .await;
        handle.release().await;
        outcome.map(|_| ScrolledIntoView {
            scrolled: selector.to_string(),
        })
    }

    /// `drag <source> <target>`: presses on the source, moves to the target in steps, releases.
    /// An HTML5 `draggable` source is dragged with Chrome's drag interception
    /// (`Input.setInterceptDrags` + `Input.dispatchDragEvent`), which headless Chrome needs for
    /// `dragstart`/`drop` to fire.
    pub async fn drag(
        &self,
        source: &str,
        target: &str,
        timeout: Option<Duration>,
    ) -> Result<Dragged> {
        self.drag_with(source, target, false, timeout).await
    }

    /// [`Session::drag`]; with `human` (`drag --human`, `--input-mode human`) the pointer first
    /// travels to the source and then carries it to the target along curved, eased paths.
    pub async fn drag_with(
        &self,
        source: &str,
        target: &str,
        human: bool,
        timeout: Option<Duration>,
    ) -> Result<Dragged> {
        let (tab, deadline, timeout) = self.begin(timeout).await?;
        if human {
            self.approach(&tab, source, &crate::Motion::human(), deadline)
                .await?;
        }
        let mut from = self.locate_on(&tab, "drag", source, timeout).await?;
        let mut to = match self.locate_on(&tab, "drag", target, timeout).await {
            Ok(handle) => handle,
            Err(err) => {
                from.release().await;
                return Err(err);
            }
        };
        let outcome = self
            .drag_handles(&tab, &mut from, &mut to, human, deadline, timeout)
            .await;
        from.release().await;
        to.release().await;
        outcome.map(|_| Dragged {
            dragged: true,
            source: source.to_string(),
            target: target.to_string(),
        })
    }

    async fn drag_handles(
        &self,
        tab: &Tab,
        from: &mut Handle,
        to: &mut Handle,
        human: bool,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        if from.oopif || to.oopif {
            return Err(EngineError::Invalid(
                "drag between cross-site frames is not supported".into(),
            ));
        }
        let start = tab
            .guarded(
                "drag",
                self.actionable(tab, from, Checks::CLICK, "drag", deadline),
            )
            .await?;
        let draggable = tab
            .guarded("drag", from.call(IS_DRAGGABLE_FN, &[], timeout))
            .await?
            == Value::Bool(true);
        let session = tab.cdp().clone();
        let mut intercepted = None;
        if draggable {
            intercepted = Some(session.subscribe(
                abx_cdp::EventFilter::methods([cdp::EventDragIntercepted::IDENTIFIER]),
                4,
            ));
            tab.request("drag", cdp::SetInterceptDragsParams::new(true), timeout)
                .await?;
        }
        let outcome = async {
            input::dispatch(
                tab,
                &session,
                "drag",
                &[
                    mouse(Mouse::MouseMoved, start, MouseButton::None, 0, 0),
                    mouse(Mouse::MousePressed, start, MouseButton::Left, 1, 1),
                ],
                deadline,
            )
            .await?;
            // The target's point is taken after pressing: scrolling it into view must not lose
            // the press.
            let checks = Checks {
                hit: false,
                ..Checks::HOVER
            };
            let end = tab
                .guarded("drag", self.actionable(tab, to, checks, "drag", deadline))
                .await?;
            const STEPS: i64 = 5;
            let path: Vec<(Point, Duration)> = if human {
                crate::Motion::human().path(start, end)
            } else {
                (1..=STEPS)
                    .map(|step| {
                        let t = step as f64 / STEPS as f64;
                        let p = Point {
                            x: start.x + (end.x - start.x) * t,
                            y: start.y + (end.y - start.y) * t,
                        };
                        (p, Duration::ZERO)
                    })
                    .collect()
            };
            let mut drag_data = None;
            for (index, (p, pause)) in path.into_iter().enumerate() {
                let step = index + 1;
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                input::dispatch(
                    tab,
                    &session,
                    "drag",
                    &[mouse(Mouse::MouseMoved, p, MouseButton::Left, 1, 0)],
                    deadline,
                )
                .await?;
                if let Some(events) = intercepted.as_mut()
                    && drag_data.is_none()
                {
                    // Chrome reports the drag it intercepted after the move that started it.
                    let wait = if step == 1 {
                        Duration::from_millis(200)
                    } else {
                        Duration::from_millis(20)
                    };
                    if let Ok(Some(event)) = tokio::time::timeout(wait, events.recv()).await
                        && let Some(Ok(intercepted)) = event.decode::<cdp::EventDragIntercepted>()
                    {
                        drag_data = Some(intercepted.data);
                    }
                }
            }
            if let Some(data) = drag_data {
                use cdp::DispatchDragEventType::{DragEnter, DragOver, Drop};
                for kind in [DragEnter, DragOver, Drop] {
                    let event = cdp::DispatchDragEventParams {
                        modifiers: Some(0),
                        ..cdp::DispatchDragEventParams::new(kind, end.x, end.y, data.clone())
                    };
                    input::dispatch(tab, &session, "drag", &[InputEvent::Drag(event)], deadline)
                        .await?;
                }
            }
            input::dispatch(
                tab,
                &session,
                "drag",
                &[mouse(Mouse::MouseReleased, end, MouseButton::Left, 0, 1)],
                deadline,
            )
            .await?;
            self.note_mouse(tab, None, end, 0);
            Ok(())
        }
        .await;
        if draggable {
            let _ = session
                .send(&cdp::SetInterceptDragsParams::new(false))
                .await;
        }
        outcome
    }

    /// `upload <selector> <file…>`: sets the files of an `<input type=file>`.
    pub async fn upload(
        &self,
        selector: &str,
        files: &[String],
        timeout: Option<Duration>,
    ) -> Result<Uploaded> {
        let mut paths = Vec::with_capacity(files.len());
        for file in files {
            let path = std::fs::canonicalize(file)
                .map_err(|_| EngineError::Invalid(format!("File not found: {file}")))?;
            paths.push(path.to_string_lossy().into_owned());
        }
        let (tab, _, timeout) = self.begin(timeout).await?;
        let handle = self.locate_on(&tab, "upload", selector, timeout).await?;
        let outcome = async {
            let kind = tab
                .guarded("upload", handle.call(FILE_INPUT_FN, &[], timeout))
                .await?;
            if kind.get(0).and_then(Value::as_str) != Some("file") {
                return Err(EngineError::Invalid(format!(
                    "Element '{selector}' is not an <input type=file>"
                )));
            }
            if paths.len() > 1 && kind.get(1).and_then(Value::as_bool) != Some(true) {
                return Err(EngineError::Invalid(format!(
                    "Element '{selector}' takes one file (no `multiple` attribute); got {}",
                    paths.len()
                )));
            }
            let params = dom::SetFileInputFilesParams {
                object_id: Some(handle.object_id.clone().into()),
                ..dom::SetFileInputFilesParams::new(paths.clone())
            };
            tab.guarded("upload", async {
                handle
                    .session
                    .call_within(params, timeout)
                    .await
                    .map_err(|e| handle.vanished(e))
            })
            .await?;
            Ok(Uploaded {
                uploaded: paths.len(),
                selector: selector.to_string(),
            })
        }
        .await;
        handle.release().await;
        outcome
    }

    /// `mouse move <x> <y>`.
    pub async fn mouse_move(
        &self,
        x: f64,
        y: f64,
        timeout: Option<Duration>,
    ) -> Result<MouseMoved> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let (buttons, modifiers) = self
            .refs
            .with_tab(tab.target_id(), |t| (t.mouse.buttons, t.modifiers));
        let button = if buttons & 1 != 0 {
            MouseButton::Left
        } else if buttons & 2 != 0 {
            MouseButton::Right
        } else if buttons & 4 != 0 {
            MouseButton::Middle
        } else {
            MouseButton::None
        };
        let event = mouse_with(
            Mouse::MouseMoved,
            Point { x, y },
            button,
            buttons,
            0,
            modifiers,
        );
        input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        self.note_mouse(&tab, None, Point { x, y }, buttons);
        Ok(MouseMoved { moved: true })
    }

    /// `mouse down [button]` at the current mouse position.
    pub async fn mouse_down(
        &self,
        button: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<MouseDown> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let (name, bit) = input::button(button.unwrap_or("left"))?;
        let (at, buttons, modifiers) = self.refs.with_tab(tab.target_id(), |t| {
            t.mouse.buttons |= bit;
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.mouse.buttons,
                t.modifiers,
            )
        });
        let event = mouse_with(Mouse::MousePressed, at, name, buttons, 1, modifiers);
        let dialog = input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(MouseDown {
            pressed: true,
            dialog_opened: dialog,
        })
    }

    /// `mouse up [button]` at the current mouse position.
    pub async fn mouse_up(
        &self,
        button: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<MouseUp> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let (name, bit) = input::button(button.unwrap_or("left"))?;
        let (at, buttons, modifiers) = self.refs.with_tab(tab.target_id(), |t| {
            t.mouse.buttons &= !bit;
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.mouse.buttons,
                t.modifiers,
            )
        });
        let event = mouse_with(Mouse::MouseReleased, at, name, buttons, 1, modifiers);
        let dialog = input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(MouseUp {
            released: true,
            dialog_opened: dialog,
        })
    }

    /// `mouse wheel <dy> [dx]` at the current mouse position.
    pub async fn mouse_wheel(
        &self,
        delta_y: f64,
        delta_x: f64,
        timeout: Option<Duration>,
    ) -> Result<Wheeled> {
        let (tab, deadline, _) = self.begin(timeout).await?;
        let (at, modifiers) = self.refs.with_tab(tab.target_id(), |t| {
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.modifiers,
            )
        });
        let event = InputEvent::Mouse(cdp::DispatchMouseEventParams {
            delta_x: Some(delta_x),
            delta_y: Some(delta_y),
            modifiers: Some(modifiers),
            ..cdp::DispatchMouseEventParams::new(
                cdp::DispatchMouseEventType::MouseWheel,
                at.x,
                at.y,
            )
        });
        input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(Wheeled {
            scrolled: true,
            delta_x,
            delta_y,
        })
    }
}
