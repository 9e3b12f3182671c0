//! Embeds the repository's `skills/` directory (abx's agent guides) in the binary: writes
//! `$OUT_DIR/skills.rs`, a table of `(path relative to skills/, include_str!(file))`, so
//! `agent-browser skills` needs no file at run time and always matches the binary.
//!
//! Also links the `agent-browser` executable position-dependent (non-PIE) on Linux/glibc: every
//! command is a fresh process, and as a PIE the dynamic loader first applies ~35,000 relative
//! relocations to a fresh copy of ~700 KB of `.data.rel.ro` (≈ 180 copy-on-write page faults,
//! half of the CLI's CPU time per command). At a fixed address there is nothing to relocate.
//! Figures and the trade-off (no ASLR for the executable's own image; `ABX_LINK_PIE=1` keeps
//! PIE) in `docs/adr/0010-non-pie-executable.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    link_position_dependent();
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("..").join("skills");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut out = String::from("/// Every file under `skills/`: its path there and its text.\n");
    out.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for (rel, abs) in &files {
        let _ = writeln!(out, "    ({rel:?}, include_str!({abs:?})),");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("skills.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn link_position_dependent() {
    println!("cargo:rerun-if-env-changed=ABX_LINK_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let keep_pie = std::env::var("ABX_LINK_PIE").is_ok_and(|v| v == "1");
    if os == "linux" && env == "gnu" && !keep_pie {
        println!("cargo:rustc-link-arg-bin=agent-browser=-no-pie");
    }
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if let Ok(rel) = path.strip_prefix(root) {
            // The README describes the layout for people; it is no guide.
            if rel == Path::new("README.md") {
                continue;
            }
            let rel = rel.to_string_lossy().replace('\\', "/");
            files.push((rel, path.display().to_string()));
        }
    }
}
