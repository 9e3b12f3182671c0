//! The per-command grammar: cleaned argv (global flags already removed) → one daemon request
//! (without `id`, `plugins`, restore or pin fields; those are attached by the caller).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use super::error::ParseError;
use crate::flags::Flags;
use crate::host::Host;

/// Inputs the grammar may consult besides argv.
pub(crate) struct Ctx<'a> {
    pub flags: &'a Flags,
    pub host: &'a dyn Host,
    pub warnings: &'a mut Vec<String>,
}

/// System CA bundles probed (in order) for `read`'s implicit `tls.caCert`.
pub const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// A request under construction.
struct Req(Map<String, Value>);

impl Req {
    fn new(action: &str) -> Self {
        let mut map = Map::new();
        map.insert("action".to_string(), Value::from(action));
        Req(map)
    }

    fn set(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.to_string(), value.into());
        self
    }

    fn put(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.to_string(), value.into());
    }

    fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    fn done(self) -> Value {
        Value::Object(self.0)
    }
}

fn ok(req: Req) -> Result<Value, ParseError> {
    Ok(req.done())
}

/// Prepend `https://` unless the URL starts (case-insensitively) with a known scheme.
pub fn normalize_url(url: &str) -> String {
    let lower = url.to_lowercase();
    const SCHEMES: &[&str] = &[
        "http://",
        "https://",
        "about:",
        "data:",
        "file:",
        "chrome-extension://",
        "chrome://",
    ];
    if SCHEMES.iter().any(|s| lower.starts_with(s)) {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

fn record_url(url: &str) -> String {
    if url.starts_with("http") || url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

/// Split a string into words the way a POSIX shell would for simple quoting: double and single
/// quotes group, backslash escapes the next character outside single quotes.
pub fn shell_words_split(s: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut in_double = false;
    let mut in_single = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !in_single => {
                if let Some(next) = chars.next() {
                    current.push(next);
                    in_word = true;
                }
            }
            '"' if !in_single => {
                in_double = !in_double;
                in_word = true;
            }
            '\'' if !in_double => {
                in_single = !in_single;
                in_word = true;
            }
            c if c.is_whitespace() && !in_double && !in_single => {
                if in_word {
                    args.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            _ => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        args.push(current);
    }
    args
}

/// Parse one command line (global flags removed) into a request.
pub(crate) fn parse_command(args: &[String], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    let mut request = parse_inner(args, ctx)?;
    // Stamp AGENT_BROWSER_DEFAULT_TIMEOUT into every wait-family request without its own timeout.
    if let Some(obj) = request.as_object_mut() {
        let is_wait = obj
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("wait"));
        if is_wait
            && !obj.contains_key("timeout")
            && let Some(t) = ctx.flags.default_timeout
        {
            obj.insert("timeout".to_string(), json!(t));
        }
    }
    Ok(request)
}

fn parse_inner(args: &[String], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    let Some(cmd) = args.first().map(String::as_str) else {
        return Err(ParseError::missing("", "<command> [args...]"));
    };
    let rest: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let flags = ctx.flags;

    if flags.cli_annotate && cmd != "screenshot" {
        ctx.warnings
            .push("--annotate only applies to the screenshot command".to_string());
    }

    match cmd {
        "open" | "goto" | "navigate" => parse_open(cmd, &rest, flags),
        "back" | "forward" | "reload" => ok(Req::new(cmd)),
        "click" => {
            let new_tab = rest.contains(&"--new-tab");
            let human = rest.contains(&"--human");
            let sel = rest
                .iter()
                .find(|a| **a != "--new-tab" && **a != "--human")
                .ok_or_else(|| {
                    ParseError::missing("click", "click <selector> [--new-tab] [--human]")
                })?;
            let mut req = Req::new("click").set("selector", *sel);
            if new_tab {
                req.put("newTab", true);
            }
            if human {
                req.put("human", true);
            }
            ok(req)
        }
        "dblclick" | "hover" | "focus" | "check" | "uncheck" | "highlight" | "tap" => {
            let usage = match cmd {
                "dblclick" => "dblclick <selector>",
                "hover" => "hover <selector>",
                "focus" => "focus <selector>",
                "check" => "check <selector>",
                "uncheck" => "uncheck <selector>",
                "highlight" => "highlight <selector>",
                _ => "tap <selector>",
            };
            let sel = rest
                .first()
                .ok_or_else(|| ParseError::missing(cmd, usage))?;
            ok(Req::new(cmd).set("selector", *sel))
        }
        "scrollintoview" | "scrollinto" => {
            let sel = rest.first().ok_or_else(|| {
                ParseError::missing("scrollintoview", "scrollintoview <selector>")
            })?;
            ok(Req::new("scrollintoview").set("selector", *sel))
        }
        "fill" => {
            let sel = rest
                .first()
                .ok_or_else(|| ParseError::missing("fill", "fill <selector> <text>"))?;
            ok(Req::new("fill")
                .set("selector", *sel)
                .set("value", rest[1..].join(" ")))
        }
        "type" => parse_type(&rest),
        "select" => {
            const USAGE: &str = "select <selector> <value...>";
            let sel = rest
                .first()
                .ok_or_else(|| ParseError::missing("select", USAGE))?;
            let values = &rest[1..];
            match values {
                [] => Err(ParseError::missing("select", USAGE)),
                [one] => ok(Req::new("select").set("selector", *sel).set("values", *one)),
                many => ok(Req::new("select")
                    .set("selector", *sel)
                    .set("values", many.to_vec())),
            }
        }
        "drag" => {
            const USAGE: &str = "drag <source> <target>";
            let src = rest
                .first()
                .ok_or_else(|| ParseError::missing("drag", USAGE))?;
            let tgt = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("drag", USAGE))?;
            ok(Req::new("drag").set("source", *src).set("target", *tgt))
        }
        "upload" => {
            let sel = rest
                .first()
                .ok_or_else(|| ParseError::missing("upload", "upload <selector> <files...>"))?;
            ok(Req::new("upload")
                .set("selector", *sel)
                .set("files", rest[1..].to_vec()))
        }
        "download" => {
            const USAGE: &str = "download <selector> <path>";
            let sel = rest
                .first()
                .ok_or_else(|| ParseError::missing("download", USAGE))?;
            let path = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("download", USAGE))?;
            ok(Req::new("download")
                .set("selector", *sel)
                .set("path", *path))
        }
        "press" | "key" => {
            let key = rest
                .first()
                .ok_or_else(|| ParseError::missing("press", "press <key>"))?;
            ok(Req::new("press").set("key", *key))
        }
        "keydown" | "keyup" => {
            let usage = if cmd == "keydown" {
                "keydown <key>"
            } else {
                "keyup <key>"
            };
            let key = rest
                .first()
                .ok_or_else(|| ParseError::missing(cmd, usage))?;
            ok(Req::new(cmd).set("key", *key))
        }
        "keyboard" => parse_keyboard(&rest),
        "scroll" => parse_scroll(&rest),
        "wait" => parse_wait(&rest),
        "screenshot" => parse_screenshot(&rest, ctx),
        "pdf" => {
            let path = rest
                .first()
                .ok_or_else(|| ParseError::missing("pdf", "pdf <path>"))?;
            ok(Req::new("pdf").set("path", *path))
        }
        "snapshot" => parse_snapshot(&rest),
        "eval" => parse_eval(&rest, ctx),
        "close" | "quit" | "exit" => ok(Req::new("close")),
        "inspect" => ok(Req::new("inspect")),
        "auth" => parse_auth(&rest, ctx),
        "confirm" | "deny" => {
            let usage = if cmd == "confirm" {
                "agent-browser confirm <confirmation-id>"
            } else {
                "agent-browser deny <confirmation-id>"
            };
            let cid = rest
                .first()
                .ok_or_else(|| ParseError::missing(cmd, usage))?;
            ok(Req::new(cmd).set("confirmationId", *cid))
        }
        "connect" => parse_connect(&rest),
        "stream" => parse_stream(&rest),
        "get" => parse_get(&rest),
        "is" => parse_is(&rest),
        "find" => parse_find(&rest),
        "mouse" => parse_mouse(&rest),
        "set" => parse_set(&rest),
        "network" => parse_network(&rest),
        "storage" => parse_storage(&rest),
        "cookies" => parse_cookies(&rest, ctx),
        "tab" => parse_tab(&rest),
        "window" => match rest.first().copied() {
            Some("new") => ok(Req::new("window_new")),
            Some(sub) => Err(ParseError::unknown_sub(sub, &["new"])),
            None => Err(ParseError::missing("window", "window <new>")),
        },
        "frame" => match rest.first().copied() {
            Some("main") => ok(Req::new("mainframe")),
            Some(sel) => ok(Req::new("frame").set("selector", sel)),
            None => Err(ParseError::missing("frame", "frame <selector|main>")),
        },
        "dialog" => parse_dialog(&rest),
        "trace" => match rest.first().copied() {
            Some("start") => ok(Req::new("trace_start")),
            Some("stop") => {
                let mut req = Req::new("trace_stop");
                if let Some(path) = rest.get(1) {
                    req.put("path", *path);
                }
                ok(req)
            }
            Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
            None => Err(ParseError::missing("trace", "trace <start|stop> [path]")),
        },
        "profiler" => parse_profiler(&rest),
        "record" => parse_record(&rest),
        "console" | "errors" => ok(Req::new(cmd).set("clear", rest.contains(&"--clear"))),
        "clipboard" => parse_clipboard(&rest),
        "state" => parse_state(&rest),
        "swipe" => parse_swipe(&rest),
        "device" => match rest.first().copied() {
            Some("list") | None => ok(Req::new("device_list")),
            Some(sub) => Err(ParseError::unknown_sub(sub, &["list"])),
        },
        "diff" => parse_diff(&rest),
        "batch" => {
            let bail = rest.contains(&"--bail");
            let commands: Vec<&str> = rest.iter().copied().filter(|a| *a != "--bail").collect();
            let mut req = Req::new("batch").set("bail", bail);
            if !commands.is_empty() {
                req.put("commands", commands);
            }
            ok(req)
        }
        "react" => parse_react(&rest),
        "vitals" | "web-vitals" => {
            let mut req = Req::new("vitals");
            if let Some(url) = rest.iter().find(|a| !a.starts_with("--")) {
                req.put("url", *url);
            }
            ok(req)
        }
        "a11y" => parse_a11y(&rest),
        "pushstate" => {
            let url = rest
                .first()
                .ok_or_else(|| ParseError::missing("pushstate", "pushstate <url>"))?;
            ok(Req::new("pushstate").set("url", *url))
        }
        "removeinitscript" => {
            let identifier = rest.first().ok_or_else(|| {
                ParseError::missing("removeinitscript", "removeinitscript <identifier>")
            })?;
            ok(Req::new("removeinitscript").set("identifier", *identifier))
        }
        "read" => parse_read(&rest, ctx),
        _ => Err(ParseError::UnknownCommand {
            command: cmd.to_string(),
        }),
    }
}

fn parse_open(cmd: &str, rest: &[&str], flags: &Flags) -> Result<Value, ParseError> {
    let url = match rest.iter().find(|a| !a.starts_with("--")) {
        Some(u) => *u,
        None if cmd == "open" => return ok(Req::new("launch").set("headless", !flags.headed)),
        None => return Err(ParseError::missing(cmd, "goto <url>")),
    };
    let mut req = Req::new("navigate").set("url", normalize_url(url));
    if flags.provider.is_some() {
        req.put("waitUntil", "none");
    }
    if let Some(raw) = &flags.headers {
        let headers: Value = serde_json::from_str(raw).map_err(|_| {
            ParseError::invalid(
                format!("Invalid JSON for --headers: {raw}"),
                "open <url> --headers '{\"Key\": \"Value\"}'",
            )
        })?;
        req.put("headers", headers);
    }
    if flags.provider.as_deref() == Some("ios")
        && let Some(device) = &flags.device
    {
        req.put("iosDevice", device.as_str());
    }
    ok(req)
}

fn parse_type(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "type <selector> <text> [--clear] [--delay <ms>]";
    let mut clear = false;
    let mut delay: Option<u64> = None;
    let mut words: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--clear" => clear = true,
            "--delay" => {
                let raw = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("type --delay", USAGE))?;
                let ms = raw
                    .parse::<u64>()
                    .map_err(|_| ParseError::invalid(format!("Invalid delay: {raw}"), USAGE))?;
                delay = Some(ms);
                i += 1;
            }
            word => words.push(word),
        }
        i += 1;
    }
    let sel = words
        .first()
        .ok_or_else(|| ParseError::missing("type", USAGE))?;
    let mut req = Req::new("type")
        .set("selector", *sel)
        .set("text", words[1..].join(" "));
    if clear {
        req.put("clear", true);
    }
    if let Some(ms) = delay {
        req.put("delay", ms);
    }
    ok(req)
}

fn parse_keyboard(rest: &[&str]) -> Result<Value, ParseError> {
    let sub = rest
        .first()
        .ok_or_else(|| ParseError::missing("keyboard", "keyboard <type|inserttext> <text>"))?;
    let text = rest[1..].join(" ");
    match *sub {
        "type" => {
            if text.is_empty() {
                return Err(ParseError::missing("keyboard type", "keyboard type <text>"));
            }
            ok(Req::new("keyboard")
                .set("subaction", "type")
                .set("text", text))
        }
        "inserttext" | "insertText" => {
            if text.is_empty() {
                return Err(ParseError::missing(
                    "keyboard inserttext",
                    "keyboard inserttext <text>",
                ));
            }
            ok(Req::new("keyboard")
                .set("subaction", "insertText")
                .set("text", text))
        }
        other => Err(ParseError::unknown_sub(other, &["type", "inserttext"])),
    }
}

fn parse_scroll(rest: &[&str]) -> Result<Value, ParseError> {
    let mut req = Req::new("scroll");
    let mut positional = 0;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "-s" | "--selector" => {
                let sel = rest.get(i + 1).ok_or_else(|| {
                    ParseError::missing(
                        "scroll --selector",
                        "scroll [direction] [amount] [--selector <sel>]",
                    )
                })?;
                req.put("selector", *sel);
                i += 1;
            }
            arg if arg.starts_with('-') => {}
            arg => {
                match positional {
                    0 => req.put("direction", arg),
                    1 => {
                        if let Ok(n) = arg.parse::<i64>() {
                            req.put("amount", n);
                        }
                    }
                    _ => {}
                }
                positional += 1;
            }
        }
        i += 1;
    }
    if !req.has("direction") {
        req.put("direction", "down");
    }
    if !req.has("amount") {
        req.put("amount", 300);
    }
    ok(req)
}

fn parse_wait(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "wait <selector|ms|--url|--load|--fn|--text|--download> [--timeout <ms>]";
    // `--timeout` and `--state` apply to every variant; take them out first.
    let mut timeout: Option<u64> = None;
    let mut state: Option<&str> = None;
    let mut args: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--timeout" => {
                let raw = rest.get(i + 1).ok_or_else(|| {
                    ParseError::missing("wait --timeout", "wait ... --timeout <ms>")
                })?;
                let ms = raw.parse::<u64>().map_err(|_| {
                    ParseError::invalid(
                        format!("Invalid timeout: {raw}"),
                        "wait ... --timeout <ms>",
                    )
                })?;
                timeout = Some(ms);
                i += 1;
            }
            "--state" => {
                let s = rest.get(i + 1).ok_or_else(|| {
                    ParseError::missing(
                        "wait --state",
                        "wait <selector> --state <visible|hidden|attached|detached>",
                    )
                })?;
                state = Some(s);
                i += 1;
            }
            other => args.push(other),
        }
        i += 1;
    }
    let find = |names: &[&str]| args.iter().position(|a| names.contains(a));
    let value_after = |idx: usize, context: &str, usage: &'static str| {
        args.get(idx + 1)
            .copied()
            .ok_or_else(|| ParseError::missing(context, usage))
    };

    let mut req = if let Some(idx) = find(&["--url", "-u"]) {
        Req::new("waitforurl").set(
            "url",
            value_after(idx, "wait --url", "wait --url <pattern>")?,
        )
    } else if let Some(idx) = find(&["--load", "-l"]) {
        Req::new("waitforloadstate").set(
            "state",
            value_after(idx, "wait --load", "wait --load <state>")?,
        )
    } else if let Some(idx) = find(&["--fn", "-f"]) {
        Req::new("waitforfunction").set(
            "expression",
            value_after(idx, "wait --fn", "wait --fn <expression>")?,
        )
    } else if let Some(idx) = find(&["--text", "-t"]) {
        Req::new("wait").set(
            "text",
            value_after(idx, "wait --text", "wait --text <text>")?,
        )
    } else if let Some(idx) = find(&["--download", "-d"]) {
        let mut req = Req::new("waitfordownload");
        if let Some(path) = args.get(idx + 1).filter(|p| !p.starts_with("--")) {
            req.put("path", *path);
        }
        req
    } else {
        let arg = args
            .first()
            .ok_or_else(|| ParseError::missing("wait", USAGE))?;
        match arg.parse::<u64>() {
            Ok(ms) => Req::new("wait").set("timeout", ms),
            Err(_) => {
                let mut req = Req::new("wait").set("selector", *arg);
                if let Some(s) = state {
                    req.put("state", s);
                }
                req
            }
        }
    };
    if let Some(ms) = timeout
        && !req.has("timeout")
    {
        req.put("timeout", ms);
    }
    ok(req)
}

fn parse_screenshot(rest: &[&str], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    const USAGE: &str = "screenshot [selector] [path] [--full] [--if-changed] [--threshold <0-1>]";
    let flags = ctx.flags;
    let mut full_page = false;
    let mut if_changed = false;
    let mut threshold: Option<f64> = None;
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--full" | "-f" => full_page = true,
            "--if-changed" => if_changed = true,
            "--threshold" => {
                let raw = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("screenshot --threshold", USAGE))?;
                match raw.parse::<f64>() {
                    Ok(t) if (0.0..=1.0).contains(&t) => threshold = Some(t),
                    _ => {
                        return Err(ParseError::invalid(
                            format!("Threshold must be between 0 and 1, got {raw}"),
                            USAGE,
                        ));
                    }
                }
                i += 1;
            }
            other => positional.push(other),
        }
        i += 1;
    }
    let (selector, path) = match positional.as_slice() {
        [first, second, ..] => (Some(*first), Some(*second)),
        [first] => {
            let relative = first.starts_with("./") || first.starts_with("../");
            let looks_selector = !relative
                && (first.starts_with('.') || first.starts_with('#') || first.starts_with('@'));
            let has_ext = [".png", ".jpg", ".jpeg", ".webp"]
                .iter()
                .any(|ext| first.ends_with(ext));
            let looks_path = relative || first.contains('/') || has_ext;
            if looks_selector || !looks_path {
                (Some(*first), None)
            } else {
                (None, Some(*first))
            }
        }
        [] => (None, None),
    };
    let mut req = Req::new("screenshot")
        .set("path", path.map_or(Value::Null, Value::from))
        .set("selector", selector.map_or(Value::Null, Value::from))
        .set("fullPage", full_page)
        .set("annotate", flags.annotate);
    if let Some(fmt) = &flags.screenshot_format {
        req.put("format", fmt.as_str());
    }
    if let Some(q) = flags.screenshot_quality {
        req.put("quality", q);
        if flags.screenshot_format.as_deref() != Some("jpeg") {
            ctx.warnings.push(
                "--screenshot-quality is ignored for PNG; use --screenshot-format jpeg".to_string(),
            );
        }
    }
    if let Some(dir) = &flags.screenshot_dir {
        req.put("screenshotDir", dir.as_str());
    }
    if if_changed {
        req.put("ifChanged", true);
    }
    if let Some(t) = threshold {
        req.put("threshold", t);
    }
    ok(req)
}

fn parse_snapshot(rest: &[&str]) -> Result<Value, ParseError> {
    let mut req = Req::new("snapshot");
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "-i" | "--interactive" => req.put("interactive", true),
            "-c" | "--compact" => req.put("compact", true),
            "-C" | "--cursor" => req.put("cursor", true),
            "-u" | "--urls" => req.put("urls", true),
            "--delta" => req.put("delta", true),
            "--full" => req.put("full", true),
            "-d" | "--depth" => {
                if let Some(n) = rest.get(i + 1).and_then(|d| d.parse::<i64>().ok()) {
                    req.put("maxDepth", n);
                    i += 1;
                }
            }
            "-s" | "--selector" => {
                if let Some(s) = rest.get(i + 1) {
                    req.put("selector", *s);
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    ok(req)
}

fn parse_eval(rest: &[&str], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    const B64_USAGE: &str = "eval -b <base64-encoded-script>";
    let script = match rest.first().copied() {
        Some("-b") | Some("--base64") => {
            let raw = rest[1..].join(" ");
            let bytes = STANDARD
                .decode(raw.trim())
                .map_err(|_| ParseError::invalid("Invalid base64 encoding", B64_USAGE))?;
            String::from_utf8(bytes)
                .map_err(|_| ParseError::invalid("Base64 decoded to invalid UTF-8", B64_USAGE))?
        }
        Some("--stdin") => {
            let input = ctx.host.read_stdin().map_err(|e| {
                ParseError::invalid(format!("Failed to read stdin: {e}"), "eval --stdin")
            })?;
            // Lines joined with `\n`, no trailing newline (upstream reads line by line).
            input.lines().collect::<Vec<_>>().join("\n")
        }
        _ => rest.join(" "),
    };
    ok(Req::new("evaluate").set("script", script))
}

fn parse_auth(rest: &[&str], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    const SAVE_USAGE: &str =
        "agent-browser auth save <name> --url <url> --username <user> --password <pass>";
    const SAVE_USAGE_FULL: &str = "agent-browser auth save <name> --url <url> --username <user> --password <pass> [--password-stdin]";
    match rest.first().copied() {
        Some("save") => {
            let name = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE))?;
            let mut url = None;
            let mut username = None;
            let mut password: Option<String> = None;
            let mut password_stdin = false;
            let mut selectors: Vec<(&str, &str)> = Vec::new();
            let mut j = 2;
            while j < rest.len() {
                match rest[j] {
                    "--url" => {
                        url = rest.get(j + 1).copied();
                        j += 1;
                    }
                    "--username" => {
                        username = rest.get(j + 1).copied();
                        j += 1;
                    }
                    "--password" => {
                        password = rest.get(j + 1).map(|p| p.to_string());
                        j += 1;
                    }
                    "--password-stdin" => password_stdin = true,
                    "--username-selector" | "--password-selector" | "--submit-selector" => {
                        let key = match rest[j] {
                            "--username-selector" => "usernameSelector",
                            "--password-selector" => "passwordSelector",
                            _ => "submitSelector",
                        };
                        if let Some(v) = rest.get(j + 1) {
                            selectors.push((key, v));
                        }
                        j += 1;
                    }
                    other if other.starts_with("--") => {
                        return Err(ParseError::invalid(
                            format!("unknown flag '{other}' for auth save"),
                            SAVE_USAGE,
                        ));
                    }
                    _ => {}
                }
                j += 1;
            }
            let url = url.ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE_FULL))?;
            let username =
                username.ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE_FULL))?;
            if !password_stdin && password.is_none() {
                return Err(ParseError::missing("auth save", SAVE_USAGE_FULL));
            }
            if password.is_some() {
                ctx.warnings.push("Passwords on the command line may be visible in process listings and shell history. Use --password-stdin instead.".to_string());
            }
            if password_stdin {
                let input = ctx.host.read_stdin().map_err(|_| {
                    ParseError::invalid(
                        "Failed to read password from stdin",
                        "auth save <name> --password-stdin",
                    )
                })?;
                let line = input.lines().next().unwrap_or("");
                if line.is_empty() {
                    return Err(ParseError::invalid(
                        "Password from stdin is empty",
                        "auth save <name> --password-stdin",
                    ));
                }
                password = Some(line.to_string());
            }
            let mut req = Req::new("auth_save")
                .set("name", *name)
                .set("url", url)
                .set("username", username);
            if let Some(p) = password {
                req.put("password", p);
            }
            for (key, value) in selectors {
                req.put(key, value);
            }
            ok(req)
        }
        Some("login") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth login", "agent-browser auth login <name>")
            })?;
            ok(Req::new("auth_login").set("name", *name))
        }
        Some("list") => ok(Req::new("auth_list")),
        Some("delete") | Some("remove") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth delete", "agent-browser auth delete <name>")
            })?;
            ok(Req::new("auth_delete").set("name", *name))
        }
        Some("show") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth show", "agent-browser auth show <name>")
            })?;
            ok(Req::new("auth_show").set("name", *name))
        }
        other => Err(ParseError::unknown_sub(
            other.unwrap_or("(none)"),
            &["save", "login", "list", "delete", "show"],
        )),
    }
}

fn parse_connect(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "connect <port|url>";
    let endpoint = rest
        .first()
        .ok_or_else(|| ParseError::missing("connect", USAGE))?;
    if ["ws://", "wss://", "http://", "https://"]
        .iter()
        .any(|p| endpoint.starts_with(p))
    {
        return ok(Req::new("launch").set("cdpUrl", *endpoint));
    }
    match endpoint.parse::<u32>() {
        Ok(0) => Err(ParseError::invalid(
            "Invalid port: port must be greater than 0",
            USAGE,
        )),
        Ok(p) if p > 65535 => Err(ParseError::invalid(
            format!("Invalid port: {p} is out of range (valid range: 1-65535)"),
            USAGE,
        )),
        Ok(p) => ok(Req::new("launch").set("cdpPort", p)),
        Err(_) => Err(ParseError::invalid(
            format!("Invalid value: '{endpoint}' is not a valid port number or URL"),
            USAGE,
        )),
    }
}

fn parse_stream(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "stream enable [--port <port>]";
    match rest.first().copied() {
        Some("enable") => {
            let mut req = Req::new("stream_enable");
            let mut i = 1;
            while i < rest.len() {
                match rest[i] {
                    "--port" => {
                        let raw = rest
                            .get(i + 1)
                            .ok_or_else(|| ParseError::missing("stream enable --port", USAGE))?;
                        let port = raw.parse::<u32>().map_err(|_| {
                            ParseError::invalid(
                                format!("Invalid port: '{raw}' is not a valid integer"),
                                USAGE,
                            )
                        })?;
                        if port > u32::from(u16::MAX) {
                            return Err(ParseError::invalid(
                                format!(
                                    "Invalid port: {port} is out of range (valid range: 0-65535)"
                                ),
                                USAGE,
                            ));
                        }
                        req.put("port", port);
                        i += 2;
                    }
                    other => {
                        return Err(ParseError::invalid(
                            format!("Unknown flag for stream enable: {other}"),
                            USAGE,
                        ));
                    }
                }
            }
            ok(req)
        }
        Some("disable") => ok(Req::new("stream_disable")),
        Some("status") => ok(Req::new("stream_status")),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["enable", "disable", "status"],
        )),
        None => Err(ParseError::missing(
            "stream",
            "stream <enable|disable|status>",
        )),
    }
}

fn parse_get(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "text", "html", "value", "attr", "url", "title", "count", "box", "styles", "cdp-url",
    ];
    let with_selector = |ctx: &str, usage: &'static str, action: &str| {
        let sel = rest.get(1).ok_or_else(|| ParseError::missing(ctx, usage))?;
        ok(Req::new(action).set("selector", *sel))
    };
    match rest.first().copied() {
        Some("text") => with_selector("get text", "get text <selector>", "gettext"),
        Some("html") => with_selector("get html", "get html <selector>", "innerhtml"),
        Some("value") => with_selector("get value", "get value <selector>", "inputvalue"),
        Some("attr") => {
            const USAGE: &str = "get attr <selector> <attribute>";
            let sel = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("get attr", USAGE))?;
            let attr = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("get attr", USAGE))?;
            ok(Req::new("getattribute")
                .set("selector", *sel)
                .set("attribute", *attr))
        }
        Some("url") => ok(Req::new("url")),
        Some("cdp-url") => ok(Req::new("cdp_url")),
        Some("title") => ok(Req::new("title")),
        Some("count") => with_selector("get count", "get count <selector>", "count"),
        Some("box") => with_selector("get box", "get box <selector>", "boundingbox"),
        Some("styles") => with_selector("get styles", "get styles <selector>", "styles"),
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "get",
            "get <text|html|value|attr|url|title|count|box|styles|cdp-url> [args...]",
        )),
    }
}

fn parse_is(rest: &[&str]) -> Result<Value, ParseError> {
    let (action, context, usage) = match rest.first().copied() {
        Some("visible") => ("isvisible", "is visible", "is visible <selector>"),
        Some("enabled") => ("isenabled", "is enabled", "is enabled <selector>"),
        Some("checked") => ("ischecked", "is checked", "is checked <selector>"),
        Some(sub) => {
            return Err(ParseError::unknown_sub(
                sub,
                &["visible", "enabled", "checked"],
            ));
        }
        None => {
            return Err(ParseError::missing(
                "is",
                "is <visible|enabled|checked> <selector>",
            ));
        }
    };
    let sel = rest
        .get(1)
        .ok_or_else(|| ParseError::missing(context, usage))?;
    ok(Req::new(action).set("selector", *sel))
}

const FIND_ACTIONS: &[&str] = &["click", "fill", "check", "hover", "text"];

fn parse_find(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "role",
        "text",
        "label",
        "placeholder",
        "alt",
        "title",
        "testid",
        "first",
        "last",
        "nth",
    ];
    let locator = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("find", "find <locator> <value> [action] [text]"))?;
    let usage: &'static str = match locator {
        "role" => "find role <role> [action] [--name <name>] [--exact]",
        "text" => "find text <text> [action] [--exact]",
        "label" => "find label <label> [action] [text] [--exact]",
        "placeholder" => "find placeholder <text> [action] [text] [--exact]",
        "alt" => "find alt <text> [action] [--exact]",
        "title" => "find title <text> [action] [--exact]",
        "testid" => "find testid <id> [action] [text]",
        "first" => "find first <selector> [action] [text]",
        "last" => "find last <selector> [action] [text]",
        "nth" => "find nth <index> <selector> [action] [text]",
        other => return Err(ParseError::unknown_sub(other, VALID)),
    };
    let context = format!("find {locator}");

    // `find nth <n> <sel> …` has one more leading argument than the other locators.
    let (index, value, tail_start): (Option<i64>, &str, usize) = if locator == "nth" {
        let raw = rest
            .get(1)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        let n = raw
            .parse::<i64>()
            .map_err(|_| ParseError::missing(&context, usage))?;
        let sel = rest
            .get(2)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        (Some(n), sel, 3)
    } else {
        let value = rest
            .get(1)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        (None, value, 2)
    };

    let mut subaction = "click";
    let mut name: Option<&str> = None;
    let mut exact = false;
    let mut fill_parts: Vec<&str> = Vec::new();
    let mut i = tail_start;
    if let Some(first) = rest.get(i)
        && !first.starts_with("--")
    {
        subaction = first;
        i += 1;
    }
    while i < rest.len() {
        match rest[i] {
            "--exact" => exact = true,
            "--name" => {
                let n = rest.get(i + 1).ok_or_else(|| {
                    ParseError::missing(
                        &context,
                        "find role <role> [action] [--name <name>] [--exact]",
                    )
                })?;
                name = Some(n);
                i += 1;
            }
            token => fill_parts.push(token),
        }
        i += 1;
    }
    if !FIND_ACTIONS.contains(&subaction) {
        return Err(ParseError::unknown_sub(subaction, FIND_ACTIONS));
    }
    let fill_value = (!fill_parts.is_empty()).then(|| fill_parts.join(" "));

    let mut req = match locator {
        "role" => Req::new("getbyrole")
            .set("role", value)
            .set("name", name.map_or(Value::Null, Value::from))
            .set("exact", exact),
        "text" => Req::new("getbytext").set("text", value).set("exact", exact),
        "label" => Req::new("getbylabel")
            .set("label", value)
            .set("exact", exact),
        "placeholder" => Req::new("getbyplaceholder")
            .set("placeholder", value)
            .set("exact", exact),
        "alt" => Req::new("getbyalttext")
            .set("text", value)
            .set("exact", exact),
        "title" => Req::new("getbytitle")
            .set("text", value)
            .set("exact", exact),
        "testid" => Req::new("getbytestid").set("testId", value),
        "first" => Req::new("nth").set("selector", value).set("index", 0),
        "last" => Req::new("nth").set("selector", value).set("index", -1),
        _ => Req::new("nth")
            .set("selector", value)
            .set("index", index.unwrap_or(0)),
    };
    req.put("subaction", subaction);
    // text/alt/title locators take no fill value (upstream drops it).
    if let Some(v) = fill_value
        && !matches!(locator, "text" | "alt" | "title")
    {
        req.put("value", v);
    }
    ok(req)
}

fn parse_mouse(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some("move") => {
            const USAGE: &str = "mouse move <x> <y>";
            let parse = |idx: usize| {
                rest.get(idx)
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| ParseError::missing("mouse move", USAGE))
            };
            let x = parse(1)?;
            let y = parse(2)?;
            ok(Req::new("mousemove").set("x", x).set("y", y))
        }
        Some("down") => ok(Req::new("mousedown").set("button", *rest.get(1).unwrap_or(&"left"))),
        Some("up") => ok(Req::new("mouseup").set("button", *rest.get(1).unwrap_or(&"left"))),
        Some("wheel") => {
            let dy = rest
                .get(1)
                .and_then(|s| s.parse::<i64>().ok())
                .unwrap_or(100);
            let dx = rest.get(2).and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
            ok(Req::new("wheel").set("deltaX", dx).set("deltaY", dy))
        }
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["move", "down", "up", "wheel"],
        )),
        None => Err(ParseError::missing(
            "mouse",
            "mouse <move|down|up|wheel> [args...]",
        )),
    }
}

fn parse_set(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "viewport",
        "device",
        "geo",
        "geolocation",
        "offline",
        "headers",
        "credentials",
        "auth",
        "media",
    ];
    match rest.first().copied() {
        Some("viewport") => {
            const USAGE: &str = "set viewport <width> <height> [scale]";
            let int = |idx: usize| {
                rest.get(idx)
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| ParseError::missing("set viewport", USAGE))
            };
            let mut req = Req::new("viewport")
                .set("width", int(1)?)
                .set("height", int(2)?);
            if let Some(raw) = rest.get(3) {
                let scale = raw
                    .parse::<f64>()
                    .map_err(|_| ParseError::missing("set viewport", USAGE))?;
                req.put("deviceScaleFactor", scale);
            }
            ok(req)
        }
        Some("device") => {
            let dev = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set device", "set device <name>"))?;
            ok(Req::new("device").set("device", *dev))
        }
        Some("geo") | Some("geolocation") => {
            const USAGE: &str = "set geo <latitude> <longitude>";
            let float = |idx: usize| {
                rest.get(idx)
                    .and_then(|s| s.parse::<f64>().ok())
                    .ok_or_else(|| ParseError::missing("set geo", USAGE))
            };
            ok(Req::new("geolocation")
                .set("latitude", float(1)?)
                .set("longitude", float(2)?))
        }
        Some("offline") => {
            let off = rest.get(1).is_none_or(|s| *s != "off" && *s != "false");
            ok(Req::new("offline").set("offline", off))
        }
        Some("headers") => {
            let raw = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set headers", "set headers <json>"))?;
            let headers: Value = serde_json::from_str(raw).map_err(|_| {
                ParseError::missing(
                    "set headers",
                    "set headers <json> (must be valid JSON object)",
                )
            })?;
            ok(Req::new("headers").set("headers", headers))
        }
        Some("credentials") | Some("auth") => {
            const USAGE: &str = "set credentials <username> <password>";
            let user = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set credentials", USAGE))?;
            let pass = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("set credentials", USAGE))?;
            ok(Req::new("credentials")
                .set("username", *user)
                .set("password", *pass))
        }
        Some("media") => {
            let color = if rest.contains(&"dark") {
                "dark"
            } else if rest.contains(&"light") {
                "light"
            } else {
                "no-preference"
            };
            let reduced = if rest.contains(&"reduced-motion") {
                "reduce"
            } else {
                "no-preference"
            };
            ok(Req::new("emulatemedia")
                .set("colorScheme", color)
                .set("reducedMotion", reduced))
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "set",
            "set <viewport|device|geo|offline|headers|credentials|media> [args...]",
        )),
    }
}

fn flag_value<'a>(rest: &[&'a str], names: &[&str]) -> Option<&'a str> {
    rest.iter()
        .position(|s| names.contains(s))
        .and_then(|i| rest.get(i + 1).copied())
}

fn parse_network(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &["route", "unroute", "requests", "request", "har"];
    match rest.first().copied() {
        Some("route") => {
            let url = rest.get(1).ok_or_else(|| {
                ParseError::missing(
                    "network route",
                    "network route <url> [--abort|--body <json>] [--resource-type <csv>]",
                )
            })?;
            let mut req = Req::new("route")
                .set("url", *url)
                .set("abort", rest.contains(&"--abort"));
            if let Some(body) = flag_value(rest, &["--body"]) {
                req.put("response", json!({ "body": body }));
            }
            if let Some(rt) = flag_value(rest, &["--resource-type", "--resource-types"]) {
                req.put("resourceType", rt);
            }
            if let Some(origin) = flag_value(rest, &["--allow-origin"]) {
                req.put("allowOrigin", origin);
            }
            ok(req)
        }
        Some("unroute") => {
            let mut req = Req::new("unroute");
            if let Some(url) = rest.get(1) {
                req.put("url", *url);
            }
            ok(req)
        }
        Some("requests") => {
            let mut req = Req::new("requests").set("clear", rest.contains(&"--clear"));
            for (flag, key) in [
                ("--filter", "filter"),
                ("--type", "type"),
                ("--method", "method"),
                ("--status", "status"),
            ] {
                if let Some(v) = flag_value(rest, &[flag]) {
                    req.put(key, v);
                }
            }
            ok(req)
        }
        Some("request") => {
            let id = rest.get(1).ok_or_else(|| {
                ParseError::missing("network request", "network request <requestId>")
            })?;
            ok(Req::new("request_detail").set("requestId", *id))
        }
        Some("har") => match rest.get(1).copied() {
            Some("start") => {
                let mut req = Req::new("har_start");
                if let Some(content) = flag_value(rest, &["--content"]) {
                    req.put("content", content);
                }
                ok(req)
            }
            Some("stop") => {
                let mut req = Req::new("har_stop");
                if let Some(path) = rest.get(2) {
                    req.put("path", *path);
                }
                ok(req)
            }
            Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
            None => Err(ParseError::missing(
                "network har",
                "network har <start|stop> [path]",
            )),
        },
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "network",
            "network <route|unroute|requests|request|har> [args...]",
        )),
    }
}

fn parse_storage(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "storage <local|session> set <key> <value>";
    let kind = match rest.first().copied() {
        Some(k @ ("local" | "session")) => k,
        Some(sub) => return Err(ParseError::unknown_sub(sub, &["local", "session"])),
        None => {
            return Err(ParseError::missing(
                "storage",
                "storage <local|session> [get|set|clear] [key] [value]",
            ));
        }
    };
    let (op, key, value) = match rest.get(1).copied() {
        Some(op @ ("get" | "set" | "clear")) => (op, rest.get(2), rest.get(3)),
        Some(_) => ("get", rest.get(1), rest.get(2)),
        None => ("get", None, None),
    };
    match op {
        "set" => {
            let context = format!("storage {kind} set");
            let k = key.ok_or_else(|| ParseError::missing(&context, USAGE))?;
            let v = value.ok_or_else(|| ParseError::missing(&context, USAGE))?;
            ok(Req::new("storage_set")
                .set("type", kind)
                .set("key", *k)
                .set("value", *v))
        }
        "clear" => ok(Req::new("storage_clear").set("type", kind)),
        _ => {
            let mut req = Req::new("storage_get").set("type", kind);
            if let Some(k) = key {
                req.put("key", *k);
            }
            ok(req)
        }
    }
}

fn parse_cookies(rest: &[&str], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    const SET_USAGE: &str = "cookies set <name> <value> [--url <url>] [--domain <domain>] [--path <path>] [--http-only] [--secure] [--same-site <Strict|Lax|None>] [--expires <timestamp>]\n  or:  cookies set --curl <file> [--domain <domain>] [--url <url>]";
    match rest.first().copied().unwrap_or("get") {
        "set" => {
            if let Some(path) =
                flag_value(rest, &["--curl"]).or_else(|| rest.contains(&"--curl").then_some(""))
            {
                if path.is_empty() {
                    return Err(ParseError::missing(
                        "cookies set --curl",
                        "cookies set --curl <file> [--domain <domain>] [--url <url>]",
                    ));
                }
                let raw = ctx
                    .host
                    .read_to_string(std::path::Path::new(path))
                    .map_err(|e| {
                        ParseError::invalid(
                            format!("cookies --curl: cannot read '{path}': {e}"),
                            "cookies set --curl <file>",
                        )
                    })?;
                let mut cookies = parse_cookie_file(&raw).map_err(|e| {
                    ParseError::invalid(format!("cookies --curl: {e}"), "cookies set --curl <file>")
                })?;
                let domain = flag_value(rest, &["--domain"]);
                let url = flag_value(rest, &["--url"]);
                for cookie in &mut cookies {
                    if let Some(d) = domain {
                        cookie["domain"] = json!(d);
                        if cookie.get("path").is_none() {
                            cookie["path"] = json!("/");
                        }
                    }
                    if let Some(u) = url {
                        cookie["url"] = json!(u);
                    }
                }
                return ok(Req::new("cookies_set").set("cookies", cookies));
            }
            let name = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("cookies set", SET_USAGE))?;
            let value = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("cookies set", SET_USAGE))?;
            let mut cookie = Map::new();
            cookie.insert("name".to_string(), json!(name));
            cookie.insert("value".to_string(), json!(value));
            let mut i = 3;
            while i < rest.len() {
                let need = |ctx: &str, usage: &'static str| {
                    rest.get(i + 1)
                        .copied()
                        .ok_or_else(|| ParseError::missing(ctx, usage))
                };
                match rest[i] {
                    "--url" => {
                        cookie.insert(
                            "url".into(),
                            json!(need("cookies set --url", "--url <url>")?),
                        );
                        i += 2;
                    }
                    "--domain" => {
                        cookie.insert(
                            "domain".into(),
                            json!(need("cookies set --domain", "--domain <domain>")?),
                        );
                        i += 2;
                    }
                    "--path" => {
                        cookie.insert(
                            "path".into(),
                            json!(need("cookies set --path", "--path <path>")?),
                        );
                        i += 2;
                    }
                    "--httpOnly" | "--http-only" => {
                        cookie.insert("httpOnly".into(), json!(true));
                        i += 1;
                    }
                    "--secure" => {
                        cookie.insert("secure".into(), json!(true));
                        i += 1;
                    }
                    "--sameSite" | "--same-site" => {
                        const USAGE: &str = "--same-site <Strict|Lax|None>";
                        let v = need("cookies set --same-site", USAGE)?;
                        if !matches!(v, "Strict" | "Lax" | "None") {
                            return Err(ParseError::missing("cookies set --same-site", USAGE));
                        }
                        cookie.insert("sameSite".into(), json!(v));
                        i += 2;
                    }
                    "--expires" => {
                        const USAGE: &str = "--expires <timestamp>";
                        let v = need("cookies set --expires", USAGE)?;
                        let n = v
                            .parse::<i64>()
                            .map_err(|_| ParseError::missing("cookies set --expires", USAGE))?;
                        cookie.insert("expires".into(), json!(n));
                        i += 2;
                    }
                    _ => i += 1,
                }
            }
            ok(Req::new("cookies_set").set("cookies", vec![Value::Object(cookie)]))
        }
        "clear" => ok(Req::new("cookies_clear")),
        _ => ok(Req::new("cookies_get")),
    }
}

/// Parse a cookie file for `cookies set --curl`: a JSON array of `{name, value}`, a "Copy as cURL"
/// command (its `Cookie:` header, `-b` or `--cookie`), or a bare `a=1; b=2` header. Errors never
/// echo cookie values.
pub fn parse_cookie_file(raw: &str) -> Result<Vec<Value>, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err("cookies file is empty".to_string());
    }
    if trimmed.starts_with('[') {
        let list: Vec<Value> = serde_json::from_str(trimmed).map_err(|e| {
            format!(
                "cookies JSON parse error at line {} column {}",
                e.line(),
                e.column()
            )
        })?;
        return list
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = c
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("cookies[{i}] missing string name"))?;
                let value = c
                    .get("value")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("cookies[{i}] missing string value"))?;
                Ok(json!({ "name": name, "value": value }))
            })
            .collect();
    }
    let lower: String = trimmed.chars().take(5).collect::<String>().to_lowercase();
    let looks_like_curl = lower.starts_with("curl")
        && lower
            .chars()
            .nth(4)
            .is_some_and(|c| c.is_whitespace() || c == '\'' || c == '"');
    let header = if looks_like_curl {
        cookie_header_from_curl(trimmed).ok_or_else(|| {
            "no Cookie header found in this cURL - right-click an authenticated request in DevTools → Network → Copy → Copy as cURL".to_string()
        })?
    } else {
        trimmed.to_string()
    };
    let cookies: Vec<Value> = header
        .split(';')
        .filter_map(|piece| {
            let (name, value) = piece.trim().split_once('=')?;
            let name = name.trim();
            (!name.is_empty()).then(|| json!({ "name": name, "value": value.trim() }))
        })
        .collect();
    if cookies.is_empty() {
        return Err("no cookies found in input".to_string());
    }
    Ok(cookies)
}

fn cookie_header_from_curl(curl: &str) -> Option<String> {
    let joined = curl
        .replace("\\\r\n", " ")
        .replace("\\\n", " ")
        .replace("^\r\n", " ")
        .replace("^\n", " ");
    let words = shell_words_split(&joined);
    let mut iter = words.iter();
    let mut found: Option<String> = None;
    while let Some(word) = iter.next() {
        match word.as_str() {
            "-H" | "--header" => {
                if let Some(h) = iter.next()
                    && let Some((name, value)) = h.split_once(':')
                    && name.trim().eq_ignore_ascii_case("cookie")
                    && found.is_none()
                {
                    found = Some(value.trim().to_string());
                }
            }
            "-b" | "--cookie" => {
                if let Some(v) = iter.next()
                    && found.is_none()
                {
                    found = Some(v.clone());
                }
            }
            _ => {}
        }
    }
    found
}

fn parse_tab(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some("new") => {
            let mut req = Req::new("tab_new");
            let mut i = 1;
            while i < rest.len() {
                match rest[i] {
                    "--label" => {
                        let name = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing("tab new --label", "tab new --label <name> [url]")
                        })?;
                        req.put("label", *name);
                        i += 2;
                    }
                    other if !other.starts_with("--") && !req.has("url") => {
                        req.put("url", other);
                        i += 1;
                    }
                    other => return Err(ParseError::unknown_sub(other, &["--label", "<url>"])),
                }
            }
            ok(req)
        }
        Some("list") | None => ok(Req::new("tab_list")),
        Some("close") => {
            let mut req = Req::new("tab_close");
            if let Some(r) = rest.get(1) {
                req.put("tabId", *r);
            }
            ok(req)
        }
        Some(tab) => ok(Req::new("tab_switch").set("tabId", tab)),
    }
}

fn parse_dialog(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some(resp @ ("accept" | "dismiss")) => {
            let mut req = Req::new("dialog").set("response", resp);
            if let Some(text) = rest.get(1) {
                req.put("promptText", *text);
            }
            ok(req)
        }
        Some("status") => ok(Req::new("dialog").set("response", "status")),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["accept", "dismiss", "status"],
        )),
        None => Err(ParseError::missing(
            "dialog",
            "dialog <accept|dismiss|status> [text]",
        )),
    }
}

fn parse_profiler(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some("start") => {
            let mut req = Req::new("profiler_start");
            if let Some(idx) = rest.iter().position(|s| *s == "--categories") {
                let cats = rest.get(idx + 1).ok_or_else(|| {
                    ParseError::missing("profiler start --categories", "--categories <list>")
                })?;
                req.put("categories", cats.split(',').collect::<Vec<_>>());
            }
            ok(req)
        }
        Some("stop") => {
            let mut req = Req::new("profiler_stop");
            if let Some(path) = rest.get(1) {
                req.put("path", *path);
            }
            ok(req)
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
        None => Err(ParseError::missing(
            "profiler",
            "profiler <start|stop> [options]",
        )),
    }
}

fn parse_record(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &["start", "stop", "restart"];
    let (action, context, usage) = match rest.first().copied() {
        Some("start") => (
            "recording_start",
            "record start",
            "record start <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet]",
        ),
        Some("restart") => (
            "recording_restart",
            "record restart",
            "record restart <output.webm> [url] [--fps <1-60>] [--cursor] [--contact-sheet]",
        ),
        Some("stop") => return ok(Req::new("recording_stop")),
        Some(sub) => return Err(ParseError::unknown_sub(sub, VALID)),
        None => {
            return Err(ParseError::missing(
                "record",
                "record <start|stop|restart> [path] [url]",
            ));
        }
    };
    let mut positional: Vec<&str> = Vec::new();
    let mut extra: Vec<(&str, Value)> = Vec::new();
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            "--fps" => {
                let raw = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing(context, usage))?;
                match raw.parse::<u32>() {
                    Ok(n) if (1..=60).contains(&n) => extra.push(("fps", json!(n))),
                    _ => {
                        return Err(ParseError::invalid(
                            format!("Invalid --fps value: {raw} (expected 1-60)"),
                            usage,
                        ));
                    }
                }
                i += 1;
            }
            "--cursor" => extra.push(("cursor", json!(true))),
            "--contact-sheet" => extra.push(("contactSheet", json!(true))),
            other => positional.push(other),
        }
        i += 1;
    }
    let path = positional
        .first()
        .ok_or_else(|| ParseError::missing(context, usage))?;
    let mut req = Req::new(action).set("path", *path);
    if let Some(url) = positional.get(1) {
        req.put("url", record_url(url));
    }
    for (k, v) in extra {
        req.put(k, v);
    }
    ok(req)
}

fn parse_clipboard(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some("read") | None => ok(Req::new("clipboard").set("operation", "read")),
        Some("write") => {
            if rest.len() < 2 {
                return Err(ParseError::missing(
                    "clipboard write",
                    "clipboard write <text>",
                ));
            }
            ok(Req::new("clipboard")
                .set("operation", "write")
                .set("text", rest[1..].join(" ")))
        }
        Some(op @ ("copy" | "paste")) => ok(Req::new("clipboard").set("operation", op)),
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["read", "write", "copy", "paste"],
        )),
    }
}

fn parse_state(rest: &[&str]) -> Result<Value, ParseError> {
    const VALID: &[&str] = &["save", "load", "list", "clear", "show", "clean", "rename"];
    match rest.first().copied() {
        Some(op @ ("save" | "load")) => {
            let (context, usage) = if op == "save" {
                ("state save", "state save <path>")
            } else {
                ("state load", "state load <path>")
            };
            let path = rest
                .get(1)
                .ok_or_else(|| ParseError::missing(context, usage))?;
            ok(Req::new(if op == "save" {
                "state_save"
            } else {
                "state_load"
            })
            .set("path", *path))
        }
        Some("list") => ok(Req::new("state_list")),
        Some("clear") => {
            let mut name: Option<&str> = None;
            let mut all = false;
            for arg in &rest[1..] {
                match *arg {
                    "--all" | "-a" => all = true,
                    a if !a.starts_with('-') => name = Some(a),
                    _ => {}
                }
            }
            if let Some(n) = name
                && !crate::session::is_valid_session_name(n)
            {
                return Err(ParseError::InvalidSessionName {
                    name: n.to_string(),
                });
            }
            let mut req = Req::new("state_clear");
            if all {
                req.put("all", true);
            }
            if let Some(n) = name {
                req.put("sessionName", n);
            }
            ok(req)
        }
        Some("show") => {
            let file = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("state show", "state show <filename>"))?;
            ok(Req::new("state_show").set("path", *file))
        }
        Some("clean") => {
            let days = rest
                .iter()
                .position(|a| *a == "--older-than")
                .and_then(|i| rest.get(i + 1))
                .and_then(|d| d.parse::<i64>().ok())
                .ok_or_else(|| {
                    ParseError::missing("state clean", "state clean --older-than <days>")
                })?;
            ok(Req::new("state_clean").set("days", days))
        }
        Some("rename") => {
            const USAGE: &str = "state rename <old-name> <new-name>";
            let old = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("state rename", USAGE))?;
            let new = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("state rename", USAGE))?;
            let old = old.trim_end_matches(".json");
            let new = new.trim_end_matches(".json");
            for n in [old, new] {
                if !crate::session::is_valid_session_name(n) {
                    return Err(ParseError::InvalidSessionName {
                        name: n.to_string(),
                    });
                }
            }
            ok(Req::new("state_rename")
                .set("oldName", old)
                .set("newName", new))
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "state",
            "state <save|load|list|clear|show|clean|rename> ...",
        )),
    }
}

fn parse_swipe(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "swipe <up|down|left|right> [distance]";
    let direction = rest
        .first()
        .ok_or_else(|| ParseError::missing("swipe", USAGE))?;
    if !["up", "down", "left", "right"].contains(direction) {
        return Err(ParseError::invalid(
            format!("Invalid swipe direction: {direction}"),
            USAGE,
        ));
    }
    let mut req = Req::new("swipe").set("direction", *direction);
    if let Some(d) = rest.get(1).and_then(|d| d.parse::<u32>().ok()) {
        req.put("distance", d);
    }
    ok(req)
}

fn parse_depth(raw: Option<&&str>, context: &str, usage: &'static str) -> Result<u32, ParseError> {
    let raw = raw.ok_or_else(|| ParseError::missing(context, usage))?;
    raw.parse::<u32>().map_err(|_| {
        ParseError::invalid(
            format!("Depth must be a non-negative integer, got: {raw}"),
            usage,
        )
    })
}

fn parse_diff(rest: &[&str]) -> Result<Value, ParseError> {
    match rest.first().copied() {
        Some("snapshot") => {
            const USAGE: &str =
                "diff snapshot [--baseline <file>] [--selector <sel>] [--compact] [--depth <n>]";
            let mut req = Req::new("diff_snapshot");
            let mut i = 1;
            while i < rest.len() {
                match rest[i] {
                    "-b" | "--baseline" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff snapshot --baseline",
                                "diff snapshot --baseline <file>",
                            )
                        })?;
                        req.put("baseline", *v);
                        i += 1;
                    }
                    "-s" | "--selector" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff snapshot --selector",
                                "diff snapshot --selector <sel>",
                            )
                        })?;
                        req.put("selector", *v);
                        i += 1;
                    }
                    "-c" | "--compact" => req.put("compact", true),
                    "-d" | "--depth" => {
                        let n = parse_depth(
                            rest.get(i + 1),
                            "diff snapshot --depth",
                            "diff snapshot --depth <n>",
                        )?;
                        req.put("maxDepth", n);
                        i += 1;
                    }
                    other if other.starts_with('-') => {
                        return Err(ParseError::invalid(format!("Unknown flag: {other}"), USAGE));
                    }
                    other => {
                        return Err(ParseError::invalid(
                            format!("Unexpected argument: {other}"),
                            USAGE,
                        ));
                    }
                }
                i += 1;
            }
            ok(req)
        }
        Some("screenshot") => {
            const USAGE: &str = "diff screenshot --baseline <file> [--output <file>] [--threshold <0-1>] [--selector <sel>] [--full/-f]";
            let mut req = Req::new("diff_screenshot");
            let mut i = 1;
            while i < rest.len() {
                match rest[i] {
                    "-b" | "--baseline" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff screenshot --baseline",
                                "diff screenshot --baseline <file>",
                            )
                        })?;
                        req.put("baseline", *v);
                        i += 1;
                    }
                    "-o" | "--output" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff screenshot --output",
                                "diff screenshot --output <file>",
                            )
                        })?;
                        req.put("output", *v);
                        i += 1;
                    }
                    "-t" | "--threshold" => {
                        const T_USAGE: &str = "diff screenshot --threshold <0-1>";
                        let raw = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing("diff screenshot --threshold", T_USAGE)
                        })?;
                        let t = raw.parse::<f64>().map_err(|_| {
                            ParseError::invalid(format!("Invalid threshold value: {raw}"), T_USAGE)
                        })?;
                        if !(0.0..=1.0).contains(&t) {
                            return Err(ParseError::invalid(
                                format!("Threshold must be between 0 and 1, got {t}"),
                                T_USAGE,
                            ));
                        }
                        req.put("threshold", t);
                        i += 1;
                    }
                    "-s" | "--selector" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff screenshot --selector",
                                "diff screenshot --selector <sel>",
                            )
                        })?;
                        req.put("selector", *v);
                        i += 1;
                    }
                    "--full" | "-f" => req.put("fullPage", true),
                    other if other.starts_with('-') => {
                        return Err(ParseError::invalid(format!("Unknown flag: {other}"), USAGE));
                    }
                    other => {
                        return Err(ParseError::invalid(
                            format!("Unexpected argument: {other}"),
                            USAGE,
                        ));
                    }
                }
                i += 1;
            }
            if !req.has("baseline") {
                return Err(ParseError::missing(
                    "diff screenshot",
                    "diff screenshot --baseline <file>",
                ));
            }
            ok(req)
        }
        Some("url") => {
            const USAGE: &str = "diff url <url1> <url2> [--screenshot] [--full/-f] [--wait-until <strategy>] [--selector <sel>] [--compact] [--depth <n>]";
            let url1 = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("diff url", "diff url <url1> <url2>"))?;
            let url2 = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("diff url", "diff url <url1> <url2>"))?;
            let mut req = Req::new("diff_url").set("url1", *url1).set("url2", *url2);
            let mut i = 3;
            while i < rest.len() {
                match rest[i] {
                    "--screenshot" => req.put("screenshot", true),
                    "--full" | "-f" => req.put("fullPage", true),
                    "--wait-until" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff url --wait-until",
                                "diff url <url1> <url2> --wait-until <load|domcontentloaded|networkidle>",
                            )
                        })?;
                        req.put("waitUntil", *v);
                        i += 1;
                    }
                    "-s" | "--selector" => {
                        let v = rest.get(i + 1).ok_or_else(|| {
                            ParseError::missing(
                                "diff url --selector",
                                "diff url <url1> <url2> --selector <sel>",
                            )
                        })?;
                        req.put("selector", *v);
                        i += 1;
                    }
                    "-c" | "--compact" => req.put("compact", true),
                    "-d" | "--depth" => {
                        let n = parse_depth(
                            rest.get(i + 1),
                            "diff url --depth",
                            "diff url <url1> <url2> --depth <n>",
                        )?;
                        req.put("maxDepth", n);
                        i += 1;
                    }
                    other if other.starts_with('-') => {
                        return Err(ParseError::invalid(format!("Unknown flag: {other}"), USAGE));
                    }
                    other => {
                        return Err(ParseError::invalid(
                            format!("Unexpected argument: {other}"),
                            USAGE,
                        ));
                    }
                }
                i += 1;
            }
            ok(req)
        }
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["snapshot", "screenshot", "url"],
        )),
        None => Err(ParseError::missing(
            "diff",
            "diff <snapshot|screenshot|url>",
        )),
    }
}

fn parse_react(rest: &[&str]) -> Result<Value, ParseError> {
    let sub = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("react", "react <tree|inspect|renders|suspense>"))?;
    match sub {
        "tree" => ok(Req::new("react_tree")),
        "inspect" => {
            let id = rest
                .iter()
                .skip(1)
                .find(|a| !a.starts_with("--"))
                .ok_or_else(|| ParseError::missing("react inspect", "react inspect <id>"))?;
            let n = id.parse::<i64>().map_err(|_| {
                ParseError::invalid(
                    format!("react inspect id must be a number, got '{id}'"),
                    "react inspect <id>",
                )
            })?;
            ok(Req::new("react_inspect").set("fiberId", n))
        }
        "renders" => match rest.get(1).copied().unwrap_or("start") {
            "start" => ok(Req::new("react_renders_start")),
            "stop" => ok(Req::new("react_renders_stop")),
            other => Err(ParseError::unknown_sub(other, &["start", "stop"])),
        },
        "suspense" => {
            let mut req = Req::new("react_suspense");
            if rest.contains(&"--only-dynamic") {
                req.put("onlyDynamic", true);
            }
            ok(req)
        }
        other => Err(ParseError::unknown_sub(
            other,
            &["tree", "inspect", "renders", "suspense"],
        )),
    }
}

fn parse_a11y(rest: &[&str]) -> Result<Value, ParseError> {
    const USAGE: &str = "a11y [url] [--tags <list>] [--selector <sel>]";
    let mut req = Req::new("a11y");
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--tags" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("a11y --tags", USAGE))?;
                req.put("tags", *v);
                i += 1;
            }
            "-s" | "--selector" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("a11y --selector", USAGE))?;
                req.put("selector", *v);
                i += 1;
            }
            other if other.starts_with('-') => {}
            other => {
                if !req.has("url") {
                    req.put("url", other);
                }
            }
        }
        i += 1;
    }
    ok(req)
}

fn parse_read(rest: &[&str], ctx: &mut Ctx<'_>) -> Result<Value, ParseError> {
    const USAGE: &str = "read [url] [--raw] [--require-md] [--llms <index|full>] [--outline] [--filter <text>] [--timeout <ms>]";
    let mut req = Req::new("read");
    let mut timeout: u64 = 10_000;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            "--raw" => req.put("raw", true),
            "--require-md" => req.put("requireMd", true),
            "--outline" => req.put("outline", true),
            "--llms" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --llms", USAGE))?;
                if !matches!(*v, "index" | "full") {
                    return Err(ParseError::invalid(
                        format!("Invalid --llms value: {v} (expected index or full)"),
                        USAGE,
                    ));
                }
                req.put("llms", *v);
                i += 1;
            }
            "--filter" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --filter", USAGE))?;
                req.put("filter", *v);
                i += 1;
            }
            "--timeout" => {
                let v = rest
                    .get(i + 1)
                    .ok_or_else(|| ParseError::missing("read --timeout", USAGE))?;
                timeout = v
                    .parse::<u64>()
                    .map_err(|_| ParseError::invalid(format!("Invalid timeout: {v}"), USAGE))?;
                i += 1;
            }
            other if other.starts_with("--") => {
                return Err(ParseError::invalid(format!("Unknown flag: {other}"), USAGE));
            }
            other => {
                if !req.has("url") {
                    req.put("url", other);
                }
            }
        }
        i += 1;
    }
    req.put("timeout", timeout);
    req.put("tls", read_tls(ctx));
    ok(req)
}

/// The `tls` object of a `read` request: the CA bundle the daemon's HTTP client should trust.
fn read_tls(ctx: &Ctx<'_>) -> Value {
    let flags = ctx.flags;
    let (ca_cert, implicit) = if flags.clear_ca_cert {
        (Value::Null, false)
    } else if let Some(path) = &flags.ca_cert {
        (Value::from(path.as_str()), false)
    } else {
        match SYSTEM_CA_BUNDLES
            .iter()
            .find(|p| ctx.host.exists(std::path::Path::new(p)))
        {
            Some(p) => (Value::from(*p), true),
            None => (Value::Null, false),
        }
    };
    json!({
        "caCert": ca_cert,
        "caCertIsImplicit": implicit,
        "useSystemCa": flags.use_system_ca,
    })
}
