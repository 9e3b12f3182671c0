//! The daemon's configuration: spawn-time environment (the defaults for implicit launches for
//! the daemon's whole life) and explicit `launch` requests, both turned into a [`LaunchSpec`].

use abx_wire::env;
use std::path::PathBuf;
use std::time::Duration;

use abx_wire::LaunchRequest;
use serde_json::Value;

/// Upstream's default idle timeout (1 h); `0` disables.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(3600);
/// Upstream's default operation timeout.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(25);

/// Everything the daemon reads from its environment once, at start.
#[derive(Clone, Debug)]
pub struct DaemonConfig {
    /// Session name.
    pub session: String,
    /// Resolved socket directory (namespace applied).
    pub socket_dir: PathBuf,
    /// Idle shutdown; `None` = never.
    pub idle_timeout: Option<Duration>,
    /// Whether the idle timeout is upstream's default (attached/headed browsers are exempt then).
    pub idle_timeout_is_default: bool,
    /// Default per-command deadline.
    pub command_timeout: Duration,
    /// Write a debug log to `<dir>/<session>.log`.
    pub debug: bool,
    /// Accept alert/beforeunload automatically.
    pub auto_dialog: bool,
    /// Stream server port preference (0 = OS-assigned).
    pub stream_port: Option<u16>,
    /// Stream server access token (beyond upstream).
    pub stream_token: Option<String>,
    /// The launch that implicit auto-launch performs.
    pub launch: LaunchSpec,
    /// Accept the `__abx_fault` action (tests only: `ABX_FAULT_INJECTION=1`).
    pub fault_injection: bool,
    /// Write a line to stdout once the socket accepts (`ABX_DAEMON_READY=1`, set by the CLI).
    pub signal_ready: bool,
    /// HTTP reads also trust the platform's CA store (`--use-system-ca`) until a later command
    /// says otherwise.
    pub use_system_ca: bool,
    /// Sites no tab may reach (`ABX_BLOCKED_SITES`), for the daemon's whole life: unlike the
    /// launch settings, no request changes it.
    pub blocked_sites: Vec<String>,
    /// Append refused navigations to `<session>.blocked` (`ABX_BLOCKED_LOG=1`).
    pub blocked_log: bool,
}

/// A value that must not appear in logs or `Debug` output (a proxy password).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl Secret {
    /// The value, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// How the session gets its browser.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowserSource {
    /// Launch Chrome locally.
    Local,
    /// Attach to a CDP endpoint (port or URL).
    Cdp(String),
    /// Discover a running Chrome (`--auto-connect`).
    AutoConnect,
}

/// A launch request, local or attach.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// Where the browser comes from.
    pub source: BrowserSource,
    /// Headed or headless.
    pub headless: bool,
    /// Executable path.
    pub executable: Option<String>,
    /// Extra Chrome arguments.
    pub args: Vec<String>,
    /// Persistent profile directory.
    pub profile: Option<String>,
    /// Proxy server (without credentials), or a PAC script URL (`data:`/`file:`/`*.pac`).
    pub proxy: Option<String>,
    /// Proxy user name (from `scheme://user:pass@host:port` or the launch request).
    pub proxy_username: Option<String>,
    /// Proxy password.
    pub proxy_password: Option<Secret>,
    /// Proxy bypass list.
    pub proxy_bypass: Option<String>,
    /// User agent.
    pub user_agent: Option<String>,
    /// Domain allowlist patterns.
    pub allowed_domains: Vec<String>,
    /// Do not auto-start Xvfb.
    pub no_xvfb: bool,
    /// `--ignore-certificate-errors`.
    pub ignore_https_errors: bool,
    /// File access flags.
    pub allow_file_access: bool,
    /// Hide scrollbars in headless mode.
    pub hide_scrollbars: bool,
    /// The WebGPU preset (`--webgpu`): full Chrome with software Vulkan (see [`WEBGPU_ARGS`]).
    pub webgpu: bool,
    /// A CA certificate (PEM file or bundle) the browser trusts (`--ca-cert`); kept for the
    /// daemon's life until `--no-ca-cert`.
    pub ca_cert: Option<String>,
    /// Strict tab binding.
    pub pin_tab: bool,
    /// Headers for CDP discovery and handshake.
    pub cdp_headers: Vec<(String, String)>,
    /// Engine name (only `chrome` is supported).
    pub engine: String,
    /// Page settings: download directory, color scheme, init script files (`pages.rs`).
    pub pages: crate::pages::PageSpec,
}

impl Default for LaunchSpec {
    fn default() -> Self {
        Self {
            source: BrowserSource::Local,
            headless: true,
            executable: None,
            args: Vec::new(),
            profile: None,
            proxy: None,
            proxy_username: None,
            proxy_password: None,
            proxy_bypass: None,
            user_agent: None,
            allowed_domains: Vec::new(),
            no_xvfb: false,
            ignore_https_errors: false,
            allow_file_access: false,
            hide_scrollbars: true,
            webgpu: false,
            ca_cert: None,
            pin_tab: false,
            cdp_headers: Vec::new(),
            engine: "chrome".into(),
            pages: crate::pages::PageSpec::default(),
        }
    }
}

/// Upstream's daemon-side truthiness for `HEADED` and friends: only `1` or `true`.
fn strict_true(value: Option<String>) -> bool {
    matches!(value.as_deref().map(str::trim), Some("1") | Some("true"))
}

/// CLI-side truthiness: anything but empty, `0`, `false`, `no`.
fn truthy(value: Option<String>) -> bool {
    value.is_some_and(|v| {
        !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no"
        )
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

fn parse_headers(raw: Option<String>) -> Vec<(String, String)> {
    let Some(raw) = non_empty(raw) else {
        return Vec::new();
    };
    match serde_json::from_str::<serde_json::Map<String, Value>>(&raw) {
        Ok(map) => map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect(),
        Err(_) => Vec::new(),
    }
}

impl DaemonConfig {
    /// Reads the configuration through `var` (the process environment in production).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> DaemonConfig {
        let session = non_empty(var(env::SESSION)).unwrap_or_else(|| "default".into());
        let socket_dir = non_empty(var(env::ABX_DAEMON_SOCKET_DIR))
            .or_else(|| non_empty(var(env::SOCKET_DIR)))
            .map_or_else(|| default_socket_dir(var), PathBuf::from);
        let idle_raw = non_empty(var(env::IDLE_TIMEOUT_MS));
        let (idle_timeout, idle_timeout_is_default) =
            match idle_raw.as_deref().map(str::parse::<u64>) {
                Some(Ok(0)) => (None, false),
                Some(Ok(ms)) => (Some(Duration::from_millis(ms)), false),
                _ => (Some(DEFAULT_IDLE_TIMEOUT), true),
            };
        let command_timeout = non_empty(var(env::DEFAULT_TIMEOUT))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map_or(DEFAULT_COMMAND_TIMEOUT, Duration::from_millis);
        let source = if let Some(cdp) = non_empty(var(env::CDP)) {
            BrowserSource::Cdp(cdp)
        } else if var(env::AUTO_CONNECT).is_some() {
            BrowserSource::AutoConnect
        } else {
            BrowserSource::Local
        };
        let proxy = ProxyParts::parse(non_empty(var(env::PROXY)).as_deref());
        let launch = LaunchSpec {
            source,
            headless: !strict_true(var(env::HEADED)),
            executable: non_empty(var(env::EXECUTABLE_PATH)),
            args: non_empty(var(env::ARGS))
                .map(|raw| abx_chrome::split_user_args(&raw))
                .unwrap_or_default(),
            profile: non_empty(var(env::PROFILE)),
            proxy: proxy.server,
            proxy_username: proxy.username,
            proxy_password: proxy.password.map(Secret),
            proxy_bypass: non_empty(var(env::PROXY_BYPASS)),
            user_agent: non_empty(var(env::USER_AGENT)),
            allowed_domains: non_empty(var(env::ALLOWED_DOMAINS))
                .map(|raw| split_domains(&raw))
                .unwrap_or_default(),
            no_xvfb: truthy(var(env::NO_XVFB)),
            ignore_https_errors: strict_true(var(env::IGNORE_HTTPS_ERRORS)),
            allow_file_access: strict_true(var(env::ALLOW_FILE_ACCESS)),
            hide_scrollbars: !matches!(
                var(env::HIDE_SCROLLBARS).as_deref(),
                Some("0") | Some("false")
            ),
            webgpu: strict_true(var(env::WEBGPU)),
            ca_cert: non_empty(var(env::CA_CERT)).filter(|_| !truthy(var(env::CLEAR_CA_CERT))),
            pin_tab: truthy(var(env::PIN_TAB)),
            cdp_headers: parse_headers(var(env::CDP_HEADERS)),
            engine: non_empty(var(env::ENGINE)).unwrap_or_else(|| "chrome".into()),
            pages: crate::pages::PageSpec::from_env(var),
        };
        DaemonConfig {
            session,
            socket_dir,
            idle_timeout,
            idle_timeout_is_default,
            command_timeout,
            debug: var(env::DEBUG).is_some(),
            auto_dialog: !truthy(var(env::NO_AUTO_DIALOG)),
            stream_port: non_empty(var(env::STREAM_PORT)).and_then(|p| p.trim().parse().ok()),
            stream_token: non_empty(var(env::STREAM_TOKEN)),
            launch,
            fault_injection: var(env::ABX_FAULT_INJECTION).as_deref() == Some("1"),
            signal_ready: var(env::ABX_DAEMON_READY).as_deref() == Some("1"),
            use_system_ca: truthy(var(env::USE_SYSTEM_CA)),
            blocked_sites: non_empty(var(env::ABX_BLOCKED_SITES))
                .map(|raw| split_domains(&raw))
                .unwrap_or_default(),
            blocked_log: truthy(var(env::ABX_BLOCKED_LOG)),
        }
    }
}

/// Upstream's socket dir resolution without a namespace (the CLI passes the resolved dir).
fn default_socket_dir(var: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(runtime) = non_empty(var("XDG_RUNTIME_DIR")) {
        return PathBuf::from(runtime).join("agent-browser");
    }
    if let Some(home) = non_empty(var("HOME")) {
        return PathBuf::from(home).join(".agent-browser");
    }
    std::env::temp_dir().join("agent-browser")
}

/// Splits a domain list on commas, lower-cased and trimmed.
pub fn split_domains(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(|d| d.trim().to_ascii_lowercase())
        .filter(|d| !d.is_empty())
        .collect()
}

fn non_empty_field(value: &Option<String>) -> Option<String> {
    value.clone().filter(|s| !s.is_empty())
}

impl LaunchSpec {
    /// Applies an explicit `launch` request over the daemon's spawn-time defaults.
    pub fn from_request(request: &LaunchRequest, defaults: &LaunchSpec) -> LaunchSpec {
        let mut spec = defaults.clone();
        if let Some(port) = request.cdp_port {
            spec.source = BrowserSource::Cdp(port.to_string());
        } else if let Some(url) = non_empty_field(&request.cdp_url) {
            spec.source = BrowserSource::Cdp(url);
        } else if request.auto_connect == Some(true) {
            spec.source = BrowserSource::AutoConnect;
        } else if request.no_xvfb.is_some()
            || request.headless.is_some()
            || request.args.is_some()
            || request.profile.is_some()
            || request.executable_path.is_some()
        {
            // A local launch request: settings come from the request, falling back to env.
            spec.source = BrowserSource::Local;
        }
        if let Some(headless) = request.headless {
            spec.headless = headless;
        }
        if let Some(exe) = non_empty_field(&request.executable_path) {
            spec.executable = Some(exe);
        }
        if let Some(args) = &request.args {
            spec.args = args.clone();
        }
        if let Some(profile) = non_empty_field(&request.profile) {
            spec.profile = Some(profile);
        }
        if let Some(proxy) = &request.proxy {
            if let Some(server) = &proxy.server {
                let parts = ProxyParts::parse(Some(server));
                spec.proxy = parts.server;
                spec.proxy_username = parts.username;
                spec.proxy_password = parts.password.map(Secret);
            }
            if let Some(user) = &proxy.username {
                spec.proxy_username = Some(user.clone());
            }
            if let Some(password) = &proxy.password {
                spec.proxy_password = Some(Secret(password.clone()));
            }
            if let Some(bypass) = &proxy.bypass {
                spec.proxy_bypass = Some(bypass.clone());
            }
        }
        if let Some(ua) = non_empty_field(&request.user_agent) {
            spec.user_agent = Some(ua);
        }
        if let Some(domains) = &request.allowed_domains {
            spec.allowed_domains = domains
                .iter()
                .map(|d| d.trim().to_ascii_lowercase())
                .collect();
        }
        if let Some(no_xvfb) = request.no_xvfb {
            spec.no_xvfb = no_xvfb;
        }
        if let Some(v) = request.ignore_https_errors {
            spec.ignore_https_errors = v;
        }
        if let Some(v) = request.allow_file_access {
            spec.allow_file_access = v;
        }
        if let Some(v) = request.hide_scrollbars {
            spec.hide_scrollbars = v;
        }
        if let Some(v) = request.webgpu {
            spec.webgpu = v;
        }
        if request.clear_ca_cert == Some(true) {
            spec.ca_cert = None;
        } else if let Some(path) = non_empty_field(&request.ca_cert) {
            spec.ca_cert = Some(path);
        }
        if request.pin_tab == Some(true) {
            spec.pin_tab = true;
        }
        if let Some(headers) = &request.cdp_headers {
            let raw = headers
                .as_str()
                .map_or_else(|| headers.to_string(), str::to_string);
            spec.cdp_headers = parse_headers(Some(raw));
        }
        if let Some(engine) = non_empty_field(&request.engine) {
            spec.engine = engine;
        }
        spec.pages.apply(request);
        spec
    }

    /// A stable hash of the launch-affecting settings (upstream's `launchHash`). Settings that
    /// do not need a relaunch (pin-tab binding) are left out. A local launch also hashes the
    /// binary it resolves to (headless shell or full Chrome, see `abx_chrome::select_browser`),
    /// so two commands on one session never run different binaries without a relaunch.
    pub fn hash(&self) -> u64 {
        let binary = match self.source {
            BrowserSource::Local => abx_chrome::select_browser(&self.launch_options(None))
                .ok()
                .map(|b| b.executable),
            _ => None,
        };
        let source = match &self.source {
            BrowserSource::Local => "local".to_string(),
            BrowserSource::Cdp(target) => format!("cdp:{target}"),
            BrowserSource::AutoConnect => "auto-connect".to_string(),
        };
        let canonical = serde_json::json!([
            self.engine,
            source,
            self.headless,
            self.executable,
            self.args,
            self.profile,
            self.proxy,
            // The user name relaunches; the password never enters the (exposed) hash.
            self.proxy_username,
            self.proxy_bypass,
            self.user_agent,
            self.allowed_domains,
            self.no_xvfb,
            self.allow_file_access,
            self.hide_scrollbars,
            self.webgpu,
            self.ca_cert,
            binary,
            self.pages,
        ])
        .to_string();
        fnv1a(canonical.as_bytes())
    }

    /// Whether this spec attaches instead of launching.
    pub fn is_attach(&self) -> bool {
        !matches!(self.source, BrowserSource::Local)
    }

    /// Launcher options for a local launch.
    pub fn launch_options(&self, display: Option<String>) -> abx_chrome::LaunchOptions {
        abx_chrome::LaunchOptions {
            executable: self.executable.as_ref().map(PathBuf::from),
            headless: self.headless,
            profile: self
                .profile
                .as_ref()
                .map(|p| PathBuf::from(expand_tilde(p))),
            no_xvfb: self.no_xvfb,
            display,
            proxy: self
                .proxy
                .as_ref()
                .filter(|p| !is_pac(p))
                .map(|server| abx_chrome::Proxy {
                    server: server.clone(),
                    bypass: self.proxy_bypass.clone(),
                }),
            proxy_pac_url: self.proxy.clone().filter(|p| is_pac(p)),
            // Permission prompts are denied for every session (seed 000, limitation 16).
            deny_permission_prompts: true,
            ignore_https_errors: self.ignore_https_errors,
            allow_file_access: self.allow_file_access,
            hide_scrollbars: self.hide_scrollbars,
            restrict_webrtc: !self.allowed_domains.is_empty(),
            user_agent: self.user_agent.clone(),
            // The preset comes before the caller's arguments, so theirs win (Chrome keeps the
            // last of a repeated switch).
            args: if self.webgpu {
                WEBGPU_ARGS
                    .iter()
                    .map(ToString::to_string)
                    .chain(self.pages.chrome_args(&self.args))
                    .collect()
            } else {
                self.pages.chrome_args(&self.args)
            },
            ca_certs: self
                .ca_cert
                .iter()
                .map(|p| {
                    let path = PathBuf::from(expand_tilde(p));
                    std::path::absolute(&path).unwrap_or(path)
                })
                .collect(),
            needs_full_chrome: if self.webgpu {
                vec!["webgpu".into()]
            } else {
                Vec::new()
            },
            ..abx_chrome::LaunchOptions::default()
        }
    }
}

/// Chrome switches of the WebGPU preset, as upstream 0.41.2 adds them on Linux: WebGPU exposed
/// in headless and GPU-less environments, through SwiftShader's software Vulkan, without Vulkan
/// surface presentation (real pixels with no GPU). `--enable-features` repeats the defaults,
/// because Chrome keeps only the last one.
pub const WEBGPU_ARGS: &[&str] = &[
    "--enable-unsafe-webgpu",
    "--use-angle=vulkan",
    "--use-vulkan=swiftshader",
    "--use-webgpu-adapter=swiftshader",
    "--disable-vulkan-surface",
    "--enable-features=NetworkService,NetworkServiceInProcess,Vulkan",
];

/// Whether a proxy setting is a PAC script rather than a proxy server: a `data:` or `file:` URL,
/// or any URL ending in `.pac`.
pub fn is_pac(proxy: &str) -> bool {
    let lower = proxy.trim().to_ascii_lowercase();
    lower.starts_with("data:")
        || lower.starts_with("file:")
        || lower
            .split(['?', '#'])
            .next()
            .is_some_and(|p| p.ends_with(".pac"))
}

impl LaunchSpec {
    /// The engine policy for this spec: the hard allowlist (also for profiles and CDP attach,
    /// beyond upstream), proxy credentials, and denied permission prompts.
    pub fn policy(&self) -> abx_engine::Policy {
        let proxy_auth = match (&self.proxy_username, &self.proxy_password) {
            (Some(username), password) if !self.is_attach() => Some(abx_engine::ProxyAuth {
                username: username.clone(),
                password: password
                    .as_ref()
                    .map(|p| p.expose().to_string())
                    .unwrap_or_default(),
            }),
            _ => None,
        };
        abx_engine::Policy {
            allowed_domains: abx_engine::DomainFilter::new(&self.allowed_domains),
            proxy_auth,
            deny_permissions: true,
            ..abx_engine::Policy::default()
        }
    }
}

/// A proxy URL split into the server and its credentials.
#[derive(Debug, Default, PartialEq, Eq)]
struct ProxyParts {
    server: Option<String>,
    username: Option<String>,
    password: Option<String>,
}

impl ProxyParts {
    /// Splits `scheme://user:pass@host:port`; PAC URLs and values without credentials stay whole.
    fn parse(raw: Option<&str>) -> ProxyParts {
        let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else {
            return ProxyParts::default();
        };
        let whole = || ProxyParts {
            server: Some(raw.to_string()),
            ..ProxyParts::default()
        };
        if is_pac(raw) {
            return whole();
        }
        // Split as the CLI splits it (one reading, in abx-wire); Chrome's proxy login gets the
        // credentials percent-decoded.
        let parts = abx_wire::split_proxy(raw);
        ProxyParts {
            server: Some(parts.server),
            username: parts
                .username
                .map(|u| percent_decode(&u))
                .filter(|u| !u.is_empty()),
            password: parts.password.map(|p| percent_decode(&p)),
        }
    }
}

/// `%XX` escapes decoded (malformed ones kept as written; invalid UTF-8 replaced).
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

fn expand_tilde(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// FNV-1a 64: small, stable across builds (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn idle_timeout_zero_means_never_and_unset_is_one_hour() {
        let never = DaemonConfig::from_env(&env(&[(env::IDLE_TIMEOUT_MS, "0")]));
        assert_eq!(never.idle_timeout, None);
        let default = DaemonConfig::from_env(&env(&[]));
        assert_eq!(default.idle_timeout, Some(DEFAULT_IDLE_TIMEOUT));
        assert!(default.idle_timeout_is_default);
        let custom = DaemonConfig::from_env(&env(&[(env::IDLE_TIMEOUT_MS, "3000")]));
        assert_eq!(custom.idle_timeout, Some(Duration::from_secs(3)));
    }

    #[test]
    fn cdp_env_selects_attach_and_pin_tab_is_read() {
        let c = DaemonConfig::from_env(&env(&[
            (env::CDP, "ws://127.0.0.1:9/devtools/browser/x"),
            (env::PIN_TAB, "1"),
        ]));
        assert_eq!(
            c.launch.source,
            BrowserSource::Cdp("ws://127.0.0.1:9/devtools/browser/x".into())
        );
        assert!(c.launch.pin_tab);
    }

    #[test]
    fn launch_hash_changes_with_launch_settings_only() {
        let base = LaunchSpec::default();
        let mut ua = base.clone();
        ua.user_agent = Some("X".into());
        let mut pinned = base.clone();
        pinned.pin_tab = true;
        assert_ne!(base.hash(), ua.hash());
        assert_eq!(base.hash(), pinned.hash());
        assert_eq!(base.hash(), LaunchSpec::default().hash(), "stable");
    }

    #[test]
    fn launch_request_overrides_env_defaults() {
        let defaults = LaunchSpec {
            profile: Some("/p".into()),
            ..LaunchSpec::default()
        };
        let req = LaunchRequest {
            headless: Some(false),
            no_xvfb: Some(false),
            args: Some(vec!["--a".into()]),
            ..LaunchRequest::default()
        };
        let spec = LaunchSpec::from_request(&req, &defaults);
        assert!(!spec.headless);
        assert_eq!(spec.args, vec!["--a"]);
        assert_eq!(spec.profile.as_deref(), Some("/p"), "env default kept");
        let attach = LaunchSpec::from_request(
            &LaunchRequest {
                cdp_port: Some(9222),
                ..LaunchRequest::default()
            },
            &defaults,
        );
        assert_eq!(attach.source, BrowserSource::Cdp("9222".into()));
    }

    #[test]
    fn proxy_credentials_are_split_and_pac_urls_kept_whole() {
        let c = DaemonConfig::from_env(&env(&[(env::PROXY, "http://ada:p%40ss@127.0.0.1:3128")]));
        assert_eq!(c.launch.proxy.as_deref(), Some("http://127.0.0.1:3128"));
        assert_eq!(c.launch.proxy_username.as_deref(), Some("ada"));
        assert_eq!(
            c.launch.proxy_password.as_ref().map(Secret::expose),
            Some("p@ss")
        );
        assert!(
            !format!("{:?}", c.launch).contains("p@ss"),
            "never in Debug"
        );
        let options = c.launch.launch_options(None);
        assert!(options.deny_permission_prompts);
        assert_eq!(
            options.proxy.map(|p| p.server).as_deref(),
            Some("http://127.0.0.1:3128")
        );
        let pac = "data:application/x-ns-proxy-autoconfig,function FindProxyForURL(u,h){return 'DIRECT';}";
        let c = DaemonConfig::from_env(&env(&[(env::PROXY, pac)]));
        let options = c.launch.launch_options(None);
        assert!(options.proxy.is_none());
        assert_eq!(options.proxy_pac_url.as_deref(), Some(pac));
        assert!(c.launch.proxy_username.is_none());
    }

    #[test]
    fn the_allowlist_becomes_the_engine_policy_for_attach_too() {
        let c = DaemonConfig::from_env(&env(&[
            (env::CDP, "9222"),
            (env::ALLOWED_DOMAINS, "A.localhost, *.b.test"),
        ]));
        let policy = c.launch.policy();
        let filter = policy.allowed_domains.expect("allowlist");
        assert!(filter.is_allowed("a.localhost"));
        assert!(filter.is_allowed("x.b.test"));
        assert!(policy.deny_permissions);
    }

    #[test]
    fn blocked_sites_come_from_the_spawn_env_only_and_no_launch_request_changes_them() {
        let c = DaemonConfig::from_env(&env(&[
            (env::ABX_BLOCKED_SITES, "Blocked.localhost, ads.test"),
            (env::ABX_BLOCKED_LOG, "1"),
        ]));
        assert_eq!(c.blocked_sites, ["blocked.localhost", "ads.test"]);
        assert!(c.blocked_log);
        // The blocklist is not a launch setting: a launch cannot carry or clear it.
        let request = LaunchRequest {
            allowed_domains: Some(vec!["blocked.localhost".into()]),
            ..LaunchRequest::default()
        };
        let spec = LaunchSpec::from_request(&request, &c.launch);
        assert_eq!(spec.allowed_domains, ["blocked.localhost"]);
        assert!(spec.policy().blocked_sites.is_none());
        let plain = DaemonConfig::from_env(&env(&[]));
        assert!(plain.blocked_sites.is_empty() && !plain.blocked_log);
    }
}
