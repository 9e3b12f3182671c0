//! `click` and `dblclick`: scroll into view, wait until clickable, hit-test, real mouse events.

use super::*;

impl Page<'_> {
    /// `click <selector> [--new-tab]`: scrolls the element into view, waits until it can be
    /// clicked, checks nothing covers it, and clicks its centre with real mouse events; then
    /// waits for a navigation the click started (see [`SessionOptions::settle_navigation`]).
    ///
    /// [`SessionOptions::settle_navigation`]: crate::SessionOptions::settle_navigation
    pub async fn click(&self, selector: &str, options: &ClickOptions) -> Result<Clicked> {
        self.settling(self.click_unsettled(selector, options)).await
    }

    async fn click_unsettled(&self, selector: &str, options: &ClickOptions) -> Result<Clicked> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "click", selector, timeout)
            .await?;
        let outcome = if options.new_tab {
            self.session
                .open_link_in_new_tab(&tab, &handle, timeout)
                .await
        } else {
            if options.human {
                let motion = crate::Motion {
                    human: true,
                    ..crate::Motion::default()
                };
                self.session
                    .approach(&tab, selector, &motion, deadline)
                    .await?;
            }
            self.session
                .click_handle(
                    &tab,
                    &mut handle,
                    options.button.as_deref().unwrap_or("left"),
                    1,
                    deadline,
                )
                .await
        };
        handle.release().await;
        outcome
    }

    /// `dblclick <selector>` (then waits for a navigation it started, like [`Page::click`]).
    pub async fn dblclick(&self, selector: &str) -> Result<Clicked> {
        self.settling(self.dblclick_unsettled(selector)).await
    }

    async fn dblclick_unsettled(&self, selector: &str) -> Result<Clicked> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "dblclick", selector, timeout)
            .await?;
        let outcome = self
            .session
            .click_handle(&tab, &mut handle, "left", 2, deadline)
            .await;
        handle.release().await;
        outcome
    }
}

impl Session {
    pub(crate) async fn click_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        button: &str,
        count: i64,
        deadline: Instant,
    ) -> Result<Clicked> {
        let (button, bit) = input::button(button)?;
        let checks = Checks {
            guard_presses: u8::try_from(count).unwrap_or(u8::MAX),
            ..Checks::CLICK
        };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let prepared = tab
                .guarded(
                    "click",
                    self.prepare(tab, handle, checks, "click", deadline),
                )
                .await?;
            // An `<option>` was selected in its `<select>` in the page: nothing to click.
            let Some(point) = prepared else {
                return Ok(Clicked {
                    clicked: handle.selector.clone(),
                    dialog_opened: false,
                    new_tab: None,
                    url: None,
                });
            };
            let session = Self::input_session(tab, handle);
            let dialog = input::dispatch(
                tab,
                &session,
                "click",
                &click_events(point, button.clone(), bit, count),
                deadline,
            )
            .await?;
            self.note_mouse(tab, Some(handle), point, 0);
            let miss = if dialog {
                None
            } else {
                self.click_verdict(tab, handle).await
            };
            match miss {
                None => {
                    return Ok(Clicked {
                        clicked: handle.selector.clone(),
                        dialog_opened: dialog,
                        new_tab: None,
                        url: None,
                    });
                }
                // Blocked, so nothing happened: hit-test again where the element is now.
                Some(miss) if attempts >= MAX_CLICK_ATTEMPTS || Instant::now() >= deadline => {
                    return Err(EngineError::ClickIntercepted {
                        selector: handle.selector.clone(),
                        landed: miss.landed,
                        attempts,
                    });
                }
                Some(_) => {
                    tokio::time::sleep(Duration::from_millis(20 * u64::from(attempts))).await
                }
            }
        }
    }

    async fn open_link_in_new_tab(
        &self,
        tab: &Tab,
        handle: &Handle,
        timeout: Duration,
    ) -> Result<Clicked> {
        let href = tab
            .guarded("click", handle.call(LINK_HREF_FN, &[], timeout))
            .await?;
        let Some(url) = href.as_str().filter(|u| !u.is_empty()).map(str::to_string) else {
            return Err(EngineError::NotALink {
                selector: handle.selector.clone(),
            });
        };
        self.tab_new(Some(&url), None).await?;
        Ok(Clicked {
            clicked: handle.selector.clone(),
            dialog_opened: false,
            new_tab: Some(true),
            url: Some(url),
        })
    }
}
