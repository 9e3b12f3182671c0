//! Daemon responses and CLI errors → stdout, stderr and an exit code (contract §2.1).
//!
//! Text mode is key-driven: the first rule whose key is present in `data` decides the output, in
//! upstream's order. `--json` prints exactly one line. Rendering is pure: callers write
//! [`Rendered::stdout`]/[`Rendered::stderr`] and exit with [`Rendered::exit_code`].
//!
//! Deliberate divergences from upstream 0.41.2 (documented in the crate docs too):
//! * `errors` prints each entry's `text` (upstream reads a `message` field the daemon never sends
//!   and prints `✗ ` with nothing after it); `message` is still used when present.
//! * `storage local|session clear` prints `✓ Storage cleared` (upstream prints
//!   `✓ Request log cleared`).

use serde::Serialize;
use serde_json::Value;

use crate::commands::{CliError, Failure, ParseError};
use crate::flags::Flags;

/// What to write and how to exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Text for stdout (complete lines, each ending in `\n`).
    pub stdout: String,
    /// Text for stderr (complete lines).
    pub stderr: String,
    /// Process exit code (0 success, 1 failure).
    pub exit_code: i32,
}

impl Rendered {
    /// Append another rendering (stdout after stdout, stderr after stderr); the exit code becomes 1
    /// if either failed.
    pub fn append(&mut self, other: Rendered) {
        self.stdout.push_str(&other.stdout);
        self.stderr.push_str(&other.stderr);
        self.exit_code = self.exit_code.max(other.exit_code);
    }

    fn out(&mut self, line: &str) {
        self.stdout.push_str(line);
        self.stdout.push('\n');
    }

    fn err(&mut self, line: &str) {
        self.stderr.push_str(line);
        self.stderr.push('\n');
    }
}

/// A daemon response (`id` ignored); the wire type both sides share.
pub use abx_wire::Response;

/// How to print.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputOptions {
    /// `--json`: one JSON line on stdout.
    pub json: bool,
    /// `--content-boundaries`: wrap page-derived text in nonce markers.
    pub content_boundaries: bool,
    /// `--max-output N`: truncate page-derived text to N characters.
    pub max_output: Option<usize>,
    /// ANSI colours (`AGENT_BROWSER_COLOR` truthy and `NO_COLOR` unset).
    pub color: bool,
    /// Nonce for boundary markers (32 hex chars, random per process).
    pub boundary_nonce: String,
}

impl OutputOptions {
    /// Options from resolved flags, with a fresh random boundary nonce.
    pub fn from_flags(flags: &Flags) -> Self {
        Self {
            json: flags.json,
            content_boundaries: flags.content_boundaries,
            max_output: flags.max_output,
            color: flags.color,
            boundary_nonce: random_nonce(),
        }
    }

    /// Plain text output (used before flags are known).
    pub fn plain(color: bool) -> Self {
        Self {
            color,
            boundary_nonce: random_nonce(),
            ..Self::default()
        }
    }
}

/// 16 random bytes as 32 lowercase hex digits (from `/dev/urandom`; falls back to a hash of the
/// clock and PID where that is unavailable).
pub fn random_nonce() -> String {
    use std::io::Read;
    let mut buf = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok();
    if !filled {
        use sha2::{Digest, Sha256};
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        let digest = Sha256::digest(seed.as_bytes());
        buf.copy_from_slice(&digest[..16]);
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// ANSI styling that collapses to plain text when colours are off.
#[derive(Debug, Clone, Copy)]
struct Palette(bool);

impl Palette {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn red(self, t: &str) -> String {
        self.wrap("31", t)
    }
    fn green(self, t: &str) -> String {
        self.wrap("32", t)
    }
    fn cyan(self, t: &str) -> String {
        self.wrap("36", t)
    }
    fn bold(self, t: &str) -> String {
        self.wrap("1", t)
    }
    fn dim(self, t: &str) -> String {
        self.wrap("2", t)
    }
    fn ok(self) -> String {
        self.green("✓")
    }
    fn fail(self) -> String {
        self.red("✗")
    }
    fn warn(self) -> String {
        self.wrap("33", "⚠")
    }
    fn console_prefix(self, level: &str) -> String {
        let code = match level {
            "error" => "31",
            "warning" => "33",
            "info" => "36",
            _ => "",
        };
        if code.is_empty() {
            format!("[{level}]")
        } else {
            self.wrap(code, &format!("[{level}]"))
        }
    }
}

fn json_string<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// `{"success":…,"data":…,"error":…[,"code"][,"warning"]}` with `data`/`error` explicitly null.
/// With a boundary the keys are alphabetical and `_boundary` comes first, like upstream (which
/// re-serializes through a sorted map in that case).
fn response_json(resp: &Response, boundary: Option<(&str, &str)>) -> String {
    let data = resp.data.as_ref().map_or("null".to_string(), json_string);
    let error = resp.error.as_ref().map_or("null".to_string(), json_string);
    let code = resp.code.as_ref().map(json_string);
    let warning = resp.warning.as_ref().map(json_string);
    match boundary {
        None => {
            let mut s = format!(
                "{{\"success\":{},\"data\":{data},\"error\":{error}",
                resp.success
            );
            if let Some(c) = code {
                s.push_str(&format!(",\"code\":{c}"));
            }
            if let Some(w) = warning {
                s.push_str(&format!(",\"warning\":{w}"));
            }
            s.push('}');
            s
        }
        Some((nonce, origin)) => {
            let mut s = format!(
                "{{\"_boundary\":{{\"nonce\":{},\"origin\":{}}}",
                json_string(nonce),
                json_string(origin)
            );
            if let Some(c) = code {
                s.push_str(&format!(",\"code\":{c}"));
            }
            s.push_str(&format!(
                ",\"data\":{data},\"error\":{error},\"success\":{}",
                resp.success
            ));
            if let Some(w) = warning {
                s.push_str(&format!(",\"warning\":{w}"));
            }
            s.push('}');
            s
        }
    }
}

/// `{"error":…,"success":false}` (upstream's CLI-side JSON error).
pub fn error_json(message: &str) -> String {
    format!("{{\"error\":{},\"success\":false}}", json_string(message))
}

/// `{"error":…,"success":false,"type":…}` (upstream's JSON parse error).
pub fn typed_error_json(message: &str, kind: &str) -> String {
    format!(
        "{{\"error\":{},\"success\":false,\"type\":{}}}",
        json_string(message),
        json_string(kind)
    )
}

/// A warning line for stderr: `⚠ <text>\n`.
pub fn render_warning(text: &str, opts: &OutputOptions) -> String {
    format!("{} {text}\n", Palette(opts.color).warn())
}

/// A CLI-side error (daemon unreachable, launch failed, …): `✗ <message>` on stderr, or the JSON
/// error line on stdout; exit 1.
pub fn render_error(message: &str, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered {
        exit_code: 1,
        ..Rendered::default()
    };
    if opts.json {
        r.out(&error_json(message));
    } else {
        r.err(&format!("{} {message}", Palette(opts.color).fail()));
    }
    r
}

/// A grammar error: the bare message on stderr (red when colours are on), or the typed JSON error
/// on stdout; exit 1.
pub fn render_parse_error(error: &ParseError, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered {
        exit_code: 1,
        ..Rendered::default()
    };
    let message = error.to_string();
    if opts.json {
        r.out(&typed_error_json(&message, error.kind()));
    } else {
        r.err(&Palette(opts.color).red(&message));
    }
    r
}

/// Render a [`Failure`] from [`crate::parse`], warnings first.
pub fn render_failure(failure: &Failure) -> Rendered {
    let opts = &failure.output;
    let mut r = Rendered {
        stderr: failure
            .warnings
            .iter()
            .map(|w| render_warning(w, opts))
            .collect(),
        exit_code: 1,
        ..Rendered::default()
    };
    let body = match &failure.error {
        CliError::Config(message) => Rendered {
            stderr: render_warning(message, opts),
            exit_code: 1,
            ..Rendered::default()
        },
        CliError::Parse(e) => render_parse_error(e, opts),
        CliError::Rejected { message, kind } => {
            if opts.json {
                let line = match kind {
                    Some(k) => typed_error_json(message, k),
                    None => error_json(message),
                };
                Rendered {
                    stdout: format!("{line}\n"),
                    exit_code: 1,
                    ..Rendered::default()
                }
            } else {
                render_error(message, opts)
            }
        }
        CliError::BatchInput(e) => {
            if opts.json {
                render_error(
                    &format!(
                        "Invalid JSON input: {e}. Expected an array of string arrays, e.g. [[\"open\", \"https://example.com\"], [\"snapshot\"]]"
                    ),
                    opts,
                )
            } else {
                render_error(
                    &format!("Invalid JSON input: {e}. Expected an array of string arrays."),
                    opts,
                )
            }
        }
    };
    r.append(body);
    r
}

fn truncate(content: &str, max: Option<usize>) -> String {
    let Some(limit) = max else {
        return content.to_string();
    };
    if content.len() <= limit {
        return content.to_string();
    }
    match content.char_indices().nth(limit) {
        Some((byte, _)) => format!(
            "{}\n[truncated: showing {limit} of {} chars. Use --max-output to adjust]",
            &content[..byte],
            content.chars().count()
        ),
        None => content.to_string(),
    }
}

/// Page-derived text: truncated to `--max-output`, wrapped in boundary markers with
/// `--content-boundaries`.
fn page_text(r: &mut Rendered, content: &str, origin: Option<&str>, opts: &OutputOptions) {
    let content = truncate(content, opts.max_output);
    if opts.content_boundaries {
        let nonce = &opts.boundary_nonce;
        r.out(&format!(
            "--- AGENT_BROWSER_PAGE_CONTENT nonce={nonce} origin={} ---",
            origin.unwrap_or("unknown")
        ));
        r.out(&content);
        r.out(&format!(
            "--- END_AGENT_BROWSER_PAGE_CONTENT nonce={nonce} ---"
        ));
    } else {
        r.out(&content);
    }
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn b(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}

fn i(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

fn u(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn without_lifecycle(data: &Value) -> Value {
    let mut data = data.clone();
    if let Some(obj) = data.as_object_mut() {
        obj.remove("lifecycle");
    }
    data
}

/// Render a daemon response for the command whose request had `action`.
pub fn render_response(resp: &Response, action: Option<&str>, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered {
        exit_code: if resp.success { 0 } else { 1 },
        ..Rendered::default()
    };
    let p = Palette(opts.color);
    if opts.json {
        let line = if opts.content_boundaries {
            let origin = resp
                .data
                .as_ref()
                .and_then(|d| s(d, "origin"))
                .unwrap_or("unknown");
            response_json(resp, Some((&opts.boundary_nonce, origin)))
        } else {
            response_json(resp, None)
        };
        r.out(&line);
        return r;
    }
    if !resp.success {
        r.err(&format!(
            "{} {}",
            p.fail(),
            resp.error.as_deref().unwrap_or("Unknown error")
        ));
        if let Some(w) = &resp.warning {
            r.err(&format!("{} {w}", p.warn()));
        }
        return r;
    }
    if let Some(data) = &resp.data {
        render_data(&mut r, data, action, opts);
    }
    if let Some(w) = &resp.warning {
        r.err(&format!("{} {w}", p.warn()));
    }
    r
}

fn stream_text(action: Option<&str>, data: &Value) -> Option<String> {
    match action {
        Some("stream_disable") => b(data, "disabled")
            .filter(|d| *d)
            .map(|_| "Streaming disabled".to_string()),
        Some("stream_enable") | Some("stream_status") => {
            if !b(data, "enabled")? {
                return Some("Streaming disabled".to_string());
            }
            let port = u(data, "port")?;
            let connected = b(data, "connected").unwrap_or(false);
            let screencasting = b(data, "screencasting").unwrap_or(false);
            Some(format!(
                "Streaming enabled on ws://127.0.0.1:{port}\nConnected: {connected}\nScreencasting: {screencasting}"
            ))
        }
        _ => None,
    }
}

fn storage_text(data: &Value) -> Option<String> {
    let value_text = |v: &Value| v.as_str().map_or_else(|| json_string(v), str::to_string);
    if let Some(entries) = data.get("data").and_then(Value::as_object) {
        if entries.is_empty() {
            return Some("No storage entries".to_string());
        }
        return Some(
            entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_text(v)))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    let key = s(data, "key")?;
    let value = data.get("value")?;
    Some(format!("{key}: {}", value_text(value)))
}

fn snapshot_diff(r: &mut Rendered, data: &Value, p: Palette) {
    if !b(data, "changed").unwrap_or(false) {
        r.out(&format!("{} No changes detected", p.ok()));
        return;
    }
    if let Some(diff) = s(data, "diff") {
        for line in diff.lines() {
            if line.starts_with("+ ") {
                r.out(&p.green(line));
            } else if line.starts_with("- ") {
                r.out(&p.red(line));
            } else {
                r.out(&p.dim(line));
            }
        }
        r.out(&format!(
            "\n{} additions, {} removals, {} unchanged",
            p.green(&i(data, "additions").unwrap_or(0).to_string()),
            p.red(&i(data, "removals").unwrap_or(0).to_string()),
            i(data, "unchanged").unwrap_or(0)
        ));
    }
}

fn screenshot_diff(r: &mut Rendered, data: &Value, p: Palette) {
    let mismatch = data
        .get("mismatchPercentage")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if b(data, "dimensionMismatch").unwrap_or(false) {
        r.out(&format!("{} Images have different dimensions", p.fail()));
    } else if b(data, "match").unwrap_or(false) {
        r.out(&format!("{} Images match (0% difference)", p.ok()));
    } else {
        r.out(&format!("{} {mismatch:.2}% pixels differ", p.fail()));
    }
    if let Some(path) = s(data, "diffPath") {
        r.out(&format!("  Diff image: {}", p.green(path)));
    }
    r.out(&format!(
        "  {} different / {} total pixels",
        p.red(&i(data, "differentPixels").unwrap_or(0).to_string()),
        i(data, "totalPixels").unwrap_or(0)
    ));
}

fn delta_snapshot(r: &mut Rendered, snap: &Value, origin: Option<&str>, opts: &OutputOptions) {
    if s(snap, "kind") == Some("unchanged") {
        r.out(&format!(
            "unchanged (revision {})",
            i(snap, "revision").unwrap_or(0)
        ));
        return;
    }
    for key in ["snapshot", "tree", "text", "diff"] {
        if let Some(text) = s(snap, key) {
            page_text(r, text, origin, opts);
            return;
        }
    }
    page_text(r, &pretty(snap), origin, opts);
}

fn render_data(r: &mut Rendered, data: &Value, action: Option<&str>, opts: &OutputOptions) {
    let p = Palette(opts.color);
    let origin = s(data, "origin");

    if action == Some("dialog")
        && let Some(has) = b(data, "hasDialog")
    {
        if has {
            r.out(&format!(
                "{} JavaScript {} dialog is open: \"{}\"",
                p.warn(),
                s(data, "type").unwrap_or("unknown"),
                s(data, "message").unwrap_or("")
            ));
            if let Some(prompt) = s(data, "defaultPrompt") {
                r.out(&format!("  Default prompt text: \"{prompt}\""));
            }
            r.out("  Use `dialog accept [text]` or `dialog dismiss` to resolve it");
        } else {
            r.out(&format!("{} No dialog is currently open", p.ok()));
        }
        return;
    }
    if let Some(text) = stream_text(action, data) {
        r.out(&text);
        return;
    }
    if matches!(action, Some("vitals") | Some("a11y")) {
        r.out(&pretty(&without_lifecycle(data)));
        return;
    }
    if action == Some("storage_get")
        && let Some(text) = storage_text(data)
    {
        r.out(&text);
        return;
    }
    if action == Some("inspect") {
        if b(data, "opened").unwrap_or(false) {
            match s(data, "url") {
                Some(url) => r.out(&format!("{} Opened DevTools: {url}", p.ok())),
                None => r.out(&format!("{} Opened DevTools", p.ok())),
            }
        } else if let Some(e) = s(data, "error") {
            r.err(&format!("Could not open DevTools: {e}"));
        }
        return;
    }
    if action == Some("read")
        && let Some(content) = s(data, "content")
    {
        let origin = s(data, "finalUrl").or(s(data, "url")).or(origin);
        page_text(r, content, origin, opts);
        return;
    }
    if let Some(url) = s(data, "url") {
        if let Some(title) = s(data, "title") {
            r.out(&format!("{} {}", p.ok(), p.bold(title)));
            r.out(&format!("  {}", p.dim(url)));
        } else {
            r.out(url);
        }
        return;
    }
    if let Some(cdp) = s(data, "cdpUrl") {
        r.out(cdp);
        return;
    }
    if data.is_object() {
        match action {
            Some("diff_snapshot") => return snapshot_diff(r, data, p),
            Some("diff_screenshot") => return screenshot_diff(r, data, p),
            Some("diff_url") => {
                if let Some(snap) = data.get("snapshot").filter(|v| v.is_object()) {
                    r.out(&p.bold("Snapshot diff:"));
                    snapshot_diff(r, snap, p);
                }
                if let Some(shot) = data.get("screenshot").filter(|v| v.is_object()) {
                    r.out(&format!("\n{}", p.bold("Screenshot diff:")));
                    screenshot_diff(r, shot, p);
                }
                return;
            }
            _ => {}
        }
    }
    match data.get("snapshot") {
        Some(Value::String(snapshot)) => return page_text(r, snapshot, origin, opts),
        Some(snap @ Value::Object(_)) => return delta_snapshot(r, snap, origin, opts),
        _ => {}
    }
    if let Some(title) = s(data, "title") {
        r.out(title);
        return;
    }
    if let Some(text) = s(data, "text") {
        return page_text(r, text, origin, opts);
    }
    if let Some(html) = s(data, "html") {
        return page_text(r, html, origin, opts);
    }
    if let Some(value) = s(data, "value") {
        r.out(value);
        return;
    }
    if let Some(count) = i(data, "count") {
        r.out(&count.to_string());
        return;
    }
    if action == Some("boundingbox") {
        if data.is_object() {
            let f = |k: &str| data.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            r.out(&format!("x:      {}", f("x")));
            r.out(&format!("y:      {}", f("y")));
            r.out(&format!("width:  {}", f("width")));
            r.out(&format!("height: {}", f("height")));
        }
        return;
    }
    if let Some(styles) = data.get("styles").and_then(Value::as_object) {
        for (k, v) in styles {
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            r.out(&format!("{k}: {shown}"));
        }
        return;
    }
    for key in ["visible", "enabled", "checked"] {
        if let Some(flag) = b(data, key) {
            r.out(&flag.to_string());
            return;
        }
    }
    if let Some(result) = data.get("result") {
        return page_text(r, &pretty(result), origin, opts);
    }
    if let Some(devices) = data.get("devices").and_then(Value::as_array) {
        return render_devices(r, devices, p);
    }
    if let Some(tabs) = data.get("tabs").and_then(Value::as_array) {
        for tab in tabs {
            let id = s(tab, "tabId").unwrap_or("?");
            let title = s(tab, "title").unwrap_or("Untitled");
            let url = s(tab, "url").unwrap_or("");
            let marker = if b(tab, "active").unwrap_or(false) {
                p.cyan("→")
            } else {
                " ".to_string()
            };
            match s(tab, "label") {
                Some(label) => r.out(&format!("{marker} [{id}] {label} {title} - {url}")),
                None => r.out(&format!("{marker} [{id}] {title} - {url}")),
            }
        }
        return;
    }
    if action == Some("tab_switch")
        && let Some(id) = s(data, "tabId")
    {
        r.out(&format!("{} Switched to tab [{id}]", p.ok()));
        return;
    }
    if let (Some(id), Some(total)) = (s(data, "tabId"), i(data, "total")) {
        let noun = if action == Some("window_new") {
            "Window opened"
        } else {
            "Tab opened"
        };
        match s(data, "label") {
            Some(label) => r.out(&format!("{} {noun} [{id}] {label} ({total} total)", p.ok())),
            None => r.out(&format!("{} {noun} [{id}] ({total} total)", p.ok())),
        }
        return;
    }
    if let Some(messages) = data.get("messages").and_then(Value::as_array) {
        let text = messages
            .iter()
            .map(|m| {
                format!(
                    "{} {}",
                    p.console_prefix(s(m, "type").unwrap_or("log")),
                    s(m, "text").unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        if !messages.is_empty() {
            page_text(r, &text, origin, opts);
        }
        return;
    }
    if let Some(errors) = data.get("errors").and_then(Value::as_array) {
        for e in errors {
            let msg = s(e, "text").or(s(e, "message")).unwrap_or("");
            r.out(&format!("{} {msg}", p.fail()));
        }
        return;
    }
    if let Some(cookies) = data.get("cookies").and_then(Value::as_array) {
        for c in cookies {
            r.out(&format!(
                "{}={}",
                s(c, "name").unwrap_or(""),
                s(c, "value").unwrap_or("")
            ));
        }
        return;
    }
    if let Some(requests) = data.get("requests").and_then(Value::as_array) {
        if requests.is_empty() {
            r.out("No requests captured");
        }
        for req in requests {
            let line = format!(
                "[{}] {} {} ({})",
                s(req, "requestId").unwrap_or(""),
                s(req, "method").unwrap_or("GET"),
                s(req, "url").unwrap_or(""),
                s(req, "resourceType").unwrap_or("")
            );
            match i(req, "status") {
                Some(status) => r.out(&format!("{line} {status}")),
                None => r.out(&line),
            }
        }
        return;
    }
    if b(data, "cleared") == Some(true) {
        let label = match action {
            Some("cookies_clear") => "Cookies cleared",
            Some("console") => "Console log cleared",
            Some("storage_clear") => "Storage cleared",
            _ => "Request log cleared",
        };
        r.out(&format!("{} {label}", p.ok()));
        return;
    }
    if let Some(bx) = data.get("box") {
        r.out(&pretty(bx));
        return;
    }
    if let Some(elements) = data.get("elements").and_then(Value::as_array) {
        return render_elements(r, elements);
    }
    if data.get("closed").is_some() {
        if action == Some("tab_close") {
            match s(data, "tabId") {
                Some(id) => r.out(&format!("{} Tab [{id}] closed", p.ok())),
                None => r.out(&format!("{} Tab closed", p.ok())),
            }
        } else {
            r.out(&format!("{} Browser closed", p.ok()));
        }
        return;
    }
    if b(data, "started") == Some(true) {
        match action {
            Some("profiler_start") => r.out(&format!("{} Profiling started", p.ok())),
            Some("har_start") => r.out(&format!("{} HAR recording started", p.ok())),
            _ => match s(data, "path") {
                Some(path) => r.out(&format!("{} Recording started: {path}", p.ok())),
                None => r.out(&format!("{} Recording started", p.ok())),
            },
        }
        return;
    }
    if data.get("stopped").is_some() {
        let path = s(data, "path").unwrap_or("unknown");
        match s(data, "previousPath") {
            Some(prev) => r.out(&format!(
                "{} Recording restarted: {path} (previous saved to {prev})",
                p.ok()
            )),
            None => r.out(&format!("{} Recording started: {path}", p.ok())),
        }
        return;
    }
    if data.get("frames").is_some() {
        match (s(data, "path"), s(data, "error")) {
            (Some(path), Some(e)) => {
                r.out(&format!("{} Recording saved to {path} - {e}", p.warn()))
            }
            (Some(path), None) => r.out(&format!("{} Recording saved to {path}", p.ok())),
            (None, _) => r.out(&format!("{} Recording stopped", p.ok())),
        }
        return;
    }
    if (data.get("suggestedFilename").is_some() || data.get("filename").is_some())
        && let Some(path) = s(data, "path")
    {
        let name = s(data, "suggestedFilename")
            .or(s(data, "filename"))
            .unwrap_or("");
        if name.is_empty() {
            r.out(&format!("{} Downloaded to {}", p.ok(), p.green(path)));
        } else {
            r.out(&format!(
                "{} Downloaded to {} ({name})",
                p.ok(),
                p.green(path)
            ));
        }
        return;
    }
    if data.get("traceStopped").is_some() {
        r.out(&format!("{} Trace stopped", p.ok()));
        return;
    }
    if let Some(path) = s(data, "path") {
        return render_path(r, data, path, action, p);
    }
    if render_state_and_auth(r, data, p) {
        return;
    }
    r.out(&format!("{} Done", p.ok()));
}

fn render_devices(r: &mut Rendered, devices: &[Value], p: Palette) {
    if devices.is_empty() {
        r.out("No iOS devices available. Open Xcode to download simulator runtimes.");
        return;
    }
    let real = |d: &&Value| b(d, "isRealDevice").unwrap_or(false);
    let reals: Vec<&Value> = devices.iter().filter(real).collect();
    let sims: Vec<&Value> = devices.iter().filter(|d| !real(d)).collect();
    if !reals.is_empty() {
        r.out("Connected Devices:\n");
        for d in reals {
            r.out(&format!(
                "  {} {} ({})",
                p.green("●"),
                s(d, "name").unwrap_or("Unknown"),
                s(d, "runtime").unwrap_or("")
            ));
            r.out(&format!("    {}", p.dim(s(d, "udid").unwrap_or(""))));
        }
        r.out("");
    }
    if !sims.is_empty() {
        r.out("Simulators:\n");
        for d in sims {
            let state = if s(d, "state") == Some("Booted") {
                p.green("●")
            } else {
                p.dim("○")
            };
            r.out(&format!(
                "  {state} {} ({})",
                s(d, "name").unwrap_or("Unknown"),
                s(d, "runtime").unwrap_or("")
            ));
            r.out(&format!("    {}", p.dim(s(d, "udid").unwrap_or(""))));
        }
    }
}

fn render_elements(r: &mut Rendered, elements: &[Value]) {
    for (idx, el) in elements.iter().enumerate() {
        r.out(&format!(
            "[{idx}] {} \"{}\"",
            s(el, "tag").unwrap_or("?"),
            s(el, "text").unwrap_or("")
        ));
        if let Some(bx) = el.get("box") {
            r.out(&format!(
                "    box: {}x{} at ({}, {})",
                i(bx, "width").unwrap_or(0),
                i(bx, "height").unwrap_or(0),
                i(bx, "x").unwrap_or(0),
                i(bx, "y").unwrap_or(0)
            ));
        }
        if let Some(st) = el.get("styles") {
            let g = |k: &str| s(st, k).unwrap_or("");
            r.out(&format!(
                "    font: {} {} {}",
                g("fontSize"),
                g("fontWeight"),
                g("fontFamily")
            ));
            r.out(&format!("    color: {}", g("color")));
            r.out(&format!("    background: {}", g("backgroundColor")));
            if g("borderRadius") != "0px" {
                r.out(&format!("    border-radius: {}", g("borderRadius")));
            }
        }
        r.out("");
    }
}

fn render_path(r: &mut Rendered, data: &Value, path: &str, action: Option<&str>, p: Palette) {
    let ok = p.ok();
    let gp = p.green(path);
    match action.unwrap_or("") {
        "screenshot" => {
            r.out(&format!("{ok} Screenshot saved to {gp}"));
            if let Some(annotations) = data.get("annotations").and_then(Value::as_array) {
                for a in annotations {
                    let num = p.dim(&format!("[{}]", u(a, "number").unwrap_or(0)));
                    let reference = s(a, "ref").unwrap_or("");
                    let role = s(a, "role").unwrap_or("");
                    match s(a, "name").filter(|n| !n.is_empty()) {
                        Some(name) => r.out(&format!("   {num} @{reference} {role} {name:?}")),
                        None => r.out(&format!("   {num} @{reference} {role}")),
                    }
                }
            }
        }
        "pdf" => r.out(&format!("{ok} PDF saved to {gp}")),
        "trace_stop" => r.out(&format!("{ok} Trace saved to {gp}")),
        "profiler_stop" => r.out(&format!(
            "{ok} Profile saved to {gp} ({} events)",
            u(data, "eventCount").unwrap_or(0)
        )),
        "har_stop" => r.out(&format!(
            "{ok} HAR saved to {gp} ({} requests)",
            u(data, "requestCount").unwrap_or(0)
        )),
        "download" | "waitfordownload" => r.out(&format!("{ok} Download saved to {gp}")),
        "video_stop" => r.out(&format!("{ok} Video saved to {gp}")),
        "state_save" => r.out(&format!("{ok} State saved to {gp}")),
        "state_load" => {
            if let Some(note) = s(data, "note") {
                r.out(note);
            }
            r.out(&format!("{ok} State path set to {gp}"));
        }
        "video_start" => {
            if let Some(note) = s(data, "note") {
                r.out(note);
            }
            r.out(&format!("Path: {path}"));
        }
        _ => r.out(&format!("{ok} Saved to {gp}")),
    }
}

/// State-file and auth-vault outputs, confirmations. Returns whether something was printed.
fn render_state_and_auth(r: &mut Rendered, data: &Value, p: Palette) -> bool {
    let ok = p.ok();
    if let Some(files) = data.get("files").and_then(Value::as_array) {
        if let Some(dir) = s(data, "directory") {
            r.out(&p.bold(&format!("Saved states in {dir}")));
        }
        if files.is_empty() {
            r.out(&p.dim("  No state files found"));
        }
        for f in files {
            let size = i(f, "size").unwrap_or(0);
            let size_str = if size > 1024 {
                format!("{:.1}KB", size as f64 / 1024.0)
            } else {
                format!("{size}B")
            };
            let modified = s(f, "modified").unwrap_or("");
            let date = modified.split('T').next().unwrap_or(modified);
            let enc = if b(f, "encrypted").unwrap_or(false) {
                " [encrypted]"
            } else {
                ""
            };
            r.out(&format!(
                "  {} {}",
                s(f, "filename").unwrap_or(""),
                p.dim(&format!("({size_str}, {date}){enc}"))
            ));
        }
        return true;
    }
    if b(data, "renamed") == Some(true) {
        r.out(&format!(
            "{ok} Renamed {} -> {}",
            s(data, "oldName").unwrap_or(""),
            s(data, "newName").unwrap_or("")
        ));
        return true;
    }
    if let Some(n) = i(data, "cleared") {
        r.out(&format!("{ok} Cleared {n} state file(s)"));
        return true;
    }
    if let Some(summary) = data.get("summary") {
        let enc = if b(data, "encrypted").unwrap_or(false) {
            " (encrypted)"
        } else {
            ""
        };
        r.out(&format!("State file summary{enc}:"));
        r.out(&format!(
            "  Cookies: {}",
            i(summary, "cookies").unwrap_or(0)
        ));
        r.out(&format!(
            "  Origins with localStorage: {}",
            i(summary, "origins").unwrap_or(0)
        ));
        return true;
    }
    if let Some(n) = i(data, "cleaned") {
        r.out(&format!("{ok} Cleaned {n} old state file(s)"));
        return true;
    }
    if let Some(note) = s(data, "note") {
        r.out(note);
        return true;
    }
    if let Some(profiles) = data.get("profiles").and_then(Value::as_array) {
        if profiles.is_empty() {
            r.out(&p.dim("No auth profiles saved"));
        } else {
            r.out(&p.bold("Auth profiles:"));
            for pr in profiles {
                r.out(&format!(
                    "  {} {} {}",
                    p.green(s(pr, "name").unwrap_or("")),
                    p.dim(s(pr, "username").unwrap_or("")),
                    p.dim(s(pr, "url").unwrap_or(""))
                ));
            }
        }
        return true;
    }
    if let Some(profile) = data.get("profile").filter(|v| v.is_object()) {
        r.out(&format!("Name: {}", s(profile, "name").unwrap_or("")));
        r.out(&format!("URL: {}", s(profile, "url").unwrap_or("")));
        r.out(&format!(
            "Username: {}",
            s(profile, "username").unwrap_or("")
        ));
        r.out(&format!(
            "Created: {}",
            s(profile, "createdAt").unwrap_or("")
        ));
        if let Some(last) = s(profile, "lastLoginAt") {
            r.out(&format!("Last login: {last}"));
        }
        return true;
    }
    let name = s(data, "name").unwrap_or("");
    if b(data, "saved") == Some(true) {
        r.out(&format!("{ok} Auth profile '{name}' saved"));
        return true;
    }
    if b(data, "updated") == Some(true) {
        r.out(&format!("{ok} Auth profile '{name}' updated"));
        return true;
    }
    if b(data, "loggedIn") == Some(true) {
        match s(data, "title") {
            Some(title) => r.out(&format!("{ok} Logged in as '{name}' - {title}")),
            None => r.out(&format!("{ok} Logged in as '{name}'")),
        }
        return true;
    }
    if b(data, "deleted") == Some(true) && data.get("name").is_some() {
        r.out(&format!("{ok} Auth profile '{name}' deleted"));
        return true;
    }
    if b(data, "confirmation_required") == Some(true) {
        let cid = s(data, "confirmation_id").unwrap_or("");
        r.out("Confirmation required:");
        r.out(&format!(
            "  {}: {}",
            s(data, "category").unwrap_or(""),
            s(data, "description").unwrap_or("")
        ));
        r.out(&format!("  Run: agent-browser confirm {cid}"));
        r.out(&format!("  Or:  agent-browser deny {cid}"));
        return true;
    }
    if b(data, "confirmed") == Some(true) {
        r.out(&format!("{ok} Action confirmed"));
        return true;
    }
    if b(data, "denied") == Some(true) {
        r.out(&format!("{ok} Action denied"));
        return true;
    }
    false
}

/// Accumulates `batch` results: text mode prints each step as it comes (blank line between
/// steps, errors as `✗ Command <n>: …` on stderr); `--json` prints one array at the end.
#[derive(Debug, Clone)]
pub struct BatchReport {
    opts: OutputOptions,
    rendered: Rendered,
    results: Vec<Value>,
    printed_any: bool,
}

impl BatchReport {
    /// An empty report.
    pub fn new(opts: &OutputOptions) -> Self {
        Self {
            opts: opts.clone(),
            rendered: Rendered::default(),
            results: Vec::new(),
            printed_any: false,
        }
    }

    /// Record a step's daemon response (`index` is 0-based).
    pub fn push_response(
        &mut self,
        index: usize,
        argv: &[String],
        resp: &Response,
        action: Option<&str>,
    ) {
        if !resp.success {
            self.rendered.exit_code = 1;
        }
        if self.opts.json {
            let mut obj = serde_json::Map::new();
            obj.insert("command".into(), serde_json::json!(argv));
            obj.insert("success".into(), Value::Bool(resp.success));
            obj.insert("result".into(), resp.data.clone().unwrap_or(Value::Null));
            obj.insert(
                "error".into(),
                resp.error.clone().map_or(Value::Null, Value::String),
            );
            if let Some(code) = &resp.code {
                obj.insert("code".into(), Value::String(code.clone()));
            }
            if let Some(w) = &resp.warning {
                obj.insert("warning".into(), Value::String(w.clone()));
            }
            self.results.push(Value::Object(obj));
            return;
        }
        if index > 0 && self.printed_any {
            self.rendered.stdout.push('\n');
        }
        self.printed_any = true;
        let step = render_response(resp, action, &self.opts);
        self.rendered.stdout.push_str(&step.stdout);
        self.rendered.stderr.push_str(&step.stderr);
    }

    /// Record a step that failed before a response (parse error or transport error).
    pub fn push_error(&mut self, index: usize, argv: &[String], message: &str) {
        self.rendered.exit_code = 1;
        if self.opts.json {
            self.results.push(serde_json::json!({
                "command": argv,
                "success": false,
                "error": message,
            }));
            return;
        }
        self.rendered.err(&format!(
            "{} Command {}: {message}",
            Palette(self.opts.color).fail(),
            index + 1
        ));
    }

    /// Whether any step failed so far (for `--bail`).
    pub fn failed(&self) -> bool {
        self.rendered.exit_code != 0
    }

    /// The final rendering.
    pub fn finish(mut self) -> Rendered {
        if self.opts.json {
            self.rendered.out(&json_string(&self.results));
        }
        self.rendered
    }
}

/// `session` / `session list` output.
pub fn render_session_list(sessions: &[String], current: &str, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered::default();
    if opts.json {
        r.out(&format!(
            "{{\"success\":true,\"data\":{{\"sessions\":{}}}}}",
            json_string(sessions)
        ));
    } else if sessions.is_empty() {
        r.out("No active sessions");
    } else {
        r.out("Active sessions:");
        for session in sessions {
            let marker = if session == current {
                Palette(opts.color).cyan("→")
            } else {
                " ".to_string()
            };
            r.out(&format!("{marker} {session}"));
        }
    }
    r
}

/// `session` (no subcommand) output.
pub fn render_session_show(session: &str, opts: &OutputOptions) -> Rendered {
    let mut r = Rendered::default();
    if opts.json {
        r.out(&format!(
            "{{\"data\":{{\"session\":{}}},\"success\":true}}",
            json_string(session)
        ));
    } else {
        r.out(session);
    }
    r
}

/// `session id` output.
pub fn render_session_id(
    session: &str,
    scope: &str,
    path: &str,
    hash: &str,
    opts: &OutputOptions,
) -> Rendered {
    let mut r = Rendered::default();
    if opts.json {
        r.out(&format!(
            "{{\"data\":{{\"hash\":{},\"path\":{},\"scope\":{},\"session\":{}}},\"success\":true}}",
            json_string(hash),
            json_string(path),
            json_string(scope),
            json_string(session)
        ));
    } else {
        r.out(session);
    }
    r
}

/// `close --all` output.
pub fn render_close_all(
    closed: &[String],
    failed: &[(String, String)],
    opts: &OutputOptions,
) -> Rendered {
    let mut r = Rendered::default();
    let p = Palette(opts.color);
    if closed.is_empty() && failed.is_empty() {
        if opts.json {
            r.out("{\"data\":{\"closed\":0,\"sessions\":[]},\"success\":true}");
        } else {
            r.out("No active sessions");
        }
        return r;
    }
    if opts.json {
        let failed_json: Vec<Value> = failed
            .iter()
            .map(|(s, e)| serde_json::json!({ "error": e, "session": s }))
            .collect();
        r.out(&format!(
            "{{\"data\":{{\"closed\":{},\"failed\":{},\"sessions\":{}}},\"success\":{}}}",
            closed.len(),
            json_string(&failed_json),
            json_string(closed),
            failed.is_empty()
        ));
    } else {
        for s in closed {
            r.out(&format!("{} Closed session: {s}", p.ok()));
        }
        for (s, e) in failed {
            r.err(&format!("{} Failed to close {s}: {e}", p.fail()));
        }
    }
    if !failed.is_empty() {
        r.exit_code = 1;
    }
    r
}

/// `agent-browser 0.41.2`.
pub fn render_version() -> Rendered {
    Rendered {
        stdout: format!("agent-browser {}\n", crate::UPSTREAM_VERSION),
        ..Rendered::default()
    }
}

/// Help text for `--help` (general, or for one command when known).
pub fn render_help(command: Option<&str>) -> Rendered {
    let text = command
        .and_then(crate::help::command_help)
        .unwrap_or_else(crate::help::general_help);
    Rendered {
        stdout: text,
        ..Rendered::default()
    }
}

/// The message for a command abx does not implement.
pub fn unsupported_message(command: &str) -> String {
    format!(
        "`{command}` is not supported by abx (this agent-browser drives the browser only through its session daemon)"
    )
}
