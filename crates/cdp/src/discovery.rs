//! Resolving `http(s)://host:port` to the browser's WebSocket URL through `/json/version`.
//!
//! A tiny HTTP/1.1 GET over a `TcpStream` (wrapped in TLS for `https://` with the `tls` feature):
//! the DevTools HTTP endpoint answers small JSON bodies, so a full HTTP client would only add
//! build time.

use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::Error;

#[derive(Deserialize)]
struct Version {
    #[serde(rename = "webSocketDebuggerUrl")]
    web_socket_debugger_url: Option<String>,
}

/// Splits `http(s)://host:port/...` into (host, port, tls).
fn host_port(url: &str) -> Option<(String, u16, bool)> {
    let (rest, tls) = match url.strip_prefix("http://") {
        Some(rest) => (rest, false),
        None => (url.strip_prefix("https://")?, true),
    };
    let authority = rest.split('/').next()?;
    let default_port = if tls { 443 } else { 80 };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !authority.ends_with(']') => (host.to_string(), port.parse().ok()?),
        _ => (authority.to_string(), default_port),
    };
    Some((host, port, tls))
}

/// Fetches `GET <path>` from `host:port` and returns the body.
pub async fn http_get(
    host: &str,
    port: u16,
    path: &str,
    headers: &[(String, String)],
) -> std::io::Result<(u16, String)> {
    let connect_host = host.trim_start_matches('[').trim_end_matches(']');
    let stream = TcpStream::connect((connect_host, port)).await?;
    exchange(stream, host, port, path, headers).await
}

async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    host: &str,
    port: u16,
    path: &str,
    headers: &[(String, String)],
) -> std::io::Result<(u16, String)> {
    let mut request =
        format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await?;
    // Read the head, then exactly Content-Length bytes: Chrome may keep the socket open.
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(pos) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break buffer.len();
        }
        buffer.extend_from_slice(&chunk[..n]);
        if buffer.len() > 64 * 1024 {
            return Err(std::io::Error::other("HTTP response head too large"));
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let length = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    let mut body = buffer[head_end.min(buffer.len())..].to_vec();
    match length {
        Some(length) => {
            while body.len() < length {
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
            body.truncate(length);
        }
        None => {
            stream.read_to_end(&mut body).await?;
        }
    }
    Ok((status, String::from_utf8_lossy(&body).to_string()))
}

/// `GET path` over TLS (`https://`), trusting Mozilla's roots and `extra_roots` (DER).
#[cfg(feature = "tls")]
pub(crate) async fn https_get(
    host: &str,
    port: u16,
    path: &str,
    headers: &[(String, String)],
    extra_roots: &[Vec<u8>],
) -> std::io::Result<(u16, String)> {
    let connect_host = host.trim_start_matches('[').trim_end_matches(']');
    let stream = TcpStream::connect((connect_host, port)).await?;
    let stream = crate::tls::wrap(stream, host, extra_roots).await?;
    exchange(stream, host, port, path, headers).await
}

/// Resolves an `http(s)://host:port` DevTools address to its browser WebSocket URL.
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
    let (host, port, tls) =
        host_port(url).ok_or_else(|| fail("cannot parse host and port".into()))?;
    let fetched = if tls {
        #[cfg(feature = "tls")]
        {
            https_get(&host, port, "/json/version", headers, extra_roots).await
        }
        #[cfg(not(feature = "tls"))]
        {
            let _ = extra_roots;
            return Err(fail(
                "https:// discovery needs abx-cdp's `tls` feature".into(),
            ));
        }
    } else {
        http_get(&host, port, "/json/version", headers).await
    };
    let (status, body) = fetched.map_err(|e| fail(format!("GET /json/version failed: {e}")))?;
    if status != 200 {
        return Err(fail(format!("GET /json/version answered HTTP {status}")));
    }
    let version: Version = serde_json::from_str(&body)
        .map_err(|e| fail(format!("/json/version is not the expected JSON: {e}")))?;
    let ws = version
        .web_socket_debugger_url
        .ok_or_else(|| fail("/json/version has no webSocketDebuggerUrl".into()))?;
    Ok(rewrite_loopback(&ws, &host, port))
}

/// Chrome reports its own view of the address (127.0.0.1 or localhost); when we reached it
/// under another host name (a forwarded port, a container IP), keep the address we used.
fn rewrite_loopback(ws: &str, host: &str, port: u16) -> String {
    let (scheme, rest) = match (ws.strip_prefix("ws://"), ws.strip_prefix("wss://")) {
        (Some(rest), _) => ("ws", rest),
        (_, Some(rest)) => ("wss", rest),
        _ => return ws.to_string(),
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let reported_host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    let loopback = matches!(reported_host, "127.0.0.1" | "localhost" | "[::1]");
    if loopback && reported_host != host {
        format!("{scheme}://{host}:{port}/{path}")
    } else {
        ws.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(host_port("ws://x"), None);
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
    }
}
