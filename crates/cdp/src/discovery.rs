//! Resolving `http://host:port` to the browser's WebSocket URL through `/json/version`.
//!
//! A tiny HTTP/1.1 GET over a `TcpStream`: the DevTools HTTP endpoint is plain, local, and
//! answers small JSON bodies, so a full HTTP client would only add build time.

use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::Error;

#[derive(Deserialize)]
struct Version {
    #[serde(rename = "webSocketDebuggerUrl")]
    web_socket_debugger_url: Option<String>,
}

/// Splits `http://host:port/...` into (host, port).
fn host_port(url: &str) -> Option<(String, u16)> {
    let rest = url.strip_prefix("http://")?;
    let authority = rest.split('/').next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            (host.to_string(), port.parse().ok()?)
        }
        _ => (authority.to_string(), 80),
    };
    Some((host, port))
}

/// Fetches `GET <path>` from `host:port` and returns the body.
pub async fn http_get(
    host: &str,
    port: u16,
    path: &str,
    headers: &[(String, String)],
) -> std::io::Result<(u16, String)> {
    let connect_host = host.trim_start_matches('[').trim_end_matches(']');
    let mut stream = TcpStream::connect((connect_host, port)).await?;
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

/// Resolves an `http://host:port` DevTools address to its browser WebSocket URL.
pub async fn browser_ws_url(url: &str, headers: &[(String, String)]) -> Result<String, Error> {
    let fail = |reason: String| Error::Connect {
        url: url.to_string(),
        reason,
    };
    if url.starts_with("https://") {
        return Err(fail(
            "https:// discovery is not supported by this build (no TLS)".into(),
        ));
    }
    let (host, port) = host_port(url).ok_or_else(|| fail("cannot parse host and port".into()))?;
    let (status, body) = http_get(&host, port, "/json/version", headers)
        .await
        .map_err(|e| fail(format!("GET /json/version failed: {e}")))?;
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
    let Some(rest) = ws.strip_prefix("ws://") else {
        return ws.to_string();
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let reported_host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    let loopback = matches!(reported_host, "127.0.0.1" | "localhost" | "[::1]");
    if loopback && reported_host != host {
        format!("ws://{host}:{port}/{path}")
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
            Some(("127.0.0.1".into(), 9222))
        );
        assert_eq!(
            host_port("http://localhost:9222/json"),
            Some(("localhost".into(), 9222))
        );
        assert_eq!(
            host_port("http://example.test"),
            Some(("example.test".into(), 80))
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
