//! The request and response lines of the CLI⇄daemon protocol.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Fields the CLI adds to every request besides the command's own (upstream 0.41.2's shape).
pub mod extras {
    /// The plugin registry (always present, `[]` by default).
    pub const PLUGINS: &str = "plugins";
    /// `true` when the session is pinned, `false` after an explicit `--no-pin-tab`.
    pub const PIN_TAB: &str = "pinTab";
    /// The restore key, when `--restore` (or the legacy `--session-name`) is in effect.
    pub const RESTORE_KEY: &str = "restoreKey";
    /// `auto`, `always` or `never`.
    pub const RESTORE_SAVE: &str = "restoreSave";
    /// Restore check: the URL to open.
    pub const RESTORE_CHECK_URL: &str = "restoreCheckUrl";
    /// Restore check: text that must be on the page.
    pub const RESTORE_CHECK_TEXT: &str = "restoreCheckText";
    /// Restore check: a function that must return true.
    pub const RESTORE_CHECK_FN: &str = "restoreCheckFn";
    /// The request id (added by the sender).
    pub const ID: &str = "id";
    /// The action name.
    pub const ACTION: &str = "action";
    /// A command's own deadline in milliseconds (every command may carry one).
    pub const TIMEOUT: &str = "timeout";
    /// abx's own: `true` when the sender prints the reply as text, so the daemon may leave out
    /// of the line what text never shows (a snapshot's `refs`, up to half of a megabyte line).
    /// Upstream's CLI never sends it and gets every key; upstream's daemon ignores it.
    pub const TEXT_REPLY: &str = "abxTextReply";
    /// abx's own, in a reply to a [`TEXT_REPLY`] request: `{"key": k, "bytes": n}` says that
    /// the line leaves out the string `data.k`, and that its `n` bytes of UTF-8 follow the
    /// line's newline as they are, unescaped (a snapshot's text: half a megabyte that the
    /// reader would otherwise scan and unescape). Only sent to a sender that asked for text.
    pub const TEXT_TAIL: &str = "abxTail";

    /// What a viewer of the live view is not shown of a request (plugin and restore settings,
    /// the envelope itself).
    pub const PRIVATE: &[&str] = &[
        PLUGINS,
        RESTORE_KEY,
        RESTORE_SAVE,
        RESTORE_CHECK_URL,
        RESTORE_CHECK_TEXT,
        RESTORE_CHECK_FN,
        ID,
        ACTION,
        TEXT_REPLY,
    ];
}

/// The parameters of a request that has none (`{}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoParams {}

/// The request line for `action` with the fields of `params` (an object-shaped request struct).
///
/// Keys come out sorted when the value is written (serde_json's map), like upstream's CLI.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Press { key: String }
/// let line = abx_wire::encode("press", &Press { key: "Enter".into() });
/// assert_eq!(line["action"], "press");
/// assert_eq!(line["key"], "Enter");
/// ```
pub fn encode<T: Serialize>(action: &str, params: &T) -> Value {
    // Request structs are plain objects of strings, numbers and booleans: they always encode to
    // an object. Anything else (a unit struct, a failing serializer) adds no fields.
    let mut map = match serde_json::to_value(params) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    map.insert(extras::ACTION.to_string(), Value::from(action));
    Value::Object(map)
}

/// A parsed request line.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The request id (echoed back; `null` when the line had none).
    pub id: Value,
    /// The action name.
    pub action: String,
    /// The whole object (parameters, `id` and `action` included).
    pub params: Map<String, Value>,
}

/// Why a request's parameters do not fit its command's request type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Invalid request: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

impl Request {
    /// A request from a line's object, or `None` when it has no non-empty `action` string.
    ///
    /// ```
    /// let object = serde_json::json!({"id": "r1", "action": "url"});
    /// let request = abx_wire::Request::from_object(object.as_object().cloned().unwrap_or_default());
    /// assert_eq!(request.map(|r| r.action), Some("url".to_string()));
    /// ```
    pub fn from_object(params: Map<String, Value>) -> Option<Request> {
        let action = match params.get(extras::ACTION) {
            Some(Value::String(action)) if !action.is_empty() => action.clone(),
            _ => return None,
        };
        let id = params.get(extras::ID).cloned().unwrap_or(Value::Null);
        Some(Request { id, action, params })
    }

    /// The parameters as the command's request type. Unknown fields are ignored; a field of
    /// the wrong type is an error.
    ///
    /// ```
    /// #[derive(serde::Deserialize)]
    /// struct Press { key: Option<String> }
    /// let object = serde_json::json!({"action": "press", "key": "Enter"});
    /// let request = abx_wire::Request::from_object(object.as_object().cloned().unwrap_or_default()).expect("request");
    /// assert_eq!(request.decode::<Press>().expect("decodes").key.as_deref(), Some("Enter"));
    /// ```
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, DecodeError> {
        T::deserialize(&self.params).map_err(|e| DecodeError(e.to_string()))
    }

    /// A string parameter.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(Value::as_str)
    }

    /// A required string parameter, or upstream's `Missing required parameter: <key>`.
    pub fn required_str(&self, key: &str) -> Result<&str, String> {
        self.str(key).ok_or_else(|| Self::missing(key))
    }

    /// A boolean parameter (default false).
    pub fn flag(&self, key: &str) -> bool {
        self.params
            .get(key)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// An unsigned number parameter (a non-negative float is truncated).
    pub fn u64(&self, key: &str) -> Option<u64> {
        self.params.get(key).and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        })
    }

    /// A float parameter.
    pub fn f64(&self, key: &str) -> Option<f64> {
        self.params.get(key).and_then(Value::as_f64)
    }

    /// The request without the fields a live-view viewer is not shown ([`extras::PRIVATE`]).
    pub fn public_params(&self) -> Value {
        let mut params = self.params.clone();
        for key in extras::PRIVATE {
            params.remove(*key);
        }
        Value::Object(params)
    }
}

impl Request {
    /// Upstream's text for a required parameter that is missing.
    ///
    /// ```
    /// assert_eq!(abx_wire::Request::missing("url"), "Missing required parameter: url");
    /// ```
    pub fn missing(key: &str) -> String {
        format!("Missing required parameter: {key}")
    }
}

/// A reply line (`id` aside). The CLI reads replies into this; the daemon writes them from it.
///
/// Fields are declared in alphabetical order, the order the line's keys have on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Machine-readable error code (e.g. `tab_gone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Result data (on failure it may carry recovery data such as `targetId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Error message on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the command succeeded.
    #[serde(default)]
    pub success: bool,
    /// Warning (e.g. a pending JavaScript dialog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl Response {
    /// The reply line with `id` (none for a line that could not be read as a request).
    ///
    /// ```
    /// let reply = abx_wire::Response { success: true, ..Default::default() };
    /// assert_eq!(reply.line(Some(&serde_json::json!("r1"))).to_string(), r#"{"id":"r1","success":true}"#);
    /// ```
    pub fn line(&self, id: Option<&Value>) -> Value {
        let mut map = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        if let Some(id) = id {
            map.insert(extras::ID.to_string(), id.clone());
        }
        Value::Object(map)
    }

    /// [`Response::line`], moving `data` into the line instead of copying it (a snapshot's
    /// `data` can be a megabyte).
    pub fn into_line(mut self, id: Option<&Value>) -> Value {
        let data = self.data.take();
        let mut line = self.line(id);
        if let (Some(data), Value::Object(map)) = (data, &mut line) {
            map.insert("data".to_string(), data);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Shot {
        path: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        quality: Option<u64>,
        #[serde(rename = "fullPage")]
        full_page: bool,
    }

    #[test]
    fn encode_keeps_explicit_nulls_and_sorts_keys() {
        let line = encode(
            "screenshot",
            &Shot {
                path: None,
                quality: None,
                full_page: true,
            },
        );
        assert_eq!(
            line.to_string(),
            r#"{"action":"screenshot","fullPage":true,"path":null}"#
        );
    }

    #[test]
    fn decode_reads_the_same_struct_and_names_a_wrong_type() {
        let line = json!({"id": 1, "action": "screenshot", "fullPage": true, "quality": 80, "plugins": []});
        let request =
            Request::from_object(line.as_object().cloned().unwrap_or_default()).expect("request");
        assert_eq!(
            request.decode::<Shot>(),
            Ok(Shot {
                path: None,
                quality: Some(80),
                full_page: true
            })
        );
        let bad = json!({"action": "screenshot", "fullPage": "yes"});
        let request =
            Request::from_object(bad.as_object().cloned().unwrap_or_default()).expect("request");
        let err = request.decode::<Shot>().expect_err("wrong type");
        assert!(
            err.to_string().starts_with("Invalid request: invalid type"),
            "{err}"
        );
    }

    #[test]
    fn a_line_needs_a_non_empty_action() {
        for bad in [
            json!({"id": 1}),
            json!({"action": 5}),
            json!({"action": ""}),
        ] {
            assert!(Request::from_object(bad.as_object().cloned().unwrap_or_default()).is_none());
        }
    }

    #[test]
    fn responses_round_trip_with_sorted_keys() {
        let reply = Response {
            success: false,
            error: Some("boom".into()),
            code: Some("tab_gone".into()),
            ..Response::default()
        };
        let line = reply.line(Some(&json!("r2"))).to_string();
        assert_eq!(
            line,
            r#"{"code":"tab_gone","error":"boom","id":"r2","success":false}"#
        );
        let back: Response = serde_json::from_str(&line).expect("reads");
        assert_eq!(back, reply);
    }

    #[test]
    fn viewers_do_not_see_plugin_or_restore_fields() {
        let line =
            json!({"id": 1, "action": "click", "selector": "#a", "plugins": [], "restoreKey": "k"});
        let request =
            Request::from_object(line.as_object().cloned().unwrap_or_default()).expect("request");
        assert_eq!(request.public_params(), json!({"selector": "#a"}));
    }
}
