//! A long answer text that the daemon hands to a reader of text without copying it through
//! the socket: the text sits in a sealed memory file made once, and each reply passes the file's
//! descriptor (`SCM_RIGHTS`) instead of the bytes ([`abx_wire::extras::TEXT_TAIL`]). An
//! unchanged page's snapshot of half a megabyte then costs the daemon no copy and the reader one
//! read from memory the kernel already holds.
//!
//! ```
//! use abx_daemon::shared_text::SharedText;
//! let shared = SharedText::new("- heading \"Title\" [ref=e1]".into());
//! assert_eq!(&**shared.text(), "- heading \"Title\" [ref=e1]");
//! ```

use std::io::Write as _;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use nix::fcntl::{FcntlArg, SealFlag, fcntl};
use nix::sys::memfd::{MemFdCreateFlag, memfd_create};
use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};

/// Below this many bytes a text is sent after the line: making, filling and sealing a memory
/// file, and passing its descriptor, cost more than the copies it saves (a snapshot of a small
/// page is a few kilobytes).
pub const MEMORY_FILE_FROM: usize = 32 * 1024;

/// A text, and (where the system makes one) a sealed memory file with the same bytes.
#[derive(Clone, Debug)]
pub struct SharedText {
    text: Arc<str>,
    file: Option<Arc<OwnedFd>>,
}

impl SharedText {
    /// Keeps `text` and, when it is long enough to be worth it ([`MEMORY_FILE_FROM`] bytes),
    /// writes it into a new sealed memory file; without one (a short text, no `memfd`, no
    /// memory), replies carry the bytes after the line instead.
    pub fn new(text: Arc<str>) -> SharedText {
        if text.len() < MEMORY_FILE_FROM {
            return SharedText { text, file: None };
        }
        SharedText::in_memory_file(text)
    }

    /// [`SharedText::new`] whatever the text's length.
    pub(crate) fn in_memory_file(text: Arc<str>) -> SharedText {
        let file = match sealed_file(&text) {
            Ok(file) => Some(Arc::new(file)),
            Err(err) => {
                tracing::debug!(%err, "no memory file for a shared text: replies carry it");
                None
            }
        };
        SharedText { text, file }
    }

    /// The text.
    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// Forgets the memory file: replies then carry the bytes (for tests of that path).
    #[cfg(test)]
    pub(crate) fn drop_file(&mut self) {
        self.file = None;
    }

    /// The sealed file holding the text, if there is one.
    pub(crate) fn file(&self) -> Option<BorrowedFd<'_>> {
        self.file.as_deref().map(AsFd::as_fd)
    }
}

/// A memory file holding `text`, sealed so that no holder of its descriptor (every reader it
/// is passed to gets one) can change, grow or shrink it.
fn sealed_file(text: &str) -> std::io::Result<OwnedFd> {
    let fd = memfd_create(
        c"abx-answer",
        MemFdCreateFlag::MFD_CLOEXEC | MemFdCreateFlag::MFD_ALLOW_SEALING,
    )?;
    let mut file = std::fs::File::from(fd);
    file.write_all(text.as_bytes())?;
    let seals = SealFlag::F_SEAL_SEAL
        | SealFlag::F_SEAL_SHRINK
        | SealFlag::F_SEAL_GROW
        | SealFlag::F_SEAL_WRITE;
    fcntl(file.as_raw_fd(), FcntlArg::F_ADD_SEALS(seals))?;
    Ok(OwnedFd::from(file))
}

/// Writes `bytes` on `stream` with `file`'s descriptor attached to the first of them.
pub(crate) async fn write_passing(
    stream: &tokio::net::UnixStream,
    bytes: &[u8],
    file: BorrowedFd<'_>,
) -> std::io::Result<usize> {
    loop {
        stream.writable().await?;
        let sent = stream.try_io(tokio::io::Interest::WRITABLE, || {
            let iov = [std::io::IoSlice::new(bytes)];
            let fds = [file.as_raw_fd()];
            let rights = [ControlMessage::ScmRights(&fds)];
            sendmsg::<()>(
                stream.as_raw_fd(),
                &iov,
                &rights,
                MsgFlags::MSG_NOSIGNAL,
                None,
            )
            .map_err(std::io::Error::from)
        });
        match sent {
            Ok(n) => return Ok(n),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    #[test]
    fn the_file_holds_the_text_and_refuses_changes() {
        let shared = SharedText::in_memory_file("caf\u{e9} \"quoted\"\n- line".into());
        assert!(
            SharedText::new("short".into()).file().is_none(),
            "a memory file for a short text"
        );
        let fd = shared.file().expect("a memory file").try_clone_to_owned();
        let file = std::fs::File::from(fd.expect("dup"));
        let mut read = vec![0; shared.text().len()];
        file.read_exact_at(&mut read, 0).expect("read");
        assert_eq!(read, shared.text().as_bytes());
        assert!(
            file.write_at(b"x", 0).is_err(),
            "a sealed file took a write"
        );
        assert!(file.set_len(1).is_err(), "a sealed file shrank");
    }
}
