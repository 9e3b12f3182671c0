//! The page's image comparisons: `screenshot --if-changed` against the last reported capture of
//! the tab and scope, and `diff screenshot` against a baseline.

use super::{ConditionalShot, ImageDiff, change_ratio, diff_images};
use crate::error::{EngineError, Result};
use crate::session::{Page, ScreenshotOptions};

impl Page<'_> {
    /// `screenshot --if-changed [--threshold t]`: captures, and reports the image only when more
    /// than `threshold` (0 to 1) of its pixels changed since the last reported capture of the
    /// same tab and scope (viewport, full page, or a selector).
    pub async fn screenshot_if_changed(
        &self,
        options: &ScreenshotOptions,
        threshold: f64,
    ) -> Result<ConditionalShot> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(EngineError::Invalid(format!(
                "Threshold must be between 0 and 1, got {threshold}"
            )));
        }
        let tab = &self.tab;
        let scope = format!(
            "{}|{}|{}|{}",
            tab.target_id(),
            options.full_page,
            options.selector.as_deref().unwrap_or(""),
            options.format.as_deref().unwrap_or("png")
        );
        let image = self.screenshot(options).await?;
        let previous = self
            .session
            .shots
            .scopes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&scope)
            .cloned();
        let (revision, ratio, changed) = match previous {
            None => (1, 1.0, true),
            Some((revision, last)) => {
                let ratio = change_ratio(&last, &image)?;
                (revision + 1, ratio, ratio > threshold)
            }
        };
        let mut scopes = self
            .session
            .shots
            .scopes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = scopes.entry(scope).or_insert((0, Vec::new()));
        entry.0 = revision;
        if changed {
            entry.1 = image.clone();
        }
        Ok(ConditionalShot {
            changed,
            revision,
            pixel_change_ratio: ratio,
            threshold,
            image: changed.then_some(image),
        })
    }

    /// `diff screenshot --baseline`: a capture compared with a baseline image.
    pub async fn diff_screenshot(
        &self,
        baseline: &[u8],
        options: &ScreenshotOptions,
        threshold: f64,
    ) -> Result<ImageDiff> {
        let options = ScreenshotOptions {
            format: Some("png".into()),
            ..options.clone()
        };
        let current = self.screenshot(&options).await?;
        diff_images(baseline, &current, threshold)
    }
}
