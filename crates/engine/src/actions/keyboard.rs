//! Keyboard: `type`, `press`, `keydown`/`keyup`, `keyboard type`/`inserttext`, and `focus`.

use super::*;

impl Page<'_> {
    /// `type <selector> <text> [--clear] [--delay ms]`: focuses the element and types with real
    /// key events (keydown/keypress/input/keyup per character), then waits for a navigation
    /// the keys started (like [`Page::click`]).
    pub async fn type_text(
        &self,
        selector: &str,
        text: &str,
        clear: bool,
        delay: Option<Duration>,
    ) -> Result<Typed> {
        self.settling(self.type_text_unsettled(selector, text, clear, delay))
            .await
    }

    async fn type_text_unsettled(
        &self,
        selector: &str,
        text: &str,
        clear: bool,
        delay: Option<Duration>,
    ) -> Result<Typed> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "type", selector, timeout)
            .await?;
        let outcome = async {
            let checks = Checks {
                editable: false,
                ..Checks::TYPE
            };
            tab.guarded(
                "type",
                self.session
                    .actionable(&tab, &mut handle, checks, "type", deadline),
            )
            .await?;
            if clear {
                let prepared = tab
                    .guarded(
                        "type",
                        handle.call(CLEAR_FN, &[json!(""), json!(false)], timeout),
                    )
                    .await?;
                if prepared.as_str() != Some("insert") {
                    return Err(EngineError::Invalid(
                        prepared
                            .as_str()
                            .unwrap_or("cannot clear this element")
                            .to_string(),
                    ));
                }
            } else {
                tab.guarded("type", handle.call(FOCUS_FN, &[], timeout))
                    .await?;
            }
            self.session
                .type_into_focus(&tab, text, delay, deadline)
                .await
        }
        .await;
        handle.release().await;
        outcome
    }

    /// `press <key>` / `key <key>`: a key or chord (`Enter`, `Control+a`, `Shift+Tab`) on the
    /// focused element, then waits for a navigation it started (like [`Page::click`]).
    pub async fn press(&self, key: &str) -> Result<Pressed> {
        self.settling(self.press_unsettled(key)).await
    }

    async fn press_unsettled(&self, key: &str) -> Result<Pressed> {
        let (tab, deadline, _) = self.parts();
        let chord = input::parse_chord(key)?;
        let held = self.session.refs.with_tab(tab.target_id(), |t| t.modifiers);
        let events: Vec<InputEvent> = input::press_events(&chord, held)
            .into_iter()
            .map(InputEvent::Key)
            .collect();
        let dialog = input::dispatch(&tab, tab.cdp(), "press", &events, deadline).await?;
        Ok(Pressed {
            pressed: key.to_string(),
            dialog_opened: dialog,
        })
    }

    /// `keydown <key>`: holds a key (a held modifier applies to later keys and clicks).
    pub async fn key_down(&self, key: &str) -> Result<KeyDown> {
        self.key_edge(key, true).await?;
        Ok(KeyDown {
            keydown: key.to_string(),
        })
    }

    /// `keyup <key>`.
    pub async fn key_up(&self, key: &str) -> Result<KeyUp> {
        self.key_edge(key, false).await?;
        Ok(KeyUp {
            keyup: key.to_string(),
        })
    }

    /// One key press (`down`) or release: updates the tab's held modifiers, then sends the event
    /// with them.
    async fn key_edge(&self, key: &str, down: bool) -> Result<()> {
        let (tab, deadline, _) = self.parts();
        let k = input::named_key(key)
            .ok_or_else(|| EngineError::Invalid(format!("Unknown key: \"{key}\"")))?;
        let held = self.session.refs.with_tab(tab.target_id(), |t| {
            if down {
                t.modifiers |= k.modifier;
            } else {
                t.modifiers &= !k.modifier;
            }
            t.modifiers
        });
        let (kind, what) = if down {
            ("keyDown", "key down")
        } else {
            ("keyUp", "key up")
        };
        let event = input::key_event(kind, &k, held);
        input::dispatch(&tab, tab.cdp(), what, &[InputEvent::Key(event)], deadline).await?;
        Ok(())
    }

    /// `keyboard type <text>`: types into the focused element with key events, then waits for
    /// a navigation the keys started (like [`Page::click`]).
    pub async fn keyboard_type(&self, text: &str, delay: Option<Duration>) -> Result<Typed> {
        self.settling(async {
            let (tab, deadline, _) = self.parts();
            self.session
                .type_into_focus(&tab, text, delay, deadline)
                .await
        })
        .await
    }

    /// `keyboard inserttext <text>`: inserts text without key events (`Input.insertText`),
    /// then waits for a navigation it started (like [`Page::click`]).
    pub async fn insert_text(&self, text: &str) -> Result<Inserted> {
        self.settling(self.insert_text_unsettled(text)).await
    }

    async fn insert_text_unsettled(&self, text: &str) -> Result<Inserted> {
        let (tab, _, timeout) = self.parts();
        tab.request("keyboard", cdp::InsertTextParams::new(text), timeout)
            .await?;
        Ok(Inserted { inserted: true })
    }

    /// `focus <selector>`.
    pub async fn focus(&self, selector: &str) -> Result<Focused> {
        let (tab, _, timeout) = self.parts();
        let handle = self
            .session
            .locate_on(&tab, "focus", selector, timeout)
            .await?;
        let outcome = tab
            .guarded("focus", handle.call(FOCUS_FN, &[], timeout))
            .await;
        handle.release().await;
        outcome.map(|_| Focused {
            focused: selector.to_string(),
        })
    }
}

impl Session {
    /// Types `text` into whatever has focus.
    async fn type_into_focus(
        &self,
        tab: &Tab,
        text: &str,
        delay: Option<Duration>,
        deadline: Instant,
    ) -> Result<Typed> {
        let held = self.refs.with_tab(tab.target_id(), |t| t.modifiers);
        let session = tab.cdp().clone();
        let to_events = |strokes: Vec<Stroke>| -> Vec<InputEvent> {
            strokes.into_iter().map(Stroke::into_event).collect()
        };
        let delay = delay.filter(|d| !d.is_zero());
        let mut dialog = false;
        if let Some(delay) = delay {
            for (i, c) in text.chars().enumerate() {
                if i > 0 {
                    tokio::time::sleep(delay).await;
                }
                dialog = input::dispatch(
                    tab,
                    &session,
                    "type",
                    &to_events(input::char_strokes(c, held)),
                    deadline,
                )
                .await?;
                if dialog {
                    break;
                }
            }
        } else {
            let events: Vec<Stroke> = text
                .chars()
                .flat_map(|c| input::char_strokes(c, held))
                .collect();
            dialog = input::dispatch(tab, &session, "type", &to_events(events), deadline).await?;
        }
        Ok(Typed {
            typed: text.to_string(),
            dialog_opened: dialog,
        })
    }
}
