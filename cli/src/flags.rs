//! Global flags, environment variables and config files (contract §2.13, §3).
//!
//! Global flags may appear anywhere in argv. Value flags consume the next token, boolean flags take an
//! optional following `true`/`false`. Settings resolve as config file < environment < flags; booleans
//! combine as `env truthy OR config true` and only `--flag false` turns them off again.

use abx_wire::env;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

pub use crate::globals::{Flags, ProxyParts, parse_proxy, split_launch_args};
use crate::host::Host;

const CONFIG_DIR: &str = ".agent-browser";
const CONFIG_FILENAME: &str = "config.json";
const PROJECT_CONFIG_FILENAME: &str = "agent-browser.json";

/// Keys an auto-discovered `./agent-browser.json` may set (0.41.2 restriction); other keys must come
/// from the user config or an explicit `--config`.
pub const PROJECT_CONFIG_KEYS: &[&str] = &[
    "headed",
    "json",
    "debug",
    "userAgent",
    "hideScrollbars",
    "annotate",
    "colorScheme",
    "maxOutput",
    "screenshotQuality",
    "screenshotFormat",
    "idleTimeout",
];

/// Global flags that take a value (aliases map to their long form).
const VALUE_FLAGS: &[(&str, &str)] = &[
    ("--session", "--session"),
    ("--namespace", "--namespace"),
    ("--restore-save", "--restore-save"),
    ("--restore-check-url", "--restore-check-url"),
    ("--restore-check-text", "--restore-check-text"),
    ("--restore-check-fn", "--restore-check-fn"),
    ("--session-name", "--session-name"),
    ("--headers", "--headers"),
    ("--executable-path", "--executable-path"),
    ("--cdp", "--cdp"),
    ("--cdp-headers", "--cdp-headers"),
    ("--extension", "--extension"),
    ("--init-script", "--init-script"),
    ("--enable", "--enable"),
    ("--profile", "--profile"),
    ("--state", "--state"),
    ("--proxy", "--proxy"),
    ("--proxy-bypass", "--proxy-bypass"),
    ("--args", "--args"),
    ("--user-agent", "--user-agent"),
    ("-p", "--provider"),
    ("--provider", "--provider"),
    ("--device", "--device"),
    ("--color-scheme", "--color-scheme"),
    ("--download-path", "--download-path"),
    ("--max-output", "--max-output"),
    ("--allowed-domains", "--allowed-domains"),
    ("--action-policy", "--action-policy"),
    ("--confirm-actions", "--confirm-actions"),
    ("--engine", "--engine"),
    ("--screenshot-dir", "--screenshot-dir"),
    ("--screenshot-quality", "--screenshot-quality"),
    ("--screenshot-format", "--screenshot-format"),
    ("--idle-timeout", "--idle-timeout"),
    ("--model", "--model"),
    ("--config", "--config"),
    ("--ca-cert", "--ca-cert"),
    ("--input-mode", "--input-mode"),
];

/// Global boolean flags (optional `true`/`false` value). doctor's `--offline --quick --fix` are
/// stripped like upstream does.
const BOOL_FLAGS: &[(&str, &str)] = &[
    ("--json", "--json"),
    ("--headed", "--headed"),
    ("--webgpu", "--webgpu"),
    ("--debug", "--debug"),
    ("--ignore-https-errors", "--ignore-https-errors"),
    ("--allow-file-access", "--allow-file-access"),
    ("--hide-scrollbars", "--hide-scrollbars"),
    ("--auto-connect", "--auto-connect"),
    ("--annotate", "--annotate"),
    ("--content-boundaries", "--content-boundaries"),
    ("--confirm-interactive", "--confirm-interactive"),
    ("--no-auto-dialog", "--no-auto-dialog"),
    ("--pin-tab", "--pin-tab"),
    ("--no-pin-tab", "--no-pin-tab"),
    ("--no-ca-cert", "--no-ca-cert"),
    ("--use-system-ca", "--use-system-ca"),
    ("--no-webmcp", "--no-webmcp"),
    ("-v", "--verbose"),
    ("--verbose", "--verbose"),
    ("-q", "--quiet"),
    ("--quiet", "--quiet"),
    ("--offline", "--offline"),
    ("--quick", "--quick"),
    ("--fix", "--fix"),
];

/// CLI truthiness of a boolean environment value: on unless `""`, `0`, `false` or `no`
/// (case-insensitive).
pub fn is_truthy(value: &str) -> bool {
    !matches!(value.to_lowercase().as_str(), "" | "0" | "false" | "no")
}

/// Whether the environment variable `name` is set to a truthy value.
pub fn env_truthy(host: &dyn Host, name: &str) -> bool {
    host.var(name).is_some_and(|v| is_truthy(&v))
}

/// Whether colours are on: `AGENT_BROWSER_COLOR` truthy and `NO_COLOR` unset.
pub fn color_enabled(host: &dyn Host) -> bool {
    env_truthy(host, env::COLOR) && host.var("NO_COLOR").is_none()
}

/// Parse an idle timeout: `10s`, `3m`, `1h` (lowercase units) or raw milliseconds; returns ms as a
/// string.
pub fn parse_idle_timeout(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("Empty idle timeout".to_string());
    }
    if s.chars().last().is_some_and(|c| c.is_ascii_alphabetic()) {
        let (num, unit) = s.split_at(s.len() - 1);
        let n: u64 = num.parse().map_err(|_| "Invalid number".to_string())?;
        let factor = match unit {
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err("Invalid idle timeout unit (use s, m, h, or raw ms)".to_string()),
        };
        return Ok(n.saturating_mul(factor).to_string());
    }
    s.parse::<u64>()
        .map_err(|_| "Invalid idle timeout".to_string())?;
    Ok(s.to_string())
}

/// A config file (`~/.agent-browser/config.json`, `./agent-browser.json` or `--config <path>`).
/// Keys are the camelCase forms of the flags; unknown keys are ignored.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Config {
    pub headed: Option<bool>,
    pub json: Option<bool>,
    pub debug: Option<bool>,
    pub session: Option<String>,
    pub session_name: Option<String>,
    pub restore: Option<Value>,
    pub restore_save: Option<String>,
    pub restore_check_url: Option<String>,
    pub restore_check_text: Option<String>,
    pub restore_check_fn: Option<String>,
    pub namespace: Option<String>,
    pub executable_path: Option<String>,
    pub extensions: Option<Vec<String>>,
    pub init_scripts: Option<Vec<String>>,
    pub enable: Option<Vec<String>>,
    pub profile: Option<String>,
    pub state: Option<String>,
    pub proxy: Option<String>,
    pub proxy_bypass: Option<String>,
    pub args: Option<String>,
    pub user_agent: Option<String>,
    pub provider: Option<String>,
    pub device: Option<String>,
    pub hide_scrollbars: Option<bool>,
    pub webgpu: Option<bool>,
    pub ignore_https_errors: Option<bool>,
    pub allow_file_access: Option<bool>,
    pub cdp: Option<String>,
    pub cdp_headers: Option<String>,
    pub auto_connect: Option<bool>,
    pub headers: Option<String>,
    pub annotate: Option<bool>,
    pub color_scheme: Option<String>,
    pub download_path: Option<String>,
    pub content_boundaries: Option<bool>,
    pub max_output: Option<usize>,
    pub allowed_domains: Option<Vec<String>>,
    pub action_policy: Option<String>,
    pub confirm_actions: Option<String>,
    pub confirm_interactive: Option<bool>,
    pub engine: Option<String>,
    pub screenshot_dir: Option<String>,
    pub screenshot_quality: Option<u32>,
    pub screenshot_format: Option<String>,
    pub idle_timeout: Option<String>,
    pub no_auto_dialog: Option<bool>,
    pub model: Option<String>,
    pub plugins: Option<Vec<Value>>,
    pub pin_tab: Option<bool>,
    pub ca_cert: Option<String>,
    pub use_system_ca: Option<bool>,
    pub no_webmcp: Option<bool>,
    pub input_mode: Option<String>,
}

fn concat<T>(a: Option<Vec<T>>, b: Option<Vec<T>>) -> Option<Vec<T>> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(a)
        }
        (a, b) => b.or(a),
    }
}

impl Config {
    /// `self` overlaid by `other`: scalars from `other` win, list keys (`extensions`, `initScripts`,
    /// `enable`, `plugins`) are concatenated.
    pub fn merge(self, other: Config) -> Config {
        Config {
            headed: other.headed.or(self.headed),
            json: other.json.or(self.json),
            debug: other.debug.or(self.debug),
            session: other.session.or(self.session),
            session_name: other.session_name.or(self.session_name),
            restore: other.restore.or(self.restore),
            restore_save: other.restore_save.or(self.restore_save),
            restore_check_url: other.restore_check_url.or(self.restore_check_url),
            restore_check_text: other.restore_check_text.or(self.restore_check_text),
            restore_check_fn: other.restore_check_fn.or(self.restore_check_fn),
            namespace: other.namespace.or(self.namespace),
            executable_path: other.executable_path.or(self.executable_path),
            extensions: concat(self.extensions, other.extensions),
            init_scripts: concat(self.init_scripts, other.init_scripts),
            enable: concat(self.enable, other.enable),
            profile: other.profile.or(self.profile),
            state: other.state.or(self.state),
            proxy: other.proxy.or(self.proxy),
            proxy_bypass: other.proxy_bypass.or(self.proxy_bypass),
            args: other.args.or(self.args),
            user_agent: other.user_agent.or(self.user_agent),
            provider: other.provider.or(self.provider),
            device: other.device.or(self.device),
            hide_scrollbars: other.hide_scrollbars.or(self.hide_scrollbars),
            webgpu: other.webgpu.or(self.webgpu),
            ignore_https_errors: other.ignore_https_errors.or(self.ignore_https_errors),
            allow_file_access: other.allow_file_access.or(self.allow_file_access),
            cdp: other.cdp.or(self.cdp),
            cdp_headers: other.cdp_headers.or(self.cdp_headers),
            auto_connect: other.auto_connect.or(self.auto_connect),
            headers: other.headers.or(self.headers),
            annotate: other.annotate.or(self.annotate),
            color_scheme: other.color_scheme.or(self.color_scheme),
            download_path: other.download_path.or(self.download_path),
            content_boundaries: other.content_boundaries.or(self.content_boundaries),
            max_output: other.max_output.or(self.max_output),
            allowed_domains: other.allowed_domains.or(self.allowed_domains),
            action_policy: other.action_policy.or(self.action_policy),
            confirm_actions: other.confirm_actions.or(self.confirm_actions),
            confirm_interactive: other.confirm_interactive.or(self.confirm_interactive),
            engine: other.engine.or(self.engine),
            screenshot_dir: other.screenshot_dir.or(self.screenshot_dir),
            screenshot_quality: other.screenshot_quality.or(self.screenshot_quality),
            screenshot_format: other.screenshot_format.or(self.screenshot_format),
            idle_timeout: other.idle_timeout.or(self.idle_timeout),
            no_auto_dialog: other.no_auto_dialog.or(self.no_auto_dialog),
            model: other.model.or(self.model),
            plugins: concat(self.plugins, other.plugins),
            pin_tab: other.pin_tab.or(self.pin_tab),
            ca_cert: other.ca_cert.or(self.ca_cert),
            use_system_ca: other.use_system_ca.or(self.use_system_ca),
            no_webmcp: other.no_webmcp.or(self.no_webmcp),
            input_mode: other.input_mode.or(self.input_mode),
        }
    }
}

/// A config error that stops the CLI (`⚠ <message>` on stderr, exit 1), with the warnings printed
/// before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The fatal message, e.g. `config file not found: ./x.json`.
    pub message: String,
    /// Warnings emitted before the failure (e.g. `invalid config file …`).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Loaded configuration and the warnings produced while loading it.
#[derive(Debug, Default, Clone)]
pub struct LoadedConfig {
    /// The merged configuration.
    pub config: Config,
    /// Warnings to print as `⚠ <text>`.
    pub warnings: Vec<String>,
}

fn resolve_path(host: &dyn Host, raw: &str) -> PathBuf {
    let path = PathBuf::from(raw);
    if path.is_absolute() {
        path
    } else {
        host.current_dir().join(path)
    }
}

fn normalize_idle_timeout(config: &mut Config, source: &str, warnings: &mut Vec<String>) {
    if let Some(raw) = config.idle_timeout.take() {
        match parse_idle_timeout(&raw) {
            Ok(ms) => config.idle_timeout = Some(ms),
            Err(e) => warnings.push(format!("invalid idle timeout from {source}: {e}")),
        }
    }
}

/// Read and parse one config file. `None` when it is missing (silently) or invalid (with a
/// warning).
fn read_config_file(
    host: &dyn Host,
    path: &Path,
    shown: &str,
    warnings: &mut Vec<String>,
) -> Option<Config> {
    let content = host.read_to_string(path).ok()?;
    match serde_json::from_str::<Config>(&content) {
        Ok(mut config) => {
            normalize_idle_timeout(&mut config, &format!("config file {shown}"), warnings);
            Some(config)
        }
        Err(e) => {
            warnings.push(format!("invalid config file {shown}: {e}"));
            None
        }
    }
}

/// Read `./agent-browser.json`, honouring only [`PROJECT_CONFIG_KEYS`].
fn read_project_config(host: &dyn Host, path: &Path, warnings: &mut Vec<String>) -> Option<Config> {
    let shown = path.display().to_string();
    let content = host.read_to_string(path).ok()?;
    let value: Value = match serde_json::from_str(&content) {
        Ok(v) => v,
        Err(e) => {
            warnings.push(format!("invalid config file {shown}: {e}"));
            return None;
        }
    };
    let Value::Object(map) = value else {
        warnings.push(format!(
            "invalid config file {shown}: invalid type: expected a JSON object"
        ));
        return None;
    };
    let mut allowed = serde_json::Map::new();
    let mut ignored = Vec::new();
    for (key, val) in map {
        if PROJECT_CONFIG_KEYS.contains(&key.as_str()) {
            allowed.insert(key, val);
        } else if key != "$schema" {
            ignored.push(key);
        }
    }
    if !ignored.is_empty() {
        warnings.push(format!(
            "ignoring {} in project config {shown}: ./agent-browser.json may only set {}. Put other settings in ~/.agent-browser/config.json or pass --config {shown}",
            ignored
                .iter()
                .map(|k| format!("\"{k}\""))
                .collect::<Vec<_>>()
                .join(", "),
            PROJECT_CONFIG_KEYS.join(", ")
        ));
    }
    match serde_json::from_value::<Config>(Value::Object(allowed)) {
        Ok(mut config) => {
            normalize_idle_timeout(&mut config, &format!("config file {shown}"), warnings);
            Some(config)
        }
        Err(e) => {
            warnings.push(format!("invalid config file {shown}: {e}"));
            None
        }
    }
}

/// Load the configuration: `--config <path>` (found in `tokens`) or `AGENT_BROWSER_CONFIG` pins one
/// file; otherwise the user config overlaid by the (restricted) project config.
fn load_config(
    host: &dyn Host,
    explicit_flag: Option<Option<String>>,
) -> Result<LoadedConfig, ConfigError> {
    let mut warnings = Vec::new();
    let explicit = explicit_flag
        .map(|p| ("--config", p))
        .or_else(|| host.var(env::CONFIG).map(|p| (env::CONFIG, Some(p))));
    if let Some((source, maybe_path)) = explicit {
        let Some(path_str) = maybe_path else {
            return Err(ConfigError {
                message: format!("{source} requires a file path"),
                warnings,
            });
        };
        let path = resolve_path(host, &path_str);
        if !host.exists(&path) {
            return Err(ConfigError {
                message: format!("config file not found: {path_str}"),
                warnings,
            });
        }
        return match read_config_file(host, &path, &path_str, &mut warnings) {
            Some(config) => Ok(LoadedConfig { config, warnings }),
            None => Err(ConfigError {
                message: format!("failed to load config from {path_str}"),
                warnings,
            }),
        };
    }

    let user = host
        .home_dir()
        .map(|home| home.join(CONFIG_DIR).join(CONFIG_FILENAME))
        .and_then(|p| {
            let shown = p.display().to_string();
            read_config_file(host, &p, &shown, &mut warnings)
        })
        .unwrap_or_default();
    let project_path = host.current_dir().join(PROJECT_CONFIG_FILENAME);
    let config = match read_project_config(host, &project_path, &mut warnings) {
        Some(project) => user.merge(project),
        None => user,
    };
    Ok(LoadedConfig { config, warnings })
}

/// argv after global-flag processing.
#[derive(Debug, Clone)]
pub struct ParsedArgs {
    /// Resolved settings.
    pub flags: Flags,
    /// argv with global flags (and their values) removed: the command and its arguments.
    pub clean: Vec<String>,
    /// Warnings to print as `⚠ <text>` on stderr.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
enum Token {
    Value(&'static str, Option<String>),
    Bool(&'static str, bool),
    Restore(Option<String>),
    Arg(String),
}

fn lookup(table: &[(&str, &'static str)], arg: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(name, _)| *name == arg)
        .map(|(_, canonical)| *canonical)
}

fn bool_value(next: Option<&String>) -> (bool, bool) {
    match next.map(String::as_str) {
        Some("true") => (true, true),
        Some("false") => (false, true),
        _ => (true, false),
    }
}

fn tokenize(args: &[String]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut command: Option<&str> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        if arg == "--restore" {
            let next = args.get(i + 1);
            let takes_value = command.is_none()
                && next.is_some_and(|n| {
                    !n.starts_with('-') && crate::commands::registry::command(n).is_none()
                });
            if takes_value {
                tokens.push(Token::Restore(next.cloned()));
                i += 2;
            } else {
                tokens.push(Token::Restore(None));
                i += 1;
            }
            continue;
        }
        if let Some(value) = arg.strip_prefix("--restore=") {
            tokens.push(Token::Restore(
                (!value.is_empty()).then(|| value.to_string()),
            ));
            i += 1;
            continue;
        }
        // `wait <sel> --state <s>` is wait's own option, not the global `--state <file>`.
        if arg == "--state" && command == Some("wait") {
            tokens.push(Token::Arg(arg.to_string()));
            i += 1;
            continue;
        }
        if let Some(name) = lookup(VALUE_FLAGS, arg) {
            tokens.push(Token::Value(name, args.get(i + 1).cloned()));
            i += 2;
            continue;
        }
        if let Some(name) = lookup(BOOL_FLAGS, arg) {
            let (value, consumed) = bool_value(args.get(i + 1));
            tokens.push(Token::Bool(name, value));
            i += if consumed { 2 } else { 1 };
            continue;
        }
        if command.is_none() {
            command = Some(arg);
        }
        tokens.push(Token::Arg(arg.to_string()));
        i += 1;
    }
    tokens
}

fn split_list(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn split_domains(raw: &str) -> Vec<String> {
    raw.split(',')
        .map(|d| d.trim().to_lowercase())
        .filter(|d| !d.is_empty())
        .collect()
}

fn first_var(host: &dyn Host, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| host.var(n))
}

/// Resolve global flags: read config files, the environment and argv; return the settings, the
/// remaining argv and the warnings to print.
pub fn parse_flags(args: &[String], host: &dyn Host) -> Result<ParsedArgs, ConfigError> {
    let tokens = tokenize(args);
    let explicit_config = tokens.iter().find_map(|t| match t {
        Token::Value("--config", v) => Some(v.clone()),
        _ => None,
    });
    let LoadedConfig {
        config,
        mut warnings,
    } = load_config(host, explicit_config)?;

    let env = |name: &str| host.var(name);
    let truthy = |name: &str| env_truthy(host, name);
    let env_list = |name: &str| env(name).map(|s| split_list(&s)).filter(|l| !l.is_empty());

    let idle_from_env = env(env::IDLE_TIMEOUT_MS).and_then(|raw| match parse_idle_timeout(&raw) {
        Ok(ms) => Some(ms),
        Err(e) => {
            warnings.push(format!(
                "invalid idle timeout from AGENT_BROWSER_IDLE_TIMEOUT_MS: {e}"
            ));
            None
        }
    });

    let plugins_from_env =
        env(env::PLUGINS).and_then(|raw| match serde_json::from_str::<Vec<Value>>(&raw) {
            Ok(list) => Some(list),
            Err(e) => {
                warnings.push(format!("invalid AGENT_BROWSER_PLUGINS: {e}"));
                None
            }
        });

    // Upstream drops an out-of-range value from the environment without a word; abx warns as
    // it does for the flag, so a quality that is not applied never looks applied.
    let screenshot_quality_from_env =
        env(env::SCREENSHOT_QUALITY).and_then(|raw| match raw.trim().parse::<u32>() {
            Ok(n) if n <= 100 => Some(n),
            _ => {
                warnings.push(format!(
                    "AGENT_BROWSER_SCREENSHOT_QUALITY must be 0-100, got {}",
                    raw.trim()
                ));
                None
            }
        });

    let (restore_from_env, restore_env_uses_session) = match env(env::RESTORE) {
        Some(v) if matches!(v.to_lowercase().as_str(), "1" | "true" | "yes") => (None, true),
        Some(v) if !is_truthy(&v) => (None, false),
        Some(v) => (Some(v), false),
        None => (None, false),
    };
    let (restore_from_config, restore_config_uses_session) = match &config.restore {
        Some(Value::Bool(b)) => (None, *b),
        Some(Value::String(s)) if !s.is_empty() => (Some(s.clone()), false),
        _ => (None, false),
    };

    let mut flags = Flags {
        json: truthy(env::JSON) || config.json.unwrap_or(false),
        headed: truthy(env::HEADED) || config.headed.unwrap_or(false),
        debug: truthy(env::DEBUG) || config.debug.unwrap_or(false),
        session: env(env::SESSION)
            .or(config.session.clone())
            .unwrap_or_else(|| "default".to_string()),
        namespace: env(env::NAMESPACE).or(config.namespace.clone()),
        headers: config.headers.clone(),
        executable_path: env(env::EXECUTABLE_PATH).or(config.executable_path.clone()),
        cdp: env(env::CDP).or(config.cdp.clone()),
        cdp_headers: env(env::CDP_HEADERS).or(config.cdp_headers.clone()),
        extensions: env_list(env::EXTENSIONS)
            .or(config.extensions.clone())
            .unwrap_or_default(),
        init_scripts: env_list(env::INIT_SCRIPTS)
            .or(config.init_scripts.clone())
            .unwrap_or_default(),
        enable: env_list(env::ENABLE)
            .or(config.enable.clone())
            .unwrap_or_default(),
        profile: env(env::PROFILE).or(config.profile.clone()),
        state: env(env::STATE).or(config.state.clone()),
        proxy: env(env::PROXY).or(config.proxy.clone()).or_else(|| {
            first_var(
                host,
                &[
                    "HTTP_PROXY",
                    "http_proxy",
                    "HTTPS_PROXY",
                    "https_proxy",
                    "ALL_PROXY",
                    "all_proxy",
                ],
            )
        }),
        proxy_bypass: env(env::PROXY_BYPASS)
            .or(config.proxy_bypass.clone())
            .or_else(|| first_var(host, &["NO_PROXY", "no_proxy"])),
        args: env(env::ARGS).or(config.args.clone()),
        user_agent: env(env::USER_AGENT).or(config.user_agent.clone()),
        provider: env(env::PROVIDER).or(config.provider.clone()),
        device: env(env::IOS_DEVICE).or(config.device.clone()),
        ignore_https_errors: truthy(env::IGNORE_HTTPS_ERRORS)
            || config.ignore_https_errors.unwrap_or(false),
        allow_file_access: truthy(env::ALLOW_FILE_ACCESS)
            || config.allow_file_access.unwrap_or(false),
        hide_scrollbars: match env(env::HIDE_SCROLLBARS) {
            Some(v) => is_truthy(&v),
            None => config.hide_scrollbars.unwrap_or(true),
        },
        webgpu: truthy(env::WEBGPU) || config.webgpu.unwrap_or(false),
        no_webmcp: truthy(env::NO_WEBMCP) || config.no_webmcp.unwrap_or(false),
        auto_connect: truthy(env::AUTO_CONNECT) || config.auto_connect.unwrap_or(false),
        pin_tab: truthy(env::PIN_TAB) || config.pin_tab.unwrap_or(false),
        annotate: truthy(env::ANNOTATE) || config.annotate.unwrap_or(false),
        color_scheme: env(env::COLOR_SCHEME).or(config.color_scheme.clone()),
        download_path: env(env::DOWNLOAD_PATH).or(config.download_path.clone()),
        content_boundaries: truthy(env::CONTENT_BOUNDARIES)
            || config.content_boundaries.unwrap_or(false),
        max_output: env(env::MAX_OUTPUT)
            .and_then(|s| s.trim().parse().ok())
            .or(config.max_output),
        allowed_domains: env(env::ALLOWED_DOMAINS)
            .map(|s| split_domains(&s))
            .or(config.allowed_domains.clone()),
        action_policy: env(env::ACTION_POLICY)
            .or_else(|| env(env::POLICY))
            .or(config.action_policy.clone()),
        confirm_actions: env(env::CONFIRM_ACTIONS).or(config.confirm_actions.clone()),
        confirm_interactive: truthy(env::CONFIRM_INTERACTIVE)
            || config.confirm_interactive.unwrap_or(false),
        engine: env(env::ENGINE).or(config.engine.clone()),
        screenshot_dir: env(env::SCREENSHOT_DIR).or(config.screenshot_dir.clone()),
        screenshot_quality: screenshot_quality_from_env.or(config.screenshot_quality),
        screenshot_format: env(env::SCREENSHOT_FORMAT)
            .or(config.screenshot_format.clone())
            .filter(|s| s == "png" || s == "jpeg"),
        idle_timeout: idle_from_env.or(config.idle_timeout.clone()),
        default_timeout: env(env::DEFAULT_TIMEOUT).and_then(|s| s.trim().parse().ok()),
        no_auto_dialog: truthy(env::NO_AUTO_DIALOG) || config.no_auto_dialog.unwrap_or(false),
        model: env("AI_GATEWAY_MODEL").or(config.model.clone()),
        restore: restore_from_env.or(restore_from_config),
        restore_save: env(env::RESTORE_SAVE).or(config.restore_save.clone()),
        restore_check_url: env(env::RESTORE_CHECK_URL).or(config.restore_check_url.clone()),
        restore_check_text: env(env::RESTORE_CHECK_TEXT).or(config.restore_check_text.clone()),
        restore_check_fn: env(env::RESTORE_CHECK_FN).or(config.restore_check_fn.clone()),
        session_name: env(env::SESSION_NAME).or(config.session_name.clone()),
        ca_cert: env(env::CA_CERT).or(config.ca_cert.clone()),
        clear_ca_cert: truthy(env::CLEAR_CA_CERT),
        use_system_ca: truthy(env::USE_SYSTEM_CA) || config.use_system_ca.unwrap_or(false),
        use_system_ca_given: host.var(env::USE_SYSTEM_CA).is_some_and(|v| !v.is_empty())
            || config.use_system_ca.is_some(),
        no_xvfb: truthy(env::NO_XVFB),
        input_mode: config.input_mode.clone(),
        plugins: plugins_from_env.or(config.plugins).unwrap_or_default(),
        color: color_enabled(host),
        ..Flags::default()
    };
    let mut restore_uses_session = restore_env_uses_session || restore_config_uses_session;

    let mut clean = Vec::new();
    for token in tokens {
        match token {
            Token::Arg(arg) => clean.push(arg),
            Token::Restore(value) => match value {
                Some(key) => {
                    flags.restore = Some(key);
                    restore_uses_session = false;
                }
                None => restore_uses_session = true,
            },
            Token::Bool(name, value) => apply_bool(&mut flags, name, value),
            Token::Value(name, value) => {
                if let Some(value) = value {
                    apply_value(&mut flags, name, value, &mut warnings);
                }
            }
        }
    }
    if restore_uses_session {
        flags.restore = Some(flags.session.clone());
    }
    Ok(ParsedArgs {
        flags,
        clean,
        warnings,
    })
}

fn apply_bool(flags: &mut Flags, name: &str, value: bool) {
    match name {
        "--json" => flags.json = value,
        "--headed" => {
            flags.headed = value;
            flags.cli_headed = true;
        }
        "--webgpu" => {
            flags.webgpu = value;
            flags.cli_webgpu = true;
        }
        "--debug" => flags.debug = value,
        "--ignore-https-errors" => flags.ignore_https_errors = value,
        "--allow-file-access" => flags.allow_file_access = value,
        "--hide-scrollbars" => {
            flags.hide_scrollbars = value;
            flags.cli_hide_scrollbars = true;
        }
        "--auto-connect" => flags.auto_connect = value,
        "--annotate" => {
            flags.annotate = value;
            flags.cli_annotate = true;
        }
        "--content-boundaries" => flags.content_boundaries = value,
        "--confirm-interactive" => flags.confirm_interactive = value,
        "--no-auto-dialog" => flags.no_auto_dialog = value,
        "--pin-tab" => {
            flags.pin_tab = value;
            flags.cli_pin_tab = true;
        }
        "--no-pin-tab" => {
            flags.pin_tab = !value;
            flags.cli_pin_tab = true;
        }
        "--no-ca-cert" => flags.clear_ca_cert = value,
        "--use-system-ca" => {
            flags.use_system_ca = value;
            flags.use_system_ca_given = true;
        }
        "--no-webmcp" => {
            flags.no_webmcp = value;
            flags.cli_no_webmcp = true;
        }
        "--verbose" => flags.verbose = value,
        "--quiet" => flags.quiet = value,
        "--offline" => flags.offline = value,
        "--quick" => flags.quick = value,
        "--fix" => flags.fix = value,
        _ => {}
    }
}

fn apply_value(flags: &mut Flags, name: &str, value: String, warnings: &mut Vec<String>) {
    match name {
        "--session" => flags.session = value,
        "--namespace" => flags.namespace = Some(value),
        "--restore-save" => flags.restore_save = Some(value),
        "--restore-check-url" => flags.restore_check_url = Some(value),
        "--restore-check-text" => flags.restore_check_text = Some(value),
        "--restore-check-fn" => flags.restore_check_fn = Some(value),
        "--session-name" => flags.session_name = Some(value),
        "--headers" => flags.headers = Some(value),
        "--executable-path" => flags.executable_path = Some(value),
        "--cdp" => flags.cdp = Some(value),
        "--cdp-headers" => flags.cdp_headers = Some(value),
        "--extension" => flags.extensions.push(value),
        "--init-script" => flags.init_scripts.push(value),
        "--enable" => flags.enable.extend(split_list(&value)),
        "--profile" => flags.profile = Some(value),
        "--state" => flags.state = Some(value),
        "--proxy" => flags.proxy = Some(value),
        "--proxy-bypass" => flags.proxy_bypass = Some(value),
        "--args" => flags.args = Some(value),
        "--user-agent" => flags.user_agent = Some(value),
        "--provider" => flags.provider = Some(value),
        "--device" => flags.device = Some(value),
        "--color-scheme" => flags.color_scheme = Some(value),
        "--download-path" => flags.download_path = Some(value),
        "--max-output" => {
            if let Ok(n) = value.parse::<usize>() {
                flags.max_output = Some(n);
            }
        }
        "--allowed-domains" => flags.allowed_domains = Some(split_domains(&value)),
        "--action-policy" => flags.action_policy = Some(value),
        "--confirm-actions" => flags.confirm_actions = Some(value),
        "--engine" => flags.engine = Some(value),
        "--screenshot-dir" => flags.screenshot_dir = Some(value),
        "--screenshot-quality" => {
            if let Ok(n) = value.parse::<u32>() {
                if n <= 100 {
                    flags.screenshot_quality = Some(n);
                } else {
                    warnings.push(format!("--screenshot-quality must be 0-100, got {n}"));
                }
            }
        }
        "--screenshot-format" => {
            if value == "png" || value == "jpeg" {
                flags.screenshot_format = Some(value);
            } else {
                warnings.push(format!(
                    "--screenshot-format must be png or jpeg, got '{value}'"
                ));
            }
        }
        "--idle-timeout" => match parse_idle_timeout(&value) {
            Ok(ms) => flags.idle_timeout = Some(ms),
            Err(e) => warnings.push(format!("Invalid --idle-timeout: {e}")),
        },
        "--model" => flags.model = Some(value),
        "--ca-cert" => flags.ca_cert = Some(value),
        "--input-mode" => {
            if matches!(value.as_str(), "instant" | "smooth" | "human") {
                flags.input_mode = Some(value);
            } else {
                warnings.push(format!(
                    "--input-mode must be instant, smooth, or human, got '{value}'"
                ));
            }
        }
        // `--config` was consumed by config loading.
        _ => {}
    }
}
