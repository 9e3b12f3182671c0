//! The request log: `Network.*` events of the session's tabs folded into one record per
//! request, in a ring buffer.

use std::collections::VecDeque;

use abx_cdp::Event;
use abx_cdp::protocol::browser_protocol::network;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{NetworkError, headers_of};

/// One request as `network requests` lists it (upstream's keys).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RequestRecord {
    /// Chrome's request id (the loader id for documents).
    pub request_id: String,
    /// The URL.
    pub url: String,
    /// The HTTP method.
    pub method: String,
    /// The request headers.
    pub headers: Map<String, Value>,
    /// When it started, epoch milliseconds.
    pub timestamp: u64,
    /// Chrome's resource type (`Document`, `Fetch`, `XHR`, `Script`, ...).
    pub resource_type: String,
    /// The request body, when Chrome reported it with the request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    /// The response status, once a response came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// The response headers, once a response came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Map<String, Value>>,
    /// The response MIME type, once a response came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip)]
    pub(crate) extra: Extra,
}

/// What the log keeps beyond the listed keys (for details and HAR).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Extra {
    pub(crate) target_id: String,
    pub(crate) has_post_data: bool,
    pub(crate) status_text: String,
    pub(crate) protocol: String,
    /// `Network.ResourceTiming` as sent.
    pub(crate) timing: Option<Value>,
    /// Monotonic seconds of the start, the response and the end.
    pub(crate) started: f64,
    pub(crate) responded: Option<f64>,
    pub(crate) ended: Option<f64>,
    /// Epoch seconds of the start.
    pub(crate) wall_time: f64,
    pub(crate) encoded_length: Option<f64>,
    pub(crate) error_text: Option<String>,
    pub(crate) redirect_url: String,
    /// A HAR body: text, and whether it is base64.
    pub(crate) body: Option<(String, bool)>,
}

impl RequestRecord {
    pub(crate) fn target_id(&self) -> &str {
        &self.extra.target_id
    }

    pub(crate) fn has_post_data(&self) -> bool {
        self.extra.has_post_data
    }

    pub(crate) fn finished(&self) -> bool {
        self.extra.ended.is_some() && self.extra.error_text.is_none()
    }
}

/// `network request <id>`: the record, its response body and how the request ended.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RequestDetail {
    /// The logged request.
    #[serde(flatten)]
    pub record: RequestRecord,
    /// The response's status text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub status_text: String,
    /// The response body, while Chrome still holds it: text, or base64 for binary content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// `response_body` is base64 (the body is not UTF-8 text).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub response_body_base64: bool,
    /// Why the request failed (`net::ERR_FAILED`, ...), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_text: Option<String>,
}

impl RequestDetail {
    pub(crate) fn from_record(record: &RequestRecord) -> RequestDetail {
        RequestDetail {
            record: record.clone(),
            status_text: record.extra.status_text.clone(),
            response_body: None,
            response_body_base64: false,
            error_text: record.extra.error_text.clone(),
        }
    }
}

/// Which requests `network requests` lists; every set field must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestFilter {
    /// A substring of the URL.
    pub url: Option<String>,
    /// Resource types, comma-separated, any case (`xhr,fetch`).
    pub types: Option<String>,
    /// The method, any case.
    pub method: Option<String>,
    /// A status: `200`, `2xx` or `400-499`.
    pub status: Option<String>,
}

pub(crate) struct Matcher {
    url: Option<String>,
    types: Vec<String>,
    method: Option<String>,
    status: Option<(i64, i64)>,
}

impl RequestFilter {
    pub(crate) fn compile(&self) -> Result<Matcher, NetworkError> {
        let types = self
            .types
            .as_deref()
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_ascii_lowercase())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let status = match self.status.as_deref() {
            Some(s) => Some(
                status_range(s).ok_or_else(|| NetworkError::InvalidStatusFilter(s.to_string()))?,
            ),
            None => None,
        };
        Ok(Matcher {
            url: self.url.clone(),
            types,
            method: self.method.clone(),
            status,
        })
    }
}

/// `200` → (200, 200); `2xx` → (200, 299); `400-499` → (400, 499).
fn status_range(filter: &str) -> Option<(i64, i64)> {
    let f = filter.trim().to_ascii_lowercase();
    if let Ok(code) = f.parse::<i64>() {
        return Some((code, code));
    }
    if let Some(class) = f.strip_suffix("xx")
        && class.len() == 1
        && let Ok(class) = class.parse::<i64>()
    {
        return Some((class * 100, class * 100 + 99));
    }
    let (lo, hi) = f.split_once('-')?;
    let (lo, hi) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    (lo <= hi).then_some((lo, hi))
}

impl Matcher {
    fn matches(&self, r: &RequestRecord) -> bool {
        self.url.as_deref().is_none_or(|f| r.url.contains(f))
            && (self.types.is_empty() || self.types.contains(&r.resource_type.to_ascii_lowercase()))
            && self
                .method
                .as_deref()
                .is_none_or(|m| r.method.eq_ignore_ascii_case(m))
            && self
                .status
                .is_none_or(|(lo, hi)| r.status.is_some_and(|s| s >= lo && s <= hi))
    }
}

/// A ring buffer of records.
pub(crate) struct Log {
    records: VecDeque<RequestRecord>,
    cap: usize,
    /// Records pushed out by the cap since the last clear.
    pub(crate) dropped: usize,
}

impl Log {
    pub(crate) fn new(cap: usize) -> Log {
        Log {
            records: VecDeque::new(),
            cap: cap.max(1),
            dropped: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.dropped = 0;
    }

    pub(crate) fn matching(&self, matcher: &Matcher) -> Vec<RequestRecord> {
        self.records
            .iter()
            .filter(|r| matcher.matches(r))
            .cloned()
            .collect()
    }

    /// The latest record with this id (a redirect chain shares one id).
    pub(crate) fn find(&self, request_id: &str) -> Option<&RequestRecord> {
        self.records
            .iter()
            .rev()
            .find(|r| r.request_id == request_id)
    }

    fn find_mut(&mut self, target_id: &str, request_id: &str) -> Option<&mut RequestRecord> {
        self.records
            .iter_mut()
            .rev()
            .find(|r| r.request_id == request_id && r.extra.target_id == target_id)
    }

    pub(crate) fn records(&self) -> Vec<RequestRecord> {
        self.records.iter().cloned().collect()
    }

    fn push(&mut self, record: RequestRecord) {
        if self.records.len() >= self.cap {
            self.records.pop_front();
            self.dropped += 1;
        }
        self.records.push_back(record);
    }

    pub(crate) fn apply(&mut self, target_id: &str, update: &Update) {
        match update {
            Update::Started(sent) => {
                if let Some(redirect) = &sent.redirect_response
                    && let Some(previous) = self.find_mut(target_id, &sent.request_id)
                {
                    respond(previous, redirect, sent.timestamp);
                    previous.extra.ended = Some(sent.timestamp);
                    previous.extra.redirect_url = sent.request.url.clone();
                }
                self.push(started(target_id, sent));
            }
            Update::Responded(received) => {
                if let Some(r) = self.find_mut(target_id, &received.request_id) {
                    respond(r, &received.response, received.timestamp);
                    if (r.resource_type.is_empty() || r.resource_type == "Other")
                        && let Some(kind) = &received.kind
                    {
                        r.resource_type = kind.clone();
                    }
                }
            }
            Update::Finished {
                request_id,
                timestamp,
                encoded_length,
            } => {
                if let Some(r) = self.find_mut(target_id, request_id) {
                    r.extra.ended = Some(*timestamp);
                    r.extra.encoded_length = Some(*encoded_length);
                }
            }
            Update::Failed {
                request_id,
                timestamp,
                error_text,
            } => {
                if let Some(r) = self.find_mut(target_id, request_id) {
                    r.extra.ended = Some(*timestamp);
                    r.extra.error_text = Some(error_text.clone());
                }
            }
        }
    }

    pub(crate) fn store_body(&mut self, request_id: &str, text: String, base64: bool) -> bool {
        match self
            .records
            .iter_mut()
            .rev()
            .find(|r| r.request_id == request_id)
        {
            Some(r) => {
                r.extra.body = Some((text, base64));
                true
            }
            None => false,
        }
    }
}

fn started(target_id: &str, sent: &WillBeSent) -> RequestRecord {
    RequestRecord {
        request_id: sent.request_id.clone(),
        url: sent.request.url.clone(),
        method: sent.request.method.clone(),
        headers: headers_of(sent.request.headers.as_ref()),
        timestamp: (sent.wall_time * 1000.0).max(0.0) as u64,
        resource_type: sent.kind.clone().unwrap_or_else(|| "Other".into()),
        post_data: sent.request.post_data.clone(),
        status: None,
        response_headers: None,
        mime_type: None,
        extra: Extra {
            target_id: target_id.to_string(),
            has_post_data: sent.request.has_post_data || sent.request.post_data.is_some(),
            started: sent.timestamp,
            wall_time: sent.wall_time,
            ..Extra::default()
        },
    }
}

fn respond(r: &mut RequestRecord, response: &Response, timestamp: f64) {
    r.status = Some(response.status);
    r.response_headers = Some(headers_of(response.headers.as_ref()));
    r.mime_type = Some(response.mime_type.clone());
    r.extra.status_text = response.status_text.clone();
    r.extra.protocol = response.protocol.clone().unwrap_or_default();
    r.extra.timing = response.timing.clone();
    r.extra.responded = Some(timestamp);
}

/// A network event, read leniently (the generated types decode whole `Network.Request`s whose
/// enums grow with Chrome; a failed decode would lose the request).
#[derive(Debug)]
pub(crate) enum Update {
    Started(Box<WillBeSent>),
    Responded(Box<Received>),
    Finished {
        request_id: String,
        timestamp: f64,
        encoded_length: f64,
    },
    Failed {
        request_id: String,
        timestamp: f64,
        error_text: String,
    },
}

impl Update {
    pub(crate) fn parse(event: &Event) -> Option<Update> {
        match event.method() {
            network::EventRequestWillBeSent::IDENTIFIER => {
                event.parse().ok().map(|e| Update::Started(Box::new(e)))
            }
            network::EventResponseReceived::IDENTIFIER => {
                event.parse().ok().map(|e| Update::Responded(Box::new(e)))
            }
            network::EventLoadingFinished::IDENTIFIER => {
                let e: Finished = event.parse().ok()?;
                Some(Update::Finished {
                    request_id: e.request_id,
                    timestamp: e.timestamp,
                    encoded_length: e.encoded_data_length,
                })
            }
            network::EventLoadingFailed::IDENTIFIER => {
                let e: FailedEvent = event.parse().ok()?;
                Some(Update::Failed {
                    request_id: e.request_id,
                    timestamp: e.timestamp,
                    error_text: e.error_text,
                })
            }
            _ => None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WillBeSent {
    request_id: String,
    request: Request,
    #[serde(default)]
    timestamp: f64,
    #[serde(default)]
    wall_time: f64,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    redirect_response: Option<Response>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    url: String,
    #[serde(default)]
    method: String,
    #[serde(default)]
    headers: Option<Value>,
    #[serde(default)]
    post_data: Option<String>,
    #[serde(default)]
    has_post_data: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Received {
    request_id: String,
    #[serde(default)]
    timestamp: f64,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    response: Response,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    #[serde(default)]
    status: i64,
    #[serde(default)]
    status_text: String,
    #[serde(default)]
    headers: Option<Value>,
    #[serde(default)]
    mime_type: String,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    timing: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Finished {
    request_id: String,
    #[serde(default)]
    timestamp: f64,
    #[serde(default)]
    encoded_data_length: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FailedEvent {
    request_id: String,
    #[serde(default)]
    timestamp: f64,
    #[serde(default)]
    error_text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(id: &str, url: &str, method: &str, kind: &str) -> Update {
        let e: WillBeSent = serde_json::from_value(json!({
            "requestId": id, "timestamp": 1.0, "wallTime": 1700000000.5, "type": kind,
            "request": {"url": url, "method": method, "headers": {"A": "1"}},
        }))
        .expect("event");
        Update::Started(Box::new(e))
    }

    fn responded(id: &str, status: i64) -> Update {
        let e: Received = serde_json::from_value(json!({
            "requestId": id, "timestamp": 1.5, "type": "Fetch",
            "response": {"status": status, "statusText": "OK", "mimeType": "application/json",
                          "headers": {"Content-Type": "application/json"}},
        }))
        .expect("event");
        Update::Responded(Box::new(e))
    }

    #[test]
    fn the_log_is_a_ring_buffer_that_drops_the_oldest() {
        let mut log = Log::new(3);
        for n in 0..5 {
            log.apply("T", &sent(&format!("r{n}"), "http://x/", "GET", "Fetch"));
        }
        let ids: Vec<String> = log.records().into_iter().map(|r| r.request_id).collect();
        assert_eq!(ids, ["r2", "r3", "r4"]);
        assert_eq!(log.dropped, 2);
    }

    #[test]
    fn filters_match_url_type_method_and_status_like_upstream() {
        let mut log = Log::new(10);
        log.apply("T", &sent("a", "http://x/api/items", "GET", "Fetch"));
        log.apply("T", &responded("a", 200));
        log.apply("T", &sent("b", "http://x/api/echo", "POST", "XHR"));
        log.apply("T", &responded("b", 404));
        log.apply("T", &sent("c", "http://x/page", "GET", "Document"));
        let ids = |f: RequestFilter| -> Vec<String> {
            log.matching(&f.compile().expect("filter"))
                .into_iter()
                .map(|r| r.request_id)
                .collect()
        };
        let f = |url: Option<&str>,
                 types: Option<&str>,
                 method: Option<&str>,
                 status: Option<&str>| RequestFilter {
            url: url.map(Into::into),
            types: types.map(Into::into),
            method: method.map(Into::into),
            status: status.map(Into::into),
        };
        assert_eq!(ids(f(Some("api"), None, None, None)), ["a", "b"]);
        assert_eq!(ids(f(None, Some("xhr, document"), None, None)), ["b", "c"]);
        assert_eq!(ids(f(None, None, Some("post"), None)), ["b"]);
        assert_eq!(ids(f(None, None, None, Some("2xx"))), ["a"]);
        assert_eq!(ids(f(None, None, None, Some("400-499"))), ["b"]);
        assert_eq!(ids(f(None, None, None, Some("404"))), ["b"]);
        assert!(f(None, None, None, Some("abc")).compile().is_err());
    }
}
