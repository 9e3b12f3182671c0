//! Action dispatch: request → engine call → upstream-shaped `data`.
//!
//! One file per area: [`core`] (launch, navigation, reading, waits, eval, screenshots, tabs,
//! session), and further modules as capabilities land. Unknown actions get upstream's
//! `Not yet implemented: <action>`.

mod core;

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
    if let Some(result) = core::dispatch(daemon, request, note, launch_ms).await {
        return result;
    }
    Err(Failure::message(format!(
        "Not yet implemented: {}",
        request.action
    )))
}
