//! The relay's error type.

use abx_engine::EngineError;

/// Why a live-view operation failed. Messages never include viewer input.
///
/// ```
/// use abx_relay::RelayError;
/// let err = RelayError::NoDialog;
/// assert_eq!(err.to_string(), "no JavaScript dialog is showing on the streamed tab");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RelayError {
    /// No browser is attached (the daemon has not launched or attached one yet, or it closed).
    #[error("no browser is attached to this session yet; launch or attach one (open a page) first")]
    NoBrowser,
    /// The session has no live tab to stream or send input to.
    #[error("the session has no live tab; open a tab or reopen the closed one")]
    NoTab,
    /// `dialog_answer` without a pending dialog.
    #[error("no JavaScript dialog is showing on the streamed tab")]
    NoDialog,
    /// The dialog exists but cannot be answered from here; the reason says what still works.
    #[error("{0}")]
    DialogUnanswerable(abx_engine::Unanswerable),
    /// The stream server could not listen.
    #[error("Failed to start the stream server on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0 = any).
        port: u16,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// The live view was closed.
    #[error("the live view is closed")]
    Closed,
    /// The engine refused (tab gone, browser lost, timeout...).
    #[error(transparent)]
    Engine(EngineError),
    /// A CDP call failed.
    #[error(transparent)]
    Cdp(#[from] abx_cdp::Error),
}

impl From<EngineError> for RelayError {
    fn from(err: EngineError) -> Self {
        match err {
            EngineError::NoDialog => RelayError::NoDialog,
            EngineError::DialogUnanswerable(why) => RelayError::DialogUnanswerable(why),
            other => RelayError::Engine(other),
        }
    }
}
