//! Downloads: `download <selector> <path>` (click, then save what the click downloaded),
//! `wait --download [path]` (the next download of the session's tab) and a session-wide download
//! directory (`--download-path`).
//!
//! Chrome saves a download where `Browser.setDownloadBehavior` says, for one browser context.
//! The session sets it once, on the context of its tab (so on a shared anchor it is the stage's
//! context when the stage has one, the default context otherwise), to `allowAndName` into a
//! staging directory: files land under their download GUID, never clobbering each other, and
//! the `Browser.downloadWillBegin`/`downloadProgress` events tell which GUID is which. A finished
//! download is then moved to where it was asked for (the path of `download`/`wait --download`,
//! or the session's download directory under its suggested name).

mod commands;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use abx_cdp::protocol::browser_protocol::browser as cdp_browser;
use serde::Serialize;
use tokio::sync::watch;

use crate::error::{EngineError, Result};

/// A finished download, saved.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Downloaded {
    /// Where the file is now.
    pub path: String,
    /// The URL it came from.
    pub url: String,
    /// The name the page or server suggested.
    pub suggested_filename: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Progress {
    Running,
    Completed,
    Canceled,
}

#[derive(Clone, Debug)]
struct Record {
    guid: String,
    frame_id: String,
    url: String,
    suggested: String,
    progress: Progress,
    /// Where the finished file is (the staging GUID file until it is moved).
    file: Option<PathBuf>,
    /// Handed to a `download` or `wait --download` already.
    claimed: bool,
}

#[derive(Default)]
struct Ledger {
    records: Vec<Record>,
}

/// The session's download state: the staging directory, the event pump, every download seen.
pub(crate) struct Downloads {
    /// The session-wide directory (`--download-path`), where unclaimed downloads are moved.
    dir: Option<PathBuf>,
    started: tokio::sync::Mutex<Option<Started>>,
    ledger: Arc<Mutex<Ledger>>,
    changes: watch::Sender<u64>,
}

struct Started {
    /// Ours: removed with the session.
    staging: PathBuf,
    pump: tokio::task::JoinHandle<()>,
}

impl Drop for Downloads {
    fn drop(&mut self) {
        if let Some(started) = self.started.get_mut().take() {
            started.pump.abort();
            let _ = std::fs::remove_dir_all(&started.staging);
        }
    }
}

impl Downloads {
    /// Downloads of a session whose unclaimed downloads go to `dir` (none: they stay staged
    /// until a `wait --download` claims them).
    pub(crate) fn new(dir: Option<PathBuf>) -> Downloads {
        Downloads {
            dir,
            started: tokio::sync::Mutex::new(None),
            ledger: Arc::default(),
            changes: watch::channel(0).0,
        }
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whether `dir` exists (or can be made) and takes new files; the error says why not.
fn writable_dir(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| unwritable(dir, &e))?;
    let dir = dir.canonicalize().map_err(|e| unwritable(dir, &e))?;
    let probe = dir.join(format!(".abx-write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| unwritable(&dir, &e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(dir)
}

fn unwritable(dir: &Path, err: &std::io::Error) -> EngineError {
    EngineError::Io(format!("Cannot save downloads in {}: {err}", dir.display()))
}

/// The destination file of a `path` argument, its directory created and checked writable.
fn destination(path: &str) -> Result<PathBuf> {
    if path.is_empty() || path.ends_with('/') {
        return Err(EngineError::Invalid(format!(
            "Invalid download path '{path}': give a file name"
        )));
    }
    let path = PathBuf::from(path);
    let name = path
        .file_name()
        .ok_or_else(|| {
            EngineError::Invalid(format!(
                "Invalid download path '{}': give a file name",
                path.display()
            ))
        })?
        .to_owned();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(writable_dir(&parent)?.join(name))
}

/// Moves a file, copying when it crosses file systems.
fn move_file(from: &Path, to: &Path) -> Result<()> {
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map_err(|e| {
        EngineError::Io(format!("Cannot save the download to {}: {e}", to.display()))
    })?;
    let _ = std::fs::remove_file(from);
    Ok(())
}

/// A name in `dir` for `suggested` that no file has yet (`report.txt`, `report (1).txt`, ...).
fn free_name(dir: &Path, suggested: &str) -> PathBuf {
    let base = Path::new(suggested)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .unwrap_or("download");
    let candidate = dir.join(base);
    if !candidate.exists() {
        return candidate;
    }
    let (stem, ext) = match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (base, String::new()),
    };
    (1..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or(candidate)
}

/// Follows `Browser.downloadWillBegin`/`downloadProgress` into the ledger; moves a finished
/// download to the session's download directory (`dir`) under its suggested name.
async fn pump(
    mut events: abx_cdp::Subscription,
    ledger: Arc<Mutex<Ledger>>,
    changes: watch::Sender<u64>,
    staging: PathBuf,
    dir: Option<PathBuf>,
) {
    while let Some(event) = events.recv().await {
        let mut ledger = ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(Ok(begin)) = event.decode::<cdp_browser::EventDownloadWillBegin>() {
            ledger.records.push(Record {
                guid: begin.guid,
                frame_id: begin.frame_id.inner().clone(),
                url: begin.url,
                suggested: begin.suggested_filename,
                progress: Progress::Running,
                file: None,
                claimed: false,
            });
        } else if let Some(Ok(progress)) = event.decode::<cdp_browser::EventDownloadProgress>()
            && let Some(record) = ledger.records.iter_mut().find(|r| r.guid == progress.guid)
        {
            match progress.state {
                cdp_browser::DownloadProgressState::Completed => {
                    let staged = staging.join(&record.guid);
                    record.file = Some(match &dir {
                        Some(dir) => {
                            let named = free_name(dir, &record.suggested);
                            if move_file(&staged, &named).is_ok() {
                                named
                            } else {
                                staged
                            }
                        }
                        None => staged,
                    });
                    record.progress = Progress::Completed;
                }
                cdp_browser::DownloadProgressState::Canceled => {
                    record.progress = Progress::Canceled;
                }
                _ => continue,
            }
        } else {
            continue;
        }
        // Old claimed records are of no more use.
        if ledger.records.len() > 1024 {
            ledger.records.retain(|r| !r.claimed);
        }
        drop(ledger);
        changes.send_modify(|n| *n += 1);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn free_name_numbers_taken_names() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            free_name(dir.path(), "report.txt"),
            dir.path().join("report.txt")
        );
        std::fs::write(dir.path().join("report.txt"), "x").unwrap();
        assert_eq!(
            free_name(dir.path(), "report.txt"),
            dir.path().join("report (1).txt")
        );
        assert_eq!(free_name(dir.path(), "../etc"), dir.path().join("etc"));
        assert_eq!(free_name(dir.path(), ""), dir.path().join("download"));
    }

    #[test]
    fn destination_refuses_an_unwritable_directory_and_a_missing_name() {
        assert!(destination("/proc/abx-no/such/file.txt").is_err());
        assert!(destination("somewhere/").is_err());
        let dir = tempfile::tempdir().unwrap();
        let dest = destination(&dir.path().join("a/b/c.txt").display().to_string()).unwrap();
        assert!(dest.ends_with("a/b/c.txt"));
        assert!(dir.path().join("a/b").is_dir());
    }
}
