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
        let mut blocked = 0;
        if !options.new_tab && !options.human {
            let button = options.button.as_deref().unwrap_or("left");
            match self
                .session
                .click_direct(&tab, selector, button, 1, deadline)
                .await?
            {
                DirectClick::Done(clicked) => return Ok(clicked),
                DirectClick::Blocked => blocked = 1,
                DirectClick::Undecided => {}
            }
        }
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
                .click_handle_after(
                    &tab,
                    &mut handle,
                    options.button.as_deref().unwrap_or("left"),
                    1,
                    deadline,
                    blocked,
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
        let blocked = match self
            .session
            .click_direct(&tab, selector, "left", 2, deadline)
            .await?
        {
            DirectClick::Done(clicked) => return Ok(clicked),
            DirectClick::Blocked => 1,
            DirectClick::Undecided => 0,
        };
        let mut handle = self
            .session
            .locate_on(&tab, "dblclick", selector, timeout)
            .await?;
        let outcome = self
            .session
            .click_handle_after(&tab, &mut handle, "left", 2, deadline, blocked)
            .await;
        handle.release().await;
        outcome
    }
}

/// How [`Session::click_direct`] ended.
pub(crate) enum DirectClick {
    /// Clicked (or an `<option>` selected), nothing left to do.
    Done(Clicked),
    /// The click guard blocked the click's events: nothing reached the page.
    Blocked,
    /// Nothing was sent: the element was not ready, missing, or out of this path's reach.
    Undecided,
}

impl Session {
    /// The common click in two renderer round trips around the input: find and check the
    /// element in one call ([`Session::prepare_direct`]), send the mouse events, read the guard.
    /// Unless it is [`DirectClick::Done`], the caller takes the handle path
    /// ([`Session::click_handle_after`]), which waits, retries and reports as before.
    pub(crate) async fn click_direct(
        &self,
        tab: &Tab,
        selector: &str,
        button: &str,
        count: i64,
        deadline: Instant,
    ) -> Result<DirectClick> {
        let (button, bit) = input::button(button)?;
        let checks = Checks {
            // One press whatever the click count (see `click_events`).
            guard_presses: 1,
            ..Checks::CLICK
        };
        let prepared = tab
            .guarded(
                "click",
                self.prepare_direct(tab, selector, checks, deadline),
            )
            .await?;
        let clicked = |dialog_opened| Clicked {
            clicked: selector.to_string(),
            dialog_opened,
            new_tab: None,
            url: None,
        };
        let point = match prepared {
            Direct::Ready(point) => point,
            Direct::Selected => return Ok(DirectClick::Done(clicked(false))),
            Direct::Fallback => return Ok(DirectClick::Undecided),
        };
        let dialog = input::dispatch(
            tab,
            tab.cdp(),
            "click",
            &click_events(point, button, bit, count),
            deadline,
        )
        .await?;
        self.note_mouse(tab, None, point, 0);
        if dialog {
            return Ok(DirectClick::Done(clicked(true)));
        }
        Ok(match self.direct_verdict(tab).await {
            None => DirectClick::Done(clicked(false)),
            Some(_) => {
                // As the handle path does after a miss: give the page a moment to settle.
                tokio::time::sleep(Duration::from_millis(20)).await;
                DirectClick::Blocked
            }
        })
    }

    pub(crate) async fn click_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        button: &str,
        count: i64,
        deadline: Instant,
    ) -> Result<Clicked> {
        self.click_handle_after(tab, handle, button, count, deadline, 0)
            .await
    }

    /// [`Session::click_handle`] after `blocked` attempts the click guard already blocked
    /// (they count toward the attempts a click gets).
    pub(crate) async fn click_handle_after(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        button: &str,
        count: i64,
        deadline: Instant,
        blocked: u32,
    ) -> Result<Clicked> {
        let (button, bit) = input::button(button)?;
        let checks = Checks {
            // One press whatever the click count (see `click_events`).
            guard_presses: 1,
            ..Checks::CLICK
        };
        let mut attempts = blocked;
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
                    tokio::time::sleep(Duration::from_millis(20 * u64::from(attempts))).await;
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
