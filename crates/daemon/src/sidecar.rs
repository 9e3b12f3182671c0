//! The socket directory and the per-session files upstream defines (`<s>.sock .pid .version
//! .stream .engine .config .target`), plus our ownership lock (`<s>.lock`).
//!
//! Ownership is an exclusive `flock` on `<s>.lock` held for the daemon's life: the kernel
//! releases it when the daemon dies, however it dies, so a second daemon can tell a live owner
//! from stale files without guessing from PIDs (upstream issue #1118).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Suffixes of the files removed when a daemon exits (`.target` survives on purpose).
pub const EPHEMERAL: &[&str] = &[
    "sock", "pid", "version", "stream", "engine", "config", "port",
];

/// Paths of one session's files.
#[derive(Clone, Debug)]
pub struct Sidecars {
    dir: PathBuf,
    session: String,
}

impl Sidecars {
    /// The files of `session` in `dir`.
    pub fn new(dir: &Path, session: &str) -> Self {
        Self {
            dir: dir.to_path_buf(),
            session: session.to_string(),
        }
    }

    /// `<dir>/<session>.<suffix>`.
    pub fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}.{suffix}", self.session))
    }

    /// The socket directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the directory with mode 0700 (and tightens an existing one we own).
    pub fn ensure_dir(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
    }

    /// Writes `<session>.<suffix>` atomically with mode 0600 (no trailing newline).
    pub fn write(&self, suffix: &str, content: &str) -> std::io::Result<()> {
        write_private(&self.path(suffix), content)
    }

    /// Removes the files a live daemon owns (not `.target`, not `.lock`).
    pub fn remove_ephemeral(&self) {
        for suffix in EPHEMERAL {
            let _ = std::fs::remove_file(self.path(suffix));
        }
    }

    /// Takes the ownership lock, or `None` when another live daemon holds it.
    pub fn lock(&self) -> std::io::Result<Option<OwnerLock>> {
        let path = self.path("lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)?;
        match nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock) {
            Ok(lock) => Ok(Some(OwnerLock { _lock: lock })),
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => Ok(None),
            Err((_, errno)) => Err(std::io::Error::from(errno)),
        }
    }

    /// Whether a live daemon holds the lock (probes without keeping it).
    pub fn is_owned_by_live_daemon(&self) -> bool {
        matches!(self.lock(), Ok(None))
    }

    /// Whether a daemon of this session is alive: judged by the ownership lock when there is
    /// one (a daemon still starting holds it before its socket exists), else by the pid file.
    pub fn daemon_alive(&self) -> bool {
        if self.path("lock").exists() {
            return self.is_owned_by_live_daemon();
        }
        std::fs::read_to_string(self.path("pid"))
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok())
            .is_some_and(pid_alive)
    }

    /// Removes the files a dead daemon left (upstream's `close` and `session list` do the same);
    /// a live daemon's are left alone. Returns whether they were stale.
    pub fn remove_if_stale(&self) -> bool {
        let stale = !self.daemon_alive();
        if stale {
            self.remove_ephemeral();
        }
        stale
    }
}

/// `<session>.blocked`: one JSON line per navigation the site policy refused (`{ts_ms, url,
/// host, rule, by}`), appended (mode 0600) and kept after the daemon exits, so the Host that
/// owns the session can read what was refused until it removes the socket dir.
#[derive(Clone, Debug)]
pub struct BlockedLog {
    path: PathBuf,
}

impl BlockedLog {
    /// The log at `path`.
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    /// Appends one record; a write error is logged, never returned (the refusal stands).
    pub fn append(&self, blocked: &abx_engine::BlockedNavigation) {
        let ts_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut line = match serde_json::to_value(blocked) {
            Ok(serde_json::Value::Object(mut map)) => {
                map.insert("ts_ms".into(), ts_ms.into());
                serde_json::Value::Object(map).to_string()
            }
            _ => return,
        };
        line.push('\n');
        let written = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&self.path)
            // One write of the whole line: appends of concurrent writers never interleave.
            .and_then(|mut file| file.write_all(line.as_bytes()));
        if let Err(err) = written {
            tracing::warn!(%err, "cannot record a blocked navigation");
        }
    }
}

/// The held ownership lock; released when dropped or when the process dies.
#[derive(Debug)]
pub struct OwnerLock {
    _lock: nix::fcntl::Flock<File>,
}

/// Writes `content` to `path` via a temp file + rename, mode 0600 regardless of umask.
///
/// No fsync: these are runtime files of live processes (and `.target`, a hint for the next
/// daemon), so a reader needs whole content (the rename gives it), not durability across a
/// machine crash. An fsync per navigation cost milliseconds (tens on a busy disk) on every
/// `open`/`back`/`reload`, and concurrent stages queued on the file system's journal.
pub fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    let tmp = path.with_extension(format!(
        "{}.tmp{}",
        path.extension().and_then(|e| e.to_str()).unwrap_or(""),
        std::process::id()
    ));
    {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(content.as_bytes())?;
    }
    std::fs::rename(&tmp, path)
}

/// Sessions of `dir` with a live-view stream server: `[{"session","port","engine",
/// "provider"?,"extensions"?}]` from `<s>.stream` files whose daemon is alive (it holds the
/// session's ownership lock: a pid can be reused, a lock cannot outlive its process).
pub fn stream_sessions(dir: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".stream")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    let read = |name: &str, suffix: &str| {
        std::fs::read_to_string(dir.join(format!("{name}.{suffix}")))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    names
        .into_iter()
        .filter_map(|name| {
            let port: u16 = read(&name, "stream")?.parse().ok()?;
            let _pid: i32 = read(&name, "pid")?.parse().ok()?;
            if !Sidecars::new(dir, &name).is_owned_by_live_daemon() {
                return None;
            }
            let mut entry = serde_json::json!({
                "session": name,
                "port": port,
                "engine": read(&name, "engine").unwrap_or_else(|| "chrome".into()),
            });
            if let Some(provider) = read(&name, "provider") {
                entry["provider"] = serde_json::json!(provider);
            }
            if let Some(extensions) = read(&name, "extensions") {
                entry["extensions"] = serde_json::json!(extensions.split(',').collect::<Vec<_>>());
            }
            Some(entry)
        })
        .collect()
}

/// Whether `pid` is alive (EPERM counts as alive, like upstream).
pub fn pid_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    }
}

/// The session names that have a `.pid` or `.sock` file in `dir`, sorted, each once; `None` when
/// `dir` cannot be read (it does not exist yet, say).
pub fn session_names(dir: &Path) -> Option<Vec<String>> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.strip_suffix(".pid")
                .or_else(|| name.strip_suffix(".sock"))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names.dedup();
    Some(names)
}

/// Sessions with files in `dir`: `(name, pid, alive)`. Stale files of dead daemons are removed
/// (upstream's `cleanup_stale_files`), judged by the ownership lock when present, else the pid.
pub fn scan_sessions(dir: &Path) -> Vec<(String, Option<i32>, bool)> {
    let names = session_names(dir).unwrap_or_default();
    let mut out = Vec::new();
    for name in names {
        let files = Sidecars::new(dir, &name);
        let pid = std::fs::read_to_string(files.path("pid"))
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok());
        if files.remove_if_stale() {
            continue;
        }
        out.push((name, pid, true));
    }
    out
}

/// Drops query, fragment and credentials from a URL for the `.target` sidecar.
pub fn sanitize_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.has_host() => {
            // Neither can fail on a URL with a host.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.into()
        }
        _ => url.find(['?', '#']).map_or(url, |i| &url[..i]).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_sessions_are_the_live_ones_with_a_stream_file() {
        let dir = tempfile::tempdir().expect("dir");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
        write("a.stream", "4001");
        write("a.pid", "11");
        write("a.engine", "chrome");
        write("b.stream", "4002");
        write("b.pid", "22");
        write("c.stream", "not a port");
        write("c.pid", "11");
        write("d.stream", "4004");
        // `a` and `c` have a live owner; `b` and `d` do not (and `d` has no pid).
        let _a = Sidecars::new(dir.path(), "a")
            .lock()
            .expect("lock")
            .expect("free");
        let _c = Sidecars::new(dir.path(), "c")
            .lock()
            .expect("lock")
            .expect("free");
        assert_eq!(
            stream_sessions(dir.path()),
            vec![serde_json::json!({"session": "a", "port": 4001, "engine": "chrome"})]
        );
    }

    #[test]
    fn files_are_private_even_under_a_permissive_umask() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Sidecars::new(&dir.path().join("sock"), "s1");
        // A permissive umask must not leak into our modes.
        let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o000));
        files.ensure_dir().expect("dir");
        files.write("pid", "123").expect("write");
        nix::sys::stat::umask(old);
        let dir_mode = std::fs::metadata(files.dir())
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        let file_mode = std::fs::metadata(files.path("pid"))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
        assert_eq!(file_mode, 0o600);
        assert_eq!(
            std::fs::read_to_string(files.path("pid")).expect("read"),
            "123"
        );
    }

    #[test]
    fn the_lock_is_exclusive_and_released_on_drop() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Sidecars::new(dir.path(), "s");
        let held = files.lock().expect("lock").expect("first owner");
        assert!(
            files.lock().expect("lock").is_none(),
            "second owner refused"
        );
        assert!(files.is_owned_by_live_daemon());
        drop(held);
        assert!(!files.is_owned_by_live_daemon());
    }

    #[test]
    fn stale_files_of_dead_daemons_are_cleaned() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Sidecars::new(dir.path(), "dead");
        files.write("pid", "999999999").expect("pid");
        files.write("sock", "").expect("sock");
        files.write("target", "{}").expect("target");
        assert!(scan_sessions(dir.path()).is_empty());
        assert!(!files.path("pid").exists() && !files.path("sock").exists());
        assert!(files.path("target").exists(), ".target survives");
    }

    #[test]
    fn target_urls_lose_secrets() {
        assert_eq!(
            sanitize_url("https://u:p@x.test/a/b?token=1#frag"),
            "https://x.test/a/b"
        );
        assert_eq!(sanitize_url("about:blank"), "about:blank");
        assert_eq!(sanitize_url("http://127.0.0.1:8/"), "http://127.0.0.1:8/");
        assert_eq!(sanitize_url("http://u@[::1]:8/a#b"), "http://[::1]:8/a");
        assert_eq!(sanitize_url("data:text/html,x?y#z"), "data:text/html,x");
        assert_eq!(sanitize_url("file:///tmp/a.html?q"), "file:///tmp/a.html");
    }
}
