//! Byte-level snapshots of what the CLI does with argv (requests, warnings, errors), how it renders
//! replies, and its help text, so refactors keep the output byte-identical. Regenerate with
//! `ABX_UPDATE_SNAPSHOTS=1 cargo test -p agent-browser --test snapshots` and review the diff.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use agent_browser::commands::{Command, LocalCommand, registry};
use agent_browser::host::MemoryHost;
use agent_browser::output::{OutputOptions, Response, render_response};
use serde_json::{Value, json};

fn data_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Compares `got` with the stored snapshot (or rewrites it when asked to).
fn check(name: &str, got: &str) {
    let path = data_file(name);
    if std::env::var_os("ABX_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, got).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("snapshot file");
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        let show = |text: &str| {
            text.lines()
                .skip(first)
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{name} differs from the snapshot at line {}:\n--- want\n{}\n--- got\n{}",
            first + 1,
            show(&want),
            show(got)
        );
    }
}

fn host_for(directives: &[String]) -> MemoryHost {
    let mut host = MemoryHost::new()
        .with_home(Some(Path::new("/tmp/snap-home")))
        .with_cwd(Path::new("/tmp/snap-cwd"))
        .with_var("HOME", "/tmp/snap-home")
        .with_var("AGENT_BROWSER_SOCKET_DIR", "/tmp/snap-sock")
        .with_var("AGENT_BROWSER_SESSION", "snap")
        .with_file(Path::new("/etc/ssl/certs/ca-certificates.crt"), "");
    for d in directives {
        let d = &d[1..];
        if let Some(text) = d.strip_prefix("stdin=") {
            host = host.with_stdin(&text.replace("\\n", "\n"));
        } else if let Some((k, v)) = d.split_once('=') {
            host = host.with_var(k, v);
        }
    }
    host
}

fn describe_local(local: &LocalCommand) -> String {
    match local {
        LocalCommand::Help { command } => format!("help {command:?}"),
        LocalCommand::Version => "version".into(),
        LocalCommand::Session(s) => format!("session {s:?}"),
        LocalCommand::CloseAll => "close-all".into(),
        LocalCommand::StateFile { request } => format!("state-file {request}"),
        LocalCommand::Unsupported { command } => format!("unsupported {command}"),
        LocalCommand::Dashboard(d) => format!("dashboard {d:?}"),
        LocalCommand::Run(run) => format!("run {:?}", run.args),
        LocalCommand::Mcp(words) => format!("mcp {words:?}"),
        LocalCommand::Profiles => "profiles".into(),
    }
}

#[test]
fn argv_corpus_parses_to_the_same_bytes() {
    let corpus = std::fs::read_to_string(data_file("argv-corpus.txt")).expect("corpus");
    let mut out = String::new();
    for line in corpus.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = agent_browser::commands::shell_words_split(line);
        let (directives, argv): (Vec<String>, Vec<String>) =
            words.into_iter().partition(|w| w.starts_with('@'));
        let host = host_for(&directives);
        let _ = writeln!(out, "$ {line}");
        match agent_browser::parse(&argv, &host) {
            Ok(inv) => {
                for w in &inv.warnings {
                    let _ = writeln!(out, "  warning: {w}");
                }
                match &inv.command {
                    Command::Local(local) => {
                        let _ = writeln!(out, "  local: {}", describe_local(local));
                    }
                    Command::Daemon(plan) => {
                        if let Some(l) = &plan.launch {
                            let _ = writeln!(out, "  launch {:?}: {}", l.kind, l.request);
                        }
                        let _ = writeln!(out, "  request: {}", plan.request);
                    }
                    Command::Batch(batch) => {
                        if let Some(l) = &batch.launch {
                            let _ = writeln!(out, "  launch {:?}: {}", l.kind, l.request);
                        }
                        let _ = writeln!(out, "  batch bail={}", batch.bail);
                        for step in &batch.steps {
                            match &step.request {
                                Ok(r) => {
                                    let _ = writeln!(out, "    {:?} -> {r}", step.argv);
                                }
                                Err(e) => {
                                    let _ = writeln!(
                                        out,
                                        "    {:?} -> error {}: {e:?}",
                                        step.argv,
                                        e.kind()
                                    );
                                }
                            }
                        }
                    }
                }
            }
            Err(failure) => {
                let r = failure.render();
                let _ = writeln!(
                    out,
                    "  exit {} stdout {:?} stderr {:?}",
                    r.exit_code, r.stdout, r.stderr
                );
            }
        }
    }
    check("parse-snapshot.txt", &out);
}

/// Every action the registry declares, in name order, and one that none does (it reads as
/// upstream's key-driven default).
fn actions() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = registry::TABLE
        .iter()
        .flat_map(|c| c.actions.iter())
        .map(|a| a.name)
        .collect();
    names.sort_unstable();
    names.push("definitely_unknown");
    names
}

/// Each action's render example (see `Render::example`), labelled with its action.
fn examples() -> Vec<(String, Value)> {
    registry::TABLE
        .iter()
        .flat_map(|c| c.actions.iter())
        .filter(|a| !a.render.example.is_empty())
        .map(|a| {
            let data = serde_json::from_str(a.render.example)
                .unwrap_or_else(|e| panic!("{}'s render example is not JSON: {e}", a.name));
            (format!("example of {}: {}", a.name, a.render.example), data)
        })
        .collect()
}

fn samples() -> Vec<Value> {
    vec![
        json!({}),
        json!({"ok": true}),
        json!({"url": "https://x.test/", "title": "X", "lifecycle": {}}),
        json!({"url": "https://x.test/"}),
        json!({"tabId": "t2", "label": null, "url": "about:blank", "total": 2}),
        json!({"tabId": "t2", "label": "docs", "total": 3}),
        json!({"tabId": "t2"}),
        json!({"tabId": "t3", "label": null, "closed": true}),
        json!({"closed": true, "restoreStatus": "not_configured"}),
        json!({"cdpUrl": "ws://127.0.0.1:1/devtools/browser/u"}),
        json!({"snapshot": "- heading \"Hi\" [level=1, ref=e1]", "origin": "https://x/"}),
        json!({"snapshot": {"kind": "unchanged", "revision": 3}}),
        json!({"snapshot": {"kind": "delta", "diff": "+ a"}}),
        json!({"snapshot": {"kind": "other", "n": 1}}),
        json!({"title": "Fixture Page"}),
        json!({"text": "hello world, this is page text", "origin": "https://x/"}),
        json!({"html": "<b>x</b>"}),
        json!({"value": "v"}),
        json!({"count": 4, "selector": "li"}),
        json!({"x": 8, "y": 8.5, "width": 100, "height": 20}),
        json!({"styles": {"color": "red", "opacity": 1}}),
        json!({"visible": false, "origin": "o"}),
        json!({"enabled": true}),
        json!({"checked": true}),
        json!({"checked": "#c"}),
        json!({"result": "Fixture Page", "origin": "o"}),
        json!({"result": {"a": [1, 2]}}),
        json!({"result": null}),
        json!({"devices": []}),
        json!({"devices": [
            {"name": "iPhone", "runtime": "iOS 17", "udid": "U1", "state": "Booted", "isRealDevice": true},
            {"name": "Sim", "runtime": "iOS 16", "udid": "U2", "state": "Shutdown"}
        ]}),
        json!({"tabs": [
            {"tabId": "t1", "label": null, "title": "One", "url": "https://1/", "active": true},
            {"tabId": "t2", "label": "docs", "title": "Two", "url": "https://2/", "active": false},
            {}
        ]}),
        json!({"messages": [{"type": "log", "text": "hello"}, {"type": "error", "text": "bad"}, {"type": "warning", "text": "w"}, {"type": "info", "text": "i"}, {"type": "debug", "text": "d"}]}),
        json!({"messages": []}),
        json!({"errors": [{"text": "Error: boom", "line": 1}, {"message": "m"}]}),
        json!({"cookies": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]}),
        json!({"requests": [
            {"requestId": "1.1", "method": "GET", "url": "https://x/", "resourceType": "Document", "status": 200},
            {"requestId": "1.2", "method": "POST", "url": "https://x/api", "resourceType": "XHR"}
        ]}),
        json!({"requests": []}),
        json!({"cleared": true}),
        json!({"cleared": 3}),
        json!({"data": {"k": "v", "n": 1}}),
        json!({"data": {}}),
        json!({"key": "k", "value": "v"}),
        json!({"key": "k", "value": null}),
        json!({"box": {"x": 1, "y": 2}}),
        json!({"elements": [{"tag": "div", "text": "hi", "box": {"x": 1, "y": 2, "width": 3, "height": 4},
            "styles": {"fontSize": "12px", "fontWeight": "400", "fontFamily": "serif", "color": "red", "backgroundColor": "white", "borderRadius": "4px"}}, {}]}),
        json!({"started": true}),
        json!({"started": true, "path": "/tmp/r.webm"}),
        json!({"stopped": true, "path": "/tmp/new.webm", "previousPath": "/tmp/old.webm"}),
        json!({"stopped": true}),
        json!({"frames": 10, "path": "/tmp/r.webm"}),
        json!({"frames": 10, "path": "/tmp/r.webm", "error": "ffmpeg failed"}),
        json!({"frames": 0}),
        json!({"path": "/tmp/d.bin", "suggestedFilename": "d.bin"}),
        json!({"path": "/tmp/d.bin", "filename": ""}),
        json!({"traceStopped": true}),
        json!({"path": "/tmp/out.file"}),
        json!({"path": "/tmp/s.png", "annotations": [
            {"number": 1, "ref": "e1", "role": "heading", "name": "Hello"},
            {"number": 2, "ref": "e2", "role": "button", "name": ""}
        ]}),
        json!({"path": "p.json", "eventCount": 12, "requestCount": 3}),
        json!({"path": "s.json", "note": "A note"}),
        json!({"files": [], "directory": "/states"}),
        json!({"files": [{"filename": "a.json", "size": 2048, "modified": "2026-01-01T00:00:00Z", "encrypted": true}, {"filename": "b.json", "size": 10}]}),
        json!({"renamed": true, "oldName": "a", "newName": "b"}),
        json!({"summary": {"cookies": 2, "origins": 1}, "encrypted": true}),
        json!({"cleaned": 2}),
        json!({"note": "Just a note"}),
        json!({"profiles": []}),
        json!({"profiles": [{"name": "me", "username": "u", "url": "https://x"}]}),
        json!({"profile": {"name": "me", "url": "https://x", "username": "u", "createdAt": "then", "lastLoginAt": "now"}}),
        json!({"saved": true, "name": "me"}),
        json!({"updated": true, "name": "me"}),
        json!({"loggedIn": true, "name": "me", "title": "Home"}),
        json!({"loggedIn": true, "name": "me"}),
        json!({"deleted": true, "name": "me"}),
        json!({"deleted": true}),
        json!({"confirmation_required": true, "category": "click", "description": "Click buy", "confirmation_id": "c1"}),
        json!({"confirmed": true}),
        json!({"denied": true}),
        json!({"hasDialog": false}),
        json!({"hasDialog": true, "type": "prompt", "message": "name?", "defaultPrompt": "x"}),
        json!({"hasDialog": true, "type": "alert", "message": "hi"}),
        json!({"enabled": true, "port": 9333, "connected": false, "screencasting": false}),
        json!({"enabled": false, "port": null}),
        json!({"disabled": true}),
        json!({"opened": true, "url": "http://127.0.0.1:1/"}),
        json!({"opened": true}),
        json!({"opened": false, "error": "no devtools"}),
        json!({"content": "# Doc", "url": "https://x/", "finalUrl": "https://x/doc"}),
        json!({"lcp": 1.5, "lifecycle": {"reused": true}}),
        json!({"changed": false}),
        json!({"changed": true, "diff": "--- before\n+++ after\n+ a\n- b\n  c", "additions": 1, "removals": 1, "unchanged": 1}),
        json!({"match": true, "mismatchPercentage": 0.0, "differentPixels": 0, "totalPixels": 100}),
        json!({"match": false, "mismatchPercentage": 12.345, "diffPath": "/tmp/d.png", "differentPixels": 12, "totalPixels": 100}),
        json!({"dimensionMismatch": true}),
        json!({"snapshot": {"changed": true, "diff": "+ x", "additions": 1, "removals": 0, "unchanged": 0}, "screenshot": {"match": true, "differentPixels": 0, "totalPixels": 4}}),
        json!({"clicked": "@e1", "lifecycle": {"reused": true}}),
        json!({"waited": "text", "text": "hi"}),
        json!({"launched": true, "reused": false}),
        json!({"session": "s", "socketDir": "/d", "cdpUrl": null, "pageCount": 0}),
        json!("a string"),
        json!([1, 2]),
        Value::Null,
    ]
}

fn render_modes() -> Vec<(&'static str, OutputOptions)> {
    let nonce = "0123456789abcdef0123456789abcdef".to_string();
    vec![
        (
            "plain",
            OutputOptions {
                boundary_nonce: nonce.clone(),
                ..OutputOptions::default()
            },
        ),
        (
            "color",
            OutputOptions {
                color: true,
                boundary_nonce: nonce.clone(),
                ..OutputOptions::default()
            },
        ),
        (
            "bounded",
            OutputOptions {
                content_boundaries: true,
                max_output: Some(12),
                boundary_nonce: nonce,
                ..OutputOptions::default()
            },
        ),
    ]
}

#[test]
fn replies_render_to_the_same_bytes_for_every_action() {
    let mut out = String::new();
    let mut responses: Vec<(String, Response)> = samples()
        .into_iter()
        .map(|data| (data.to_string(), data))
        .chain(examples())
        .map(|(label, data)| {
            (
                label,
                Response {
                    success: true,
                    data: Some(data),
                    ..Response::default()
                },
            )
        })
        .collect();
    let mut warned = Response {
        success: true,
        data: Some(json!({"url": "u"})),
        warning: Some("dialog pending".into()),
        ..Response::default()
    };
    responses.push(("success with a warning".into(), warned.clone()));
    warned.success = false;
    warned.error = Some("Element not found: #x".into());
    responses.push(("failure with a warning".into(), warned.clone()));
    warned.error = None;
    responses.push(("failure without an error".into(), warned));
    for (mode, opts) in render_modes() {
        for (label, resp) in &responses {
            let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
            for action in actions().into_iter().map(Some).chain([None]) {
                let r = render_response(resp, action, &opts);
                let text = format!(
                    "exit {} stdout {:?} stderr {:?}",
                    r.exit_code, r.stdout, r.stderr
                );
                let name = action.unwrap_or("<none>");
                match groups.iter_mut().find(|(t, _)| *t == text) {
                    Some((_, names)) => names.push(name),
                    None => groups.push((text, vec![name])),
                }
            }
            let _ = writeln!(out, "[{mode}] {label}");
            // The group without an action is upstream's key-driven default; list only the
            // actions that render differently.
            let default = groups
                .iter()
                .position(|(_, names)| names.contains(&"<none>"))
                .expect("the no-action rendering");
            let _ = writeln!(out, "  default: {}", groups[default].0);
            for (i, (text, names)) in groups.iter().enumerate() {
                if i != default {
                    let _ = writeln!(out, "  {text}\n    <- {}", names.join(" "));
                }
            }
        }
    }
    check("render-snapshot.txt", &out);
}

#[test]
fn every_action_with_wording_of_its_own_has_an_example_that_shows_it() {
    // The example sits next to the `Render` in the command's module: a reply the action's
    // wording prints differently from upstream's key-driven default.
    let opts = OutputOptions::default();
    let text = |r: agent_browser::output::Rendered| format!("{}{}", r.stdout, r.stderr);
    let mut wrong = Vec::new();
    for action in registry::TABLE.iter().flat_map(|c| c.actions.iter()) {
        let example = action.render.example;
        if action.render.is_default() {
            if !example.is_empty() {
                wrong.push(format!(
                    "{}: an example but no wording of its own",
                    action.name
                ));
            }
            continue;
        }
        let Ok(data) = serde_json::from_str::<Value>(example) else {
            wrong.push(format!("{}: no render example (or not JSON)", action.name));
            continue;
        };
        let resp = Response {
            success: true,
            data: Some(data),
            ..Response::default()
        };
        let own = text(render_response(&resp, Some(action.name), &opts));
        if own == text(render_response(&resp, None, &opts)) {
            wrong.push(format!(
                "{}: its example reads as the default: {own:?}",
                action.name
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Upstream 0.41.2's top-level words.
const TOP_LEVEL_WORDS: &[&str] = &[
    "open",
    "goto",
    "navigate",
    "back",
    "forward",
    "reload",
    "read",
    "click",
    "dblclick",
    "fill",
    "type",
    "hover",
    "focus",
    "check",
    "uncheck",
    "select",
    "drag",
    "upload",
    "download",
    "press",
    "key",
    "keydown",
    "keyup",
    "keyboard",
    "scroll",
    "scrollintoview",
    "scrollinto",
    "wait",
    "screenshot",
    "pdf",
    "snapshot",
    "eval",
    "close",
    "quit",
    "exit",
    "inspect",
    "auth",
    "confirm",
    "deny",
    "connect",
    "stream",
    "get",
    "is",
    "find",
    "mouse",
    "set",
    "network",
    "storage",
    "cookies",
    "tab",
    "window",
    "frame",
    "dialog",
    "trace",
    "profiler",
    "record",
    "console",
    "errors",
    "highlight",
    "clipboard",
    "state",
    "tap",
    "swipe",
    "device",
    "diff",
    "batch",
    "react",
    "vitals",
    "web-vitals",
    "a11y",
    "pushstate",
    "removeinitscript",
    "session",
    "mcp",
    "doctor",
    "install",
    "upgrade",
    "profiles",
    "skills",
    "dashboard",
    "plugin",
    "plugins",
    "chat",
    "webmcp",
];

#[test]
fn every_upstream_word_is_a_registry_word() {
    let known: Vec<&str> = registry::words().collect();
    for word in TOP_LEVEL_WORDS {
        assert!(known.contains(word), "{word} is not in the registry");
    }
}

#[test]
fn help_text_is_the_same_bytes() {
    let mut out = String::new();
    let general = agent_browser::output::render_help(None).stdout;
    let _ = writeln!(out, "== general\n{general}");
    let mut words: Vec<&str> = TOP_LEVEL_WORDS.to_vec();
    words.extend(["bogus", "key", "scrollinto", "web-vitals", "goto"]);
    for word in words {
        let text = agent_browser::output::render_help(Some(word)).stdout;
        if text == general {
            let _ = writeln!(out, "== {word}: general help");
        } else {
            let _ = writeln!(out, "== {word}\n{text}");
        }
    }
    check("help-snapshot.txt", &out);
}

/// A value of each argument kind, for [`mcp_tools_list_and_call_the_same_bytes`].
fn sample_argument(kind: &agent_browser::mcp::tools::Kind) -> Value {
    use agent_browser::mcp::tools::Kind;
    match kind {
        Kind::Str | Kind::StrOrBool => json!("v w"),
        Kind::Int => json!(7),
        Kind::Num => json!(1.5),
        Kind::Bool => json!(true),
        Kind::Obj => json!({"k": 1}),
        Kind::List => json!(["a", "b c"]),
        Kind::Lists => json!([["open", "a b"], ["snapshot", "-i"]]),
        Kind::Enum(values) => json!(values[0]),
    }
}

#[test]
fn mcp_tools_list_and_call_the_same_bytes() {
    // Every tool's `tools/list` entry, the profiles that list it, and the command line a call
    // with every argument (and with only the required ones) runs: the MCP server's whole surface
    // apart from the session-wide arguments, which one function adds to every tool.
    use agent_browser::mcp::tools;
    let mut out = String::new();
    for tool in tools::all() {
        let profiles: Vec<&str> = tools::PROFILES
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| tool.enabled(&[p.to_string()]))
            .collect();
        let _ = writeln!(out, "== {} [{}]", tool.name(), profiles.join(","));
        let _ = writeln!(out, "{}", tool.listing(false));
        let schema = tool.schema(false);
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: Vec<&Value> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        let params = match &tool {
            tools::Tool::Spec(spec) => tools::params(spec),
            tools::Tool::Generic { .. } => Vec::new(),
        };
        let value_of = |name: &str| {
            params
                .iter()
                .find(|p| p.name == name)
                .map_or_else(|| json!(["x", "y"]), |p| sample_argument(&p.kind))
        };
        let mut every = serde_json::Map::new();
        let mut needed = serde_json::Map::new();
        for name in properties.keys().filter(|n| *n != "session") {
            every.insert(name.clone(), value_of(name));
            if required.iter().any(|r| r.as_str() == Some(name)) {
                needed.insert(name.clone(), value_of(name));
            }
        }
        for args in [Value::Object(every), Value::Object(needed)] {
            match tool.argv(&args) {
                Ok(call) => {
                    let _ = writeln!(
                        out,
                        "  {args} -> global {:?} words {:?} stdin {:?}",
                        call.global, call.words, call.stdin
                    );
                }
                Err(e) => {
                    let _ = writeln!(out, "  {args} -> refused {:?}", e.0);
                }
            }
        }
    }
    check("mcp-tools.txt", &out);
}
