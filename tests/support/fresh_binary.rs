//! The `agent-browser` binary a test drives, never older than its sources: one helper for every
//! test package that runs it (abx-tests through `cli::binary`, and the Host kit's tests, which
//! include this file with `#[path]`, as they cannot depend on abx-tests).
//!
//! `env!("CARGO_BIN_EXE_agent-browser")` only exists in the `agent-browser` package's own tests,
//! and `cargo test -p <another package>` does not build other packages' binaries: a test could
//! run an old `agent-browser` against new code, or find none at all. So the first call in a test
//! process checks the binary against the sources cargo built it from (the `.d` file cargo writes
//! beside it, cargo's own freshness rule); when it is missing or stale it runs
//! `cargo build -p agent-browser` for the test's profile and target directory, and fails the test
//! loudly if that does not give a fresh binary. Under `cargo test --workspace` (and
//! `./scripts/test.sh`) cargo has just built it, so it is fresh and costs one stat per source.
//!
//! Only the standard library: this file is compiled into several test crates.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Path of the `agent-browser` binary, built first when it is missing or older than its sources;
/// panics with cargo's output when it cannot be built.
pub(super) fn agent_browser() -> PathBuf {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    match BUILT.get_or_init(build_if_stale) {
        Ok(path) => path.clone(),
        Err(why) => panic!("no fresh agent-browser binary for the tests: {why}"),
    }
}

/// Where the binary of this test's profile lives: `<target>/<profile>/agent-browser`, beside the
/// test executable's `deps/` dir.
fn binary_path() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("test executable path: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .ok_or("the test executable is not in a cargo target dir")?;
    Ok(profile_dir.join("agent-browser"))
}

fn build_if_stale() -> Result<PathBuf, String> {
    let path = binary_path()?;
    if is_fresh(&path) {
        return Ok(path);
    }
    let profile_dir = path.parent().ok_or("the binary path has no dir")?;
    let target_dir = profile_dir
        .parent()
        .ok_or("the test executable is not in a cargo target dir")?;
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".to_string(),
        Some(name) => name.to_string(),
        None => return Err("the test executable's profile dir has no name".into()),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Any member's dir finds the workspace; this is the including package's.
    let out = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "agent-browser",
            "--bin",
            "agent-browser",
        ])
        .arg("--profile")
        .arg(&profile)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build -p agent-browser failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !is_fresh(&path) {
        return Err(format!(
            "{} is still older than its sources after cargo build",
            path.display()
        ));
    }
    Ok(path)
}

/// Whether `binary` exists and is at least as new as every source file its `.d` file (written
/// by cargo next to it) lists.
pub(super) fn is_fresh(binary: &Path) -> bool {
    let Ok(built) = std::fs::metadata(binary).and_then(|m| m.modified()) else {
        return false;
    };
    let Ok(dep_info) = std::fs::read_to_string(binary.with_extension("d")) else {
        return false;
    };
    let sources = dep_info_sources(&dep_info);
    !sources.is_empty()
        && sources.iter().all(|source| {
            std::fs::metadata(source)
                .and_then(|m| m.modified())
                // A source that is gone changed the build too.
                .is_ok_and(|modified| modified <= built)
        })
}

/// The prerequisites of a make-style dep-info file (`target: a.rs b\ c.rs …`).
pub(super) fn dep_info_sources(dep_info: &str) -> Vec<PathBuf> {
    let Some((_, deps)) = dep_info.split_once(": ") else {
        return Vec::new();
    };
    let mut sources = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(|n| *n == ' ') => {
                current.push(' ');
                chars.next();
            }
            '\\' if chars.peek().is_some_and(|n| *n == '\n') => {
                chars.next();
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    sources.push(PathBuf::from(std::mem::take(&mut current)));
                }
                // Anything after a blank line is another rule (cargo writes one rule).
                if c == '\n' && chars.peek().is_some_and(|n| *n == '\n') {
                    break;
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        sources.push(PathBuf::from(current));
    }
    sources
}
