//! The roots an HTTP read trusts: the bundled Mozilla roots, plus the platform's store
//! (`native`), plus the certificates of one CA file. Every build reads its files again, so a
//! rotated file (rewritten, or a symlink pointed elsewhere) is used by the next read.
//!
//! Only *which* roots are trusted changes: rustls still checks the chain, the host name and the
//! validity period of every certificate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// Why the trust could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// The CA file could not be read.
    #[error("Failed to read CA certificate '{path}': {source}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The CA file holds no certificate a root store accepts.
    #[error("'{path}' holds no PEM certificate and is not a DER certificate: {reason}")]
    NoCertificate {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// The platform's store could not be read at all.
    #[error("Failed to load the system CA certificates: {0}")]
    Native(String),
}

/// Which roots to trust.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trust {
    /// A PEM bundle (or one DER certificate) whose certificates are trusted as roots.
    pub ca_file: Option<PathBuf>,
    /// Also the platform's store (`SSL_CERT_FILE`, `SSL_CERT_DIR` or the system bundle).
    pub native: bool,
}

impl Trust {
    /// A rustls client configuration with these roots, read from disk now.
    pub fn client_config(&self) -> Result<Arc<rustls::ClientConfig>, TrustError> {
        let mut roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if self.native {
            let found = rustls_native_certs::load_native_certs();
            if found.certs.is_empty()
                && let Some(first) = found.errors.first()
            {
                return Err(TrustError::Native(first.to_string()));
            }
            // Unparsable entries of a system bundle are skipped, as every TLS stack does.
            let _ = roots.add_parsable_certificates(found.certs);
        }
        if let Some(path) = &self.ca_file {
            for cert in ca_certificates(path)? {
                roots.add(cert).map_err(|e| TrustError::NoCertificate {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TrustError::Native(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Arc::new(config))
    }
}

/// The certificates of a CA file: every PEM `CERTIFICATE` in it, or the file as one DER
/// certificate. A file with neither is refused (a typo must not silently trust nothing).
pub fn ca_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TrustError> {
    let bytes = std::fs::read(path).map_err(|source| TrustError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let pem: Vec<_> = CertificateDer::pem_slice_iter(&bytes)
        .filter_map(Result::ok)
        .collect();
    if !pem.is_empty() {
        return Ok(pem);
    }
    let der = CertificateDer::from(bytes);
    // The same check a root store makes: the DER must be a certificate with a usable key.
    let mut probe = RootCertStore::empty();
    match probe.add(der.clone()) {
        Ok(()) => Ok(vec![der]),
        Err(e) => Err(TrustError::NoCertificate {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_certificates_is_refused_with_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("invalid.pem");
        std::fs::write(&path, "invalid certificate").expect("write");
        let err = ca_certificates(&path).expect_err("not a certificate");
        assert!(err.to_string().contains("invalid.pem"), "{err}");
        let missing = ca_certificates(&dir.path().join("gone.pem")).expect_err("missing");
        assert!(
            matches!(missing, TrustError::Unreadable { .. }),
            "{missing}"
        );
    }
}
