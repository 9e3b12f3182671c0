//! `highlight`: outlines an element for a moment, where it is (the page does not scroll).

use super::*;

/// Outlines the element (see `highlight.js`).
const HIGHLIGHT_FN: PageFn = PageFn::new(include_str!("highlight.js"));

/// `{"highlighted": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Highlighted {
    /// The selector.
    pub highlighted: String,
}

impl Page<'_> {
    /// `highlight <selector>`: draws a red outline around the element for three seconds, as
    /// upstream does, without scrolling it into view.
    pub async fn highlight(&self, selector: &str) -> Result<Highlighted> {
        let (tab, _, timeout) = self.parts();
        let handle = self
            .session
            .locate_on(&tab, "highlight", selector, timeout)
            .await?;
        let outcome = tab
            .guarded("highlight", handle.call(HIGHLIGHT_FN, &[], timeout))
            .await;
        handle.release().await;
        outcome.map(|_| Highlighted {
            highlighted: selector.to_string(),
        })
    }
}
