//! Touch input (`tap`, `swipe`) as [`Page`] methods, with `Input.dispatchTouchEvent`.
//!
//! `tap <selector>` waits until the element can be acted on (visible, stable, not covered, as
//! for a click), then touches its centre and lifts. `swipe <direction> [distance]` drags one
//! finger from the middle of the viewport over `distance` pixels in ten moves a frame apart, the
//! way a person's swipe reaches the page; the content moves with the finger (a swipe up scrolls
//! down).

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::input as cdp;
use serde::Serialize;

use crate::error::{EngineError, Result};
use crate::input::{self, InputEvent};
use crate::locate::{Checks, Point};
use crate::session::Page;
use crate::tab::Tab;

/// `{"tapped": "<selector>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Tapped {
    /// The selector as given.
    pub tapped: String,
}

/// `{"swiped": "<direction>"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Swiped {
    /// The direction.
    pub swiped: String,
}

/// Moves of one swipe, and the pause between them (about a frame).
const SWIPE_MOVES: u32 = 10;
const SWIPE_MOVE_PAUSE: Duration = Duration::from_millis(16);

fn touch(kind: cdp::DispatchTouchEventType, at: Point) -> InputEvent {
    InputEvent::Touch(cdp::DispatchTouchEventParams::new(
        kind,
        vec![cdp::TouchPoint::new(at.x, at.y)],
    ))
}

/// `touchEnd` lifts every finger: raw JSON, because the pinned type drops an empty
/// `touchPoints` list, which Chrome requires (and requires empty for this event).
async fn lift(tab: &Tab, session: &abx_cdp::Session, deadline: Instant) -> Result<()> {
    let timeout = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let params = serde_json::json!({"type": "touchEnd", "touchPoints": []});
    input::watch_dialog(
        tab,
        "touch",
        session.call_json_within(cdp::DispatchTouchEventParams::IDENTIFIER, params, timeout),
    )
    .await
    .map(drop)
}

impl Page<'_> {
    /// `tap <selector>`: a touch on the element's centre.
    pub async fn tap(&self, selector: &str) -> Result<Tapped> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = self
            .session
            .locate_on(&tab, "tap", selector, timeout)
            .await?;
        let checks = Checks {
            option: false,
            ..Checks::CLICK
        };
        let prepared = tab
            .guarded(
                "tap",
                self.session
                    .prepare(&tab, &mut handle, checks, "tap", deadline),
            )
            .await;
        let session = if handle.oopif {
            handle.session.clone()
        } else {
            tab.cdp().clone()
        };
        let outcome = match prepared {
            Ok(Some(point)) => {
                let start = [touch(cdp::DispatchTouchEventType::TouchStart, point)];
                match input::dispatch(&tab, &session, "tap", &start, deadline).await {
                    Ok(_) => lift(&tab, &session, deadline).await,
                    Err(err) => Err(err),
                }
            }
            Ok(None) => Err(EngineError::Page(format!("{selector} has no box to tap"))),
            Err(err) => Err(err),
        };
        handle.release().await;
        outcome?;
        Ok(Tapped {
            tapped: selector.to_string(),
        })
    }

    /// `swipe <up|down|left|right> [distance]` (300 px by default) from the viewport's centre.
    pub async fn swipe(&self, direction: &str, distance: Option<f64>) -> Result<Swiped> {
        let distance = distance.unwrap_or(300.0);
        let (dx, dy) = match direction {
            "up" => (0.0, -distance),
            "down" => (0.0, distance),
            "left" => (-distance, 0.0),
            "right" => (distance, 0.0),
            other => {
                return Err(EngineError::Invalid(format!(
                    "Invalid swipe direction: {other} (up, down, left or right)"
                )));
            }
        };
        let (tab, deadline, _) = self.parts();
        let size = self.evaluate("[innerWidth, innerHeight]").await?.value;
        let half = |i: usize| {
            size.get(i)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(400.0)
                / 2.0
        };
        let start = Point {
            x: half(0),
            y: half(1),
        };
        input::dispatch(
            &tab,
            tab.cdp(),
            "swipe",
            &[touch(cdp::DispatchTouchEventType::TouchStart, start)],
            deadline,
        )
        .await?;
        for step in 1..=SWIPE_MOVES {
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(SWIPE_MOVE_PAUSE).await;
            let f = f64::from(step) / f64::from(SWIPE_MOVES);
            let at = Point {
                x: start.x + dx * f,
                y: start.y + dy * f,
            };
            input::dispatch(
                &tab,
                tab.cdp(),
                "swipe",
                &[touch(cdp::DispatchTouchEventType::TouchMove, at)],
                deadline,
            )
            .await?;
        }
        lift(&tab, tab.cdp(), deadline).await?;
        Ok(Swiped {
            swiped: direction.to_string(),
        })
    }
}
