//! Keyboard and mouse input as Chrome expects it from `Input.dispatchKeyEvent` /
//! `Input.dispatchMouseEvent`: key names and chords (`Enter`, `Control+a`, `Shift+Tab`) mapped to
//! `key`, `code`, `windowsVirtualKeyCode` and `text` on a US layout, and the event sequences for a
//! key press, a typed string and a click.
//!
//! Events of one sequence are queued without waiting for each reply (the socket keeps them in
//! order); only the last one is awaited, and that wait ends early when the page opens a
//! JavaScript dialog (see [`dispatch`]), so a click or key that opens `confirm()` reports it
//! instead of hanging on the reply Chrome holds back until the dialog is answered.

use std::future::Future;
use std::time::{Duration, Instant};

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::input as cdp;
use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::tab::Tab;

/// One input event for a tab, as CDP takes it (`Input.dispatchMouseEvent` and friends).
///
/// ```
/// use abx_engine::InputEvent;
/// use abx_cdp::protocol::browser_protocol::input::{DispatchMouseEventParams, DispatchMouseEventType};
/// let moved = InputEvent::Mouse(DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, 10.0, 20.0));
/// assert_eq!(moved.method(), "Input.dispatchMouseEvent");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputEvent {
    /// `Input.dispatchMouseEvent`.
    Mouse(cdp::DispatchMouseEventParams),
    /// `Input.dispatchKeyEvent`.
    Key(cdp::DispatchKeyEventParams),
    /// `Input.dispatchTouchEvent`.
    Touch(cdp::DispatchTouchEventParams),
    /// `Input.insertText`.
    InsertText(cdp::InsertTextParams),
    /// `Input.dispatchDragEvent`.
    Drag(cdp::DispatchDragEventParams),
}

impl InputEvent {
    /// The CDP method.
    pub fn method(&self) -> &'static str {
        match self {
            InputEvent::Mouse(_) => cdp::DispatchMouseEventParams::IDENTIFIER,
            InputEvent::Key(_) => cdp::DispatchKeyEventParams::IDENTIFIER,
            InputEvent::Touch(_) => cdp::DispatchTouchEventParams::IDENTIFIER,
            InputEvent::InsertText(_) => cdp::InsertTextParams::IDENTIFIER,
            InputEvent::Drag(_) => cdp::DispatchDragEventParams::IDENTIFIER,
        }
    }

    /// Decodes an input call given as method and JSON params (the untyped
    /// [`Tab::dispatch_inputs`]); an unknown method or a malformed event is an error.
    pub fn from_json(method: &str, params: &Value) -> Result<InputEvent> {
        fn decode<T: serde::de::DeserializeOwned>(method: &str, params: &Value) -> Result<T> {
            T::deserialize(params)
                .map_err(|e| EngineError::Invalid(format!("invalid {method} event: {e}")))
        }
        Ok(match method {
            cdp::DispatchMouseEventParams::IDENTIFIER => InputEvent::Mouse(decode(method, params)?),
            cdp::DispatchKeyEventParams::IDENTIFIER => InputEvent::Key(decode(method, params)?),
            cdp::DispatchTouchEventParams::IDENTIFIER => InputEvent::Touch(decode(method, params)?),
            cdp::InsertTextParams::IDENTIFIER => InputEvent::InsertText(decode(method, params)?),
            cdp::DispatchDragEventParams::IDENTIFIER => InputEvent::Drag(decode(method, params)?),
            other => {
                return Err(EngineError::Invalid(format!(
                    "{other} is not an input method (Input.dispatchMouseEvent, \
                     Input.dispatchKeyEvent, Input.dispatchTouchEvent, Input.insertText, \
                     Input.dispatchDragEvent)"
                )));
            }
        })
    }

    /// Queues the event on `session` without waiting for Chrome's reply.
    pub(crate) async fn send(
        &self,
        session: &CdpSession,
    ) -> std::result::Result<(), abx_cdp::Error> {
        match self {
            InputEvent::Mouse(p) => session.send(p).await,
            InputEvent::Key(p) => session.send(p).await,
            InputEvent::Touch(p) => session.send(p).await,
            InputEvent::InsertText(p) => session.send(p).await,
            InputEvent::Drag(p) => session.send(p).await,
        }
    }

    /// Sends the event on `session` and waits for Chrome to have handled it.
    pub(crate) async fn call(
        &self,
        session: &CdpSession,
        timeout: Duration,
    ) -> std::result::Result<(), abx_cdp::Error> {
        match self {
            InputEvent::Mouse(p) => session.call_within(p.clone(), timeout).await.map(drop),
            InputEvent::Key(p) => session.call_within(p.clone(), timeout).await.map(drop),
            InputEvent::Touch(p) => session.call_within(p.clone(), timeout).await.map(drop),
            InputEvent::InsertText(p) => session.call_within(p.clone(), timeout).await.map(drop),
            InputEvent::Drag(p) => session.call_within(p.clone(), timeout).await.map(drop),
        }
    }
}

/// A mouse event at `point` (`buttons`: the bit mask held, `count`: the click count).
pub(crate) fn mouse_event(
    kind: cdp::DispatchMouseEventType,
    x: f64,
    y: f64,
    button: cdp::MouseButton,
    buttons: i64,
    count: i64,
) -> InputEvent {
    InputEvent::Mouse(cdp::DispatchMouseEventParams {
        button: Some(button),
        buttons: Some(buttons),
        click_count: Some(count),
        ..cdp::DispatchMouseEventParams::new(kind, x, y)
    })
}

/// `Input.insertText`.
pub(crate) fn insert_text(text: &str) -> InputEvent {
    InputEvent::InsertText(cdp::InsertTextParams::new(text))
}

/// CDP modifier bits.
pub(crate) const ALT: i64 = 1;
pub(crate) const CONTROL: i64 = 2;
pub(crate) const META: i64 = 4;
pub(crate) const SHIFT: i64 = 8;

/// One key on a US keyboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    /// `KeyboardEvent.key`.
    pub(crate) key: String,
    /// `KeyboardEvent.code`.
    pub(crate) code: &'static str,
    /// `windowsVirtualKeyCode`.
    pub(crate) key_code: i64,
    /// The text the key types (none for control keys).
    pub(crate) text: Option<String>,
    /// 1 for the left modifier keys, else 0.
    pub(crate) location: i64,
    /// The modifier bit this key is, if it is one.
    pub(crate) modifier: i64,
}

/// Named keys: (name, key, code, keyCode, text).
const NAMED: &[(&str, &str, &str, i64, Option<&str>)] = &[
    ("Enter", "Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", "Tab", 9, None),
    ("Backspace", "Backspace", "Backspace", 8, None),
    ("Delete", "Delete", "Delete", 46, None),
    ("Escape", "Escape", "Escape", 27, None),
    ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowUp", "ArrowUp", "ArrowUp", 38, None),
    ("ArrowRight", "ArrowRight", "ArrowRight", 39, None),
    ("ArrowDown", "ArrowDown", "ArrowDown", 40, None),
    ("Home", "Home", "Home", 36, None),
    ("End", "End", "End", 35, None),
    ("PageUp", "PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", "PageDown", 34, None),
    ("Insert", "Insert", "Insert", 45, None),
    ("Space", " ", "Space", 32, Some(" ")),
    ("CapsLock", "CapsLock", "CapsLock", 20, None),
    ("NumLock", "NumLock", "NumLock", 144, None),
    ("ScrollLock", "ScrollLock", "ScrollLock", 145, None),
    ("Pause", "Pause", "Pause", 19, None),
    ("PrintScreen", "PrintScreen", "PrintScreen", 44, None),
    ("ContextMenu", "ContextMenu", "ContextMenu", 93, None),
    ("F1", "F1", "F1", 112, None),
    ("F2", "F2", "F2", 113, None),
    ("F3", "F3", "F3", 114, None),
    ("F4", "F4", "F4", 115, None),
    ("F5", "F5", "F5", 116, None),
    ("F6", "F6", "F6", 117, None),
    ("F7", "F7", "F7", 118, None),
    ("F8", "F8", "F8", 119, None),
    ("F9", "F9", "F9", 120, None),
    ("F10", "F10", "F10", 121, None),
    ("F11", "F11", "F11", 122, None),
    ("F12", "F12", "F12", 123, None),
];

/// Other spellings people use.
const ALIASES: &[(&str, &str)] = &[
    ("Return", "Enter"),
    ("Esc", "Escape"),
    ("Del", "Delete"),
    ("Up", "ArrowUp"),
    ("Down", "ArrowDown"),
    ("Left", "ArrowLeft"),
    ("Right", "ArrowRight"),
    ("Ctrl", "Control"),
    ("Cmd", "Meta"),
    ("Command", "Meta"),
    ("Super", "Meta"),
    ("Win", "Meta"),
    ("Option", "Alt"),
    // Playwright's portable chord modifier; this engine runs Chrome on Linux.
    ("ControlOrMeta", "Control"),
];

/// Modifier keys: (name, code, keyCode, bit).
const MODIFIERS: &[(&str, &str, i64, i64)] = &[
    ("Shift", "ShiftLeft", 16, SHIFT),
    ("Control", "ControlLeft", 17, CONTROL),
    ("Alt", "AltLeft", 18, ALT),
    ("Meta", "MetaLeft", 91, META),
];

/// US layout punctuation: (unshifted, shifted, code, keyCode).
const PUNCTUATION: &[(char, char, &str, i64)] = &[
    ('`', '~', "Backquote", 192),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
];

/// Shifted digits, in digit order 0–9.
const SHIFTED_DIGITS: [char; 10] = [')', '!', '@', '#', '$', '%', '^', '&', '*', '('];

const DIGIT_CODES: [&str; 10] = [
    "Digit0", "Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6", "Digit7", "Digit8",
    "Digit9",
];
const LETTER_CODES: [&str; 26] = [
    "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK", "KeyL",
    "KeyM", "KeyN", "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV", "KeyW", "KeyX",
    "KeyY", "KeyZ",
];

fn plain(key: &str, code: &'static str, key_code: i64, text: Option<&str>) -> Key {
    Key {
        key: key.to_string(),
        code,
        key_code,
        text: text.map(str::to_string),
        location: 0,
        modifier: 0,
    }
}

/// The key that types `c`, and whether Shift is needed. `None` for characters a US keyboard
/// has no key for (those are inserted as text).
pub(crate) fn char_key(c: char) -> Option<(Key, bool)> {
    let s = c.to_string();
    if c.is_ascii_lowercase() {
        let i = (c as u8 - b'a') as usize;
        return Some((plain(&s, LETTER_CODES[i], 65 + i as i64, Some(&s)), false));
    }
    if c.is_ascii_uppercase() {
        let i = (c as u8 - b'A') as usize;
        return Some((plain(&s, LETTER_CODES[i], 65 + i as i64, Some(&s)), true));
    }
    if c.is_ascii_digit() {
        let i = (c as u8 - b'0') as usize;
        return Some((plain(&s, DIGIT_CODES[i], 48 + i as i64, Some(&s)), false));
    }
    if let Some(i) = SHIFTED_DIGITS.iter().position(|&d| d == c) {
        return Some((plain(&s, DIGIT_CODES[i], 48 + i as i64, Some(&s)), true));
    }
    for &(lower, upper, code, key_code) in PUNCTUATION {
        if c == lower {
            return Some((plain(&s, code, key_code, Some(&s)), false));
        }
        if c == upper {
            return Some((plain(&s, code, key_code, Some(&s)), true));
        }
    }
    match c {
        ' ' => Some((plain(" ", "Space", 32, Some(" ")), false)),
        '\n' | '\r' => Some((plain("Enter", "Enter", 13, Some("\r")), false)),
        '\t' => Some((plain("Tab", "Tab", 9, None), false)),
        _ => None,
    }
}

/// A key by name (`Enter`, `a`, `Shift`, `F5`; named keys case-insensitively).
pub(crate) fn named_key(name: &str) -> Option<Key> {
    let canonical = ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map_or(name, |(_, to)| *to);
    if let Some(&(_, code, key_code, bit)) = MODIFIERS
        .iter()
        .find(|(n, ..)| n.eq_ignore_ascii_case(canonical))
    {
        let key = MODIFIERS
            .iter()
            .find(|(_, c, ..)| *c == code)
            .map_or("", |(n, ..)| *n);
        return Some(Key {
            key: key.to_string(),
            code,
            key_code,
            text: None,
            location: 1,
            modifier: bit,
        });
    }
    if let Some(&(_, key, code, key_code, text)) = NAMED
        .iter()
        .find(|(n, ..)| n.eq_ignore_ascii_case(canonical))
    {
        return Some(plain(key, code, key_code, text));
    }
    let mut chars = canonical.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => char_key(c).map(|(key, _)| key),
        _ => None,
    }
}

/// A parsed chord: modifier keys in order, then the main key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chord {
    pub(crate) modifiers: Vec<Key>,
    pub(crate) key: Key,
}

/// Parses `Control+a`, `Shift+Tab`, `Control++`, `Enter`.
pub(crate) fn parse_chord(text: &str) -> Result<Chord> {
    let unknown =
        |part: &str| EngineError::Invalid(format!("Unknown key: \"{part}\" (in \"{text}\")"));
    let (prefix, main) = if text.len() > 1 && text.ends_with("++") {
        (&text[..text.len() - 2], "+")
    } else {
        match text.rfind('+') {
            Some(i) if i + 1 < text.len() => (&text[..i], &text[i + 1..]),
            _ => ("", text),
        }
    };
    if main.is_empty() {
        return Err(EngineError::Invalid("Missing key name".into()));
    }
    let mut modifiers = Vec::new();
    for part in prefix.split('+').filter(|p| !p.is_empty()) {
        let key = named_key(part)
            .filter(|k| k.modifier != 0)
            .ok_or_else(|| unknown(part))?;
        modifiers.push(key);
    }
    let shift_held = modifiers.iter().any(|m| m.modifier == SHIFT);
    let mut key = named_key(main).ok_or_else(|| unknown(main))?;
    // Shift+a types "A" (what a real keyboard does).
    if shift_held && main.chars().count() == 1 && main.chars().all(|c| c.is_ascii_lowercase()) {
        let upper = main.to_ascii_uppercase();
        key.key = upper.clone();
        key.text = Some(upper);
    }
    Ok(Chord { modifiers, key })
}

/// `Input.dispatchKeyEvent` params.
pub(crate) fn key_event(kind: &str, key: &Key, modifiers: i64) -> cdp::DispatchKeyEventParams {
    // Command chords (Control/Meta) and Alt combinations type no text.
    let text = key
        .text
        .as_deref()
        .filter(|_| kind == "keyDown" && modifiers & (CONTROL | META | ALT) == 0);
    let kind = match kind {
        "keyDown" if text.is_none() => cdp::DispatchKeyEventType::RawKeyDown,
        "keyDown" => cdp::DispatchKeyEventType::KeyDown,
        _ => cdp::DispatchKeyEventType::KeyUp,
    };
    cdp::DispatchKeyEventParams {
        key: Some(key.key.clone()),
        code: Some(key.code.to_string()),
        windows_virtual_key_code: Some(key.key_code),
        native_virtual_key_code: Some(key.key_code),
        modifiers: Some(modifiers),
        text: text.map(str::to_string),
        unmodified_text: text.map(str::to_string),
        location: (key.location != 0).then_some(key.location),
        ..cdp::DispatchKeyEventParams::new(kind)
    }
}

/// The key events of a press of `chord`, with `held` modifiers already down.
pub(crate) fn press_events(chord: &Chord, held: i64) -> Vec<cdp::DispatchKeyEventParams> {
    let mut events = Vec::new();
    let mut modifiers = held;
    for m in &chord.modifiers {
        modifiers |= m.modifier;
        events.push(key_event("keyDown", m, modifiers));
    }
    events.push(key_event("keyDown", &chord.key, modifiers));
    events.push(key_event("keyUp", &chord.key, modifiers));
    for m in chord.modifiers.iter().rev() {
        modifiers &= !m.modifier | held;
        events.push(key_event("keyUp", m, modifiers));
    }
    events
}

/// One step of typing a string (built and consumed within one call, so not boxed).
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Stroke {
    /// A key event.
    Key(cdp::DispatchKeyEventParams),
    /// `Input.insertText` for a character without a key.
    Insert(String),
}

impl Stroke {
    /// The input event of this stroke.
    pub(crate) fn into_event(self) -> InputEvent {
        match self {
            Stroke::Key(params) => InputEvent::Key(params),
            Stroke::Insert(text) => insert_text(&text),
        }
    }
}

/// The events that type `c` with `held` modifiers down.
pub(crate) fn char_strokes(c: char, held: i64) -> Vec<Stroke> {
    match char_key(c) {
        Some((key, shift)) => {
            let modifiers = held | if shift { SHIFT } else { 0 };
            vec![
                Stroke::Key(key_event("keyDown", &key, modifiers)),
                Stroke::Key(key_event("keyUp", &key, modifiers)),
            ]
        }
        None => vec![Stroke::Insert(c.to_string())],
    }
}

/// CDP's button and bit for a mouse button name.
pub(crate) fn button(name: &str) -> Result<(cdp::MouseButton, i64)> {
    match name.to_ascii_lowercase().as_str() {
        "" | "left" => Ok((cdp::MouseButton::Left, 1)),
        "right" => Ok((cdp::MouseButton::Right, 2)),
        "middle" => Ok((cdp::MouseButton::Middle, 4)),
        "back" => Ok((cdp::MouseButton::Back, 8)),
        "forward" => Ok((cdp::MouseButton::Forward, 16)),
        other => Err(EngineError::Invalid(format!(
            "Invalid mouse button: {other}. Use left, right or middle"
        ))),
    }
}

/// Sends `events` on `session` in order and waits for the reply to the last one, unless the tab
/// opens a dialog first. Returns whether a dialog opened (the page then waits for `dialog
/// accept`/`dismiss`; the held-back reply is dropped).
pub(crate) async fn dispatch(
    tab: &Tab,
    session: &CdpSession,
    command: &str,
    events: &[InputEvent],
    deadline: Instant,
) -> Result<bool> {
    let Some((last, rest)) = events.split_last() else {
        return Ok(false);
    };
    tab.check_usable(command)?;
    for event in rest {
        event.send(session).await?;
    }
    let timeout = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    watch_dialog(tab, command, last.call(session, timeout)).await
}

/// Awaits `work` on the tab; a dialog opening first ends the wait with `Ok(true)`; the tab
/// closing or crashing ends it with that error.
pub(crate) async fn watch_dialog<T>(
    tab: &Tab,
    command: &str,
    work: impl Future<Output = std::result::Result<T, abx_cdp::Error>>,
) -> Result<bool> {
    let mut changes = tab.watch_state();
    tokio::pin!(work);
    loop {
        // Work first, as in `Tab::guarded`; a dialog that opened meanwhile still counts.
        tokio::select! {
            biased;
            outcome = &mut work => {
                return match outcome {
                    Ok(_) => Ok(tab.dialog().is_some()),
                    Err(err) => {
                        // The reply may have failed because a dialog opened meanwhile.
                        if tab.dialog().is_some() { Ok(true) } else { Err(tab.translate(err.into(), command)) }
                    }
                };
            }
            changed = changes.changed() => {
                if changed.is_err() {
                    return Err(EngineError::TabGone { target_id: tab.target_id().to_string(), last_url: None });
                }
                let (dialog, gone) = {
                    let st = changes.borrow_and_update();
                    (st.dialog.is_some(), st.detached || st.crashed)
                };
                if dialog {
                    return Ok(true);
                }
                if gone {
                    return Err(tab.translate(EngineError::Cancelled(command.to_string()), command));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_carries_a_carriage_return_and_letters_their_codes() {
        let enter = named_key("Enter").expect("Enter");
        assert_eq!(
            (enter.code, enter.key_code, enter.text.as_deref()),
            ("Enter", 13, Some("\r"))
        );
        let event = key_event("keyDown", &enter, 0);
        assert_eq!(event.r#type, cdp::DispatchKeyEventType::KeyDown);
        assert_eq!(event.text.as_deref(), Some("\r"));
        let a = named_key("a").expect("a");
        assert_eq!((a.code, a.key_code), ("KeyA", 65));
        assert_eq!(named_key("escape").expect("case-insensitive").key, "Escape");
        assert_eq!(named_key("Esc").expect("alias").key, "Escape");
        assert!(named_key("Nope").is_none());
    }

    #[test]
    fn chords_hold_modifiers_and_command_chords_type_nothing() {
        let chord = parse_chord("Control+a").expect("chord");
        let events = press_events(&chord, 0);
        assert_eq!(events.len(), 4);
        assert_eq!(events[0].key.as_deref(), Some("Control"));
        assert_eq!(events[0].modifiers, Some(CONTROL));
        assert_eq!(events[1].r#type, cdp::DispatchKeyEventType::RawKeyDown);
        assert!(events[1].text.is_none());
        assert_eq!(events[3].r#type, cdp::DispatchKeyEventType::KeyUp);
        assert_eq!(events[3].modifiers, Some(0));

        let shift_tab = press_events(&parse_chord("Shift+Tab").expect("chord"), 0);
        assert_eq!(shift_tab[1].key.as_deref(), Some("Tab"));
        assert_eq!(shift_tab[1].modifiers, Some(SHIFT));

        let upper = parse_chord("Shift+a").expect("chord");
        assert_eq!(upper.key.text.as_deref(), Some("A"));
        assert_eq!(parse_chord("Control++").expect("plus").key.key, "+");
        assert!(parse_chord("Hyper+a").is_err());
    }

    #[test]
    fn typing_uses_shift_for_capitals_and_inserts_what_has_no_key() {
        let strokes = char_strokes('A', 0);
        match &strokes[0] {
            Stroke::Key(e) => {
                assert_eq!(e.modifiers, Some(SHIFT));
                assert_eq!(e.text.as_deref(), Some("A"));
            }
            other => panic!("expected a key, got {other:?}"),
        }
        assert_eq!(char_strokes('é', 0), vec![Stroke::Insert("é".into())]);
        let bang = char_key('!').expect("!");
        assert_eq!((bang.0.code, bang.1), ("Digit1", true));
    }

    /// The typed events serialize to what Chrome took as JSON before: same fields, no nulls.
    #[test]
    fn key_events_serialize_like_the_json_they_replace() {
        let enter = named_key("Enter").expect("Enter");
        let json = serde_json::to_value(key_event("keyDown", &enter, 0)).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"type": "keyDown", "key": "Enter", "code": "Enter",
                "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13, "modifiers": 0,
                "text": "\r", "unmodifiedText": "\r"})
        );
        let shift = named_key("Shift").expect("Shift");
        let json = serde_json::to_value(key_event("keyUp", &shift, 0)).expect("json");
        assert_eq!(json["location"], 1);
        assert!(json.get("text").is_none());
    }

    #[test]
    fn untyped_input_is_decoded_or_refused() {
        let moved = InputEvent::from_json(
            "Input.dispatchMouseEvent",
            &serde_json::json!({"type": "mouseMoved", "x": 1, "y": 2}),
        )
        .expect("a mouse event");
        assert_eq!(moved.method(), "Input.dispatchMouseEvent");
        assert!(
            InputEvent::from_json(
                "Input.dispatchMouseEvent",
                &serde_json::json!({"type": "wobble"})
            )
            .is_err()
        );
        assert!(InputEvent::from_json("Page.navigate", &serde_json::json!({})).is_err());
    }
}
