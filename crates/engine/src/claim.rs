//! Cross-process ownership of pinned tabs: a session that pins a tab holds an exclusive `flock` on
//! `<dir>/<browser id>/<target id>.lock` for as long as the tab is its pinned tab.
//!
//! Upstream's `--pin-tab` keeps a session on its own tab but does not stop another session from
//! taking it by target id (issue #1790). Sessions of one Host run in separate daemons with
//! separate socket directories, so the marker lives in one per-user directory that does not depend
//! on the socket dir ([`ClaimDir::for_current_user`]), keyed by the browser's id (the UUID in its
//! `/devtools/browser/<id>` WebSocket URL, unique per Chrome process) and the CDP target id.
//!
//! The lock is an open file description held by the daemon: the kernel releases it when the daemon
//! exits or dies, so a crashed stage never leaves a tab locked. The file's content names the
//! holder (session, pid) for the error message; it is informational only, the lock is the truth.
//!
//! Files are removed on release while still locked; an acquirer that locked a file which was
//! unlinked meanwhile notices (its inode no longer matches the path) and retries, so removal never
//! lets two holders in.

mod pinned_tab;

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

/// The directory under which claims live (one per user, shared by every session of that user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimDir(PathBuf);

/// Who holds a claim, as written into the claim file.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClaimHolder {
    /// The holder's session name.
    pub session: String,
    /// The holder's process id.
    pub pid: u32,
}

impl std::fmt::Display for ClaimHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.session.is_empty() {
            write!(f, "pid {}", self.pid)
        } else {
            write!(f, "session \"{}\", pid {}", self.session, self.pid)
        }
    }
}

/// Why a claim could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another live process holds it.
    #[error("the tab is claimed by {0}")]
    Held(ClaimHolder),
    /// The claim directory or file could not be used.
    #[error("the claim directory or file could not be used: {0}")]
    Io(#[source] std::io::Error),
}

impl ClaimDir {
    /// A claim directory at `path` (tests, or a Host that wants its own).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self(path.into())
    }

    /// The per-user default: `/run/user/<uid>/abx-pins` when that runtime dir exists and belongs
    /// to the user, else `/tmp/abx-pins-<uid>`. Deliberately independent of `TMPDIR`,
    /// `XDG_RUNTIME_DIR` and the socket dir, which differ between a Host's stage sessions.
    pub fn for_current_user() -> Self {
        let uid = nix::unistd::getuid().as_raw();
        let runtime = PathBuf::from(format!("/run/user/{uid}"));
        let owned = std::fs::metadata(&runtime).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if owned {
            Self(runtime.join("abx-pins"))
        } else {
            Self(PathBuf::from(format!("/tmp/abx-pins-{uid}")))
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    fn file(&self, browser_id: &str, target_id: &str) -> PathBuf {
        self.0
            .join(sanitize(browser_id))
            .join(format!("{}.lock", sanitize(target_id)))
    }

    /// Creates `dir` (0700) and checks that it is ours, so another user cannot plant claims.
    fn ensure_dir(dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let meta = std::fs::metadata(dir)?;
        let uid = nix::unistd::getuid().as_raw();
        if meta.uid() != uid {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} belongs to uid {}, not {uid}", dir.display(), meta.uid()),
            ));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }

    /// Takes the claim on `target_id` of browser `browser_id` for `holder`.
    pub fn acquire(
        &self,
        browser_id: &str,
        target_id: &str,
        holder: &ClaimHolder,
    ) -> Result<TabClaim, ClaimError> {
        let path = self.file(browser_id, target_id);
        if let Some(parent) = path.parent() {
            Self::ensure_dir(&self.0).map_err(ClaimError::Io)?;
            Self::ensure_dir(parent).map_err(ClaimError::Io)?;
        }
        // A few rounds cover a holder that removes the file between our open and our lock.
        for _ in 0..8 {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .mode(0o600)
                .open(&path)
                .map_err(ClaimError::Io)?;
            let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => lock,
                Err((mut file, Errno::EWOULDBLOCK)) => {
                    return Err(ClaimError::Held(read_holder(&mut file)));
                }
                Err((_, errno)) => return Err(ClaimError::Io(std::io::Error::from(errno))),
            };
            let ours = lock.metadata().map_err(ClaimError::Io)?.ino();
            match std::fs::metadata(&path) {
                Ok(now) if now.ino() == ours => {}
                // Unlinked (released) after we opened it: try again on the new file.
                _ => continue,
            }
            let content = serde_json::to_string(holder).unwrap_or_default();
            lock.set_len(0).map_err(ClaimError::Io)?;
            lock.write_all(content.as_bytes()).map_err(ClaimError::Io)?;
            return Ok(TabClaim { path, _lock: lock });
        }
        Err(ClaimError::Io(std::io::Error::other(format!(
            "{} keeps changing; cannot claim it",
            path.display()
        ))))
    }

    /// Who holds `target_id`, if a live process does (probes without keeping the claim).
    pub fn holder(&self, browser_id: &str, target_id: &str) -> Option<ClaimHolder> {
        let path = self.file(browser_id, target_id);
        let file = OpenOptions::new().read(true).write(true).open(&path).ok()?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => {
                // Nobody holds it: a leftover of a dead holder. Remove it while locked.
                let _ = std::fs::remove_file(&path);
                drop(lock);
                None
            }
            Err((mut file, Errno::EWOULDBLOCK)) => Some(read_holder(&mut file)),
            Err(_) => None,
        }
    }
}

/// A held claim; released (file removed, lock dropped) when dropped or when the process dies.
#[derive(Debug)]
pub struct TabClaim {
    path: PathBuf,
    _lock: Flock<File>,
}

impl TabClaim {
    /// The claim file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TabClaim {
    fn drop(&mut self) {
        // Remove while still locked; the lock itself is dropped right after.
        let _ = std::fs::remove_file(&self.path);
        if let Some(parent) = self.path.parent() {
            // Succeeds only when no other claim of this browser remains.
            let _ = std::fs::remove_dir(parent);
        }
    }
}

fn read_holder(file: &mut File) -> ClaimHolder {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    serde_json::from_str(&text).unwrap_or_default()
}

/// Keeps ids usable as file names (CDP ids are hex or UUIDs; anything else is replaced).
fn sanitize(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "_".into()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(name: &str) -> ClaimHolder {
        ClaimHolder {
            session: name.into(),
            pid: std::process::id(),
        }
    }

    #[test]
    fn a_claim_excludes_others_until_released() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let claims = ClaimDir::new(dir.path().join("pins"));
        let first = claims
            .acquire("B", "T1", &holder("one"))
            .map_err(|e| format!("{e:?}"))?;
        match claims.acquire("B", "T1", &holder("two")) {
            Err(ClaimError::Held(h)) => assert_eq!(h.session, "one"),
            other => return Err(format!("expected Held, got {other:?}")),
        }
        assert_eq!(
            claims.holder("B", "T1").map(|h| h.session),
            Some("one".into())
        );
        // Another target of the same browser is free.
        let other = claims.acquire("B", "T2", &holder("two"));
        assert!(other.is_ok());
        drop(first);
        assert!(claims.holder("B", "T1").is_none());
        let again = claims.acquire("B", "T1", &holder("two"));
        assert!(again.is_ok(), "released claims can be taken again");
        Ok(())
    }

    #[test]
    fn released_claims_leave_no_files() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let claims = ClaimDir::new(dir.path().join("pins"));
        let claim = claims
            .acquire("B", "T", &holder("x"))
            .map_err(|e| format!("{e:?}"))?;
        let path = claim.path().to_path_buf();
        assert!(path.exists());
        drop(claim);
        assert!(!path.exists());
        assert!(!dir.path().join("pins").join("B").exists());
        Ok(())
    }

    #[test]
    fn ids_cannot_escape_the_directory() {
        let claims = ClaimDir::new("/x");
        assert_eq!(
            claims.file("../..", "a/b"),
            PathBuf::from("/x/_____/a_b.lock")
        );
    }

    #[test]
    fn claim_errors_are_std_errors_that_name_the_holder() {
        let held: Box<dyn std::error::Error> = Box::new(ClaimError::Held(ClaimHolder {
            session: "work".into(),
            pid: 7,
        }));
        assert_eq!(
            held.to_string(),
            "the tab is claimed by session \"work\", pid 7"
        );
        let io = ClaimError::Io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(
            std::error::Error::source(&io).is_some(),
            "the io error is its source"
        );
    }
}
