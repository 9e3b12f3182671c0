//! Looking at (never signalling) session daemons: pid files, liveness from `/proc`.

use std::path::Path;

/// Whether `pid` is a live process (a zombie counts as gone).
pub(crate) fn pid_alive(pid: i32) -> bool {
    if pid <= 1 {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    stat.rfind(')')
        .map(|i| stat[i + 1..].trim_start().to_string())
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// The pid in a daemon's `.pid` file.
pub(crate) fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}
