//! Action dispatch: request → engine call → upstream-shaped `data`.
//!
//! One file per area: [`core`] (launch, navigation, reading, waits, eval, screenshots, tabs,
//! session), and further modules as capabilities land. Unknown actions get upstream's
//! `Not yet implemented: <action>`.

mod core;
mod dialog;
mod interact;
mod settings;

use std::sync::Arc;

use serde_json::Value;

use crate::daemon::{Daemon, LaunchNote};
use crate::errors::Failure;
use crate::protocol::Request;

/// Runs one action.
pub async fn dispatch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Result<Value, Failure> {
    let handled = match core::dispatch(daemon, request, note, launch_ms).await {
        Some(result) => Some(result),
        None => match dialog::dispatch(daemon, request, note, launch_ms).await {
            Some(result) => Some(result),
            None => match interact::dispatch(daemon, request, note, launch_ms).await {
                Some(result) => Some(result),
                None => settings::dispatch(daemon, request, note, launch_ms).await,
            },
        },
    };
    if let Some(result) = handled {
        return result.map_err(|failure| name_blocked_command(failure, &request.action));
    }
    Err(Failure::message(format!(
        "Not yet implemented: {}",
        request.action
    )))
}

/// Upstream names the blocked command by its action (`retry \`gettext\``).
fn name_blocked_command(mut failure: Failure, action: &str) -> Failure {
    if failure.code == Some("dialog_blocking")
        && let Some(start) = failure.message.rfind("then retry `")
    {
        failure.message = format!("{}then retry `{action}`.", &failure.message[..start]);
    }
    failure
}
