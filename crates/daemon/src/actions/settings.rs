//! `set viewport|device|geo|offline|headers|media`, `cookies`, `storage`.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::daemon::{Daemon, LaunchNote};
use crate::errors::Failure;
use crate::protocol::Request;

/// Handles the settings actions; `None` for other actions.
pub async fn dispatch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Option<Result<Value, Failure>> {
    let action = request.action.as_str();
    if !matches!(
        action,
        "viewport"
            | "device"
            | "geolocation"
            | "offline"
            | "headers"
            | "emulatemedia"
            | "cookies_get"
            | "cookies_set"
            | "cookies_clear"
            | "storage_get"
            | "storage_set"
            | "storage_clear"
    ) {
        return None;
    }
    let session = match daemon.ensure_session(note, launch_ms).await {
        Ok(session) => session,
        Err(failure) => return Some(Err(failure)),
    };
    let result = async {
        Ok::<Value, Failure>(match action {
            "viewport" => {
                let width = request
                    .u64("width")
                    .ok_or("Missing required parameter: width")? as u32;
                let height = request
                    .u64("height")
                    .ok_or("Missing required parameter: height")?
                    as u32;
                json!(
                    session
                        .set_viewport(width, height, request.f64("deviceScaleFactor"))
                        .await?
                )
            }
            "device" => json!(session.set_device(request.required_str("device")?).await?),
            "geolocation" => {
                let lat = request
                    .f64("latitude")
                    .ok_or("Missing required parameter: latitude")?;
                let lng = request
                    .f64("longitude")
                    .ok_or("Missing required parameter: longitude")?;
                session.set_geolocation(lat, lng).await?
            }
            "offline" => {
                session
                    .set_offline(
                        request
                            .params
                            .get("offline")
                            .and_then(Value::as_bool)
                            .unwrap_or(true),
                    )
                    .await?
            }
            "headers" => {
                let headers = request
                    .params
                    .get("headers")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                session.set_headers(&headers).await?
            }
            "emulatemedia" => {
                session
                    .set_media(request.str("colorScheme"), request.str("reducedMotion"))
                    .await?
            }
            "cookies_get" => json!({"cookies": session.cookies().await?}),
            "cookies_set" => {
                let cookies = request
                    .params
                    .get("cookies")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                session.set_cookies(&cookies).await?
            }
            "cookies_clear" => session.clear_cookies().await?,
            "storage_get" => {
                session
                    .storage_get(request.str("type").unwrap_or("local"), request.str("key"))
                    .await?
            }
            "storage_set" => {
                let kind = request.str("type").unwrap_or("local");
                session
                    .storage_set(
                        kind,
                        request.required_str("key")?,
                        request.str("value").unwrap_or(""),
                    )
                    .await?
            }
            "storage_clear" => {
                session
                    .storage_clear(request.str("type").unwrap_or("local"))
                    .await?
            }
            _ => return Err(Failure::message(format!("Not yet implemented: {action}"))),
        })
    }
    .await;
    Some(result)
}
