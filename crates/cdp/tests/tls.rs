//! `https://` discovery and `wss://` connections against an in-process TLS endpoint with a
//! self-signed certificate: trusted when passed as an extra root, refused otherwise.

use std::sync::Arc;
use std::time::Duration;

use abx_cdp::{ConnectOptions, Connection};
use futures_util::{SinkExt, StreamExt};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// A TLS DevTools endpoint: `https://localhost:<http>/json/version` points at
/// `wss://localhost:<ws>/devtools/browser/fake`, which answers every call with a product name.
async fn tls_endpoint() -> (u16, Vec<u8>) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
        .expect("self-signed certificate");
    let cert = certified.cert.der().to_vec();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(vec![CertificateDer::from(cert.clone())], key)
    .expect("server certificate");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));

    let ws_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind ws");
    let ws_port = ws_listener.local_addr().expect("addr").port();
    let ws_acceptor = acceptor.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = ws_listener.accept().await {
            let acceptor = ws_acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut ws) = tokio_tungstenite::accept_async(tls).await else {
                    return;
                };
                while let Some(Ok(Message::Text(text))) = ws.next().await {
                    let call: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                    let reply = serde_json::json!({"id": call["id"], "result": {"product": "FakeChrome/1"}});
                    if ws.send(Message::text(reply.to_string())).await.is_err() {
                        return;
                    }
                }
            });
        }
    });

    let http_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind http");
    let http_port = http_listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = http_listener.accept().await {
            let acceptor = acceptor.clone();
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
                let body = format!(
                    r#"{{"Browser":"FakeChrome/1","webSocketDebuggerUrl":"wss://localhost:{ws_port}/devtools/browser/fake"}}"#
                );
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(reply.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (http_port, cert)
}

#[tokio::test]
async fn https_discovery_and_wss_work_with_a_trusted_root() {
    let (port, cert) = tls_endpoint().await;
    let options = ConnectOptions {
        extra_root_certs: vec![cert],
        connect_timeout: Duration::from_secs(5),
        ..ConnectOptions::default()
    };
    let conn = Connection::connect_with(&format!("https://localhost:{port}"), options)
        .await
        .expect("connect over https discovery and wss");
    assert!(conn.url().starts_with("wss://localhost:"), "{}", conn.url());
    let version = conn
        .browser()
        .call_json("Browser.getVersion", serde_json::json!({}))
        .await
        .expect("a call over wss");
    assert_eq!(version["product"], "FakeChrome/1");
    conn.close();
}

#[tokio::test]
async fn an_untrusted_certificate_is_refused() {
    let (port, _cert) = tls_endpoint().await;
    let options = ConnectOptions {
        connect_timeout: Duration::from_secs(5),
        ..ConnectOptions::default()
    };
    let err = Connection::connect_with(&format!("https://localhost:{port}"), options)
        .await
        .expect_err("a self-signed certificate must not be trusted by default");
    assert!(
        err.to_string().to_ascii_lowercase().contains("certificate"),
        "{err}"
    );
}
