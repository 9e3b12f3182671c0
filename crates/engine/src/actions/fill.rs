//! `fill`: focus, clear with an `input` event, insert the text in one `Input.insertText`.

use super::*;

impl Page<'_> {
    /// `fill <selector> <value>`: focuses, clears (with an `input` event) and inserts the text
    /// in one `Input.insertText`.
    pub async fn fill(&self, selector: &str, value: &str) -> Result<Filled> {
        let (tab, deadline, timeout) = self.parts();
        if self
            .session
            .fill_direct(&tab, selector, value, deadline, timeout)
            .await?
        {
            return Ok(Filled {
                filled: selector.to_string(),
            });
        }
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

/// [`CLEAR_FN`] after the checks, in the call that finds the element.
static FIND_ACTIONABLE_CLEAR: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| crate::locate::find_actionable_then(CLEAR_FN));

impl Session {
    /// The common fill in two renderer calls: find, check and clear the element in one
    /// ([`Session::prepare_direct_then`]), then insert the text. `false` when that call could
    /// not decide (nothing was changed then): the caller takes the handle path.
    async fn fill_direct(
        &self,
        tab: &Tab,
        selector: &str,
        value: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<bool> {
        let args = [json!(value), json!(true)];
        let (prepared, cleared) = tab
            .guarded(
                "fill",
                self.prepare_direct_then(
                    tab,
                    selector,
                    Checks::TYPE,
                    FIND_ACTIONABLE_CLEAR.as_str(),
                    Some(&args),
                    deadline,
                ),
            )
            .await?;
        match (prepared, cleared) {
            (Direct::Ready(_), Some(cleared)) => {
                self.insert_after_clear(tab, &cleared, value, timeout)
                    .await?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Inserts `value` into the element [`CLEAR_FN`] prepared, per what it answered.
    async fn insert_after_clear(
        &self,
        tab: &Tab,
        cleared: &Value,
        value: &str,
        timeout: Duration,
    ) -> Result<()> {
        match cleared.as_str() {
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
        self.insert_after_clear(tab, &prepared, value, timeout)
            .await
    }
}
