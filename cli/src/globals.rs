//! The global settings once config, environment and flags are resolved ([`Flags`]), and the
//! helpers that read a setting's value (`--args`, `--proxy`). A leaf: the flag parser
//! ([`crate::flags`]) fills it in, and the command modules, the output options and the
//! registry's grammar input read it without depending on the parser (which knows the command
//! words).

use serde_json::Value;

/// Every global setting after config, environment and flags are combined.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs)]
pub struct Flags {
    pub json: bool,
    pub headed: bool,
    /// `--headed` appeared on this invocation.
    pub cli_headed: bool,
    pub debug: bool,
    pub session: String,
    pub namespace: Option<String>,
    pub headers: Option<String>,
    pub executable_path: Option<String>,
    pub cdp: Option<String>,
    pub cdp_headers: Option<String>,
    pub extensions: Vec<String>,
    pub init_scripts: Vec<String>,
    pub enable: Vec<String>,
    pub profile: Option<String>,
    pub state: Option<String>,
    pub proxy: Option<String>,
    pub proxy_bypass: Option<String>,
    /// Raw `--args` string (split with [`split_launch_args`]).
    pub args: Option<String>,
    pub user_agent: Option<String>,
    pub provider: Option<String>,
    pub device: Option<String>,
    pub ignore_https_errors: bool,
    pub allow_file_access: bool,
    pub hide_scrollbars: bool,
    /// `--hide-scrollbars` appeared on this invocation.
    pub cli_hide_scrollbars: bool,
    pub webgpu: bool,
    /// `--webgpu` appeared on this invocation.
    pub cli_webgpu: bool,
    pub no_webmcp: bool,
    /// `--no-webmcp` appeared on this invocation.
    pub cli_no_webmcp: bool,
    pub auto_connect: bool,
    pub pin_tab: bool,
    /// `--pin-tab`/`--no-pin-tab` appeared on this invocation.
    pub cli_pin_tab: bool,
    pub annotate: bool,
    /// `--annotate` appeared on this invocation.
    pub cli_annotate: bool,
    pub color_scheme: Option<String>,
    pub download_path: Option<String>,
    pub content_boundaries: bool,
    pub max_output: Option<usize>,
    pub allowed_domains: Option<Vec<String>>,
    pub action_policy: Option<String>,
    pub confirm_actions: Option<String>,
    pub confirm_interactive: bool,
    pub engine: Option<String>,
    pub screenshot_dir: Option<String>,
    pub screenshot_quality: Option<u32>,
    pub screenshot_format: Option<String>,
    /// Idle timeout in ms (canonical string for `AGENT_BROWSER_IDLE_TIMEOUT_MS`).
    pub idle_timeout: Option<String>,
    /// `AGENT_BROWSER_DEFAULT_TIMEOUT` in ms.
    pub default_timeout: Option<u64>,
    pub no_auto_dialog: bool,
    pub model: Option<String>,
    pub verbose: bool,
    pub quiet: bool,
    /// Restore key (`--restore <name>`, or the session name for a bare `--restore`).
    pub restore: Option<String>,
    pub restore_save: Option<String>,
    pub restore_check_url: Option<String>,
    pub restore_check_text: Option<String>,
    pub restore_check_fn: Option<String>,
    /// Legacy restore key (`--session-name`).
    pub session_name: Option<String>,
    pub ca_cert: Option<String>,
    pub clear_ca_cert: bool,
    pub use_system_ca: bool,
    /// `--use-system-ca` was said (flag, env or config file), so a command tells the daemon to
    /// switch system roots on or off; otherwise it leaves the daemon's setting as it is.
    pub use_system_ca_given: bool,
    /// `AGENT_BROWSER_NO_XVFB` (env only).
    pub no_xvfb: bool,
    pub input_mode: Option<String>,
    /// Plugin registry sent as `plugins` with (nearly) every request.
    pub plugins: Vec<Value>,
    /// ANSI colours on.
    pub color: bool,
    /// `--offline` (doctor).
    pub offline: bool,
    /// `--quick` (doctor).
    pub quick: bool,
    /// `--fix` (doctor).
    pub fix: bool,
}

impl Flags {
    /// The restore key in effect: `--restore`, else the legacy `--session-name`.
    pub fn restore_key(&self) -> Option<&str> {
        self.restore.as_deref().or(self.session_name.as_deref())
    }
}

/// Split `--args`/`AGENT_BROWSER_ARGS` the 0.41.2 way: one argument per line, and within a line a
/// comma separates arguments only when what follows it starts another `-flag`, so commas inside a
/// value survive (`"--no-sandbox,--window-size=800,600"` → `["--no-sandbox",
/// "--window-size=800,600"]`). Items are trimmed and empty ones dropped.
pub fn split_launch_args(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in raw.split('\n') {
        let mut current: Option<String> = None;
        for part in line.split(',') {
            let trimmed = part.trim();
            if trimmed.is_empty() {
                continue;
            }
            match current.as_mut() {
                Some(cur) if !trimmed.starts_with('-') => {
                    cur.push(',');
                    cur.push_str(part);
                }
                _ => {
                    if let Some(done) = current.take() {
                        push_trimmed(&mut out, &done);
                    }
                    current = Some(part.to_string());
                }
            }
        }
        if let Some(done) = current {
            push_trimmed(&mut out, &done);
        }
    }
    out
}

fn push_trimmed(out: &mut Vec<String>, item: &str) {
    let item = item.trim();
    if !item.is_empty() {
        out.push(item.to_string());
    }
}

/// Split `scheme://user:pass@host:port` into server and credentials (anything else is the server):
/// one reading for the CLI's `launch` request and the daemon's settings.
pub use abx_wire::{ProxyParts, split_proxy as parse_proxy};
