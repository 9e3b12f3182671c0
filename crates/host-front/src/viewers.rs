//! Live-view viewers attached through the front. A kit [`Viewer`] is attached when the Host
//! asks (so a busy controller or a bad credential fails the request), then carried either on
//! its own loopback WebSocket (`ws://127.0.0.1:<port>/viewer/<token>`, one connection, within
//! 60 s: the stream protocol's JSON both ways, as the person's page speaks it) or on the Host's
//! channel (`{"viewer":N,"message":{…}}` lines out, `viewer_send` in).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_host::{LiveViewError, Viewer, ViewerMessage};
use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_util::sync::CancellationToken;

use crate::clients::{ClientId, Clients};
use crate::protocol::FrontError;

/// How long a viewer's WebSocket address waits for its one connection.
const CONNECT_WAIT: Duration = Duration::from_secs(60);

/// Where a viewer's messages go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// Its own loopback WebSocket.
    WebSocket,
    /// The Host's channel.
    Channel,
}

type Input = (String, oneshot::Sender<Result<(), LiveViewError>>);
type Waiting = Arc<Mutex<HashMap<String, oneshot::Sender<WebSocketStream<TcpStream>>>>>;

struct OpenViewer {
    input: mpsc::UnboundedSender<Input>,
    stop: CancellationToken,
    client: ClientId,
    via: Via,
}

struct WsServer {
    port: u16,
    waiting: Waiting,
    task: tokio::task::JoinHandle<()>,
}

/// The viewers the front carries.
pub(crate) struct Viewers {
    clients: Arc<Clients>,
    next: AtomicU64,
    open: Arc<Mutex<HashMap<u64, OpenViewer>>>,
    ws: tokio::sync::OnceCell<WsServer>,
}

/// A newly opened viewer.
pub(crate) struct Opened {
    pub id: u64,
    /// The WebSocket address (`Via::WebSocket` only).
    pub url: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn random_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Viewers {
    pub(crate) fn new(clients: Arc<Clients>) -> Self {
        Self {
            clients,
            next: AtomicU64::new(0),
            open: Arc::default(),
            ws: tokio::sync::OnceCell::new(),
        }
    }

    async fn ws_server(&self) -> Result<&WsServer, FrontError> {
        self.ws
            .get_or_try_init(|| async {
                let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(|e| {
                    FrontError::new("io", format!("cannot listen for viewers on 127.0.0.1: {e}"))
                })?;
                let port = listener
                    .local_addr()
                    .map_err(|e| FrontError::new("io", e.to_string()))?
                    .port();
                let waiting: Waiting = Arc::default();
                let task = tokio::spawn(accept_viewers(listener, waiting.clone()));
                Ok(WsServer {
                    port,
                    waiting,
                    task,
                })
            })
            .await
    }

    /// Carries `viewer` for connection `client`.
    pub(crate) async fn open(
        &self,
        viewer: Viewer,
        via: Via,
        client: ClientId,
    ) -> Result<Opened, FrontError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (input, input_rx) = mpsc::unbounded_channel();
        let stop = CancellationToken::new();
        let mut url = None;
        let socket = match via {
            Via::WebSocket => {
                let server = self.ws_server().await?;
                let token = random_token();
                let (tx, rx) = oneshot::channel();
                lock(&server.waiting).insert(token.clone(), tx);
                url = Some(format!("ws://127.0.0.1:{}/viewer/{token}", server.port));
                Some((rx, token, server.waiting.clone()))
            }
            Via::Channel => None,
        };
        lock(&self.open).insert(
            id,
            OpenViewer {
                input,
                stop: stop.clone(),
                client,
                via,
            },
        );
        let open = self.open.clone();
        let clients = self.clients.clone();
        tokio::spawn(async move {
            let reason = match socket {
                Some((rx, token, waiting)) => {
                    let reason = carry_on_websocket(viewer, input_rx, &stop, rx).await;
                    lock(&waiting).remove(&token);
                    reason
                }
                None => carry_on_channel(id, viewer, input_rx, &stop, &clients, client).await,
            };
            lock(&open).remove(&id);
            let end = serde_json::json!({ "viewer": id, "end": { "reason": reason } });
            clients.send(client, end.to_string());
        });
        Ok(Opened { id, url })
    }

    /// Queues a viewer message from the Host (`viewer_send`) in the order the requests came;
    /// the receiver hears whether the kit took it.
    pub(crate) fn enqueue(
        &self,
        id: u64,
        message: String,
    ) -> Result<oneshot::Receiver<Result<(), LiveViewError>>, FrontError> {
        let open = lock(&self.open);
        let viewer = open
            .get(&id)
            .ok_or_else(|| FrontError::new("unknown_viewer", format!("no open viewer {id}")))?;
        let (done, result) = oneshot::channel();
        viewer
            .input
            .send((message, done))
            .map_err(|_| FrontError::from(LiveViewError::Closed))?;
        Ok(result)
    }

    /// Ends viewer `id`; `false` when it was not open.
    pub(crate) fn close(&self, id: u64) -> bool {
        lock(&self.open).get(&id).map(|v| v.stop.cancel()).is_some()
    }

    /// Ends the channel viewers of a connection that ended (their lines have nowhere to go).
    pub(crate) fn close_client(&self, client: ClientId) {
        for viewer in lock(&self.open).values() {
            if viewer.client == client && viewer.via == Via::Channel {
                viewer.stop.cancel();
            }
        }
    }

    /// Ends every viewer and stops listening.
    pub(crate) fn close_all(&self) {
        for viewer in lock(&self.open).values() {
            viewer.stop.cancel();
        }
        if let Some(server) = self.ws.get() {
            server.task.abort();
        }
    }
}

async fn accept_viewers(listener: TcpListener, waiting: Waiting) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(%error, "viewer accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let waiting = waiting.clone();
        tokio::spawn(async move {
            let mut claimed = None;
            // The error type is tungstenite's handshake callback's, not ours to shrink.
            #[allow(clippy::result_large_err)]
            let check = |request: &Request, response: Response| {
                let sender = request
                    .uri()
                    .path()
                    .strip_prefix("/viewer/")
                    .and_then(|token| lock(&waiting).remove(token));
                match sender {
                    Some(sender) => {
                        claimed = Some(sender);
                        Ok(response)
                    }
                    None => {
                        let mut refusal =
                            ErrorResponse::new(Some("unknown or used viewer address".into()));
                        *refusal.status_mut() = StatusCode::NOT_FOUND;
                        Err(refusal)
                    }
                }
            };
            let socket = tokio::time::timeout(
                Duration::from_secs(10),
                tokio_tungstenite::accept_hdr_async(stream, check),
            )
            .await;
            if let (Ok(Ok(socket)), Some(sender)) = (socket, claimed) {
                let _ = sender.send(socket);
            }
        });
    }
}

async fn carry_on_websocket(
    mut viewer: Viewer,
    mut input: mpsc::UnboundedReceiver<Input>,
    stop: &CancellationToken,
    socket: oneshot::Receiver<WebSocketStream<TcpStream>>,
) -> &'static str {
    let socket = tokio::select! {
        _ = stop.cancelled() => return "closed",
        socket = tokio::time::timeout(CONNECT_WAIT, socket) => match socket {
            Ok(Ok(socket)) => socket,
            _ => return "never_connected",
        },
    };
    let (mut sink, mut source) = socket.split();
    let reason = loop {
        tokio::select! {
            _ = stop.cancelled() => break "closed",
            message = viewer.next() => match message {
                Some(message) => {
                    if sink.send(Message::Text(message.text().into())).await.is_err() {
                        break "disconnected";
                    }
                }
                None => break "view_ended",
            },
            incoming = source.next() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Err(error) = viewer.send(text.as_str()).await {
                        let error = FrontError::from(error);
                        let notice = serde_json::json!({ "type": "error", "code": error.code, "message": error.message });
                        if sink.send(Message::Text(notice.to_string().into())).await.is_err() {
                            break "disconnected";
                        }
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break "disconnected",
                Some(Ok(_)) => {}
            },
            Some((text, done)) = input.recv() => {
                let _ = done.send(viewer.send(&text).await);
            }
        }
    };
    let _ = sink.send(Message::Close(None)).await;
    reason
}

async fn carry_on_channel(
    id: u64,
    mut viewer: Viewer,
    mut input: mpsc::UnboundedReceiver<Input>,
    stop: &CancellationToken,
    clients: &Clients,
    client: ClientId,
) -> &'static str {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return "closed",
            message = viewer.next() => match message {
                // The stream server's JSON, embedded as it is (never decoded).
                Some(ViewerMessage::Frame(text)) => {
                    let line = format!("{{\"viewer\":{id},\"message\":{text}}}");
                    if clients.send_frame(client, line).is_err() {
                        return "disconnected";
                    }
                }
                Some(ViewerMessage::Event(text)) => {
                    if !clients.send(client, format!("{{\"viewer\":{id},\"message\":{text}}}")) {
                        return "disconnected";
                    }
                }
                None => return "view_ended",
            },
            Some((text, done)) = input.recv() => {
                let _ = done.send(viewer.send(&text).await);
            }
        }
    }
}
