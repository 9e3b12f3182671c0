//! One WebSocket viewer: a writer that sends events and the newest frame at the viewer's own
//! pace, and a reader that applies the viewer's messages in arrival order.
//!
//! The two halves never wait on each other, so input stays responsive while a frame is being
//! written. Per viewer the relay holds at most one frame (the shared slot) plus what the socket
//! has accepted; a viewer whose socket stays unwritable past the deadline is disconnected.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use crate::protocol::{ClientMessage, LiveEvent, Pacing, ViewerConfig, parse_client_message};
use crate::relay::Relay;
use crate::server::App;

type Sink = SplitSink<WebSocket, Message>;

/// Aborts a task when dropped (the reader must not outlive its connection).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends one message within the write deadline; false means the viewer is gone or stuck.
async fn send(sink: &mut Sink, message: Message, deadline: Duration) -> bool {
    matches!(
        tokio::time::timeout(deadline, sink.send(message)).await,
        Ok(Ok(()))
    )
}

fn text(event: &LiveEvent) -> Message {
    Message::Text(Utf8Bytes::from(event.to_json().to_string()))
}

/// `status`, `tabs` and the pending dialog: the greeting, and the resync after a lag.
fn snapshot(relay: &Relay) -> Vec<LiveEvent> {
    let mut out = vec![LiveEvent::Status(relay.status())];
    if relay.session().is_some() {
        out.push(LiveEvent::Tabs {
            tabs: relay.tabs(),
            timestamp: crate::protocol::now_ms(),
        });
    }
    if let Some(dialog) = relay.dialog() {
        out.push(LiveEvent::Dialog { dialog });
    }
    out
}

/// Earliest time the next frame may go out under `max_fps` (0 = uncapped). The first frame is
/// never delayed.
fn next_allowed(last_sent: Option<Instant>, max_fps: u32) -> Instant {
    match last_sent {
        Some(sent) if max_fps > 0 => sent + Duration::from_micros(1_000_000 / u64::from(max_fps)),
        Some(sent) => sent,
        None => Instant::now(),
    }
}

pub(crate) async fn serve(socket: WebSocket, app: Arc<App>, config: ViewerConfig) {
    let relay = app.relay.clone();
    // Registered (and subscribed) before the greeting, so nothing that happens meanwhile is lost.
    let viewer = relay.viewer();
    let mut events = viewer.events();
    let mut frames = viewer.frames();
    let (mut sink, stream) = socket.split();
    let (config_tx, mut config_rx) = watch::channel(config);
    let (ack_tx, mut ack_rx) = watch::channel(0u64);
    let (reply_tx, mut reply_rx) = mpsc::channel::<LiveEvent>(64);
    let mut reader = AbortOnDrop(tokio::spawn(read(
        stream,
        app.clone(),
        config_tx,
        ack_tx,
        reply_tx,
    )));
    let deadline = app.options.write_deadline;

    let mut alive = true;
    for event in snapshot(&relay) {
        if !send(&mut sink, text(&event), deadline).await {
            alive = false;
            break;
        }
    }
    let mut last_sent: Option<Instant> = None;
    let mut awaiting_ack: Option<u64> = None;
    // The cached frame goes out at once: a static page may not paint again for a long time.
    if alive && let Some(frame) = frames.latest() {
        alive = send(&mut sink, Message::Text(frame.wire()), deadline).await;
        last_sent = Some(Instant::now());
        if config.pacing == Pacing::Ack {
            awaiting_ack = Some(frame.seq());
        }
    }
    let mut pending = false;
    while alive {
        let config = *config_rx.borrow();
        let allowed_at = next_allowed(last_sent, config.max_fps);
        let can_send = pending && awaiting_ack.is_none();
        // Not biased: a page flooding the console must not starve frames, nor frames events.
        tokio::select! {
            _ = app.stop.cancelled() => {
                let close = Message::Close(Some(CloseFrame { code: 1001, reason: Utf8Bytes::from_static("stream server stopped") }));
                let _ = send(&mut sink, close, Duration::from_millis(200)).await;
                break;
            }
            _ = &mut reader.0 => break,
            reply = reply_rx.recv() => match reply {
                Some(reply) => alive = send(&mut sink, text(&reply), deadline).await,
                None => break,
            },
            event = events.recv() => match event {
                Ok(event) => alive = send(&mut sink, text(&event), deadline).await,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Fell behind the event stream: the state messages make it whole again.
                    for event in snapshot(&relay) {
                        alive = alive && send(&mut sink, text(&event), deadline).await;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
            changed = frames.inner().changed(), if !pending => {
                if changed.is_err() {
                    break;
                }
                pending = true;
            }
            changed = config_rx.changed() => {
                if changed.is_err() {
                    break;
                }
                if config_rx.borrow_and_update().pacing == Pacing::Push {
                    awaiting_ack = None;
                }
            }
            changed = ack_rx.changed() => {
                if changed.is_err() {
                    break;
                }
                let acked = *ack_rx.borrow_and_update();
                if awaiting_ack.is_some_and(|seq| acked >= seq) {
                    awaiting_ack = None;
                }
            }
            _ = tokio::time::sleep_until(allowed_at), if can_send => {}
        }
        if pending && awaiting_ack.is_none() && Instant::now() >= allowed_at {
            pending = false;
            // Latest wins: whatever arrived while we waited replaced what woke us.
            if let Some(frame) = frames.latest() {
                alive = alive && send(&mut sink, Message::Text(frame.wire()), deadline).await;
                last_sent = Some(Instant::now());
                if config_rx.borrow().pacing == Pacing::Ack {
                    awaiting_ack = Some(frame.seq());
                }
            }
        }
    }
    drop(viewer);
    let _ = tokio::time::timeout(Duration::from_millis(200), sink.close()).await;
}

/// Applies the viewer's messages in the order they arrive. Input is sent to Chrome without
/// waiting for its replies (order is kept by the connection's single writer); dialog answers and
/// reopen wait for their result because later input must land after them.
async fn read(
    mut stream: SplitStream<WebSocket>,
    app: Arc<App>,
    config: watch::Sender<ViewerConfig>,
    ack: watch::Sender<u64>,
    replies: mpsc::Sender<LiveEvent>,
) {
    let relay = &app.relay;
    // One error per streak of failing input, not one per mouse move.
    let mut input_failing = false;
    let reply = |message: String| {
        let _ = replies.try_send(LiveEvent::Error { message });
    };
    while let Some(message) = stream.next().await {
        let Ok(message) = message else { break };
        let text = match message {
            Message::Text(text) => text,
            Message::Binary(_) => {
                reply("Binary messages are not supported; send JSON text".into());
                continue;
            }
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        let parsed = match parse_client_message(text.as_str()) {
            Ok(parsed) => parsed,
            Err(err) => {
                reply(err.0);
                continue;
            }
        };
        match parsed {
            ClientMessage::Input(input) => {
                app.hooks.activity();
                match relay.send_input(&input).await {
                    Ok(()) => input_failing = false,
                    Err(err) => {
                        if !input_failing {
                            reply(format!("Input dropped: {err}"));
                        }
                        input_failing = true;
                    }
                }
            }
            ClientMessage::Config { max_fps, pacing } => config.send_modify(|c| {
                if let Some(fps) = max_fps {
                    c.max_fps = fps;
                }
                if let Some(pacing) = pacing {
                    c.pacing = pacing;
                }
            }),
            ClientMessage::Ack { seq } => ack.send_modify(|a| *a = (*a).max(seq)),
            ClientMessage::DialogAnswer {
                accept,
                prompt_text,
            } => {
                app.hooks.activity();
                if let Err(err) = relay.answer_dialog(accept, prompt_text.as_deref()).await {
                    reply(err.to_string());
                }
            }
            ClientMessage::ReopenTab => {
                app.hooks.activity();
                match relay.reopen_tab().await {
                    Ok(_) => app.hooks.tab_reopened(),
                    Err(err) => reply(format!("Cannot reopen the tab: {err}")),
                }
            }
        }
    }
}
