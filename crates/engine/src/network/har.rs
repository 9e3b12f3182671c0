//! HAR 1.2 recording: the session's requests between `har_start` and `har_stop`, with response
//! bodies per the content mode, written as one HAR document.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::log::{Log, RequestRecord};
use super::{MAX_HAR_BODIES, MAX_HAR_BODY, MAX_HAR_ENTRIES, NetworkError};

/// Which response bodies a HAR embeds as `content.text`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HarContent {
    /// Text-like bodies (HTML, CSS, JS, JSON, XML, SVG, form data).
    #[default]
    Text,
    /// Every body; binary ones base64 (`content.encoding: "base64"`).
    All,
    /// No bodies, only sizes and MIME types.
    None,
}

impl HarContent {
    /// Parses `text`, `all` or `none`.
    pub fn parse(mode: &str) -> Result<HarContent, NetworkError> {
        match mode {
            "text" => Ok(HarContent::Text),
            "all" => Ok(HarContent::All),
            "none" => Ok(HarContent::None),
            other => Err(NetworkError::InvalidContentMode(other.to_string())),
        }
    }
}

/// A written HAR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarSaved {
    /// Where.
    pub path: PathBuf,
    /// How many entries it holds.
    pub request_count: usize,
    /// How many the recording dropped for its cap ([`MAX_HAR_ENTRIES`]).
    pub dropped: usize,
}

pub(crate) struct Recording {
    pub(crate) content: HarContent,
    /// Tells a body fetched for an earlier recording from one for this recording.
    pub(crate) generation: u64,
    pub(crate) log: Log,
    body_bytes: usize,
}

pub(crate) struct Entries {
    pub(crate) records: Vec<RequestRecord>,
    pub(crate) dropped: usize,
}

impl Recording {
    pub(crate) fn new(content: HarContent, generation: u64) -> Recording {
        Recording {
            content,
            generation,
            log: Log::new(MAX_HAR_ENTRIES),
            body_bytes: 0,
        }
    }

    pub(crate) fn wants_body(&self, record: &RequestRecord) -> bool {
        match self.content {
            HarContent::None => false,
            HarContent::All => true,
            HarContent::Text => record.mime_type.as_deref().is_some_and(is_text_mime),
        }
    }

    pub(crate) fn store_body(&mut self, request_id: &str, text: String, base64: bool) {
        let len = text.len();
        if len == 0 || len > MAX_HAR_BODY || self.body_bytes + len > MAX_HAR_BODIES {
            return;
        }
        if self.log.store_body(request_id, text, base64) {
            self.body_bytes += len;
        }
    }

    pub(crate) fn entries(&self) -> Entries {
        Entries {
            records: self.log.records(),
            dropped: self.log.dropped,
        }
    }
}

fn is_text_mime(mime: &str) -> bool {
    let mime = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/x-www-form-urlencoded"
                | "application/graphql"
                | "image/svg+xml"
        )
}

/// The HAR document of `records`; `browser` is Chrome's product string (`Chrome/156.0…`),
/// `creator` the writing tool's name and version.
pub(crate) fn document(
    records: &[RequestRecord],
    browser: Option<&str>,
    creator: (&str, &str),
) -> Value {
    let mut log = json!({
        "version": "1.2",
        "creator": {"name": creator.0, "version": creator.1},
        "pages": [],
        "entries": records.iter().map(entry).collect::<Vec<_>>(),
    });
    if let Some(product) = browser {
        let (name, version) = product.split_once('/').unwrap_or((product, ""));
        let name = if name.ends_with("Chrome") {
            "Chrome"
        } else {
            name
        };
        log["browser"] = json!({"name": name, "version": version});
    }
    json!({ "log": log })
}

fn name_values(headers: &Map<String, Value>) -> Vec<Value> {
    headers
        .iter()
        .map(|(k, v)| json!({"name": k, "value": v.as_str().unwrap_or_default()}))
        .collect()
}

fn header<'a>(headers: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str())
}

fn http_version(protocol: &str) -> &'static str {
    match protocol.to_ascii_lowercase().as_str() {
        "h2" | "http/2" | "http/2.0" => "HTTP/2.0",
        "h3" | "http/3" => "HTTP/3.0",
        "http/1.0" => "HTTP/1.0",
        _ => "HTTP/1.1",
    }
}

fn entry(r: &RequestRecord) -> Value {
    let x = &r.extra;
    let empty = Map::new();
    let response_headers = r.response_headers.as_ref().unwrap_or(&empty);
    let version = http_version(&x.protocol);
    let cookies: Vec<Value> = header(&r.headers, "cookie")
        .map(|c| {
            c.split(';')
                .filter_map(|pair| {
                    let pair = pair.trim();
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (!name.is_empty()).then(|| json!({"name": name, "value": value}))
                })
                .collect()
        })
        .unwrap_or_default();
    let set_cookies: Vec<Value> = header(response_headers, "set-cookie")
        .map(|c| {
            c.lines()
                .filter_map(|line| {
                    let first = line.split(';').next()?.trim();
                    let (name, value) = first.split_once('=')?;
                    Some(json!({"name": name.trim(), "value": value.trim()}))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut request = json!({
        "method": r.method,
        "url": r.url,
        "httpVersion": version,
        "cookies": cookies,
        "headers": name_values(&r.headers),
        "queryString": query_string(&r.url),
        "headersSize": -1,
        "bodySize": r.post_data.as_ref().map_or(0, |p| p.len() as i64),
    });
    if let Some(post) = &r.post_data {
        request["postData"] = json!({
            "mimeType": header(&r.headers, "content-type").unwrap_or(""),
            "text": post,
        });
    }
    let size = x.encoded_length.map_or(-1, |l| l as i64);
    let mut content = json!({
        "size": x.body.as_ref().map_or(size.max(0), |(text, _)| text.len() as i64),
        "mimeType": r.mime_type.clone().unwrap_or_default(),
    });
    if let Some((text, base64)) = &x.body {
        content["text"] = json!(text);
        if *base64 {
            content["encoding"] = json!("base64");
        }
    }
    let (timings, time) = timings(r);
    let mut entry = json!({
        "startedDateTime": iso8601(x.wall_time),
        "time": time,
        "request": request,
        "response": {
            "status": r.status.unwrap_or(0),
            "statusText": x.status_text,
            "httpVersion": version,
            "cookies": set_cookies,
            "headers": name_values(response_headers),
            "content": content,
            "redirectURL": x.redirect_url,
            "headersSize": -1,
            "bodySize": size,
        },
        "cache": {},
        "timings": timings,
        "_resourceType": r.resource_type,
    });
    if let Some(error) = &x.error_text {
        entry["response"]["_error"] = json!(error);
    }
    entry
}

/// HAR timings (milliseconds, `-1` for a phase that did not happen) and their total.
fn timings(r: &RequestRecord) -> (Value, f64) {
    let x = &r.extra;
    let ms = |a: f64, b: f64| ((b - a) * 1000.0).max(0.0);
    let end = x.ended.or(x.responded).unwrap_or(x.started);
    let Some(t) = x.timing.as_ref().and_then(Value::as_object) else {
        // No `ResourceTiming` (a mocked, cached or failed request): wait until the response,
        // receive until the end.
        let responded = x.responded.unwrap_or(end);
        let wait = ms(x.started, responded);
        let receive = ms(responded, end);
        return (
            json!({"blocked": -1, "dns": -1, "connect": -1, "ssl": -1,
                   "send": 0, "wait": wait, "receive": receive}),
            wait + receive,
        );
    };
    let get = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(-1.0);
    let span = |a: f64, b: f64| {
        if a >= 0.0 && b >= a { b - a } else { -1.0 }
    };
    let request_time = get("requestTime");
    let dns = span(get("dnsStart"), get("dnsEnd"));
    let connect = span(get("connectStart"), get("connectEnd"));
    let ssl = span(get("sslStart"), get("sslEnd"));
    let (send_start, send_end) = (get("sendStart"), get("sendEnd"));
    let headers_end = get("receiveHeadersEnd");
    let first = [get("dnsStart"), get("connectStart"), send_start]
        .into_iter()
        .find(|v| *v >= 0.0)
        .unwrap_or(0.0);
    let blocked = if first > 0.0 { first } else { -1.0 };
    let send = span(send_start, send_end).max(0.0);
    let wait = span(send_end, headers_end).max(0.0);
    let receive = if request_time > 0.0 && headers_end >= 0.0 {
        ((end - request_time) * 1000.0 - headers_end).max(0.0)
    } else {
        0.0
    };
    // `connect` includes `ssl` in HAR 1.2, as in Chrome's timing.
    let total = [blocked, dns, connect, send, wait, receive]
        .into_iter()
        .filter(|v| *v > 0.0)
        .sum();
    (
        json!({"blocked": blocked, "dns": dns, "connect": connect, "ssl": ssl,
               "send": send, "wait": wait, "receive": receive}),
        total,
    )
}

/// `name=value` pairs of the URL's query, percent-decoded.
fn query_string(url: &str) -> Vec<Value> {
    let Some((_, query)) = url.split_once('?') else {
        return Vec::new();
    };
    let query = query.split('#').next().unwrap_or("");
    form_urlencoded::parse(query.as_bytes())
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect()
}

/// Epoch seconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (before 1970 is 1970).
fn iso8601(epoch_seconds: f64) -> String {
    crate::dates::rfc3339_millis((epoch_seconds * 1000.0).max(0.0) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso8601_utc() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_796_128_244.242), "2026-12-01T12:30:44.242Z");
        assert_eq!(iso8601(951_782_400.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn query_strings_are_decoded() {
        let q = query_string("http://x/a?from=net%20work&b=1+2&flag#frag");
        assert_eq!(
            q,
            vec![
                json!({"name": "from", "value": "net work"}),
                json!({"name": "b", "value": "1 2"}),
                json!({"name": "flag", "value": ""}),
            ]
        );
        // Malformed escapes stay as written.
        assert_eq!(
            query_string("http://x/?p=100%&q=%zz&r=%4"),
            vec![
                json!({"name": "p", "value": "100%"}),
                json!({"name": "q", "value": "%zz"}),
                json!({"name": "r", "value": "%4"}),
            ]
        );
    }

    #[test]
    fn content_modes_parse_and_reject_others() {
        assert_eq!(HarContent::parse("text").ok(), Some(HarContent::Text));
        assert_eq!(HarContent::parse("all").ok(), Some(HarContent::All));
        assert_eq!(HarContent::parse("none").ok(), Some(HarContent::None));
        assert!(HarContent::parse("bogus").is_err());
    }
}
