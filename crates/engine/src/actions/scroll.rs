//! `scroll` (the page or an element) and `scrollintoview`.

use super::*;

impl Page<'_> {
    /// `scroll [up|down|left|right] [px] [--selector sel]`: scrolls the page, or the element.
    pub async fn scroll(
        &self,
        direction: &str,
        amount: Option<f64>,
        selector: Option<&str>,
    ) -> Result<Scrolled> {
        let amount = amount.unwrap_or(300.0);
        let (dx, dy) = match direction.to_ascii_lowercase().as_str() {
            "" | "down" => (0.0, amount),
            "up" => (0.0, -amount),
            "right" => (amount, 0.0),
            "left" => (-amount, 0.0),
            other => {
                return Err(EngineError::Invalid(format!(
                    "Invalid direction: {other}. Use up, down, left or right"
                )));
            }
        };
        let (tab, _, timeout) = self.parts();
        match selector {
            Some(selector) => {
                let handle = self
                    .session
                    .locate_on(&tab, "scroll", selector, timeout)
                    .await?;
                let outcome = tab
                    .guarded(
                        "scroll",
                        handle.call(SCROLL_ELEMENT_FN, &[json!(dx), json!(dy)], timeout),
                    )
                    .await;
                handle.release().await;
                outcome?;
            }
            None => {
                let scroll = crate::js::evaluate(SCROLL_PAGE_FN.call(&[json!(dx), json!(dy)]));
                let reply = tab.request("scroll", scroll, timeout).await?;
                crate::js::value_of(reply.result, reply.exception_details.as_ref())?;
            }
        }
        Ok(Scrolled { scrolled: true })
    }

    /// `scrollintoview <selector>`.
    pub async fn scroll_into_view(&self, selector: &str) -> Result<ScrolledIntoView> {
        let (tab, _, timeout) = self.parts();
        let handle = self
            .session
            .locate_on(&tab, "scroll into view", selector, timeout)
            .await?;
        let outcome = tab
            .guarded(
                "scroll into view",
                handle.call(SCROLL_INTO_VIEW_FN, &[], timeout),
            )
            .await;
        handle.release().await;
        outcome.map(|_| ScrolledIntoView {
            scrolled: selector.to_string(),
        })
    }
}
