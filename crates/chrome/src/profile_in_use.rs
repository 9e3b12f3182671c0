//! Whether a persistent profile (user-data-dir) is already in use by a running Chrome, so a
//! second launch on it fails at once with the holder's pid instead of Chrome aborting after a
//! while (full Chrome's `ProcessSingleton`) or, worse, two headless shells — which take no
//! `SingletonLock` — writing one profile at the same time.
//!
//! Two signs, either is enough: Chrome's `SingletonLock` symlink (`<host>-<pid>`) naming a live
//! process on this host, and a running browser process (no `--type=`) whose command line has
//! `--user-data-dir=<the profile>`.

use std::path::{Path, PathBuf};

/// Who holds a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileUser {
    /// The browser process, when known.
    pub pid: Option<i32>,
    /// The agent-browser session whose daemon launched it, when it is one.
    pub session: Option<String>,
    /// Another host, from a `SingletonLock` written elsewhere (a shared home directory).
    pub host: Option<String>,
}

impl std::fmt::Display for ProfileUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("it is in use by another Chrome")?;
        match (&self.host, self.pid, &self.session) {
            (Some(host), Some(pid), _) => write!(f, " (pid {pid} on host {host})"),
            (None, Some(pid), Some(session)) => write!(f, " (pid {pid}, session \"{session}\")"),
            (None, Some(pid), None) => write!(f, " (pid {pid})"),
            _ => Ok(()),
        }
    }
}

/// The process using `profile`, or `None` when no running Chrome has it.
pub fn profile_user(profile: &Path) -> Option<ProfileUser> {
    let wanted = canonical(profile);
    from_singleton_lock(profile)
        .or_else(|| from_processes(&wanted))
        .map(|mut user| {
            if user.host.is_none() {
                user.session = user.pid.and_then(session_of_parent);
            }
            user
        })
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn from_singleton_lock(profile: &Path) -> Option<ProfileUser> {
    let target = std::fs::read_link(profile.join("SingletonLock")).ok()?;
    let target = target.to_string_lossy();
    let (host, pid) = target.rsplit_once('-')?;
    let pid: i32 = pid.parse().ok()?;
    let ours = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    if host != ours {
        return Some(ProfileUser {
            pid: Some(pid),
            session: None,
            host: Some(host.to_string()),
        });
    }
    // A lock left by a Chrome that died is stale: Chrome itself takes it over.
    alive(pid).then_some(ProfileUser {
        pid: Some(pid),
        session: None,
        host: None,
    })
}

fn from_processes(profile: &Path) -> Option<ProfileUser> {
    let me = std::process::id() as i32;
    let flag = format!("--user-data-dir={}", profile.display());
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut pids: Vec<i32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|pid| *pid != me)
        .collect();
    pids.sort_unstable();
    pids.into_iter().find_map(|pid| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let mut args = cmdline.split(|b| *b == 0).map(String::from_utf8_lossy);
        let mut has_profile = false;
        for arg in args.by_ref() {
            if arg.starts_with("--type=") {
                return None;
            }
            if let Some(dir) = arg.strip_prefix("--user-data-dir=")
                && (arg == flag || canonical(Path::new(dir)) == profile)
            {
                has_profile = true;
            }
        }
        (has_profile && alive(pid)).then_some(ProfileUser {
            pid: Some(pid),
            session: None,
            host: None,
        })
    })
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rfind(')')
                .map(|i| stat[i + 1..].trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// The agent-browser session of the daemon that launched `pid`, from its environment.
fn session_of_parent(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ppid: i32 = stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let environ = std::fs::read(format!("/proc/{ppid}/environ")).ok()?;
    let vars: Vec<String> = environ
        .split(|b| *b == 0)
        .map(|v| String::from_utf8_lossy(v).to_string())
        .collect();
    if !vars.iter().any(|v| v.starts_with("AGENT_BROWSER_DAEMON=")) {
        return None;
    }
    vars.iter()
        .find_map(|v| v.strip_prefix("AGENT_BROWSER_SESSION="))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_nothing_runs_on_is_free_and_a_stale_lock_does_not_count() {
        let dir = tempfile::tempdir().expect("dir");
        assert_eq!(profile_user(dir.path()), None);
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        // A pid that no longer exists.
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let dead = child.id();
        child.wait().expect("wait");
        std::os::unix::fs::symlink(
            format!("{}-{dead}", host.trim()),
            dir.path().join("SingletonLock"),
        )
        .expect("symlink");
        assert_eq!(profile_user(dir.path()), None);
    }

    #[test]
    fn a_live_singleton_lock_names_its_pid() {
        let dir = tempfile::tempdir().expect("dir");
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        std::os::unix::fs::symlink(
            format!("{}-{}", host.trim(), child.id()),
            dir.path().join("SingletonLock"),
        )
        .expect("symlink");
        let user = profile_user(dir.path());
        let _ = child.kill();
        let _ = child.wait();
        let user = user.expect("in use");
        assert_eq!(user.pid, Some(child.id() as i32));
        assert!(user.to_string().contains(&format!("pid {}", child.id())));
    }
}
