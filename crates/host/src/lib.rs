//! The Host kit: browser sessions for agent pipelines, as a library.
//!
//! A pipeline Host gives each agent stage a real browser through environment variables that
//! the stage's `agent-browser` commands read. [`Host`] does the orchestration around that:
//!
//! - **Profiles** ([`ProfileStore`]: [`FileProfileStore`], [`MemoryProfileStore`]) keyed by
//!   owner scope and name, and a **run-scoped lease** ([`ProfileLease`]: [`FileLease`],
//!   [`MemoryLease`]) with a wait limit; a resume queues like a fresh start.
//! - **Anchors**: one browser per (run, profile) that owns the profile for the run, local (an
//!   `agent-browser` session with the profile folder) or remote ([`BrowserSource::Remote`], a
//!   `wss://` endpoint with headers, or [`BrowserSource::PerProfile`], chosen per scope and
//!   profile). A remote anchor's stages reach it through a loopback forwarder with a token of
//!   their own, scoped to their own tabs; the service's credentials stay in the Host process,
//!   and the profile's cookies are saved sealed ([`StateKey`]) in the profile store at run end
//!   and restored at the next anchor start. Deduplicated, locked across processes, recorded
//!   (`anchor.json`, 0600), probed, and replaced when it died, with every stage env of the run
//!   re-pointed at the new one. Each anchor is watched over the connection the Host holds to
//!   it: its loss is [`HostEvent::AnchorLost`] at once, with a typed [`AnchorLossCause`] and
//!   the stages on it; [`Host::anchor_health`] checks one on demand.
//! - **Stages**: [`Host::prepare_stage`] builds the env once and persists it (the byte-identical
//!   rule), caps session names with a hash, keeps socket paths within 103 bytes, pins
//!   `AGENT_BROWSER_CONFIG`, pins a tab on the anchor (a spare tab made ahead, so the stage's
//!   first command does not wait for Chrome to create one); a stage without a profile gets its own
//!   throw-away browser. Domain allowlists are hard for both kinds (abx enforces them with CDP).
//!   Headed or headless follows the [`DisplayProbe`] and says why ([`DisplayChoice`]); asking
//!   for a window without a screen fails. [`Host::end_stage`] tears down in order: live view,
//!   tab, session (retried, verified gone, never a signal), marker.
//! - **Run end, sweep, shutdown**: [`Host::end_run`] (stages, then anchors, then leases),
//!   [`Host::sweep`] at Host start (owner records per socket dir; ended runs only, and only
//!   records of this Host or of a Host process that is gone: [`HostIdentity`]),
//!   [`Host::shutdown`] (closes runs that will not resume).
//! - **Site policy and evidence**: [`StageSpec::blocked_sites`] and `HostConfig::blocked_sites`
//!   are enforced by the stage's daemon at every navigation and reported as
//!   [`HostEvent::BlockedNavigation`]; an [`AuditSink`] ([`JsonlAudit`] by default) records
//!   profiles, lease waits, anchors, blocked navigations and teardowns, and never fails a run;
//!   the lifecycle receipt of every command the kit runs is kept per stage
//!   ([`Host::stage_receipts`]).
//! - **Login check** ([`LoginCheck`]): the Host decides from the settled URL.
//! - **Run liveness** ([`RunLiveness`], or [`AsyncRunLiveness`] for a Host that answers
//!   asynchronously, bounded by [`AnswerWithin`]); **status** of runs, anchors and stages
//!   ([`Host::run_status`]). The `abx-host` binary (crate `abx-host-front`) serves all of this
//!   as JSON to Hosts in any language (`docs/host.md`, "JSON front").
//! - **Live views** ([`LiveViews`]): one-use tickets and 24 h credentials per stage and mode,
//!   one refcounted relay per stage, one controller at a time, closed before teardown.
//!
//! ```no_run
//! # async fn demo() -> Result<(), abx_host::HostError> {
//! use std::sync::Arc;
//! use abx_host::{Host, HostConfig, ProfileName, RunRef, RunState, StageId, StageSpec};
//! let liveness = Arc::new(|_: &abx_host::RunId| RunState::Running);
//! let host = Host::local(HostConfig::new("/var/lib/my-host/browser"), liveness, "agent-browser")?;
//! host.sweep().await?; // at Host start
//! let run = RunRef::parse("local", "run-42")?;
//! let stage = StageId::new("work")?;
//! let browser = host
//!     .prepare_stage(&run, &stage, &StageSpec::with_profile(ProfileName::new("site")?))
//!     .await?;
//! let mut worker = std::process::Command::new("my-agent");
//! browser.env.apply_to(&mut worker); // the agent's `agent-browser …` commands use it
//! // ... the stage runs ...
//! host.end_stage(&run.id, &stage).await?;
//! host.end_run(&run.id).await?;
//! # Ok(()) }
//! ```

mod anchor;
mod audit;
mod blocked;
mod clock;
mod display;
mod env;
mod error;
mod event;
mod fsutil;
mod host;
mod lease;
mod live;
mod liveness;
mod login;
mod names;
mod owner;
mod process;
mod profile;
mod redact;
mod runner;
mod saved_state;
mod spare;
mod stage;
mod status;
mod watch;

/// Cancels a lease wait (re-exported so a Host needs no extra dependency).
pub use tokio_util::sync::CancellationToken as CancelToken;

/// Site policy types a Host reads in [`HostEvent::BlockedNavigation`] and audit records.
pub use abx_engine::{BlockRule, BlockedBy};
pub use anchor::{
    AnchorRecord, BrowserSource, ProfileBrowser, RemoteBrowser, RemoteEndpoint, SourceResolver,
    StageAddressResolver,
};
pub use audit::{AUDIT_FILE, AuditEntry, AuditRecord, AuditSink, JsonlAudit, MemoryAudit};
pub use display::{DisplayChoice, DisplayProbe, DisplayReason, Headed, Screen, choose_display};
pub use env::{BrowserEnv, LaunchSettings, SESSION_NAME_LIMIT, SOCKET_PATH_LIMIT, var};
pub use error::{HostError, Result};
pub use event::{AnchorLossCause, HostEvent};
pub use host::{Host, HostConfig, OWNER_RECORD, RunRef, RunTeardown, SweepReport};
pub use lease::{
    AcquireOptions, Acquired, FileLease, MemoryLease, ProfileLease, TryAcquire, acquire,
};
pub use live::{
    Credential, Grant, LiveViewError, LiveViewSettings, LiveViewTickets, LiveViews, ViewMode,
    Viewer, ViewerMessage,
};
pub use liveness::{AnswerWithin, AsyncRunLiveness, RunLiveness, RunState};
pub use login::{LoginCheck, LoginResult, LoginState};
pub use names::{LeaseHolder, ProfileKey, ProfileName, RunId, Scope, StageId, capped, short_hash};
pub use owner::{HostIdentity, OwnerKind, OwnerRecord, Ownership};
pub use profile::{
    FileProfileStore, MemoryProfileStore, ProfileHandle, ProfileLocation, ProfileStore,
};
pub use runner::{BoxFuture, BrowserRunner, CliRunner, RECEIPTS_FILE, RunOutput};
pub use saved_state::StateKey;
pub use stage::{
    CLOSED_FILE, ENV_FILE, LOGIN_CHECK_FILE, StageBrowser, StageRecord, StageSpec, StageTeardown,
};
pub use status::{RunAnchor, RunStatus, StageStatus};
pub use watch::{AnchorHealth, AnchorStatus};
