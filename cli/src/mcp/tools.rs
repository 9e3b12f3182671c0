//! The MCP tool machinery: the profiles, the argument notation, the JSON Schema a client sees,
//! and how a call's arguments become command words. The tools themselves live with their
//! commands: each command module's `MCP` (read through `Command::mcp`) lists upstream's tools
//! that run it, with their names, arguments and profile.
//!
//! A tool ([`McpTool`]) names the command words it runs and its arguments in a short notation,
//! `name:type[!][@place]`: type `s` string, `i` integer, `n` number, `b` boolean, `o` object,
//! `a` array of strings, `aa` array of string arrays, `e(x|y)` one of these; `!` required; place
//! absent for a positional word, `@--flag` for `--flag <value>` (or a bare `--flag` for a
//! boolean), `@G--flag` for a global flag before the command, `@!--flag` for a flag given when
//! the boolean is false, `@L--flag` for `--flag` per array item, `@S--flag` for `--flag` with
//! the value on stdin, `@J` for a JSON word, `@O` for `on`/`off`, `@C` for batch commands; a
//! command word `{name}` is that argument's value. [`Tool::schema`] gives the JSON Schema a
//! client sees and [`Tool::argv`] turns a client's arguments back into the words the CLI parses.
//! Every tool also takes the session-wide arguments of [`COMMON`] (session, extraArgs,
//! timeoutMs, …). Every other registry command is a generic tool `agent_browser_<word>` taking
//! `args` (the words after the command), listed only in `all`.

use serde_json::{Map, Value, json};

pub use super::tool::{Arrange, McpTool};
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

/// The name of the profile-listing tool (answered by the server itself).
pub const PROFILES_TOOL: &str = "agent_browser_tools_profiles";

/// The profile-listing tool: the server's own, so it belongs to no command.
const PROFILES_SPEC: McpTool = McpTool::new(0, PROFILES_TOOL, "core", &[], "").in_core();

/// Upstream's tools in its list order: the profiles tool, then every command's.
pub fn catalog() -> Vec<&'static McpTool> {
    let mut tools: Vec<&'static McpTool> = registry::TABLE
        .iter()
        .flat_map(|command| command.mcp.iter())
        .collect();
    tools.push(&PROFILES_SPEC);
    tools.sort_by_key(|tool| tool.position);
    tools
}

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
pub fn params(spec: &McpTool) -> Vec<Param> {
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

/// One tool as the server lists and calls it.
#[derive(Debug, Clone)]
pub enum Tool {
    /// A catalog tool.
    Spec(&'static McpTool),
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
            ("core", Tool::Spec(s)) => s.in_core,
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
        if let Tool::Spec(McpTool {
            arrange: Some(arrange),
            ..
        }) = self
        {
            positional = arrange(args, positional);
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
            })?);
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

/// Every tool: upstream's ([`catalog`]), then one generic tool per registry command that has
/// help and that no catalog tool runs (`mcp` itself excluded).
pub fn all() -> Vec<Tool> {
    let catalog = catalog();
    let mut tools: Vec<Tool> = catalog.iter().copied().map(Tool::Spec).collect();
    for command in registry::TABLE {
        let (Some(help), Some(word)) = (command.help, command.names.first()) else {
            continue;
        };
        if matches!(command.grammar, Grammar::Unsupported | Grammar::Internal)
            || *word == "mcp"
            || catalog.iter().any(|s| s.words.first() == Some(word))
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
    fn every_catalog_tool_runs_its_own_command() {
        // Each command declares the tools that run it: the first word of each is one of
        // that command's words, and upstream's list order is kept by the positions.
        let mut count = 0;
        for command in registry::TABLE {
            for tool in command.mcp {
                count += 1;
                let word = tool.words.first().expect("a command word");
                assert!(
                    command.names.contains(word),
                    "{} runs {word}, not {:?}",
                    tool.name,
                    command.names
                );
                assert!(
                    PROFILES.iter().any(|(p, _)| *p == tool.profile),
                    "{}",
                    tool.name
                );
            }
        }
        assert_eq!(count, 155);
        let catalog = catalog();
        for (i, tool) in catalog.iter().enumerate() {
            assert_eq!(usize::from(tool.position), i, "{} out of place", tool.name);
        }
        let core: Vec<&str> = catalog
            .iter()
            .filter(|t| t.in_core)
            .map(|t| t.name)
            .collect();
        assert_eq!(core.len(), 17, "{core:?}");
    }
}
