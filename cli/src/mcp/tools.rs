//! The MCP tool list: typed tools for the everyday loop, and one generic tool per registry
//! command for the rest, grouped into profiles so the default list stays small.
//!
//! A typed tool ([`TYPED`]) names the command words it runs and its parameters; each parameter
//! says where it goes on the command line (a positional word, `--flag <value>`, or a bare
//! `--flag`). The same description serves both directions: [`Tool::schema`] gives the JSON
//! Schema a client sees, [`Tool::argv`] turns a client's arguments back into the words the CLI
//! parses. Descriptions come from the registry's help unless a tool says otherwise. Every other
//! command in the registry is a generic tool `agent_browser_<word>` taking `args` (the words
//! after the command), listed in its profile and in `all`.

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
    ("network", "Routes, requests, HAR, headers, credentials"),
    (
        "state",
        "Cookies, storage, auth, saved state, sessions, profiles",
    ),
    (
        "debug",
        "Console, errors, trace, profiler, record, audits, clipboard, diff, batch, confirm/deny",
    ),
    (
        "react",
        "React tree/inspect/renders/suspense, vitals, pushstate",
    ),
    (
        "mobile",
        "Viewport, device, geolocation, media, touch, swipe, mouse, keyboard",
    ),
    ("all", "Every tool"),
];

/// A parameter's JSON type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A string.
    Str,
    /// An integer.
    Int,
    /// A boolean (only for [`Place::Switch`]).
    Bool,
    /// A non-empty array of strings (a variadic positional).
    List,
    /// One of these strings.
    Enum(&'static [&'static str]),
}

/// Where a parameter goes on the command line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Place {
    /// A positional word (in table order).
    Word,
    /// `<flag> <value>`.
    Option(&'static str),
    /// `<flag>` when true.
    Switch(&'static str),
}

/// One tool parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its JSON name.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Must be given.
    pub required: bool,
    /// Where it goes.
    pub place: Place,
    /// A short description (empty when the name says it all).
    pub doc: &'static str,
}

const fn word(name: &'static str, kind: Kind, doc: &'static str) -> Param {
    Param {
        name,
        kind,
        required: true,
        place: Place::Word,
        doc,
    }
}

const fn opt_word(name: &'static str, kind: Kind, doc: &'static str) -> Param {
    Param {
        required: false,
        ..word(name, kind, doc)
    }
}

const fn option(name: &'static str, flag: &'static str, kind: Kind, doc: &'static str) -> Param {
    Param {
        name,
        kind,
        required: false,
        place: Place::Option(flag),
        doc,
    }
}

const fn switch(name: &'static str, flag: &'static str, doc: &'static str) -> Param {
    Param {
        name,
        kind: Kind::Bool,
        required: false,
        place: Place::Switch(flag),
        doc,
    }
}

const SELECTOR: Param = word(
    "selector",
    Kind::Str,
    "CSS selector or @ref from a snapshot",
);

/// A typed tool.
#[derive(Debug, Clone, Copy)]
pub struct Typed {
    /// `agent_browser_…`.
    pub name: &'static str,
    /// Its profile.
    pub profile: &'static str,
    /// The command words it starts with (the first is a registry word).
    pub words: &'static [&'static str],
    /// Its parameters.
    pub params: &'static [Param],
    /// A description of its own (else the registry's help line).
    pub about: Option<&'static str>,
    /// It only reads.
    pub read_only: bool,
}

const fn typed(
    name: &'static str,
    profile: &'static str,
    words: &'static [&'static str],
    params: &'static [Param],
) -> Typed {
    Typed {
        name,
        profile,
        words,
        params,
        about: None,
        read_only: false,
    }
}

const fn reading(t: Typed, about: &'static str) -> Typed {
    Typed {
        about: Some(about),
        read_only: true,
        ..t
    }
}

const fn about(t: Typed, about: &'static str) -> Typed {
    Typed {
        about: Some(about),
        ..t
    }
}

/// The typed tools, in list order. Names match upstream's, so a client written for it finds
/// the same tools.
pub const TYPED: &[Typed] = &[
    typed(
        "agent_browser_open",
        "core",
        &["open"],
        &[word("url", Kind::Str, "")],
    ),
    reading(
        typed(
            "agent_browser_snapshot",
            "core",
            &["snapshot"],
            &[
                switch("interactive", "-i", "Only interactive elements"),
                switch("compact", "-c", "Drop empty structural nodes"),
                option("depth", "-d", Kind::Int, "Maximum depth"),
                option("selector", "-s", Kind::Str, "Scope to this element"),
            ],
        ),
        "Accessibility tree of the page with @refs for the other tools",
    ),
    typed(
        "agent_browser_click",
        "core",
        &["click"],
        &[SELECTOR, switch("newTab", "--new-tab", "")],
    ),
    typed(
        "agent_browser_fill",
        "core",
        &["fill"],
        &[SELECTOR, word("text", Kind::Str, "")],
    ),
    typed(
        "agent_browser_type",
        "core",
        &["type"],
        &[SELECTOR, word("text", Kind::Str, "")],
    ),
    typed(
        "agent_browser_press",
        "core",
        &["press"],
        &[word("key", Kind::Str, "e.g. Enter, Tab, Control+a")],
    ),
    typed(
        "agent_browser_select",
        "core",
        &["select"],
        &[SELECTOR, word("values", Kind::List, "")],
    ),
    typed("agent_browser_check", "core", &["check"], &[SELECTOR]),
    typed(
        "agent_browser_scroll",
        "core",
        &["scroll"],
        &[
            word(
                "direction",
                Kind::Enum(&["up", "down", "left", "right"]),
                "",
            ),
            opt_word("amount", Kind::Int, "Pixels"),
        ],
    ),
    about(
        typed(
            "agent_browser_wait_for_selector",
            "core",
            &["wait"],
            &[
                SELECTOR,
                option(
                    "state",
                    "--state",
                    Kind::Enum(&["visible", "hidden", "attached", "detached"]),
                    "",
                ),
            ],
        ),
        "Wait for an element",
    ),
    about(
        typed(
            "agent_browser_wait_for_text",
            "core",
            &["wait", "--text"],
            &[word("text", Kind::Str, "")],
        ),
        "Wait for text to appear on the page",
    ),
    reading(
        typed(
            "agent_browser_get_text",
            "core",
            &["get", "text"],
            &[SELECTOR],
        ),
        "Text of an element",
    ),
    reading(
        typed("agent_browser_get_url", "core", &["get", "url"], &[]),
        "URL of the page",
    ),
    typed(
        "agent_browser_eval",
        "core",
        &["eval"],
        &[word("script", Kind::Str, "JavaScript expression")],
    ),
    typed(
        "agent_browser_screenshot",
        "core",
        &["screenshot"],
        &[
            opt_word("path", Kind::Str, "PNG file to write"),
            switch("full", "--full", "Whole page"),
        ],
    ),
    typed("agent_browser_close", "core", &["close"], &[]),
    typed("agent_browser_back", "tabs", &["back"], &[]),
    typed("agent_browser_forward", "tabs", &["forward"], &[]),
    typed("agent_browser_reload", "tabs", &["reload"], &[]),
    reading(
        typed("agent_browser_tab_list", "tabs", &["tab", "list"], &[]),
        "List tabs",
    ),
    about(
        typed(
            "agent_browser_tab_new",
            "tabs",
            &["tab", "new"],
            &[opt_word("url", Kind::Str, "")],
        ),
        "Open a new tab",
    ),
    about(
        typed(
            "agent_browser_tab_switch",
            "tabs",
            &["tab"],
            &[word("tab", Kind::Str, "tN, label or target id")],
        ),
        "Switch to a tab",
    ),
    about(
        typed(
            "agent_browser_tab_close",
            "tabs",
            &["tab", "close"],
            &[opt_word("tab", Kind::Str, "")],
        ),
        "Close a tab",
    ),
    typed("agent_browser_uncheck", "mobile", &["uncheck"], &[SELECTOR]),
    reading(
        typed("agent_browser_get_title", "tabs", &["get", "title"], &[]),
        "Title of the page",
    ),
    about(
        typed(
            "agent_browser_wait_ms",
            "tabs",
            &["wait"],
            &[word("ms", Kind::Int, "")],
        ),
        "Wait a number of milliseconds",
    ),
    about(
        typed(
            "agent_browser_wait_for_load",
            "tabs",
            &["wait", "--load"],
            &[opt_word(
                "state",
                Kind::Enum(&["load", "domcontentloaded", "networkidle"]),
                "",
            )],
        ),
        "Wait for a load state",
    ),
];

/// The generic tools' profile, by command word (anything else is only in `all`).
fn generic_profile(word: &str) -> &'static str {
    match word {
        "back" | "forward" | "reload" | "tab" | "window" | "frame" | "dialog" => "tabs",
        "network" => "network",
        "cookies" | "storage" | "auth" | "state" | "session" | "profiles" => "state",
        "console" | "errors" | "trace" | "profiler" | "record" | "a11y" | "clipboard" | "diff"
        | "batch" | "confirm" | "deny" | "inspect" | "highlight" => "debug",
        "react" | "vitals" | "pushstate" => "react",
        "set" | "tap" | "swipe" | "mouse" | "keyboard" | "keydown" | "keyup" | "device" => "mobile",
        _ => "all",
    }
}

/// The name of the profile-listing tool (answered by the server itself).
pub const PROFILES_TOOL: &str = "agent_browser_tools_profiles";

/// One tool as the server lists and calls it.
#[derive(Debug, Clone)]
pub enum Tool {
    /// A typed tool.
    Typed(&'static Typed),
    /// A registry command with `args`.
    Generic {
        /// The tool name.
        name: String,
        /// The command word.
        word: &'static str,
        /// The command's help line and usage.
        about: String,
        /// Its profile.
        profile: &'static str,
    },
    /// `agent_browser_tools_profiles`.
    Profiles,
}

/// Why a tool call's arguments were refused (a JSON-RPC invalid-params error).
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidArguments(pub String);

impl Tool {
    /// Its name.
    pub fn name(&self) -> &str {
        match self {
            Tool::Typed(t) => t.name,
            Tool::Generic { name, .. } => name,
            Tool::Profiles => PROFILES_TOOL,
        }
    }

    fn profile(&self) -> &'static str {
        match self {
            Tool::Typed(t) => t.profile,
            Tool::Generic { profile, .. } => profile,
            Tool::Profiles => "core",
        }
    }

    /// Listed when these profiles are enabled.
    pub fn enabled(&self, profiles: &[String]) -> bool {
        profiles.iter().any(|p| p == "all" || p == self.profile())
    }

    fn description(&self) -> String {
        match self {
            Tool::Typed(t) => t
                .about
                .map(str::to_string)
                .or_else(|| {
                    registry::command(t.words[0])
                        .and_then(|c| c.help)
                        .map(|h| h.about.to_string())
                })
                .unwrap_or_default(),
            Tool::Generic { about, .. } => about.clone(),
            Tool::Profiles => {
                "List the tool profiles this server can enable with --tools".to_string()
            }
        }
    }

    /// The `tools/list` entry: name, description, input schema (and a read-only hint).
    pub fn listing(&self) -> Value {
        let mut entry = json!({
            "name": self.name(),
            "description": self.description(),
            "inputSchema": self.schema(),
        });
        let read_only = match self {
            Tool::Typed(t) => t.read_only,
            Tool::Profiles => true,
            Tool::Generic { .. } => false,
        };
        if read_only {
            entry["annotations"] = json!({"readOnlyHint": true});
        }
        entry
    }

    /// The JSON Schema of its arguments.
    pub fn schema(&self) -> Value {
        let params: Vec<Param> = match self {
            Tool::Typed(t) => t.params.to_vec(),
            Tool::Generic { .. } => vec![Param {
                name: "args",
                kind: Kind::List,
                required: false,
                place: Place::Word,
                doc: "Words after the command, as on the command line",
            }],
            Tool::Profiles => Vec::new(),
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        for p in &params {
            let mut prop = match p.kind {
                Kind::Str => json!({"type": "string"}),
                Kind::Int => json!({"type": "integer"}),
                Kind::Bool => json!({"type": "boolean"}),
                Kind::List => json!({"type": "array", "items": {"type": "string"}}),
                Kind::Enum(values) => json!({"type": "string", "enum": values}),
            };
            if !p.doc.is_empty() {
                prop["description"] = Value::from(p.doc);
            }
            properties.insert(p.name.to_string(), prop);
            if p.required {
                required.push(Value::from(p.name));
            }
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema["additionalProperties"] = Value::Bool(false);
        schema
    }

    /// The command words for a call with `arguments` (`None` for the profiles tool), or why the
    /// arguments do not fit the schema.
    pub fn argv(&self, arguments: &Value) -> Result<Option<Vec<String>>, InvalidArguments> {
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
        match self {
            Tool::Profiles => {
                reject_unknown(self.name(), args, &[])?;
                Ok(None)
            }
            Tool::Generic { word, .. } => {
                reject_unknown(self.name(), args, &["args"])?;
                let mut words = vec![word.to_string()];
                if let Some(value) = args.get("args") {
                    words.extend(strings(value).ok_or_else(|| {
                        InvalidArguments(format!(
                            "{}: args must be an array of strings",
                            self.name()
                        ))
                    })?);
                }
                Ok(Some(words))
            }
            Tool::Typed(t) => {
                let names: Vec<&str> = t.params.iter().map(|p| p.name).collect();
                reject_unknown(t.name, args, &names)?;
                let mut positional = Vec::new();
                let mut flags = Vec::new();
                for p in t.params {
                    let Some(value) = args.get(p.name).filter(|v| !v.is_null()) else {
                        if p.required {
                            return Err(InvalidArguments(format!(
                                "Missing required argument for {}: {}",
                                t.name, p.name
                            )));
                        }
                        continue;
                    };
                    let text = value_words(p, value).ok_or_else(|| {
                        InvalidArguments(format!(
                            "Invalid argument {} for {}: expected {}",
                            p.name,
                            t.name,
                            expected(p.kind)
                        ))
                    })?;
                    match p.place {
                        Place::Word => positional.extend(text),
                        Place::Option(flag) => {
                            flags.push(flag.to_string());
                            flags.extend(text);
                        }
                        Place::Switch(flag) => {
                            if value.as_bool() == Some(true) {
                                flags.push(flag.to_string());
                            }
                        }
                    }
                }
                let mut words: Vec<String> = t.words.iter().map(|w| w.to_string()).collect();
                words.extend(positional);
                words.extend(flags);
                Ok(Some(words))
            }
        }
    }
}

fn expected(kind: Kind) -> String {
    match kind {
        Kind::Str => "a string".into(),
        Kind::Int => "an integer".into(),
        Kind::Bool => "a boolean".into(),
        Kind::List => "a non-empty array of strings".into(),
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

fn value_words(p: &Param, value: &Value) -> Option<Vec<String>> {
    match p.kind {
        Kind::Str => value.as_str().map(|s| vec![s.to_string()]),
        Kind::Int => value.as_i64().map(|n| vec![n.to_string()]),
        Kind::Bool => value.as_bool().map(|_| Vec::new()),
        Kind::List => strings(value).filter(|v| !v.is_empty()),
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
    let accepted = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    Err(InvalidArguments(format!(
        "Unknown argument(s) for {tool}: {}. Tool arguments: {accepted}.",
        unknown.join(", ")
    )))
}

/// Every tool, typed first, then one generic tool per registry command that has help and no
/// typed tool of the same name (`mcp` itself excluded).
pub fn all() -> Vec<Tool> {
    let mut tools = vec![Tool::Profiles];
    tools.extend(TYPED.iter().map(Tool::Typed));
    for command in registry::TABLE {
        let (Some(help), Some(word)) = (command.help, command.names.first()) else {
            continue;
        };
        if matches!(command.grammar, Grammar::Unsupported | Grammar::Internal) || *word == "mcp" {
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
            profile: generic_profile(word),
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

    #[test]
    fn typed_arguments_become_command_words() {
        let click = find("agent_browser_click").expect("click");
        let words = click
            .argv(&json!({"selector": "#go", "newTab": true}))
            .expect("valid");
        assert_eq!(
            words,
            Some(vec!["click".into(), "#go".into(), "--new-tab".into()])
        );
        let wait = find("agent_browser_wait_for_text").expect("wait");
        assert_eq!(
            wait.argv(&json!({"text": "Done"})).expect("valid"),
            Some(vec!["wait".into(), "--text".into(), "Done".into()])
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_the_accepted_names() {
        let open = find("agent_browser_open").expect("open");
        let err = open.argv(&json!({"urlx": 1})).expect_err("unknown");
        assert!(err.0.contains("urlx") && err.0.contains("url"), "{err:?}");
        assert!(open.argv(&json!({})).is_err(), "missing url");
        assert!(open.argv(&json!({"url": 3})).is_err(), "wrong type");
        assert!(open.argv(&json!([1])).is_err(), "not an object");
        let scroll = find("agent_browser_scroll").expect("scroll");
        assert!(scroll.argv(&json!({"direction": "sideways"})).is_err());
    }

    #[test]
    fn every_typed_tool_starts_with_a_registry_word_and_has_a_description() {
        for t in TYPED {
            assert!(registry::command(t.words[0]).is_some(), "{}", t.name);
            assert!(
                !Tool::Typed(t).description().is_empty(),
                "{} has no description",
                t.name
            );
            assert!(PROFILES.iter().any(|(p, _)| *p == t.profile), "{}", t.name);
        }
    }

    #[test]
    fn all_covers_every_registry_command_with_help() {
        let tools = all();
        for command in registry::TABLE {
            if command.help.is_none() || command.names == ["mcp"] {
                continue;
            }
            let word = command.names[0];
            assert!(
                tools.iter().any(|t| match t {
                    Tool::Typed(t) => t.words[0] == word,
                    Tool::Generic { word: w, .. } => *w == word,
                    Tool::Profiles => false,
                }),
                "no tool runs {word}"
            );
        }
    }
}
