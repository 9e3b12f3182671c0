//! The wire: what a line from the Host is, what a line to the Host is, and the typed errors.
//! The schema itself (every operation, reply, event and error code) is in `docs/host.md`,
//! "JSON front".

use abx_host::{HostError, LiveViewError, RunState};
use serde::Serialize;
use serde_json::Value;

/// The protocol version; a request may name it in `v`, and `hello` and the `ready` event say it.
pub const PROTOCOL: u32 = 1;

/// A line longer than this is refused with `request_too_large` (and skipped).
pub const MAX_LINE: usize = 1 << 20;

/// Why a request failed: `{"error": {"code", "message"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct FrontError {
    /// A stable snake-case code (the list is in `docs/host.md`).
    pub code: &'static str,
    /// For a person; never carries secrets (no env values, tokens or typed text).
    pub message: String,
}

impl FrontError {
    /// An error with `code`.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// Arguments that do not fit the operation.
    pub fn invalid(message: impl std::fmt::Display) -> Self {
        Self::new("invalid_request", message.to_string())
    }
}

impl From<HostError> for FrontError {
    fn from(error: HostError) -> Self {
        let code = match &error {
            HostError::InvalidName { .. } => "invalid_name",
            HostError::LeaseWaitTimedOut { .. } => "lease_wait_timed_out",
            HostError::LeaseWaitCancelled { .. } => "lease_wait_cancelled",
            HostError::NoScreen { .. } => "no_screen",
            HostError::SocketPathTooLong { .. } => "socket_path_too_long",
            HostError::Command { .. } => "command_failed",
            HostError::Anchor { .. } => "anchor_unreachable",
            HostError::AnchorLockTimedOut { .. } => "anchor_lock_timed_out",
            HostError::Remote { .. } => "remote_browser",
            HostError::NoStageEnv { .. } => "no_stage_env",
            HostError::Corrupt { .. } => "corrupt_record",
            HostError::Profile { .. } => "profile",
            HostError::Io { .. } => "io",
            // Variants added later reach the Host with their message under a generic code.
            _ => "host_error",
        };
        Self::new(code, error.to_string())
    }
}

impl From<LiveViewError> for FrontError {
    fn from(error: LiveViewError) -> Self {
        let code = match &error {
            LiveViewError::Denied => "live_view_denied",
            LiveViewError::WrongScope => "live_view_wrong_scope",
            LiveViewError::ControllerBusy => "controller_busy",
            LiveViewError::ReadOnly => "read_only",
            LiveViewError::BadMessage(_) => "bad_viewer_message",
            LiveViewError::NoBrowser { .. } => "no_browser",
            LiveViewError::Closed => "viewer_closed",
            _ => "live_view_error",
        };
        Self::new(code, error.to_string())
    }
}

/// One request line, split into its parts.
#[derive(Debug)]
pub struct Request {
    /// Echoed in the reply; `None` for a notification (no reply unless it fails).
    pub id: Option<Value>,
    /// The operation.
    pub op: String,
    /// Its arguments (`{}` when absent).
    pub args: Value,
}

impl Request {
    /// Parses one line. On failure, the id (when one could be read) and the error.
    pub fn parse(line: &[u8]) -> Result<Request, (Option<Value>, FrontError)> {
        let value: Value = serde_json::from_slice(line).map_err(|e| {
            (
                None,
                FrontError::new("parse_error", format!("not JSON: {e}")),
            )
        })?;
        let Value::Object(mut fields) = value else {
            return Err((
                None,
                FrontError::invalid("a request is a JSON object with an \"op\""),
            ));
        };
        let id = fields.remove("id");
        let fail = |error| Err((id.clone(), error));
        if let Some(v) = fields.get("v")
            && v.as_u64() != Some(u64::from(PROTOCOL))
        {
            return fail(FrontError::new(
                "unsupported_version",
                format!("this front speaks protocol {PROTOCOL}, the request asked for {v}"),
            ));
        }
        let op = match fields.remove("op") {
            Some(Value::String(op)) => op,
            _ => return fail(FrontError::invalid("\"op\" (a string) is missing")),
        };
        let args = match fields.remove("args") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(args @ Value::Object(_)) => args,
            Some(_) => return fail(FrontError::invalid("\"args\" must be an object")),
        };
        Ok(Request { id, op, args })
    }
}

/// `{"id":…,"result":…}`.
pub fn reply_line(id: &Value, result: &Value) -> String {
    serde_json::json!({ "id": id, "result": result }).to_string()
}

/// `{"id":…,"error":{"code","message"}}` (`id` null when the request had none).
pub fn error_line(id: Option<&Value>, error: &FrontError) -> String {
    serde_json::json!({ "id": id.unwrap_or(&Value::Null), "error": error }).to_string()
}

/// A run state's wire name.
pub fn run_state_name(state: RunState) -> &'static str {
    match state {
        RunState::Running => "running",
        RunState::Waiting => "waiting",
        RunState::Ended => "ended",
        RunState::Unknown => "unknown",
    }
}

/// A run state from its wire name.
pub fn parse_run_state(name: &str) -> Option<RunState> {
    Some(match name {
        "running" => RunState::Running,
        "waiting" => RunState::Waiting,
        "ended" => RunState::Ended,
        "unknown" => RunState::Unknown,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_line_is_an_error_not_a_panic() {
        for line in [
            &b"{"[..],
            b"[]",
            b"42",
            b"\xff\xfe",
            b"{\"op\":7}",
            b"{\"id\":1}",
        ] {
            assert!(Request::parse(line).is_err(), "{line:?}");
        }
        let (id, error) = Request::parse(br#"{"id":"x","op":"hello","v":2}"#).expect_err("refused");
        assert_eq!(id, Some(Value::from("x")));
        assert_eq!(error.code, "unsupported_version");
        let (id, error) =
            Request::parse(br#"{"id":3,"op":"hello","args":[1]}"#).expect_err("refused");
        assert_eq!((id, error.code), (Some(Value::from(3)), "invalid_request"));
    }

    #[test]
    fn a_request_keeps_its_id_op_and_args() {
        let request =
            Request::parse(br#"{"id":4,"op":"end_run","args":{"run":"r"}}"#).expect("valid");
        assert_eq!(request.id, Some(Value::from(4)));
        assert_eq!(request.op, "end_run");
        assert_eq!(request.args["run"], "r");
        let bare = Request::parse(br#"{"op":"hello"}"#).expect("valid");
        assert!(bare.id.is_none() && bare.args.is_object());
    }

    #[test]
    fn run_states_round_trip_by_name() {
        for state in [
            RunState::Running,
            RunState::Waiting,
            RunState::Ended,
            RunState::Unknown,
        ] {
            assert_eq!(parse_run_state(run_state_name(state)), Some(state));
        }
        assert_eq!(parse_run_state("alive"), None);
    }
}
