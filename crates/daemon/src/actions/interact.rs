//! Observation and interaction: snapshot, element actions, find, is/get, annotated screenshots,
//! pdf, diff.

use std::sync::Arc;
use std::time::Duration;

use abx_engine::{ClickOptions, FindAction, Locator, PdfOptions, Session, SnapshotOptions};
use serde::Serialize;
use serde_json::{Value, json};

use crate::daemon::{Daemon, LaunchNote};
use crate::errors::Failure;
use crate::protocol::Request;

/// Handles the interaction actions; `None` for other actions.
pub async fn dispatch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Option<Result<Value, Failure>> {
    if !handles(&request.action) {
        return None;
    }
    let session = match daemon.ensure_session(note, launch_ms).await {
        Ok(session) => session,
        Err(failure) => return Some(Err(failure)),
    };
    // Actions that can start a navigation wait for the page they lead to (bounded), so the next
    // command (`snapshot`, `get url`) sees it.
    let navigates = matches!(
        request.action.as_str(),
        "click"
            | "dblclick"
            | "press"
            | "keyboard"
            | "type"
            | "getbyrole"
            | "getbytext"
            | "getbylabel"
            | "getbyalttext"
            | "getbytitle"
            | "getbytestid"
            | "nth"
    );
    let marker = if navigates {
        session.navigation_marker().await
    } else {
        None
    };
    let result = run(&session, request).await;
    if result.is_ok() && navigates {
        let within = request
            .u64("timeout")
            .map(Duration::from_millis)
            .unwrap_or(session.options().default_timeout);
        session.settle_navigation(marker, within).await;
    }
    Some(result)
}

fn handles(action: &str) -> bool {
    matches!(
        action,
        "snapshot"
            | "click"
            | "dblclick"
            | "fill"
            | "type"
            | "press"
            | "keydown"
            | "keyup"
            | "keyboard"
            | "hover"
            | "focus"
            | "select"
            | "check"
            | "uncheck"
            | "scroll"
            | "scrollintoview"
            | "drag"
            | "upload"
            | "mousemove"
            | "mousedown"
            | "mouseup"
            | "wheel"
            | "getbyrole"
            | "getbytext"
            | "getbylabel"
            | "getbyplaceholder"
            | "getbyalttext"
            | "getbytitle"
            | "getbytestid"
            | "nth"
            | "isvisible"
            | "isenabled"
            | "ischecked"
            | "gettext"
            | "innerhtml"
            | "inputvalue"
            | "getattribute"
            | "count"
            | "boundingbox"
            | "styles"
            | "pdf"
            | "diff_snapshot"
            | "highlight"
    )
}

fn data<T: Serialize>(value: T) -> Result<Value, Failure> {
    serde_json::to_value(value)
        .map_err(|e| Failure::message(format!("cannot encode the result: {e}")))
}

fn selector(request: &Request) -> Result<&str, Failure> {
    Ok(request.required_str("selector")?)
}

fn snapshot_options(request: &Request) -> SnapshotOptions {
    SnapshotOptions {
        interactive: request.flag("interactive"),
        compact: request.flag("compact"),
        max_depth: request.u64("maxDepth").map(|d| d as usize),
        selector: request.str("selector").map(str::to_string),
        urls: request.flag("urls"),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn find_action(request: &Request) -> Result<FindAction, Failure> {
    Ok(match request.str("subaction").unwrap_or("click") {
        "click" => FindAction::Click,
        "fill" => FindAction::Fill(request.str("value").unwrap_or("").to_string()),
        "check" => FindAction::Check,
        "hover" => FindAction::Hover,
        "text" => FindAction::Text,
        other => {
            return Err(Failure::message(format!(
                "Unknown find action: {other}. Use click, fill, check, hover or text"
            )));
        }
    })
}

async fn run(session: &Arc<Session>, request: &Request) -> Result<Value, Failure> {
    let timeout = request.u64("timeout").map(Duration::from_millis);
    match request.action.as_str() {
        "snapshot" => {
            if request.flag("delta") {
                return Err(Failure::message(
                    "snapshot --delta is not supported by abx yet; run `snapshot`",
                ));
            }
            data(session.snapshot(&snapshot_options(request)).await?)
        }
        "diff_snapshot" => data(
            session
                .diff_snapshot(&snapshot_options(request), request.str("baseline"))
                .await?,
        ),
        "click" => {
            let options = ClickOptions {
                new_tab: request.flag("newTab"),
                button: request.str("button").map(str::to_string),
            };
            data(session.click(selector(request)?, &options, timeout).await?)
        }
        "dblclick" => data(session.dblclick(selector(request)?, timeout).await?),
        "fill" => data(
            session
                .fill(
                    selector(request)?,
                    request.str("value").unwrap_or(""),
                    timeout,
                )
                .await?,
        ),
        "type" => {
            let delay = request.u64("delay").map(Duration::from_millis);
            let text = request.str("text").unwrap_or("");
            data(
                session
                    .type_text(
                        selector(request)?,
                        text,
                        request.flag("clear"),
                        delay,
                        timeout,
                    )
                    .await?,
            )
        }
        "press" => data(session.press(request.required_str("key")?, timeout).await?),
        "keydown" => data(
            session
                .key_down(request.required_str("key")?, timeout)
                .await?,
        ),
        "keyup" => data(
            session
                .key_up(request.required_str("key")?, timeout)
                .await?,
        ),
        "keyboard" => {
            let text = request.str("text").unwrap_or("");
            match request.str("subaction").unwrap_or("type") {
                "insertText" | "inserttext" => data(session.insert_text(text, timeout).await?),
                _ => data(
                    session
                        .keyboard_type(
                            text,
                            request.u64("delay").map(Duration::from_millis),
                            timeout,
                        )
                        .await?,
                ),
            }
        }
        "hover" => data(session.hover(selector(request)?, timeout).await?),
        "focus" => data(session.focus(selector(request)?, timeout).await?),
        "select" => {
            let values = strings(request.params.get("values"));
            data(session.select(selector(request)?, &values, timeout).await?)
        }
        "check" => data(session.check(selector(request)?, timeout).await?),
        "uncheck" => data(session.uncheck(selector(request)?, timeout).await?),
        "scroll" => {
            let direction = request.str("direction").unwrap_or("down");
            data(
                session
                    .scroll(
                        direction,
                        request.f64("amount"),
                        request.str("selector"),
                        timeout,
                    )
                    .await?,
            )
        }
        "scrollintoview" => data(
            session
                .scroll_into_view(selector(request)?, timeout)
                .await?,
        ),
        "drag" => data(
            session
                .drag(
                    request.required_str("source")?,
                    request.required_str("target")?,
                    timeout,
                )
                .await?,
        ),
        "upload" => {
            let files = strings(request.params.get("files"));
            data(session.upload(selector(request)?, &files, timeout).await?)
        }
        "mousemove" => data(
            session
                .mouse_move(
                    request.f64("x").unwrap_or(0.0),
                    request.f64("y").unwrap_or(0.0),
                    timeout,
                )
                .await?,
        ),
        "mousedown" => data(session.mouse_down(request.str("button"), timeout).await?),
        "mouseup" => data(session.mouse_up(request.str("button"), timeout).await?),
        "wheel" => data(
            session
                .mouse_wheel(
                    request.f64("deltaY").unwrap_or(100.0),
                    request.f64("deltaX").unwrap_or(0.0),
                    timeout,
                )
                .await?,
        ),
        "getbyrole" | "getbytext" | "getbylabel" | "getbyplaceholder" | "getbyalttext"
        | "getbytitle" | "getbytestid" | "nth" => {
            let locator = match request.action.as_str() {
                "getbyrole" => Locator::Role {
                    role: request.required_str("role")?.to_string(),
                    name: request.str("name").map(str::to_string),
                },
                "getbytext" => Locator::Text(request.required_str("text")?.to_string()),
                "getbylabel" => Locator::Label(request.required_str("label")?.to_string()),
                "getbyplaceholder" => {
                    Locator::Placeholder(request.required_str("placeholder")?.to_string())
                }
                "getbyalttext" => Locator::Alt(request.required_str("text")?.to_string()),
                "getbytitle" => Locator::Title(request.required_str("text")?.to_string()),
                "getbytestid" => Locator::TestId(request.required_str("testId")?.to_string()),
                _ => Locator::Nth {
                    selector: request.required_str("selector")?.to_string(),
                    index: request
                        .params
                        .get("index")
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                },
            };
            data(
                session
                    .find(
                        &locator,
                        &find_action(request)?,
                        request.flag("exact"),
                        timeout,
                    )
                    .await?,
            )
        }
        "isvisible" => data(session.is_visible(selector(request)?, timeout).await?),
        "isenabled" => data(session.is_enabled(selector(request)?, timeout).await?),
        "ischecked" => data(session.is_checked(selector(request)?, timeout).await?),
        "gettext" => data(session.get_text(selector(request)?, timeout).await?),
        "innerhtml" => data(session.get_html(selector(request)?, timeout).await?),
        "inputvalue" => data(session.get_value(selector(request)?, timeout).await?),
        "getattribute" => data(
            session
                .get_attribute(
                    selector(request)?,
                    request.required_str("attribute")?,
                    timeout,
                )
                .await?,
        ),
        "count" => data(session.get_count(selector(request)?, timeout).await?),
        "boundingbox" => data(session.get_box(selector(request)?, timeout).await?),
        "styles" => data(session.get_styles(selector(request)?, timeout).await?),
        "highlight" => {
            let sel = selector(request)?;
            session.scroll_into_view(sel, timeout).await?;
            Ok(json!({"highlighted": sel}))
        }
        "pdf" => {
            let path = request.required_str("path")?;
            let bytes = session.pdf(&PdfOptions::default(), timeout).await?;
            write_file(path, &bytes)?;
            Ok(json!({"path": path}))
        }
        other => Err(Failure::message(format!("Not yet implemented: {other}"))),
    }
}

/// Writes an output file, creating its directory.
pub fn write_file(path: &str, bytes: &[u8]) -> Result<(), Failure> {
    let path = std::path::Path::new(path);
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::message(format!("Cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, bytes)
        .map_err(|e| Failure::message(format!("Cannot write {}: {e}", path.display())))
}
