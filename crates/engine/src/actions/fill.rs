//! `fill`: focus, clear with an `input` event, insert the text in one `Input.insertText`.

use super::*;

impl Page<'_> {
    /// `fill <selector> <value>`: focuses, clears (with an `input` event) and inserts the text
    /// in one `Input.insertText`.
    pub async fn fill(&self, selector: &str, value: &str) -> Result<Filled> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "fill", selector, timeout)
            .await?;
        let outcome = self
            .session
            .fill_handle(&tab, &mut handle, value, deadline, timeout)
            .await;
        handle.release().await;
        outcome.map(|_| Filled {
            filled: selector.to_string(),
        })
    }
}

impl Session {
    pub(crate) async fn fill_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        value: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        tab.guarded(
            "fill",
            self.actionable(tab, handle, Checks::TYPE, "fill", deadline),
        )
        .await?;
        let prepared = tab
            .guarded(
                "fill",
                handle.call(CLEAR_FN, &[json!(value), json!(true)], timeout),
            )
            .await?;
        match prepared.as_str() {
            Some("done") => Ok(()),
            Some("insert") => {
                if !value.is_empty() {
                    tab.request("fill", cdp::InsertTextParams::new(value), timeout)
                        .await?;
                }
                Ok(())
            }
            other => Err(EngineError::Invalid(
                other.unwrap_or("cannot fill this element").to_string(),
            )),
        }
    }
}
