//! TLS for `wss://` and `https://` CDP endpoints (a remote or proxied browser): rustls with the
//! ring provider and Mozilla's root certificates (`webpki-roots`), plus any extra roots the caller
//! trusts (a private CA, a test certificate). Nothing global is installed: each connection gets its
//! own client configuration.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, ServerName};

/// A client configuration trusting Mozilla's roots and `extra_roots` (DER certificates).
pub(crate) fn client_config(extra_roots: &[Vec<u8>]) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for der in extra_roots {
        roots
            .add(CertificateDer::from(der.clone()))
            .map_err(|e| format!("an extra root certificate is not usable: {e}"))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Wraps a connected TCP stream in TLS for `host`.
pub(crate) async fn wrap(
    stream: tokio::net::TcpStream,
    host: &str,
    extra_roots: &[Vec<u8>],
) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
    let config = client_config(extra_roots).map_err(std::io::Error::other)?;
    let name = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let server_name = ServerName::try_from(name)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    tokio_rustls::TlsConnector::from(config)
        .connect(server_name, stream)
        .await
}
