//! The display probe and the headed/headless rule. The choice always carries its reason, and a
//! stage that asks for a window on a Host without a screen fails instead of running headless
//! (limitation 8: no silent fallback).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{HostError, Result};

/// What the Host can show a window on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Screen {
    /// A real display (`DISPLAY` or `WAYLAND_DISPLAY` is set).
    Window {
        /// The variable that says so.
        variable: String,
    },
    /// No display, but Xvfb is installed: headed browsers get a private virtual display.
    Virtual {
        /// The Xvfb found on `PATH`.
        xvfb: PathBuf,
    },
    /// Neither.
    None,
}

/// Finds the [`Screen`] from an environment (injectable: tests pass their own).
#[derive(Clone, Debug, Default)]
pub struct DisplayProbe {
    vars: BTreeMap<String, String>,
    fixed: Option<Screen>,
}

/// Variables a headed local-window browser needs from the Host's environment.
pub(crate) const DISPLAY_VARS: &[&str] = &["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY"];

impl DisplayProbe {
    /// Reads `DISPLAY`, `WAYLAND_DISPLAY`, `XAUTHORITY` and `PATH` of this process.
    pub fn from_env() -> Self {
        let mut vars = BTreeMap::new();
        for name in DISPLAY_VARS.iter().chain(&["PATH"]) {
            if let Ok(value) = std::env::var(name) {
                vars.insert(name.to_string(), value);
            }
        }
        Self { vars, fixed: None }
    }

    /// Probes the given variables instead of this process's.
    pub fn from_vars<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            fixed: None,
        }
    }

    /// Always answers `screen`.
    pub fn fixed(screen: Screen) -> Self {
        Self {
            vars: BTreeMap::new(),
            fixed: Some(screen),
        }
    }

    /// What this Host can show windows on. Searches `PATH` for Xvfb; spawns nothing.
    pub fn screen(&self) -> Screen {
        if let Some(screen) = &self.fixed {
            return screen.clone();
        }
        for variable in ["DISPLAY", "WAYLAND_DISPLAY"] {
            if self.vars.get(variable).is_some_and(|v| !v.is_empty()) {
                return Screen::Window {
                    variable: variable.to_string(),
                };
            }
        }
        let path = self.vars.get("PATH").cloned().unwrap_or_default();
        for dir in path.split(':').filter(|d| !d.is_empty()) {
            let candidate = Path::new(dir).join("Xvfb");
            if is_executable(&candidate) {
                return Screen::Virtual { xvfb: candidate };
            }
        }
        Screen::None
    }

    /// The display variables to hand a headed local-window browser.
    pub(crate) fn window_vars(&self) -> Vec<(String, String)> {
        DISPLAY_VARS
            .iter()
            .filter_map(|name| {
                let value = self.vars.get(*name)?;
                (!value.is_empty()).then(|| (name.to_string(), value.clone()))
            })
            .collect()
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What a stage asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Headed {
    /// A window where the Host has a screen, else headless (and the choice says why).
    #[default]
    Auto,
    /// A window, or the stage fails.
    Headed,
    /// Headless.
    Headless,
}

/// Why a browser runs headed or headless.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum DisplayReason {
    /// The stage asked for headless.
    AskedHeadless,
    /// A real display.
    Window {
        /// `DISPLAY` or `WAYLAND_DISPLAY`.
        variable: String,
    },
    /// A private Xvfb display.
    VirtualDisplay {
        /// The Xvfb binary.
        xvfb: PathBuf,
    },
    /// No screen on this Host, and the stage did not insist on one.
    NoScreen,
    /// A person logs in through the Host's live view instead of a window.
    LiveView,
}

/// The headed/headless decision and its reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplayChoice {
    /// Whether the browser shows a window.
    pub headed: bool,
    /// Why.
    pub reason: DisplayReason,
}

impl fmt::Display for DisplayChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = if self.headed { "headed" } else { "headless" };
        match &self.reason {
            DisplayReason::AskedHeadless => write!(f, "{mode} (the stage asked for headless)"),
            DisplayReason::Window { variable } => write!(f, "{mode} (display from {variable})"),
            DisplayReason::VirtualDisplay { xvfb } => {
                write!(f, "{mode} (private virtual display, {})", xvfb.display())
            }
            DisplayReason::NoScreen => write!(f, "{mode} (this Host has no screen and no Xvfb)"),
            DisplayReason::LiveView => write!(f, "{mode} (a person uses the live view)"),
        }
    }
}

/// Decides headed or headless for a stage. `human` is a stage where a person logs in;
/// `live_view` says the Host offers a live view to that person. A person is reached only
/// through a real display or the live view: with nothing but Xvfb (a window nobody sees) and
/// no live view, a human-login stage gets [`HostError::NoScreen`].
///
/// ```
/// use abx_host::{choose_display, Headed, Screen};
/// let none = Screen::None;
/// assert!(!choose_display(&none, Headed::Auto, false, false).unwrap().headed);
/// assert!(choose_display(&none, Headed::Headed, false, false).is_err(), "no silent fallback");
/// let xvfb_only = Screen::Virtual { xvfb: "/usr/bin/Xvfb".into() };
/// assert!(choose_display(&xvfb_only, Headed::Auto, true, false).is_err(), "no invisible login window");
/// ```
pub fn choose_display(
    screen: &Screen,
    want: Headed,
    human: bool,
    live_view: bool,
) -> Result<DisplayChoice> {
    let with_screen = |screen: &Screen| match screen {
        Screen::Window { variable } => Some(DisplayChoice {
            headed: true,
            reason: DisplayReason::Window {
                variable: variable.clone(),
            },
        }),
        Screen::Virtual { xvfb } => Some(DisplayChoice {
            headed: true,
            reason: DisplayReason::VirtualDisplay { xvfb: xvfb.clone() },
        }),
        Screen::None => None,
    };
    if human {
        // Only a real display or the live view reaches a person: a window on a private Xvfb
        // is one nobody can see, so it does not count here.
        return match (screen, live_view) {
            (Screen::Window { variable }, _) => Ok(DisplayChoice {
                headed: true,
                reason: DisplayReason::Window {
                    variable: variable.clone(),
                },
            }),
            // A headed browser on the private display, which the person watches and drives
            // through the live view.
            (Screen::Virtual { .. }, true) => Ok(DisplayChoice {
                headed: true,
                reason: DisplayReason::LiveView,
            }),
            (Screen::None, true) => Ok(DisplayChoice {
                headed: false,
                reason: DisplayReason::LiveView,
            }),
            (Screen::Virtual { .. }, false) => Err(HostError::NoScreen {
                reason: "a person must log in, and this Host has only a virtual display (Xvfb) that nobody can see, no DISPLAY, no WAYLAND_DISPLAY and no live view".into(),
            }),
            (Screen::None, false) => Err(HostError::NoScreen {
                reason: "a person must log in, there is no DISPLAY, no WAYLAND_DISPLAY, no Xvfb on PATH and no live view".into(),
            }),
        };
    }
    match want {
        Headed::Headless => Ok(DisplayChoice {
            headed: false,
            reason: DisplayReason::AskedHeadless,
        }),
        Headed::Headed => with_screen(screen).ok_or_else(|| HostError::NoScreen {
            reason: "the stage asked for headed; there is no DISPLAY, no WAYLAND_DISPLAY and no Xvfb on PATH".into(),
        }),
        Headed::Auto => Ok(with_screen(screen).unwrap_or(DisplayChoice {
            headed: false,
            reason: DisplayReason::NoScreen,
        })),
    }
}
