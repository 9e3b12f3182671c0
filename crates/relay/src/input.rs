//! Viewer input: mouse, keyboard and touch events, as the stream protocol carries them and as
//! CDP `Input.dispatch*Event` takes them.
//!
//! Coordinates are CSS pixels of the page. A viewer that draws frames scaled must map pointer
//! positions from the decoded image size (see [`crate::FrameMetadata::image_size`]), never from
//! the viewport size alone (seed 000, invariant 33).

use std::str::FromStr;

use abx_cdp::protocol::browser_protocol::input as cdp;
use abx_engine::{EngineError, InputEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One input event for the streamed tab.
///
/// ```
/// use abx_relay::{Input, KeyInput, MouseInput};
/// // A click at (120, 40) CSS px, then typing "a".
/// let mut batch = vec![
///     Input::Mouse(MouseInput::left("mousePressed", 120.0, 40.0)),
///     Input::Mouse(MouseInput::left("mouseReleased", 120.0, 40.0)),
/// ];
/// batch.extend(KeyInput::typed('a').map(Input::Keyboard));
/// assert_eq!(batch.len(), 4);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Input {
    /// `Input.dispatchMouseEvent`.
    Mouse(MouseInput),
    /// `Input.dispatchKeyEvent`.
    Keyboard(KeyInput),
    /// `Input.dispatchTouchEvent`.
    Touch(TouchInput),
}

/// A protocol enum from the viewer's text; an unknown name is refused before anything is sent.
fn parse<T: FromStr>(what: &str, name: &str) -> Result<T, EngineError> {
    T::from_str(name).map_err(|_| EngineError::Invalid(format!("unknown {what}: {name:?}")))
}

impl Input {
    /// The engine's typed input event for this one (every field the stream protocol carries is
    /// sent, as before). An unknown event type or button is an error.
    ///
    /// ```
    /// use abx_relay::{Input, MouseInput};
    /// let click = Input::Mouse(MouseInput::left("mousePressed", 1.0, 2.0)).to_event().unwrap();
    /// assert_eq!(click.method(), "Input.dispatchMouseEvent");
    /// assert!(Input::Mouse(MouseInput { event_type: "wobble".into(), ..Default::default() }).to_event().is_err());
    /// ```
    pub fn to_event(&self) -> Result<InputEvent, EngineError> {
        Ok(match self {
            Input::Mouse(m) => InputEvent::Mouse(cdp::DispatchMouseEventParams {
                button: Some(parse("mouse button", &m.button)?),
                click_count: Some(m.click_count),
                delta_x: Some(m.delta_x),
                delta_y: Some(m.delta_y),
                modifiers: Some(m.modifiers),
                ..cdp::DispatchMouseEventParams::new(
                    parse::<cdp::DispatchMouseEventType>("mouse event type", &m.event_type)?,
                    m.x,
                    m.y,
                )
            }),
            Input::Keyboard(k) => {
                let k = k.normalized();
                InputEvent::Key(cdp::DispatchKeyEventParams {
                    key: Some(k.key),
                    code: Some(k.code),
                    text: k.text,
                    windows_virtual_key_code: Some(k.windows_virtual_key_code),
                    modifiers: Some(k.modifiers),
                    ..cdp::DispatchKeyEventParams::new(parse::<cdp::DispatchKeyEventType>(
                        "key event type",
                        &k.event_type,
                    )?)
                })
            }
            Input::Touch(t) => {
                let points = t
                    .touch_points
                    .iter()
                    .map(|p| {
                        cdp::TouchPoint::deserialize(p)
                            .map_err(|e| EngineError::Invalid(format!("invalid touch point: {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                InputEvent::Touch(cdp::DispatchTouchEventParams {
                    modifiers: Some(t.modifiers),
                    ..cdp::DispatchTouchEventParams::new(
                        parse::<cdp::DispatchTouchEventType>("touch event type", &t.event_type)?,
                        points,
                    )
                })
            }
        })
    }
}

/// A mouse event. Defaults follow the stream protocol: `mouseMoved` at (0, 0), button `none`.
///
/// ```
/// use abx_relay::MouseInput;
/// let wheel = MouseInput { event_type: "mouseWheel".into(), x: 10.0, y: 10.0, delta_y: 300.0, ..MouseInput::default() };
/// assert_eq!(wheel.button, "none");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MouseInput {
    /// `mousePressed`, `mouseReleased`, `mouseMoved` or `mouseWheel`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// X in CSS pixels.
    pub x: f64,
    /// Y in CSS pixels.
    pub y: f64,
    /// `none`, `left`, `middle`, `right`, `back`, `forward`.
    pub button: String,
    /// 1 for a click, 2 for a double click's second press...
    pub click_count: i64,
    /// Wheel delta X.
    pub delta_x: f64,
    /// Wheel delta Y.
    pub delta_y: f64,
    /// Alt=1, Ctrl=2, Meta=4, Shift=8.
    pub modifiers: i64,
}

impl Default for MouseInput {
    fn default() -> Self {
        Self {
            event_type: "mouseMoved".into(),
            x: 0.0,
            y: 0.0,
            button: "none".into(),
            click_count: 0,
            delta_x: 0.0,
            delta_y: 0.0,
            modifiers: 0,
        }
    }
}

impl MouseInput {
    /// A left-button press or release at (x, y) with `clickCount` 1.
    ///
    /// ```
    /// let down = abx_relay::MouseInput::left("mousePressed", 5.0, 6.0);
    /// assert_eq!((down.button.as_str(), down.click_count), ("left", 1));
    /// ```
    pub fn left(event_type: &str, x: f64, y: f64) -> MouseInput {
        MouseInput {
            event_type: event_type.into(),
            x,
            y,
            button: "left".into(),
            click_count: 1,
            ..MouseInput::default()
        }
    }
}

/// A key event. `text` is omitted from the CDP call when absent (never sent as null).
///
/// ```
/// use abx_relay::KeyInput;
/// let backspace = KeyInput { key: "Backspace".into(), code: "Backspace".into(), ..KeyInput::default() };
/// assert_eq!(backspace.event_type, "keyDown");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyInput {
    /// `keyDown`, `keyUp`, `rawKeyDown` or `char`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// DOM `key` (`a`, `Enter`, `Backspace`...).
    pub key: String,
    /// DOM `code` (`KeyA`, `Enter`...).
    pub code: String,
    /// The text the key produces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Legacy key code; Chrome ignores editing keys (Backspace, arrows...) without it.
    pub windows_virtual_key_code: i64,
    /// Alt=1, Ctrl=2, Meta=4, Shift=8.
    pub modifiers: i64,
}

impl Default for KeyInput {
    fn default() -> Self {
        Self {
            event_type: "keyDown".into(),
            key: String::new(),
            code: String::new(),
            text: None,
            windows_virtual_key_code: 0,
            modifiers: 0,
        }
    }
}

impl KeyInput {
    /// The events that type `c` the way a keyboard does: `keyDown` with the text, then `keyUp`.
    ///
    /// ```
    /// let [down, up] = abx_relay::KeyInput::typed('\n');
    /// assert_eq!((down.key.as_str(), down.text.as_deref()), ("Enter", Some("\r")));
    /// assert_eq!(up.event_type, "keyUp");
    /// ```
    pub fn typed(c: char) -> [KeyInput; 2] {
        let key = c.to_string();
        let text = if c == '\n' {
            "\r".to_string()
        } else {
            key.clone()
        };
        let key = if c == '\n' { "Enter".to_string() } else { key };
        let code = legacy_key_code(&key);
        [
            KeyInput {
                event_type: "keyDown".into(),
                key: key.clone(),
                text: Some(text),
                windows_virtual_key_code: code,
                ..KeyInput::default()
            },
            KeyInput {
                event_type: "keyUp".into(),
                key,
                windows_virtual_key_code: code,
                ..KeyInput::default()
            },
        ]
    }

    /// Fills what a viewer commonly leaves out so the key does what a real keyboard would
    /// (seed 000, invariant 34): a missing legacy key code for known keys, and the carriage
    /// return an `Enter` key-down needs to submit forms. Printable keys without `text` are left
    /// alone: the viewer may be sending their text as separate `char` events, and adding it here
    /// would type it twice.
    ///
    /// ```
    /// use abx_relay::KeyInput;
    /// let enter = KeyInput { key: "Enter".into(), ..KeyInput::default() }.normalized();
    /// assert_eq!((enter.windows_virtual_key_code, enter.text.as_deref()), (13, Some("\r")));
    /// ```
    pub fn normalized(&self) -> KeyInput {
        let mut key = self.clone();
        if key.windows_virtual_key_code == 0 {
            key.windows_virtual_key_code = legacy_key_code(&key.key);
        }
        if key.key == "Enter" && key.event_type == "keyDown" && key.text.is_none() {
            key.text = Some("\r".into());
        }
        key
    }
}

/// The Windows virtual key code of a DOM `key` (0 when unknown).
///
/// ```
/// assert_eq!(abx_relay::legacy_key_code("Backspace"), 8);
/// assert_eq!(abx_relay::legacy_key_code("q"), 81);
/// assert_eq!(abx_relay::legacy_key_code("€"), 0);
/// ```
pub fn legacy_key_code(key: &str) -> i64 {
    let named = match key {
        "Backspace" => 8,
        "Tab" => 9,
        "Enter" => 13,
        "Shift" => 16,
        "Control" => 17,
        "Alt" => 18,
        "Pause" => 19,
        "CapsLock" => 20,
        "Escape" | "Esc" => 27,
        " " => 32,
        "PageUp" => 33,
        "PageDown" => 34,
        "End" => 35,
        "Home" => 36,
        "ArrowLeft" | "Left" => 37,
        "ArrowUp" | "Up" => 38,
        "ArrowRight" | "Right" => 39,
        "ArrowDown" | "Down" => 40,
        "Insert" => 45,
        "Delete" | "Del" => 46,
        "Meta" => 91,
        "ContextMenu" => 93,
        "NumLock" => 144,
        "ScrollLock" => 145,
        _ => 0,
    };
    if named != 0 {
        return named;
    }
    if let Some(n) = key.strip_prefix('F').and_then(|n| n.parse::<i64>().ok())
        && (1..=24).contains(&n)
    {
        return 111 + n;
    }
    let mut chars = key.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => i64::from(c.to_ascii_uppercase() as u8),
        (Some(c), None) if c.is_ascii_digit() => i64::from(c as u8),
        _ => 0,
    }
}

/// A touch event.
///
/// ```
/// let tap = abx_relay::TouchInput { touch_points: vec![serde_json::json!({"x": 10, "y": 20})], ..Default::default() };
/// assert_eq!(tap.event_type, "touchStart");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchInput {
    /// `touchStart`, `touchEnd`, `touchMove` or `touchCancel`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// CDP `TouchPoint` objects (`{x, y, ...}`).
    pub touch_points: Vec<Value>,
    /// Alt=1, Ctrl=2, Meta=4, Shift=8.
    pub modifiers: i64,
}

impl Default for TouchInput {
    fn default() -> Self {
        Self {
            event_type: "touchStart".into(),
            touch_points: Vec::new(),
            modifiers: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CDP method and params an input becomes.
    fn cdp(input: Input) -> (&'static str, Value) {
        let event = input.to_event().expect("a valid input");
        let params = match &event {
            InputEvent::Mouse(p) => serde_json::to_value(p),
            InputEvent::Key(p) => serde_json::to_value(p),
            InputEvent::Touch(p) => serde_json::to_value(p),
            other => panic!("unexpected {other:?}"),
        };
        (event.method(), params.expect("json"))
    }

    /// The typed events carry what the JSON they replaced carried (the stream protocol's fields).
    #[test]
    fn viewer_input_becomes_the_same_cdp_call_as_before() {
        let mouse = Input::Mouse(MouseInput::left("mousePressed", 1.5, 2.0))
            .to_event()
            .expect("mouse");
        let InputEvent::Mouse(params) = mouse else {
            panic!("not a mouse event")
        };
        assert_eq!(
            serde_json::to_value(params).expect("json"),
            serde_json::json!({"type": "mousePressed", "x": 1.5, "y": 2.0, "button": "left",
                "clickCount": 1, "deltaX": 0.0, "deltaY": 0.0, "modifiers": 0})
        );
        let key = Input::Keyboard(KeyInput {
            key: "Enter".into(),
            ..KeyInput::default()
        })
        .to_event()
        .expect("key");
        let InputEvent::Key(params) = key else {
            panic!("not a key event")
        };
        assert_eq!(
            serde_json::to_value(params).expect("json"),
            serde_json::json!({"type": "keyDown", "key": "Enter", "code": "", "text": "\r",
                "windowsVirtualKeyCode": 13, "modifiers": 0})
        );
        let touch = Input::Touch(TouchInput {
            touch_points: vec![serde_json::json!({"x": 3, "y": 4})],
            ..TouchInput::default()
        })
        .to_event()
        .expect("touch");
        assert_eq!(touch.method(), "Input.dispatchTouchEvent");
        let bad = Input::Touch(TouchInput {
            touch_points: vec![serde_json::json!({"x": "left"})],
            ..TouchInput::default()
        });
        assert!(bad.to_event().is_err());
    }

    #[test]
    fn non_printable_keys_get_their_legacy_code_and_enter_its_return() {
        let backspace = KeyInput {
            key: "Backspace".into(),
            code: "Backspace".into(),
            ..KeyInput::default()
        }
        .normalized();
        assert_eq!(backspace.windows_virtual_key_code, 8);
        assert_eq!(backspace.text, None);
        let enter = KeyInput {
            key: "Enter".into(),
            ..KeyInput::default()
        }
        .normalized();
        assert_eq!(enter.windows_virtual_key_code, 13);
        assert_eq!(enter.text.as_deref(), Some("\r"));
        let enter_up = KeyInput {
            event_type: "keyUp".into(),
            key: "Enter".into(),
            ..KeyInput::default()
        }
        .normalized();
        assert_eq!(enter_up.text, None, "only the key-down carries the return");
        // A printable key without text stays without text (the viewer may send `char`).
        let a = KeyInput {
            key: "a".into(),
            ..KeyInput::default()
        }
        .normalized();
        assert_eq!(a.text, None);
        assert_eq!(a.windows_virtual_key_code, 65);
        // An explicit code wins.
        let custom = KeyInput {
            key: "Enter".into(),
            windows_virtual_key_code: 108,
            text: Some("\r".into()),
            ..KeyInput::default()
        }
        .normalized();
        assert_eq!(custom.windows_virtual_key_code, 108);
    }

    #[test]
    fn legacy_codes() {
        assert_eq!(legacy_key_code("F1"), 112);
        assert_eq!(legacy_key_code("F12"), 123);
        assert_eq!(legacy_key_code("7"), 55);
        assert_eq!(legacy_key_code("z"), 90);
        assert_eq!(legacy_key_code("é"), 0);
        assert_eq!(legacy_key_code("Fx"), 0);
        assert_eq!(legacy_key_code(""), 0);
    }

    #[test]
    fn text_is_omitted_not_null() {
        let (method, params) = cdp(Input::Keyboard(KeyInput {
            key: "Shift".into(),
            ..KeyInput::default()
        }));
        assert_eq!(method, "Input.dispatchKeyEvent");
        assert!(params.get("text").is_none(), "{params}");
        assert_eq!(params["type"], "keyDown");
        assert_eq!(params["windowsVirtualKeyCode"], 16);
    }

    #[test]
    fn typed_characters_carry_text_and_newline_is_enter() {
        let [down, up] = KeyInput::typed('x');
        assert_eq!(down.text.as_deref(), Some("x"));
        assert_eq!(up.event_type, "keyUp");
        let [enter, _] = KeyInput::typed('\n');
        assert_eq!(enter.key, "Enter");
        assert_eq!(enter.text.as_deref(), Some("\r"));
        assert_eq!(enter.windows_virtual_key_code, 13);
    }

    #[test]
    fn mouse_params_use_cdp_names() {
        let (method, params) = cdp(Input::Mouse(MouseInput::left("mousePressed", 10.5, 20.0)));
        assert_eq!(method, "Input.dispatchMouseEvent");
        assert_eq!(params["type"], "mousePressed");
        assert_eq!(params["clickCount"], 1);
        assert_eq!(params["x"], 10.5);
        assert_eq!(params["deltaY"], 0.0);
    }
}
