//! Daemon-owned options: the `<session>.config` fingerprint (§1.3) and the environment the CLI gives
//! a daemon it spawns (§3.3).

use abx_wire::env;
use serde::Serialize;
use serde_json::Value;

use crate::globals::{Flags, parse_proxy};

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
    env::HEADED,
    env::DEBUG,
    env::EXECUTABLE_PATH,
    env::EXTENSIONS,
    env::INIT_SCRIPTS,
    env::ENABLE,
    env::ARGS,
    env::USER_AGENT,
    env::PROXY,
    env::PROXY_BYPASS,
    env::PROXY_USERNAME,
    env::PROXY_PASSWORD,
    env::IGNORE_HTTPS_ERRORS,
    env::ALLOW_FILE_ACCESS,
    env::HIDE_SCROLLBARS,
    env::WEBGPU,
    env::PROFILE,
    env::STATE,
    env::PROVIDER,
    env::IOS_DEVICE,
    env::SESSION_NAME,
    env::RESTORE_SAVE,
    env::RESTORE_CHECK_URL,
    env::RESTORE_CHECK_TEXT,
    env::RESTORE_CHECK_FN,
    env::DOWNLOAD_PATH,
    env::ALLOWED_DOMAINS,
    env::ACTION_POLICY,
    env::CONFIRM_ACTIONS,
    env::ENGINE,
    env::AUTO_CONNECT,
    env::PIN_TAB,
    env::IDLE_TIMEOUT_MS,
    env::DEFAULT_TIMEOUT,
    env::CDP,
    env::CDP_HEADERS,
    env::NO_AUTO_DIALOG,
    env::PLUGINS,
    env::CA_CERT,
    env::CLEAR_CA_CERT,
    env::USE_SYSTEM_CA,
    env::NO_WEBMCP,
    env::NAMESPACE,
];

/// Variables to set in the environment of a daemon spawned for `session` (§3.3): always
/// `AGENT_BROWSER_DAEMON=1`, `AGENT_BROWSER_SESSION`, `AGENT_BROWSER_HIDE_SCROLLBARS=1|0` and
/// `AGENT_BROWSER_PLUGINS`; the others only when set.
pub fn daemon_env(session: &str, flags: &Flags) -> Vec<(String, String)> {
    let mut env: Vec<(&str, Option<String>)> = Vec::new();
    let one = |b: bool| b.then(|| "1".to_string());
    let proxy = flags.proxy.as_deref().map(parse_proxy);
    let joined = |list: &[String]| (!list.is_empty()).then(|| list.join(","));
    env.push((env::DAEMON, Some("1".to_string())));
    env.push((env::SESSION, Some(session.to_string())));
    env.push((env::HEADED, one(flags.headed)));
    env.push((env::DEBUG, one(flags.debug)));
    env.push((env::EXECUTABLE_PATH, flags.executable_path.clone()));
    env.push((env::EXTENSIONS, joined(&flags.extensions)));
    env.push((env::INIT_SCRIPTS, joined(&flags.init_scripts)));
    env.push((env::ENABLE, joined(&flags.enable)));
    env.push((env::ARGS, flags.args.clone()));
    env.push((env::USER_AGENT, flags.user_agent.clone()));
    env.push((env::PROXY, proxy.as_ref().map(|p| p.server.clone())));
    env.push((env::PROXY_BYPASS, flags.proxy_bypass.clone()));
    env.push((
        env::PROXY_USERNAME,
        proxy.as_ref().and_then(|p| p.username.clone()),
    ));
    env.push((
        env::PROXY_PASSWORD,
        proxy.as_ref().and_then(|p| p.password.clone()),
    ));
    env.push((env::IGNORE_HTTPS_ERRORS, one(flags.ignore_https_errors)));
    env.push((env::ALLOW_FILE_ACCESS, one(flags.allow_file_access)));
    env.push((
        env::HIDE_SCROLLBARS,
        Some(if flags.hide_scrollbars { "1" } else { "0" }.to_string()),
    ));
    env.push((env::WEBGPU, one(flags.webgpu)));
    env.push((env::PROFILE, flags.profile.clone()));
    env.push((env::STATE, flags.state.clone()));
    env.push((env::PROVIDER, flags.provider.clone()));
    env.push((env::IOS_DEVICE, flags.device.clone()));
    env.push((env::SESSION_NAME, flags.restore_key().map(str::to_string)));
    env.push((env::RESTORE_SAVE, flags.restore_save.clone()));
    env.push((env::RESTORE_CHECK_URL, flags.restore_check_url.clone()));
    env.push((env::RESTORE_CHECK_TEXT, flags.restore_check_text.clone()));
    env.push((env::RESTORE_CHECK_FN, flags.restore_check_fn.clone()));
    env.push((env::DOWNLOAD_PATH, flags.download_path.clone()));
    env.push((
        env::ALLOWED_DOMAINS,
        flags.allowed_domains.as_ref().map(|d| d.join(",")),
    ));
    env.push((env::ACTION_POLICY, flags.action_policy.clone()));
    env.push((env::CONFIRM_ACTIONS, flags.confirm_actions.clone()));
    env.push((env::ENGINE, flags.engine.clone()));
    env.push((env::AUTO_CONNECT, one(flags.auto_connect)));
    env.push((env::PIN_TAB, one(flags.pin_tab)));
    env.push((env::IDLE_TIMEOUT_MS, flags.idle_timeout.clone()));
    env.push((
        env::DEFAULT_TIMEOUT,
        flags.default_timeout.map(|t| t.to_string()),
    ));
    env.push((env::CDP, flags.cdp.clone()));
    env.push((env::CDP_HEADERS, flags.cdp_headers.clone()));
    env.push((env::NO_AUTO_DIALOG, one(flags.no_auto_dialog)));
    env.push((
        env::PLUGINS,
        Some(
            serde_json::to_string(&Value::Array(flags.plugins.clone()))
                .unwrap_or_else(|_| "[]".into()),
        ),
    ));
    env.push((env::CA_CERT, flags.ca_cert.clone()));
    env.push((env::CLEAR_CA_CERT, one(flags.clear_ca_cert)));
    env.push((env::USE_SYSTEM_CA, one(flags.use_system_ca)));
    env.push((env::NO_WEBMCP, one(flags.no_webmcp)));
    env.push((env::NAMESPACE, flags.namespace.clone()));
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
