//! Embeds the repository's `skills/` directory (abx's agent guides) in the binary: writes
//! `$OUT_DIR/skills.rs`, a table of `(path relative to skills/, include_str!(file))`, so
//! `agent-browser skills` needs no file at run time and always matches the binary.
//!
//! Declares the command modules: for each area directory `src/commands/<area>/` (one with a
//! `mod.rs`) it writes `$OUT_DIR/commands_<area>.rs`, a `pub mod <name>;` for each other `.rs`
//! file there, which the area's `mod.rs` includes, so a new command is its file plus its row in
//! `registry::TABLE`. And `$OUT_DIR/command_modules.rs`, the files that declare `pub const
//! COMMAND` with that constant, for the registry's test that every one has exactly one row.
//!
//! Also links the `agent-browser` executable position-dependent (non-PIE) on Linux/glibc: every
//! command is a fresh process, and as a PIE the dynamic loader first applies ~35,000 relative
//! relocations to a fresh copy of ~700 KB of `.data.rel.ro` (≈ 180 copy-on-write page faults,
//! half of the CLI's CPU time per command). At a fixed address there is nothing to relocate.
//! Figures and the trade-off (no ASLR for the executable's own image; `ABX_LINK_PIE=1` keeps
//! PIE) in `docs/adr/0010-non-pie-executable.md`.
//!
//! And it links libgcc's unwinder (`libgcc_eh.a`) into that executable instead of loading
//! `libgcc_s.so.1` at every start: that library's constructor probes the CPU with `cpuid`, which
//! traps to the hypervisor on a VM, and it is one more library to map and bind (~0.2 ms of a
//! ~2.5 ms command here; ADR 0012). `ABX_LINK_SHARED_LIBGCC=1` keeps the shared library.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    link_position_dependent();
    link_unwinder_statically();
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    command_modules(&manifest);
    let root = manifest.join("..").join("skills");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut out = String::from("/// Every file under `skills/`: its path there and its text.\n");
    out.push_str("pub(crate) static FILES: &[(&str, &str)] = &[\n");
    for (rel, abs) in &files {
        let _ = writeln!(out, "    ({rel:?}, include_str!({abs:?})),");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("skills.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// `$OUT_DIR/commands_<area>.rs` for each area and `$OUT_DIR/command_modules.rs`.
fn command_modules(manifest: &Path) {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let commands = manifest.join("src").join("commands");
    // A new area is also a `pub mod <area>;` in commands.rs: this script then runs again and
    // finds its directory.
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("src").join("commands.rs").display()
    );
    let mut areas: Vec<(String, PathBuf)> = std::fs::read_dir(&commands)
        .expect("src/commands is readable")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("mod.rs").is_file())
        .map(|path| {
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().to_string());
            (name.unwrap_or_default(), path)
        })
        .collect();
    areas.sort();
    let mut commands_list = String::from(
        "// Written by cli/build.rs: every command module (a file of an area that declares\n\
         // `pub const COMMAND`) and its command.\n\
         pub(crate) const MODULE_COMMANDS: &[(&str, &crate::commands::spec::Command)] = &[\n",
    );
    for (area, dir) in &areas {
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut modules: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
            .expect("an area directory is readable")
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.is_file()
                    && path.extension().is_some_and(|ext| ext == "rs")
                    && path.file_name().is_some_and(|name| name != "mod.rs")
            })
            .map(|path| {
                let stem = path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().to_string())
                    .unwrap_or_default();
                (stem, path)
            })
            .collect();
        modules.sort();
        let mut out =
            format!("// Written by cli/build.rs: one module per file of src/commands/{area}/.\n");
        for (name, path) in &modules {
            assert!(
                is_module_name(name),
                "{}: the file name is no Rust module name",
                path.display()
            );
            let _ = writeln!(
                out,
                "#[path = {:?}]\npub mod {name};",
                path.display().to_string()
            );
            let text = std::fs::read_to_string(path).expect("a command module is readable");
            if text
                .lines()
                .any(|line| line.starts_with("pub const COMMAND:"))
            {
                let _ = writeln!(
                    commands_list,
                    "    ({:?}, &crate::commands::{area}::{name}::COMMAND),",
                    format!("{area}/{name}.rs")
                );
            }
        }
        std::fs::write(out_dir.join(format!("commands_{area}.rs")), out)
            .expect("OUT_DIR is writable");
    }
    commands_list.push_str("];\n");
    std::fs::write(out_dir.join("command_modules.rs"), commands_list).expect("OUT_DIR is writable");
}

/// Letters, digits and `_`, not starting with a digit (keywords aside).
fn is_module_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
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

fn link_unwinder_statically() {
    println!("cargo:rerun-if-env-changed=ABX_LINK_SHARED_LIBGCC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    // A `crt-static` build already links `libgcc_eh.a` (scripts/build-static.sh).
    let crt_static = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|features| features.split(',').any(|f| f == "crt-static"));
    let keep_shared = std::env::var("ABX_LINK_SHARED_LIBGCC").is_ok_and(|v| v == "1");
    if os != "linux" || env != "gnu" || crt_static || keep_shared {
        return;
    }
    // Only where the C compiler that links us ships the archive (gcc does; a bare clang may not).
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let found = std::process::Command::new(&linker)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .filter(|path| path.is_absolute() && path.is_file());
    if found.is_none() {
        return;
    }
    // Whole archive: std's `_Unwind_*` references are otherwise already bound to libgcc_s, and
    // with `--as-needed` (rustc's default) the shared library is then dropped as unneeded.
    for arg in [
        "-Wl,--push-state,--whole-archive,-Bstatic",
        "-lgcc_eh",
        "-Wl,--pop-state",
    ] {
        println!("cargo:rustc-link-arg-bin=agent-browser={arg}");
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
