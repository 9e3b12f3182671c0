//! Resolving `http(s)://host:port[?query]` to the browser's WebSocket URL through `/json/version`.
//!
//! The request goes through hyper's HTTP/1.1 client connection (over a `TcpStream`, wrapped in
//! TLS for `https://` with the `tls` feature), so any well-formed response is read: a
//! `Content-Length` body, a chunked one (a browser service in front of Chrome answers chunked), or
//! one that ends with the connection. The endpoint's query string (a service's `?token=…`) is kept
//! on the discovery request and carried over to the WebSocket URL when the answer has none.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::Error;

/// The largest discovery body we read (Chrome's is well under 1 KiB).
const MAX_BODY: usize = 1024 * 1024;

#[derive(Deserialize)]
struct Version {
    #[serde(rename = "webSocketDebuggerUrl")]
    web_socket_debugger_url: Option<String>,
}

/// The parts of an `http(s)://` or `ws(s)://` URL that discovery and the handshake need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UrlParts {
    /// `http`, `https`, `ws` or `wss`.
    pub(crate) scheme: String,
    /// Host as written (IPv6 in brackets).
    pub(crate) host: String,
    /// Explicit or default port.
    pub(crate) port: u16,
    /// Whether the port was written in the URL.
    pub(crate) explicit_port: bool,
    /// Path, `/` when the URL has none.
    pub(crate) path: String,
    /// Query without the `?`, if any.
    pub(crate) query: Option<String>,
}

impl UrlParts {
    /// Reads `scheme://authority[/path][?query][#fragment]` with the `url` crate; `None` for
    /// other schemes, a bad port or no host. Credentials in the authority are not ours to send
    /// as a host, and the fragment never leaves.
    pub(crate) fn parse(raw: &str) -> Option<UrlParts> {
        let url = url::Url::parse(raw.trim()).ok()?;
        let scheme = url.scheme().to_string();
        if !matches!(scheme.as_str(), "http" | "https" | "ws" | "wss") {
            return None;
        }
        let host = match url.host()? {
            url::Host::Ipv6(address) => format!("[{address}]"),
            url::Host::Ipv4(address) => address.to_string(),
            url::Host::Domain(domain) => domain.to_string(),
        };
        Some(UrlParts {
            scheme,
            host,
            port: url.port_or_known_default()?,
            // `url` leaves out a port that is the scheme's default: the same server.
            explicit_port: url.port().is_some(),
            // `url` gives these schemes a `/` path when the URL has none.
            path: url.path().to_string(),
            query: url.query().map(str::to_string),
        })
    }

    fn tls(&self) -> bool {
        matches!(self.scheme.as_str(), "https" | "wss")
    }

    /// `host[:port]` as the `Host` header carries it.
    fn authority(&self) -> String {
        if self.explicit_port {
            format!("{}:{}", self.host, self.port)
        } else {
            self.host.clone()
        }
    }

    /// The URL written back, with a `/` path when it had none (`ws://h:p?token=x` becomes
    /// `ws://h:p/?token=x`: a request line is never `GET ?token=x`).
    pub(crate) fn to_url(&self) -> String {
        let mut url = format!("{}://{}{}", self.scheme, self.authority(), self.path);
        if let Some(query) = &self.query {
            url.push('?');
            url.push_str(query);
        }
        url
    }
}

/// Adds the `/` path a `ws(s)://host:port?query` URL lacks; other URLs are returned as they are.
pub(crate) fn normalize_ws_url(url: &str) -> String {
    match UrlParts::parse(url) {
        Some(parts) if !url_has_path(url) => parts.to_url(),
        _ => url.to_string(),
    }
}

fn url_has_path(url: &str) -> bool {
    url.split_once("://").is_none_or(|(_, rest)| {
        let end = rest.find(['?', '#']).unwrap_or(rest.len());
        rest[..end].contains('/')
    })
}

/// Fetches `GET <path>` (path and query) from `host:port` over plain HTTP and returns the status
/// and the body as text.
pub async fn http_get(
    host: &str,
    port: u16,
    path: &str,
    headers: &[(String, String)],
) -> std::io::Result<(u16, String)> {
    let connect_host = host.trim_start_matches('[').trim_end_matches(']');
    let stream = TcpStream::connect((connect_host, port)).await?;
    let (status, body) = exchange(stream, &format!("{host}:{port}"), path, headers).await?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// One request on a fresh connection: hyper's HTTP/1.1 client does the framing.
async fn exchange<S>(
    stream: S,
    authority: &str,
    path: &str,
    headers: &[(String, String)],
) -> std::io::Result<(u16, Bytes)>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    let driver = tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!(%err, "discovery connection ended");
        }
    });
    let mut request = hyper::Request::get(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::CONNECTION, "close");
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let request = request
        .body(Empty::<Bytes>::new())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let result = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(std::io::Error::other)?;
        let status = response.status().as_u16();
        let body = Limited::new(response.into_body(), MAX_BODY)
            .collect()
            .await
            .map_err(std::io::Error::other)?
            .to_bytes();
        Ok((status, body))
    }
    .await;
    driver.abort();
    result
}

/// `GET path` over TLS (`https://`), trusting Mozilla's roots and `extra_roots` (DER).
#[cfg(feature = "tls")]
async fn https_get(
    host: &str,
    port: u16,
    authority: &str,
    path: &str,
    headers: &[(String, String)],
    extra_roots: &[Vec<u8>],
) -> std::io::Result<(u16, Bytes)> {
    let connect_host = host.trim_start_matches('[').trim_end_matches(']');
    let stream = TcpStream::connect((connect_host, port)).await?;
    let stream = crate::tls::wrap(stream, host, extra_roots).await?;
    exchange(stream, authority, path, headers).await
}

/// Resolves an `http(s)://host:port[?query]` DevTools address to its browser WebSocket URL.
pub async fn browser_ws_url(url: &str, headers: &[(String, String)]) -> Result<String, Error> {
    browser_ws_url_with(url, headers, &[]).await
}

/// [`browser_ws_url`] trusting extra root certificates (DER) for `https://`.
pub(crate) async fn browser_ws_url_with(
    url: &str,
    headers: &[(String, String)],
    extra_roots: &[Vec<u8>],
) -> Result<String, Error> {
    let fail = |reason: String| Error::Connect {
        url: url.to_string(),
        reason,
    };
    let parts = UrlParts::parse(url)
        .filter(|p| matches!(p.scheme.as_str(), "http" | "https"))
        .ok_or_else(|| fail("cannot parse host and port".into()))?;
    let path = match &parts.query {
        Some(query) => format!("/json/version?{query}"),
        None => "/json/version".to_string(),
    };
    let authority = parts.authority();
    let fetched = if parts.tls() {
        #[cfg(feature = "tls")]
        {
            https_get(
                &parts.host,
                parts.port,
                &authority,
                &path,
                headers,
                extra_roots,
            )
            .await
        }
        #[cfg(not(feature = "tls"))]
        {
            let _ = (extra_roots, &authority);
            return Err(fail(
                "https:// discovery needs abx-cdp's `tls` feature".into(),
            ));
        }
    } else {
        let connect_host = parts.host.trim_start_matches('[').trim_end_matches(']');
        match TcpStream::connect((connect_host, parts.port)).await {
            Ok(stream) => exchange(stream, &authority, &path, headers).await,
            Err(err) => Err(err),
        }
    };
    let (status, body) = fetched.map_err(|e| fail(format!("GET /json/version failed: {e}")))?;
    if status != 200 {
        return Err(fail(format!("GET /json/version answered HTTP {status}")));
    }
    let version: Version = serde_json::from_slice(&body)
        .map_err(|e| fail(format!("/json/version is not the expected JSON: {e}")))?;
    let ws = version
        .web_socket_debugger_url
        .ok_or_else(|| fail("/json/version has no webSocketDebuggerUrl".into()))?;
    let ws = rewrite_loopback(&ws, &parts.host, parts.port);
    Ok(carry_query(&ws, parts.query.as_deref()))
}

/// A service that wants `?token=` on discovery wants it on the WebSocket too; its answer may not
/// repeat it.
fn carry_query(ws: &str, query: Option<&str>) -> String {
    match (UrlParts::parse(ws), query) {
        (Some(mut parts), Some(query)) if parts.query.is_none() => {
            parts.query = Some(query.to_string());
            parts.to_url()
        }
        _ => ws.to_string(),
    }
}

/// Chrome reports its own view of the address (127.0.0.1 or localhost); when we reached it
/// under another host name (a forwarded port, a container IP), keep the address we used.
fn rewrite_loopback(ws: &str, host: &str, port: u16) -> String {
    let (scheme, rest) = match (ws.strip_prefix("ws://"), ws.strip_prefix("wss://")) {
        (Some(rest), _) => ("ws", rest),
        (_, Some(rest)) => ("wss", rest),
        _ => return ws.to_string(),
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let reported_host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    let loopback = matches!(reported_host, "127.0.0.1" | "localhost" | "[::1]");
    if loopback && reported_host != host {
        format!("{scheme}://{host}:{port}{tail}")
    } else {
        ws.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host_port(url: &str) -> Option<(String, u16, bool)> {
        let parts = UrlParts::parse(url)?;
        matches!(parts.scheme.as_str(), "http" | "https").then(|| {
            let tls = parts.tls();
            (parts.host, parts.port, tls)
        })
    }

    #[test]
    fn host_port_parses_common_forms() {
        assert_eq!(
            host_port("http://127.0.0.1:9222"),
            Some(("127.0.0.1".into(), 9222, false))
        );
        assert_eq!(
            host_port("http://localhost:9222/json"),
            Some(("localhost".into(), 9222, false))
        );
        assert_eq!(
            host_port("http://example.test"),
            Some(("example.test".into(), 80, false))
        );
        assert_eq!(
            host_port("https://cdp.example.test/x"),
            Some(("cdp.example.test".into(), 443, true))
        );
        assert_eq!(
            host_port("http://[::1]:9222"),
            Some(("[::1]".into(), 9222, false))
        );
        assert_eq!(
            host_port("http://127.0.0.1:3000?token=abc"),
            Some(("127.0.0.1".into(), 3000, false))
        );
        assert_eq!(host_port("ws://x"), None);
        assert_eq!(host_port("ftp://x"), None);
    }

    #[test]
    fn a_ws_url_without_a_path_gets_one_before_its_query() {
        assert_eq!(
            normalize_ws_url("ws://127.0.0.1:3000?token=abc"),
            "ws://127.0.0.1:3000/?token=abc"
        );
        assert_eq!(
            normalize_ws_url("wss://cdp.example.test?token=abc"),
            "wss://cdp.example.test/?token=abc"
        );
        assert_eq!(
            normalize_ws_url("ws://127.0.0.1:3000"),
            "ws://127.0.0.1:3000/"
        );
        let full = "ws://127.0.0.1:9222/devtools/browser/x?token=abc";
        assert_eq!(normalize_ws_url(full), full);
    }

    #[test]
    fn the_discovery_query_is_carried_to_a_bare_ws_url() {
        assert_eq!(
            carry_query("ws://127.0.0.1:3000", Some("token=abc")),
            "ws://127.0.0.1:3000/?token=abc"
        );
        assert_eq!(
            carry_query("ws://h:1/devtools/browser/x?token=own", Some("token=abc")),
            "ws://h:1/devtools/browser/x?token=own"
        );
        assert_eq!(
            carry_query("ws://h:1/devtools/browser/x", None),
            "ws://h:1/devtools/browser/x"
        );
    }

    /// A browser service's discovery: the query must reach `/json/version`, the body comes
    /// chunked on a kept-alive connection, and the bare ws URL it names gets the query back.
    #[tokio::test]
    async fn discovery_keeps_the_query_and_reads_a_chunked_answer() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                socket.read_exact(&mut byte).await.expect("read");
                head.push(byte[0]);
            }
            let body = format!(
                r#"{{"Browser":"Chrome/1","webSocketDebuggerUrl":"ws://127.0.0.1:{port}"}}"#
            );
            let (first, second) = body.split_at(10);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n{:x}\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
                first.len(),
                second.len()
            );
            socket.write_all(reply.as_bytes()).await.expect("write");
            // Keep the connection open: the reader must not wait for its end.
            let mut rest = [0u8; 16];
            let _ = socket.read(&mut rest).await;
            String::from_utf8_lossy(&head).into_owned()
        });
        let ws = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            browser_ws_url(&format!("http://127.0.0.1:{port}?token=s3"), &[]),
        )
        .await
        .expect("no hang on a kept-alive chunked answer")
        .expect("discovered");
        assert_eq!(ws, format!("ws://127.0.0.1:{port}/?token=s3"));
        let head = server.await.expect("server");
        assert!(
            head.starts_with("GET /json/version?token=s3 HTTP/1.1\r\n"),
            "{head}"
        );
    }

    #[test]
    fn loopback_address_is_rewritten_to_the_host_we_used() {
        assert_eq!(
            rewrite_loopback("ws://127.0.0.1:9222/devtools/browser/x", "10.0.0.5", 9222),
            "ws://10.0.0.5:9222/devtools/browser/x"
        );
        assert_eq!(
            rewrite_loopback("ws://127.0.0.1:9222/devtools/browser/x", "127.0.0.1", 9222),
            "ws://127.0.0.1:9222/devtools/browser/x"
        );
        assert_eq!(
            rewrite_loopback("ws://127.0.0.1:3000", "localhost", 3000),
            "ws://localhost:3000"
        );
    }
}
