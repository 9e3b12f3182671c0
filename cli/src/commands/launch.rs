//! The `launch` request the CLI sends before the real command (contract §1.6, §1.8).

use serde_json::{Map, Value, json};

use crate::flags::{Flags, parse_proxy, split_launch_args};

/// Which kind of `launch` precedes the command; decides the fallback error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchKind {
    /// `--auto-connect`: discover a running Chrome.
    AutoConnect,
    /// `--cdp <port|url>`: attach to a browser.
    Cdp,
    /// `-p <provider>`: a cloud/iOS provider.
    Provider,
    /// Local launch settings (headed, args, profile, …).
    Local,
}

impl LaunchKind {
    /// Message used when the daemon answers `success:false` without an `error`.
    pub fn fallback_error(self) -> &'static str {
        match self {
            LaunchKind::AutoConnect => "Auto-connect failed",
            LaunchKind::Cdp => "CDP connection failed",
            LaunchKind::Provider => "Provider connection failed",
            LaunchKind::Local => "Browser launch failed",
        }
    }

    /// Text-mode message for a transport failure (daemon unreachable) while sending this launch.
    /// Upstream prefixes `Could not configure browser: ` for local launches only (text mode; the
    /// JSON error is the bare message).
    pub fn transport_error_text(self, error: &str) -> String {
        match self {
            LaunchKind::Local => format!("Could not configure browser: {error}"),
            _ => error.to_string(),
        }
    }
}

/// A `launch` request and its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// Which rule produced it.
    pub kind: LaunchKind,
    /// The request (without `id`).
    pub request: Value,
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

/// Add `restoreKey`/`restoreSave`/`restoreCheck*` when a restore key is in effect.
pub fn attach_restore(request: &mut Value, flags: &Flags) {
    let Some(obj) = request.as_object_mut() else {
        return;
    };
    let Some(key) = flags.restore_key() else {
        return;
    };
    let opt = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::from);
    obj.insert("restoreKey".into(), json!(key));
    obj.insert(
        "restoreSave".into(),
        json!(flags.restore_save.as_deref().unwrap_or("auto")),
    );
    obj.insert("restoreCheckUrl".into(), opt(&flags.restore_check_url));
    obj.insert("restoreCheckText".into(), opt(&flags.restore_check_text));
    obj.insert("restoreCheckFn".into(), opt(&flags.restore_check_fn));
}

/// Add `pinTab:true` when pinned, `pinTab:false` when `--no-pin-tab`/`--pin-tab false` was given.
pub fn attach_pin_tab(request: &mut Value, flags: &Flags) {
    let Some(obj) = request.as_object_mut() else {
        return;
    };
    if flags.pin_tab {
        obj.insert("pinTab".into(), json!(true));
    } else if flags.cli_pin_tab {
        obj.insert("pinTab".into(), json!(false));
    }
}

/// Add the plugin registry.
pub fn attach_plugins(request: &mut Value, flags: &Flags) {
    if let Some(obj) = request.as_object_mut() {
        obj.insert("plugins".into(), Value::Array(flags.plugins.clone()));
    }
}

fn attach_scripts(obj: &mut Map<String, Value>, flags: &Flags) {
    if !flags.init_scripts.is_empty() {
        obj.insert("initScripts".into(), json!(flags.init_scripts));
    }
    if !flags.enable.is_empty() {
        obj.insert("enable".into(), json!(flags.enable));
    }
}

fn attach_webmcp(obj: &mut Map<String, Value>, flags: &Flags) {
    if flags.no_webmcp || flags.cli_no_webmcp {
        obj.insert("webmcp".into(), json!(!flags.no_webmcp));
    }
}

fn attach_allowed_domains(obj: &mut Map<String, Value>, flags: &Flags) {
    if let Some(domains) = &flags.allowed_domains {
        obj.insert("allowedDomains".into(), json!(domains));
    }
}

fn attach_ca(obj: &mut Map<String, Value>, flags: &Flags) {
    if let Some(ca) = &flags.ca_cert {
        obj.insert("caCert".into(), json!(ca));
    }
    if flags.clear_ca_cert {
        obj.insert("clearCaCert".into(), json!(true));
    }
    if flags.use_system_ca {
        obj.insert("useSystemCa".into(), json!(true));
    }
}

fn attach_display(obj: &mut Map<String, Value>, flags: &Flags, with_download: bool) {
    if let Some(cs) = &flags.color_scheme {
        obj.insert("colorScheme".into(), json!(cs));
    }
    if with_download && let Some(dp) = &flags.download_path {
        obj.insert("downloadPath".into(), json!(dp));
    }
}

fn object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("value was just made an object"),
    }
}

/// Why a `--cdp` value cannot be used (upstream's wording).
pub fn cdp_target(value: &str) -> Result<(&'static str, Value), String> {
    if ["ws://", "wss://", "http://", "https://"]
        .iter()
        .any(|p| value.starts_with(p))
    {
        return Ok(("cdpUrl", json!(value)));
    }
    match value.parse::<u32>() {
        Ok(0) => Err("Invalid CDP port: port must be greater than 0".to_string()),
        Ok(p) if p > 65535 => Err(format!(
            "Invalid CDP port: {p} is out of range (valid range: 1-65535)"
        )),
        Ok(p) => Ok(("cdpPort", json!(p))),
        Err(_) => Err(format!(
            "Invalid CDP value: '{value}' is not a valid port number or URL"
        )),
    }
}

fn external_common(request: &mut Value, flags: &Flags) -> Result<(), String> {
    let obj = object(request);
    attach_scripts(obj, flags);
    attach_webmcp(obj, flags);
    attach_allowed_domains(obj, flags);
    if let Some(raw) = &flags.cdp_headers {
        let headers: Value = serde_json::from_str(raw)
            .map_err(|_| format!("Invalid JSON for --cdp-headers: {raw}"))?;
        obj.insert("cdpHeaders".into(), headers);
    }
    attach_pin_tab(request, flags);
    attach_restore(request, flags);
    let obj = object(request);
    if flags.ignore_https_errors {
        obj.insert("ignoreHTTPSErrors".into(), json!(true));
    }
    attach_ca(obj, flags);
    attach_display(obj, flags, true);
    Ok(())
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
        || flags.ca_cert.is_some()
        || flags.clear_ca_cert
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

/// A `launch` request that attaches to or provisions a browser rather than launching one locally.
pub fn is_external_launch(request: &Value) -> bool {
    request.get("action").and_then(Value::as_str) == Some("launch")
        && (request.get("cdpUrl").is_some()
            || request.get("cdpPort").is_some()
            || request.get("provider").is_some()
            || request
                .get("autoConnect")
                .and_then(Value::as_bool)
                .unwrap_or(false))
}

fn local_launch(flags: &Flags) -> Value {
    let mut request = json!({ "action": "launch" });
    {
        let obj = object(&mut request);
        if flags.headed || flags.cli_headed {
            obj.insert("headless".into(), json!(!flags.headed));
        }
    }
    attach_plugins(&mut request, flags);
    attach_restore(&mut request, flags);
    let obj = object(&mut request);
    if let Some(p) = &flags.executable_path {
        obj.insert("executablePath".into(), json!(p));
    }
    if let Some(p) = &flags.profile {
        obj.insert("profile".into(), json!(p));
    }
    if let Some(p) = &flags.state {
        obj.insert("storageState".into(), json!(p));
    }
    if let Some(raw) = &flags.proxy {
        let parts = parse_proxy(raw);
        let mut proxy = Map::new();
        proxy.insert("server".into(), json!(parts.server));
        if let Some(u) = parts.username {
            proxy.insert("username".into(), json!(u));
        }
        if let Some(p) = parts.password {
            proxy.insert("password".into(), json!(p));
        }
        if let Some(b) = &flags.proxy_bypass {
            proxy.insert("bypass".into(), json!(b));
        }
        obj.insert("proxy".into(), Value::Object(proxy));
    }
    if let Some(ua) = &flags.user_agent {
        obj.insert("userAgent".into(), json!(ua));
    }
    if let Some(args) = &flags.args {
        obj.insert("args".into(), json!(split_launch_args(args)));
    }
    if !flags.extensions.is_empty() {
        obj.insert("extensions".into(), json!(flags.extensions));
    }
    attach_scripts(obj, flags);
    if flags.ignore_https_errors {
        obj.insert("ignoreHTTPSErrors".into(), json!(true));
    }
    attach_ca(obj, flags);
    if flags.allow_file_access {
        obj.insert("allowFileAccess".into(), json!(true));
    }
    if flags.cli_hide_scrollbars || !flags.hide_scrollbars {
        obj.insert("hideScrollbars".into(), json!(flags.hide_scrollbars));
    }
    if flags.webgpu || flags.cli_webgpu {
        obj.insert("webgpu".into(), json!(flags.webgpu));
    }
    attach_webmcp(obj, flags);
    obj.insert("noXvfb".into(), json!(flags.no_xvfb));
    attach_display(obj, flags, true);
    attach_allowed_domains(obj, flags);
    if let Some(engine) = &flags.engine {
        obj.insert("engine".into(), json!(engine));
    }
    request
}

fn provider_launch(provider: &str, flags: &Flags) -> Value {
    let mut request = json!({ "action": "launch", "provider": provider });
    attach_plugins(&mut request, flags);
    let obj = object(&mut request);
    attach_scripts(obj, flags);
    attach_webmcp(obj, flags);
    attach_allowed_domains(obj, flags);
    attach_restore(&mut request, flags);
    let obj = object(&mut request);
    attach_ca(obj, flags);
    attach_display(obj, flags, false);
    request
}

/// The `launch` to send before `command`, if any, following upstream's order: auto-connect, CDP,
/// provider, local settings.
pub fn launch_for(flags: &Flags, command: &Value) -> Result<Option<Launch>, String> {
    if flags.auto_connect {
        let mut request = json!({ "action": "launch", "autoConnect": true });
        external_common(&mut request, flags)?;
        return Ok(Some(Launch {
            kind: LaunchKind::AutoConnect,
            request,
        }));
    }
    if let Some(cdp) = &flags.cdp {
        let (key, target) = cdp_target(cdp)?;
        let mut request = json!({ "action": "launch" });
        object(&mut request).insert(key.into(), target);
        external_common(&mut request, flags)?;
        return Ok(Some(Launch {
            kind: LaunchKind::Cdp,
            request,
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
