//! The orphan guard: takes Chrome (and its Xvfb and temp profile) down when the owning process
//! dies, even by SIGKILL.
//!
//! Why a watchdog process and not `PR_SET_PDEATHSIG`: the death signal fires when the *thread*
//! that spawned the child exits, and tokio retires idle blocking threads, which killed Chrome
//! about 10 s after launch in upstream (contract §8 row 13, issue #1157); it also covers only the
//! direct child, not Chrome's helpers or Xvfb, and cannot remove the profile.
//!
//! The guard is a tiny `/bin/sh` in its own process group reading a pipe whose write end only
//! the owner holds. When the owner exits for any reason the kernel closes the pipe, `read`
//! returns, and the guard kills Chrome's process group and Xvfb and removes the listed paths.
//! A graceful close writes `disarm` first, so the guard exits without touching anything (the
//! process group id may be reused by then).

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, Command};

const SCRIPT: &str = r#"
read line
if [ "$line" = disarm ]; then exit 0; fi
pgid="$1"; xvfb="$2"; shift 2
# 0 and 1 would be our own group and init's (a pid that could not be read): never signal those.
[ "$pgid" -gt 1 ] 2>/dev/null && kill -KILL -"$pgid" 2>/dev/null
[ "$xvfb" != 0 ] && kill -KILL "$xvfb" 2>/dev/null
# SIGKILL is final once kill returns: the processes never run user code again, so the profile can
# go now (waiting for the group to vanish would wait on zombies that init has not reaped yet). A
# file system call already under way in a dying process still completes and can create a file
# behind rm (then "Directory not empty"): remove again until nothing is left (up to ~2 s).
tries=0
while :; do
  left=0
  for p in "$@"; do
    rm -rf -- "$p" 2>/dev/null
    if [ -e "$p" ] || [ -L "$p" ]; then left=1; fi
  done
  [ "$left" = 0 ] && break
  tries=$((tries + 1))
  [ "$tries" -ge 40 ] && break
  sleep 0.05
done
"#;

/// A running orphan guard. Dropping it without [`OrphanGuard::disarm`] fires it.
#[derive(Debug)]
pub struct OrphanGuard {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl OrphanGuard {
    /// Starts a guard for Chrome's process group `pgid`, an optional Xvfb pid, and the paths
    /// to remove after the kill (temp profile, Xauthority file).
    pub fn spawn(pgid: i32, xvfb_pid: Option<u32>, remove: &[PathBuf]) -> std::io::Result<Self> {
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(SCRIPT)
            .arg("abx-orphan-guard")
            .arg(pgid.to_string())
            .arg(xvfb_pid.unwrap_or(0).to_string())
            .args(remove)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Own group: a signal to the owner's group must not take the guard with it.
            .process_group(0)
            .kill_on_drop(false);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        Ok(Self { child, stdin })
    }

    /// The guard's pid.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Stops the guard without firing it, and reaps it.
    pub async fn disarm(mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"disarm\n").await;
            let _ = stdin.flush().await;
        }
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), self.child.wait()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a guard for pgid 0 (a Chrome whose pid could not be read) ran
    /// `kill -KILL -0`, which signals the guard's own process group: it killed itself and left
    /// the temp profile behind. It must skip the kill and still clean up.
    #[tokio::test]
    async fn a_guard_for_pgid_0_signals_nobody_and_still_removes_its_paths() {
        let dir = tempfile::tempdir().expect("temp dir");
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile).expect("profile dir");
        let mut guard = OrphanGuard::spawn(0, None, std::slice::from_ref(&profile)).expect("spawn");
        // Closing the pipe is what the owner's death does.
        drop(guard.stdin.take());
        let status = tokio::time::timeout(std::time::Duration::from_secs(5), guard.child.wait())
            .await
            .expect("the guard finished")
            .expect("wait");
        assert!(status.success(), "the guard was killed: {status:?}");
        assert!(!profile.exists(), "the guard left {}", profile.display());
    }
}
