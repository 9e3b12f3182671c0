//! `launch`: how the session gets its browser (a local Chrome, or one attached over CDP). The
//! CLI sends it before the real command when global flags carry launch settings (contract
//! §1.6, §1.8); `open` without a URL and `connect` send one too. An explicit launch replaces a
//! running browser whose settings differ.

use abx_wire::{LaunchRequest, ProxyRequest, encode, extras};
use serde::Deserialize;
use serde_json::{Value, json};

use abx_daemon::config::LaunchSpec;

pub use crate::commands::invocation::{Launch, LaunchKind};
use crate::commands::prelude::{Action, Command, Ctx, Failure, Grammar};
use crate::globals::{Flags, parse_proxy, split_launch_args};
use abx_daemon::dispatch::Lane;

/// The wire action.
pub const ACTION: &str = "launch";

/// The entry: no CLI words of its own.
pub const COMMAND: Command = Command {
    names: &[],
    help: None,
    grammar: Grammar::Internal,
    // Fencing: the CLI pipelines `launch` and its command on one connection (see client.rs).
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))
        .fencing_on_failure()
        .with_lane_of(lane)],
    mcp: &[],
};

/// A launch that keeps the running browser (the same settings, or local settings riding along
/// on an attached session) changes nothing a page command uses: it runs at once, not behind a
/// page command that may hang (an `open` sent from another shell to interrupt a stuck
/// navigation comes with one). Any other launch waits for its turn.
fn lane(ctx: &Ctx<'_>) -> Lane {
    let Some(live) = ctx.live() else {
        return Lane::Queued;
    };
    let Ok(spec) = spec_for(ctx) else {
        return Lane::Queued;
    };
    if !live.session.browser().is_alive() {
        return Lane::Queued;
    }
    if (!spec.is_attach() && live.spec.is_attach()) || spec.hash() == live.hash {
        Lane::Fast
    } else {
        Lane::Queued
    }
}

/// The launch settings a request asks for, completed from the running browser's.
fn spec_for(ctx: &Ctx<'_>) -> Result<LaunchSpec, Failure> {
    let launch: LaunchRequest = ctx.params()?;
    let mut spec = LaunchSpec::from_request(&launch, &ctx.config().launch);
    // Like upstream, an allowlist once set stays for the daemon's life: a later launch without
    // one keeps it (otherwise dropping the flag would relaunch an unfenced browser).
    if launch.allowed_domains.is_none()
        && spec.allowed_domains.is_empty()
        && let Some(live) = ctx.live()
    {
        spec.allowed_domains = live.spec.allowed_domains;
    }
    // CA trust, too, stays for the session until `--no-ca-cert` clears it (upstream's rule).
    if launch.ca_cert.is_none()
        && launch.clear_ca_cert != Some(true)
        && spec.ca_cert.is_none()
        && !spec.is_attach()
        && let Some(live) = ctx.live()
        && !live.spec.is_attach()
    {
        spec.ca_cert = live.spec.ca_cert;
    }
    // Page settings a launch does not mention stay as the live browser has them (a launch
    // sent for other flags must not relaunch without them); one that changes them relaunches.
    if let Some(live) = ctx.live() {
        spec.pages.keep_unmentioned(&launch, &live.spec.pages);
    }
    Ok(spec)
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let spec = spec_for(ctx)?;
    // The CA settings of a launch are the session's for HTTP reads too.
    let launch: LaunchRequest = ctx.params()?;
    let ca_file = if launch.clear_ca_cert == Some(true) {
        Some(None)
    } else {
        launch
            .ca_cert
            .as_deref()
            .filter(|p| !p.is_empty())
            .map(|p| Some(std::path::PathBuf::from(p)))
    };
    ctx.update_http_trust(ca_file, launch.use_system_ca);
    // Upstream rejects an allowlist with --cdp or --profile; abx enforces it there too
    // (docs/adr/0004-allowlist.md), so every combination is accepted.
    let had_browser = ctx.live().is_some();
    // After `connect`, later commands act on the attached browser: local launch settings that
    // ride along with them (`AGENT_BROWSER_ARGS`, `--headed`, …) do not replace it with a local
    // Chrome, as upstream does.
    if !spec.is_attach()
        && let Some(live) = ctx.live()
        && live.spec.is_attach()
        && live.session.browser().is_alive()
    {
        return Ok(json!({"launched": true, "reused": true, "relaunchedBrowser": false}));
    }
    ctx.launch(spec).await?;
    let note = ctx.launch_note();
    let reused = had_browser && !note.relaunched && !note.launched_now;
    Ok(json!({"launched": true, "reused": reused, "relaunchedBrowser": note.relaunched}))
}

/// Client-side rejection of launch modes that cannot be combined (upstream's wording).
pub fn incompatible_launch_mode_error(flags: &Flags) -> Option<&'static str> {
    let cdp = flags.cdp.is_some();
    let provider = flags.provider.is_some();
    let auto = flags.auto_connect;
    let ca = flags.ca_cert.is_some();
    if cdp && provider {
        return Some("Cannot use --cdp and -p/--provider together");
    }
    if auto && cdp {
        return Some("Cannot use --auto-connect and --cdp together");
    }
    if auto && provider {
        return Some("Cannot use --auto-connect and -p/--provider together");
    }
    if provider && !flags.extensions.is_empty() {
        return Some(
            "Cannot use --extension with -p/--provider (extensions require local browser)",
        );
    }
    if cdp && !flags.extensions.is_empty() {
        return Some("Cannot use --extension with --cdp (extensions require local browser)");
    }
    if flags.webgpu && cdp {
        return Some(
            "Cannot use --webgpu with --cdp (the WebGPU preset requires a local browser launch; pass --webgpu false to override env/config)",
        );
    }
    if flags.webgpu && provider {
        return Some(
            "Cannot use --webgpu with -p/--provider (the WebGPU preset requires a local browser launch; pass --webgpu false to override env/config)",
        );
    }
    if flags.webgpu && auto {
        return Some(
            "Cannot use --webgpu with --auto-connect (the WebGPU preset requires a local browser launch; pass --webgpu false to override env/config)",
        );
    }
    if ca && flags.ignore_https_errors {
        return Some("Cannot use --ca-cert with --ignore-https-errors");
    }
    if ca && flags.clear_ca_cert {
        return Some("Cannot use --ca-cert with --no-ca-cert");
    }
    if ca && cdp {
        return Some(
            "Cannot use --ca-cert with --cdp (--ca-cert requires a locally launched Chromium browser on Linux)",
        );
    }
    if ca && auto {
        return Some(
            "Cannot use --ca-cert with --auto-connect (--ca-cert requires a locally launched Chromium browser on Linux)",
        );
    }
    if ca && provider {
        return Some(
            "Cannot use --ca-cert with -p/--provider (--ca-cert requires a locally launched Chromium browser on Linux)",
        );
    }
    if ca && flags.profile.is_some() {
        return Some(
            "Cannot use --ca-cert with --profile because isolated CA trust would change the profile's NSS environment",
        );
    }
    if ca
        && flags
            .engine
            .as_deref()
            .is_some_and(|e| !e.eq_ignore_ascii_case("chrome"))
    {
        return Some("--ca-cert is supported only with the Chrome engine on Linux");
    }
    if ca && !cfg!(target_os = "linux") {
        return Some("--ca-cert is currently supported only on Linux");
    }
    None
}

/// Upstream runs configured plugins (`AGENT_BROWSER_PLUGINS` or the config's `plugins`) as
/// external processes that mutate launches, provide browsers and resolve credentials; abx runs
/// none, so a configured one is refused instead of being carried along unused.
pub fn unsupported_plugins_error(flags: &Flags) -> Option<String> {
    if flags.plugins.is_empty() {
        return None;
    }
    let names: Vec<&str> = flags
        .plugins
        .iter()
        .map(|p| p.get("name").and_then(Value::as_str).unwrap_or("?"))
        .collect();
    Some(format!(
        "Plugins are not supported by abx (configured: {}). Remove them from AGENT_BROWSER_PLUGINS or the config file's \"plugins\"",
        names.join(", ")
    ))
}

/// Add `restoreKey`/`restoreSave`/`restoreCheck*` when a restore key is in effect.
pub fn attach_restore(request: &mut Value, flags: &Flags) {
    let Some(obj) = request.as_object_mut() else {
        return;
    };
    let Some(key) = flags.restore_key() else {
        return;
    };
    let opt = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::from);
    obj.insert(extras::RESTORE_KEY.into(), json!(key));
    obj.insert(
        extras::RESTORE_SAVE.into(),
        json!(flags.restore_save.as_deref().unwrap_or("auto")),
    );
    obj.insert(
        extras::RESTORE_CHECK_URL.into(),
        opt(&flags.restore_check_url),
    );
    obj.insert(
        extras::RESTORE_CHECK_TEXT.into(),
        opt(&flags.restore_check_text),
    );
    obj.insert(
        extras::RESTORE_CHECK_FN.into(),
        opt(&flags.restore_check_fn),
    );
}

/// Add `pinTab:true` when pinned, `pinTab:false` when `--no-pin-tab`/`--pin-tab false` was given.
pub fn attach_pin_tab(request: &mut Value, flags: &Flags) {
    let Some(obj) = request.as_object_mut() else {
        return;
    };
    if flags.pin_tab {
        obj.insert(extras::PIN_TAB.into(), json!(true));
    } else if flags.cli_pin_tab {
        obj.insert(extras::PIN_TAB.into(), json!(false));
    }
}

/// Add the plugin registry.
pub fn attach_plugins(request: &mut Value, flags: &Flags) {
    if let Some(obj) = request.as_object_mut() {
        obj.insert(extras::PLUGINS.into(), Value::Array(flags.plugins.clone()));
    }
}

fn scripts(launch: &mut LaunchRequest, flags: &Flags) {
    if !flags.init_scripts.is_empty() {
        launch.init_scripts = Some(flags.init_scripts.clone());
    }
    if !flags.enable.is_empty() {
        launch.enable = Some(flags.enable.clone());
    }
}

fn webmcp(launch: &mut LaunchRequest, flags: &Flags) {
    if flags.no_webmcp || flags.cli_no_webmcp {
        launch.webmcp = Some(!flags.no_webmcp);
    }
}

fn allowed_domains(launch: &mut LaunchRequest, flags: &Flags) {
    if let Some(domains) = &flags.allowed_domains {
        launch.allowed_domains = Some(domains.clone());
    }
}

fn ca(launch: &mut LaunchRequest, flags: &Flags) {
    if let Some(ca) = &flags.ca_cert {
        launch.ca_cert = Some(ca.clone());
    }
    if flags.clear_ca_cert {
        launch.clear_ca_cert = Some(true);
    }
    if flags.use_system_ca {
        launch.use_system_ca = Some(true);
    }
}

fn display(launch: &mut LaunchRequest, flags: &Flags, with_download: bool) {
    if let Some(cs) = &flags.color_scheme {
        launch.color_scheme = Some(cs.clone());
    }
    if with_download && let Some(dp) = &flags.download_path {
        launch.download_path = Some(dp.clone());
    }
}

/// Where `--cdp` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CdpEndpoint {
    /// A `ws://`, `wss://`, `http://` or `https://` URL.
    Url(String),
    /// A local port.
    Port(u32),
}

impl CdpEndpoint {
    /// Puts it into a `launch` request.
    pub fn apply(&self, launch: &mut LaunchRequest) {
        match self {
            CdpEndpoint::Url(url) => launch.cdp_url = Some(url.clone()),
            CdpEndpoint::Port(port) => launch.cdp_port = Some(u64::from(*port)),
        }
    }
}

/// The endpoint a `--cdp` value names, or why it cannot be used (upstream's wording).
pub fn cdp_target(value: &str) -> Result<CdpEndpoint, String> {
    if ["ws://", "wss://", "http://", "https://"]
        .iter()
        .any(|p| value.starts_with(p))
    {
        return Ok(CdpEndpoint::Url(value.to_string()));
    }
    match value.parse::<u32>() {
        Ok(0) => Err("Invalid CDP port: port must be greater than 0".to_string()),
        Ok(p) if p > 65535 => Err(format!(
            "Invalid CDP port: {p} is out of range (valid range: 1-65535)"
        )),
        Ok(p) => Ok(CdpEndpoint::Port(p)),
        Err(_) => Err(format!(
            "Invalid CDP value: '{value}' is not a valid port number or URL"
        )),
    }
}

fn external(mut launch: LaunchRequest, flags: &Flags) -> Result<Value, String> {
    scripts(&mut launch, flags);
    webmcp(&mut launch, flags);
    allowed_domains(&mut launch, flags);
    if let Some(raw) = &flags.cdp_headers {
        let headers: Value = serde_json::from_str(raw)
            .map_err(|_| format!("Invalid JSON for --cdp-headers: {raw}"))?;
        launch.cdp_headers = Some(headers);
    }
    if flags.ignore_https_errors {
        launch.ignore_https_errors = Some(true);
    }
    ca(&mut launch, flags);
    display(&mut launch, flags, true);
    let mut request = encode(ACTION, &launch);
    attach_pin_tab(&mut request, flags);
    attach_restore(&mut request, flags);
    Ok(request)
}

/// Whether this invocation carries local launch settings (and no cdp/provider/auto-connect).
pub fn should_send_local_launch(flags: &Flags, command: &Value) -> bool {
    let wants = flags.headed
        || flags.cli_headed
        || flags.executable_path.is_some()
        || flags.profile.is_some()
        || flags.state.is_some()
        || flags.proxy.is_some()
        || flags.args.is_some()
        || flags.user_agent.is_some()
        // A URL `read` is an HTTP read that carries its own TLS settings: no browser for them.
        || ((flags.ca_cert.is_some() || flags.clear_ca_cert) && !is_http_read(command))
        || flags.allow_file_access
        || flags.cli_hide_scrollbars
        || !flags.hide_scrollbars
        || flags.webgpu
        || flags.cli_webgpu
        || flags.no_webmcp
        || flags.cli_no_webmcp
        || flags.color_scheme.is_some()
        || flags.download_path.is_some()
        || flags.engine.is_some()
        || flags.allowed_domains.is_some()
        || !flags.init_scripts.is_empty()
        || !flags.enable.is_empty()
        || !flags.extensions.is_empty();
    wants
        && flags.cdp.is_none()
        && flags.provider.is_none()
        && !flags.auto_connect
        && !is_external_launch(command)
}

/// A `read` of a URL: served over HTTP by the daemon, never by the browser.
pub fn is_http_read(request: &Value) -> bool {
    request.get(extras::ACTION).and_then(Value::as_str) == Some(crate::commands::page::read::ACTION)
        && request.get("url").and_then(Value::as_str).is_some()
}

/// A `launch` request that attaches to or provisions a browser rather than launching one locally.
pub fn is_external_launch(request: &Value) -> bool {
    request.get(extras::ACTION).and_then(Value::as_str) == Some(ACTION)
        && LaunchRequest::deserialize(request).is_ok_and(|launch| launch.is_external())
}

fn local_launch(flags: &Flags) -> Value {
    let mut launch = LaunchRequest::default();
    if flags.headed || flags.cli_headed {
        launch.headless = Some(!flags.headed);
    }
    launch.executable_path = flags.executable_path.clone();
    launch.profile = flags.profile.clone();
    launch.storage_state = flags.state.clone();
    if let Some(raw) = &flags.proxy {
        let parts = parse_proxy(raw);
        launch.proxy = Some(ProxyRequest {
            server: Some(parts.server),
            username: parts.username,
            password: parts.password,
            bypass: flags.proxy_bypass.clone(),
        });
    }
    launch.user_agent = flags.user_agent.clone();
    launch.args = flags.args.as_deref().map(split_launch_args);
    if !flags.extensions.is_empty() {
        launch.extensions = Some(flags.extensions.clone());
    }
    scripts(&mut launch, flags);
    if flags.ignore_https_errors {
        launch.ignore_https_errors = Some(true);
    }
    ca(&mut launch, flags);
    if flags.allow_file_access {
        launch.allow_file_access = Some(true);
    }
    if flags.cli_hide_scrollbars || !flags.hide_scrollbars {
        launch.hide_scrollbars = Some(flags.hide_scrollbars);
    }
    if flags.webgpu || flags.cli_webgpu {
        launch.webgpu = Some(flags.webgpu);
    }
    webmcp(&mut launch, flags);
    launch.no_xvfb = Some(flags.no_xvfb);
    display(&mut launch, flags, true);
    allowed_domains(&mut launch, flags);
    launch.engine = flags.engine.clone();
    let mut request = encode(ACTION, &launch);
    attach_plugins(&mut request, flags);
    attach_restore(&mut request, flags);
    request
}

fn provider_launch(provider: &str, flags: &Flags) -> Value {
    let mut launch = LaunchRequest {
        provider: Some(provider.to_string()),
        ..LaunchRequest::default()
    };
    scripts(&mut launch, flags);
    webmcp(&mut launch, flags);
    allowed_domains(&mut launch, flags);
    ca(&mut launch, flags);
    display(&mut launch, flags, false);
    let mut request = encode(ACTION, &launch);
    attach_plugins(&mut request, flags);
    attach_restore(&mut request, flags);
    request
}

/// The `launch` to send before `command`, if any, following upstream's order: auto-connect, CDP,
/// provider, local settings.
pub fn launch_for(flags: &Flags, command: &Value) -> Result<Option<Launch>, String> {
    if flags.auto_connect {
        let launch = LaunchRequest {
            auto_connect: Some(true),
            ..LaunchRequest::default()
        };
        return Ok(Some(Launch {
            kind: LaunchKind::AutoConnect,
            request: external(launch, flags)?,
        }));
    }
    if let Some(cdp) = &flags.cdp {
        let mut launch = LaunchRequest::default();
        cdp_target(cdp)?.apply(&mut launch);
        return Ok(Some(Launch {
            kind: LaunchKind::Cdp,
            request: external(launch, flags)?,
        }));
    }
    if let Some(provider) = &flags.provider {
        return Ok(Some(Launch {
            kind: LaunchKind::Provider,
            request: provider_launch(provider, flags),
        }));
    }
    if should_send_local_launch(flags, command) {
        return Ok(Some(Launch {
            kind: LaunchKind::Local,
            request: local_launch(flags),
        }));
    }
    Ok(None)
}
