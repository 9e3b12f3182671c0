//! `hover` and `mouse move|down|up|wheel` (at the last mouse position the session noted).

use super::*;

impl Page<'_> {
    /// `hover <selector>`: moves the mouse over the element's centre.
    pub async fn hover(&self, selector: &str) -> Result<Hovered> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "hover", selector, timeout)
            .await?;
        let outcome = self.session.hover_handle(&tab, &mut handle, deadline).await;
        handle.release().await;
        outcome.map(|_| Hovered {
            hovered: selector.to_string(),
        })
    }

    /// `mouse move <x> <y>`.
    pub async fn mouse_move(&self, x: f64, y: f64) -> Result<MouseMoved> {
        let (tab, deadline, _) = self.parts();
        let (buttons, modifiers) = self
            .session
            .refs
            .with_tab(tab.target_id(), |t| (t.mouse.buttons, t.modifiers));
        let button = if buttons & 1 != 0 {
            MouseButton::Left
        } else if buttons & 2 != 0 {
            MouseButton::Right
        } else if buttons & 4 != 0 {
            MouseButton::Middle
        } else {
            MouseButton::None
        };
        let event = mouse_with(
            Mouse::MouseMoved,
            Point { x, y },
            button,
            buttons,
            0,
            modifiers,
        );
        input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        self.session.note_mouse(&tab, None, Point { x, y }, buttons);
        Ok(MouseMoved { moved: true })
    }

    /// `mouse down [button]` at the current mouse position.
    pub async fn mouse_down(&self, button: Option<&str>) -> Result<MouseDown> {
        let (tab, deadline, _) = self.parts();
        let (name, bit) = input::button(button.unwrap_or("left"))?;
        let (at, buttons, modifiers) = self.session.refs.with_tab(tab.target_id(), |t| {
            t.mouse.buttons |= bit;
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.mouse.buttons,
                t.modifiers,
            )
        });
        let event = mouse_with(Mouse::MousePressed, at, name, buttons, 1, modifiers);
        let dialog = input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(MouseDown {
            pressed: true,
            dialog_opened: dialog,
        })
    }

    /// `mouse up [button]` at the current mouse position.
    pub async fn mouse_up(&self, button: Option<&str>) -> Result<MouseUp> {
        let (tab, deadline, _) = self.parts();
        let (name, bit) = input::button(button.unwrap_or("left"))?;
        let (at, buttons, modifiers) = self.session.refs.with_tab(tab.target_id(), |t| {
            t.mouse.buttons &= !bit;
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.mouse.buttons,
                t.modifiers,
            )
        });
        let event = mouse_with(Mouse::MouseReleased, at, name, buttons, 1, modifiers);
        let dialog = input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(MouseUp {
            released: true,
            dialog_opened: dialog,
        })
    }

    /// `mouse wheel <dy> [dx]` at the current mouse position.
    pub async fn mouse_wheel(&self, delta_y: f64, delta_x: f64) -> Result<Wheeled> {
        let (tab, deadline, _) = self.parts();
        let (at, modifiers) = self.session.refs.with_tab(tab.target_id(), |t| {
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.modifiers,
            )
        });
        let event = InputEvent::Mouse(cdp::DispatchMouseEventParams {
            delta_x: Some(delta_x),
            delta_y: Some(delta_y),
            modifiers: Some(modifiers),
            ..cdp::DispatchMouseEventParams::new(
                cdp::DispatchMouseEventType::MouseWheel,
                at.x,
                at.y,
            )
        });
        input::dispatch(&tab, tab.cdp(), "mouse", &[event], deadline).await?;
        Ok(Wheeled {
            scrolled: true,
            delta_x,
            delta_y,
        })
    }
}

impl Session {
    pub(crate) async fn hover_handle(
        &self,
        tab: &Tab,
        handle: &mut Handle,
        deadline: Instant,
    ) -> Result<()> {
        let point = tab
            .guarded(
                "hover",
                self.actionable(tab, handle, Checks::HOVER, "hover", deadline),
            )
            .await?;
        let session = Self::input_session(tab, handle);
        input::dispatch(
            tab,
            &session,
            "hover",
            &[mouse(Mouse::MouseMoved, point, MouseButton::None, 0, 0)],
            deadline,
        )
        .await?;
        self.note_mouse(tab, Some(handle), point, 0);
        Ok(())
    }
}
