//! Every environment variable name the CLI and the daemon read or set, in one place.
//!
//! Upstream's names (`AGENT_BROWSER_*`) first, then abx's own (`ABX_*`). Refer to these
//! constants instead of spelling a name: a typo is then a compile error, not a setting that
//! quietly does nothing.
//!
//! ```
//! assert_eq!(abx_wire::env::SESSION, "AGENT_BROWSER_SESSION");
//! ```

/// Action policy file (`--action-policy`).
pub const ACTION_POLICY: &str = "AGENT_BROWSER_ACTION_POLICY";
/// Comma-separated navigation allowlist (`--allowed-domains`).
pub const ALLOWED_DOMAINS: &str = "AGENT_BROWSER_ALLOWED_DOMAINS";
/// Let `file://` pages read local files (`--allow-file-access`).
pub const ALLOW_FILE_ACCESS: &str = "AGENT_BROWSER_ALLOW_FILE_ACCESS";
/// Numbered labels on screenshots (`--annotate`).
pub const ANNOTATE: &str = "AGENT_BROWSER_ANNOTATE";
/// Extra browser arguments, newline- or comma-separated (`--args`).
pub const ARGS: &str = "AGENT_BROWSER_ARGS";
/// Periodic autosave of `--restore` state in milliseconds (default 30 000; `0` only on close).
pub const AUTOSAVE_INTERVAL_MS: &str = "AGENT_BROWSER_AUTOSAVE_INTERVAL_MS";
/// Attach to a running Chrome (`--auto-connect`).
pub const AUTO_CONNECT: &str = "AGENT_BROWSER_AUTO_CONNECT";
/// A CA certificate to trust (`--ca-cert`).
pub const CA_CERT: &str = "AGENT_BROWSER_CA_CERT";
/// Attach over CDP to a port or URL (`--cdp`).
pub const CDP: &str = "AGENT_BROWSER_CDP";
/// JSON headers for CDP discovery and the WebSocket handshake (`--cdp-headers`).
pub const CDP_HEADERS: &str = "AGENT_BROWSER_CDP_HEADERS";
/// Ignore configured CA certificates (`--no-ca-cert`).
pub const CLEAR_CA_CERT: &str = "AGENT_BROWSER_CLEAR_CA_CERT";
/// ANSI colours in text output (off unless truthy; `NO_COLOR` wins).
pub const COLOR: &str = "AGENT_BROWSER_COLOR";
/// `dark`, `light` or `no-preference` (`--color-scheme`).
pub const COLOR_SCHEME: &str = "AGENT_BROWSER_COLOR_SCHEME";
/// Use only this config file (`--config`).
pub const CONFIG: &str = "AGENT_BROWSER_CONFIG";
/// Action categories that need `confirm` (`--confirm-actions`).
pub const CONFIRM_ACTIONS: &str = "AGENT_BROWSER_CONFIRM_ACTIONS";
/// Prompt on a TTY for confirmations (`--confirm-interactive`).
pub const CONFIRM_INTERACTIVE: &str = "AGENT_BROWSER_CONFIRM_INTERACTIVE";
/// Wrap page text in nonce markers (`--content-boundaries`).
pub const CONTENT_BOUNDARIES: &str = "AGENT_BROWSER_CONTENT_BOUNDARIES";
/// Browser origins a reverse-proxied dashboard may be opened from (abx: refused).
pub const DASHBOARD_ALLOWED_ORIGINS: &str = "AGENT_BROWSER_DASHBOARD_ALLOWED_ORIGINS";
/// Set in a spawned process: run as the session daemon, not the CLI.
pub const DAEMON: &str = "AGENT_BROWSER_DAEMON";
/// Key for encrypted state files and the credential vault.
pub const ENCRYPTION_KEY: &str = "AGENT_BROWSER_ENCRYPTION_KEY";
/// Daemon debug log in the socket directory (`--debug`).
pub const DEBUG: &str = "AGENT_BROWSER_DEBUG";
/// Default operation timeout in milliseconds.
pub const DEFAULT_TIMEOUT: &str = "AGENT_BROWSER_DEFAULT_TIMEOUT";
/// Download directory (`--download-path`).
pub const DOWNLOAD_PATH: &str = "AGENT_BROWSER_DOWNLOAD_PATH";
/// Built-in init scripts, e.g. `react-devtools` (`--enable`).
pub const ENABLE: &str = "AGENT_BROWSER_ENABLE";
/// Browser engine name (`--engine`; abx drives Chrome only).
pub const ENGINE: &str = "AGENT_BROWSER_ENGINE";
/// Browser binary (`--executable-path`).
pub const EXECUTABLE_PATH: &str = "AGENT_BROWSER_EXECUTABLE_PATH";
/// Unpacked extensions to load, comma-separated (`--extension`).
pub const EXTENSIONS: &str = "AGENT_BROWSER_EXTENSIONS";
/// Show the browser window (`--headed`).
pub const HEADED: &str = "AGENT_BROWSER_HEADED";
/// Hide scrollbars (`--hide-scrollbars`, default on).
pub const HIDE_SCROLLBARS: &str = "AGENT_BROWSER_HIDE_SCROLLBARS";
/// Daemon idle shutdown in milliseconds; `0` never (`--idle-timeout`).
pub const IDLE_TIMEOUT_MS: &str = "AGENT_BROWSER_IDLE_TIMEOUT_MS";
/// Ignore certificate errors (`--ignore-https-errors`).
pub const IGNORE_HTTPS_ERRORS: &str = "AGENT_BROWSER_IGNORE_HTTPS_ERRORS";
/// Page init scripts, comma-separated (`--init-script`).
pub const INIT_SCRIPTS: &str = "AGENT_BROWSER_INIT_SCRIPTS";
/// iOS device name (`--device`).
pub const IOS_DEVICE: &str = "AGENT_BROWSER_IOS_DEVICE";
/// One line of JSON on stdout (`--json`).
pub const JSON: &str = "AGENT_BROWSER_JSON";
/// Truncate page text to this many characters (`--max-output`).
pub const MAX_OUTPUT: &str = "AGENT_BROWSER_MAX_OUTPUT";
/// Namespace for sockets and state (`--namespace`).
pub const NAMESPACE: &str = "AGENT_BROWSER_NAMESPACE";
/// Do not auto-accept `alert`/`beforeunload` (`--no-auto-dialog`).
pub const NO_AUTO_DIALOG: &str = "AGENT_BROWSER_NO_AUTO_DIALOG";
/// Disable WebMCP features (`--no-webmcp`).
pub const NO_WEBMCP: &str = "AGENT_BROWSER_NO_WEBMCP";
/// Never start Xvfb for a headed browser (environment only).
pub const NO_XVFB: &str = "AGENT_BROWSER_NO_XVFB";
/// Bind the session strictly to its tab (`--pin-tab`).
pub const PIN_TAB: &str = "AGENT_BROWSER_PIN_TAB";
/// The plugin registry, JSON.
pub const PLUGINS: &str = "AGENT_BROWSER_PLUGINS";
/// Legacy name of [`ACTION_POLICY`].
pub const POLICY: &str = "AGENT_BROWSER_POLICY";
/// Chrome profile name or persistent user-data-dir (`--profile`).
pub const PROFILE: &str = "AGENT_BROWSER_PROFILE";
/// Browser provider (`-p`, `--provider`).
pub const PROVIDER: &str = "AGENT_BROWSER_PROVIDER";
/// Proxy URL, credentials allowed (`--proxy`).
pub const PROXY: &str = "AGENT_BROWSER_PROXY";
/// Proxy bypass list (`--proxy-bypass`).
pub const PROXY_BYPASS: &str = "AGENT_BROWSER_PROXY_BYPASS";
/// Proxy password split out of [`PROXY`] for a spawned daemon.
pub const PROXY_PASSWORD: &str = "AGENT_BROWSER_PROXY_PASSWORD";
/// Proxy user name split out of [`PROXY`] for a spawned daemon.
pub const PROXY_USERNAME: &str = "AGENT_BROWSER_PROXY_USERNAME";
/// Restore and autosave session state (`--restore`).
pub const RESTORE: &str = "AGENT_BROWSER_RESTORE";
/// Restore check: a function that must return true.
pub const RESTORE_CHECK_FN: &str = "AGENT_BROWSER_RESTORE_CHECK_FN";
/// Restore check: text that must be on the page.
pub const RESTORE_CHECK_TEXT: &str = "AGENT_BROWSER_RESTORE_CHECK_TEXT";
/// Restore check: the URL to open.
pub const RESTORE_CHECK_URL: &str = "AGENT_BROWSER_RESTORE_CHECK_URL";
/// `auto`, `always` or `never` (`--restore-save`).
pub const RESTORE_SAVE: &str = "AGENT_BROWSER_RESTORE_SAVE";
/// Default screenshot directory (`--screenshot-dir`).
pub const SCREENSHOT_DIR: &str = "AGENT_BROWSER_SCREENSHOT_DIR";
/// `png` or `jpeg` (`--screenshot-format`).
pub const SCREENSHOT_FORMAT: &str = "AGENT_BROWSER_SCREENSHOT_FORMAT";
/// JPEG quality 0–100 (`--screenshot-quality`).
pub const SCREENSHOT_QUALITY: &str = "AGENT_BROWSER_SCREENSHOT_QUALITY";
/// Session name (`--session`, default `default`).
pub const SESSION: &str = "AGENT_BROWSER_SESSION";
/// Legacy restore key (`--session-name`).
pub const SESSION_NAME: &str = "AGENT_BROWSER_SESSION_NAME";
/// Socket directory (before the namespace is applied).
pub const SOCKET_DIR: &str = "AGENT_BROWSER_SOCKET_DIR";
/// Storage state to load at launch (`--state`).
pub const STATE: &str = "AGENT_BROWSER_STATE";
/// Saved states older than this many days are deleted at daemon start and refused on load.
pub const STATE_EXPIRE_DAYS: &str = "AGENT_BROWSER_STATE_EXPIRE_DAYS";
/// Live-view frame height limit in pixels.
pub const STREAM_MAX_HEIGHT: &str = "AGENT_BROWSER_STREAM_MAX_HEIGHT";
/// Live-view frame width limit in pixels.
pub const STREAM_MAX_WIDTH: &str = "AGENT_BROWSER_STREAM_MAX_WIDTH";
/// Stream server port (0 or unset: any free port).
pub const STREAM_PORT: &str = "AGENT_BROWSER_STREAM_PORT";
/// Live-view JPEG quality 0–100 (default 80).
pub const STREAM_QUALITY: &str = "AGENT_BROWSER_STREAM_QUALITY";
/// Token every stream client must present (beyond upstream).
pub const STREAM_TOKEN: &str = "AGENT_BROWSER_STREAM_TOKEN";
/// User-Agent override (`--user-agent`).
pub const USER_AGENT: &str = "AGENT_BROWSER_USER_AGENT";
/// Trust the system CA store (`--use-system-ca`).
pub const USE_SYSTEM_CA: &str = "AGENT_BROWSER_USE_SYSTEM_CA";
/// WebGPU launch preset (`--webgpu`).
pub const WEBGPU: &str = "AGENT_BROWSER_WEBGPU";

/// abx: the daemon's socket directory, set by the CLI that spawns it (wins over [`SOCKET_DIR`]).
pub const ABX_DAEMON_SOCKET_DIR: &str = "ABX_DAEMON_SOCKET_DIR";
/// abx: set (to `1`) by the CLI that spawns the daemon with its stdout on a pipe: the daemon
/// writes [`DAEMON_READY_LINE`] there as soon as its socket accepts, then points stdout at
/// `/dev/null`. The CLI waits on that pipe instead of polling the socket.
pub const ABX_DAEMON_READY: &str = "ABX_DAEMON_READY";
/// What a daemon writes to its stdout when its socket accepts (see [`ABX_DAEMON_READY`]).
pub const DAEMON_READY_LINE: &str = "ready\n";
/// abx: `1` lets the daemon accept its fault-injection action (reliability tests only).
pub const ABX_FAULT_INJECTION: &str = "ABX_FAULT_INJECTION";
/// abx: sites no tab of the session may reach (comma-separated hosts; each also blocks its
/// subdomains), whatever the allowlist says. Read once, when the daemon starts, and kept for its
/// life: no command or launch changes it. A Host kit sets it in a stage's env (`blocked_sites`).
pub const ABX_BLOCKED_SITES: &str = "ABX_BLOCKED_SITES";
/// abx: `1` makes the daemon append every navigation its site policy refuses (blocklist or
/// allowlist) to `<socket_dir>/<session>.blocked` (JSON lines) for the Host that owns the
/// session. Off by default: a session outside a Host keeps upstream's socket-dir files.
pub const ABX_BLOCKED_LOG: &str = "ABX_BLOCKED_LOG";
/// abx: the `tracing` filter of the debug log (default `debug`).
pub const ABX_LOG: &str = "ABX_LOG";
