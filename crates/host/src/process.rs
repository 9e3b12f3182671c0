//! Looking at (never signalling) processes: pid files, liveness and start times from `/proc`.

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

/// When process `pid` started, in clock ticks after boot (field 22 of `/proc/<pid>/stat`);
/// `None` when there is no such process.
pub(crate) fn start_time(pid: i32) -> Option<u64> {
    if pid <= 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    // Fields after the name start at 3 (state); the start time is field 22.
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}
