//! The Host's connections to the front (one on stdio; any number on the socket) and their
//! outbound lines. Replies, events and questions are never dropped; viewer frames sent on the
//! channel are, when the Host reads slower than they come (the newest waits, a slow Host skips).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;

/// Frames waiting for one connection before more are skipped.
const FRAME_QUEUE: usize = 2;

/// A connection's id.
pub(crate) type ClientId = u64;

/// What a connection's writer reads.
pub(crate) struct Outbound {
    /// Replies, events, questions, viewer events.
    pub lines: mpsc::UnboundedReceiver<String>,
    /// Viewer frames (bounded; skipped when full).
    pub frames: mpsc::Receiver<String>,
}

struct Client {
    lines: mpsc::UnboundedSender<String>,
    frames: mpsc::Sender<String>,
    /// Its input is still open (it can answer questions).
    listening: bool,
}

/// Every open connection.
#[derive(Default)]
pub(crate) struct Clients {
    next: AtomicU64,
    open: Mutex<HashMap<ClientId, Client>>,
}

impl Clients {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<ClientId, Client>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new connection.
    pub(crate) fn add(&self) -> (ClientId, Outbound) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (lines, lines_rx) = mpsc::unbounded_channel();
        let (frames, frames_rx) = mpsc::channel(FRAME_QUEUE);
        self.open().insert(
            id,
            Client {
                lines,
                frames,
                listening: true,
            },
        );
        (
            id,
            Outbound {
                lines: lines_rx,
                frames: frames_rx,
            },
        )
    }

    /// The connection ended (its writer drains what was queued).
    pub(crate) fn remove(&self, id: ClientId) {
        self.open().remove(&id);
    }

    /// The connection's input ended: it still gets its replies, no more questions.
    pub(crate) fn mute(&self, id: ClientId) {
        if let Some(client) = self.open().get_mut(&id) {
            client.listening = false;
        }
    }

    /// A question for every connection that can answer; `false` when none can.
    pub(crate) fn ask(&self, line: &str) -> bool {
        let mut asked = false;
        for client in self.open().values().filter(|c| c.listening) {
            asked |= client.lines.send(line.to_string()).is_ok();
        }
        asked
    }

    /// A line for one connection; `false` when it is gone.
    pub(crate) fn send(&self, id: ClientId, line: String) -> bool {
        self.open()
            .get(&id)
            .is_some_and(|c| c.lines.send(line).is_ok())
    }

    /// A frame for one connection: `Ok(false)` when skipped (queue full), `Err` when it is gone.
    pub(crate) fn send_frame(&self, id: ClientId, line: String) -> Result<bool, ()> {
        let open = self.open();
        let client = open.get(&id).ok_or(())?;
        match client.frames.try_send(line) {
            Ok(()) => Ok(true),
            Err(mpsc::error::TrySendError::Full(_)) => Ok(false),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
        }
    }

    /// A line for every connection.
    pub(crate) fn broadcast(&self, line: &str) {
        for client in self.open().values() {
            let _ = client.lines.send(line.to_string());
        }
    }
}
