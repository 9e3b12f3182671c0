//! The NDJSON wire protocol, compatible with upstream agent-browser 0.41.2.
//!
//! Requests: one JSON object per line, `{"id": "...", "action": "...", ...params}`.
//! Responses: `{"id","success":true,"data":{...,"lifecycle":{...}}}` or
//! `{"id","success":false,"error":"...","code"?,"data"?}`, optionally with `"warning"`.
//! Keys are serialized in alphabetical order like upstream (serde_json's default map).

use abx_wire::{Response, extras};
use serde::Serialize;
use serde_json::Value;

pub use abx_wire::Request;

/// Why a line is not a request.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum LineError {
    /// A blank line: ignore.
    #[error("blank line")]
    Blank,
    /// The peer speaks HTTP on the socket: close the connection.
    #[error("the peer speaks HTTP, not the daemon's line protocol")]
    Http,
    /// Not JSON, or not an object with an `action` string; reply with this message.
    #[error("{0}")]
    Invalid(String),
}

const HTTP_METHODS: &[&str] = &[
    "GET ", "POST ", "PUT ", "DELETE ", "HEAD ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE ",
];

/// Nesting deeper than this is refused before parsing (serde_json's own limit is 128).
const MAX_DEPTH: usize = 64;

/// Parses one line.
pub fn parse_line(line: &[u8]) -> Result<Request, LineError> {
    let text = match std::str::from_utf8(line) {
        Ok(text) => text.trim(),
        Err(err) => {
            return Err(LineError::Invalid(format!(
                "Invalid JSON: invalid UTF-8 ({err})"
            )));
        }
    };
    if text.is_empty() {
        return Err(LineError::Blank);
    }
    if HTTP_METHODS.iter().any(|m| text.starts_with(m)) {
        return Err(LineError::Http);
    }
    if nesting_depth(text) > MAX_DEPTH {
        return Err(LineError::Invalid(format!(
            "Invalid JSON: nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| LineError::Invalid(format!("Invalid JSON: {e}")))?;
    let Value::Object(params) = value else {
        return Err(LineError::Invalid(
            "Invalid JSON: expected an object with an \"action\" field".into(),
        ));
    };
    parse_object(params)
}

/// A request from a line's object (a line, or the live view's `/api/command` body).
pub fn parse_object(params: serde_json::Map<String, Value>) -> Result<Request, LineError> {
    if !params.contains_key(extras::ACTION) {
        return Err(LineError::Invalid(
            "Invalid request: missing \"action\"".into(),
        ));
    }
    Request::from_object(params).ok_or_else(|| {
        LineError::Invalid("Invalid request: \"action\" must be a non-empty string".into())
    })
}

/// Bracket depth outside strings; cheap guard against stack-heavy inputs.
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for byte in text.bytes() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Timings of the phases of a command, reported in `lifecycle.timings` (beyond upstream).
#[derive(Clone, Copy, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Time waiting behind earlier commands of the session.
    pub queue_ms: u64,
    /// Time spent launching or attaching the browser for this command.
    pub launch_ms: u64,
    /// Time executing the command.
    pub execute_ms: u64,
}

/// Upstream's `data.lifecycle`, plus our timings and, for `close`, a cleanup receipt.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    /// The browser existed before this command.
    pub reused: bool,
    /// A browser is running after this command.
    pub launched: bool,
    /// This command replaced a running browser.
    pub relaunched_browser: bool,
    /// Always false (no background restarts).
    pub restarted_background: bool,
    /// `not_configured` (restore is not supported).
    pub restore_status: &'static str,
    /// `not_attempted`.
    pub save_status: &'static str,
    /// What is running.
    pub effective_launch: EffectiveLaunch,
    /// Phase timings.
    pub timings: Timings,
    /// For `close`: what the cleanup did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<Value>,
}

/// `lifecycle.effectiveLaunch`.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveLaunch {
    /// Whether a browser is connected.
    pub browser_launched: bool,
    /// `chrome`.
    pub engine: &'static str,
    /// The launch hash, when a browser is running.
    pub launch_hash: Option<u64>,
    /// Beyond upstream: the Chrome binary we launched (headless shell or full Chrome), why, and
    /// whether it switched a profile's binary. Absent for attached browsers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser: Option<abx_chrome::BrowserBinary>,
}

/// A success line.
pub fn success(id: &Value, mut data: Value, lifecycle: &Lifecycle, warning: Option<&str>) -> Value {
    whole_numbers_as_integers(&mut data);
    if let Value::Object(map) = &mut data {
        map.insert(
            "lifecycle".into(),
            serde_json::to_value(lifecycle).unwrap_or(Value::Null),
        );
    }
    Response {
        success: true,
        data: Some(data),
        warning: warning.map(str::to_string),
        ..Response::default()
    }
    .line(Some(id))
}

/// Writes whole floats as integers (`21`, not `21.0`), as JavaScript and upstream do: values the
/// engine read into `f64` fields (box geometry, coordinates) would otherwise print as `21.0`.
pub fn whole_numbers_as_integers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64()
                && !n.is_i64()
                && !n.is_u64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// A failure line.
pub fn failure(
    id: &Value,
    error: &str,
    code: Option<&str>,
    data: Option<Value>,
    warning: Option<&str>,
) -> Value {
    Response {
        success: false,
        error: Some(error.to_string()),
        code: code.map(str::to_string),
        data,
        warning: warning.map(str::to_string),
    }
    .line(Some(id))
}

/// The reply to a line that is not valid JSON (no `id`, like upstream).
pub fn invalid(message: &str) -> Value {
    Response {
        success: false,
        error: Some(message.to_string()),
        ..Response::default()
    }
    .line(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_parse_and_garbage_is_explained() {
        let req = parse_line(br#"{"id":"r1","action":"url","plugins":[]}"#).expect("parses");
        assert_eq!(req.action, "url");
        assert_eq!(req.id, json!("r1"));
        assert_eq!(parse_line(b"   ").expect_err("blank"), LineError::Blank);
        assert_eq!(
            parse_line(b"GET / HTTP/1.1").expect_err("http"),
            LineError::Http
        );
        assert!(
            matches!(parse_line(b"{nope"), Err(LineError::Invalid(m)) if m.starts_with("Invalid JSON: "))
        );
        assert!(matches!(parse_line(b"[1,2]"), Err(LineError::Invalid(_))));
        assert!(matches!(
            parse_line(br#"{"action":5}"#),
            Err(LineError::Invalid(_))
        ));
        assert!(
            matches!(parse_line(&[0xff, 0xfe]), Err(LineError::Invalid(m)) if m.contains("UTF-8"))
        );
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(
            matches!(parse_line(deep.as_bytes()), Err(LineError::Invalid(m)) if m.contains("nesting"))
        );
    }

    #[test]
    fn responses_have_upstreams_shape_with_sorted_keys() {
        let line = success(
            &json!("r1"),
            json!({"url": "about:blank"}),
            &Lifecycle::default(),
            None,
        );
        let text = line.to_string();
        assert!(text.starts_with(r#"{"data":{"lifecycle":"#), "{text}");
        assert!(text.contains(r#""id":"r1","success":true"#), "{text}");
        let fail = failure(&json!("r2"), "boom", Some("tab_gone"), None, None).to_string();
        assert_eq!(
            fail,
            r#"{"code":"tab_gone","error":"boom","id":"r2","success":false}"#
        );
    }
}
