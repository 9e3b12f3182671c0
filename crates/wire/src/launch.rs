//! The `launch` request: built by the CLI's launch planning (and by `open` without a URL and
//! `connect`), read by the daemon's launch settings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `{"action":"launch", ...}`: how the session gets its browser. Every field is optional; an
/// absent field keeps the daemon's spawn-time setting.
///
/// ```
/// let launch = abx_wire::LaunchRequest { cdp_port: Some(9222), ..Default::default() };
/// assert_eq!(abx_wire::encode("launch", &launch).to_string(), r#"{"action":"launch","cdpPort":9222}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRequest {
    /// Discover a running Chrome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_connect: Option<bool>,
    /// Attach to this CDP URL (`ws://`, `wss://`, `http://`, `https://`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp_url: Option<String>,
    /// Attach to this local CDP port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp_port: Option<u64>,
    /// Headers for CDP discovery and handshake: a JSON object (or its text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp_headers: Option<Value>,
    /// A cloud or iOS provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Headless (`true`) or headed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headless: Option<bool>,
    /// Browser binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable_path: Option<String>,
    /// Chrome profile name or persistent user-data-dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Storage state to load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_state: Option<String>,
    /// Proxy server and credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxyRequest>,
    /// User-Agent override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Extra browser arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Unpacked extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Page init scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_scripts: Option<Vec<String>>,
    /// Built-in init scripts (`react-devtools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable: Option<Vec<String>>,
    /// Ignore certificate errors.
    #[serde(
        default,
        rename = "ignoreHTTPSErrors",
        skip_serializing_if = "Option::is_none"
    )]
    pub ignore_https_errors: Option<bool>,
    /// A CA certificate to trust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_cert: Option<String>,
    /// Ignore configured CA certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_ca_cert: Option<bool>,
    /// Trust the system CA store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_system_ca: Option<bool>,
    /// Let `file://` pages read local files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_file_access: Option<bool>,
    /// Hide scrollbars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hide_scrollbars: Option<bool>,
    /// WebGPU launch preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webgpu: Option<bool>,
    /// WebMCP features.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webmcp: Option<bool>,
    /// Never start Xvfb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_xvfb: Option<bool>,
    /// `dark`, `light` or `no-preference`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<String>,
    /// Download directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_path: Option<String>,
    /// Navigation allowlist patterns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// Engine name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Bind the session strictly to its tab (sent with every request, see
    /// [`crate::extras::PIN_TAB`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_tab: Option<bool>,
}

impl LaunchRequest {
    /// Whether it attaches to or provisions a browser rather than launching one locally.
    ///
    /// ```
    /// let attach = abx_wire::LaunchRequest { cdp_url: Some("ws://127.0.0.1:9/x".into()), ..Default::default() };
    /// assert!(attach.is_external());
    /// assert!(!abx_wire::LaunchRequest::default().is_external());
    /// ```
    pub fn is_external(&self) -> bool {
        self.cdp_url.is_some()
            || self.cdp_port.is_some()
            || self.provider.is_some()
            || self.auto_connect == Some(true)
    }
}

/// `launch.proxy`: `{"server", "username"?, "password"?, "bypass"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProxyRequest {
    /// `scheme://host:port` (credentials split out), or a PAC URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// User name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// Password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Bypass list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bypass: Option<String>,
}
