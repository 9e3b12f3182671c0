//! Which abx binary a bench measures: one lookup for every bench that runs the CLI.

use std::path::{Path, PathBuf};

/// `ABX_BENCH_OURS_BIN` (or its older name `ABX_BENCH_BINARY`) when set; else the release binary
/// beside the bench (benches build in release), else this checkout's debug build.
pub(crate) fn abx_binary() -> PathBuf {
    for var in ["ABX_BENCH_OURS_BIN", "ABX_BENCH_BINARY"] {
        if let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            return PathBuf::from(path);
        }
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().and_then(Path::parent).map(Path::to_path_buf))
        .map(|target| target.join("agent-browser"));
    match beside {
        Some(release) if release.is_file() => release,
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/debug/agent-browser"),
    }
}
