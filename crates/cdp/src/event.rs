//! Messages from Chrome, kept as the bytes they arrived in.
//!
//! An [`Event`] or [`RawJson`] reply holds the received message as a shared [`Bytes`] buffer plus
//! byte ranges into it; nothing is copied or parsed beyond the envelope until a consumer asks for
//! it. A `Page.screencastFrame` event additionally carries a [`ScreencastFrame`] whose `data` is a
//! zero-copy slice of the base64 text inside the message.

use std::ops::Range;
use std::time::Instant;

use bytes::Bytes;
use chromiumoxide_types::MethodType;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::Error;

/// UTF-8 JSON text held in a shared buffer, addressed by a byte range.
#[derive(Clone)]
pub struct RawJson {
    buffer: Bytes,
    range: Range<usize>,
}

impl RawJson {
    /// `buffer[range]` must be valid UTF-8 on char boundaries (the reader only builds these from
    /// slices of a validated `&str`).
    pub(crate) fn new(buffer: Bytes, range: Range<usize>) -> Self {
        Self { buffer, range }
    }

    /// Wraps an owned JSON string.
    pub fn from_string(text: String) -> Self {
        let len = text.len();
        Self {
            buffer: Bytes::from(text),
            range: 0..len,
        }
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        // Validated when the message was received; a failure here would be a bug in range math,
        // and an empty string then fails to parse loudly instead of panicking.
        std::str::from_utf8(&self.buffer[self.range.clone()]).unwrap_or("")
    }

    /// The JSON text as shared bytes (no copy).
    pub fn bytes(&self) -> Bytes {
        self.buffer.slice(self.range.clone())
    }

    /// Deserializes the JSON into `T`.
    pub fn parse<T: DeserializeOwned>(&self, what: &str) -> Result<T, Error> {
        serde_json::from_str(self.as_str()).map_err(|err| Error::Decode {
            method: what.to_string(),
            detail: err.to_string(),
        })
    }

    /// Deserializes into a `serde_json::Value`.
    pub fn to_value(&self, what: &str) -> Result<serde_json::Value, Error> {
        self.parse(what)
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.as_str();
        if let Some((cut, _)) = text.char_indices().nth(200) {
            write!(f, "RawJson({}… {} bytes)", &text[..cut], text.len())
        } else {
            write!(f, "RawJson({text})")
        }
    }
}

/// One event from Chrome, for one session (or the browser when `session_id` is `None`).
#[derive(Clone)]
pub struct Event {
    buffer: Bytes,
    method: Range<usize>,
    session_id: Option<Range<usize>>,
    params: Option<Range<usize>>,
    frame: Option<ScreencastFrame>,
    received_at: Instant,
}

impl Event {
    pub(crate) fn new(
        buffer: Bytes,
        method: Range<usize>,
        session_id: Option<Range<usize>>,
        params: Option<Range<usize>>,
        frame: Option<ScreencastFrame>,
        received_at: Instant,
    ) -> Self {
        Self {
            buffer,
            method,
            session_id,
            params,
            frame,
            received_at,
        }
    }

    /// An event from one CDP message's text (`{"method", "params", "sessionId"}`), as the
    /// reader would deliver it; `None` when the text is not an event message. For tests and
    /// replays (a screencast frame built this way has no [`Event::screencast_frame`]).
    pub fn from_message(text: impl Into<String>) -> Option<Event> {
        #[derive(Deserialize)]
        struct Message<'a> {
            #[serde(borrow)]
            method: &'a str,
            #[serde(rename = "sessionId", borrow, default)]
            session_id: Option<&'a str>,
            #[serde(borrow, default)]
            params: Option<&'a serde_json::value::RawValue>,
        }
        let buffer = Bytes::from(text.into());
        let text = std::str::from_utf8(&buffer).ok()?;
        let message: Message<'_> = serde_json::from_str(text).ok()?;
        let method = offset_in(text, message.method);
        let session_id = message.session_id.map(|s| offset_in(text, s));
        let params = message.params.map(|p| offset_in(text, p.get()));
        Some(Event::new(
            buffer.clone(),
            method,
            session_id,
            params,
            None,
            Instant::now(),
        ))
    }

    fn text(&self, range: &Range<usize>) -> &str {
        std::str::from_utf8(&self.buffer[range.clone()]).unwrap_or("")
    }

    /// The CDP method, e.g. `Page.javascriptDialogOpening`.
    pub fn method(&self) -> &str {
        self.text(&self.method)
    }

    /// The flat session the event belongs to; `None` for browser-level events.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_ref().map(|r| self.text(r))
    }

    /// The raw `params` object (`{}` when the event had none).
    pub fn params(&self) -> RawJson {
        match &self.params {
            Some(range) => RawJson::new(self.buffer.clone(), range.clone()),
            None => RawJson::from_string("{}".to_string()),
        }
    }

    /// Deserializes `params` into a typed event (e.g. a chromiumoxide_cdp `Event…` struct).
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, Error> {
        self.params().parse(self.method())
    }

    /// Whether this is the generated event type `E` (its method).
    pub fn is<E: MethodType>(&self) -> bool {
        self.method() == E::method_id()
    }

    /// The event decoded as the generated event type `E` (e.g.
    /// `protocol::browser_protocol::page::EventFrameNavigated`) when its method is `E`'s;
    /// `None` for any other event.
    pub fn decode<E: MethodType + DeserializeOwned>(&self) -> Option<Result<E, Error>> {
        self.is::<E>().then(|| self.parse())
    }

    /// The screencast frame, when this is a `Page.screencastFrame` event.
    pub fn screencast_frame(&self) -> Option<&ScreencastFrame> {
        self.frame.as_ref()
    }

    /// When the transport's reader finished receiving the message.
    pub fn received_at(&self) -> Instant {
        self.received_at
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("method", &self.method())
            .field("session_id", &self.session_id())
            .finish_non_exhaustive()
    }
}

/// A `Page.screencastFrame`, parsed on the reader without copying or decoding the image.
#[derive(Clone, Debug)]
pub struct ScreencastFrame {
    /// The base64 JPEG/PNG text exactly as Chrome sent it (a slice of the received message).
    pub data: Bytes,
    /// Chrome's frame number; acknowledge it with `Page.screencastFrameAck { sessionId }`.
    pub ack_id: i64,
    /// Frame metadata.
    pub metadata: FrameMetadata,
    /// When the transport's reader finished receiving the message.
    pub received_at: Instant,
}

/// `Page.ScreencastFrameMetadata`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FrameMetadata {
    /// Top offset in DIP.
    #[serde(default)]
    pub offset_top: f64,
    /// Page scale factor.
    #[serde(default)]
    pub page_scale_factor: f64,
    /// Device screen width in DIP.
    #[serde(default)]
    pub device_width: f64,
    /// Device screen height in DIP.
    #[serde(default)]
    pub device_height: f64,
    /// Horizontal scroll position in CSS pixels.
    #[serde(default)]
    pub scroll_offset_x: f64,
    /// Vertical scroll position in CSS pixels.
    #[serde(default)]
    pub scroll_offset_y: f64,
    /// Capture time, seconds since the epoch.
    #[serde(default)]
    pub timestamp: Option<f64>,
}

/// The borrowed shape of `Page.screencastFrame` params.
#[derive(Deserialize)]
struct FrameParams<'a> {
    #[serde(borrow)]
    data: std::borrow::Cow<'a, str>,
    #[serde(default)]
    metadata: FrameMetadata,
    #[serde(rename = "sessionId")]
    ack_id: i64,
}

/// Parses screencast params; `data` stays a slice of `buffer` unless Chrome escaped characters in
/// it (it never does for base64, but a copy keeps us correct if it ever did).
pub(crate) fn parse_frame(
    buffer: &Bytes,
    text: &str,
    params: &str,
    received_at: Instant,
) -> Option<ScreencastFrame> {
    let parsed: FrameParams<'_> = serde_json::from_str(params).ok()?;
    let data = match parsed.data {
        std::borrow::Cow::Borrowed(slice) => buffer.slice(offset_in(text, slice)),
        std::borrow::Cow::Owned(owned) => Bytes::from(owned),
    };
    Some(ScreencastFrame {
        data,
        ack_id: parsed.ack_id,
        metadata: parsed.metadata,
        received_at,
    })
}

/// The byte range of `part` inside `whole`; `part` must be a subslice of `whole`.
pub(crate) fn offset_in(whole: &str, part: &str) -> Range<usize> {
    let start = (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize);
    start..start + part.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::browser_protocol::page;

    #[test]
    fn an_event_from_message_text_decodes_as_its_generated_type() {
        let event = Event::from_message(
            r#"{"method":"Page.frameStartedLoading","sessionId":"S1","params":{"frameId":"F"}}"#,
        )
        .expect("an event");
        assert_eq!(event.method(), "Page.frameStartedLoading");
        assert_eq!(event.session_id(), Some("S1"));
        assert!(event.is::<page::EventFrameStartedLoading>());
        let started = event
            .decode::<page::EventFrameStartedLoading>()
            .expect("its type")
            .expect("decodes");
        assert_eq!(started.frame_id.as_ref(), "F");
        assert!(event.decode::<page::EventFrameStoppedLoading>().is_none());
        assert!(Event::from_message(r#"{"id":1,"result":{}}"#).is_none());
    }
}
