//! Owner records: `<socket_dir>/owner.json` (0600) names the run, stage and scope a session
//! belongs to and holds its env, so a sweep after a Host crash knows what to close and how.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::BrowserEnv;
use crate::error::Result;
use crate::fsutil::{read_json, write_json};
use crate::names::{ProfileKey, RunId, Scope, StageId};

/// The file name in a socket dir.
pub const OWNER_FILE: &str = "owner.json";

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
}

impl OwnerRecord {
    pub(crate) fn write(&self, socket_dir: &Path) -> Result<()> {
        write_json(&socket_dir.join(OWNER_FILE), self)
    }

    pub(crate) fn read(socket_dir: &Path) -> Result<Option<OwnerRecord>> {
        read_json(&socket_dir.join(OWNER_FILE))
    }
}
