//! Daemon-owned options: the `<session>.config` fingerprint (§1.3) and the environment the CLI gives
//! a daemon it spawns (§3.3).

use serde::Serialize;
use serde_json::Value;

use crate::flags::{Flags, parse_proxy};

/// The options a running daemon cannot change, serialized as 0.41.2 writes `<session>.config`:
/// `{"action_policy":null,"confirm_actions":null,"debug":false,"default_timeout":null,"idle_timeout":null,"no_auto_dialog":false}`
/// (keys alphabetical; `idle_timeout` is a millisecond string).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DaemonFingerprint {
    /// `--action-policy`.
    pub action_policy: Option<String>,
    /// `--confirm-actions`.
    pub confirm_actions: Option<String>,
    /// `--debug`.
    pub debug: bool,
    /// `AGENT_BROWSER_DEFAULT_TIMEOUT` (ms).
    pub default_timeout: Option<u64>,
    /// `--idle-timeout` in ms.
    pub idle_timeout: Option<String>,
    /// `--no-auto-dialog`.
    pub no_auto_dialog: bool,
}

impl DaemonFingerprint {
    /// The fingerprint of these settings.
    pub fn from_flags(flags: &Flags) -> Self {
        Self {
            action_policy: flags.action_policy.clone(),
            confirm_actions: flags.confirm_actions.clone(),
            debug: flags.debug,
            default_timeout: flags.default_timeout,
            idle_timeout: flags.idle_timeout.clone(),
            no_auto_dialog: flags.no_auto_dialog,
        }
    }

    /// The `<session>.config` file content (no trailing newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// 0.41.2 ignores a differing fingerprint with a warning instead of restarting the daemon.
    /// One warning per differing option, e.g. `Ignoring default timeout 5000: session "default" is
    /// already running with the default. Close the session to change it.` (the wording of options
    /// other than the default timeout is ours).
    pub fn mismatch_warnings(&self, running: &DaemonFingerprint, session: &str) -> Vec<String> {
        fn shown<T: ToString>(v: &Option<T>) -> Option<String> {
            v.as_ref().map(ToString::to_string)
        }
        let flag = |b: bool| b.then(|| "on".to_string());
        let rows: [(&str, Option<String>, Option<String>, bool); 6] = [
            (
                "action policy",
                shown(&self.action_policy),
                shown(&running.action_policy),
                self.action_policy != running.action_policy,
            ),
            (
                "confirm actions",
                shown(&self.confirm_actions),
                shown(&running.confirm_actions),
                self.confirm_actions != running.confirm_actions,
            ),
            (
                "debug",
                flag(self.debug),
                flag(running.debug),
                self.debug != running.debug,
            ),
            (
                "default timeout",
                shown(&self.default_timeout),
                shown(&running.default_timeout),
                self.default_timeout != running.default_timeout,
            ),
            (
                "idle timeout",
                shown(&self.idle_timeout),
                shown(&running.idle_timeout),
                self.idle_timeout != running.idle_timeout,
            ),
            (
                "no auto dialog",
                flag(self.no_auto_dialog),
                flag(running.no_auto_dialog),
                self.no_auto_dialog != running.no_auto_dialog,
            ),
        ];
        rows.into_iter()
            .filter(|row| row.3)
            .map(|(label, wanted, current, _)| {
                let wanted = wanted.unwrap_or_else(|| "default".to_string());
                let current = current.unwrap_or_else(|| "the default".to_string());
                format!(
                    "Ignoring {label} {wanted}: session \"{session}\" is already running with {current}. Close the session to change it."
                )
            })
            .collect()
    }
}

/// The `<session>.config` JSON for these settings.
pub fn fingerprint_json(flags: &Flags) -> String {
    DaemonFingerprint::from_flags(flags).to_json()
}

/// Option variables the CLI manages in a spawned daemon's environment.
pub const DAEMON_ENV_VARS: &[&str] = &[
    "AGENT_BROWSER_HEADED",
    "AGENT_BROWSER_DEBUG",
    "AGENT_BROWSER_EXECUTABLE_PATH",
    "AGENT_BROWSER_EXTENSIONS",
    "AGENT_BROWSER_INIT_SCRIPTS",
    "AGENT_BROWSER_ENABLE",
    "AGENT_BROWSER_ARGS",
    "AGENT_BROWSER_USER_AGENT",
    "AGENT_BROWSER_PROXY",
    "AGENT_BROWSER_PROXY_BYPASS",
    "AGENT_BROWSER_PROXY_USERNAME",
    "AGENT_BROWSER_PROXY_PASSWORD",
    "AGENT_BROWSER_IGNORE_HTTPS_ERRORS",
    "AGENT_BROWSER_ALLOW_FILE_ACCESS",
    "AGENT_BROWSER_HIDE_SCROLLBARS",
    "AGENT_BROWSER_WEBGPU",
    "AGENT_BROWSER_PROFILE",
    "AGENT_BROWSER_STATE",
    "AGENT_BROWSER_PROVIDER",
    "AGENT_BROWSER_IOS_DEVICE",
    "AGENT_BROWSER_SESSION_NAME",
    "AGENT_BROWSER_RESTORE_SAVE",
    "AGENT_BROWSER_RESTORE_CHECK_URL",
    "AGENT_BROWSER_RESTORE_CHECK_TEXT",
    "AGENT_BROWSER_RESTORE_CHECK_FN",
    "AGENT_BROWSER_DOWNLOAD_PATH",
    "AGENT_BROWSER_ALLOWED_DOMAINS",
    "AGENT_BROWSER_ACTION_POLICY",
    "AGENT_BROWSER_CONFIRM_ACTIONS",
    "AGENT_BROWSER_ENGINE",
    "AGENT_BROWSER_AUTO_CONNECT",
    "AGENT_BROWSER_PIN_TAB",
    "AGENT_BROWSER_IDLE_TIMEOUT_MS",
    "AGENT_BROWSER_DEFAULT_TIMEOUT",
    "AGENT_BROWSER_CDP",
    "AGENT_BROWSER_CDP_HEADERS",
    "AGENT_BROWSER_NO_AUTO_DIALOG",
    "AGENT_BROWSER_PLUGINS",
    "AGENT_BROWSER_CA_CERT",
    "AGENT_BROWSER_CLEAR_CA_CERT",
    "AGENT_BROWSER_USE_SYSTEM_CA",
    "AGENT_BROWSER_NO_WEBMCP",
    "AGENT_BROWSER_NAMESPACE",
];

/// Variables to set in the environment of a daemon spawned for `session` (§3.3): always
/// `AGENT_BROWSER_DAEMON=1`, `AGENT_BROWSER_SESSION`, `AGENT_BROWSER_HIDE_SCROLLBARS=1|0` and
/// `AGENT_BROWSER_PLUGINS`; the others only when set.
pub fn daemon_env(session: &str, flags: &Flags) -> Vec<(String, String)> {
    let mut env: Vec<(&str, Option<String>)> = Vec::new();
    let one = |b: bool| b.then(|| "1".to_string());
    let proxy = flags.proxy.as_deref().map(parse_proxy);
    let joined = |list: &[String]| (!list.is_empty()).then(|| list.join(","));
    env.push(("AGENT_BROWSER_DAEMON", Some("1".to_string())));
    env.push(("AGENT_BROWSER_SESSION", Some(session.to_string())));
    env.push(("AGENT_BROWSER_HEADED", one(flags.headed)));
    env.push(("AGENT_BROWSER_DEBUG", one(flags.debug)));
    env.push((
        "AGENT_BROWSER_EXECUTABLE_PATH",
        flags.executable_path.clone(),
    ));
    env.push(("AGENT_BROWSER_EXTENSIONS", joined(&flags.extensions)));
    env.push(("AGENT_BROWSER_INIT_SCRIPTS", joined(&flags.init_scripts)));
    env.push(("AGENT_BROWSER_ENABLE", joined(&flags.enable)));
    env.push(("AGENT_BROWSER_ARGS", flags.args.clone()));
    env.push(("AGENT_BROWSER_USER_AGENT", flags.user_agent.clone()));
    env.push((
        "AGENT_BROWSER_PROXY",
        proxy.as_ref().map(|p| p.server.clone()),
    ));
    env.push(("AGENT_BROWSER_PROXY_BYPASS", flags.proxy_bypass.clone()));
    env.push((
        "AGENT_BROWSER_PROXY_USERNAME",
        proxy.as_ref().and_then(|p| p.username.clone()),
    ));
    env.push((
        "AGENT_BROWSER_PROXY_PASSWORD",
        proxy.as_ref().and_then(|p| p.password.clone()),
    ));
    env.push((
        "AGENT_BROWSER_IGNORE_HTTPS_ERRORS",
        one(flags.ignore_https_errors),
    ));
    env.push((
        "AGENT_BROWSER_ALLOW_FILE_ACCESS",
        one(flags.allow_file_access),
    ));
    env.push((
        "AGENT_BROWSER_HIDE_SCROLLBARS",
        Some(if flags.hide_scrollbars { "1" } else { "0" }.to_string()),
    ));
    env.push(("AGENT_BROWSER_WEBGPU", one(flags.webgpu)));
    env.push(("AGENT_BROWSER_PROFILE", flags.profile.clone()));
    env.push(("AGENT_BROWSER_STATE", flags.state.clone()));
    env.push(("AGENT_BROWSER_PROVIDER", flags.provider.clone()));
    env.push(("AGENT_BROWSER_IOS_DEVICE", flags.device.clone()));
    env.push((
        "AGENT_BROWSER_SESSION_NAME",
        flags.restore_key().map(str::to_string),
    ));
    env.push(("AGENT_BROWSER_RESTORE_SAVE", flags.restore_save.clone()));
    env.push((
        "AGENT_BROWSER_RESTORE_CHECK_URL",
        flags.restore_check_url.clone(),
    ));
    env.push((
        "AGENT_BROWSER_RESTORE_CHECK_TEXT",
        flags.restore_check_text.clone(),
    ));
    env.push((
        "AGENT_BROWSER_RESTORE_CHECK_FN",
        flags.restore_check_fn.clone(),
    ));
    env.push(("AGENT_BROWSER_DOWNLOAD_PATH", flags.download_path.clone()));
    env.push((
        "AGENT_BROWSER_ALLOWED_DOMAINS",
        flags.allowed_domains.as_ref().map(|d| d.join(",")),
    ));
    env.push(("AGENT_BROWSER_ACTION_POLICY", flags.action_policy.clone()));
    env.push((
        "AGENT_BROWSER_CONFIRM_ACTIONS",
        flags.confirm_actions.clone(),
    ));
    env.push(("AGENT_BROWSER_ENGINE", flags.engine.clone()));
    env.push(("AGENT_BROWSER_AUTO_CONNECT", one(flags.auto_connect)));
    env.push(("AGENT_BROWSER_PIN_TAB", one(flags.pin_tab)));
    env.push(("AGENT_BROWSER_IDLE_TIMEOUT_MS", flags.idle_timeout.clone()));
    env.push((
        "AGENT_BROWSER_DEFAULT_TIMEOUT",
        flags.default_timeout.map(|t| t.to_string()),
    ));
    env.push(("AGENT_BROWSER_CDP", flags.cdp.clone()));
    env.push(("AGENT_BROWSER_CDP_HEADERS", flags.cdp_headers.clone()));
    env.push(("AGENT_BROWSER_NO_AUTO_DIALOG", one(flags.no_auto_dialog)));
    env.push((
        "AGENT_BROWSER_PLUGINS",
        Some(
            serde_json::to_string(&Value::Array(flags.plugins.clone()))
                .unwrap_or_else(|_| "[]".into()),
        ),
    ));
    env.push(("AGENT_BROWSER_CA_CERT", flags.ca_cert.clone()));
    env.push(("AGENT_BROWSER_CLEAR_CA_CERT", one(flags.clear_ca_cert)));
    env.push(("AGENT_BROWSER_USE_SYSTEM_CA", one(flags.use_system_ca)));
    env.push(("AGENT_BROWSER_NO_WEBMCP", one(flags.no_webmcp)));
    env.push(("AGENT_BROWSER_NAMESPACE", flags.namespace.clone()));
    env.into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
        .collect()
}

/// Managed option variables that [`daemon_env`] does not set: remove them from a spawned daemon's
/// environment so an inherited shell value cannot override an explicit `--flag false`.
pub fn daemon_env_unset(session: &str, flags: &Flags) -> Vec<String> {
    let set = daemon_env(session, flags);
    DAEMON_ENV_VARS
        .iter()
        .filter(|name| !set.iter().any(|(k, _)| k == *name))
        .map(|name| name.to_string())
        .collect()
}
