//! The frame a tab's page commands are scoped to, kept with the tab's refs (it is per-tab state
//! the session holds; the frame commands that set and read it live in `frame.rs`).

/// The frame a tab's commands are scoped to.
#[derive(Clone, Debug)]
pub(crate) struct FrameScope {
    /// The frame id (also the target id of an out-of-process frame).
    pub(super) frame_id: String,
    /// The main-frame document count when the frame was chosen: a new main document resets the
    /// scope (the frame went with the old document).
    pub(super) epoch: u64,
}
