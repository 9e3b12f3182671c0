//! The NDJSON wire protocol, compatible with upstream agent-browser 0.41.2.
//!
//! Requests: one JSON object per line, `{"id": "...", "action": "...", ...params}`.
//! Responses: `{"id","success":true,"data":{...,"lifecycle":{...}}}` or
//! `{"id","success":false,"error":"...","code"?,"data"?}`, optionally with `"warning"`.
//! Keys are serialized in alphabetical order like upstream (serde_json's default map).

use std::sync::Arc;

use abx_wire::{Response, extras};
use std::os::fd::BorrowedFd;

use crate::shared_text::SharedText;
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
    .into_line(Some(id))
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
    .into_line(Some(id))
}

/// A command's `data`, already encoded as one JSON object, member by member: a large answer
/// that is the same as the last one (an unchanged page's snapshot) is written as it is instead
/// of being rebuilt as a [`Value`] and encoded again. Members share their encoded values
/// (`Arc<str>`), so a handler that keeps them answers without copying them.
///
/// ```
/// use abx_daemon::protocol::EncodedData;
/// let data = EncodedData::default()
///     .member("origin", "\"u\"")
///     .unprinted_member("refs", "{}")
///     .member("snapshot", "\"- a\"");
/// assert_eq!(data.to_json(false), r#"{"origin":"u","refs":{},"snapshot":"- a"}"#);
/// assert_eq!(data.to_json(true), r#"{"origin":"u","snapshot":"- a"}"#);
/// ```
#[derive(Clone, Debug, Default)]
pub struct EncodedData {
    members: Vec<Member>,
}

#[derive(Clone, Debug)]
struct Member {
    key: &'static str,
    value: Arc<str>,
    shown: Shown,
}

/// How a member reaches a reader that prints text.
#[derive(Clone, Debug)]
enum Shown {
    /// In the line.
    Printed,
    /// Left out: text never shows it.
    Unprinted,
    /// After the line ([`abx_wire::extras::TEXT_TAIL`]): its memory file passed with the line,
    /// or its bytes after it.
    Tail(SharedText),
}

impl EncodedData {
    /// Adds `key` with `value`: a JSON value the caller encoded with serde_json.
    pub fn member(mut self, key: &'static str, value: impl Into<Arc<str>>) -> EncodedData {
        self.members.push(Member {
            key,
            value: value.into(),
            shown: Shown::Printed,
        });
        self
    }

    /// [`EncodedData::member`] for a member that text output never prints (a snapshot's
    /// `refs`): left out of the line when the request carries
    /// [`abx_wire::extras::TEXT_REPLY`], kept for every other reader.
    pub fn unprinted_member(
        mut self,
        key: &'static str,
        value: impl Into<Arc<str>>,
    ) -> EncodedData {
        self.members.push(Member {
            key,
            value: value.into(),
            shown: Shown::Unprinted,
        });
        self
    }

    /// [`EncodedData::member`] for a long string (`text`, whose JSON encoding is `value`) that a
    /// reader of text gets beside the line, as it is ([`abx_wire::extras::TEXT_TAIL`]): the
    /// descriptor of its memory file passed with the line, or its bytes after it. Every other
    /// reader gets it in the line. At most one per answer: a later one replaces it.
    pub fn tail_member(
        mut self,
        key: &'static str,
        value: impl Into<Arc<str>>,
        text: SharedText,
    ) -> EncodedData {
        for member in &mut self.members {
            if matches!(member.shown, Shown::Tail(_)) {
                member.shown = Shown::Printed;
            }
        }
        self.members.push(Member {
            key,
            value: value.into(),
            shown: Shown::Tail(text),
        });
        self
    }

    /// The member a reader of text gets beside the line, if any.
    fn tail(&self) -> Option<(&'static str, &SharedText)> {
        self.members.iter().find_map(|m| match &m.shown {
            Shown::Tail(text) => Some((m.key, text)),
            _ => None,
        })
    }

    /// The members joined with commas, without the braces; `text_only` leaves out the
    /// unprinted ones and the tail.
    fn write_members(&self, out: &mut Vec<u8>, text_only: bool) {
        let mut first = true;
        let members = self
            .members
            .iter()
            .filter(|m| !text_only || matches!(m.shown, Shown::Printed));
        for member in members {
            if !first {
                out.push(b',');
            }
            first = false;
            // Writing a string into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, member.key);
            out.push(b':');
            out.extend_from_slice(member.value.as_bytes());
        }
    }

    /// The object as JSON text (`text_only`: as a reader of text gets it in the line).
    pub fn to_json(&self, text_only: bool) -> String {
        let mut out = vec![b'{'];
        self.write_members(&mut out, text_only);
        out.push(b'}');
        String::from_utf8(out).unwrap_or_default()
    }

    fn decode(&self) -> Value {
        serde_json::from_str(&self.to_json(false)).unwrap_or(Value::Null)
    }
}

/// A reply line: the response, and the `data` its command answered already encoded, merged
/// into the response's own `data` (the lifecycle the daemon adds) when the line is written.
#[derive(Debug)]
pub struct ReplyLine {
    response: Value,
    encoded: Option<EncodedData>,
    /// The request asked for a text reply ([`abx_wire::extras::TEXT_REPLY`]).
    text_only: bool,
}

impl From<Value> for ReplyLine {
    fn from(response: Value) -> ReplyLine {
        ReplyLine {
            response,
            encoded: None,
            text_only: false,
        }
    }
}

impl ReplyLine {
    /// `response` (a success whose `data` is an object) with `encoded` merged into its `data`.
    pub fn with_encoded(response: Value, encoded: EncodedData) -> ReplyLine {
        ReplyLine {
            response,
            encoded: Some(encoded),
            text_only: false,
        }
    }

    /// Writes the line for a reader that prints text (the request carried
    /// [`abx_wire::extras::TEXT_REPLY`]): encoded members text never shows are left out of it,
    /// and a tail member follows it ([`abx_wire::extras::TEXT_TAIL`]). [`ReplyLine::data`] and
    /// [`ReplyLine::into_value`] keep them.
    pub fn for_text(mut self, text_only: bool) -> ReplyLine {
        self.text_only = text_only;
        self
    }

    /// The response, without the encoded part of its `data`.
    pub fn response(&self) -> &Value {
        &self.response
    }

    /// [`ReplyLine::response`], to change.
    pub fn response_mut(&mut self) -> &mut Value {
        &mut self.response
    }

    /// Whether the reply says `"success": true`.
    pub fn succeeded(&self) -> bool {
        self.response.get("success").and_then(Value::as_bool) == Some(true)
    }

    /// The reply's whole `data` (decoding the encoded part, if any).
    pub fn data(&self) -> Value {
        let own = self.response.get("data").cloned().unwrap_or(Value::Null);
        match &self.encoded {
            None => own,
            Some(encoded) => merge(encoded.decode(), own),
        }
    }

    /// The whole response as a [`Value`].
    pub fn into_value(self) -> Value {
        let Some(encoded) = self.encoded else {
            return self.response;
        };
        let mut response = self.response;
        if let Value::Object(map) = &mut response {
            let own = map.remove("data").unwrap_or(Value::Null);
            map.insert("data".into(), merge(encoded.decode(), own));
        }
        response
    }

    /// The memory file to pass with the line ([`abx_wire::extras::TEXT_TAIL`]): the tail
    /// member's, for a reader of text.
    pub(crate) fn passed_file(&self) -> Option<BorrowedFd<'_>> {
        let (_, shared) = self.encoded.as_ref()?.tail()?;
        self.text_only.then(|| shared.file())?
    }

    /// Appends the line and its newline to `out`, keys in alphabetical order; for a reader of
    /// text, the tail member's bytes after it unless its file is passed with the line
    /// ([`ReplyLine::passed_file`]).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        // Writing JSON into a Vec cannot fail.
        match (&self.encoded, &self.response) {
            (Some(encoded), Value::Object(map)) => {
                let tail = encoded.tail().filter(|_| self.text_only);
                out.push(b'{');
                if let Some((key, shared)) = tail {
                    let _ = serde_json::to_writer(&mut *out, extras::TEXT_TAIL);
                    out.push(b':');
                    let bytes = shared.text().len();
                    let said = match shared.file() {
                        Some(_) => serde_json::json!({"bytes": bytes, "fd": true, "key": key}),
                        None => serde_json::json!({"bytes": bytes, "key": key}),
                    };
                    let _ = serde_json::to_writer(&mut *out, &said);
                    out.push(b',');
                }
                let data = Value::Object(serde_json::Map::new());
                let mut keys: Vec<&str> = map.keys().map(String::as_str).collect();
                if !map.contains_key("data") {
                    keys.push("data");
                    keys.sort_unstable();
                }
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut *out, key);
                    out.push(b':');
                    if key == "data" {
                        write_merged(
                            out,
                            map.get("data").unwrap_or(&data),
                            encoded,
                            self.text_only,
                        );
                    } else if let Some(value) = map.get(key) {
                        let _ = serde_json::to_writer(&mut *out, value);
                    }
                }
                out.push(b'}');
                out.push(b'\n');
                if let Some((_, shared)) = tail
                    && shared.file().is_none()
                {
                    out.extend_from_slice(shared.text().as_bytes());
                }
            }
            _ => {
                let _ = serde_json::to_writer(&mut *out, &self.response);
                out.push(b'\n');
            }
        }
    }
}

/// `encoded` with `own`'s keys added (the daemon's `lifecycle`); `own`'s win.
fn merge(encoded: Value, own: Value) -> Value {
    match (encoded, own) {
        (Value::Object(mut data), Value::Object(own)) => {
            data.extend(own);
            Value::Object(data)
        }
        (encoded, Value::Null) => encoded,
        (_, own) => own,
    }
}

/// Writes the object `own` with the members of `encoded` after its own.
fn write_merged(out: &mut Vec<u8>, own: &Value, encoded: &EncodedData, text_only: bool) {
    let own_text = serde_json::to_string(own).unwrap_or_else(|_| "{}".into());
    let open = match own_text.strip_suffix('}') {
        Some(open) if own.is_object() => open,
        _ => "{",
    };
    out.extend_from_slice(open.as_bytes());
    let before = out.len();
    if open.len() > 1 {
        out.push(b',');
    }
    let members = out.len();
    encoded.write_members(out, text_only);
    if out.len() == members {
        // No member written: no comma after `own`'s last member either.
        out.truncate(before);
    }
    out.push(b'}');
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
    fn encoded_data_is_written_inside_the_replys_data_in_key_order() {
        let line = success(
            &json!("r1"),
            json!({}),
            &Lifecycle::default(),
            Some("careful"),
        );
        let encoded = EncodedData::default()
            .member("origin", "\"u\"")
            .member("snapshot", r#""- a \"b\"""#);
        let reply = ReplyLine::with_encoded(line.clone(), encoded);
        let mut written = Vec::new();
        reply.write_to(&mut written);
        assert_eq!(written.last(), Some(&b'\n'));
        let text = std::str::from_utf8(&written).expect("utf-8");
        // Byte for byte what the same reply built as one `Value` writes.
        let mut whole = line;
        whole["data"]["origin"] = json!("u");
        whole["data"]["snapshot"] = json!("- a \"b\"");
        assert_eq!(text.trim_end(), whole.to_string());
        assert!(reply.succeeded());
        assert_eq!(reply.data(), whole["data"]);
        assert_eq!(reply.into_value(), whole);
    }

    #[test]
    fn a_text_reply_leaves_out_unprinted_members_and_every_other_reader_keeps_them() {
        let line = success(&json!("r1"), json!({}), &Lifecycle::default(), None);
        let encoded = EncodedData::default()
            .member("origin", "\"u\"")
            .unprinted_member("refs", r#"{"e1":{"role":"button"}}"#)
            .member("snapshot", "\"- button\"");
        let mut whole = line.clone();
        whole["data"]["origin"] = json!("u");
        whole["data"]["refs"] = json!({"e1": {"role": "button"}});
        whole["data"]["snapshot"] = json!("- button");
        let mut lean = whole.clone();
        lean["data"].as_object_mut().expect("data").remove("refs");
        for (text_only, want) in [(false, &whole), (true, &lean)] {
            let reply = ReplyLine::with_encoded(line.clone(), encoded.clone()).for_text(text_only);
            let mut written = Vec::new();
            reply.write_to(&mut written);
            let got: Value = serde_json::from_slice(&written).expect("one JSON line");
            assert_eq!(&got, want, "text_only={text_only}");
            // The live view and batch read the whole answer either way.
            assert_eq!(reply.data(), whole["data"]);
            assert_eq!(reply.into_value(), whole);
        }
        // Nothing but unprinted members: no dangling comma after the lifecycle.
        let only_refs = EncodedData::default().unprinted_member("refs", "{}");
        let reply = ReplyLine::with_encoded(line.clone(), only_refs).for_text(true);
        let mut written = Vec::new();
        reply.write_to(&mut written);
        assert_eq!(
            std::str::from_utf8(&written).expect("utf-8").trim_end(),
            line.to_string()
        );
    }

    #[test]
    fn a_text_reply_carries_the_tail_member_after_the_line_or_as_a_passed_file() {
        let line = success(&json!("r1"), json!({}), &Lifecycle::default(), None);
        let text = "- heading \"Caf\u{e9}\" [ref=e1]\n  - button \"a\\b\"";
        let mut shared = SharedText::in_memory_file(text.into());
        // The bytes after the line: what a reply carries where no memory file could be made.
        shared.drop_file();
        let encoded = EncodedData::default()
            .member("origin", "\"u\"")
            .tail_member(
                "snapshot",
                serde_json::to_string(text).expect("encodes"),
                shared,
            );
        let mut whole = line.clone();
        whole["data"]["origin"] = json!("u");
        whole["data"]["snapshot"] = json!(text);
        // Every other reader: one line, the text in it.
        let reply = ReplyLine::with_encoded(line.clone(), encoded.clone());
        let mut written = Vec::new();
        reply.write_to(&mut written);
        assert_eq!(written.last(), Some(&b'\n'));
        let got: Value = serde_json::from_slice(&written).expect("one JSON line");
        assert_eq!(got, whole);
        // A reader of text: the line says how many bytes follow it, and they are the text.
        let reply = ReplyLine::with_encoded(line.clone(), encoded).for_text(true);
        let mut written = Vec::new();
        reply.write_to(&mut written);
        let newline = written.iter().position(|&b| b == b'\n').expect("a line");
        let head: Value = serde_json::from_slice(&written[..newline]).expect("a JSON line");
        assert_eq!(
            head[extras::TEXT_TAIL],
            json!({"bytes": text.len(), "key": "snapshot"})
        );
        assert!(head["data"].get("snapshot").is_none(), "{head}");
        assert_eq!(head["data"]["origin"], json!("u"));
        assert_eq!(&written[newline + 1..], text.as_bytes());
        assert_eq!(reply.data(), whole["data"]);
        assert_eq!(reply.into_value(), whole);
        // With a memory file: the line says its descriptor comes with it, and nothing follows.
        let encoded = EncodedData::default().tail_member(
            "snapshot",
            serde_json::to_string(text).expect("encodes"),
            SharedText::in_memory_file(text.into()),
        );
        let reply = ReplyLine::with_encoded(line.clone(), encoded).for_text(true);
        assert!(reply.passed_file().is_some());
        let mut written = Vec::new();
        reply.write_to(&mut written);
        assert_eq!(written.last(), Some(&b'\n'));
        let head: Value = serde_json::from_slice(&written).expect("one JSON line");
        assert_eq!(
            head[extras::TEXT_TAIL],
            json!({"bytes": text.len(), "fd": true, "key": "snapshot"})
        );
        // Every other reader gets no file.
        let reply = ReplyLine::with_encoded(line, reply.encoded.clone().expect("encoded"));
        assert!(reply.passed_file().is_none());
    }

    #[test]
    fn encoded_data_may_be_empty() {
        let line = success(&json!(2), json!({}), &Lifecycle::default(), None);
        let reply = ReplyLine::with_encoded(line.clone(), EncodedData::default());
        let mut written = Vec::new();
        reply.write_to(&mut written);
        assert_eq!(
            std::str::from_utf8(&written).expect("utf-8").trim_end(),
            line.to_string()
        );
        let plain = ReplyLine::from(json!({"success": false, "error": "no"}));
        assert!(!plain.succeeded());
        let mut written = Vec::new();
        plain.write_to(&mut written);
        assert_eq!(written, b"{\"error\":\"no\",\"success\":false}\n");
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
