//! Screenshot comparison: `screenshot --if-changed [--threshold]` (is this capture different
//! enough from the last one of the same tab and scope?) and `diff screenshot --baseline` (how
//! many pixels differ from a baseline image, with a diff image).
//!
//! Images are decoded with the `image` crate (PNG or JPEG, whatever the bytes are), compared as
//! RGBA pixels; nothing here trusts the input's size or format.

mod page_shots;

use std::collections::HashMap;
use std::sync::Mutex;

use image::{ImageFormat, Rgba, RgbaImage};
use serde::Serialize;

use crate::error::{EngineError, Result};

/// How two images compare (`diff screenshot`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ImageDiff {
    /// No pixel differs (and the sizes are the same).
    #[serde(rename = "match")]
    pub matched: bool,
    /// Differing pixels in percent of all pixels.
    pub mismatch_percentage: f64,
    /// Pixels compared.
    pub total_pixels: u64,
    /// Pixels that differ by more than the threshold.
    pub different_pixels: u64,
    /// The sizes differ (then every pixel counts as different).
    pub dimension_mismatch: bool,
    /// A PNG: differing pixels red over a faded copy of the current image.
    #[serde(skip)]
    pub diff_png: Vec<u8>,
}

/// A conditional capture (`screenshot --if-changed`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalShot {
    /// Whether it changed by more than the threshold (the first capture of a scope always has).
    pub changed: bool,
    /// Captures of this tab and scope so far, this one included.
    pub revision: u64,
    /// Share of pixels that differ from the last reported capture (0 to 1).
    pub pixel_change_ratio: f64,
    /// The threshold it was held to.
    pub threshold: f64,
    /// The image, when it changed.
    pub image: Option<Vec<u8>>,
}

/// The last reported capture per tab and scope.
#[derive(Default)]
pub(crate) struct History {
    scopes: Mutex<HashMap<String, (u64, Vec<u8>)>>,
}

/// Decodes `bytes`; a failure is the caller's ([`EngineError::Invalid`]: a baseline it gave)
/// or Chrome's ([`EngineError::Chrome`]: a screenshot it took), as `from_caller` says.
fn decode(bytes: &[u8], what: &str, from_caller: bool) -> Result<RgbaImage> {
    image::load_from_memory(bytes)
        .map(|i| i.to_rgba8())
        .map_err(|e| {
            let message = format!("{what} is not an image this can read: {e}");
            if from_caller {
                EngineError::Invalid(message)
            } else {
                EngineError::Chrome(message)
            }
        })
}

fn channel_distance(a: &Rgba<u8>, b: &Rgba<u8>) -> f64 {
    a.0.iter()
        .zip(b.0.iter())
        .map(|(x, y)| f64::from(x.abs_diff(*y)))
        .fold(0.0, f64::max)
        / 255.0
}

/// Compares `current` with `baseline`: a pixel differs when one of its channels differs by
/// more than `threshold` (0 to 1) of the full range.
pub fn diff_images(baseline: &[u8], current: &[u8], threshold: f64) -> Result<ImageDiff> {
    let base = decode(baseline, "The baseline", true)?;
    let now = decode(current, "The screenshot", false)?;
    let (w, h) = now.dimensions();
    let total = u64::from(w) * u64::from(h);
    let mut out = RgbaImage::new(w, h);
    let same_size = base.dimensions() == now.dimensions();
    let mut different = 0u64;
    for (x, y, pixel) in now.enumerate_pixels() {
        let differs = !same_size || channel_distance(base.get_pixel(x, y), pixel) > threshold;
        if differs {
            different += 1;
            out.put_pixel(x, y, Rgba([255, 0, 0, 255]));
        } else {
            let grey = (u32::from(pixel.0[0]) + u32::from(pixel.0[1]) + u32::from(pixel.0[2])) / 3;
            let faded = (255 - (255 - grey) * 3 / 10) as u8;
            out.put_pixel(x, y, Rgba([faded, faded, faded, 255]));
        }
    }
    let mut diff_png = Vec::new();
    out.write_to(&mut std::io::Cursor::new(&mut diff_png), ImageFormat::Png)
        .map_err(|e| EngineError::Internal(format!("cannot encode the diff image: {e}")))?;
    let mismatch_percentage = if total == 0 {
        0.0
    } else {
        different as f64 * 100.0 / total as f64
    };
    Ok(ImageDiff {
        matched: same_size && different == 0,
        mismatch_percentage,
        total_pixels: total,
        different_pixels: different,
        dimension_mismatch: !same_size,
        diff_png,
    })
}

/// The share of pixels that differ at all (sizes differing: all of them).
fn change_ratio(before: &[u8], after: &[u8]) -> Result<f64> {
    let a = decode(before, "The previous screenshot", false)?;
    let b = decode(after, "The screenshot", false)?;
    if a.dimensions() != b.dimensions() {
        return Ok(1.0);
    }
    let total = u64::from(b.width()) * u64::from(b.height());
    if total == 0 {
        return Ok(0.0);
    }
    let changed = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    Ok(changed as f64 / total as f64)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, paint: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
        let img = RgbaImage::from_fn(w, h, |x, y| Rgba(paint(x, y)));
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn counts_pixels_past_the_threshold_and_marks_them_red() {
        let white = png(4, 4, |_, _| [255, 255, 255, 255]);
        let one_dark = png(4, 4, |x, y| {
            if (x, y) == (1, 2) {
                [0, 0, 0, 255]
            } else {
                [255, 255, 255, 255]
            }
        });
        let slightly_off = png(4, 4, |_, _| [250, 255, 255, 255]);
        let d = diff_images(&white, &one_dark, 0.1).unwrap();
        assert_eq!(
            (d.different_pixels, d.total_pixels, d.matched),
            (1, 16, false)
        );
        assert!((d.mismatch_percentage - 6.25).abs() < 1e-9);
        let img = image::load_from_memory(&d.diff_png).unwrap().to_rgba8();
        assert_eq!(img.get_pixel(1, 2).0, [255, 0, 0, 255]);
        assert!(diff_images(&white, &slightly_off, 0.1).unwrap().matched);
        assert!(!diff_images(&white, &slightly_off, 0.0).unwrap().matched);
    }

    #[test]
    fn different_sizes_and_garbage_are_reported_not_panics() {
        let a = png(2, 2, |_, _| [0, 0, 0, 255]);
        let b = png(3, 2, |_, _| [0, 0, 0, 255]);
        let d = diff_images(&a, &b, 0.1).unwrap();
        assert!(d.dimension_mismatch && !d.matched);
        assert_eq!(change_ratio(&a, &b).unwrap(), 1.0);
        assert!(diff_images(b"not an image", &a, 0.1).is_err());
    }
}
