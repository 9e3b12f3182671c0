//! Runs the `agent-browser` binary in isolation: its own socket dir and HOME per test.

use std::path::PathBuf;

/// Path of the built `agent-browser` binary (next to the test executable's `deps/` dir).
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    dir.join("agent-browser")
}
