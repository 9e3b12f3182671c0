//! `dialog accept [text] | dismiss | status`.

use std::sync::Arc;

use abx_engine::EngineError;
use serde_json::{Value, json};

use crate::daemon::{Daemon, LaunchNote};
use crate::errors::Failure;
use crate::protocol::Request;

/// Handles `dialog`; `None` for other actions.
pub async fn dispatch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Option<Result<Value, Failure>> {
    if request.action != "dialog" {
        return None;
    }
    let session = match daemon.ensure_session(note, launch_ms).await {
        Ok(session) => session,
        Err(failure) => return Some(Err(failure)),
    };
    let outcome = match request.str("response").unwrap_or("status") {
        "accept" => session
            .dialog_accept(request.str("promptText"), "command")
            .await
            .map(|()| json!({"handled": true, "accepted": true})),
        "dismiss" => session
            .dialog_dismiss("command")
            .await
            .map(|()| json!({"handled": true, "accepted": false})),
        "status" => session.dialog_status().await.map(|status| json!(status)),
        other => {
            return Some(Err(Failure::message(format!(
                "Unknown dialog response: {other}. Use accept, dismiss or status"
            ))));
        }
    };
    Some(outcome.map_err(|err| match err {
        // Upstream's wording when there is nothing to answer.
        EngineError::NoDialog => {
            Failure::message("CDP error (Page.handleJavaScriptDialog): No dialog is showing")
        }
        other => other.into(),
    }))
}
