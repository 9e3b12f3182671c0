//! The MCP tool list: upstream's tools (names, arguments and the command words they run), and
//! one generic tool per registry command none of them covers, grouped into profiles.
//!
//! Each catalog entry ([`CATALOG`]) names the command words it runs and its arguments in a
//! short notation, `name:type[!][@place]`: type `s` string, `i` integer, `n` number, `b`
//! boolean, `o` object, `a` array of strings, `aa` array of string arrays, `e(x|y)` one of
//! these; `!` required; place absent for a positional word, `@--flag` for `--flag <value>` (or
//! a bare `--flag` for a boolean), `@G--flag` for a global flag before the command,
//! `@!--flag` for a flag given when the boolean is false, `@L--flag` for `--flag` per array
//! item, `@S--flag` for `--flag` with the value on stdin, `@J` for a JSON word, `@O` for `on`/`off`, `@C` for batch commands; a command word
//! `{name}` is that argument's value. [`Tool::schema`] gives the JSON Schema a client sees and
//! [`Tool::argv`] turns a client's arguments back into the words the CLI parses. Every tool also
//! takes the session-wide arguments of [`COMMON`] (session, extraArgs, timeoutMs, …). Every
//! other registry command is a generic tool `agent_browser_<word>` taking `args` (the words after
//! the command), listed only in `all`.

use serde_json::{Map, Value, json};

use crate::commands::registry::{self, Grammar};

/// Tool groups a server can enable (`--tools core,network`). `core` is the default.
pub const PROFILES: &[(&str, &str)] = &[
    (
        "core",
        "Default: open, snapshot, click/fill/type/press/select, scroll, waits, reads, eval, screenshot, close",
    ),
    (
        "tabs",
        "Back/forward/reload, tabs, windows, frames, dialogs",
    ),
    (
        "network",
        "Routes, requests, HAR, headers, credentials, offline",
    ),
    (
        "state",
        "Cookies, storage, auth, saved state, sessions, profiles, skills",
    ),
    (
        "debug",
        "Console, errors, trace, profiler, record, audits, clipboard, files, diff, batch, confirm/deny, stream, dashboard",
    ),
    (
        "react",
        "React tree/inspect/renders/suspense, vitals, pushstate, init scripts",
    ),
    (
        "mobile",
        "Viewport, device, geolocation, media, touch, swipe, mouse, keyboard",
    ),
    ("all", "Every tool"),
];

/// The tools of the default `core` profile: the everyday loop, kept small on purpose.
const CORE: &[&str] = &[
    "agent_browser_tools_profiles",
    "agent_browser_open",
    "agent_browser_snapshot",
    "agent_browser_click",
    "agent_browser_fill",
    "agent_browser_type",
    "agent_browser_press",
    "agent_browser_select",
    "agent_browser_check",
    "agent_browser_scroll",
    "agent_browser_wait_for_selector",
    "agent_browser_wait_for_text",
    "agent_browser_get_text",
    "agent_browser_get_url",
    "agent_browser_eval",
    "agent_browser_screenshot",
    "agent_browser_close",
];

/// One catalog entry.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// `agent_browser_…`.
    pub name: &'static str,
    /// Its profile besides `all` (`all`: none).
    pub profile: &'static str,
    /// The command words (empty: the profiles tool, answered by the server).
    pub words: &'static [&'static str],
    /// Its arguments, in the notation of the module docs.
    pub params: &'static str,
    /// It only reads.
    pub read_only: bool,
    /// It reaches pages on the web.
    pub open_world: bool,
}

const fn spec(
    name: &'static str,
    profile: &'static str,
    words: &'static [&'static str],
    params: &'static str,
    read_only: bool,
    open_world: bool,
) -> Spec {
    Spec {
        name,
        profile,
        words,
        params,
        read_only,
        open_world,
    }
}

/// Upstream's tools, in its list order.
pub const CATALOG: &[Spec] = &[
    spec("agent_browser_tools_profiles", "core", &[], "", false, true),
    spec(
        "agent_browser_open",
        "core",
        &["open"],
        "url:s headed:b@G--headed webgpu:b@G--webgpu webmcp:b@!--no-webmcp",
        false,
        true,
    ),
    spec(
        "agent_browser_webmcp_list",
        "all",
        &["webmcp", "list"],
        "tool:s frameId:s@--frame",
        true,
        true,
    ),
    spec(
        "agent_browser_webmcp_invoke",
        "all",
        &["webmcp", "invoke"],
        "tool:s! params:o@--params detach:b@--detach frameId:s@--frame waitTimeoutMs:i@--timeout",
        false,
        true,
    ),
    spec(
        "agent_browser_webmcp_result",
        "all",
        &["webmcp", "result"],
        "invocationId:s! waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_webmcp_cancel",
        "all",
        &["webmcp", "cancel"],
        "invocationId:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_read",
        "core",
        &["read"],
        "url:s filter:s@--filter llms:e(index|full)@--llms outline:b@--outline raw:b@--raw readTimeoutMs:i@--timeout requireMd:b@--require-md",
        true,
        true,
    ),
    spec(
        "agent_browser_snapshot",
        "core",
        &["snapshot"],
        "compact:b@-c delta:b@--delta depth:i@-d full:b@--full includeUrls:b@--urls interactive:b@-i selector:s@-s",
        true,
        true,
    ),
    spec(
        "agent_browser_click",
        "core",
        &["click"],
        "selector:s! human:b@--human newTab:b@--new-tab",
        false,
        true,
    ),
    spec(
        "agent_browser_fill",
        "core",
        &["fill"],
        "selector:s! text:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_type",
        "core",
        &["type"],
        "selector:s! text:s! clear:b@--clear delayMs:i@--delay",
        false,
        true,
    ),
    spec(
        "agent_browser_press",
        "core",
        &["press"],
        "key:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_hover",
        "all",
        &["hover"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_focus",
        "all",
        &["focus"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_check",
        "core",
        &["check"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_uncheck",
        "core",
        &["uncheck"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_select",
        "core",
        &["select"],
        "selector:s! values:a!",
        false,
        true,
    ),
    spec(
        "agent_browser_scroll",
        "core",
        &["scroll"],
        "direction:e(up|down|left|right) amount:i selector:s@--selector",
        false,
        true,
    ),
    spec(
        "agent_browser_scroll_into_view",
        "all",
        &["scrollintoview"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_wait_ms",
        "core",
        &["wait"],
        "ms:i!",
        true,
        true,
    ),
    spec(
        "agent_browser_wait_for_selector",
        "core",
        &["wait"],
        "selector:s! state:e(visible|hidden|attached|detached)@--state waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_wait_for_text",
        "core",
        &["wait", "--text"],
        "text:s! waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_wait_for_url",
        "all",
        &["wait", "--url"],
        "url:s! waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_wait_for_load",
        "core",
        &["wait", "--load"],
        "state:e(load|domcontentloaded|networkidle)! waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_wait_for_function",
        "all",
        &["wait", "--fn"],
        "expression:s! waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_screenshot",
        "core",
        &["screenshot"],
        "selector:s path:s annotate:b@--annotate format:e(png|jpeg)@G--screenshot-format fullPage:b@--full ifChanged:b@--if-changed quality:i@G--screenshot-quality screenshotDir:s@G--screenshot-dir threshold:n@--threshold",
        false,
        true,
    ),
    spec(
        "agent_browser_get_text",
        "core",
        &["get", "text"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_html",
        "all",
        &["get", "html"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_value",
        "all",
        &["get", "value"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_url",
        "core",
        &["get", "url"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_get_title",
        "core",
        &["get", "title"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_get_cdp_url",
        "all",
        &["get", "cdp-url"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_eval",
        "core",
        &["eval"],
        "script:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_close",
        "core",
        &["close"],
        "all:b@--all",
        false,
        true,
    ),
    spec("agent_browser_back", "tabs", &["back"], "", false, true),
    spec(
        "agent_browser_forward",
        "tabs",
        &["forward"],
        "",
        false,
        true,
    ),
    spec("agent_browser_reload", "tabs", &["reload"], "", false, true),
    spec(
        "agent_browser_dblclick",
        "all",
        &["dblclick"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_drag",
        "all",
        &["drag"],
        "source:s! target:s! human:b@--human",
        false,
        true,
    ),
    spec(
        "agent_browser_upload",
        "debug",
        &["upload"],
        "selector:s! files:a!",
        false,
        true,
    ),
    spec(
        "agent_browser_download",
        "debug",
        &["download"],
        "selector:s! path:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_keydown",
        "mobile",
        &["keydown"],
        "key:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_keyup",
        "mobile",
        &["keyup"],
        "key:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_keyboard_type",
        "mobile",
        &["keyboard", "type"],
        "text:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_keyboard_insert_text",
        "mobile",
        &["keyboard", "inserttext"],
        "text:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_wait_for_download",
        "debug",
        &["wait", "--download"],
        "path:s waitTimeoutMs:i@--timeout",
        true,
        true,
    ),
    spec(
        "agent_browser_pdf",
        "debug",
        &["pdf"],
        "path:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_get_attr",
        "all",
        &["get", "attr"],
        "selector:s! name:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_count",
        "all",
        &["get", "count"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_box",
        "all",
        &["get", "box"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_get_styles",
        "all",
        &["get", "styles"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_is_visible",
        "all",
        &["is", "visible"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_is_enabled",
        "all",
        &["is", "enabled"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_is_checked",
        "all",
        &["is", "checked"],
        "selector:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_find",
        "all",
        &["find"],
        "locator:e(role|text|label|placeholder|alt|title|testid|first|last|nth)! index:i value:s! action:s text:s name:s@--name exact:b@--exact",
        false,
        true,
    ),
    spec(
        "agent_browser_mouse_move",
        "mobile",
        &["mouse", "move"],
        "x:n! y:n! durationMs:i@--duration human:b@--human seed:i@--seed steps:i@--steps",
        false,
        true,
    ),
    spec(
        "agent_browser_mouse_down",
        "mobile",
        &["mouse", "down"],
        "button:e(left|right|middle)",
        false,
        true,
    ),
    spec(
        "agent_browser_mouse_up",
        "mobile",
        &["mouse", "up"],
        "button:e(left|right|middle)",
        false,
        true,
    ),
    spec(
        "agent_browser_mouse_wheel",
        "mobile",
        &["mouse", "wheel"],
        "dy:n! dx:n",
        false,
        true,
    ),
    spec(
        "agent_browser_set_viewport",
        "mobile",
        &["set", "viewport"],
        "width:i! height:i! scale:n",
        false,
        true,
    ),
    spec(
        "agent_browser_set_device",
        "mobile",
        &["set", "device"],
        "device:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_set_geo",
        "mobile",
        &["set", "geo"],
        "latitude:n! longitude:n!",
        false,
        true,
    ),
    spec(
        "agent_browser_set_offline",
        "network",
        &["set", "offline"],
        "enabled:b!@O",
        false,
        true,
    ),
    spec(
        "agent_browser_set_headers",
        "network",
        &["set", "headers"],
        "headers:o!@J",
        false,
        true,
    ),
    spec(
        "agent_browser_set_credentials",
        "network",
        &["set", "credentials"],
        "username:s! password:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_set_media",
        "mobile",
        &["set", "media"],
        "colorScheme:e(dark|light|no-preference) reducedMotion:e(reduce|no-preference)",
        false,
        true,
    ),
    spec(
        "agent_browser_network_route",
        "network",
        &["network", "route"],
        "url:s! abort:b@--abort allowOrigin:s@--allow-origin body:s@--body resourceType:s@--resource-type",
        false,
        true,
    ),
    spec(
        "agent_browser_network_unroute",
        "network",
        &["network", "unroute"],
        "url:s",
        false,
        true,
    ),
    spec(
        "agent_browser_network_requests",
        "network",
        &["network", "requests"],
        "clear:b@--clear filter:s@--filter method:s@--method status:s@--status type:s@--type",
        false,
        true,
    ),
    spec(
        "agent_browser_network_request",
        "network",
        &["network", "request"],
        "requestId:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_network_har_start",
        "network",
        &["network", "har", "start"],
        "content:e(all|text|none)@--content",
        false,
        true,
    ),
    spec(
        "agent_browser_network_har_stop",
        "network",
        &["network", "har", "stop"],
        "path:s",
        false,
        true,
    ),
    spec(
        "agent_browser_storage_get",
        "state",
        &["storage", "{storageType}"],
        "storageType:e(local|session)! key:s",
        true,
        true,
    ),
    spec(
        "agent_browser_storage_set",
        "state",
        &["storage", "{storageType}", "set"],
        "storageType:e(local|session)! key:s! value:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_storage_clear",
        "state",
        &["storage", "{storageType}", "clear"],
        "storageType:e(local|session)!",
        false,
        true,
    ),
    spec(
        "agent_browser_cookies_get",
        "state",
        &["cookies", "get"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_cookies_set",
        "state",
        &["cookies", "set"],
        "name:s! value:s! domain:s@--domain expires:i@--expires httpOnly:b@--http-only path:s@--path sameSite:e(Strict|Lax|None)@--same-site secure:b@--secure url:s@--url",
        false,
        true,
    ),
    spec(
        "agent_browser_cookies_set_curl",
        "state",
        &["cookies", "set", "--curl"],
        "file:s! domain:s@--domain url:s@--url",
        false,
        true,
    ),
    spec(
        "agent_browser_cookies_clear",
        "state",
        &["cookies", "clear"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_tab_new",
        "tabs",
        &["tab", "new"],
        "url:s label:s@--label",
        false,
        true,
    ),
    spec(
        "agent_browser_tab_list",
        "tabs",
        &["tab", "list"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_tab_switch",
        "tabs",
        &["tab"],
        "tab:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_tab_close",
        "tabs",
        &["tab", "close"],
        "tab:s",
        false,
        true,
    ),
    spec(
        "agent_browser_window_new",
        "tabs",
        &["window", "new"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_frame_switch",
        "tabs",
        &["frame"],
        "frame:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_frame_main",
        "tabs",
        &["frame", "main"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_dialog_status",
        "tabs",
        &["dialog", "status"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_dialog_accept",
        "tabs",
        &["dialog", "accept"],
        "text:s",
        false,
        true,
    ),
    spec(
        "agent_browser_dialog_dismiss",
        "tabs",
        &["dialog", "dismiss"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_trace_start",
        "debug",
        &["trace", "start"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_trace_stop",
        "debug",
        &["trace", "stop"],
        "path:s",
        false,
        true,
    ),
    spec(
        "agent_browser_profiler_start",
        "debug",
        &["profiler", "start"],
        "categories:s@--categories",
        false,
        true,
    ),
    spec(
        "agent_browser_profiler_stop",
        "debug",
        &["profiler", "stop"],
        "path:s",
        false,
        true,
    ),
    spec(
        "agent_browser_record_start",
        "debug",
        &["record", "start"],
        "path:s! url:s contactSheet:b@--contact-sheet contactSheetThreshold:n@--contact-sheet-threshold cursor:b@--cursor fps:i@--fps",
        false,
        true,
    ),
    spec(
        "agent_browser_record_stop",
        "debug",
        &["record", "stop"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_record_restart",
        "debug",
        &["record", "restart"],
        "path:s! url:s contactSheet:b@--contact-sheet contactSheetThreshold:n@--contact-sheet-threshold cursor:b@--cursor fps:i@--fps",
        false,
        true,
    ),
    spec(
        "agent_browser_console",
        "debug",
        &["console"],
        "clear:b@--clear",
        false,
        true,
    ),
    spec(
        "agent_browser_errors",
        "debug",
        &["errors"],
        "clear:b@--clear",
        false,
        true,
    ),
    spec(
        "agent_browser_highlight",
        "debug",
        &["highlight"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_inspect",
        "debug",
        &["inspect"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_clipboard_read",
        "debug",
        &["clipboard", "read"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_clipboard_write",
        "debug",
        &["clipboard", "write"],
        "text:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_clipboard_copy",
        "debug",
        &["clipboard", "copy"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_clipboard_paste",
        "debug",
        &["clipboard", "paste"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_auth_save",
        "state",
        &["auth", "save"],
        "name:s! url:s!@--url username:s!@--username password:s!@S--password-stdin usernameSelector:s@--username-selector passwordSelector:s@--password-selector submitSelector:s@--submit-selector",
        false,
        true,
    ),
    spec(
        "agent_browser_auth_login",
        "state",
        &["auth", "login"],
        "name:s! noNavigate:b@--no-navigate",
        false,
        true,
    ),
    spec(
        "agent_browser_auth_list",
        "state",
        &["auth", "list"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_auth_show",
        "state",
        &["auth", "show"],
        "name:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_auth_delete",
        "state",
        &["auth", "delete"],
        "name:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_state_save",
        "state",
        &["state", "save"],
        "path:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_state_load",
        "state",
        &["state", "load"],
        "path:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_state_list",
        "state",
        &["state", "list"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_state_clear",
        "state",
        &["state", "clear"],
        "name:s all:b@--all",
        false,
        true,
    ),
    spec(
        "agent_browser_state_show",
        "state",
        &["state", "show"],
        "path:s!",
        true,
        true,
    ),
    spec(
        "agent_browser_state_clean",
        "state",
        &["state", "clean"],
        "olderThanDays:i!@--older-than",
        false,
        true,
    ),
    spec(
        "agent_browser_state_rename",
        "state",
        &["state", "rename"],
        "oldName:s! newName:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_tap",
        "mobile",
        &["tap"],
        "selector:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_swipe",
        "mobile",
        &["swipe"],
        "direction:e(up|down|left|right)! amount:i",
        false,
        true,
    ),
    spec(
        "agent_browser_device",
        "mobile",
        &["device"],
        "action:e(list)",
        true,
        true,
    ),
    spec(
        "agent_browser_diff_snapshot",
        "debug",
        &["diff", "snapshot"],
        "baseline:s@--baseline compact:b@--compact depth:i@--depth selector:s@--selector",
        false,
        true,
    ),
    spec(
        "agent_browser_diff_screenshot",
        "debug",
        &["diff", "screenshot"],
        "baseline:s@--baseline fullPage:b@--full output:s@--output selector:s@--selector threshold:n@--threshold",
        false,
        true,
    ),
    spec(
        "agent_browser_diff_url",
        "debug",
        &["diff", "url"],
        "url1:s! url2:s! compact:b@--compact depth:i@--depth fullPage:b@--full screenshot:b@--screenshot selector:s@--selector waitUntil:s@--wait-until",
        false,
        true,
    ),
    spec(
        "agent_browser_batch",
        "debug",
        &["batch"],
        "commands:aa!@C bail:b@--bail omitCommand:b@--omit-command",
        false,
        true,
    ),
    spec(
        "agent_browser_react_tree",
        "react",
        &["react", "tree"],
        "json:b@G--json",
        true,
        true,
    ),
    spec(
        "agent_browser_react_inspect",
        "react",
        &["react", "inspect"],
        "id:i! json:b@G--json",
        true,
        true,
    ),
    spec(
        "agent_browser_react_renders_start",
        "react",
        &["react", "renders", "start"],
        "json:b@G--json",
        false,
        true,
    ),
    spec(
        "agent_browser_react_renders_stop",
        "react",
        &["react", "renders", "stop"],
        "json:b@G--json",
        false,
        true,
    ),
    spec(
        "agent_browser_react_suspense",
        "react",
        &["react", "suspense"],
        "json:b@G--json onlyDynamic:b@--only-dynamic",
        true,
        true,
    ),
    spec(
        "agent_browser_vitals",
        "react",
        &["vitals"],
        "url:s json:b@G--json",
        true,
        true,
    ),
    spec(
        "agent_browser_a11y",
        "debug",
        &["a11y"],
        "url:s json:b@G--json selector:s@--selector tags:s@--tags",
        false,
        true,
    ),
    spec(
        "agent_browser_pushstate",
        "react",
        &["pushstate"],
        "url:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_remove_init_script",
        "react",
        &["removeinitscript"],
        "id:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_confirm",
        "debug",
        &["confirm"],
        "id:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_deny",
        "debug",
        &["deny"],
        "id:s!",
        false,
        true,
    ),
    spec(
        "agent_browser_connect",
        "debug",
        &["connect"],
        "target:s! pinTab:b@G--pin-tab",
        false,
        true,
    ),
    spec(
        "agent_browser_stream_enable",
        "debug",
        &["stream", "enable"],
        "port:i@--port",
        false,
        true,
    ),
    spec(
        "agent_browser_stream_disable",
        "debug",
        &["stream", "disable"],
        "",
        false,
        true,
    ),
    spec(
        "agent_browser_stream_status",
        "debug",
        &["stream", "status"],
        "",
        true,
        true,
    ),
    spec(
        "agent_browser_session",
        "state",
        &["session"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_session_list",
        "state",
        &["session", "list"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_session_id",
        "state",
        &["session", "id"],
        "prefix:s@--prefix scope:e(worktree|cwd|git-root)@--scope",
        true,
        false,
    ),
    spec(
        "agent_browser_session_info",
        "state",
        &["session", "info"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_profiles",
        "state",
        &["profiles"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_skills_list",
        "state",
        &["skills", "list"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_skills_get",
        "state",
        &["skills", "get"],
        "names:a all:b@--all full:b@--full refs:a@L--ref",
        true,
        false,
    ),
    spec(
        "agent_browser_skills_path",
        "state",
        &["skills", "path"],
        "name:s",
        true,
        false,
    ),
    spec(
        "agent_browser_plugin_add",
        "debug",
        &["plugin", "add"],
        "reference:s! capabilities:a@L--capability name:s@--name noManifest:b@--no-manifest project:b@--project",
        false,
        true,
    ),
    spec(
        "agent_browser_plugin_list",
        "debug",
        &["plugin", "list"],
        "",
        true,
        false,
    ),
    spec(
        "agent_browser_plugin_show",
        "debug",
        &["plugin", "show"],
        "name:s!",
        true,
        false,
    ),
    spec(
        "agent_browser_plugin_run",
        "debug",
        &["plugin", "run"],
        "name:s! requestType:s! payload:o@J",
        false,
        true,
    ),
    spec(
        "agent_browser_doctor",
        "debug",
        &["doctor"],
        "debug:b@G--debug fix:b@--fix headed:b@G--headed offline:b@--offline quick:b@--quick webgpu:b@G--webgpu",
        false,
        false,
    ),
    spec(
        "agent_browser_dashboard_start",
        "debug",
        &["dashboard", "start"],
        "port:i@--port allowedOrigins:s@--allowed-origins",
        false,
        false,
    ),
    spec(
        "agent_browser_dashboard_stop",
        "debug",
        &["dashboard", "stop"],
        "",
        false,
        false,
    ),
    spec(
        "agent_browser_install",
        "debug",
        &["install"],
        "withDeps:b@--with-deps",
        false,
        false,
    ),
    spec(
        "agent_browser_upgrade",
        "debug",
        &["upgrade"],
        "",
        false,
        false,
    ),
    spec(
        "agent_browser_chat",
        "debug",
        &["chat"],
        "message:s! model:s@G--model quiet:b@G--quiet verbose:b@G--verbose",
        false,
        true,
    ),
];

/// Arguments every tool takes: they become global flags of the command (or limits of the call).
pub const COMMON: &[(&str, &str)] = &[
    ("session", "s"),
    ("extraArgs", "a"),
    ("timeoutMs", "i"),
    ("allowedDomains", "a"),
    ("caCert", "s"),
    ("clearCaCert", "b"),
    ("useSystemCa", "b"),
    ("idleTimeout", "s"),
    ("namespace", "s"),
    ("restore", "sb"),
    ("restoreSave", "e(auto|always|never)"),
    ("restoreCheckFn", "s"),
    ("restoreCheckText", "s"),
    ("restoreCheckUrl", "s"),
];

fn common_doc(name: &str) -> &'static str {
    match name {
        "session" => "Browser session to use (letters, digits, - and _)",
        "extraArgs" => {
            "More command-line words for this command; flags that widen network, file or host access are refused"
        }
        "timeoutMs" => "How long this call may take, in ms (default 120000)",
        "allowedDomains" => "Domain patterns the browser may reach",
        "caCert" => "Extra CA certificate (PEM) to trust",
        "clearCaCert" => "Drop extra CA trust kept by the running session",
        "useSystemCa" => "Use the system's CA store for the CLI's own HTTPS requests",
        "idleTimeout" => {
            "Idle time before the session's daemon exits (30s, 5m, 1h or ms; 0: never)"
        }
        "namespace" => "Namespace of the session's sockets and saved state",
        "restore" => {
            "Restore and auto-save browser state (true: under the session's name; a string: that key)"
        }
        "restoreSave" => "When restored state is saved again",
        "restoreCheckFn" => "JavaScript that must be truthy after a restore",
        "restoreCheckText" => "Text the page must show after a restore",
        "restoreCheckUrl" => "URL pattern the page must match after a restore",
        _ => "",
    }
}

/// A parameter's JSON type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A string.
    Str,
    /// An integer.
    Int,
    /// A number.
    Num,
    /// A boolean.
    Bool,
    /// A JSON object.
    Obj,
    /// An array of strings.
    List,
    /// An array of non-empty string arrays (batch commands).
    Lists,
    /// A boolean or a string.
    StrOrBool,
    /// One of these strings.
    Enum(Vec<&'static str>),
}

/// Where a parameter goes on the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A positional word (in order).
    Word,
    /// `<flag> <value>`, or `<flag>` for a true boolean.
    Flag(&'static str),
    /// A global flag before the command (`--headed false` for an explicit false).
    Global(&'static str),
    /// `<flag>` when the boolean is false.
    IfFalse(&'static str),
    /// `<flag> <item>` per array item.
    Each(&'static str),
    /// The value as one JSON word.
    Json,
    /// `on` / `off`.
    OnOff,
    /// `<flag>`, and the value on the command's stdin (a password kept out of process listings).
    Stdin(&'static str),
    /// Batch commands: one quoted command line per item.
    Commands,
    /// Used as a command word (`{name}` in the words).
    InWords,
}

/// One tool parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its JSON name.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Must be given.
    pub required: bool,
    /// Where it goes.
    pub place: Place,
}

fn parse_kind(code: &'static str) -> Kind {
    match code {
        "s" => Kind::Str,
        "i" => Kind::Int,
        "n" => Kind::Num,
        "b" => Kind::Bool,
        "o" => Kind::Obj,
        "a" => Kind::List,
        "aa" => Kind::Lists,
        "sb" => Kind::StrOrBool,
        other => Kind::Enum(
            other
                .strip_prefix("e(")
                .and_then(|r| r.strip_suffix(')'))
                .unwrap_or("")
                .split('|')
                .collect(),
        ),
    }
}

/// The parameters of a catalog entry.
pub fn params(spec: &Spec) -> Vec<Param> {
    spec.params
        .split_whitespace()
        .filter_map(|item| {
            let (name, rest) = item.split_once(':')?;
            let (code, place) = match rest.split_once('@') {
                Some((code, place)) => (code, Some(place)),
                None => (rest, None),
            };
            let (code, required) = match code.strip_suffix('!') {
                Some(code) => (code, true),
                None => (code, false),
            };
            let place = if spec
                .words
                .iter()
                .any(|w| w.strip_prefix('{').and_then(|w| w.strip_suffix('}')) == Some(name))
            {
                Place::InWords
            } else {
                match place {
                    None => Place::Word,
                    Some("J") => Place::Json,
                    Some("O") => Place::OnOff,
                    Some("C") => Place::Commands,
                    Some(p) if p.starts_with('S') => Place::Stdin(&p[1..]),
                    Some(p) if p.starts_with("G") => Place::Global(&p[1..]),
                    Some(p) if p.starts_with('!') => Place::IfFalse(&p[1..]),
                    Some(p) if p.starts_with('L') => Place::Each(&p[1..]),
                    Some(p) => Place::Flag(p),
                }
            };
            Some(Param {
                name,
                kind: parse_kind(code),
                required,
                place,
            })
        })
        .collect()
}

/// The name of the profile-listing tool (answered by the server itself).
pub const PROFILES_TOOL: &str = "agent_browser_tools_profiles";

/// One tool as the server lists and calls it.
#[derive(Debug, Clone)]
pub enum Tool {
    /// A catalog tool.
    Spec(&'static Spec),
    /// A registry command with `args`.
    Generic {
        /// The tool name.
        name: String,
        /// The command word.
        word: &'static str,
        /// The command's help line and usage.
        about: String,
    },
}

/// Why a tool call's arguments were refused (a JSON-RPC invalid-params error).
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidArguments(pub String);

/// What a call runs: global flags, the command words, and its time limit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Call {
    /// Global flags before the command.
    pub global: Vec<String>,
    /// The command words (empty: the profiles tool).
    pub words: Vec<String>,
    /// `timeoutMs`.
    pub timeout_ms: Option<u64>,
    /// What the command reads on stdin (none: it reads nothing).
    pub stdin: Option<String>,
}

/// Global flags a client may not set through `extraArgs` (they widen what the server allows).
const HOST_FLAGS: &[&str] = &[
    "--config",
    "--executable-path",
    "--args",
    "--allowed-domains",
    "--allow-file-access",
    "--action-policy",
    "--confirm-actions",
    "--extension",
    "--init-script",
    "--profile",
    "--state",
    "--proxy",
    "--proxy-bypass",
    "--cdp",
    "--cdp-headers",
    "--auto-connect",
    "--ca-cert",
    "--no-ca-cert",
    "--use-system-ca",
    "--download-path",
    "--screenshot-dir",
    "--namespace",
    "--session",
    "--provider",
    "--ignore-https-errors",
    "--no-sandbox",
];

impl Tool {
    /// Its name.
    pub fn name(&self) -> &str {
        match self {
            Tool::Spec(s) => s.name,
            Tool::Generic { name, .. } => name,
        }
    }

    /// Listed when these profiles are enabled.
    pub fn enabled(&self, profiles: &[String]) -> bool {
        profiles.iter().any(|p| match (p.as_str(), self) {
            ("all", _) => true,
            ("core", Tool::Spec(s)) => CORE.contains(&s.name),
            (p, Tool::Spec(s)) => s.profile == p,
            _ => false,
        })
    }

    /// A title made of its name's words.
    fn title(&self) -> String {
        let name = self
            .name()
            .trim_start_matches("agent_browser_")
            .replace('_', " ");
        let mut chars = name.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => name,
        }
    }

    fn description(&self) -> String {
        match self {
            Tool::Spec(s) if s.words.is_empty() => {
                "List the tool profiles this server can enable with --tools".to_string()
            }
            Tool::Spec(s) => {
                let help = registry::command(s.words[0]).and_then(|c| c.help);
                match help {
                    Some(help) => format!(
                        "{} ({}: {})",
                        help.about,
                        s.words.join(" "),
                        help.usage.first().copied().unwrap_or("")
                    ),
                    None => format!("Runs `{}`", s.words.join(" ")),
                }
            }
            Tool::Generic { about, .. } => about.clone(),
        }
    }

    /// The `tools/list` entry; `full` adds the session-wide arguments to the schema.
    pub fn listing(&self, full: bool) -> Value {
        let mut entry = json!({
            "name": self.name(),
            "title": self.title(),
            "description": self.description(),
            "inputSchema": self.schema(full),
        });
        if let Tool::Spec(s) = self {
            entry["annotations"] =
                json!({"readOnlyHint": s.read_only, "openWorldHint": s.open_world});
        }
        entry
    }

    fn params(&self) -> Vec<Param> {
        match self {
            Tool::Spec(s) => params(s),
            Tool::Generic { .. } => vec![Param {
                name: "args",
                kind: Kind::List,
                required: false,
                place: Place::Word,
            }],
        }
    }

    /// The JSON Schema of its arguments.
    pub fn schema(&self, full: bool) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for p in self.params() {
            properties.insert(p.name.to_string(), kind_schema(&p.kind));
            if p.required {
                required.push(Value::from(p.name));
            }
        }
        for (name, code) in COMMON {
            if full || *name == "session" {
                let mut prop = kind_schema(&parse_kind(code));
                prop["description"] = Value::from(common_doc(name));
                if *name == "timeoutMs" {
                    prop["minimum"] = Value::from(1);
                }
                properties.insert(name.to_string(), prop);
            }
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema["additionalProperties"] = Value::Bool(false);
        schema
    }

    /// What a call with `arguments` runs, or why the arguments do not fit the schema.
    pub fn argv(&self, arguments: &Value) -> Result<Call, InvalidArguments> {
        let empty = Map::new();
        let args = match arguments {
            Value::Object(map) => map,
            Value::Null => &empty,
            _ => {
                return Err(InvalidArguments(
                    "Tool arguments must be a JSON object".to_string(),
                ));
            }
        };
        let params = self.params();
        let mut known: Vec<&str> = params.iter().map(|p| p.name).collect();
        known.extend(COMMON.iter().map(|(n, _)| *n));
        reject_unknown(self.name(), args, &known)?;
        let mut call = common(args)?;
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut in_words = Map::new();
        for p in &params {
            let Some(value) = args.get(p.name).filter(|v| !v.is_null()) else {
                if p.required {
                    return Err(InvalidArguments(format!(
                        "{} must be {}",
                        p.name,
                        expected(&p.kind)
                    )));
                }
                continue;
            };
            let bad = || InvalidArguments(format!("{} must be {}", p.name, expected(&p.kind)));
            let text = value_words(&p.kind, value).ok_or_else(bad)?;
            match &p.place {
                Place::Word => positional.extend(text),
                Place::InWords => {
                    in_words.insert(p.name.to_string(), Value::from(text.join(" ")));
                }
                Place::Flag(flag) => {
                    if p.kind == Kind::Bool {
                        if value.as_bool() == Some(true) {
                            flags.push(flag.to_string());
                        }
                    } else {
                        flags.push(flag.to_string());
                        flags.extend(text);
                    }
                }
                Place::Global(flag) => {
                    if p.kind == Kind::Bool {
                        call.global.push(flag.to_string());
                        if value.as_bool() == Some(false) {
                            call.global.push("false".to_string());
                        }
                    } else {
                        call.global.push(flag.to_string());
                        call.global.extend(text);
                    }
                }
                Place::IfFalse(flag) => {
                    if value.as_bool() == Some(false) {
                        call.global.push(flag.to_string());
                    }
                }
                Place::Each(flag) => {
                    for item in text {
                        flags.push(flag.to_string());
                        flags.push(item);
                    }
                }
                Place::Json => positional.push(value.to_string()),
                Place::OnOff => positional.push(
                    if value.as_bool() == Some(true) {
                        "on"
                    } else {
                        "off"
                    }
                    .to_string(),
                ),
                Place::Stdin(flag) => {
                    flags.push(flag.to_string());
                    call.stdin = Some(text.join(" "));
                }
                Place::Commands => {
                    for command in value.as_array().into_iter().flatten() {
                        let words = strings(command).filter(|w| !w.is_empty()).ok_or_else(bad)?;
                        positional
                            .push(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "));
                    }
                }
            }
        }
        let words: Vec<String> = match self {
            Tool::Spec(s) => s
                .words
                .iter()
                .map(
                    |w| match w.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                        Some(name) => in_words
                            .get(name)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        None => w.to_string(),
                    },
                )
                .collect(),
            Tool::Generic { word, .. } => vec![word.to_string()],
        };
        if words.is_empty() {
            return Ok(call);
        }
        match self.name() {
            "agent_browser_find" => positional = find_words(args),
            // The CLI's word for reduced motion is `reduced-motion`.
            "agent_browser_set_media" => {
                for word in &mut positional {
                    if word == "reduce" {
                        *word = "reduced-motion".to_string();
                    }
                }
            }
            _ => {}
        }
        call.words = words;
        call.words.extend(positional);
        call.words.extend(flags);
        if let Some(extra) = args.get("extraArgs") {
            call.words.extend(strings(extra).unwrap_or_default());
        }
        Ok(call)
    }
}

/// `find`'s words after the command, as upstream builds them: the index only for `nth` (0 when
/// absent), and `click` as the action when `text`, `name` or `exact` is given without one (the
/// grammar reads the word after the value as the action). The arguments are already checked.
fn find_words(args: &Map<String, Value>) -> Vec<String> {
    let text = |name: &str| args.get(name).and_then(Value::as_str).map(str::to_string);
    let locator = text("locator").unwrap_or_default();
    let mut words = vec![locator.clone()];
    if locator == "nth" {
        let index = args.get("index").and_then(Value::as_i64).unwrap_or(0);
        words.push(index.to_string());
    }
    words.extend(text("value"));
    let wants_action = ["text", "name"].iter().any(|k| text(k).is_some())
        || args.get("exact").and_then(Value::as_bool) == Some(true);
    match text("action") {
        Some(action) => words.push(action),
        None if wants_action => words.push("click".to_string()),
        None => {}
    }
    words.extend(text("text"));
    words
}

/// The session-wide arguments as global flags (and the call's time limit).
fn common(args: &Map<String, Value>) -> Result<Call, InvalidArguments> {
    let mut call = Call::default();
    let string = |name: &str| -> Result<Option<String>, InvalidArguments> {
        match args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(InvalidArguments(format!("{name} must be a string"))),
        }
    };
    let boolean = |name: &str| -> Result<bool, InvalidArguments> {
        match args.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(InvalidArguments(format!("{name} must be a boolean"))),
        }
    };
    if let Some(session) = string("session")? {
        let valid = !session.is_empty()
            && session
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(InvalidArguments(format!(
                "Invalid session name '{session}'. Only alphanumeric characters, hyphens, and underscores are allowed."
            )));
        }
        call.global.extend(["--session".to_string(), session]);
    }
    if let Some(extra) = args.get("extraArgs").filter(|v| !v.is_null()) {
        let words = strings(extra)
            .ok_or_else(|| InvalidArguments("extraArgs must be an array of strings".to_string()))?;
        for word in &words {
            let flag = word.split('=').next().unwrap_or(word);
            if HOST_FLAGS.contains(&flag) {
                return Err(InvalidArguments(format!(
                    "Tool arguments may not set {flag}; configure it in the MCP server's environment or config"
                )));
            }
        }
    }
    match args.get("timeoutMs") {
        None | Some(Value::Null) => {}
        Some(value) => {
            call.timeout_ms = Some(value.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                InvalidArguments("timeoutMs must be a positive integer".to_string())
            })?)
        }
    }
    if let Some(domains) = args.get("allowedDomains").filter(|v| !v.is_null()) {
        let domains = strings(domains).ok_or_else(|| {
            InvalidArguments("allowedDomains must be an array of strings".to_string())
        })?;
        if std::env::var_os(abx_wire::env::ALLOWED_DOMAINS).is_some() {
            return Err(InvalidArguments(
                "allowedDomains cannot be set: the MCP server already sets allowed domains"
                    .to_string(),
            ));
        }
        call.global
            .extend(["--allowed-domains".to_string(), domains.join(",")]);
    }
    for (name, flag) in [
        ("caCert", "--ca-cert"),
        ("idleTimeout", "--idle-timeout"),
        ("namespace", "--namespace"),
        ("restoreSave", "--restore-save"),
        ("restoreCheckFn", "--restore-check-fn"),
        ("restoreCheckText", "--restore-check-text"),
        ("restoreCheckUrl", "--restore-check-url"),
    ] {
        if let Some(value) = string(name)? {
            call.global.extend([flag.to_string(), value]);
        }
    }
    if boolean("clearCaCert")? {
        call.global.push("--no-ca-cert".to_string());
    }
    if boolean("useSystemCa")? {
        call.global.push("--use-system-ca".to_string());
    }
    match args.get("restore") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => call.global.push("--restore".to_string()),
        Some(Value::String(key)) => call.global.push(format!("--restore={key}")),
        Some(_) => {
            return Err(InvalidArguments(
                "restore must be a boolean or a string".to_string(),
            ));
        }
    }
    Ok(call)
}

/// A word of a batch command line, quoted when it has to be.
fn quote(word: &str) -> String {
    if !word.is_empty() && !word.contains(|c: char| c.is_whitespace() || "\"'\\".contains(c)) {
        return word.to_string();
    }
    format!("\"{}\"", word.replace('\\', "\\\\").replace('"', "\\\""))
}

fn kind_schema(kind: &Kind) -> Value {
    match kind {
        Kind::Str => json!({"type": "string"}),
        Kind::Int => json!({"type": "integer"}),
        Kind::Num => json!({"type": "number"}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Obj => json!({"type": "object"}),
        Kind::List => json!({"type": "array", "items": {"type": "string"}}),
        Kind::Lists => {
            json!({"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 1, "items": {"type": "string"}}})
        }
        Kind::StrOrBool => json!({"oneOf": [{"type": "boolean"}, {"type": "string"}]}),
        Kind::Enum(values) => json!({"type": "string", "enum": values}),
    }
}

fn expected(kind: &Kind) -> String {
    match kind {
        Kind::Str => "a string".into(),
        Kind::Int => "an integer".into(),
        Kind::Num => "a number".into(),
        Kind::Bool => "a boolean".into(),
        Kind::Obj => "an object".into(),
        Kind::List => "an array of strings".into(),
        Kind::Lists => "an array of command arrays".into(),
        Kind::StrOrBool => "a boolean or a string".into(),
        Kind::Enum(values) => format!("one of {}", values.join(", ")),
    }
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn value_words(kind: &Kind, value: &Value) -> Option<Vec<String>> {
    match kind {
        Kind::Str => value.as_str().map(|s| vec![s.to_string()]),
        Kind::Int => value.as_i64().map(|n| vec![n.to_string()]),
        Kind::Num => value.as_f64().map(|_| vec![value.to_string()]),
        Kind::Bool => value.as_bool().map(|_| Vec::new()),
        Kind::Obj => value.is_object().then(|| vec![value.to_string()]),
        Kind::List => strings(value).filter(|v| !v.is_empty()),
        Kind::Lists => value
            .as_array()
            .filter(|a| !a.is_empty())
            .map(|_| Vec::new()),
        Kind::StrOrBool => match value {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Bool(_) => Some(Vec::new()),
            _ => None,
        },
        Kind::Enum(values) => value
            .as_str()
            .filter(|s| values.contains(s))
            .map(|s| vec![s.to_string()]),
    }
}

fn reject_unknown(
    tool: &str,
    args: &Map<String, Value>,
    known: &[&str],
) -> Result<(), InvalidArguments> {
    let unknown: Vec<&str> = args
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let mut own: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| !COMMON.iter().any(|(c, _)| c == k))
        .collect();
    own.sort_unstable();
    let accepted = if own.is_empty() {
        "none".to_string()
    } else {
        own.join(", ")
    };
    Err(InvalidArguments(format!(
        "Unknown argument(s) for {tool}: {}. Tool arguments: {accepted}.",
        unknown.join(", ")
    )))
}

/// Every tool: the catalog, then one generic tool per registry command that has help and that
/// no catalog tool runs (`mcp` itself excluded).
pub fn all() -> Vec<Tool> {
    let mut tools: Vec<Tool> = CATALOG.iter().map(Tool::Spec).collect();
    for command in registry::TABLE {
        let (Some(help), Some(word)) = (command.help, command.names.first()) else {
            continue;
        };
        if matches!(command.grammar, Grammar::Unsupported | Grammar::Internal)
            || *word == "mcp"
            || CATALOG.iter().any(|s| s.words.first() == Some(word))
        {
            continue;
        }
        let name = format!("agent_browser_{}", word.replace('-', "_"));
        if tools.iter().any(|t| t.name() == name) {
            continue;
        }
        let usage = help.usage.join("; ");
        tools.push(Tool::Generic {
            name,
            word,
            about: format!("{} (usage: {usage})", help.about),
        });
    }
    tools
}

/// The tool named `name`, enabled or not.
pub fn find(name: &str) -> Option<Tool> {
    all().into_iter().find(|t| t.name() == name)
}

/// Checks a `--tools` list: every name must be a profile.
pub fn parse_profiles(list: &str) -> Result<Vec<String>, String> {
    let mut profiles = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !PROFILES.iter().any(|(p, _)| *p == name) {
            let known: Vec<&str> = PROFILES.iter().map(|(p, _)| *p).collect();
            return Err(format!(
                "Unknown MCP tools profile: {name}. Profiles: {}",
                known.join(", ")
            ));
        }
        profiles.push(name.to_string());
    }
    if profiles.is_empty() {
        return Err("--tools needs at least one profile".to_string());
    }
    Ok(profiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(tool: &str, args: Value) -> Vec<String> {
        find(tool).expect(tool).argv(&args).expect("valid").words
    }

    #[test]
    fn upstream_arguments_become_command_words() {
        assert_eq!(
            words(
                "agent_browser_click",
                json!({"selector": "#go", "newTab": true})
            ),
            ["click", "#go", "--new-tab"]
        );
        assert_eq!(
            words("agent_browser_wait_for_text", json!({"text": "Done"})),
            ["wait", "--text", "Done"]
        );
        assert_eq!(
            words(
                "agent_browser_storage_set",
                json!({"storageType": "local", "key": "k", "value": "v"})
            ),
            ["storage", "local", "set", "k", "v"]
        );
        assert_eq!(
            words("agent_browser_set_offline", json!({"enabled": true})),
            ["set", "offline", "on"]
        );
        assert_eq!(
            words(
                "agent_browser_batch",
                json!({"commands": [["open", "a b"], ["snapshot", "-i"]], "bail": true})
            ),
            ["batch", "open \"a b\"", "snapshot -i", "--bail"]
        );
        let call = find("agent_browser_stream_status")
            .expect("tool")
            .argv(&json!({"session": "race", "timeoutMs": 5000}))
            .expect("valid");
        assert_eq!(call.global, ["--session", "race"]);
        assert_eq!(call.words, ["stream", "status"]);
        assert_eq!(call.timeout_ms, Some(5000));
        let call = find("agent_browser_open")
            .expect("tool")
            .argv(&json!({"url": "about:blank", "headed": false, "webmcp": false}))
            .expect("valid");
        assert_eq!(call.global, ["--headed", "false", "--no-webmcp"]);
    }

    #[test]
    fn tools_whose_grammar_is_unusual_get_upstreams_words() {
        // Paths that the CLI reads as a word, not a flag.
        assert_eq!(
            words("agent_browser_trace_stop", json!({"path": "/t/x.json"})),
            ["trace", "stop", "/t/x.json"]
        );
        assert_eq!(
            words("agent_browser_profiler_stop", json!({"path": "/t/p.json"})),
            ["profiler", "stop", "/t/p.json"]
        );
        assert_eq!(
            words(
                "agent_browser_webmcp_invoke",
                json!({"tool": "add", "params": {"a": 1}})
            ),
            ["webmcp", "invoke", "add", "--params", r#"{"a":1}"#]
        );
        // find: the index only for nth; `click` implied by text, name or exact.
        assert_eq!(
            words(
                "agent_browser_find",
                json!({"locator": "first", "value": "li", "index": 3, "action": "text"})
            ),
            ["find", "first", "li", "text"]
        );
        assert_eq!(
            words(
                "agent_browser_find",
                json!({"locator": "nth", "value": "li", "action": "text"})
            ),
            ["find", "nth", "0", "li", "text"]
        );
        assert_eq!(
            words(
                "agent_browser_find",
                json!({"locator": "role", "value": "button", "name": "Go", "exact": true})
            ),
            ["find", "role", "button", "click", "--name", "Go", "--exact"]
        );
        assert_eq!(
            words(
                "agent_browser_find",
                json!({"locator": "label", "value": "Email", "action": "fill", "text": "a@b"})
            ),
            ["find", "label", "Email", "fill", "a@b"]
        );
        assert_eq!(
            words(
                "agent_browser_set_media",
                json!({"colorScheme": "dark", "reducedMotion": "reduce"})
            ),
            ["set", "media", "dark", "reduced-motion"]
        );
        // The password goes on stdin, never on the command line.
        let call = find("agent_browser_auth_save")
            .expect("tool")
            .argv(&json!({"name": "s", "url": "http://x/", "username": "u", "password": "hunter2"}))
            .expect("valid");
        assert!(
            !call.words.iter().any(|w| w.contains("hunter2")),
            "{:?}",
            call.words
        );
        assert!(call.words.iter().any(|w| w == "--password-stdin"));
        assert_eq!(call.stdin.as_deref(), Some("hunter2"));
    }

    #[test]
    fn bad_arguments_are_refused_with_the_accepted_names() {
        let click = find("agent_browser_click").expect("click");
        let err = click
            .argv(&json!({"selector": "#x", "bogus": 1}))
            .expect_err("unknown");
        assert_eq!(
            err.0,
            "Unknown argument(s) for agent_browser_click: bogus. Tool arguments: human, newTab, selector."
        );
        assert_eq!(
            click.argv(&json!({})).expect_err("missing").0,
            "selector must be a string"
        );
        assert!(
            click
                .argv(&json!({"selector": "#x", "session": "a b"}))
                .is_err()
        );
        assert!(
            click
                .argv(&json!({"selector": "#x", "extraArgs": ["--executable-path", "/x"]}))
                .is_err()
        );
        let scroll = find("agent_browser_scroll").expect("scroll");
        assert!(scroll.argv(&json!({"direction": "sideways"})).is_err());
    }

    #[test]
    fn every_catalog_tool_runs_a_registry_command() {
        assert_eq!(CATALOG.len(), 156);
        for s in CATALOG {
            if let Some(word) = s.words.first() {
                assert!(
                    registry::command(word).is_some(),
                    "{}: no command {word}",
                    s.name
                );
            }
            assert!(PROFILES.iter().any(|(p, _)| *p == s.profile), "{}", s.name);
        }
        for name in CORE {
            assert!(CATALOG.iter().any(|s| s.name == *name), "{name}");
        }
    }
}
