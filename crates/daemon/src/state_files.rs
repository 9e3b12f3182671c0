//! Saved storage-state files on disk: where they live, how they are encrypted, and the file
//! operations `state list|show|clear|clean|rename` and `--restore` use.
//!
//! Files interoperate with upstream agent-browser 0.41.2: a state file is the storage-state JSON
//! (`{"cookies":[…],"origins":[…]}`); with `AGENT_BROWSER_ENCRYPTION_KEY` set it is written as
//! `<path>.enc`, AES-256-GCM with the SHA-256 of the key text as the key, laid out as
//! `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. Beyond upstream, every file is written
//! `0600` and the directories abx creates for them `0700`, and a wrong key is reported as such.
//!
//! Saved states for `--restore` live in `~/.agent-browser/sessions/` (with a namespace:
//! `~/.agent-browser/namespaces/<ns>/state/sessions/`), named `<restore-key>-<session>.json[.enc]`.
//!
//! ```
//! use abx_daemon::state_files::{StateKey, decrypt, encrypt};
//! let key = StateKey::new("correct horse").expect("a key");
//! let sealed = encrypt(b"{}", &key);
//! assert_eq!(decrypt(&sealed, &key).expect("opens"), b"{}");
//! assert!(decrypt(&sealed, &StateKey::new("wrong").expect("a key")).is_none());
//! ```

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use abx_engine::storage_state::StorageState;
use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use rand::RngCore;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Why a state file could not be read, written or found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateFileError {
    /// The file system refused.
    #[error("Failed to {what}: {source}")]
    Io {
        /// What was being done, with the path.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// An encrypted file and no key.
    #[error("Encrypted state file {path} requires AGENT_BROWSER_ENCRYPTION_KEY")]
    KeyRequired {
        /// The file.
        path: String,
    },
    /// The key does not open the file.
    #[error(
        "Cannot decrypt {path}: AGENT_BROWSER_ENCRYPTION_KEY is not the key it was saved with, or the file was altered"
    )]
    WrongKey {
        /// The file.
        path: String,
    },
    /// The file is not a storage state.
    #[error("Invalid state file {path}: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Older than `AGENT_BROWSER_STATE_EXPIRE_DAYS`.
    #[error(
        "State file {path} is {age_days} days old, older than AGENT_BROWSER_STATE_EXPIRE_DAYS={limit_days}: it is not loaded"
    )]
    Expired {
        /// The file.
        path: String,
        /// Its age in whole days.
        age_days: u64,
        /// The limit.
        limit_days: u64,
    },
    /// No such file.
    #[error("State file not found: {path}")]
    NotFound {
        /// The file asked for.
        path: String,
    },
    /// A name that cannot be a file name component.
    #[error(
        "Invalid state name '{name}'. Only alphanumeric characters, hyphens, and underscores are allowed."
    )]
    InvalidName {
        /// The name.
        name: String,
    },
}

type Result<T> = std::result::Result<T, StateFileError>;

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> StateFileError {
    let what = what.into();
    move |source| StateFileError::Io { what, source }
}

/// The key of encrypted state files: SHA-256 of `AGENT_BROWSER_ENCRYPTION_KEY`'s text, as
/// upstream derives it. Its `Debug` never shows it.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl StateKey {
    /// The key for `text`; `None` when it is empty.
    pub fn new(text: &str) -> Option<StateKey> {
        if text.is_empty() {
            return None;
        }
        Some(StateKey(Sha256::digest(text.as_bytes()).into()))
    }

    /// The key from `AGENT_BROWSER_ENCRYPTION_KEY`, read through `var`.
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Option<StateKey> {
        var(abx_wire::env::ENCRYPTION_KEY).and_then(|k| StateKey::new(&k))
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(***)")
    }
}

/// Seals `plain`: `nonce ‖ ciphertext ‖ tag`.
pub fn encrypt(plain: &[u8], key: &StateKey) -> Vec<u8> {
    let cipher = Aes256Gcm::new((&key.0).into());
    let mut nonce = [0u8; 12];
    rand::rng().fill_bytes(&mut nonce);
    // Encryption with a valid key and a 12-byte nonce cannot fail for inputs of this size.
    let sealed = cipher
        .encrypt(Nonce::from_slice(&nonce), plain)
        .unwrap_or_default();
    let mut out = Vec::with_capacity(12 + sealed.len());
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&sealed);
    out
}

/// Opens what [`encrypt`] sealed; `None` when the key is wrong or the bytes were altered.
pub fn decrypt(sealed: &[u8], key: &StateKey) -> Option<Vec<u8>> {
    if sealed.len() < 12 + 16 {
        return None;
    }
    let (nonce, body) = sealed.split_at(12);
    Aes256Gcm::new((&key.0).into())
        .decrypt(Nonce::from_slice(nonce), body)
        .ok()
}

/// Whether `path` names an encrypted state file (`*.json.enc`, `*.json.enc.previous`).
pub fn is_encrypted(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".enc") || name.ends_with(".enc.previous")
}

fn is_state_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    [".json", ".json.enc", ".json.previous", ".json.enc.previous"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
        && !name.starts_with('.')
}

/// Whether `name` may be a state (restore) name: Unicode letters and digits, `-`, `_`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// The same sanitising the CLI applies to a namespace for the socket directory.
fn sanitize_component(value: &str) -> String {
    let mut out = String::new();
    let mut last_was_sep = false;
    for c in value.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            last_was_sep = false;
        } else if !out.is_empty() && !last_was_sep {
            out.push(if c == '_' { '_' } else { '-' });
            last_was_sep = true;
        }
    }
    while out.ends_with(['-', '_']) {
        out.pop();
    }
    out
}

/// Where state files, the vault and its key live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateDirs {
    /// `~/.agent-browser` (or `<tmp>/agent-browser` without a home).
    pub base: PathBuf,
    /// The state root: `base`, or `base/namespaces/<ns>/state`.
    pub root: PathBuf,
}

impl StateDirs {
    /// The directories for this environment (`HOME`, `AGENT_BROWSER_NAMESPACE`).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> StateDirs {
        let base = var("HOME").filter(|h| !h.is_empty()).map_or_else(
            || std::env::temp_dir().join("agent-browser"),
            |h| PathBuf::from(h).join(".agent-browser"),
        );
        let root = match var(abx_wire::env::NAMESPACE).map(|n| sanitize_component(&n)) {
            Some(ns) if !ns.is_empty() => base.join("namespaces").join(ns).join("state"),
            _ => base.clone(),
        };
        StateDirs { base, root }
    }

    /// `<root>/sessions`: saved states.
    pub fn sessions(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// Resolves what a user named: the path if it exists, else the name inside the sessions
    /// directory (with `.json` added when it has no suffix), else the path as given.
    pub fn resolve(&self, given: &str) -> PathBuf {
        let direct = PathBuf::from(given);
        if direct.exists() || given.contains('/') {
            return direct;
        }
        let dir = self.sessions();
        for candidate in [
            given.to_string(),
            format!("{given}.json"),
            format!("{given}.json.enc"),
        ] {
            let path = dir.join(&candidate);
            if path.exists() {
                return path;
            }
        }
        direct
    }
}

/// Creates `dir` (and parents) and makes it `0700`.
pub fn private_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(io(format!("create directory {}", dir.display())))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .map_err(io(format!("restrict directory {}", dir.display())))
}

/// Writes `bytes` to `path` as a new `0600` file (atomically: a temporary file renamed over it).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp-{}",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        StateFileError::Io {
            what: format!("write state to {}", path.display()),
            source: e,
        }
    })
}

/// Writes `state` to `path` (`path.enc`, encrypted, with a key). Returns the path written.
pub fn save(path: &Path, state: &StorageState, key: Option<&StateKey>) -> Result<PathBuf> {
    let text = serde_json::to_string_pretty(state).map_err(|e| StateFileError::Invalid {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let (target, bytes) = match key {
        Some(key) => {
            let mut name = path.as_os_str().to_owned();
            if !is_encrypted(path) {
                name.push(".enc");
            }
            (PathBuf::from(name), encrypt(text.as_bytes(), key))
        }
        None => (path.to_path_buf(), text.into_bytes()),
    };
    write_private(&target, &bytes)?;
    Ok(target)
}

/// Reads the state at `path` (decrypting `*.enc` files; a missing `x.json` is looked for as
/// `x.json.enc` when a key is set, as upstream does).
pub fn load(path: &Path, key: Option<&StateKey>) -> Result<StorageState> {
    let shown = path.display().to_string();
    let text = if is_encrypted(path) {
        let key = key.ok_or_else(|| StateFileError::KeyRequired {
            path: shown.clone(),
        })?;
        let bytes = read(path)?;
        decrypt(&bytes, key).ok_or(StateFileError::WrongKey {
            path: shown.clone(),
        })?
    } else {
        match fs::read(path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && key.is_some() => {
                let mut sealed = path.as_os_str().to_owned();
                sealed.push(".enc");
                return load(Path::new(&sealed), key).map_err(|e| match e {
                    StateFileError::NotFound { .. } => StateFileError::NotFound { path: shown },
                    other => other,
                });
            }
            Err(err) => return Err(read_error(path, err)),
        }
    };
    let text = String::from_utf8(text).map_err(|_| StateFileError::Invalid {
        path: shown.clone(),
        reason: if key.is_none() && !is_encrypted(path) {
            "not UTF-8 JSON (an encrypted file must end in .enc)".into()
        } else {
            "not UTF-8".into()
        },
    })?;
    serde_json::from_str(&text).map_err(|e| StateFileError::Invalid {
        path: shown,
        reason: e.to_string(),
    })
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|e| read_error(path, e))
}

fn read_error(path: &Path, err: std::io::Error) -> StateFileError {
    if err.kind() == std::io::ErrorKind::NotFound {
        StateFileError::NotFound {
            path: path.display().to_string(),
        }
    } else {
        StateFileError::Io {
            what: format!("read state from {}", path.display()),
            source: err,
        }
    }
}

fn modified_secs(path: &Path) -> u64 {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

/// Refuses a file older than `limit_days` (`AGENT_BROWSER_STATE_EXPIRE_DAYS`).
pub fn check_not_expired(path: &Path, limit_days: Option<u64>) -> Result<()> {
    let Some(limit) = limit_days.filter(|d| *d > 0) else {
        return Ok(());
    };
    let Ok(modified) = fs::metadata(path).and_then(|m| m.modified()) else {
        return Ok(());
    };
    let age = SystemTime::now()
        .duration_since(modified)
        .unwrap_or(Duration::ZERO);
    if age > Duration::from_secs(limit * 86_400) {
        return Err(StateFileError::Expired {
            path: path.display().to_string(),
            age_days: age.as_secs() / 86_400,
            limit_days: limit,
        });
    }
    Ok(())
}

/// `AGENT_BROWSER_STATE_EXPIRE_DAYS` as a positive number of days.
pub fn expire_days(var: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    var(abx_wire::env::STATE_EXPIRE_DAYS)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|d| *d > 0)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| is_state_file(p))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

fn describe(path: &Path) -> Value {
    json!({
        "filename": path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "path": path.display().to_string(),
        "size": fs::metadata(path).map_or(0, |m| m.len()),
        "modified": modified_secs(path),
        "encrypted": is_encrypted(path),
    })
}

/// `state list`: `{"directory","files":[{filename,path,size,modified,encrypted}]}`.
pub fn list(dirs: &StateDirs) -> Value {
    let dir = dirs.sessions();
    let files: Vec<Value> = entries(&dir).iter().map(|p| describe(p)).collect();
    json!({"directory": dir.display().to_string(), "files": files})
}

/// `state show <file>`: the file's facts, `summary` and the `state` itself.
pub fn show(dirs: &StateDirs, given: &str, key: Option<&StateKey>) -> Result<Value> {
    let path = dirs.resolve(given);
    let state = load(&path, key)?;
    let mut out = describe(&path);
    out["summary"] = json!(state.summary());
    out["state"] = serde_json::to_value(&state).unwrap_or(Value::Null);
    Ok(out)
}

/// `state clear [name] [--all]`: deletes the saved states of restore key `name` (files
/// `<name>-*.json…` and `<name>.json…`), or with `all` every saved state. Returns `{"deleted": n}`.
pub fn clear(dirs: &StateDirs, name: Option<&str>, all: bool) -> Result<Value> {
    if let Some(name) = name
        && !is_valid_name(name)
    {
        return Err(StateFileError::InvalidName { name: name.into() });
    }
    let dir = dirs.sessions();
    let mut deleted = 0;
    for path in entries(&dir) {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let matches = match name {
            _ if all => true,
            Some(name) => {
                file.starts_with(&format!("{name}-")) || file.starts_with(&format!("{name}.json"))
            }
            None => true,
        };
        if matches {
            fs::remove_file(&path).map_err(io(format!("delete {}", path.display())))?;
            deleted += 1;
        }
    }
    Ok(json!({"deleted": deleted}))
}

/// `state clean --older-than <days>`: deletes saved states older than `days`.
pub fn clean(dirs: &StateDirs, days: u64) -> Value {
    let mut cleaned = 0;
    let mut kept = 0;
    let limit = Duration::from_secs(days * 86_400);
    for path in entries(&dirs.sessions()) {
        let old = fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > limit);
        if old && fs::remove_file(&path).is_ok() {
            cleaned += 1;
        } else {
            kept += 1;
        }
    }
    json!({"cleaned": cleaned, "keptCount": kept, "days": days})
}

/// `state rename <old> <new>`: renames a saved state in the sessions directory, keeping its
/// encryption suffix.
pub fn rename(dirs: &StateDirs, old: &str, new: &str) -> Result<Value> {
    for name in [old, new] {
        if !is_valid_name(name) {
            return Err(StateFileError::InvalidName { name: name.into() });
        }
    }
    let dir = dirs.sessions();
    let (from, suffix) = [".json", ".json.enc"]
        .iter()
        .map(|s| (dir.join(format!("{old}{s}")), *s))
        .find(|(p, _)| p.exists())
        .ok_or_else(|| StateFileError::NotFound {
            path: dir.join(format!("{old}.json")).display().to_string(),
        })?;
    let to = dir.join(format!("{new}{suffix}"));
    if to.exists() {
        return Err(StateFileError::Io {
            what: format!("rename {} to {}", from.display(), to.display()),
            source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, "the target exists"),
        });
    }
    fs::rename(&from, &to).map_err(io(format!("rename {}", from.display())))?;
    Ok(json!({
        "renamed": true,
        "oldName": old,
        "newName": new,
        "from": from.display().to_string(),
        "to": to.display().to_string(),
    }))
}

/// The newest saved state of restore key `name` (`<name>-*.json[.enc]`).
pub fn find_restore_file(dirs: &StateDirs, name: &str) -> Option<PathBuf> {
    if !is_valid_name(name) {
        return None;
    }
    let prefix = format!("{name}-");
    entries(&dirs.sessions())
        .into_iter()
        .filter(|p| {
            let file = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            file.starts_with(&prefix) && (file.ends_with(".json") || file.ends_with(".json.enc"))
        })
        .max_by_key(|p| {
            fs::metadata(p)
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH)
        })
}

/// Saves the restore state of key `name` for `session` (`<name>-<session>.json[.enc]` in the
/// sessions directory, a `0700` directory), replacing the previous file only once the new one is
/// written. Returns the path.
pub fn save_restore(
    dirs: &StateDirs,
    name: &str,
    session: &str,
    state: &StorageState,
    key: Option<&StateKey>,
) -> Result<PathBuf> {
    if !is_valid_name(name) {
        return Err(StateFileError::InvalidName { name: name.into() });
    }
    let dir = dirs.sessions();
    private_dir(&dir)?;
    save(&dir.join(format!("{name}-{session}.json")), state, key)
}

/// Deletes saved states older than `days` (daemon start with `AGENT_BROWSER_STATE_EXPIRE_DAYS`).
pub fn expire(dirs: &StateDirs, days: u64) -> usize {
    entries(&dirs.sessions())
        .into_iter()
        .filter(|p| check_not_expired(p, Some(days)).is_err())
        .filter(|p| fs::remove_file(p).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(tmp: &Path) -> StateDirs {
        StateDirs {
            base: tmp.to_path_buf(),
            root: tmp.to_path_buf(),
        }
    }

    #[test]
    fn encrypted_files_open_with_their_key_only_and_are_private() {
        let tmp = tempfile::tempdir().expect("tmp");
        let key = StateKey::new("k1").expect("key");
        let state = StorageState::default();
        let written = save(&tmp.path().join("s.json"), &state, Some(&key)).expect("save");
        assert!(written.to_string_lossy().ends_with("s.json.enc"));
        let mode = fs::metadata(&written).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(load(&written, Some(&key)).expect("load"), state);
        assert!(matches!(
            load(&written, Some(&StateKey::new("k2").expect("key"))),
            Err(StateFileError::WrongKey { .. })
        ));
        assert!(matches!(
            load(&written, None),
            Err(StateFileError::KeyRequired { .. })
        ));
        // `x.json` finds `x.json.enc` when a key is set, as upstream does.
        assert!(load(&tmp.path().join("s.json"), Some(&key)).is_ok());
    }

    #[test]
    fn upstream_key_derivation_is_sha256_of_the_text() {
        let key = StateKey::new(&"a".repeat(64)).expect("key");
        let expected: [u8; 32] = Sha256::digest("a".repeat(64).as_bytes()).into();
        assert_eq!(key.0, expected);
        assert_eq!(format!("{key:?}"), "StateKey(***)");
    }

    #[test]
    fn clear_by_name_leaves_other_keys_alone_and_rename_keeps_the_suffix() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = dirs(tmp.path());
        private_dir(&d.sessions()).expect("dir");
        for f in ["app-default.json", "other-default.json", "app-x.json.enc"] {
            fs::write(d.sessions().join(f), "{}").expect("write");
        }
        assert_eq!(clear(&d, Some("app"), false).expect("clear")["deleted"], 2);
        assert_eq!(list(&d)["files"].as_array().map(Vec::len), Some(1));
        rename(&d, "other-default", "renamed").expect("rename");
        assert!(d.sessions().join("renamed.json").exists());
        assert!(rename(&d, "missing", "x").is_err());
        assert!(clear(&d, Some("../x"), false).is_err());
    }
}
