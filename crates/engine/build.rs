//! Fetches axe-core, the accessibility engine `a11y` runs in the page, from the npm registry at
//! build time (our repository holds none of its code) and leaves `axe.min.js` in `OUT_DIR`.
//!
//! The tarball is the exact version upstream 0.41.2 ships, checked against the registry's
//! published sha512 before anything in it is used. `ABX_AXE_CORE_TGZ` names a tarball already
//! on disk (an offline build); otherwise `npm pack` fetches it, honouring the user's npm
//! configuration (registry mirror, proxy, cache).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use sha2::{Digest, Sha512};

const AXE_VERSION: &str = "4.12.1";
/// `npm view axe-core@4.12.1 dist.integrity`.
const AXE_INTEGRITY: &str = "sha512-s7iGf5GaVMxEG0ENN9x+xTr7GFZCb1ZP/1uATUpCEK2X78nDB3RwbtFCo9pGAf9ru+VwoQ464DkaLEeRM08wJA==";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ABX_AXE_CORE_TGZ");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let script = out.join("axe.min.js");
    if let Err(reason) = fetch(&out, &script) {
        panic!(
            "abx-engine needs axe-core {AXE_VERSION} from the npm registry for `a11y`: {reason}\n\
             Install node/npm and allow access to the registry, or download \
             axe-core-{AXE_VERSION}.tgz yourself and set ABX_AXE_CORE_TGZ to its path."
        );
    }
    println!("cargo:rustc-env=ABX_AXE_VERSION={AXE_VERSION}");
}

fn fetch(out: &Path, script: &Path) -> Result<(), String> {
    let tarball = match std::env::var_os("ABX_AXE_CORE_TGZ") {
        Some(path) => PathBuf::from(path),
        None => {
            let path = out.join(format!("axe-core-{AXE_VERSION}.tgz"));
            if !path.exists() {
                pack(out)?;
            }
            path
        }
    };
    let bytes =
        std::fs::read(&tarball).map_err(|e| format!("cannot read {}: {e}", tarball.display()))?;
    let digest = base64::engine::general_purpose::STANDARD.encode(Sha512::digest(&bytes));
    if format!("sha512-{digest}") != AXE_INTEGRITY {
        return Err(format!(
            "{} is not axe-core {AXE_VERSION} as published (sha512 mismatch)",
            tarball.display()
        ));
    }
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    let entries = archive.entries().map_err(|e| format!("bad tarball: {e}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("bad tarball: {e}"))?;
        let is_script = entry
            .path()
            .is_ok_and(|p| p == Path::new("package/axe.min.js"));
        if is_script {
            let mut source = String::new();
            entry
                .read_to_string(&mut source)
                .map_err(|e| format!("bad axe.min.js: {e}"))?;
            return std::fs::write(script, source)
                .map_err(|e| format!("cannot write {}: {e}", script.display()));
        }
    }
    Err("the tarball has no package/axe.min.js".into())
}

fn pack(out: &Path) -> Result<(), String> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let status = Command::new(npm)
        .args([
            "pack",
            &format!("axe-core@{AXE_VERSION}"),
            "--silent",
            "--pack-destination",
        ])
        .arg(out)
        .current_dir(out)
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run npm: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`npm pack axe-core@{AXE_VERSION}` failed ({status})"
        ));
    }
    Ok(())
}
