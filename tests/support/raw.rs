//! Helpers that act as *someone else* on a shared browser: a raw CDP client (a person's tab, an
//! outside close), a recording forwarder in front of the DevTools port (to see `--cdp-headers`),
//! and a tiny HTTP proxy that records it was used. Each owns a multi-threaded runtime, so the
//! blocking CLI calls of a test never starve it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_cdp::Connection;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

impl std::fmt::Debug for RawCdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawCdp").finish_non_exhaustive()
    }
}

/// A raw CDP client on its own runtime.
pub struct RawCdp {
    rt: tokio::runtime::Runtime,
    conn: Connection,
}

impl RawCdp {
    /// Connects to a browser WebSocket URL.
    pub fn connect(ws_url: &str) -> RawCdp {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let conn = rt
            .block_on(Connection::connect(ws_url))
            .expect("raw CDP connect");
        RawCdp { rt, conn }
    }

    /// Runs a future on this client's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    /// The connection.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// A browser-level call.
    pub fn call_json(&self, method: &str, params: Value) -> Value {
        self.rt
            .block_on(self.conn.browser().call_json(method, params))
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// `Target.getTargets` (pages only).
    pub fn pages(&self) -> Vec<Value> {
        self.call_json("Target.getTargets", json!({}))["targetInfos"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|t| t["type"] == "page")
            .collect()
    }

    /// One target's info.
    pub fn target(&self, target_id: &str) -> Option<Value> {
        self.pages()
            .into_iter()
            .find(|t| t["targetId"] == target_id)
    }

    /// Opens a tab at `url` without attaching to it (a person's tab) and waits for its URL.
    pub fn open_unattached(&self, url: &str) -> String {
        let id = self.call_json("Target.createTarget", json!({"url": url}))["targetId"]
            .as_str()
            .expect("targetId")
            .to_string();
        self.wait_for(Duration::from_secs(10), || {
            self.target(&id).is_some_and(|t| t["url"] == url)
        });
        id
    }

    /// Polls `ready` every 20 ms until it holds; panics after `within`.
    #[track_caller]
    pub fn wait_for(&self, within: Duration, ready: impl FnMut() -> bool) {
        super::wait_for(within, "the condition", ready);
    }
}

/// What a forwarder saw: the request line and headers of each connection.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// `(path, headers)` per connection, headers lower-cased.
    pub requests: Vec<(String, Vec<(String, String)>)>,
}

/// A forwarder in front of Chrome's DevTools port that records request heads: `/json/version`
/// is answered with Chrome's reply (its WebSocket URL rewritten to the forwarder), any other
/// request (the WebSocket upgrade) is spliced through to Chrome.
pub struct DevToolsForwarder {
    _rt: tokio::runtime::Runtime,
    addr: SocketAddr,
    seen: Arc<Mutex<Seen>>,
}

impl DevToolsForwarder {
    /// Starts forwarding to Chrome's `127.0.0.1:<chrome_port>`.
    pub fn start(chrome_port: u16) -> DevToolsForwarder {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let seen = Arc::new(Mutex::new(Seen::default()));
        let listener = rt
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind forwarder");
        let addr = listener.local_addr().expect("addr");
        let record = seen.clone();
        rt.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let record = record.clone();
                tokio::spawn(async move {
                    let _ = forward(client, chrome_port, addr.port(), record).await;
                });
            }
        });
        DevToolsForwarder {
            _rt: rt,
            addr,
            seen,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What it saw so far.
    pub fn seen(&self) -> Seen {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

async fn read_head(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await? == 0 {
            break;
        }
        head.push(byte[0]);
        if head.len() > 64 * 1024 {
            break;
        }
    }
    Ok(head)
}

fn parse_head(head: &[u8]) -> (String, Vec<(String, String)>) {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("")
        .to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (path, headers)
}

async fn forward(
    mut client: TcpStream,
    chrome_port: u16,
    own_port: u16,
    seen: Arc<Mutex<Seen>>,
) -> std::io::Result<()> {
    let head = read_head(&mut client).await?;
    let (path, headers) = parse_head(&head);
    if let Ok(mut s) = seen.lock() {
        s.requests.push((path.clone(), headers));
    }
    if path.starts_with("/json/version") {
        let (status, body) =
            abx_cdp::http_get("127.0.0.1", chrome_port, "/json/version", &[]).await?;
        let body = body.replace(
            &format!("127.0.0.1:{chrome_port}"),
            &format!("127.0.0.1:{own_port}"),
        );
        let reply = format!(
            "HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        client.write_all(reply.as_bytes()).await?;
        return Ok(());
    }
    let mut chrome = TcpStream::connect(("127.0.0.1", chrome_port)).await?;
    chrome.write_all(&head).await?;
    tokio::io::copy_bidirectional(&mut client, &mut chrome).await?;
    Ok(())
}

/// A minimal HTTP forward proxy: every request (absolute-form URL) is sent to `upstream`
/// (the fixture server) whatever its host, and recorded. With credentials it answers 407 until
/// the request carries `Proxy-Authorization: Basic base64(user:pass)`.
pub struct TestProxy {
    _rt: tokio::runtime::Runtime,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<ProxyRecord>>>,
}

/// One request the proxy saw.
#[derive(Clone, Debug)]
pub struct ProxyRecord {
    /// The request target as sent (absolute URL).
    pub target: String,
    /// Whether it carried valid credentials (always true without credentials).
    pub authorized: bool,
}

impl TestProxy {
    /// Starts a proxy forwarding to `127.0.0.1:<upstream_port>`.
    pub fn start(upstream_port: u16, credentials: Option<(&str, &str)>) -> TestProxy {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let listener = rt
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind proxy");
        let addr = listener.local_addr().expect("addr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let expected = credentials.map(|(u, p)| {
            use base64::Engine as _;
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
            )
        });
        let record = log.clone();
        rt.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let record = record.clone();
                let expected = expected.clone();
                tokio::spawn(async move {
                    let _ = proxy_connection(client, upstream_port, expected, record).await;
                });
            }
        });
        TestProxy { _rt: rt, addr, log }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// What went through it.
    pub fn requests(&self) -> Vec<ProxyRecord> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

async fn proxy_connection(
    mut client: TcpStream,
    upstream_port: u16,
    expected: Option<String>,
    log: Arc<Mutex<Vec<ProxyRecord>>>,
) -> std::io::Result<()> {
    loop {
        let head = read_head(&mut client).await?;
        if head.is_empty() {
            return Ok(());
        }
        let (target, headers) = parse_head(&head);
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let authorized = match &expected {
            None => true,
            Some(expected) => header("proxy-authorization").as_deref() == Some(expected.as_str()),
        };
        if let Ok(mut l) = log.lock() {
            l.push(ProxyRecord {
                target: target.clone(),
                authorized,
            });
        }
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        client.read_exact(&mut body).await?;
        if !authorized {
            let reply = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"abx\"\r\nContent-Length: 0\r\n\r\n";
            client.write_all(reply.as_bytes()).await?;
            continue;
        }
        // Rewrite the absolute-form request to origin-form and send it upstream.
        let path = target
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_string()))
            .unwrap_or_else(|| "/".into());
        let text = String::from_utf8_lossy(&head).to_string();
        let mut lines = text.split("\r\n");
        let first = lines.next().unwrap_or("");
        let method = first.split_whitespace().next().unwrap_or("GET");
        let mut request = format!("{method} {path} HTTP/1.1\r\n");
        for line in lines {
            let lower = line.to_ascii_lowercase();
            if line.is_empty()
                || lower.starts_with("proxy-")
                || lower.starts_with("connection:")
                || lower.starts_with("keep-alive:")
            {
                continue;
            }
            request.push_str(line);
            request.push_str("\r\n");
        }
        request.push_str("Connection: close\r\n\r\n");
        let mut upstream = TcpStream::connect(("127.0.0.1", upstream_port)).await?;
        upstream.write_all(request.as_bytes()).await?;
        upstream.write_all(&body).await?;
        let mut reply = Vec::new();
        upstream.read_to_end(&mut reply).await?;
        // Pass the reply through, closing the client connection afterwards (simplest framing).
        client.write_all(&reply).await?;
        return Ok(());
    }
}

impl std::fmt::Debug for DevToolsForwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevToolsForwarder").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for TestProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestProxy").finish_non_exhaustive()
    }
}
