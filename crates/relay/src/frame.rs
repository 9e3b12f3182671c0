//! Frames: one screencast image, wrapped once into the wire `frame` message every viewer shares,
//! and the latest-wins slot that hands the newest frame to each viewer at its own pace.
//!
//! The base64 JPEG text Chrome sent is copied exactly once per frame, into the message buffer
//! (`header + data + trailer`); every viewer then sends a clone of that buffer (a reference
//! count, no copy). The JPEG is never decoded: its pixel size comes from the SOF header in the
//! first bytes.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use abx_cdp::ScreencastFrame;
use axum::extract::ws::Utf8Bytes;
use base64::Engine as _;
use tokio::sync::watch;

/// Process-wide frame numbering: `seq` of the wire `frame` message, monotonic from 1 across
/// tabs, restarts and relays (upstream's contract, so cumulative viewer acks stay meaningful).
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

/// Where and how the frame was captured (`Page.ScreencastFrameMetadata`, plus the image size).
///
/// A viewer that shows the image scaled maps a pointer position to page coordinates from the
/// image's own size (seed 000, invariant 33), e.g.:
///
/// ```
/// # let meta = abx_relay::FrameMetadata { offset_top: 0.0, page_scale_factor: 1.0,
/// #     device_width: 1280.0, device_height: 577.0, scroll_offset_x: 0.0, scroll_offset_y: 0.0,
/// #     timestamp_ms: 0, image_size: Some((640, 288)) };
/// // A click at (320, 144) on the decoded 640×288 image:
/// let (w, h) = meta.image_size.unwrap_or((meta.device_width as u32, meta.device_height as u32));
/// let x = 320.0 * meta.device_width / f64::from(w);
/// let y = 144.0 * meta.device_height / f64::from(h);
/// assert_eq!((x, y.round()), (640.0, 289.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FrameMetadata {
    /// Top offset of the page content in the image, CSS pixels.
    pub offset_top: f64,
    /// Page scale (pinch zoom) factor.
    pub page_scale_factor: f64,
    /// Width of the page's viewport in CSS pixels (what Chrome reports as `deviceWidth`).
    pub device_width: f64,
    /// Height of the page's viewport in CSS pixels (`deviceHeight`).
    pub device_height: f64,
    /// Horizontal scroll position, CSS pixels.
    pub scroll_offset_x: f64,
    /// Vertical scroll position, CSS pixels.
    pub scroll_offset_y: f64,
    /// Capture time in epoch milliseconds (0 when Chrome did not say).
    pub timestamp_ms: u64,
    /// The JPEG's pixel size, read from its header; `None` if the header could not be read.
    /// Pointer mapping: `css_x = image_x * device_width / image_width` (and likewise for y).
    pub image_size: Option<(u32, u32)>,
}

/// One screencast frame, ready to send.
///
/// Cloning is cheap (reference counted). [`Frame::message`] is the complete wire `frame`
/// message; [`Frame::data`] is the base64 JPEG inside it.
///
/// ```no_run
/// # async fn demo(view: &abx_relay::LiveView) -> Result<(), Box<dyn std::error::Error>> {
/// let frame = view.frames().next().await.ok_or("relay closed")?;
/// std::fs::write(format!("frame-{}.jpg", frame.seq()), frame.jpeg()?)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Frame {
    seq: u64,
    message: Utf8Bytes,
    data: Range<usize>,
    metadata: FrameMetadata,
    target_id: std::sync::Arc<str>,
    received_at: Instant,
}

impl Frame {
    /// Wraps a frame from Chrome; `None` if its data is not base64 text (it always is; a frame
    /// that is not cannot be put in a JSON string without escaping, so it is dropped).
    pub(crate) fn build(frame: &ScreencastFrame, target_id: std::sync::Arc<str>) -> Option<Frame> {
        let data = std::str::from_utf8(&frame.data).ok()?;
        if !is_base64(data.as_bytes()) {
            return None;
        }
        let meta = &frame.metadata;
        let metadata = FrameMetadata {
            offset_top: meta.offset_top,
            page_scale_factor: meta.page_scale_factor,
            device_width: meta.device_width,
            device_height: meta.device_height,
            scroll_offset_x: meta.scroll_offset_x,
            scroll_offset_y: meta.scroll_offset_y,
            timestamp_ms: meta
                .timestamp
                .filter(|t| t.is_finite() && *t > 0.0)
                .map_or(0, |t| (t * 1000.0).round() as u64),
            image_size: jpeg_size_from_base64(data),
        };
        let seq = NEXT_SEQ.fetch_add(1, Ordering::Relaxed);
        let header = frame_header(seq, &metadata);
        let mut text = String::with_capacity(header.len() + data.len() + 2);
        text.push_str(&header);
        let start = text.len();
        text.push_str(data);
        let end = text.len();
        text.push_str("\"}");
        Some(Frame {
            seq,
            message: Utf8Bytes::from(text),
            data: start..end,
            metadata,
            target_id,
            received_at: frame.received_at,
        })
    }

    /// The frame number (`seq` on the wire): process-wide, increasing, starting at 1.
    ///
    /// ```no_run
    /// # fn demo(a: &abx_relay::Frame, b: &abx_relay::Frame) {
    /// let newer = if a.seq() > b.seq() { a } else { b };
    /// # }
    /// ```
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The base64 JPEG exactly as Chrome sent it.
    pub fn data(&self) -> &str {
        self.message.as_str().get(self.data.clone()).unwrap_or("")
    }

    /// Decodes the base64 into JPEG bytes (a copy; the relay itself never does this).
    pub fn jpeg(&self) -> Result<Vec<u8>, base64::DecodeError> {
        base64::engine::general_purpose::STANDARD.decode(self.data())
    }

    /// The metadata.
    pub fn metadata(&self) -> &FrameMetadata {
        &self.metadata
    }

    /// The complete wire message `{"type":"frame","seq":…,"metadata":{…},"data":"…"}`.
    pub fn message(&self) -> &str {
        self.message.as_str()
    }

    /// The target (tab) this frame shows.
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// When the CDP reader received it (for latency measurements).
    pub fn received_at(&self) -> Instant {
        self.received_at
    }

    pub(crate) fn wire(&self) -> Utf8Bytes {
        self.message.clone()
    }
}

/// The message up to and including the opening quote of `data`.
fn frame_header(seq: u64, m: &FrameMetadata) -> String {
    let image = match m.image_size {
        Some((w, h)) => format!(r#","imageWidth":{w},"imageHeight":{h}"#),
        None => String::new(),
    };
    format!(
        r#"{{"type":"frame","seq":{seq},"metadata":{{"offsetTop":{},"pageScaleFactor":{},"deviceWidth":{},"deviceHeight":{},"scrollOffsetX":{},"scrollOffsetY":{},"timestamp":{}{image}}},"data":""#,
        num(m.offset_top),
        num(m.page_scale_factor),
        num(m.device_width),
        num(m.device_height),
        num(m.scroll_offset_x),
        num(m.scroll_offset_y),
        m.timestamp_ms,
    )
}

/// A JSON number: integers without a fraction (upstream sends `1280`, not `1280.0`), non-finite
/// values as 0 (JSON has no NaN).
pub(crate) fn num(value: f64) -> String {
    if !value.is_finite() {
        return "0".to_string();
    }
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Whether `bytes` only holds base64 alphabet characters (so it needs no JSON escaping).
fn is_base64(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// The pixel size of a base64 JPEG, from its start-of-frame header. Only a prefix is decoded:
/// Chrome's encoder writes SOF within the first few hundred bytes (after SOI, APP0 and the
/// quantization tables).
///
/// ```
/// assert_eq!(abx_relay::jpeg_size_from_base64("iVBORw0KGgo="), None); // a PNG
/// ```
pub fn jpeg_size_from_base64(data: &str) -> Option<(u32, u32)> {
    // 2732 base64 chars = 2049 bytes; a multiple of 4 so the prefix decodes on its own.
    let prefix_len = data.len().min(2732) / 4 * 4;
    let prefix = data.get(..prefix_len)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(prefix)
        .ok()?;
    jpeg_size(&bytes)
}

/// The pixel size from the SOF marker of JPEG bytes (possibly only a prefix of the file).
///
/// ```
/// // SOI, then a baseline SOF0 header for a 2×3 image.
/// let jpeg = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x03, 0x00, 0x02, 0x01];
/// assert_eq!(abx_relay::jpeg_size(&jpeg), Some((2, 3)));
/// ```
pub fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut at = 2;
    loop {
        // Markers may be padded with extra 0xFF bytes.
        while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        let length = u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]) as usize;
        // SOF0..SOF15 carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let height = u16::from_be_bytes([*bytes.get(at + 5)?, *bytes.get(at + 6)?]);
            let width = u16::from_be_bytes([*bytes.get(at + 7)?, *bytes.get(at + 8)?]);
            return Some((u32::from(width), u32::from(height)));
        }
        if marker == 0xDA || length < 2 {
            // Start of scan without a frame header: not a JPEG we understand.
            return None;
        }
        at += 2 + length;
    }
}

/// The newest frame, latest wins.
///
/// One slot per relay: the publisher replaces its content, each receiver sees only the newest
/// value when it looks. A receiver that is slow skips frames; nothing queues, so memory stays at
/// one frame however many receivers lag.
#[derive(Debug)]
pub(crate) struct FrameSlot {
    tx: watch::Sender<Option<Frame>>,
}

impl FrameSlot {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::channel(None).0,
        }
    }

    /// Replaces the newest frame (works with no receivers).
    pub(crate) fn publish(&self, frame: Frame) {
        self.tx.send_replace(Some(frame));
    }

    /// Drops the cached frame (the streamed tab changed: its last image would mislead).
    pub(crate) fn clear(&self) {
        self.tx.send_replace(None);
    }

    /// The newest frame, if any.
    pub(crate) fn latest(&self) -> Option<Frame> {
        self.tx.borrow().clone()
    }

    pub(crate) fn subscribe(&self) -> FrameReceiver {
        FrameReceiver {
            rx: self.tx.subscribe(),
        }
    }
}

/// A latest-wins stream of frames (see [`crate::LiveView::frames`]).
///
/// `next()` returns the newest frame that this receiver has not seen yet, skipping any that were
/// replaced meanwhile; it never queues.
///
/// ```no_run
/// # async fn demo(view: &abx_relay::LiveView) {
/// let mut frames = view.frames();
/// while let Some(frame) = frames.next().await {
///     println!("frame {} ({} base64 bytes)", frame.seq(), frame.data().len());
/// }
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct FrameReceiver {
    rx: watch::Receiver<Option<Frame>>,
}

impl FrameReceiver {
    /// Waits for a frame newer than the last one returned; `None` once the relay is gone.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            self.rx.changed().await.ok()?;
            if let Some(frame) = self.rx.borrow_and_update().clone() {
                return Some(frame);
            }
        }
    }

    /// The newest frame now (marks it seen).
    pub fn latest(&mut self) -> Option<Frame> {
        self.rx.borrow_and_update().clone()
    }

    /// Whether a frame arrived that [`FrameReceiver::next`] or [`FrameReceiver::latest`] has not
    /// returned yet.
    pub fn has_new(&self) -> bool {
        self.rx.has_changed().unwrap_or(false)
    }

    pub(crate) fn inner(&mut self) -> &mut watch::Receiver<Option<Frame>> {
        &mut self.rx
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A minimal JPEG header: SOI, APP0 (JFIF), DQT, SOF0 (height 577, width 1280).
    fn jpeg_header() -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        b.extend([0xFF, 0xE0, 0x00, 0x10]);
        b.extend(b"JFIF\0");
        b.extend([1, 1, 0, 0, 1, 0, 1, 0, 0]);
        b.extend([0xFF, 0xDB, 0x00, 0x43, 0x00]);
        b.extend([1u8; 64]);
        b.extend([0xFF, 0xC0, 0x00, 0x11, 0x08, 0x02, 0x41, 0x05, 0x00, 0x03]);
        b.extend([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        b.extend([0xFF, 0xDA, 0x00, 0x0C]);
        b.extend([0u8; 64]);
        b
    }

    fn cdp_frame(data: &str) -> ScreencastFrame {
        ScreencastFrame {
            data: bytes::Bytes::from(data.to_string()),
            ack_id: 1,
            metadata: abx_cdp::FrameMetadata {
                offset_top: 0.0,
                page_scale_factor: 1.0,
                device_width: 1280.0,
                device_height: 577.0,
                scroll_offset_x: 0.0,
                scroll_offset_y: 12.5,
                timestamp: Some(1_700_000_000.123_4),
            },
            received_at: Instant::now(),
        }
    }

    #[test]
    fn jpeg_size_comes_from_the_sof_header() {
        let jpeg = jpeg_header();
        assert_eq!(jpeg_size(&jpeg), Some((1280, 577)));
        let b64 = base64::engine::general_purpose::STANDARD.encode(&jpeg);
        assert_eq!(jpeg_size_from_base64(&b64), Some((1280, 577)));
        // Truncated or foreign data gives no size and no panic.
        assert_eq!(jpeg_size(&jpeg[..40]), None);
        assert_eq!(jpeg_size(b"\x89PNG\r\n"), None);
        assert_eq!(jpeg_size(&[]), None);
        assert_eq!(jpeg_size_from_base64("not base64!"), None);
        assert_eq!(jpeg_size(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00]), None);
    }

    #[test]
    fn the_frame_message_is_valid_json_that_embeds_the_data_untouched() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(jpeg_header());
        let frame = Frame::build(&cdp_frame(&b64), Arc::from("T1")).expect("frame");
        let parsed: serde_json::Value = serde_json::from_str(frame.message()).expect("valid JSON");
        assert_eq!(parsed["type"], "frame");
        assert_eq!(parsed["seq"].as_u64(), Some(frame.seq()));
        assert_eq!(parsed["data"].as_str(), Some(b64.as_str()));
        assert_eq!(frame.data(), b64);
        let meta = &parsed["metadata"];
        assert_eq!(meta["deviceWidth"], 1280);
        assert_eq!(meta["deviceHeight"], 577);
        assert_eq!(meta["scrollOffsetY"], 12.5);
        assert_eq!(meta["timestamp"], 1_700_000_000_123u64);
        assert_eq!(meta["imageWidth"], 1280);
        assert_eq!(meta["imageHeight"], 577);
        assert_eq!(frame.jpeg().expect("decodes"), jpeg_header());
    }

    #[test]
    fn seq_is_monotonic_and_non_base64_data_is_refused() {
        let a = Frame::build(&cdp_frame("QUJD"), Arc::from("T")).expect("a");
        let b = Frame::build(&cdp_frame("QUJD"), Arc::from("T")).expect("b");
        assert!(a.seq() >= 1 && b.seq() > a.seq());
        assert!(Frame::build(&cdp_frame("ab\"c"), Arc::from("T")).is_none());
        assert!(Frame::build(&cdp_frame("a\\u0041"), Arc::from("T")).is_none());
    }

    #[test]
    fn numbers_are_json_numbers() {
        assert_eq!(num(1280.0), "1280");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
    }

    #[tokio::test]
    async fn the_slot_keeps_only_the_newest_frame_and_slow_receivers_skip() {
        let slot = FrameSlot::new();
        let mut slow = slot.subscribe();
        let mut fast = slot.subscribe();
        let mut last_fast = 0;
        for _ in 0..100 {
            let frame = Frame::build(&cdp_frame("QUJD"), Arc::from("T")).expect("frame");
            slot.publish(frame);
            let got = fast.next().await.expect("frame");
            assert!(got.seq() > last_fast);
            last_fast = got.seq();
        }
        // The slow receiver never looked: it gets exactly the newest frame, once.
        assert!(slow.has_new());
        let newest = slow.next().await.expect("newest");
        assert_eq!(newest.seq(), last_fast);
        assert!(!slow.has_new());
        assert_eq!(slot.latest().map(|f| f.seq()), Some(last_fast));
        slot.clear();
        assert!(slot.latest().is_none());
    }

    #[test]
    fn viewers_share_one_buffer() {
        let frame = Frame::build(&cdp_frame("QUJD"), Arc::from("T")).expect("frame");
        let copy = frame.clone();
        let a = frame.wire();
        let b = copy.wire();
        assert_eq!(
            a.as_str().as_ptr(),
            b.as_str().as_ptr(),
            "no per-viewer copy"
        );
    }
}
