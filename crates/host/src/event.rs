//! What a Host shows its users as things happen: [`HostEvent`], and why an anchor was lost
//! ([`AnchorLossCause`]). Many parts of the kit send events (anchors, watches, blocked
//! navigations, the audit), so the event types live here, below all of them.

use serde::{Deserialize, Serialize};

use crate::display::DisplayChoice;
use crate::names::{LeaseHolder, ProfileKey, RunId, Scope, StageId};

/// Things a Host shows its users. Serialized as JSON objects tagged by `"event"`
/// (`waiting_for_profile`, `anchor_started`, `anchor_lost`); the `abx-host` JSON front streams
/// them as they are.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum HostEvent {
    /// A stage waits for a profile another run holds.
    WaitingForProfile {
        /// The waiting run.
        run: RunId,
        /// The waiting stage.
        stage: StageId,
        /// The profile.
        profile: ProfileKey,
        /// Who holds it.
        holder: LeaseHolder,
    },
    /// An anchor started (`restarted`: it replaced a dead one).
    AnchorStarted {
        /// The run.
        run: RunId,
        /// The profile.
        profile: ProfileKey,
        /// Headed or headless, and why.
        display: DisplayChoice,
        /// A dead anchor was replaced.
        restarted: bool,
    },
    /// An anchor's browser is gone (it exited, its session ended, or a remote service ended
    /// it), noticed by the Host's watch as it happened. Its stages' pages are lost; the next
    /// `prepare_stage` (or `resume_stage`) on the profile starts a new anchor and re-points
    /// every stage env of the run at it.
    AnchorLost {
        /// The run.
        run: RunId,
        /// The run's owner scope.
        scope: Scope,
        /// The profile.
        profile: ProfileKey,
        /// Why.
        cause: AnchorLossCause,
        /// The stages that were attached to it and not ended.
        stages: Vec<StageId>,
    },
    /// A stage's site policy refused a navigation (`blocked_sites`, or a host outside its
    /// `allowed_domains`); the agent got an error (a command) or an error page (the page's own
    /// navigation).
    BlockedNavigation {
        /// The run.
        run: RunId,
        /// The stage.
        stage: StageId,
        /// The refused URL (it may carry tokens: show it to the run's owner only).
        url: String,
        /// Its host.
        host: String,
        /// Which list refused it.
        rule: abx_engine::BlockRule,
        /// A command asked for it, or the page went there itself.
        by: abx_engine::BlockedBy,
    },
    /// The audit sink failed to store a record (the run goes on).
    AuditFailed {
        /// The sink's error.
        reason: String,
    },
}

/// Why an anchor was lost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AnchorLossCause {
    /// The anchor's Chrome exited (killed, crashed) while its `agent-browser` session lived on.
    BrowserExited {
        /// Chrome's browser process, when the Host had learned it.
        pid: Option<i32>,
    },
    /// The anchor's `agent-browser` session ended (its daemon exited), and its Chrome with it.
    SessionEnded {
        /// The session's daemon, when the Host had learned it.
        daemon_pid: Option<i32>,
    },
    /// A remote service ended the browser: the connection was closed while the service still
    /// answers.
    ServiceEnded {
        /// How the connection ended.
        reason: String,
    },
    /// The connection closed and the browser does not answer, for a reason the Host cannot
    /// tell (a remote service or network that does not answer, or a local Chrome that is still
    /// running but unreachable).
    ConnectionClosed {
        /// How the connection ended.
        reason: String,
    },
}

impl std::fmt::Display for AnchorLossCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnchorLossCause::BrowserExited { pid: Some(pid) } => {
                write!(f, "its browser (pid {pid}) exited")
            }
            AnchorLossCause::BrowserExited { pid: None } => write!(f, "its browser exited"),
            AnchorLossCause::SessionEnded {
                daemon_pid: Some(pid),
            } => write!(f, "its session (daemon pid {pid}) ended"),
            AnchorLossCause::SessionEnded { daemon_pid: None } => write!(f, "its session ended"),
            AnchorLossCause::ServiceEnded { reason } => {
                write!(f, "the browser service ended it ({reason})")
            }
            AnchorLossCause::ConnectionClosed { reason } => {
                write!(f, "the connection closed and it does not answer ({reason})")
            }
        }
    }
}
