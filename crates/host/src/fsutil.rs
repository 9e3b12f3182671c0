//! Private files and folders: folders 0700, files 0600 written atomically (temp file + rename),
//! so a reader never sees half a record.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{HostError, Result};

/// Creates `dir` and its missing parents with mode 0700 (an existing `dir` is set to 0700).
pub(crate) fn private_dir(dir: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| HostError::io("cannot create folder", dir, e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .map_err(|e| HostError::io("cannot set mode 0700 on", dir, e))
}

/// Writes `bytes` to `path` (mode 0600) through a temp file in the same folder and a rename.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().ok_or_else(|| {
        HostError::io(
            "no parent folder for",
            path,
            std::io::ErrorKind::InvalidInput.into(),
        )
    })?;
    private_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}.tmp",
        crate::names::random_token().get(..12).unwrap_or("t")
    ));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(err) = result {
        let _ = fs::remove_file(&tmp);
        return Err(HostError::io("cannot write", path, err));
    }
    Ok(())
}

/// [`write_private`] of pretty JSON.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| HostError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    bytes.push(b'\n');
    write_private(path, &bytes)
}

/// Reads a JSON record; `Ok(None)` when the file does not exist.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| HostError::Corrupt {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(HostError::io("cannot read", path, err)),
    }
}

/// Removes a file; a missing file is fine.
pub(crate) fn remove_file(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(HostError::io("cannot remove", path, err)),
    }
}

/// Whether `path` is a real folder (not a symlink to one).
pub(crate) fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Appends `value` as one JSON line to `path` (created 0600, its folder 0700), in one write so
/// lines of concurrent writers never interleave.
pub(crate) fn append_private<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // A file made by someone else with a looser mode is tightened.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    file.write_all(&line)
}
