//! Session names, the socket directory and the per-session socket path (contract §1.2).

use abx_wire::env;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::host::Host;

/// Longest Unix socket path the CLI accepts, in bytes (`sun_path` is 104 including the NUL).
pub const SOCKET_PATH_MAX: usize = 103;

/// Whether `name` is a valid session (or restore) name: non-empty, Unicode letters and digits,
/// `-` and `_` only.
pub fn is_valid_session_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// Upstream's message for an invalid session name.
pub fn session_name_error(name: &str) -> String {
    format!(
        "Invalid session name '{name}'. Only alphanumeric characters, hyphens, and underscores are allowed."
    )
}

/// Turn arbitrary text into a valid session-name component: lowercase alphanumerics are kept, runs of
/// other characters collapse into one `-`, `-`/`_` are kept but never doubled, and separators at
/// either end are dropped (`"Worktree: One"` → `worktree-one`).
pub fn sanitize_component(value: &str) -> String {
    let mut out = String::new();
    let mut last_was_sep = false;
    for c in value.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
            last_was_sep = false;
        } else if c == '-' || c == '_' {
            if !out.is_empty() && !last_was_sep {
                out.push(c);
                last_was_sep = true;
            }
        } else if !out.is_empty() && !last_was_sep {
            out.push('-');
            last_was_sep = true;
        }
    }
    while out.ends_with(['-', '_']) {
        out.pop();
    }
    out
}

/// The socket directory before namespacing: `AGENT_BROWSER_SOCKET_DIR` (non-empty), else
/// `$XDG_RUNTIME_DIR/agent-browser` (non-empty), else `~/.agent-browser`, else `<tmp>/agent-browser`.
pub fn base_socket_dir(host: &dyn Host) -> PathBuf {
    if let Some(dir) = host.var(env::SOCKET_DIR).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = host.var("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("agent-browser");
    }
    if let Some(home) = host.home_dir() {
        return home.join(".agent-browser");
    }
    host.temp_dir().join("agent-browser")
}

/// The socket directory for a namespace: `<base>/namespaces/<sanitized>/run`, or `base` when the
/// namespace is absent or sanitizes to nothing.
pub fn namespaced_dir(base: &Path, namespace: Option<&str>) -> PathBuf {
    match namespace.map(sanitize_component) {
        Some(ns) if !ns.is_empty() => base.join("namespaces").join(ns).join("run"),
        _ => base.to_path_buf(),
    }
}

/// The socket directory for this host and namespace.
pub fn socket_dir(host: &dyn Host, namespace: Option<&str>) -> PathBuf {
    namespaced_dir(&base_socket_dir(host), namespace)
}

/// `<dir>/<session>.sock`.
pub fn socket_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("{session}.sock"))
}

/// The socket path, or upstream's error when it would exceed [`SOCKET_PATH_MAX`] bytes.
pub fn checked_socket_path(dir: &Path, session: &str) -> Result<PathBuf, String> {
    let path = socket_path(dir, session);
    let len = path.as_os_str().len();
    if len > SOCKET_PATH_MAX {
        return Err(format!(
            "Session name '{session}' is too long. Socket path would be {len} bytes (max {SOCKET_PATH_MAX}).\nUse a shorter session name or set AGENT_BROWSER_SOCKET_DIR to a shorter path."
        ));
    }
    Ok(path)
}

/// `session id`: `<sanitized prefix>-<first 12 hex of sha256(path)>` (or just the hex without a
/// usable prefix). Returns `(session, hash)`.
pub fn session_id(path: &str, prefix: Option<&str>) -> (String, String) {
    let digest = Sha256::digest(path.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let hash = hex[..12].to_string();
    let prefix = prefix.map(sanitize_component).filter(|p| !p.is_empty());
    let session = match prefix {
        Some(p) => format!("{p}-{hash}"),
        None => hash.clone(),
    };
    (session, hash)
}

/// Windows transport: the preferred TCP port for a session (`49152 + |h| mod 16383`, `h` the
/// Java-style string hash of `"<namespace>:<session>"` or `<session>`).
pub fn windows_port(session: &str, namespace: Option<&str>) -> u16 {
    let identity = match namespace.map(sanitize_component) {
        Some(ns) if !ns.is_empty() => format!("{ns}:{session}"),
        _ => session.to_string(),
    };
    let mut hash: i32 = 0;
    for c in identity.chars() {
        hash = (hash << 5).wrapping_sub(hash).wrapping_add(c as i32);
    }
    let offset = hash.unsigned_abs() % 16383;
    49152 + u16::try_from(offset).unwrap_or(0)
}
