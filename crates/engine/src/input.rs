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
use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::tab::Tab;

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
pub(crate) fn key_event(kind: &str, key: &Key, modifiers: i64) -> Value {
    // Command chords (Control/Meta) and Alt combinations type no text.
    let text = key
        .text
        .as_deref()
        .filter(|_| kind == "keyDown" && modifiers & (CONTROL | META | ALT) == 0);
    let kind = if kind == "keyDown" && text.is_none() {
        "rawKeyDown"
    } else {
        kind
    };
    let mut params = json!({"type": kind, "key": key.key, "code": key.code, "windowsVirtualKeyCode": key.key_code,
                            "nativeVirtualKeyCode": key.key_code, "modifiers": modifiers});
    if let Some(text) = text {
        params["text"] = json!(text);
        params["unmodifiedText"] = json!(text);
    }
    if key.location != 0 {
        params["location"] = json!(key.location);
    }
    params
}

/// The key events of a press of `chord`, with `held` modifiers already down.
pub(crate) fn press_events(chord: &Chord, held: i64) -> Vec<Value> {
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

/// One step of typing a string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stroke {
    /// A key event.
    Key(Value),
    /// `Input.insertText` for a character without a key.
    Insert(String),
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

/// CDP's name and bit for a mouse button.
pub(crate) fn button(name: &str) -> Result<(&'static str, i64)> {
    match name.to_ascii_lowercase().as_str() {
        "" | "left" => Ok(("left", 1)),
        "right" => Ok(("right", 2)),
        "middle" => Ok(("middle", 4)),
        "back" => Ok(("back", 8)),
        "forward" => Ok(("forward", 16)),
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
    events: &[(&str, Value)],
    deadline: Instant,
) -> Result<bool> {
    let Some(((last_method, last_params), rest)) = events.split_last() else {
        return Ok(false);
    };
    tab.check_usable(command)?;
    for (method, params) in rest {
        session.send_json(method, params).await?;
    }
    let timeout = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let last = session.call_json_within(last_method, last_params.clone(), timeout);
    watch_dialog(tab, command, last).await
}

/// Awaits `work` on the tab; a dialog opening first ends the wait with `Ok(true)`; the tab
/// closing or crashing ends it with that error.
pub(crate) async fn watch_dialog<T>(
    tab: &Tab,
    command: &str,
    work: impl Future<Output = std::result::Result<T, abx_cdp::Error>>,
) -> Result<bool> {
    let mut changes = tab.changes();
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
                if tab.dialog().is_some() {
                    return Ok(true);
                }
                let st = tab.state();
                if st.detached || st.crashed {
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
        assert_eq!(event["type"], "keyDown");
        assert_eq!(event["text"], "\r");
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
        assert_eq!(events[0]["key"], "Control");
        assert_eq!(events[0]["modifiers"], CONTROL);
        assert_eq!(events[1]["type"], "rawKeyDown");
        assert!(events[1].get("text").is_none());
        assert_eq!(events[3]["type"], "keyUp");
        assert_eq!(events[3]["modifiers"], 0);

        let shift_tab = press_events(&parse_chord("Shift+Tab").expect("chord"), 0);
        assert_eq!(shift_tab[1]["key"], "Tab");
        assert_eq!(shift_tab[1]["modifiers"], SHIFT);

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
                assert_eq!(e["modifiers"], SHIFT);
                assert_eq!(e["text"], "A");
            }
            other => panic!("expected a key, got {other:?}"),
        }
        assert_eq!(char_strokes('é', 0), vec![Stroke::Insert("é".into())]);
        let bang = char_key('!').expect("!");
        assert_eq!((bang.0.code, bang.1), ("Digit1", true));
    }
}
