//! The live-view hookup: the session's stream server (abx-relay) started at daemon boot and
//! registered as the daemon's [`StreamHooks`].
//!
//! * Boot: listen on `AGENT_BROWSER_STREAM_PORT` (an OS port when unset or taken) and write the
//!   port to `<session>.stream`; failure is logged and never stops the daemon (upstream).
//! * `stream enable [--port N]` / `disable` / `status` with upstream's data and errors.
//! * Commands and results are broadcast to viewers (`command`, `result` with a correct `success`,
//!   then `tabs`); a changed browser or active tab retargets the screencast.
//! * Viewer input marks the idle timer; a viewer's "reopen tab" rewrites `<session>.target`.
//!
//! Screencast settings come from the environment here (the engine and relay never read it):
//! `AGENT_BROWSER_STREAM_QUALITY` (0–100, default 80), `AGENT_BROWSER_STREAM_MAX_WIDTH` /
//! `_MAX_HEIGHT` (positive, at most `i32::MAX`; unset = the viewport).

use abx_wire::env;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use abx_engine::Session;
use abx_relay::{
    CommandReply, LiveEvent, Recorder, Relay, RelayOptions, ServerHooks, ServerOptions,
    StreamServer,
};
use serde_json::{Value, json};

use crate::daemon::{Daemon, StreamHooks};
use crate::errors::Failure;
use crate::protocol::Request;

/// Starts the stream server for `daemon` and registers the hooks.
pub(crate) async fn install(daemon: &Arc<Daemon>) {
    let var = |name: &str| std::env::var(name).ok();
    let relay = Relay::new(relay_options(&var));
    let hooks = Arc::new(Hooks {
        daemon: Arc::downgrade(daemon),
        recorder: Recorder::new(relay.clone()),
        relay,
        server: Mutex::new(None),
    });
    let preferred = daemon.config.stream_port.unwrap_or(0);
    if let Err(err) = hooks.start_server(preferred, true) {
        tracing::debug!(error = %err.message, "stream server not started");
    }
    if let Ok(mut slot) = daemon.stream.lock() {
        *slot = Some(hooks.clone());
    }
    let shutdown = daemon.shutdown.clone();
    tokio::spawn(async move {
        shutdown.cancelled().await;
        // A recording ends with the session: ffmpeg writes the file's end and exits.
        let _ = hooks.recorder.stop().await;
        let server = hooks.server().take();
        if let Some(server) = server {
            server.shutdown().await;
        }
        hooks.relay.stop().await;
    });
}

/// Screencast settings from the environment.
pub(crate) fn relay_options(var: &dyn Fn(&str) -> Option<String>) -> RelayOptions {
    let quality = var(env::STREAM_QUALITY)
        .and_then(|q| q.trim().parse::<i64>().ok())
        .map_or(80, |q| q.clamp(0, 100) as u8);
    let size = |name: &str| {
        var(name)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|v| *v > 0 && *v <= i32::MAX as u32)
    };
    RelayOptions {
        quality,
        max_width: size(env::STREAM_MAX_WIDTH),
        max_height: size(env::STREAM_MAX_HEIGHT),
        ..RelayOptions::default()
    }
}

struct Hooks {
    daemon: Weak<Daemon>,
    relay: Relay,
    recorder: Recorder,
    server: Mutex<Option<StreamServer>>,
}

impl Hooks {
    fn server(&self) -> MutexGuard<'_, Option<StreamServer>> {
        self.server
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts the server and writes `<session>.stream`; returns the port.
    fn start_server(&self, port: u16, fallback: bool) -> Result<u16, Failure> {
        let daemon = self
            .daemon
            .upgrade()
            .ok_or_else(|| Failure::message("the daemon is shutting down"))?;
        let options = ServerOptions {
            port,
            fallback_to_any_port: fallback,
            token: daemon.config.stream_token.clone(),
            ..ServerOptions::default()
        };
        let viewer_hooks = Arc::new(ViewerHooks {
            daemon: self.daemon.clone(),
        });
        let server = StreamServer::start(self.relay.clone(), options, viewer_hooks)
            .map_err(|e| Failure::message(e.to_string()))?;
        let port = server.port();
        if let Err(err) = daemon.files.write("stream", &port.to_string()) {
            tracing::debug!(%err, "cannot write the .stream file");
        }
        *self.server() = Some(server);
        Ok(port)
    }

    fn current_status(&self) -> Value {
        let port = self.server().as_ref().map(StreamServer::port);
        let connected = self
            .daemon
            .upgrade()
            .and_then(|d| d.live())
            .is_some_and(|l| l.session.browser().is_alive());
        json!({
            "enabled": port.is_some(),
            "port": port,
            "connected": connected,
            "screencasting": self.relay.status().screencasting,
            // Beyond upstream: how many viewers are attached.
            "viewers": self.relay.viewers(),
        })
    }
}

impl StreamHooks for Hooks {
    fn command(&self, request: &Request) {
        self.relay.publish(LiveEvent::Command {
            id: request.id.clone(),
            action: request.action.clone(),
            params: request.public_params(),
            timestamp: abx_relay::protocol::now_ms(),
        });
    }

    fn result(&self, request: &Request, success: bool, data: &dyn Fn() -> Value, duration_ms: u64) {
        // A result is copied into the event: a large snapshot's is 1 MB and 9,000 refs, for
        // nobody when no viewer is attached.
        if self.relay.has_listeners() {
            self.relay.publish(LiveEvent::Result {
                id: request.id.clone(),
                action: request.action.clone(),
                success,
                data: data(),
                duration_ms,
                timestamp: abx_relay::protocol::now_ms(),
            });
        }
        if self.relay.session().is_some() {
            self.relay.publish_tabs();
        }
    }

    fn session_changed(&self, session: Option<Arc<Session>>) {
        self.relay.set_session(session);
    }

    fn status(&self) -> Value {
        self.current_status()
    }

    fn enable(&self, port: u16) -> Result<Value, Failure> {
        if self.server().is_some() {
            return Err(Failure::message(
                "Streaming is already enabled for this session",
            ));
        }
        // An explicit port is a promise to the caller: no silent fallback.
        self.start_server(port, false)?;
        Ok(self.current_status())
    }

    fn disable(&self) -> Result<Value, Failure> {
        let server = self.server().take();
        let Some(server) = server else {
            return Err(Failure::message(
                "Streaming is not enabled for this session",
            ));
        };
        server.stop();
        if let Some(daemon) = self.daemon.upgrade() {
            let _ = std::fs::remove_file(daemon.files.path("stream"));
        }
        Ok(json!({"disabled": true}))
    }

    fn recorder(&self) -> Option<&Recorder> {
        Some(&self.recorder)
    }
}

/// What the stream server asks of the daemon.
struct ViewerHooks {
    daemon: Weak<Daemon>,
}

impl ServerHooks for ViewerHooks {
    fn activity(&self) {
        if let Some(daemon) = self.daemon.upgrade() {
            daemon.touch();
        }
    }

    fn tab_reopened(&self) {
        if let Some(daemon) = self.daemon.upgrade() {
            daemon.write_target_binding();
        }
    }

    fn sessions(&self) -> Vec<Value> {
        match self.daemon.upgrade() {
            Some(daemon) => crate::sidecar::stream_sessions(daemon.files.dir()),
            None => Vec::new(),
        }
    }

    fn command(&self, command: Value) -> CommandReply<'_> {
        let daemon = self.daemon.upgrade();
        Box::pin(async move {
            let daemon = daemon.ok_or_else(|| "the session is closing".to_string())?;
            let Value::Object(mut params) = command else {
                return Err("Invalid JSON: expected an object".to_string());
            };
            // The dashboard may leave the id out; every reply carries one.
            params
                .entry(abx_wire::extras::ID)
                .or_insert_with(|| json!(format!("dash-{}", abx_relay::protocol::now_ms())));
            let request = match crate::protocol::parse_object(params) {
                Ok(request) => request,
                Err(crate::protocol::LineError::Invalid(message)) => {
                    return Ok(crate::protocol::invalid(&message));
                }
                Err(_) => return Err("Invalid request".to_string()),
            };
            // Like a socket client's command: it runs in its own task, so a viewer that goes
            // away mid-command does not cancel it half way.
            tokio::spawn(async move { daemon.handle(request).await })
                .await
                .map_err(|e| format!("internal error: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screencast_settings_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let default = relay_options(&env(&[]));
        assert_eq!(default.quality, 80);
        assert_eq!(default.max_width, None);
        let set = relay_options(&env(&[
            (env::STREAM_QUALITY, "150"),
            (env::STREAM_MAX_WIDTH, "800"),
            (env::STREAM_MAX_HEIGHT, "0"),
        ]));
        assert_eq!(set.quality, 100);
        assert_eq!(set.max_width, Some(800));
        assert_eq!(set.max_height, None);
        assert_eq!(
            relay_options(&env(&[(env::STREAM_QUALITY, "high")])).quality,
            80
        );
        assert_eq!(
            relay_options(&env(&[(env::STREAM_QUALITY, "-5")])).quality,
            0
        );
    }
}
