//! The stream protocol: what the live view tells viewers ([`LiveEvent`], serialized by
//! [`LiveEvent::to_json`]) and what viewers send ([`ClientMessage`], parsed by
//! [`parse_client_message`]).
//!
//! Server → client, JSON text messages with a `type` (upstream agent-browser 0.41.2 §5.2 unless
//! marked *abx*): `status`, `tabs`, `frame` (see [`crate::Frame`]), `url`, `console`,
//! `page_error`, `command`, `result`, `error`, and *abx*: `dialog`, `dialog_closed`, `retarget`.
//!
//! Client → server: `input_mouse`, `input_keyboard`, `input_touch`, `config`, `ack`, and *abx*:
//! `dialog_answer`, `reopen_tab`.
//!
//! Parse errors never echo the values a viewer sent: a key event carries what a person types,
//! passwords included (seed 000, invariant 30).

use abx_engine::{Dialog, TabListing};
use serde_json::{Map, Value, json};

use crate::input::{Input, KeyInput, MouseInput, TouchInput};

/// Epoch milliseconds now (the `timestamp` of messages).
///
/// ```
/// assert!(abx_relay::protocol::now_ms() > 1_600_000_000_000);
/// ```
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The state line every viewer gets first and again on every change.
///
/// ```
/// use abx_relay::{LiveEvent, Status};
/// let wire = LiveEvent::Status(Status { connected: true, ..Status::default() }).to_json();
/// assert_eq!((wire["type"].as_str(), wire["engine"].as_str()), (Some("status"), Some("chrome")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Status {
    /// A browser is attached and alive.
    pub connected: bool,
    /// Chrome is screencasting the streamed tab.
    pub screencasting: bool,
    /// The streamed tab's viewport width in CSS pixels (from Chrome's frame metadata).
    pub viewport_width: u32,
    /// The streamed tab's viewport height in CSS pixels.
    pub viewport_height: u32,
    /// Whether Chrome shows the tab (a background tab produces no frames). *abx*.
    pub visible: bool,
    /// The streamed tab's target id. *abx*.
    pub target_id: Option<String>,
}

/// Why the live view now streams another tab.
///
/// ```
/// assert_eq!(abx_relay::RetargetReason::PopupClosed.as_str(), "popup_closed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetargetReason {
    /// The session's active tab changed (`tab new`, `tab <ref>`, a relaunch...).
    TabChanged,
    /// The streamed tab opened a popup; the view follows it.
    Popup,
    /// The popup closed; the view returns to the session's tab.
    PopupClosed,
    /// The tab was replaced by [`abx_engine::Session::reopen_tab`].
    Reopened,
}

impl RetargetReason {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RetargetReason::TabChanged => "tab_changed",
            RetargetReason::Popup => "popup",
            RetargetReason::PopupClosed => "popup_closed",
            RetargetReason::Reopened => "reopened",
        }
    }
}

/// Everything the live view reports besides frames.
///
/// ```
/// use abx_relay::LiveEvent;
/// let url = LiveEvent::Url { url: "http://127.0.0.1/".into(), timestamp: 1 }.to_json();
/// assert_eq!(url.to_string(), r#"{"timestamp":1,"type":"url","url":"http://127.0.0.1/"}"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LiveEvent {
    /// The state changed (browser, screencast, viewport, visibility, streamed tab).
    Status(Status),
    /// The session's tabs (same objects as `tab list`).
    Tabs {
        /// The tabs.
        tabs: Vec<TabListing>,
        /// Epoch ms.
        timestamp: u64,
    },
    /// The streamed tab's main frame navigated.
    Url {
        /// The new URL.
        url: String,
        /// Epoch ms.
        timestamp: u64,
    },
    /// `console.*` in the streamed tab.
    Console {
        /// CDP console type (`log`, `warning`, `error`...).
        level: String,
        /// The arguments as text.
        text: String,
        /// The raw `RemoteObject` arguments.
        args: Vec<Value>,
        /// Epoch ms.
        timestamp: u64,
    },
    /// An uncaught exception in the streamed tab.
    PageError {
        /// The error text.
        text: String,
        /// Line.
        line: i64,
        /// Column.
        column: i64,
        /// Epoch ms.
        timestamp: u64,
    },
    /// A JavaScript dialog opened on the streamed tab and waits for an answer. *abx*.
    Dialog {
        /// The dialog.
        dialog: Dialog,
    },
    /// The dialog closed. *abx*.
    DialogClosed {
        /// Accepted (OK) or dismissed.
        accepted: bool,
        /// The prompt text entered.
        user_input: String,
        /// `viewer`, `command` or `page` (Chrome reported it closed).
        by: String,
    },
    /// The view now streams another tab. *abx*.
    Retarget {
        /// The tab now streamed.
        target_id: String,
        /// Its URL.
        url: String,
        /// Why.
        reason: RetargetReason,
        /// Epoch ms.
        timestamp: u64,
    },
    /// A daemon command started (stream server only).
    Command {
        /// The request id.
        id: Value,
        /// The action.
        action: String,
        /// The request minus plugin and restore fields.
        params: Value,
        /// Epoch ms.
        timestamp: u64,
    },
    /// A daemon command ended (stream server only). Unlike upstream, `success` is correct.
    Result {
        /// The request id.
        id: Value,
        /// The action.
        action: String,
        /// Whether the command succeeded.
        success: bool,
        /// The response data.
        data: Value,
        /// Wall time of the command.
        duration_ms: u64,
        /// Epoch ms.
        timestamp: u64,
    },
    /// A server-side error a viewer should see.
    Error {
        /// What went wrong (never includes viewer input).
        message: String,
    },
}

impl LiveEvent {
    /// The wire message (one JSON object with a `type`).
    ///
    /// ```
    /// let error = abx_relay::LiveEvent::Error { message: "nope".into() }.to_json();
    /// assert_eq!(error["type"], "error");
    /// ```
    pub fn to_json(&self) -> Value {
        match self {
            LiveEvent::Status(s) => json!({
                "type": "status",
                "connected": s.connected,
                "screencasting": s.screencasting,
                "viewportWidth": s.viewport_width,
                "viewportHeight": s.viewport_height,
                "engine": "chrome",
                "recording": false,
                "visible": s.visible,
                "targetId": s.target_id,
            }),
            LiveEvent::Tabs { tabs, timestamp } => {
                json!({"type": "tabs", "tabs": tabs, "timestamp": timestamp})
            }
            LiveEvent::Url { url, timestamp } => {
                json!({"type": "url", "url": url, "timestamp": timestamp})
            }
            LiveEvent::Console {
                level,
                text,
                args,
                timestamp,
            } => {
                json!({"type": "console", "level": level, "text": text, "args": args, "timestamp": timestamp})
            }
            LiveEvent::PageError {
                text,
                line,
                column,
                timestamp,
            } => {
                json!({"type": "page_error", "text": text, "line": line, "column": column, "timestamp": timestamp})
            }
            LiveEvent::Dialog { dialog } => json!({
                "type": "dialog",
                "dialogType": dialog.kind,
                "message": dialog.message,
                "defaultPrompt": dialog.default_prompt,
                "url": dialog.url,
                "answerable": dialog.answerable,
                "timestamp": dialog.opened_at_ms,
            }),
            LiveEvent::DialogClosed {
                accepted,
                user_input,
                by,
            } => {
                json!({"type": "dialog_closed", "accepted": accepted, "userInput": user_input, "by": by, "timestamp": now_ms()})
            }
            LiveEvent::Retarget {
                target_id,
                url,
                reason,
                timestamp,
            } => {
                json!({"type": "retarget", "targetId": target_id, "url": url, "reason": reason.as_str(), "timestamp": timestamp})
            }
            LiveEvent::Command {
                id,
                action,
                params,
                timestamp,
            } => {
                json!({"type": "command", "id": id, "action": action, "params": params, "timestamp": timestamp})
            }
            LiveEvent::Result {
                id,
                action,
                success,
                data,
                duration_ms,
                timestamp,
            } => {
                json!({"type": "result", "id": id, "action": action, "success": success, "data": data, "duration_ms": duration_ms, "timestamp": timestamp})
            }
            LiveEvent::Error { message } => json!({"type": "error", "message": message}),
        }
    }
}

/// How a viewer wants frames delivered.
///
/// ```
/// assert_eq!(abx_relay::Pacing::default(), abx_relay::Pacing::Push);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pacing {
    /// Send the newest frame whenever one is ready and the socket takes it (upstream default).
    #[default]
    Push,
    /// At most one frame in flight: the next waits for the viewer's `ack`.
    Ack,
}

/// Per-viewer delivery settings (`config` message or `?maxFps=&pacing=` on the URL).
///
/// ```
/// use abx_relay::{Pacing, ViewerConfig};
/// let config = ViewerConfig::from_query("maxFps=30&pacing=ack");
/// assert_eq!((config.max_fps, config.pacing), (30, Pacing::Ack));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ViewerConfig {
    /// Frames per second ceiling; 0 = uncapped. At most [`MAX_FPS`].
    pub max_fps: u32,
    /// Delivery mode.
    pub pacing: Pacing,
}

/// The highest `maxFps` a viewer may ask for (larger values are clamped to it).
///
/// ```
/// assert_eq!(abx_relay::ViewerConfig::from_query("maxFps=999").max_fps, abx_relay::protocol::MAX_FPS);
/// ```
pub const MAX_FPS: u32 = 120;

impl ViewerConfig {
    /// Applies `?maxFps=N&pacing=ack|push` from a WebSocket URL query (bad values are ignored).
    ///
    /// ```
    /// assert_eq!(abx_relay::ViewerConfig::from_query("maxFps=x"), Default::default());
    /// ```
    pub fn from_query(query: &str) -> ViewerConfig {
        let mut config = ViewerConfig::default();
        for (key, value) in query_pairs(query) {
            match key.as_str() {
                "maxFps" => {
                    if let Ok(fps) = value.trim().parse::<u64>() {
                        config.max_fps = fps.min(u64::from(MAX_FPS)) as u32;
                    }
                }
                "pacing" => match value.trim() {
                    "ack" => config.pacing = Pacing::Ack,
                    "push" => config.pacing = Pacing::Push,
                    _ => {}
                },
                _ => {}
            }
        }
        config
    }
}

/// Decoded `key=value` pairs of a URL query.
///
/// ```
/// let pairs = abx_relay::protocol::query_pairs("token=a%2Bb&x");
/// assert_eq!(pairs, vec![("token".into(), "a+b".into()), ("x".into(), String::new())]);
/// ```
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes())
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect()
}

/// A message from a viewer.
///
/// ```
/// use abx_relay::{ClientMessage, parse_client_message};
/// let answer = parse_client_message(r#"{"type":"dialog_answer","accept":false}"#).unwrap();
/// assert_eq!(answer, ClientMessage::DialogAnswer { accept: false, prompt_text: None });
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientMessage {
    /// Mouse, keyboard or touch input for the streamed tab.
    Input(Input),
    /// Delivery settings; `None` fields stay as they were.
    Config {
        /// New `maxFps` (clamped to [`MAX_FPS`]).
        max_fps: Option<u32>,
        /// New pacing.
        pacing: Option<Pacing>,
    },
    /// Cumulative frame acknowledgement (ack pacing).
    Ack {
        /// The newest `seq` the viewer has rendered.
        seq: u64,
    },
    /// Answer the pending JavaScript dialog. *abx*.
    DialogAnswer {
        /// OK (true) or Cancel.
        accept: bool,
        /// Text for a `prompt`.
        prompt_text: Option<String>,
    },
    /// Replace the streamed tab with a fresh one at the same URL. *abx*.
    ReopenTab,
}

/// Why a viewer message was refused. The text names fields, never their values.
///
/// ```
/// let err = abx_relay::parse_client_message(r#"{"type":"input_mouse","x":"secret"}"#).unwrap_err();
/// assert_eq!(err.to_string(), "Invalid input_mouse: \"x\" must be a number");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

fn bad(message: impl Into<String>) -> ProtocolError {
    ProtocolError(message.into())
}

/// Parses one viewer text message.
///
/// ```
/// use abx_relay::{ClientMessage, parse_client_message};
/// let msg = parse_client_message(r#"{"type":"ack","seq":7}"#).unwrap();
/// assert_eq!(msg, ClientMessage::Ack { seq: 7 });
/// assert!(parse_client_message("{nope").is_err());
/// ```
pub fn parse_client_message(text: &str) -> Result<ClientMessage, ProtocolError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json's syntax errors give a position, not the content.
        bad(format!("Invalid JSON message: {e}"))
    })?;
    let Value::Object(map) = value else {
        return Err(bad(
            "Invalid message: expected a JSON object with a \"type\"",
        ));
    };
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err(bad("Invalid message: \"type\" must be a string")),
        None => return Err(bad("Invalid message: missing \"type\"")),
    };
    let fields = Fields { map: &map, kind };
    match kind {
        "input_mouse" => {
            let d = MouseInput::default();
            let event_type = fields.string("eventType", &d.event_type)?;
            one_of(
                kind,
                "eventType",
                &event_type,
                &["mousePressed", "mouseReleased", "mouseMoved", "mouseWheel"],
            )?;
            let button = fields.string("button", &d.button)?;
            one_of(
                kind,
                "button",
                &button,
                &["none", "left", "middle", "right", "back", "forward"],
            )?;
            Ok(ClientMessage::Input(Input::Mouse(MouseInput {
                event_type,
                x: fields.number("x")?,
                y: fields.number("y")?,
                button,
                click_count: fields.integer("clickCount")?,
                delta_x: fields.number("deltaX")?,
                delta_y: fields.number("deltaY")?,
                modifiers: fields.integer("modifiers")?,
            })))
        }
        "input_keyboard" => {
            let d = KeyInput::default();
            let event_type = fields.string("eventType", &d.event_type)?;
            one_of(
                kind,
                "eventType",
                &event_type,
                &["keyDown", "keyUp", "rawKeyDown", "char"],
            )?;
            Ok(ClientMessage::Input(Input::Keyboard(KeyInput {
                event_type,
                key: fields.string("key", "")?,
                code: fields.string("code", "")?,
                text: fields.optional_string("text")?,
                windows_virtual_key_code: fields.integer("windowsVirtualKeyCode")?,
                modifiers: fields.integer("modifiers")?,
            })))
        }
        "input_touch" => {
            let d = TouchInput::default();
            let event_type = fields.string("eventType", &d.event_type)?;
            one_of(
                kind,
                "eventType",
                &event_type,
                &["touchStart", "touchEnd", "touchMove", "touchCancel"],
            )?;
            let touch_points = match map.get("touchPoints") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(points)) => {
                    if points.iter().any(|p| !p.is_object()) {
                        return Err(bad(
                            "Invalid input_touch: \"touchPoints\" must be an array of objects",
                        ));
                    }
                    points.clone()
                }
                Some(_) => {
                    return Err(bad("Invalid input_touch: \"touchPoints\" must be an array"));
                }
            };
            Ok(ClientMessage::Input(Input::Touch(TouchInput {
                event_type,
                touch_points,
                modifiers: fields.integer("modifiers")?,
            })))
        }
        "config" => {
            // Upstream: negative or non-numeric maxFps is ignored, not an error.
            let max_fps = map
                .get("maxFps")
                .and_then(Value::as_u64)
                .map(|fps| fps.min(u64::from(MAX_FPS)) as u32);
            let pacing = match map.get("pacing").and_then(Value::as_str) {
                Some("ack") => Some(Pacing::Ack),
                Some("push") => Some(Pacing::Push),
                _ => None,
            };
            Ok(ClientMessage::Config { max_fps, pacing })
        }
        "ack" => match map.get("seq").and_then(Value::as_u64) {
            Some(seq) => Ok(ClientMessage::Ack { seq }),
            None => Err(bad("Invalid ack: \"seq\" must be a non-negative integer")),
        },
        "dialog_answer" => {
            let accept = match map.get("accept") {
                Some(Value::Bool(accept)) => *accept,
                _ => {
                    return Err(bad(
                        "Invalid dialog_answer: \"accept\" must be true or false",
                    ));
                }
            };
            Ok(ClientMessage::DialogAnswer {
                accept,
                prompt_text: fields.optional_string("promptText")?,
            })
        }
        "reopen_tab" => Ok(ClientMessage::ReopenTab),
        other => {
            let shown: String = other.chars().take(40).collect();
            Err(bad(format!("Unknown message type: {shown:?}")))
        }
    }
}

struct Fields<'a> {
    map: &'a Map<String, Value>,
    kind: &'a str,
}

impl Fields<'_> {
    fn string(&self, name: &str, default: &str) -> Result<String, ProtocolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(default.to_string()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(bad(format!(
                "Invalid {}: \"{name}\" must be a string",
                self.kind
            ))),
        }
    }

    fn optional_string(&self, name: &str) -> Result<Option<String>, ProtocolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!(
                "Invalid {}: \"{name}\" must be a string",
                self.kind
            ))),
        }
    }

    fn number(&self, name: &str) -> Result<f64, ProtocolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(0.0),
            Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()).ok_or_else(|| {
                bad(format!(
                    "Invalid {}: \"{name}\" must be a number",
                    self.kind
                ))
            }),
            Some(_) => Err(bad(format!(
                "Invalid {}: \"{name}\" must be a number",
                self.kind
            ))),
        }
    }

    fn integer(&self, name: &str) -> Result<i64, ProtocolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(0),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15)
                        .map(|f| f as i64)
                })
                .ok_or_else(|| {
                    bad(format!(
                        "Invalid {}: \"{name}\" must be an integer",
                        self.kind
                    ))
                }),
            Some(_) => Err(bad(format!(
                "Invalid {}: \"{name}\" must be an integer",
                self.kind
            ))),
        }
    }
}

fn one_of(kind: &str, name: &str, value: &str, allowed: &[&str]) -> Result<(), ProtocolError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(bad(format!(
            "Invalid {kind}: \"{name}\" must be one of {}",
            allowed.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Strategy;

    #[test]
    fn inputs_take_upstream_defaults() {
        let m = parse_client_message(r#"{"type":"input_mouse"}"#).expect("mouse");
        assert_eq!(m, ClientMessage::Input(Input::Mouse(MouseInput::default())));
        let k =
            parse_client_message(r#"{"type":"input_keyboard","key":"a","text":"a"}"#).expect("key");
        let ClientMessage::Input(Input::Keyboard(k)) = k else {
            panic!("not a key: {k:?}");
        };
        assert_eq!(k.event_type, "keyDown");
        assert_eq!(k.text.as_deref(), Some("a"));
        let k = parse_client_message(r#"{"type":"input_keyboard","key":"Shift","text":null}"#)
            .expect("key");
        let ClientMessage::Input(Input::Keyboard(k)) = k else {
            panic!("not a key: {k:?}");
        };
        assert_eq!(k.text, None, "null text is absent text");
        let t = parse_client_message(r#"{"type":"input_touch","touchPoints":[{"x":1,"y":2}]}"#)
            .expect("touch");
        let ClientMessage::Input(Input::Touch(t)) = t else {
            panic!("not touch: {t:?}");
        };
        assert_eq!(t.event_type, "touchStart");
        assert_eq!(t.touch_points.len(), 1);
    }

    #[test]
    fn mouse_fields_are_read() {
        let m = parse_client_message(
            r#"{"type":"input_mouse","eventType":"mousePressed","x":10.5,"y":3,"button":"left","clickCount":1,"modifiers":8.0}"#,
        )
        .expect("mouse");
        let ClientMessage::Input(Input::Mouse(m)) = m else {
            panic!("{m:?}")
        };
        assert_eq!((m.x, m.y, m.click_count, m.modifiers), (10.5, 3.0, 1, 8));
        assert_eq!(m.button, "left");
    }

    #[test]
    fn malformed_messages_are_errors_that_do_not_echo_values() {
        let secret = "hunter2-secret";
        let cases = [
            String::new(),
            "{".to_string(),
            "[]".to_string(),
            "42".to_string(),
            r#"{"no":"type"}"#.to_string(),
            r#"{"type":5}"#.to_string(),
            format!(r#"{{"type":"input_keyboard","key":{{"v":"{secret}"}}}}"#),
            format!(r#"{{"type":"input_keyboard","text":["{secret}"]}}"#),
            format!(r#"{{"type":"input_keyboard","eventType":"{secret}"}}"#),
            format!(r#"{{"type":"input_mouse","x":"{secret}"}}"#),
            r#"{"type":"input_mouse","x":1e999}"#.to_string(),
            r#"{"type":"input_mouse","button":"thumb"}"#.to_string(),
            r#"{"type":"input_mouse","clickCount":1.5}"#.to_string(),
            r#"{"type":"input_touch","touchPoints":"x"}"#.to_string(),
            r#"{"type":"input_touch","touchPoints":[1]}"#.to_string(),
            r#"{"type":"ack"}"#.to_string(),
            r#"{"type":"ack","seq":-1}"#.to_string(),
            r#"{"type":"dialog_answer"}"#.to_string(),
            format!(r#"{{"type":"dialog_answer","accept":true,"promptText":["{secret}"]}}"#),
            r#"{"type":"launch_missiles"}"#.to_string(),
            "\u{0}\u{ffff}".to_string(),
        ];
        for case in cases {
            let err = parse_client_message(&case).expect_err(&case);
            assert!(!err.0.contains(secret), "{case} → {err}");
            assert!(!err.0.is_empty());
        }
    }

    proptest::proptest! {
        /// Whatever a viewer sends, parsing returns a message or an error; it never panics.
        #[test]
        fn parsing_never_panics(text in ".{0,200}") {
            let _ = parse_client_message(&text);
        }

        /// Well-formed JSON with arbitrary field values of every message type: same.
        #[test]
        fn typed_messages_with_arbitrary_values_never_panic(
            kind in proptest::sample::select(vec![
                "input_mouse", "input_keyboard", "input_touch", "config", "ack",
                "dialog_answer", "reopen_tab", "other",
            ]),
            field in proptest::sample::select(vec![
                "eventType", "x", "y", "button", "clickCount", "deltaX", "modifiers", "key",
                "code", "text", "windowsVirtualKeyCode", "touchPoints", "maxFps", "pacing",
                "seq", "accept", "promptText",
            ]),
            value in proptest::prop_oneof![
                proptest::num::f64::ANY.prop_map(|f| json!(f)),
                proptest::num::i64::ANY.prop_map(|i| json!(i)),
                proptest::num::u64::ANY.prop_map(|u| json!(u)),
                ".{0,20}".prop_map(|s| json!(s)),
                proptest::bool::ANY.prop_map(|b| json!(b)),
                proptest::strategy::Just(Value::Null),
                proptest::strategy::Just(json!([1, {"x": 2}])),
                proptest::strategy::Just(json!({"nested": {"deep": [null]}})),
            ],
        ) {
            let mut message = json!({"type": kind});
            message[field] = value;
            let _ = parse_client_message(&message.to_string());
        }
    }

    #[test]
    fn config_clamps_and_ignores_bad_values() {
        assert_eq!(
            parse_client_message(r#"{"type":"config","maxFps":500,"pacing":"ack"}"#),
            Ok(ClientMessage::Config {
                max_fps: Some(MAX_FPS),
                pacing: Some(Pacing::Ack)
            })
        );
        assert_eq!(
            parse_client_message(r#"{"type":"config","maxFps":-3,"pacing":"warp"}"#),
            Ok(ClientMessage::Config {
                max_fps: None,
                pacing: None
            })
        );
        let c = ViewerConfig::from_query("maxFps=30&pacing=ack&token=x%20y");
        assert_eq!(
            c,
            ViewerConfig {
                max_fps: 30,
                pacing: Pacing::Ack
            }
        );
        assert_eq!(
            ViewerConfig::from_query("maxFps=abc&pacing="),
            ViewerConfig::default()
        );
        assert_eq!(ViewerConfig::from_query("maxFps=9999").max_fps, MAX_FPS);
    }

    #[test]
    fn query_decoding() {
        assert_eq!(
            query_pairs("token=a%2Bb%3D&x=1+2&bad=%zz&end=%4"),
            vec![
                ("token".to_string(), "a+b=".to_string()),
                ("x".to_string(), "1 2".to_string()),
                ("bad".to_string(), "%zz".to_string()),
                ("end".to_string(), "%4".to_string()),
            ]
        );
    }

    #[test]
    fn control_messages() {
        assert_eq!(
            parse_client_message(r#"{"type":"dialog_answer","accept":true,"promptText":"hi"}"#),
            Ok(ClientMessage::DialogAnswer {
                accept: true,
                prompt_text: Some("hi".into())
            })
        );
        assert_eq!(
            parse_client_message(r#"{"type":"reopen_tab"}"#),
            Ok(ClientMessage::ReopenTab)
        );
    }

    #[test]
    fn result_success_is_what_the_daemon_said() {
        let ok = LiveEvent::Result {
            id: json!("r1"),
            action: "url".into(),
            success: true,
            data: json!({"url": "x"}),
            duration_ms: 3,
            timestamp: 1,
        }
        .to_json();
        assert_eq!(ok["type"], "result");
        assert_eq!(ok["success"], true);
        assert_eq!(ok["duration_ms"], 3);
    }

    #[test]
    fn status_and_dialog_shapes() {
        let status = LiveEvent::Status(Status {
            connected: true,
            screencasting: true,
            viewport_width: 1280,
            viewport_height: 577,
            visible: true,
            target_id: Some("T".into()),
        })
        .to_json();
        assert_eq!(status["type"], "status");
        assert_eq!(status["viewportHeight"], 577);
        assert_eq!(status["engine"], "chrome");
        assert_eq!(status["recording"], false);
        let dialog = LiveEvent::Dialog {
            dialog: Dialog {
                kind: "prompt".into(),
                message: "name?".into(),
                default_prompt: Some("x".into()),
                url: "http://a/".into(),
                answerable: true,
                opened_at_ms: 5,
            },
        }
        .to_json();
        assert_eq!(dialog["type"], "dialog");
        assert_eq!(dialog["dialogType"], "prompt");
        assert_eq!(dialog["defaultPrompt"], "x");
    }
}
