//! A test CA and a one-page HTTPS server on 127.0.0.1 signed by it (certificates made at test
//! time with rcgen), for `--ca-cert`, `read <https url>` and trust tests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A certificate and its key, as a server presents them.
pub type Leaf = (CertificateDer<'static>, PrivateKeyDer<'static>);

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ca").finish_non_exhaustive()
    }
}

/// A CA that signs server certificates.
pub struct Ca {
    /// The CA certificate as PEM (what `--ca-cert` takes).
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    /// A fresh self-signed CA named `name`.
    pub fn new(name: &str) -> Result<Ca, String> {
        let mut params = CertificateParams::new(Vec::new()).map_err(err)?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let key = KeyPair::generate().map_err(err)?;
        let cert = params.self_signed(&key).map_err(err)?;
        Ok(Ca {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        })
    }

    /// A server certificate for `host` (a DNS name or an IP address), valid now or
    /// (`expired`) only during 2020.
    pub fn leaf(&self, host: &str, expired: bool) -> Result<Leaf, String> {
        let mut params = CertificateParams::new(Vec::new()).map_err(err)?;
        params.subject_alt_names = vec![match host.parse::<std::net::IpAddr>() {
            Ok(ip) => SanType::IpAddress(ip),
            Err(_) => SanType::DnsName(host.try_into().map_err(err)?),
        }];
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, host);
        if expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().map_err(err)?;
        let cert = params.signed_by(&key, &self.issuer).map_err(err)?;
        Ok((
            CertificateDer::from(cert.der().to_vec()),
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        ))
    }
}

/// An HTTPS server on 127.0.0.1 answering every request with one body, counting the requests
/// that got past the TLS handshake. Stops when dropped.
pub struct HttpsServer {
    /// The port it listens on.
    pub port: u16,
    requests: Arc<AtomicUsize>,
    _rt: tokio::runtime::Runtime,
}

impl HttpsServer {
    /// Serves `body` as `content_type` with the certificate `leaf`.
    pub fn start(
        leaf: Leaf,
        content_type: &'static str,
        body: &'static str,
    ) -> Result<HttpsServer, String> {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(err)?
        .with_no_client_auth()
        .with_single_cert(vec![leaf.0], leaf.1)
        .map_err(err)?;
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(err)?;
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .map_err(err)?;
        let port = listener.local_addr().map_err(err)?.port();
        let requests = Arc::new(AtomicUsize::new(0));
        let count = requests.clone();
        rt.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, count) = (acceptor.clone(), count.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match tls.read(&mut byte).await {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    count.fetch_add(1, Ordering::SeqCst);
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tls.write_all(reply.as_bytes()).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        Ok(HttpsServer {
            port,
            requests,
            _rt: rt,
        })
    }

    /// How many requests got past the handshake.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl std::fmt::Debug for HttpsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpsServer").finish_non_exhaustive()
    }
}
