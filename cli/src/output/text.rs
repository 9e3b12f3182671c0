//! Text mode: upstream's key-driven rendering of a reply's `data`, and the [`Render`] hooks by
//! which a command's action changes the wording at the points where upstream's does.
//!
//! Upstream prints most replies without a dedicated printer: the first rule whose key is in
//! `data` decides (`url`, `cdpUrl`, `snapshot`, `title`, `text`, …, then `✓ Done`). A few rules
//! read differently for some actions (`cleared` says `Cookies cleared` after `cookies clear`),
//! and some actions print their own text before any rule. Each command module declares those
//! differences in its action's [`Render`]; the rules themselves live here, once.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::rendered::{OutputOptions, Rendered};

/// ANSI styling that collapses to plain text when colours are off.
#[derive(Debug, Clone, Copy)]
pub struct Palette(pub bool);

impl Palette {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    /// Red.
    pub fn red(self, t: &str) -> String {
        self.wrap("31", t)
    }
    /// Green.
    pub fn green(self, t: &str) -> String {
        self.wrap("32", t)
    }
    /// Cyan.
    pub fn cyan(self, t: &str) -> String {
        self.wrap("36", t)
    }
    /// Bold.
    pub fn bold(self, t: &str) -> String {
        self.wrap("1", t)
    }
    /// Dim.
    pub fn dim(self, t: &str) -> String {
        self.wrap("2", t)
    }
    /// `✓` in green.
    pub fn ok(self) -> String {
        self.green("✓")
    }
    /// `✗` in red.
    pub fn fail(self) -> String {
        self.red("✗")
    }
    /// `⚠` in yellow.
    pub fn warn(self) -> String {
        self.wrap("33", "⚠")
    }
    /// `[level]` of a console message, coloured by level.
    pub fn console_prefix(self, level: &str) -> String {
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

/// Compact JSON (`null` if it cannot be encoded).
pub fn json_string<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// A string field.
pub fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A boolean field.
pub fn b(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}

/// An integer field.
pub fn i(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// An unsigned integer field.
pub fn u(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Pretty JSON.
pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// `data` without its `lifecycle`.
pub fn without_lifecycle(data: &Value) -> Value {
    let mut data = data.clone();
    if let Some(obj) = data.as_object_mut() {
        obj.remove("lifecycle");
    }
    data
}

fn truncate(content: &str, max: Option<usize>) -> Cow<'_, str> {
    let Some(limit) = max else {
        return Cow::Borrowed(content);
    };
    if content.len() <= limit {
        return Cow::Borrowed(content);
    }
    match content.char_indices().nth(limit) {
        Some((byte, _)) => Cow::Owned(format!(
            "{}\n[truncated: showing {limit} of {} chars. Use --max-output to adjust]",
            &content[..byte],
            content.chars().count()
        )),
        None => Cow::Borrowed(content),
    }
}

impl std::fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Text").finish_non_exhaustive()
    }
}

/// Where a reply's text goes, with the output options and the palette.
pub struct Text<'a> {
    rendered: &'a mut Rendered,
    opts: &'a OutputOptions,
    /// Colours (plain when off).
    pub p: Palette,
}

impl<'a> Text<'a> {
    pub(crate) fn new(rendered: &'a mut Rendered, opts: &'a OutputOptions) -> Text<'a> {
        Text {
            rendered,
            p: Palette(opts.color),
            opts,
        }
    }

    /// A line on stdout.
    pub fn out(&mut self, line: &str) {
        self.rendered.out(line);
    }

    /// A line on stderr.
    pub fn err(&mut self, line: &str) {
        self.rendered.stderr.push_str(line);
        self.rendered.stderr.push('\n');
    }

    /// Page-derived text: truncated to `--max-output`, wrapped in boundary markers with
    /// `--content-boundaries`.
    pub fn page(&mut self, content: &str, origin: Option<&str>) {
        let content = truncate(content, self.opts.max_output);
        if self.opts.content_boundaries {
            let nonce = self.opts.boundary_nonce.clone();
            self.out(&format!(
                "--- AGENT_BROWSER_PAGE_CONTENT nonce={nonce} origin={} ---",
                origin.unwrap_or("unknown")
            ));
            self.out(&content);
            self.out(&format!(
                "--- END_AGENT_BROWSER_PAGE_CONTENT nonce={nonce} ---"
            ));
        } else {
            self.out(&content);
        }
    }
}

/// A hook that may print the reply; `true` when it did.
pub type Rule = fn(&mut Text<'_>, &Value) -> bool;
/// A hook that prints the reply.
pub type Print = fn(&mut Text<'_>, &Value);
/// The `path` rule's text for an action: `(text, data, path)`.
pub type Saved = fn(&mut Text<'_>, &Value, &str);

/// How an action's reply reads where upstream's text depends on the action. Every field is a
/// point in the rule order; [`Render::DEFAULT`] is upstream's text for an action without
/// special wording.
#[derive(Clone, Copy)]
pub struct Render {
    /// Runs before every key rule (`dialog`, `stream …`, `read`, …).
    pub first: Option<Rule>,
    /// Diff reports, right after the `url` and `cdpUrl` rules (object data only).
    pub diff: Option<Print>,
    /// Right after the `count` rule: the reply is a geometry (`get box`).
    pub geometry: Option<Print>,
    /// Right after the `tabs` rule (`tab <id>` without a URL in its reply).
    pub switched: Option<Rule>,
    /// The noun of the `tabId` + `total` rule.
    pub opened: &'static str,
    /// The label of the `cleared: true` rule.
    pub cleared: &'static str,
    /// The `closed` rule (default `✓ Browser closed`).
    pub closed: Option<Print>,
    /// The `started: true` rule's label (default `Recording started[: <path>]`).
    pub started: Option<&'static str>,
    /// The `path` rule (default `✓ Saved to <path>`).
    pub saved: Option<Saved>,
    /// A reply (JSON) that reads differently with this wording: `cli/tests/snapshots.rs`
    /// renders it, and a test refuses wording of an action's own without one.
    pub example: &'static str,
}

impl Render {
    /// Upstream's text for an action without special wording.
    pub const DEFAULT: Render = Render {
        first: None,
        diff: None,
        geometry: None,
        switched: None,
        opened: "Tab opened",
        cleared: "Request log cleared",
        closed: None,
        started: None,
        saved: None,
        example: "",
    };

    /// It words nothing differently from [`Render::DEFAULT`] (its `example` aside).
    pub fn is_default(&self) -> bool {
        self.first.is_none()
            && self.diff.is_none()
            && self.geometry.is_none()
            && self.switched.is_none()
            && self.closed.is_none()
            && self.started.is_none()
            && self.saved.is_none()
            && self.opened == Render::DEFAULT.opened
            && self.cleared == Render::DEFAULT.cleared
    }
}

impl Default for Render {
    fn default() -> Self {
        Render::DEFAULT
    }
}

impl std::fmt::Debug for Render {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Render")
            .field("opened", &self.opened)
            .field("cleared", &self.cleared)
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

/// A `snapshot` that is an object (a delta reply).
fn delta_snapshot(t: &mut Text<'_>, snap: &Value, origin: Option<&str>) {
    if s(snap, "kind") == Some("unchanged") {
        t.out(&format!(
            "unchanged (revision {})",
            i(snap, "revision").unwrap_or(0)
        ));
        return;
    }
    for key in ["snapshot", "tree", "text", "diff"] {
        if let Some(text) = s(snap, key) {
            t.page(text, origin);
            return;
        }
    }
    t.page(&pretty(snap), origin);
}

/// Upstream's key-driven text of a successful reply's `data`, with `render`'s wording.
pub fn render_data(t: &mut Text<'_>, data: &Value, render: &Render) {
    if let Some(first) = render.first
        && first(t, data)
    {
        return;
    }
    let p = t.p;
    let origin = s(data, "origin");
    if let Some(url) = s(data, "url") {
        if let Some(title) = s(data, "title") {
            t.out(&format!("{} {}", p.ok(), p.bold(title)));
            t.out(&format!("  {}", p.dim(url)));
        } else {
            t.out(url);
        }
        return;
    }
    if let Some(cdp) = s(data, "cdpUrl") {
        t.out(cdp);
        return;
    }
    if data.is_object()
        && let Some(diff) = render.diff
    {
        return diff(t, data);
    }
    match data.get("snapshot") {
        Some(Value::String(snapshot)) => return t.page(snapshot, origin),
        Some(snap @ Value::Object(_)) => return delta_snapshot(t, snap, origin),
        _ => {}
    }
    if let Some(title) = s(data, "title") {
        t.out(title);
        return;
    }
    if let Some(text) = s(data, "text") {
        return t.page(text, origin);
    }
    if let Some(html) = s(data, "html") {
        return t.page(html, origin);
    }
    if let Some(value) = s(data, "value") {
        t.out(value);
        return;
    }
    if let Some(count) = i(data, "count") {
        t.out(&count.to_string());
        return;
    }
    if let Some(geometry) = render.geometry {
        return geometry(t, data);
    }
    if let Some(styles) = data.get("styles").and_then(Value::as_object) {
        for (k, v) in styles {
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            t.out(&format!("{k}: {shown}"));
        }
        return;
    }
    for key in ["visible", "enabled", "checked"] {
        if let Some(flag) = b(data, key) {
            t.out(&flag.to_string());
            return;
        }
    }
    if let Some(result) = data.get("result") {
        return t.page(&pretty(result), origin);
    }
    if let Some(devices) = data.get("devices").and_then(Value::as_array) {
        return render_devices(t, devices);
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
                Some(label) => t.out(&format!("{marker} [{id}] {label} {title} - {url}")),
                None => t.out(&format!("{marker} [{id}] {title} - {url}")),
            }
        }
        return;
    }
    if let Some(switched) = render.switched
        && switched(t, data)
    {
        return;
    }
    if let (Some(id), Some(total)) = (s(data, "tabId"), i(data, "total")) {
        let noun = render.opened;
        match s(data, "label") {
            Some(label) => t.out(&format!("{} {noun} [{id}] {label} ({total} total)", p.ok())),
            None => t.out(&format!("{} {noun} [{id}] ({total} total)", p.ok())),
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
            t.page(&text, origin);
        }
        return;
    }
    if let Some(errors) = data.get("errors").and_then(Value::as_array) {
        for e in errors {
            let msg = s(e, "text").or(s(e, "message")).unwrap_or("");
            t.out(&format!("{} {msg}", p.fail()));
        }
        return;
    }
    if let Some(cookies) = data.get("cookies").and_then(Value::as_array) {
        for c in cookies {
            t.out(&format!(
                "{}={}",
                s(c, "name").unwrap_or(""),
                s(c, "value").unwrap_or("")
            ));
        }
        return;
    }
    if let Some(requests) = data.get("requests").and_then(Value::as_array) {
        if requests.is_empty() {
            t.out("No requests captured");
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
                Some(status) => t.out(&format!("{line} {status}")),
                None => t.out(&line),
            }
        }
        return;
    }
    if b(data, "cleared") == Some(true) {
        t.out(&format!("{} {}", p.ok(), render.cleared));
        return;
    }
    if let Some(bx) = data.get("box") {
        t.out(&pretty(bx));
        return;
    }
    if let Some(elements) = data.get("elements").and_then(Value::as_array) {
        return render_elements(t, elements);
    }
    if data.get("closed").is_some() {
        match render.closed {
            Some(closed) => closed(t, data),
            None => t.out(&format!("{} Browser closed", p.ok())),
        }
        return;
    }
    if b(data, "started") == Some(true) {
        match (render.started, s(data, "path")) {
            (Some(label), _) => t.out(&format!("{} {label}", p.ok())),
            (None, Some(path)) => t.out(&format!("{} Recording started: {path}", p.ok())),
            (None, None) => t.out(&format!("{} Recording started", p.ok())),
        }
        return;
    }
    if data.get("stopped").is_some() {
        let path = s(data, "path").unwrap_or("unknown");
        match s(data, "previousPath") {
            Some(prev) => t.out(&format!(
                "{} Recording restarted: {path} (previous saved to {prev})",
                p.ok()
            )),
            None => t.out(&format!("{} Recording started: {path}", p.ok())),
        }
        return;
    }
    if data.get("frames").is_some() {
        match (s(data, "path"), s(data, "error")) {
            (Some(path), Some(e)) => {
                t.out(&format!("{} Recording saved to {path} - {e}", p.warn()));
            }
            (Some(path), None) => t.out(&format!("{} Recording saved to {path}", p.ok())),
            (None, _) => t.out(&format!("{} Recording stopped", p.ok())),
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
            t.out(&format!("{} Downloaded to {}", p.ok(), p.green(path)));
        } else {
            t.out(&format!(
                "{} Downloaded to {} ({name})",
                p.ok(),
                p.green(path)
            ));
        }
        return;
    }
    if data.get("traceStopped").is_some() {
        t.out(&format!("{} Trace stopped", p.ok()));
        return;
    }
    if let Some(path) = s(data, "path") {
        match render.saved {
            Some(saved) => saved(t, data, path),
            None => t.out(&format!("{} Saved to {}", p.ok(), p.green(path))),
        }
        return;
    }
    if render_state_and_auth(t, data) {
        return;
    }
    t.out(&format!("{} Done", p.ok()));
}

fn render_devices(t: &mut Text<'_>, devices: &[Value]) {
    let p = t.p;
    if devices.is_empty() {
        t.out("No iOS devices available. Open Xcode to download simulator runtimes.");
        return;
    }
    let real = |d: &&Value| b(d, "isRealDevice").unwrap_or(false);
    let reals: Vec<&Value> = devices.iter().filter(real).collect();
    let sims: Vec<&Value> = devices.iter().filter(|d| !real(d)).collect();
    if !reals.is_empty() {
        t.out("Connected Devices:\n");
        for d in reals {
            t.out(&format!(
                "  {} {} ({})",
                p.green("●"),
                s(d, "name").unwrap_or("Unknown"),
                s(d, "runtime").unwrap_or("")
            ));
            t.out(&format!("    {}", p.dim(s(d, "udid").unwrap_or(""))));
        }
        t.out("");
    }
    if !sims.is_empty() {
        t.out("Simulators:\n");
        for d in sims {
            let state = if s(d, "state") == Some("Booted") {
                p.green("●")
            } else {
                p.dim("○")
            };
            t.out(&format!(
                "  {state} {} ({})",
                s(d, "name").unwrap_or("Unknown"),
                s(d, "runtime").unwrap_or("")
            ));
            t.out(&format!("    {}", p.dim(s(d, "udid").unwrap_or(""))));
        }
    }
}

fn render_elements(t: &mut Text<'_>, elements: &[Value]) {
    for (idx, el) in elements.iter().enumerate() {
        t.out(&format!(
            "[{idx}] {} \"{}\"",
            s(el, "tag").unwrap_or("?"),
            s(el, "text").unwrap_or("")
        ));
        if let Some(bx) = el.get("box") {
            t.out(&format!(
                "    box: {}x{} at ({}, {})",
                i(bx, "width").unwrap_or(0),
                i(bx, "height").unwrap_or(0),
                i(bx, "x").unwrap_or(0),
                i(bx, "y").unwrap_or(0)
            ));
        }
        if let Some(st) = el.get("styles") {
            let g = |k: &str| s(st, k).unwrap_or("");
            t.out(&format!(
                "    font: {} {} {}",
                g("fontSize"),
                g("fontWeight"),
                g("fontFamily")
            ));
            t.out(&format!("    color: {}", g("color")));
            t.out(&format!("    background: {}", g("backgroundColor")));
            if g("borderRadius") != "0px" {
                t.out(&format!("    border-radius: {}", g("borderRadius")));
            }
        }
        t.out("");
    }
}

/// State-file and auth-vault outputs, confirmations. Returns whether something was printed.
fn render_state_and_auth(t: &mut Text<'_>, data: &Value) -> bool {
    let p = t.p;
    let ok = p.ok();
    if let Some(files) = data.get("files").and_then(Value::as_array) {
        if let Some(dir) = s(data, "directory") {
            t.out(&p.bold(&format!("Saved states in {dir}")));
        }
        if files.is_empty() {
            t.out(&p.dim("  No state files found"));
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
            t.out(&format!(
                "  {} {}",
                s(f, "filename").unwrap_or(""),
                p.dim(&format!("({size_str}, {date}){enc}"))
            ));
        }
        return true;
    }
    if b(data, "renamed") == Some(true) {
        t.out(&format!(
            "{ok} Renamed {} -> {}",
            s(data, "oldName").unwrap_or(""),
            s(data, "newName").unwrap_or("")
        ));
        return true;
    }
    if let Some(n) = i(data, "cleared") {
        t.out(&format!("{ok} Cleared {n} state file(s)"));
        return true;
    }
    if let Some(summary) = data.get("summary") {
        let enc = if b(data, "encrypted").unwrap_or(false) {
            " (encrypted)"
        } else {
            ""
        };
        t.out(&format!("State file summary{enc}:"));
        t.out(&format!(
            "  Cookies: {}",
            i(summary, "cookies").unwrap_or(0)
        ));
        t.out(&format!(
            "  Origins with localStorage: {}",
            i(summary, "origins").unwrap_or(0)
        ));
        return true;
    }
    if let Some(n) = i(data, "cleaned") {
        t.out(&format!("{ok} Cleaned {n} old state file(s)"));
        return true;
    }
    if let Some(note) = s(data, "note") {
        t.out(note);
        return true;
    }
    if let Some(profiles) = data.get("profiles").and_then(Value::as_array) {
        if profiles.is_empty() {
            t.out(&p.dim("No auth profiles saved"));
        } else {
            t.out(&p.bold("Auth profiles:"));
            for pr in profiles {
                t.out(&format!(
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
        t.out(&format!("Name: {}", s(profile, "name").unwrap_or("")));
        t.out(&format!("URL: {}", s(profile, "url").unwrap_or("")));
        t.out(&format!(
            "Username: {}",
            s(profile, "username").unwrap_or("")
        ));
        t.out(&format!(
            "Created: {}",
            s(profile, "createdAt").unwrap_or("")
        ));
        if let Some(last) = s(profile, "lastLoginAt") {
            t.out(&format!("Last login: {last}"));
        }
        return true;
    }
    let name = s(data, "name").unwrap_or("");
    if b(data, "saved") == Some(true) {
        t.out(&format!("{ok} Auth profile '{name}' saved"));
        return true;
    }
    if b(data, "updated") == Some(true) {
        t.out(&format!("{ok} Auth profile '{name}' updated"));
        return true;
    }
    if b(data, "loggedIn") == Some(true) {
        match s(data, "title") {
            Some(title) => t.out(&format!("{ok} Logged in as '{name}' - {title}")),
            None => t.out(&format!("{ok} Logged in as '{name}'")),
        }
        return true;
    }
    if b(data, "deleted") == Some(true) && data.get("name").is_some() {
        t.out(&format!("{ok} Auth profile '{name}' deleted"));
        return true;
    }
    if b(data, "confirmation_required") == Some(true) {
        let cid = s(data, "confirmation_id").unwrap_or("");
        t.out("Confirmation required:");
        let action = s(data, "action").unwrap_or("");
        let description = s(data, "description")
            .filter(|d| !d.is_empty())
            .unwrap_or(action);
        match s(data, "category").filter(|c| !c.is_empty()) {
            Some(category) => t.out(&format!("  {category}: {description}")),
            None => t.out(&format!("  {description}")),
        }
        t.out(&format!("  Run: agent-browser confirm {cid}"));
        t.out(&format!("  Or:  agent-browser deny {cid}"));
        return true;
    }
    if b(data, "confirmed") == Some(true) {
        t.out(&format!("{ok} Action confirmed"));
        return true;
    }
    if b(data, "denied") == Some(true) {
        t.out(&format!("{ok} Action denied"));
        return true;
    }
    false
}
