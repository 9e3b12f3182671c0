//! [`Front`]: one [`Host`] served to the Host's connections. Each request runs in its own task
//! (two `prepare_stage` calls run in parallel), its reply carries its `id`; events and
//! liveness questions go to every connection.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use abx_host::{
    Headed, Host, HostConfig, LoginCheck, ProfileName, RunId, RunRef, RunTeardown, Scope,
    StageBrowser, StageId, StageSpec, StageTeardown, SweepReport, ViewMode,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::clients::{ClientId, Clients, Outbound};
use crate::liveness::ChannelLiveness;
use crate::protocol::{
    FrontError, MAX_LINE, PROTOCOL, Request, error_line, parse_run_state, reply_line,
};
use crate::viewers::{Via, Viewers};

/// One connection being served (see [`Front::serve`]).
#[derive(Debug)]
pub struct Connection {
    client: ClientId,
    requests: TaskTracker,
    writing: tokio::task::JoinHandle<()>,
}

/// Every operation, as `hello` lists them.
pub const OPERATIONS: &[&str] = &[
    "hello",
    "sweep",
    "prepare_stage",
    "resume_stage",
    "login_check",
    "end_stage",
    "end_run",
    "shutdown",
    "status",
    "anchor_health",
    "anchors_health",
    "stage_env",
    "live_view_ticket",
    "redeem_live_view_ticket",
    "revoke_live_view",
    "open_viewer",
    "viewer_send",
    "close_viewer",
    "answer",
    "run_state",
];

/// How the front is set up, besides the kit's own [`HostConfig`].
#[derive(Clone, Debug)]
pub struct FrontConfig {
    /// The kit's configuration.
    pub host: HostConfig,
    /// The `agent-browser` binary the kit runs.
    pub agent_browser: PathBuf,
    /// How long a liveness question waits for the Host's answer (then: unknown, live).
    pub liveness_timeout: Duration,
    /// How long a stopping front waits for requests in flight before it ends the runs.
    pub drain: Duration,
}

/// The kit behind a JSON channel.
pub struct Front {
    host: Host,
    clients: Arc<Clients>,
    liveness: Arc<ChannelLiveness>,
    viewers: Viewers,
    tracker: TaskTracker,
    lease_waits: CancellationToken,
    stopped: CancellationToken,
    drain: Duration,
    shut_down: tokio::sync::Mutex<bool>,
    /// Set when the shutdown starts: requests that would open something are refused.
    closing: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Front {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Front")
            .field("host", &self.host)
            .finish_non_exhaustive()
    }
}

/// A request's arguments: a run.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    run: RunId,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StageArgs {
    run: RunId,
    stage: StageId,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckArgs {
    url: String,
    #[serde(default)]
    logged_in: Vec<String>,
    #[serde(default)]
    logged_out: Vec<String>,
    settle_ms: Option<u64>,
    timeout_ms: Option<u64>,
}

impl From<CheckArgs> for LoginCheck {
    fn from(args: CheckArgs) -> LoginCheck {
        let mut check = LoginCheck::new(args.url, &[], &[]);
        check.logged_in = args.logged_in;
        check.logged_out = args.logged_out;
        if let Some(ms) = args.settle_ms {
            check.settle = Duration::from_millis(ms);
        }
        if let Some(ms) = args.timeout_ms {
            check.timeout = Duration::from_millis(ms);
        }
        check
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SpecArgs {
    profile: Option<ProfileName>,
    #[serde(default)]
    headed: Headed,
    #[serde(default)]
    allowed_domains: Vec<String>,
    #[serde(default)]
    blocked_sites: Vec<String>,
    login_check: Option<CheckArgs>,
    human_login: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrepareArgs {
    scope: Scope,
    run: RunId,
    stage: StageId,
    #[serde(default)]
    spec: SpecArgs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoginCheckArgs {
    scope: Scope,
    run: RunId,
    stage: StageId,
    check: CheckArgs,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ShutdownArgs {
    #[serde(default)]
    keep: Vec<RunId>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StatusArgs {
    run: Option<RunId>,
    #[serde(default)]
    probe: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnchorArgs {
    scope: Scope,
    run: RunId,
    profile: ProfileName,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TicketArgs {
    scope: Scope,
    run: RunId,
    stage: StageId,
    mode: ViewMode,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RedeemArgs {
    ticket: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokeArgs {
    scope: Scope,
    run: Option<RunId>,
    stage: Option<StageId>,
    #[serde(default)]
    control_only: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenViewerArgs {
    scope: Scope,
    credential: String,
    #[serde(default)]
    via: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewerSendArgs {
    viewer: u64,
    message: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ViewerArgs {
    viewer: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerArgs {
    ask_id: u64,
    state: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunStateArgs {
    run: RunId,
    state: String,
}

fn args<T: DeserializeOwned>(value: Value) -> Result<T, FrontError> {
    serde_json::from_value(value).map_err(FrontError::invalid)
}

fn run_ref(scope: Scope, id: RunId) -> RunRef {
    RunRef { scope, id }
}

fn stage_browser(browser: StageBrowser) -> Value {
    json!({
        "env": browser.env,
        "display": browser.display,
        "display_text": browser.display.to_string(),
        "login": browser.login,
        "anchor_started": browser.anchor_started,
        "anchor_restarted": browser.anchor_restarted,
    })
}

fn stage_teardown(teardown: &StageTeardown) -> Value {
    json!({ "gone": teardown.gone, "attempts": teardown.attempts, "already": teardown.already })
}

fn run_teardown(teardown: &RunTeardown) -> Value {
    let stages: BTreeMap<String, Value> = teardown
        .stages
        .iter()
        .map(|(stage, t)| (stage.to_string(), stage_teardown(t)))
        .collect();
    json!({
        "complete": teardown.complete(),
        "stages": stages,
        "anchors_closed": teardown.anchors_closed,
        "anchors_left": teardown.anchors_left,
        "leases_released": teardown.leases_released,
    })
}

fn sweep_report(report: &SweepReport) -> Value {
    json!({
        "stages_closed": report.stages_closed,
        "anchors_closed": report.anchors_closed,
        "left": report.left,
        "skipped_live": report.skipped_live,
        "empty_dirs_removed": report.empty_dirs_removed,
        "leases_reclaimed": report.leases_reclaimed,
    })
}

fn state_arg(name: &str) -> Result<abx_host::RunState, FrontError> {
    parse_run_state(name).ok_or_else(|| {
        FrontError::invalid(format!(
            "unknown run state {name:?} (running, waiting, ended or unknown)"
        ))
    })
}

impl Front {
    /// Builds the kit with a liveness answered over the channel (within a tokio runtime: it
    /// starts the event forwarding). `lease_wait.cancel` is the front's own (a stopping front
    /// ends lease waits).
    pub fn new(mut config: FrontConfig) -> Result<Arc<Front>, FrontError> {
        let clients = Arc::new(Clients::default());
        let liveness = Arc::new(ChannelLiveness::new(
            clients.clone(),
            config.liveness_timeout,
        ));
        let lease_waits = CancellationToken::new();
        config.host.lease_wait.cancel = Some(lease_waits.clone());
        let host = Host::local(config.host, liveness.clone(), config.agent_browser)?;
        let front = Arc::new(Front {
            host,
            viewers: Viewers::new(clients.clone()),
            clients,
            liveness,
            tracker: TaskTracker::new(),
            lease_waits,
            stopped: CancellationToken::new(),
            drain: config.drain,
            shut_down: tokio::sync::Mutex::new(false),
            closing: std::sync::atomic::AtomicBool::new(false),
        });
        let events = front.host.events();
        tokio::spawn(forward_events(events, front.clients.clone()));
        Ok(front)
    }

    /// The kit.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// Cancelled once a `shutdown` request was served: the transports stop.
    pub fn stopped(&self) -> CancellationToken {
        self.stopped.clone()
    }

    /// Serves one connection until its input ends (EOF) or the front stops. Its replies
    /// still go out afterwards: end it with [`Front::close`].
    pub async fn serve<R, W>(self: &Arc<Self>, reader: R, writer: W) -> Connection
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (client, outbound) = self.clients.add();
        let connection = Connection {
            client,
            requests: TaskTracker::new(),
            writing: tokio::spawn(write_lines(outbound, writer)),
        };
        let ready = json!({
            "event": "ready",
            "protocol": PROTOCOL,
            "version": env!("CARGO_PKG_VERSION"),
        });
        self.clients.send(client, ready.to_string());
        let mut reader = reader;
        let mut line = Vec::new();
        loop {
            let read = tokio::select! {
                _ = self.stopped.cancelled() => break,
                read = read_line(&mut reader, &mut line) => read,
            };
            match read {
                Ok(LineRead::Eof) => break,
                Ok(LineRead::Line) => {
                    if !line.iter().all(u8::is_ascii_whitespace) {
                        self.handle(&connection, &line);
                    }
                }
                Ok(LineRead::TooLong) => {
                    let error = FrontError::new(
                        "request_too_large",
                        format!("a request line may hold at most {MAX_LINE} bytes"),
                    );
                    self.clients.send(client, error_line(None, &error));
                }
                Err(error) => {
                    tracing::warn!(%error, "reading the Host's channel failed");
                    break;
                }
            }
        }
        self.clients.mute(client);
        connection
    }

    /// Ends a connection whose input ended: its requests in flight finish (up to the drain
    /// time) and their replies go out, then its channel viewers end.
    pub async fn close(&self, connection: Connection) {
        connection.requests.close();
        if tokio::time::timeout(self.drain, connection.requests.wait())
            .await
            .is_err()
        {
            tracing::warn!("requests of a closed connection still running; their replies are lost");
        }
        self.viewers.close_client(connection.client);
        self.clients.remove(connection.client);
        let _ = connection.writing.await;
    }

    fn handle(self: &Arc<Self>, connection: &Connection, line: &[u8]) {
        let client = connection.client;
        let request = match Request::parse(line) {
            Ok(request) => request,
            Err((id, error)) => {
                self.clients.send(client, error_line(id.as_ref(), &error));
                return;
            }
        };
        let untracked = request.op == "shutdown" || self.tracker.is_closed();
        let Request { id, op, args } = request;
        // Viewer input is queued here, in the order the lines came (clicks and keys out of
        // order break forms); only the wait for the kit's verdict runs in the task.
        let queued = (op == "viewer_send").then(|| self.queue_viewer_input(args.clone()));
        let front = self.clone();
        let task = async move {
            let outcome = match queued {
                Some(queued) => viewer_input_taken(queued).await,
                None => front.dispatch(client, &op, args).await,
            };
            let stops = op == "shutdown" && outcome.is_ok();
            let line = match (&id, outcome) {
                (Some(id), Ok(result)) => Some(reply_line(id, &result)),
                (None, Ok(_)) => None,
                (id, Err(error)) => Some(error_line(id.as_ref(), &error)),
            };
            if let Some(line) = line {
                front.clients.send(client, line);
            }
            // After the reply is queued: the transports stop and drain their queues.
            if stops {
                front.stopped.cancel();
            }
        };
        let task = connection.requests.track_future(task);
        // A shutdown waits for the tracked requests, so it is not one of them.
        if untracked {
            tokio::spawn(task);
        } else {
            self.tracker.spawn(task);
        }
    }

    fn queue_viewer_input(
        &self,
        raw: Value,
    ) -> Result<oneshot::Receiver<Result<(), abx_host::LiveViewError>>, FrontError> {
        let a: ViewerSendArgs = args(raw)?;
        let message = match a.message {
            Value::String(text) => text,
            other => other.to_string(),
        };
        self.viewers.enqueue(a.viewer, message)
    }

    async fn dispatch(
        self: &Arc<Self>,
        client: ClientId,
        op: &str,
        raw: Value,
    ) -> Result<Value, FrontError> {
        let host = &self.host;
        // Once the front shuts down, nothing new is opened: it would outlive the teardown.
        let opens = !matches!(
            op,
            "hello"
                | "status"
                | "stage_env"
                | "answer"
                | "run_state"
                | "end_stage"
                | "end_run"
                | "close_viewer"
                | "shutdown"
        );
        if opens && self.closing.load(std::sync::atomic::Ordering::Acquire) {
            return Err(FrontError::new(
                "shutting_down",
                format!("the front is shutting down; {op} is refused"),
            ));
        }
        match op {
            "hello" => {
                let _: serde::de::IgnoredAny = args(raw)?;
                let config = host.config();
                Ok(json!({
                    "protocol": PROTOCOL,
                    "version": env!("CARGO_PKG_VERSION"),
                    "operations": OPERATIONS,
                    "home": config.home,
                    "socket_root": config.socket_root,
                    "live_view_handoff": config.live_view_handoff,
                }))
            }
            "sweep" => {
                let _: serde::de::IgnoredAny = args(raw)?;
                Ok(sweep_report(&host.sweep().await?))
            }
            "prepare_stage" | "resume_stage" => {
                let a: PrepareArgs = args(raw)?;
                let spec = StageSpec {
                    profile: a.spec.profile,
                    headed: a.spec.headed,
                    allowed_domains: a.spec.allowed_domains,
                    blocked_sites: a.spec.blocked_sites,
                    login_check: a.spec.login_check.map(LoginCheck::from),
                    human_login: a.spec.human_login,
                };
                let run = run_ref(a.scope, a.run);
                let browser = if op == "prepare_stage" {
                    host.prepare_stage(&run, &a.stage, &spec).await?
                } else {
                    host.resume_stage(&run, &a.stage, &spec).await?
                };
                Ok(stage_browser(browser))
            }
            "login_check" => {
                let a: LoginCheckArgs = args(raw)?;
                let result = host
                    .login_check(&run_ref(a.scope, a.run), &a.stage, &a.check.into())
                    .await?;
                Ok(json!(result))
            }
            "end_stage" => {
                let a: StageArgs = args(raw)?;
                Ok(stage_teardown(&host.end_stage(&a.run, &a.stage).await?))
            }
            "end_run" => {
                let a: RunArgs = args(raw)?;
                Ok(run_teardown(&host.end_run(&a.run).await?))
            }
            "shutdown" => {
                let a: ShutdownArgs = args(raw)?;
                self.finish(&a.keep).await
            }
            "status" => {
                let a: StatusArgs = args(raw)?;
                let runs = match a.run {
                    Some(run) => vec![run],
                    None => host.recorded_runs(),
                };
                let mut out = Vec::new();
                for run in runs {
                    out.push(host.run_status(&run, a.probe).await?);
                }
                Ok(json!({ "runs": out }))
            }
            "anchor_health" => {
                let a: AnchorArgs = args(raw)?;
                let key = abx_host::ProfileKey {
                    scope: a.scope,
                    name: a.profile,
                };
                Ok(json!({ "anchor": host.anchor_health(&a.run, &key).await? }))
            }
            "anchors_health" => {
                let _: serde::de::IgnoredAny = args(raw)?;
                Ok(json!({ "anchors": host.anchors_health().await? }))
            }
            "stage_env" => {
                let a: StageArgs = args(raw)?;
                Ok(json!({
                    "env": host.stage_env(&a.run, &a.stage)?,
                    "login": host.stage_login(&a.run, &a.stage)?,
                }))
            }
            "live_view_ticket" => {
                let a: TicketArgs = args(raw)?;
                let ticket = host.live_view_ticket(&run_ref(a.scope, a.run), &a.stage, a.mode);
                Ok(json!({ "ticket": ticket }))
            }
            "redeem_live_view_ticket" => {
                let a: RedeemArgs = args(raw)?;
                let credential = host.redeem_live_view_ticket(&a.ticket)?;
                let left = credential
                    .expires
                    .saturating_duration_since(tokio::time::Instant::now());
                Ok(json!({
                    "credential": credential.token,
                    "scope": credential.grant.scope,
                    "run": credential.grant.run,
                    "stage": credential.grant.stage,
                    "mode": credential.grant.mode,
                    "expires_in_ms": left.as_millis() as u64,
                }))
            }
            "revoke_live_view" => {
                let a: RevokeArgs = args(raw)?;
                let views = host.live_views();
                let revoked = match (a.run, a.stage) {
                    (Some(run), Some(stage)) => {
                        views.revoke_stage(&a.scope, &run, &stage, a.control_only)
                    }
                    (Some(run), None) if !a.control_only => views.revoke_run(&a.scope, &run),
                    (Some(_), None) => {
                        return Err(FrontError::invalid(
                            "control_only needs a stage (revoke a run's control per stage)",
                        ));
                    }
                    (None, _) => {
                        return Err(FrontError::invalid("\"run\" is missing"));
                    }
                };
                Ok(json!({ "revoked": revoked }))
            }
            "open_viewer" => {
                let a: OpenViewerArgs = args(raw)?;
                let via = match a.via.as_deref() {
                    None | Some("websocket") => Via::WebSocket,
                    Some("channel") => Via::Channel,
                    Some(other) => {
                        return Err(FrontError::invalid(format!(
                            "unknown \"via\" {other:?} (websocket or channel)"
                        )));
                    }
                };
                let viewer = host.open_viewer(&a.scope, &a.credential).await?;
                let grant = viewer.grant().clone();
                let opened = self.viewers.open(viewer, via, client).await?;
                Ok(json!({
                    "viewer": opened.id,
                    "url": opened.url,
                    "run": grant.run,
                    "stage": grant.stage,
                    "mode": grant.mode,
                }))
            }
            "close_viewer" => {
                let a: ViewerArgs = args(raw)?;
                Ok(json!({ "closed": self.viewers.close(a.viewer) }))
            }
            "answer" => {
                let a: AnswerArgs = args(raw)?;
                let state = state_arg(&a.state)?;
                if self.liveness.answer(a.ask_id, state) {
                    Ok(json!({}))
                } else {
                    Err(FrontError::new(
                        "unknown_ask",
                        format!(
                            "no question {} waits (answered already, or it timed out)",
                            a.ask_id
                        ),
                    ))
                }
            }
            "run_state" => {
                let a: RunStateArgs = args(raw)?;
                self.liveness.note(a.run, state_arg(&a.state)?);
                Ok(json!({}))
            }
            other => Err(FrontError::new(
                "unknown_op",
                format!("unknown operation {other:?}; `hello` lists them"),
            )),
        }
    }

    /// Stops the kit once: lease waits end, requests in flight get `drain` to finish, viewers
    /// end, then [`Host::shutdown`] closes every run of this front except `keep`.
    pub async fn finish(&self, keep: &[RunId]) -> Result<Value, FrontError> {
        let mut done = self.shut_down.lock().await;
        if *done {
            return Err(FrontError::new(
                "shutting_down",
                "the front was shut down already",
            ));
        }
        *done = true;
        self.closing
            .store(true, std::sync::atomic::Ordering::Release);
        self.lease_waits.cancel();
        self.tracker.close();
        if tokio::time::timeout(self.drain, self.tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!("requests still running at shutdown; ending the runs anyway");
        }
        self.viewers.close_all();
        let closed = self.host.shutdown(|run| keep.contains(run)).await?;
        let runs: BTreeMap<String, Value> = closed
            .iter()
            .map(|(run, teardown)| (run.to_string(), run_teardown(teardown)))
            .collect();
        Ok(json!({ "runs": runs, "kept": keep }))
    }

    /// What the front does when its Host goes away (EOF on stdio, SIGTERM, SIGINT): like
    /// `shutdown`, keeping the runs the Host last said were `waiting` (at a gate). Nothing
    /// when a `shutdown` was served already.
    pub async fn host_gone(&self) {
        if *self.shut_down.lock().await {
            return;
        }
        let keep = self.liveness.waiting_runs();
        match self.finish(&keep).await {
            Ok(closed) => tracing::info!(%closed, "runs closed after the Host went away"),
            Err(error) => tracing::warn!(?error, "closing runs after the Host went away"),
        }
    }
}

async fn viewer_input_taken(
    queued: Result<oneshot::Receiver<Result<(), abx_host::LiveViewError>>, FrontError>,
) -> Result<Value, FrontError> {
    match queued?.await {
        Ok(Ok(())) => Ok(json!({})),
        Ok(Err(error)) => Err(error.into()),
        Err(_) => Err(abx_host::LiveViewError::Closed.into()),
    }
}

async fn forward_events(
    mut events: broadcast::Receiver<abx_host::HostEvent>,
    clients: Arc<Clients>,
) {
    loop {
        match events.recv().await {
            Ok(event) => match serde_json::to_string(&event) {
                Ok(line) => clients.broadcast(&line),
                Err(error) => tracing::warn!(%error, "an event could not be serialized"),
            },
            Err(broadcast::error::RecvError::Lagged(lost)) => {
                clients.broadcast(&json!({ "event": "events_lost", "count": lost }).to_string());
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(mut outbound: Outbound, mut writer: W) {
    loop {
        // Replies and events first; a frame only when nothing else waits.
        let line = tokio::select! {
            biased;
            line = outbound.lines.recv() => match line {
                Some(line) => line,
                None => break,
            },
            Some(frame) = outbound.frames.recv() => frame,
        };
        let written = async {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await
        }
        .await;
        if written.is_err() {
            break;
        }
    }
}

enum LineRead {
    Line,
    TooLong,
    Eof,
}

/// One line (without its newline) into `line`, at most [`MAX_LINE`] bytes; a longer one is
/// skipped to its end and reported.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong
            } else if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (chunk, found) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (&buffer[..at], Some(at)),
            None => (buffer, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = found.map_or(buffer.len(), |at| at + 1);
        reader.consume(used);
        if found.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_split_and_a_long_one_is_skipped_to_its_end() {
        let long = "x".repeat(MAX_LINE + 10);
        let input = format!("{{\"op\":\"a\"}}\n{long}\n{{\"op\":\"b\"}}\nlast");
        let mut reader = tokio::io::BufReader::with_capacity(64, input.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        loop {
            match read_line(&mut reader, &mut line).await.expect("read") {
                LineRead::Eof => break,
                LineRead::TooLong => seen.push("<too long>".to_string()),
                LineRead::Line => seen.push(String::from_utf8_lossy(&line).into_owned()),
            }
        }
        assert_eq!(
            seen,
            ["{\"op\":\"a\"}", "<too long>", "{\"op\":\"b\"}", "last"]
        );
    }
}
