//! Errors of the Host kit, written for the Host's developer.

use std::path::PathBuf;
use std::time::Duration;

use crate::names::{LeaseHolder, ProfileKey};

/// Why a Host kit operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// A scope, profile, run or stage name is not a safe folder name.
    #[error("invalid {kind} {value:?}: {reason}")]
    InvalidName {
        /// `scope`, `profile`, `run` or `stage`.
        kind: &'static str,
        /// What was given.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The profile lease is held by another run and the wait limit passed.
    #[error(
        "waited {} s for browser profile {key} held by run {}; end or cancel that run, or raise the wait limit",
        waited.as_secs(), holder.run
    )]
    LeaseWaitTimedOut {
        /// The profile.
        key: ProfileKey,
        /// Who holds it.
        holder: LeaseHolder,
        /// How long we waited.
        waited: Duration,
    },
    /// The wait for a profile lease was cancelled (run cancelled, Host halting).
    #[error("the wait for browser profile {key} was cancelled")]
    LeaseWaitCancelled {
        /// The profile.
        key: ProfileKey,
    },
    /// A stage needs a visible browser and the Host has neither a screen nor a live view.
    #[error(
        "stage needs a headed browser but this Host has no screen: {reason}. Set DISPLAY, install Xvfb, or offer a live view"
    )]
    NoScreen {
        /// What the display probe found.
        reason: String,
    },
    /// A Unix socket path would exceed the 103-byte limit.
    #[error("browser socket path {path} is {len} bytes (limit {limit}); use a shorter socket root")]
    SocketPathTooLong {
        /// The path.
        path: PathBuf,
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// An `agent-browser` command failed.
    #[error("agent-browser {command} failed (exit {code}): {message}")]
    Command {
        /// The command line (arguments only; never the environment).
        command: String,
        /// Exit code (-1 when it could not run or was ended at its deadline).
        code: i32,
        /// What it printed on stderr (or stdout).
        message: String,
    },
    /// The anchor's CDP address could not be read or reached.
    #[error("the shared browser of run {run} profile {profile} is not reachable: {reason}")]
    Anchor {
        /// The run.
        run: String,
        /// The profile.
        profile: String,
        /// What happened.
        reason: String,
    },
    /// Another process holds the anchor lock for too long.
    #[error("timed out after {} s waiting for the anchor lock {path}", waited.as_secs())]
    AnchorLockTimedOut {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
    },
    /// A remote browser endpoint failed.
    #[error("remote browser {endpoint}: {reason}")]
    Remote {
        /// The endpoint (query strings removed).
        endpoint: String,
        /// What went wrong, with every URL's query removed (it may carry the service's token).
        reason: String,
    },
    /// A stage has no persisted browser env (never prepared, or its run was torn down).
    #[error("stage {stage} of run {run} has no browser env; prepare the stage first")]
    NoStageEnv {
        /// The run.
        run: String,
        /// The stage.
        stage: String,
    },
    /// A persisted record could not be parsed.
    #[error("{path} is corrupt: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The parse error.
        reason: String,
    },
    /// The profile store refused an operation.
    #[error("profile {key}: {reason}")]
    Profile {
        /// The profile.
        key: ProfileKey,
        /// Why.
        reason: String,
    },
    /// A file operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What we were doing.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl HostError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HostError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

/// Result with [`HostError`].
pub type Result<T, E = HostError> = std::result::Result<T, E>;
