//! Performance traces and sampling profiles (`Tracing` domain, Chrome's trace-event JSON) and
//! V8 CPU profiles (`Profiler` domain, DevTools' `.cpuprofile` JSON) of one tab, through that
//! tab's own CDP session.
//!
//! Each is a handle: [`Trace::start`] returns a running [`Trace`], [`Trace::stop`] ends it and
//! returns the file's text; the same for [`CpuProfile`]. Nothing is kept on the session, so a
//! caller decides how many run at once (the daemon allows one of each).
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> abx_engine::Result<()> {
//! use std::time::Duration;
//! let tab = session.active_tab().await?;
//! let trace = abx_engine::Trace::start(&tab, None, Duration::from_secs(10)).await?;
//! // ... drive the page ...
//! let done = trace.stop(Duration::from_secs(30)).await?;
//! std::fs::write("trace.json", &done.json).expect("write");
//! println!("{} events", done.events);
//! # Ok(()) }
//! ```

use std::sync::Arc;
use std::time::Duration;

use abx_cdp::EventFilter;
use abx_cdp::protocol::browser_protocol::{io, tracing as cdp};
use abx_cdp::protocol::js_protocol::profiler;
use serde_json::Value;

use crate::error::{EngineError, Result};
use crate::tab::Tab;

/// The categories DevTools' performance panel records (timeline, JS, user timing, CPU samples).
pub const DEFAULT_TRACE_CATEGORIES: &[&str] = &[
    "-*",
    "devtools.timeline",
    "v8.execute",
    "blink",
    "blink.user_timing",
    "latencyInfo",
    "renderer.scheduler",
    "toplevel",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-v8.cpu_profiler",
];

/// The categories a sampling profile records (`profiler start`, as upstream's): the timeline,
/// V8's CPU profiler samples (`ProfileChunk` events) and its runtime statistics, Blink, the
/// scheduler and the top-level tasks. DevTools' Performance panel loads the file.
pub const DEFAULT_PROFILE_CATEGORIES: &[&str] = &[
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "v8.execute",
    "disabled-by-default-v8.cpu_profiler",
    "disabled-by-default-v8.cpu_profiler.hires",
    "v8",
    "disabled-by-default-v8.runtime_stats",
    "blink",
    "blink.user_timing",
    "latencyInfo",
    "renderer.scheduler",
    "sequence_manager",
    "toplevel",
];

/// A finished trace or profile.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The file's JSON text.
    pub json: String,
    /// Trace events (a trace) or samples (a CPU profile).
    pub events: usize,
}

/// A running trace of one tab.
#[derive(Debug)]
pub struct Trace {
    tab: Arc<Tab>,
    /// A sampling profile ([`Trace::start_profile`]): written in upstream's profile shape.
    profile: bool,
}

impl Trace {
    /// Starts tracing `categories` (default [`DEFAULT_TRACE_CATEGORIES`]).
    pub async fn start(
        tab: &Arc<Tab>,
        categories: Option<&[String]>,
        timeout: Duration,
    ) -> Result<Trace> {
        Self::start_config(tab, categories, DEFAULT_TRACE_CATEGORIES, false, timeout).await
    }

    /// Starts a sampling profile: a trace of `categories` (default
    /// [`DEFAULT_PROFILE_CATEGORIES`]) with sampling on, so the file carries the CPU samples.
    pub async fn start_profile(
        tab: &Arc<Tab>,
        categories: Option<&[String]>,
        timeout: Duration,
    ) -> Result<Trace> {
        Self::start_config(tab, categories, DEFAULT_PROFILE_CATEGORIES, true, timeout).await
    }

    async fn start_config(
        tab: &Arc<Tab>,
        categories: Option<&[String]>,
        default: &[&str],
        sampling: bool,
        timeout: Duration,
    ) -> Result<Trace> {
        let categories: Vec<String> = match categories {
            Some(c) if !c.is_empty() => c.to_vec(),
            _ => default.iter().map(ToString::to_string).collect(),
        };
        let (included, excluded): (Vec<String>, Vec<String>) =
            categories.into_iter().partition(|c| !c.starts_with('-'));
        let config = cdp::TraceConfig {
            record_mode: Some(cdp::TraceConfigRecordMode::RecordAsMuchAsPossible),
            enable_sampling: sampling.then_some(true),
            included_categories: Some(included),
            excluded_categories: Some(
                excluded
                    .into_iter()
                    .map(|c| c.trim_start_matches('-').to_string())
                    .collect(),
            ),
            ..Default::default()
        };
        let params = cdp::StartParams {
            transfer_mode: Some(cdp::StartTransferMode::ReturnAsStream),
            stream_format: Some(cdp::StreamFormat::Json),
            trace_config: Some(config),
            ..Default::default()
        };
        tab.request("trace_start", params, timeout).await?;
        Ok(Trace {
            tab: tab.clone(),
            profile: sampling,
        })
    }

    /// Ends the trace and reads it back from Chrome.
    pub async fn stop(self, timeout: Duration) -> Result<Finished> {
        let cdp_session = self.tab.cdp().clone();
        let mut complete = cdp_session.subscribe(
            EventFilter::methods([cdp::EventTracingComplete::IDENTIFIER]),
            4,
        );
        self.tab
            .request("trace_stop", cdp::EndParams::default(), timeout)
            .await?;
        let event = tokio::time::timeout(timeout, complete.recv())
            .await
            .map_err(|_| EngineError::Timeout {
                what: "trace_stop (waiting for Chrome's trace data)".into(),
                after: timeout,
            })?
            .ok_or_else(|| EngineError::Page("the tab closed before the trace ended".into()))?;
        let done: cdp::EventTracingComplete = event.parse()?;
        let handle = done
            .stream
            .ok_or_else(|| EngineError::Chrome("Chrome returned no trace stream".into()))?;
        let mut text = String::new();
        loop {
            let chunk = self
                .tab
                .request(
                    "trace_stop",
                    io::ReadParams {
                        handle: handle.clone(),
                        offset: None,
                        size: Some(1 << 20),
                    },
                    timeout,
                )
                .await?;
            if chunk.base64_encoded == Some(true) {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(chunk.data.as_bytes())
                    .map_err(|e| EngineError::Chrome(format!("trace data: {e}")))?;
                text.push_str(&String::from_utf8_lossy(&bytes));
            } else {
                text.push_str(&chunk.data);
            }
            if chunk.eof {
                break;
            }
        }
        let _ = self
            .tab
            .request("trace_stop", io::CloseParams { handle }, timeout)
            .await;
        let mut parsed: Value = serde_json::from_str(&text)
            .map_err(|e| EngineError::Chrome(format!("Chrome's trace is not JSON: {e}")))?;
        let events = parsed
            .get("traceEvents")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if !self.profile {
            return Ok(Finished { json: text, events });
        }
        // A profile keeps only the clock domain of Chrome's metadata, as upstream writes it: the
        // rest (the browser's command line, its proxy and paths among it) has no use in a profile
        // an agent may hand on.
        let clock = parsed
            .pointer("/metadata/clock-domain")
            .cloned()
            .filter(Value::is_string);
        let mut profile = serde_json::Map::new();
        profile.insert(
            "traceEvents".into(),
            parsed
                .get_mut("traceEvents")
                .map_or_else(|| Value::Array(Vec::new()), Value::take),
        );
        if let Some(clock) = clock {
            profile.insert(
                "metadata".into(),
                Value::Object(serde_json::Map::from_iter([("clock-domain".into(), clock)])),
            );
        }
        let json = serde_json::to_string(&profile)
            .map_err(|e| EngineError::Internal(format!("profile: {e}")))?;
        Ok(Finished { json, events })
    }
}

/// A running CPU profile of one tab's JavaScript.
#[derive(Debug)]
pub struct CpuProfile {
    tab: Arc<Tab>,
}

impl CpuProfile {
    /// Starts the sampling profiler.
    pub async fn start(tab: &Arc<Tab>, timeout: Duration) -> Result<CpuProfile> {
        tab.request("profiler_start", profiler::EnableParams::default(), timeout)
            .await?;
        tab.request("profiler_start", profiler::StartParams::default(), timeout)
            .await?;
        Ok(CpuProfile { tab: tab.clone() })
    }

    /// Stops it and returns the `.cpuprofile` JSON (`nodes`, `startTime`, `endTime`,
    /// `samples`, `timeDeltas`).
    pub async fn stop(self, timeout: Duration) -> Result<Finished> {
        let stopped = self
            .tab
            .request("profiler_stop", profiler::StopParams::default(), timeout)
            .await?;
        let _ = self
            .tab
            .request("profiler_stop", profiler::DisableParams::default(), timeout)
            .await;
        let events = stopped.profile.samples.as_ref().map_or(0, Vec::len);
        let json = serde_json::to_string(&stopped.profile)
            .map_err(|e| EngineError::Internal(format!("profile: {e}")))?;
        Ok(Finished { json, events })
    }
}
