//! Core actions: launch, navigation, reading, waits, eval, screenshots, tabs, console, session.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use abx_engine::{ScreenshotOptions, Session, WaitUntil};
use serde_json::{Value, json};

use crate::config::LaunchSpec;
use crate::daemon::{Daemon, LaunchNote};
use crate::errors::Failure;
use crate::protocol::Request;

/// Handles the core actions; `None` when `request.action` is not one of them.
pub async fn dispatch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Option<Result<Value, Failure>> {
    let action = request.action.as_str();
    // Actions that never touch (or launch) the browser.
    match action {
        "launch" => return Some(launch(daemon, request, note, launch_ms).await),
        "cdp_url" => {
            return Some(match daemon.live() {
                Some(live) => Ok(json!({"cdpUrl": live.session.browser().cdp_url()})),
                None => Err(Failure::message(
                    "Browser not launched. Run `agent-browser open` first",
                )),
            });
        }
        "session_info" => return Some(Ok(session_info(daemon))),
        "__abx_fault" if daemon.config.fault_injection => return Some(fault(daemon, request)),
        "stream_status" | "stream_enable" | "stream_disable" => {
            let hooks = daemon.stream.lock().ok().and_then(|s| s.clone());
            return Some(match hooks {
                Some(hooks) => hooks.control(action, request),
                None => match action {
                    "stream_status" => Ok(
                        json!({"enabled": false, "port": null, "connected": daemon.live().is_some(), "screencasting": false}),
                    ),
                    _ => Err(Failure::message(
                        "Streaming is not available in this daemon",
                    )),
                },
            });
        }
        _ => {}
    }
    if !is_core(action) {
        return None;
    }
    let session = match daemon.ensure_session(note, launch_ms).await {
        Ok(session) => session,
        Err(failure) => return Some(Err(failure)),
    };
    let result = run(daemon, &session, request).await;
    if matches!(
        action,
        "navigate" | "tab_new" | "tab_switch" | "tab_close" | "back" | "forward" | "reload"
    ) {
        daemon.write_target_binding();
        daemon.notify_session(Some(session.clone()));
    }
    Some(result)
}

fn is_core(action: &str) -> bool {
    matches!(
        action,
        "navigate"
            | "back"
            | "forward"
            | "reload"
            | "url"
            | "title"
            | "evaluate"
            | "wait"
            | "waitforurl"
            | "waitforloadstate"
            | "waitforfunction"
            | "screenshot"
            | "tab_list"
            | "tab_new"
            | "tab_switch"
            | "tab_close"
            | "console"
            | "errors"
            | "window_new"
            | "pushstate"
    )
}

fn timeout_of(request: &Request) -> Option<Duration> {
    request.u64("timeout").map(Duration::from_millis)
}

async fn run(
    daemon: &Arc<Daemon>,
    session: &Arc<Session>,
    request: &Request,
) -> Result<Value, Failure> {
    let timeout = timeout_of(request);
    match request.action.as_str() {
        "navigate" => {
            let url = request.required_str("url")?;
            let wait = match request.str("waitUntil") {
                Some(name) => WaitUntil::parse(name)?,
                None => WaitUntil::Load,
            };
            let nav = session.navigate(url, wait, timeout).await?;
            Ok(json!({"url": nav.url, "title": nav.title}))
        }
        "back" => Ok(json!({"url": session.history(-1, timeout).await?})),
        "forward" => Ok(json!({"url": session.history(1, timeout).await?})),
        "reload" => Ok(json!({"url": session.reload(timeout).await?})),
        "pushstate" => {
            let url = request.required_str("url")?;
            let script = format!("history.pushState(null, '', {}); location.href", json!(url));
            let value = session.evaluate(&script, timeout).await?;
            Ok(json!({"url": value.value}))
        }
        "url" => Ok(json!({"url": session.url().await?})),
        "title" => Ok(json!({"title": session.title().await?})),
        "evaluate" => {
            let script = request.required_str("script")?;
            let evaluated = session.evaluate(script, timeout).await?;
            let origin = session.url().await.unwrap_or_default();
            let mut data = json!({"result": evaluated.value, "origin": origin});
            if let Some(unser) = evaluated.unserializable {
                data["unserializable"] = json!(unser);
            }
            Ok(data)
        }
        "wait" => wait(session, request, timeout).await,
        "waitforurl" => {
            let pattern = request.required_str("url")?;
            Ok(json!({"url": session.wait_url(pattern, timeout).await?}))
        }
        "waitforloadstate" => {
            let state = request.str("state").unwrap_or("load");
            session.wait_load(WaitUntil::parse(state)?, timeout).await?;
            Ok(json!({"state": state}))
        }
        "waitforfunction" => {
            let expression = request.required_str("expression")?;
            let result = session
                .wait_for_function(expression, timeout, "waitforfunction")
                .await?;
            Ok(json!({"result": result}))
        }
        "screenshot" => screenshot(daemon, session, request).await,
        "tab_list" => Ok(json!({"tabs": session.tab_list().await?})),
        "tab_new" => {
            let tab = session
                .tab_new(request.str("url"), request.str("label"))
                .await?;
            let total = session.tabs().len();
            Ok(json!({"tabId": tab.tab_id, "label": tab.label, "url": tab.url, "total": total}))
        }
        "window_new" => {
            let tab = session.tab_new(None, None).await?;
            let total = session.tabs().len();
            Ok(
                json!({"tabId": tab.tab_id, "label": tab.label, "url": tab.url, "total": total, "window": true}),
            )
        }
        "tab_switch" => {
            let reference = request.required_str("tabId")?;
            let tab = session.tab_switch(reference).await?;
            Ok(json!({"tabId": tab.tab_id, "label": tab.label, "url": tab.url, "title": tab.title}))
        }
        "tab_close" => {
            let tab = session.tab_close(request.str("tabId")).await?;
            Ok(json!({"tabId": tab.tab_id, "label": tab.label, "closed": true}))
        }
        "console" => {
            let tab = session.active_tab().await?;
            Ok(json!({"messages": tab.console(request.flag("clear"))}))
        }
        "errors" => {
            let tab = session.active_tab().await?;
            Ok(json!({"errors": tab.errors(request.flag("clear"))}))
        }
        other => Err(Failure::message(format!("Not yet implemented: {other}"))),
    }
}

async fn launch(
    daemon: &Arc<Daemon>,
    request: &Request,
    note: &mut LaunchNote,
    launch_ms: &mut u64,
) -> Result<Value, Failure> {
    let launch: abx_wire::LaunchRequest = request
        .decode()
        .map_err(|e| Failure::message(e.to_string()))?;
    let mut spec = LaunchSpec::from_request(&launch, &daemon.config.launch);
    // Like upstream, an allowlist once set stays for the daemon's life: a later launch without
    // one keeps it (otherwise dropping the flag would relaunch an unfenced browser).
    if launch.allowed_domains.is_none()
        && spec.allowed_domains.is_empty()
        && let Some(live) = daemon.live()
    {
        spec.allowed_domains = live.spec.allowed_domains;
    }
    // Upstream rejects an allowlist with --cdp or --profile; abx enforces it there too
    // (docs/adr/0004-allowlist.md), so every combination is accepted.
    let had_browser = daemon.live().is_some();
    let live = Box::pin(daemon.launch(spec, note, launch_ms, true)).await?;
    let reused = had_browser && !note.relaunched && !note.launched_now;
    let _ = live;
    Ok(json!({"launched": true, "reused": reused, "relaunchedBrowser": note.relaunched}))
}

fn session_info(daemon: &Daemon) -> Value {
    let live = daemon.live();
    json!({
        "session": daemon.config.session,
        "socketDir": daemon.config.socket_dir,
        "backgroundPid": std::process::id(),
        "browserLaunched": live.is_some(),
        "engine": "chrome",
        "launchHash": live.as_ref().map(|l| l.hash),
        "pageCount": live.as_ref().map(|l| l.session.tabs().len()).unwrap_or(0),
        "cdpUrl": live.as_ref().map(|l| l.session.browser().cdp_url().to_string()),
        "pinned": live.as_ref().map(|l| l.spec.pin_tab).unwrap_or(false),
    })
}

async fn wait(
    session: &Arc<Session>,
    request: &Request,
    timeout: Option<Duration>,
) -> Result<Value, Failure> {
    if let Some(selector) = request.str("selector") {
        let state = request.str("state").unwrap_or("visible");
        session.wait_selector(selector, state, timeout).await?;
        return Ok(json!({"waited": "selector", "selector": selector}));
    }
    if let Some(text) = request.str("text") {
        session.wait_text(text, timeout).await?;
        return Ok(json!({"waited": "text", "text": text}));
    }
    let ms = request.u64("timeout").unwrap_or(0);
    session.wait_ms(ms).await;
    Ok(json!({"waited": "timeout", "ms": ms}))
}

async fn screenshot(
    daemon: &Daemon,
    session: &Arc<Session>,
    request: &Request,
) -> Result<Value, Failure> {
    let format = request.str("format").map(str::to_string);
    let quality = request.u64("quality").map(|q| q.min(100) as u8);
    let options = ScreenshotOptions {
        full_page: request.flag("fullPage"),
        format: format.clone(),
        quality,
        selector: request.str("selector").map(str::to_string),
    };
    let (bytes, annotations) = if request.flag("annotate") {
        let shot = session
            .screenshot_annotated(&options, timeout_of(request))
            .await?;
        (shot.image, Some(shot.annotations))
    } else {
        (
            session.screenshot(&options, timeout_of(request)).await?,
            None,
        )
    };
    let extension = if format.as_deref() == Some("jpeg") {
        "jpg"
    } else {
        "png"
    };
    let path = match request.str("path") {
        Some(path) => PathBuf::from(path),
        None => {
            let dir = request
                .str("screenshotDir")
                .map(PathBuf::from)
                .unwrap_or_else(|| default_screenshot_dir(daemon));
            dir.join(format!("screenshot-{}.{extension}", epoch_ms()))
        }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::message(format!("Cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(&path, &bytes)
        .map_err(|e| Failure::message(format!("Cannot write {}: {e}", path.display())))?;
    let mut data = json!({"path": display_path(&path)});
    if let Some(annotations) = annotations {
        data["annotations"] = json!(annotations);
    }
    Ok(data)
}

fn default_screenshot_dir(_daemon: &Daemon) -> PathBuf {
    let home = std::env::var("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir());
    home.join(".agent-browser").join("tmp").join("screenshots")
}

fn display_path(path: &Path) -> String {
    path.display().to_string()
}

fn epoch_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// Fault injection for the reliability tests (only with `ABX_FAULT_INJECTION=1`).
fn fault(daemon: &Daemon, request: &Request) -> Result<Value, Failure> {
    let live = daemon
        .live()
        .ok_or_else(|| Failure::message("no browser"))?;
    match request.str("kind") {
        Some("drop_cdp") => {
            live.session.browser().connection().close();
            Ok(json!({"injected": "drop_cdp"}))
        }
        other => Err(Failure::message(format!("unknown fault {other:?}"))),
    }
}
