//! The one error type of the transport.

use std::time::Duration;

/// Why a CDP operation failed.
///
/// Every variant says what happened in words a caller can show; the engine maps them to the
/// upstream error texts and codes in one place.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The socket to Chrome is gone (Chrome exited, crashed, or the connection dropped). Every
    /// call that was pending when it happened fails with this at once.
    #[error("CDP connection closed: {reason}")]
    ConnectionClosed {
        /// What ended the connection, as seen by the reader.
        reason: String,
    },
    /// No reply arrived before the call's deadline. The call is forgotten: a late reply is dropped.
    #[error("CDP command timed out: {method} (after {} ms)", after.as_millis())]
    Timeout {
        /// The CDP method that timed out.
        method: String,
        /// The deadline that expired.
        after: Duration,
    },
    /// Chrome answered with a protocol error.
    #[error("CDP error ({method}): {message}")]
    Protocol {
        /// The CDP method that failed.
        method: String,
        /// Chrome's error code (e.g. -32602 invalid params, -32000 server error).
        code: i64,
        /// Chrome's error message.
        message: String,
    },
    /// The flat session the call was sent on was detached (its target closed or was detached).
    #[error("CDP session {session_id} is detached: {method} cannot complete")]
    SessionDetached {
        /// The CDP session id.
        session_id: String,
        /// The method that was pending or attempted.
        method: String,
    },
    /// The renderer of the session's target crashed while the call was pending.
    #[error("target crashed while {method} was pending (session {session_id})")]
    TargetCrashed {
        /// The CDP session id.
        session_id: String,
        /// The method that was pending.
        method: String,
    },
    /// Connecting failed (bad URL, refused, handshake rejected, discovery failed).
    #[error("cannot connect to CDP endpoint {url}: {reason}")]
    Connect {
        /// The URL we tried.
        url: String,
        /// Why it failed.
        reason: String,
    },
    /// A reply or event did not have the shape the typed API expected.
    #[error("cannot decode the reply to {method}: {detail}")]
    Decode {
        /// The method whose reply failed to decode.
        method: String,
        /// The serde message.
        detail: String,
    },
}

impl Error {
    /// True when the connection itself is gone (as opposed to one call failing).
    pub fn is_connection_closed(&self) -> bool {
        matches!(self, Error::ConnectionClosed { .. })
    }

    /// True when the call hit its deadline.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Timeout { .. })
    }

    /// Chrome's protocol error code, when this is a protocol error.
    pub fn protocol_code(&self) -> Option<i64> {
        match self {
            Error::Protocol { code, .. } => Some(*code),
            _ => None,
        }
    }
}
