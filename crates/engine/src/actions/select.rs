//! `select` (options by value or label) and `check`/`uncheck`.

use super::*;

impl Page<'_> {
    /// `select <selector> <value…>`: selects options by value or visible label (all matches on a
    /// `<select multiple>`, the first otherwise) and fires `input` and `change`.
    pub async fn select(&self, selector: &str, values: &[String]) -> Result<Selected> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "select", selector, timeout)
            .await?;
        let outcome = async {
            let checks = Checks {
                visible: true,
                enabled: true,
                ..Checks::default()
            };
            tab.guarded(
                "select",
                self.session
                    .actionable(&tab, &mut handle, checks, "select", deadline),
            )
            .await?;
            let reply = tab
                .guarded("select", handle.call(SELECT_FN, &[json!(values)], timeout))
                .await?;
            if let Some(error) = reply.get("error").and_then(Value::as_str) {
                return Err(EngineError::Invalid(error.to_string()));
            }
            Ok(Selected {
                selected: values.to_vec(),
            })
        }
        .await;
        handle.release().await;
        outcome
    }

    /// `check <selector>`.
    pub async fn check(&self, selector: &str) -> Result<Checked> {
        self.set_checked(selector, true).await.map(|_| Checked {
            checked: selector.to_string(),
        })
    }

    /// `uncheck <selector>`.
    pub async fn uncheck(&self, selector: &str) -> Result<Unchecked> {
        self.set_checked(selector, false).await.map(|_| Unchecked {
            unchecked: selector.to_string(),
        })
    }

    async fn set_checked(&self, selector: &str, want: bool) -> Result<()> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "check", selector, timeout)
            .await?;
        let outcome = self
            .session
            .set_checked_handle(&tab, &mut handle, want, deadline, timeout)
            .await;
        handle.release().await;
        outcome
    }
}

impl Session {
    pub(crate) async fn set_checked_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        want: bool,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        let command = if want { "check" } else { "uncheck" };
        let state = |h: &Handle| {
            let h = h.clone();
            async move { tab.guarded(command, h.call(CHECKED_FN, &[], timeout)).await }
        };
        let now = state(handle).await?;
        if now.is_null() {
            return Err(EngineError::Invalid(format!(
                "Element '{}' is not a checkbox or radio button",
                handle.selector
            )));
        }
        if now.as_bool() == Some(want) {
            return Ok(());
        }
        if !want && handle.call(IS_RADIO_FN, &[], timeout).await? == Value::Bool(true) {
            return Err(EngineError::Invalid(
                "Cannot uncheck a radio button; check another one in its group".into(),
            ));
        }
        // A real click when the control is rendered; styled controls often hide the input itself,
        // and then a script click is what a user's click on its label amounts to.
        let rendered = tab
            .guarded(command, handle.call(RENDERED_FN, &[], timeout))
            .await?
            == Value::Bool(true);
        if rendered {
            let clicked = self.click_handle(tab, handle, "left", 1, deadline).await?;
            if clicked.dialog_opened {
                return Ok(());
            }
        }
        if state(handle).await?.as_bool() != Some(want) {
            tab.guarded(command, handle.call(SCRIPT_CLICK_FN, &[], timeout))
                .await?;
        }
        if state(handle).await?.as_bool() != Some(want) {
            return Err(EngineError::Page(format!(
                "Clicking '{}' did not {command} it (the page may prevent the change)",
                handle.selector
            )));
        }
        Ok(())
    }
}
