//! A pointer that travels: `mouse move --steps/--duration/--human/--seed` and `click --human`
//! move the mouse along a path of `mouseMoved` events spread over time, instead of jumping.
//!
//! [`Motion`] says how: `steps` evenly spaced points on a straight line (smooth), or, with
//! `human`, on a curved path (a cubic Bézier whose control points lean to one side of the
//! straight line by a seeded amount) with ease-in-out spacing, so the pointer speeds up and
//! slows down before it arrives. The same seed gives the same path. The path starts at the
//! session's tracked pointer (where the last mouse command or click left it).

use std::time::{Duration, Instant};

use abx_cdp::protocol::browser_protocol::input as cdp;

use crate::error::{EngineError, Result};
use crate::input::{self, InputEvent};
use crate::locate::{Checks, Point};
use crate::session::{Page, Session};
use crate::tab::Tab;

/// How the pointer travels to its target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Motion {
    /// Movement events (1–240); by default 10 for a smooth move and 12–48 by distance for a
    /// human one.
    pub steps: Option<u32>,
    /// Total time the moves are spread over, in ms (default: 16 ms a step, about a frame, or about 250–700 ms
    /// by distance for a human move).
    pub duration_ms: Option<u64>,
    /// A curved, eased path.
    pub human: bool,
    /// Seed of the human path (default: from the two end points, so a path is reproducible).
    pub seed: Option<u64>,
}

/// Most movement events one move may have.
pub(crate) const MAX_STEPS: u32 = 240;

impl Motion {
    /// A human path with the default steps, timing and seed (`--human`).
    pub fn human() -> Motion {
        Motion {
            human: true,
            ..Motion::default()
        }
    }

    /// Whether this motion moves in more than one event.
    pub fn travels(&self) -> bool {
        self.human || self.steps.is_some_and(|s| s > 1) || self.duration_ms.is_some()
    }

    fn checked(&self) -> Result<()> {
        if let Some(steps) = self.steps
            && !(1..=MAX_STEPS).contains(&steps)
        {
            return Err(EngineError::Invalid(format!(
                "steps must be between 1 and {MAX_STEPS}, got {steps}"
            )));
        }
        Ok(())
    }

    /// The points from `from` to `to` (the last is `to`) and the pause before each.
    pub(crate) fn path(&self, from: Point, to: Point) -> Vec<(Point, Duration)> {
        let distance = ((to.x - from.x).powi(2) + (to.y - from.y).powi(2)).sqrt();
        let steps = self.steps.unwrap_or(if self.human {
            (distance / 15.0).clamp(12.0, 48.0) as u32
        } else {
            10
        });
        let steps = steps.clamp(1, MAX_STEPS);
        let total = self.duration_ms.map_or(
            {
                if self.human {
                    Duration::from_millis((250.0 + distance * 0.5).min(700.0) as u64)
                } else {
                    Duration::from_millis(16 * u64::from(steps))
                }
            },
            Duration::from_millis,
        );
        let pause = total / steps;
        let (c1, c2) = if self.human {
            let seed = self.seed.unwrap_or_else(|| {
                (from.x as u64).wrapping_mul(31)
                    ^ (from.y as u64).wrapping_mul(131)
                    ^ (to.x as u64).wrapping_mul(521)
                    ^ (to.y as u64).wrapping_mul(1031)
            });
            controls(from, to, distance, seed)
        } else {
            (from, to)
        };
        (1..=steps)
            .map(|i| {
                let linear = f64::from(i) / f64::from(steps);
                let point = if self.human {
                    bezier(from, c1, c2, to, ease(linear))
                } else {
                    Point {
                        x: from.x + (to.x - from.x) * linear,
                        y: from.y + (to.y - from.y) * linear,
                    }
                };
                (point, pause)
            })
            .collect()
    }
}

/// Ease-in-out (slow start, fast middle, slow arrival).
fn ease(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

fn bezier(p0: Point, p1: Point, p2: Point, p3: Point, t: f64) -> Point {
    let u = 1.0 - t;
    let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    Point {
        x: a * p0.x + b * p1.x + c * p2.x + d * p3.x,
        y: a * p0.y + b * p1.y + c * p2.y + d * p3.y,
    }
}

/// Two control points a seeded distance off the straight line, on the same side.
fn controls(from: Point, to: Point, distance: f64, seed: u64) -> (Point, Point) {
    let mut state = seed;
    let mut next = || {
        // splitmix64: a small, well-mixed generator; reproducibility is all that matters here.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    let (nx, ny) = if distance > 0.0 {
        (-dy / distance, dx / distance)
    } else {
        (0.0, 0.0)
    };
    let side = if next() < 0.5 { -1.0 } else { 1.0 };
    let lean = |amount: f64| distance * (0.08 + 0.22 * amount) * side;
    let (a, b) = (lean(next()), lean(next()));
    let (t1, t2) = (0.2 + 0.2 * next(), 0.6 + 0.2 * next());
    (
        Point {
            x: from.x + dx * t1 + nx * a,
            y: from.y + dy * t1 + ny * a,
        },
        Point {
            x: from.x + dx * t2 + nx * b,
            y: from.y + dy * t2 + ny * b,
        },
    )
}

impl Page<'_> {
    /// `mouse move <x> <y>` along `motion`'s path from the tracked pointer; returns how many
    /// movement events were sent.
    pub async fn mouse_travel(&self, x: f64, y: f64, motion: &Motion) -> Result<u32> {
        motion.checked()?;
        let (tab, deadline, _) = self.parts();
        self.session
            .travel(&tab, Point { x, y }, motion, deadline)
            .await
    }

    /// `hover <selector>` after the pointer travelled to the element along a human path
    /// (`--input-mode human`).
    pub async fn hover_human(&self, selector: &str) -> Result<crate::Hovered> {
        let (tab, deadline, _) = self.parts();
        self.session
            .approach(&tab, selector, &Motion::human(), deadline)
            .await?;
        self.rest().hover(selector).await
    }

    /// `dblclick <selector>` after the pointer travelled to the element along a human path
    /// (`--input-mode human`).
    pub async fn dblclick_human(&self, selector: &str) -> Result<crate::Clicked> {
        let (tab, deadline, _) = self.parts();
        self.session
            .approach(&tab, selector, &Motion::human(), deadline)
            .await?;
        self.rest().dblclick(selector).await
    }
}

impl Session {
    /// Moves the tracked pointer to `to` along `motion`'s path, with the held buttons and
    /// modifiers, pausing between events; the pointer ends at `to` even when the deadline cuts
    /// the path short.
    pub(crate) async fn travel(
        &self,
        tab: &Tab,
        to: Point,
        motion: &Motion,
        deadline: Instant,
    ) -> Result<u32> {
        let (from, buttons, modifiers) = self.refs.with_tab(tab.target_id(), |t| {
            (
                Point {
                    x: t.mouse.x,
                    y: t.mouse.y,
                },
                t.mouse.buttons,
                t.modifiers,
            )
        });
        let button = if buttons & 1 != 0 {
            cdp::MouseButton::Left
        } else if buttons & 2 != 0 {
            cdp::MouseButton::Right
        } else if buttons & 4 != 0 {
            cdp::MouseButton::Middle
        } else {
            cdp::MouseButton::None
        };
        let path = motion.path(from, to);
        let last = path.len();
        let mut sent = 0;
        for (i, (point, pause)) in path.into_iter().enumerate() {
            let final_step = i + 1 == last;
            if !final_step && Instant::now() + pause >= deadline {
                continue;
            }
            tokio::time::sleep(pause).await;
            let mut event = input::mouse_event(
                cdp::DispatchMouseEventType::MouseMoved,
                point.x,
                point.y,
                button.clone(),
                buttons,
                0,
            );
            if let InputEvent::Mouse(params) = &mut event {
                params.modifiers = Some(modifiers);
            }
            input::dispatch(tab, tab.cdp(), "mouse", &[event], deadline).await?;
            self.refs.with_tab(tab.target_id(), |t| {
                t.mouse.x = point.x;
                t.mouse.y = point.y;
            });
            sent += 1;
        }
        Ok(sent)
    }

    /// Brings the pointer to the element's click point along a human path (`click --human`);
    /// the click itself follows as usual.
    pub(crate) async fn approach(
        &self,
        tab: &Tab,
        selector: &str,
        motion: &Motion,
        deadline: Instant,
    ) -> Result<()> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        let mut handle = self.locate_on(tab, "click", selector, timeout).await?;
        let checks = Checks {
            option: false,
            ..Checks::HOVER
        };
        let prepared = tab
            .guarded(
                "click",
                self.prepare(tab, &mut handle, checks, "click", deadline),
            )
            .await;
        let oopif = handle.oopif;
        handle.release().await;
        // A cross-site frame's coordinates are its own: the click goes there directly.
        if let (Some(point), false) = (prepared?, oopif) {
            self.travel(tab, point, motion, deadline).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: Point = Point { x: 0.0, y: 0.0 };
    const TO: Point = Point { x: 400.0, y: 300.0 };

    #[test]
    fn a_smooth_path_has_the_steps_asked_for_and_ends_on_the_target() {
        let motion = Motion {
            steps: Some(24),
            duration_ms: Some(240),
            ..Motion::default()
        };
        let path = motion.path(FROM, TO);
        assert_eq!(path.len(), 24);
        assert_eq!(path.last().map(|p| p.0), Some(TO));
        assert!(
            path.iter()
                .all(|(_, pause)| *pause == Duration::from_millis(10))
        );
    }

    #[test]
    fn a_human_path_curves_and_is_reproducible_from_its_seed() {
        let motion = Motion {
            human: true,
            seed: Some(42),
            ..Motion::default()
        };
        let path = motion.path(FROM, TO);
        assert!(path.len() >= 12, "{}", path.len());
        let end = path.last().map(|p| p.0).expect("a point");
        assert!((end.x - TO.x).abs() < 1e-6 && (end.y - TO.y).abs() < 1e-6);
        // Off the straight line somewhere in the middle.
        let (mid, _) = path[path.len() / 2];
        let off = (mid.x * TO.y - mid.y * TO.x).abs() / 500.0;
        assert!(off > 5.0, "the path is straight: {off}");
        assert_eq!(path, motion.path(FROM, TO));
        let other = Motion {
            seed: Some(7),
            ..motion
        };
        assert_ne!(path, other.path(FROM, TO));
    }

    #[test]
    fn steps_out_of_range_are_refused() {
        for steps in [0, MAX_STEPS + 1] {
            let motion = Motion {
                steps: Some(steps),
                ..Motion::default()
            };
            assert!(motion.checked().is_err(), "{steps}");
        }
    }
}
