//! Extra CA certificates for one Chrome (`--ca-cert`, e.g. an HTTPS-intercepting proxy's CA).
//!
//! Chrome on Linux trusts, beyond its root store, the certificates in the NSS database at
//! `$HOME/.pki/nssdb`. To trust a CA for one browser only, without touching the user's own
//! database, the launcher makes a private home inside the profile directory, creates an NSS
//! database there with NSS's `certutil` (Debian package `libnss3-tools`), adds every
//! certificate of the PEM file as a trusted CA, and starts Chrome with `HOME` pointing at it.
//! A throw-away profile takes the database with it when it is removed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::LaunchError;

/// The private home's directory name inside the profile.
const HOME_DIR: &str = "abx-ca-home";

/// Makes the private home with `certs` trusted and returns it (Chrome's `HOME`).
pub(crate) fn private_home(profile: &Path, certs: &[PathBuf]) -> Result<PathBuf, LaunchError> {
    let home = profile.join(HOME_DIR);
    let db = home.join(".pki/nssdb");
    let fail = |reason: String| LaunchError::CaCert { reason };
    // A persistent profile may hold the database of an earlier run: start again from nothing.
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&db)
        .map_err(|e| fail(format!("cannot create {}: {e}", db.display())))?;
    let db_arg = format!("sql:{}", db.display());
    certutil(&["-N", "-d", &db_arg, "--empty-password"])?;
    for (file_index, cert) in certs.iter().enumerate() {
        let pem = std::fs::read_to_string(cert).map_err(|e| {
            fail(format!(
                "cannot read CA certificate {}: {e}",
                cert.display()
            ))
        })?;
        let blocks = pem_certificates(&pem);
        if blocks.is_empty() {
            return Err(fail(format!(
                "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                cert.display()
            )));
        }
        // certutil imports one certificate per call: a bundle goes in one block at a time.
        for (index, block) in blocks.iter().enumerate() {
            let one = home.join(format!("ca-{file_index}-{index}.pem"));
            std::fs::write(&one, block)
                .map_err(|e| fail(format!("cannot write {}: {e}", one.display())))?;
            let nickname = format!("abx-ca-{file_index}-{index}");
            let one_arg = one.display().to_string();
            certutil(&[
                "-A", "-d", &db_arg, "-n", &nickname, "-t", "C,,", "-i", &one_arg,
            ])?;
        }
    }
    Ok(home)
}

fn certutil(args: &[&str]) -> Result<(), LaunchError> {
    let out = Command::new("certutil")
        .args(args)
        .output()
        .map_err(|e| LaunchError::CaCert {
            reason: format!(
                "could not run certutil ({e}); install NSS's tools (apt-get install libnss3-tools)"
            ),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(LaunchError::CaCert {
            reason: format!(
                "certutil exited with {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        })
    }
}

/// Every `CERTIFICATE` block of a PEM text, each with its markers.
fn pem_certificates(pem: &str) -> Vec<String> {
    const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
    const END: &str = "-----END CERTIFICATE-----";
    let mut out = Vec::new();
    let mut rest = pem;
    while let Some(start) = rest.find(BEGIN) {
        let Some(len) = rest[start..].find(END) else {
            break;
        };
        let end = start + len + END.len();
        out.push(format!("{}\n", &rest[start..end]));
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_splits_into_its_certificates() {
        let pem = "junk\n-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n\
                   -----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----\n";
        let blocks = pem_certificates(pem);
        assert_eq!(blocks.len(), 2);
        assert!(blocks[1].contains("BBB"));
        assert!(pem_certificates("no pem").is_empty());
    }
}
