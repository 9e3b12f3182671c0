//! `drag <source> <target>`, with Chrome's drag interception for HTML5 `draggable` sources.

use super::*;

impl Page<'_> {
    /// `drag <source> <target>`: presses on the source, moves to the target in steps, releases.
    /// An HTML5 `draggable` source is dragged with Chrome's drag interception
    /// (`Input.setInterceptDrags` + `Input.dispatchDragEvent`), which headless Chrome needs for
    /// `dragstart`/`drop` to fire.
    pub async fn drag(&self, source: &str, target: &str) -> Result<Dragged> {
        self.drag_with(source, target, false).await
    }

    /// [`Page::drag`]; with `human` (`drag --human`, `--input-mode human`) the pointer first
    /// travels to the source and then carries it to the target along curved, eased paths.
    pub async fn drag_with(&self, source: &str, target: &str, human: bool) -> Result<Dragged> {
        let (tab, deadline, timeout) = self.parts();
        if human {
            self.session
                .approach(&tab, source, &crate::Motion::human(), deadline)
                .await?;
        }
        let mut from = self
            .session
            .locate_on(&tab, "drag", source, timeout)
            .await?;
        let mut to = match self.session.locate_on(&tab, "drag", target, timeout).await {
            Ok(handle) => handle,
            Err(err) => {
                from.release().await;
                return Err(err);
            }
        };
        let outcome = self
            .session
            .drag_handles(&tab, &mut from, &mut to, human, deadline, timeout)
            .await;
        from.release().await;
        to.release().await;
        outcome.map(|_| Dragged {
            dragged: true,
            source: source.to_string(),
            target: target.to_string(),
        })
    }
}

impl Session {
    async fn drag_handles(
        &self,
        tab: &Tab,
        from: &mut Handle,
        to: &mut Handle,
        human: bool,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<()> {
        if from.oopif || to.oopif {
            return Err(EngineError::Invalid(
                "drag between cross-site frames is not supported".into(),
            ));
        }
        let start = tab
            .guarded(
                "drag",
                self.actionable(tab, from, Checks::CLICK, "drag", deadline),
            )
            .await?;
        let draggable = tab
            .guarded("drag", from.call(IS_DRAGGABLE_FN, &[], timeout))
            .await?
            == Value::Bool(true);
        let session = tab.cdp().clone();
        let mut intercepted = None;
        if draggable {
            intercepted = Some(session.subscribe(
                abx_cdp::EventFilter::methods([cdp::EventDragIntercepted::IDENTIFIER]),
                4,
            ));
            tab.request("drag", cdp::SetInterceptDragsParams::new(true), timeout)
                .await?;
        }
        let outcome = async {
            input::dispatch(
                tab,
                &session,
                "drag",
                &[
                    mouse(Mouse::MouseMoved, start, MouseButton::None, 0, 0),
                    mouse(Mouse::MousePressed, start, MouseButton::Left, 1, 1),
                ],
                deadline,
            )
            .await?;
            // The target's point is taken after pressing: scrolling it into view must not lose
            // the press.
            let checks = Checks {
                hit: false,
                ..Checks::HOVER
            };
            let end = tab
                .guarded("drag", self.actionable(tab, to, checks, "drag", deadline))
                .await?;
            const STEPS: i64 = 5;
            let path: Vec<(Point, Duration)> = if human {
                crate::Motion::human().path(start, end)
            } else {
                (1..=STEPS)
                    .map(|step| {
                        let t = step as f64 / STEPS as f64;
                        let p = Point {
                            x: start.x + (end.x - start.x) * t,
                            y: start.y + (end.y - start.y) * t,
                        };
                        (p, Duration::ZERO)
                    })
                    .collect()
            };
            let mut drag_data = None;
            for (index, (p, pause)) in path.into_iter().enumerate() {
                let step = index + 1;
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                input::dispatch(
                    tab,
                    &session,
                    "drag",
                    &[mouse(Mouse::MouseMoved, p, MouseButton::Left, 1, 0)],
                    deadline,
                )
                .await?;
                if let Some(events) = intercepted.as_mut()
                    && drag_data.is_none()
                {
                    // Chrome reports the drag it intercepted after the move that started it.
                    let wait = if step == 1 {
                        Duration::from_millis(200)
                    } else {
                        Duration::from_millis(20)
                    };
                    if let Ok(Some(event)) = tokio::time::timeout(wait, events.recv()).await
                        && let Some(Ok(intercepted)) = event.decode::<cdp::EventDragIntercepted>()
                    {
                        drag_data = Some(intercepted.data);
                    }
                }
            }
            if let Some(data) = drag_data {
                use cdp::DispatchDragEventType::{DragEnter, DragOver, Drop};
                for kind in [DragEnter, DragOver, Drop] {
                    let event = cdp::DispatchDragEventParams {
                        modifiers: Some(0),
                        ..cdp::DispatchDragEventParams::new(kind, end.x, end.y, data.clone())
                    };
                    input::dispatch(tab, &session, "drag", &[InputEvent::Drag(event)], deadline)
                        .await?;
                }
            }
            input::dispatch(
                tab,
                &session,
                "drag",
                &[mouse(Mouse::MouseReleased, end, MouseButton::Left, 0, 1)],
                deadline,
            )
            .await?;
            self.note_mouse(tab, None, end, 0);
            Ok(())
        }
        .await;
        if draggable {
            let _ = session
                .send(&cdp::SetInterceptDragsParams::new(false))
                .await;
        }
        outcome
    }
}
