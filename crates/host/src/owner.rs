//! Owner records: `<socket_dir>/owner.json` (0600) names the run, stage and scope a session
//! belongs to, the Host process that made it ([`HostIdentity`]), and holds its env, so a sweep
//! after a Host crash knows what to close, how, and whether it is its own to close.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::BrowserEnv;
use crate::error::Result;
use crate::fsutil::{read_json, write_json};
use crate::names::{ProfileKey, RunId, Scope, StageId};
use crate::process::{pid_alive, start_time};

/// The file name in a socket dir.
pub(crate) const OWNER_FILE: &str = "owner.json";

/// What kind of session a socket dir holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnerKind {
    /// A stage's session (attached to an anchor, or with its own throw-away browser).
    Stage,
    /// A local anchor: the session that owns Chrome with the profile.
    Anchor,
    /// A remote anchor: a browser service's browser, closed over CDP.
    RemoteAnchor,
}

/// The Host process that wrote a record: its configured id, its pid and the pid's start time
/// (clock ticks after boot, from `/proc/<pid>/stat`). The start time tells a live Host from
/// a new process that reuses a dead Host's pid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostIdentity {
    /// `HostConfig::host_id`.
    pub id: String,
    /// The Host's process id.
    pub pid: i32,
    /// The process's start time (clock ticks after boot).
    pub started: u64,
}

/// Whose a record is, seen from the Host that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Written by this Host: this process, under this id.
    ThisProcess,
    /// Written by a process that is provably gone (its pid is dead or now another process):
    /// with the same id, an earlier life of this Host; with another id, a Host that died.
    HostGone {
        /// The record's Host had this Host's id.
        same_id: bool,
    },
    /// Written by another Host process that is still running: never touched.
    OtherLiveHost,
    /// The record names no Host (written before Hosts were recorded): never touched.
    Unnamed,
}

impl Ownership {
    /// Whether a sweep of the reading Host may close the record's session (when its run ended).
    pub fn sweepable(self) -> bool {
        matches!(self, Ownership::ThisProcess | Ownership::HostGone { .. })
    }
}

impl HostIdentity {
    /// This process under `id`.
    pub fn current(id: impl Into<String>) -> HostIdentity {
        let pid = std::process::id() as i32;
        HostIdentity {
            id: id.into(),
            pid,
            started: start_time(pid).unwrap_or(0),
        }
    }

    /// Whether the process this identity names has ended: its pid is not alive, or it is alive
    /// with another start time (a new process reusing the pid).
    pub fn is_gone(&self) -> bool {
        !pid_alive(self.pid) || start_time(self.pid) != Some(self.started)
    }

    /// How a record written by `writer` stands for this Host.
    pub fn judge(&self, writer: Option<&HostIdentity>) -> Ownership {
        let Some(writer) = writer else {
            return Ownership::Unnamed;
        };
        if writer.pid == self.pid && writer.started == self.started && writer.id == self.id {
            Ownership::ThisProcess
        } else if writer.is_gone() {
            Ownership::HostGone {
                same_id: writer.id == self.id,
            }
        } else {
            // Another Host, or another Host object of this process under another id.
            Ownership::OtherLiveHost
        }
    }
}

/// `owner.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerRecord {
    /// Stage or anchor.
    pub kind: OwnerKind,
    /// The run's owner scope.
    pub scope: Scope,
    /// The run.
    pub run: RunId,
    /// The stage (stage sessions).
    #[serde(default)]
    pub stage: Option<StageId>,
    /// The profile (anchors and profile stages).
    #[serde(default)]
    pub profile: Option<ProfileKey>,
    /// The session's env (local sessions).
    #[serde(default)]
    pub env: Option<BrowserEnv>,
    /// The CDP address (remote anchors).
    #[serde(default)]
    pub cdp: Option<String>,
    /// Headers for that address.
    #[serde(default)]
    pub cdp_headers: Vec<(String, String)>,
    /// The Host process that wrote the record (`None` in records of older kits).
    #[serde(default)]
    pub host: Option<HostIdentity>,
}

impl OwnerRecord {
    pub(crate) fn write(&self, socket_dir: &Path) -> Result<()> {
        write_json(&socket_dir.join(OWNER_FILE), self)
    }

    pub(crate) fn read(socket_dir: &Path) -> Result<Option<OwnerRecord>> {
        read_json(&socket_dir.join(OWNER_FILE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_of_this_process_is_its_own_and_a_live_other_process_is_not() {
        let me = HostIdentity::current("a");
        assert_eq!(me.judge(Some(&me)), Ownership::ThisProcess);
        assert!(!me.is_gone());
        // pid 1 is alive (init) and is not this process.
        let init = HostIdentity {
            id: "b".into(),
            pid: 1,
            started: start_time(1).unwrap_or(0),
        };
        if pid_alive(1) {
            assert_eq!(me.judge(Some(&init)), Ownership::OtherLiveHost);
        }
        let other_in_this_process = HostIdentity {
            id: "b".into(),
            ..me
        };
        assert_eq!(
            me.judge(Some(&other_in_this_process)),
            Ownership::OtherLiveHost
        );
        assert_eq!(me.judge(None), Ownership::Unnamed);
        assert!(!Ownership::Unnamed.sweepable());
        assert!(!Ownership::OtherLiveHost.sweepable());
    }

    #[test]
    fn a_reused_pid_with_another_start_time_is_a_gone_host() {
        let me = HostIdentity::current("a");
        let earlier_life = HostIdentity {
            started: me.started.wrapping_add(12345),
            ..me.clone()
        };
        assert!(earlier_life.is_gone());
        assert_eq!(
            me.judge(Some(&earlier_life)),
            Ownership::HostGone { same_id: true }
        );
    }
}
