//! Captures on a [`Page`]: screenshots of the viewport, the whole page or one element (a clip
//! that accepts refs), `--annotate` (numbered `[N]` labels over the refs of an interactive
//! snapshot, drawn with DOM that is removed again right after the capture), and `pdf`
//! (`Page.printToPDF`).

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::{dom, page};
use abx_cdp::protocol::js_protocol::runtime;
use base64::Engine as _;
use serde::Serialize;
use serde_json::{Value, json};

use crate::element::BoundingBox;
use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::refs::FrameKey;
use crate::session::{Page, ScreenshotOptions, Session};
use crate::snapshot::SnapshotOptions;
use crate::tab::Tab;

/// One entry of the annotation legend: `[number] @ref role "name"`. Serializes to
/// `{"number", "ref", "role", "name", "box"}` (`ref` without `@`; `box` in page coordinates).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Annotation {
    /// The label drawn on the page (the ref's number: `[5]` is `@e5`).
    pub number: u64,
    /// The ref, e.g. `e5`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its role.
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Where the label was drawn.
    #[serde(rename = "box")]
    pub bounds: BoundingBox,
}

/// An annotated screenshot: the image and its legend.
#[derive(Clone, Debug)]
pub struct AnnotatedScreenshot {
    /// The encoded image.
    pub image: Vec<u8>,
    /// The labels drawn, in number order.
    pub annotations: Vec<Annotation>,
}

/// `pdf` options (upstream's `pdf <path>` uses the defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct PdfOptions {
    /// Landscape orientation.
    pub landscape: bool,
    /// Print background graphics (default true).
    pub print_background: bool,
    /// Scale (default 1).
    pub scale: f64,
}

impl Default for PdfOptions {
    fn default() -> Self {
        Self {
            landscape: false,
            print_background: true,
            scale: 1.0,
        }
    }
}

/// Scrolls the element into view and returns its box in document coordinates (what
/// `Page.captureScreenshot`'s `clip` takes with `captureBeyondViewport`).
const CLIP_FN: PageFn = PageFn::new(include_str!("capture/clip.js"));

/// Draws the labels. Arguments: the label list `[[number, x, y, w, h], …]` in viewport
/// coordinates. Returns the boxes in document coordinates.
const OVERLAY_FN: PageFn = PageFn::new(include_str!("capture/overlay.js"));

/// Removes the labels again.
const REMOVE_OVERLAY_FN: PageFn = PageFn::new(include_str!("capture/remove_overlay.js"));

/// Chrome's answer to a capture when the page has no frame to copy yet.
const NO_SURFACE: &str = "Unable to capture screenshot";
/// How many times a capture refused for want of a frame is taken again.
const NO_SURFACE_RETRIES: u32 = 3;
/// The longest wait for the frames before each retry (a hidden tab draws none).
const FRAME_WAIT: Duration = Duration::from_millis(250);
/// Resolves once the page has drawn a frame.
const TWO_FRAMES: &str =
    "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(0))))";

/// The window's scroll offset `[x, y]`.
const SCROLL_OFFSET_FN: PageFn = PageFn::new(include_str!("capture/scroll_offset.js"));

/// Measures every argument element's viewport box: `[[x, y, w, h] | null, …]`.
const BOXES_FN: PageFn = PageFn::new(include_str!("capture/boxes.js"));

impl Session {
    /// The clip of an element screenshot (CSS selector or ref), in document coordinates.
    pub(crate) async fn element_clip(
        &self,
        tab: &Tab,
        selector: &str,
        timeout: Duration,
    ) -> Result<BoundingBox> {
        let handle = self.locate_on(tab, "screenshot", selector, timeout).await?;
        let outcome = async {
            if handle.subframe || handle.oopif {
                // Frame-local script coordinates do not place a clip on the page; the quads do.
                let mut b = self.box_of(&handle, timeout).await?;
                if handle.oopif {
                    return Err(EngineError::Invalid(format!(
                        "Element screenshots of '{}' inside a cross-site frame are not supported; screenshot the frame's <iframe> instead",
                        handle.selector
                    )));
                }
                let offset = crate::js::evaluate(SCROLL_OFFSET_FN.call(&[]));
                let scroll = tab.request("screenshot", offset, timeout).await?.result.value;
                let at = |i: usize| scroll.as_ref().and_then(|v| v.get(i)).and_then(Value::as_f64);
                b.x += at(0).unwrap_or(0.0);
                b.y += at(1).unwrap_or(0.0);
                return Ok(b);
            }
            let value = tab.guarded("screenshot", handle.call(CLIP_FN, &[], timeout)).await?;
            serde_json::from_value::<BoundingBox>(value).map_err(|e| EngineError::Chrome(format!("unexpected box reply: {e}")))
        }
        .await;
        handle.release().await;
        outcome
    }
}

impl Page<'_> {
    /// `screenshot`: captures the viewport, the whole page or one element and returns the image bytes.
    pub async fn screenshot(&self, options: &ScreenshotOptions) -> Result<Vec<u8>> {
        let (tab, timeout) = (&self.tab, self.timeout);
        let format = options.format.clone().unwrap_or_else(|| "png".into());
        if format != "png" && format != "jpeg" {
            return Err(EngineError::Invalid(format!(
                "Invalid screenshot format: {format}. Use png or jpeg"
            )));
        }
        let mut capture = page::CaptureScreenshotParams {
            format: Some(if format == "jpeg" {
                page::CaptureScreenshotFormat::Jpeg
            } else {
                page::CaptureScreenshotFormat::Png
            }),
            ..Default::default()
        };
        if format == "jpeg" {
            capture.quality = Some(i64::from(options.quality.unwrap_or(80).min(100)));
        }
        // Viewport and element shots are encoded for speed: the same pixels in a third to half
        // less time, the PNG 1.5-2.3x larger (an incompressible image the same size). Their
        // size is bounded by the viewport; a full-page image is not, so it keeps Chrome's
        // default compression. ADR 0013.
        capture.optimize_for_speed = Some(!options.full_page || options.selector.is_some());
        if let Some(selector) = &options.selector {
            // CSS, XPath or a snapshot ref; the clip is in document coordinates.
            let b = self.session.element_clip(tab, selector, timeout).await?;
            capture.clip = Some(page::Viewport {
                x: b.x,
                y: b.y,
                width: b.width.max(1.0),
                height: b.height.max(1.0),
                scale: 1.0,
            });
            capture.capture_beyond_viewport = Some(true);
        } else if options.full_page {
            // Own reply type: only the content size is read, with the pre-`css*` name as the
            // fallback older Chromes answer with.
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Metrics {
                css_content_size: Option<Size>,
                content_size: Option<Size>,
            }
            #[derive(serde::Deserialize)]
            struct Size {
                width: f64,
                height: f64,
            }
            let metrics = page::GetLayoutMetricsParams::default();
            let metrics: Metrics = tab
                .guarded("screenshot", async {
                    Ok(tab.cdp().call_as(&metrics, Some(timeout)).await?)
                })
                .await?;
            let size = metrics.css_content_size.or(metrics.content_size);
            let (width, height) = size.map_or((1280.0, 720.0), |s| (s.width, s.height));
            capture.clip = Some(page::Viewport {
                x: 0.0,
                y: 0.0,
                width,
                height,
                scale: 1.0,
            });
            capture.capture_beyond_viewport = Some(true);
        }
        // Own reply type: the image's base64 text is read once, straight into its string.
        #[derive(serde::Deserialize)]
        struct Shot {
            data: String,
        }
        let deadline = Instant::now() + timeout;
        let mut attempt = 0;
        let shot: Shot = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let taken = tab
                .guarded("screenshot", async {
                    Ok(tab.cdp().call_as(&capture, Some(left)).await?)
                })
                .await;
            match taken {
                // With `CDPScreenshotNewSurface` (ADR 0013) Chrome refuses a capture until the
                // document has produced its first frame, which a tab opened a moment ago may not
                // have yet: wait for two animation frames (one is drawn in between) and take it
                // again.
                Err(err)
                    if attempt < NO_SURFACE_RETRIES
                        && err.to_string().contains(NO_SURFACE)
                        && !left.is_zero() =>
                {
                    attempt += 1;
                    let frames = runtime::EvaluateParams {
                        await_promise: Some(true),
                        ..crate::js::evaluate(TWO_FRAMES)
                    };
                    let wait = left.min(FRAME_WAIT);
                    let _ = tab.cdp().call_within(frames, wait).await;
                }
                other => break other?,
            }
        };
        base64::engine::general_purpose::STANDARD
            .decode(shot.data.as_bytes())
            .map_err(|e| EngineError::Chrome(format!("screenshot data is not base64: {e}")))
    }

    /// `screenshot --annotate`: takes an interactive snapshot (so the refs are fresh and
    /// usable), draws `[N]` over each visible ref of the main frame, captures, and removes the
    /// drawing again.
    pub async fn screenshot_annotated(
        &self,
        options: &ScreenshotOptions,
    ) -> Result<AnnotatedScreenshot> {
        let (tab, limit) = (&self.tab, self.timeout);
        self.snapshot(&SnapshotOptions {
            interactive: true,
            ..SnapshotOptions::default()
        })
        .await?;
        let refs: Vec<_> = self
            .session
            .refs
            .live(tab.target_id())
            .into_iter()
            .filter(|r| r.document.frame == FrameKey::MAIN)
            .collect();
        let group = crate::locate::new_group();
        let session = tab.cdp().clone();
        let resolved = tab
            .guarded("screenshot", async {
                Ok(futures_util::future::join_all(refs.iter().map(|r| {
                    let (session, group) = (&session, &group);
                    async move {
                        // A ref from the snapshot walker names its node by a walker key.
                        let backend = match crate::snapshot::walker::unkey(r.backend_node_id) {
                            None => Some(r.backend_node_id),
                            Some(_) => {
                                crate::snapshot::walker::backend_of(
                                    session,
                                    r.backend_node_id,
                                    limit,
                                )
                                .await
                            }
                        };
                        let resolve = dom::ResolveNodeParams {
                            backend_node_id: Some(dom::BackendNodeId::new(backend?)),
                            object_group: Some(group.clone()),
                            ..Default::default()
                        };
                        session.call_within(resolve, limit).await.ok()
                    }
                }))
                .await)
            })
            .await?;
        let mut args = Vec::new();
        let mut kept = Vec::new();
        for (entry, reply) in refs.iter().zip(resolved) {
            if let Some(id) = reply.and_then(|r| r.object.object_id) {
                args.push(id);
                kept.push(entry);
            }
        }
        let mut annotations = Vec::new();
        let mut labels = Vec::new();
        if !args.is_empty() {
            let measure = runtime::CallFunctionOnParams {
                object_id: Some(args[0].clone()),
                arguments: Some(
                    args.iter()
                        .map(|id| crate::js::by_object(id.as_ref()))
                        .collect(),
                ),
                return_by_value: Some(true),
                ..runtime::CallFunctionOnParams::new(BOXES_FN.source())
            };
            let reply = tab.request("screenshot", measure, limit).await?;
            let boxes = match reply.result.value {
                Some(Value::Array(boxes)) => boxes,
                _ => Vec::new(),
            };
            for (entry, b) in kept.iter().zip(boxes) {
                let Some(b) = b.as_array().filter(|b| b.len() == 4) else {
                    continue;
                };
                let n: u64 = entry.name.trim_start_matches('e').parse().unwrap_or(0);
                let f = |i: usize| b.get(i).and_then(Value::as_f64).unwrap_or(0.0);
                labels.push(json!([n, f(0), f(1), f(2), f(3)]));
                annotations.push(Annotation {
                    number: n,
                    reference: entry.name.clone(),
                    role: entry.role.clone(),
                    name: entry.label.clone(),
                    bounds: BoundingBox {
                        x: f(0),
                        y: f(1),
                        width: f(2),
                        height: f(3),
                    },
                });
            }
        }
        let _ = session
            .send(&runtime::ReleaseObjectGroupParams::new(group))
            .await;
        let draw = crate::js::evaluate(OVERLAY_FN.call(&[Value::Array(labels)]));
        let drawn = tab.request("screenshot", draw, limit).await?.result.value;
        if let Some(placed) = drawn.as_ref().and_then(Value::as_array) {
            for (annotation, p) in annotations.iter_mut().zip(placed) {
                annotation.bounds.x = p
                    .get(1)
                    .and_then(Value::as_f64)
                    .unwrap_or(annotation.bounds.x);
                annotation.bounds.y = p
                    .get(2)
                    .and_then(Value::as_f64)
                    .unwrap_or(annotation.bounds.y);
            }
        }
        let shot = self.screenshot(options).await;
        // The drawing comes off whatever happened to the capture.
        let _ = tab
            .cdp()
            .call_within(
                runtime::EvaluateParams::new(REMOVE_OVERLAY_FN.call(&[])),
                limit,
            )
            .await;
        Ok(AnnotatedScreenshot {
            image: shot?,
            annotations,
        })
    }

    /// `pdf`: prints the view's tab to PDF and returns the bytes.
    pub async fn pdf(&self, options: &PdfOptions) -> Result<Vec<u8>> {
        let (tab, timeout) = (&self.tab, self.timeout);
        let print = page::PrintToPdfParams {
            landscape: Some(options.landscape),
            print_background: Some(options.print_background),
            scale: Some(options.scale),
            transfer_mode: Some(page::PrintToPdfTransferMode::ReturnAsBase64),
            ..Default::default()
        };
        // Own reply type: the document's base64 text is read once, straight into its string.
        #[derive(serde::Deserialize)]
        struct Printed {
            data: String,
        }
        let printed: Printed = tab
            .guarded("pdf", async {
                Ok(tab.cdp().call_as(&print, Some(timeout)).await?)
            })
            .await?;
        base64::engine::general_purpose::STANDARD
            .decode(printed.data.as_bytes())
            .map_err(|e| EngineError::Chrome(format!("PDF data is not base64: {e}")))
    }
}
