//! `state save|load <path>`: the session's storage state (every cookie of the browser, the web
//! storage of the active page's origin) to and from a file, in upstream's format (encrypted as
//! `<path>.enc` with `AGENT_BROWSER_ENCRYPTION_KEY`); and `state list|show|clear|clean|rename`:
//! operations on the saved states in `~/.agent-browser/sessions/`, which the CLI answers itself
//! ([`run_file_operation`]). The files themselves are `abx_daemon::state_files`.

use std::path::Path;

use abx_daemon::state_files::{self, StateDirs, StateKey};

use crate::commands::prelude::*;

/// `state save <path>`.
pub const SAVE: &str = "state_save";
/// `state load <path>`.
pub const LOAD: &str = "state_load";
/// `state list`.
pub const LIST: &str = "state_list";
/// `state show <file>`.
pub const SHOW: &str = "state_show";
/// `state clear [name] [--all]`.
pub const CLEAR: &str = "state_clear";
/// `state clean --older-than <days>`.
pub const CLEAN: &str = "state_clean";
/// `state rename <old> <new>`.
pub const RENAME: &str = "state_rename";

/// The file operations (never sent to the daemon).
const FILE_OPERATIONS: &[&str] = &[LIST, SHOW, CLEAR, CLEAN, RENAME];

/// Whether `action` is a state-file operation the CLI answers itself.
pub fn is_file_operation(action: &str) -> bool {
    FILE_OPERATIONS.contains(&action)
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["state"],
    help: Some(Help {
        about: "Manage browser state (cookies, localStorage, sessionStorage)",
        usage: &[
            "state <save|load|list|show|rename|clear|clean> ...",
            "state save <path>",
            "state load <path>",
            "state list",
            "state show <file>",
            "state rename <old-name> <new-name>",
            "state clear [name] [--all]",
            "state clean --older-than <days>",
        ],
        examples: &[
            "state save ./auth.json",
            "state load ./auth.json",
            "state list",
            "state show myapp-default.json",
            "state rename old-name new-name",
            "state clear --all",
            "state clean --older-than 7",
        ],
        description: "\
Saves and loads a session's storage state (all cookies, and web storage of the active page's
origin) as a JSON file, and manages the states saved in ~/.agent-browser/sessions/. With
AGENT_BROWSER_ENCRYPTION_KEY (64 hex characters, e.g. from `openssl rand -hex 32`) files are
encrypted. The global --restore saves and restores state automatically.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("save <path>", "Write the state to a file"),
                    ("load <path>", "Apply a state file to the session"),
                    ("list", "Saved states"),
                    ("show <file>", "What a state holds"),
                    ("rename <old> <new>", "Rename a saved state"),
                    ("clear [name]", "Delete a session's saved state"),
                    ("clean", "Delete old saved states"),
                ],
            ),
            (
                "Options",
                &[
                    ("-a, --all", "With clear: delete every saved state"),
                    ("--older-than <days>", "With clean: the age limit"),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(SAVE, |ctx| Box::pin(run_save(ctx)))
            .completing()
            .rendered(Render {
                saved: Some(saved),
                example: r#"{"path":"/tmp/state.json"}"#,
                ..Render::DEFAULT
            }),
        Action::queued(LOAD, |ctx| Box::pin(run_load(ctx)))
            .moving_tab()
            .rendered(Render {
                saved: Some(loaded),
                example: r#"{"path":"/tmp/state.json"}"#,
                ..Render::DEFAULT
            }),
        Action::local(LIST).rendered(Render {
            first: Some(listed),
            example: r#"{"files":[{"filename":"a.json","size":2048,"modified":"2026-01-01T00:00:00Z","encrypted":true}],"directory":"/states"}"#,
            ..Render::DEFAULT
        }),
        Action::local(SHOW).rendered(Render {
            first: Some(shown),
            example: r#"{"path":"s.json","summary":"2 cookies, 1 origin","encrypted":true}"#,
            ..Render::DEFAULT
        }),
        Action::local(CLEAR),
        Action::local(CLEAN),
        Action::local(RENAME),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        109,
        "agent_browser_state_save",
        "state",
        &["state", "save"],
        "path:s!",
    ),
    McpTool::new(
        110,
        "agent_browser_state_load",
        "state",
        &["state", "load"],
        "path:s!",
    ),
    McpTool::new(
        111,
        "agent_browser_state_list",
        "state",
        &["state", "list"],
        "",
    )
    .read_only(),
    McpTool::new(
        112,
        "agent_browser_state_clear",
        "state",
        &["state", "clear"],
        "name:s all:b@--all",
    ),
    McpTool::new(
        113,
        "agent_browser_state_show",
        "state",
        &["state", "show"],
        "path:s!",
    )
    .read_only(),
    McpTool::new(
        114,
        "agent_browser_state_clean",
        "state",
        &["state", "clean"],
        "olderThanDays:i!@--older-than",
    ),
    McpTool::new(
        115,
        "agent_browser_state_rename",
        "state",
        &["state", "rename"],
        "oldName:s! newName:s!",
    ),
];

/// `state save|load|show`: `{"path"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PathRequest {
    /// The state file (or its name).
    pub path: Option<String>,
}

/// `state clear` (answered by the CLI): `{"all"?, "sessionName"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearRequest {
    /// Every saved state.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Only this session's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
}

/// `state clean` (answered by the CLI): `{"days"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CleanRequest {
    /// Remove states older than this many days.
    pub days: Option<i64>,
}

/// `state rename` (answered by the CLI): `{"oldName", "newName"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameRequest {
    /// The current name (without `.json`).
    pub old_name: Option<String>,
    /// The new name (without `.json`).
    pub new_name: Option<String>,
}

/// The daemon's environment, read when a command needs it (the key may be set for this daemon).
fn daemon_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

async fn run_save(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: PathRequest = ctx.params()?;
    let path = required(&request.path, "path")?;
    let session = ctx.session().await?;
    let state = session.storage_state().await?;
    let key = StateKey::from_env(&daemon_var);
    let written = state_files::save(Path::new(path), &state, key.as_ref())
        .map_err(|e| Failure::message(e.to_string()))?;
    Ok(json!({"saved": true, "path": written.display().to_string()}))
}

async fn run_load(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: PathRequest = ctx.params()?;
    let path = required(&request.path, "path")?;
    let state = read_for_loading(Path::new(path), &daemon_var)?;
    let session = ctx.session().await?;
    let skipped = session.apply_storage_state(&state, ctx.timeout()).await?;
    Ok(json!({"loaded": true, "path": path, "skippedOrigins": skipped}))
}

/// Reads a state file for loading: refused when older than `AGENT_BROWSER_STATE_EXPIRE_DAYS`,
/// decrypted with `AGENT_BROWSER_ENCRYPTION_KEY`.
pub fn read_for_loading(
    path: &Path,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<abx_engine::storage_state::StorageState, Failure> {
    let key = StateKey::from_env(var);
    let expire = state_files::expire_days(var);
    let mut effective = path.to_path_buf();
    if !path.exists() && key.is_some() {
        let mut sealed = path.as_os_str().to_owned();
        sealed.push(".enc");
        effective = sealed.into();
    }
    state_files::check_not_expired(&effective, expire)
        .map_err(|e| Failure::message(e.to_string()))?;
    state_files::load(path, key.as_ref()).map_err(|e| Failure::message(e.to_string()))
}

/// Carries out `state list|show|clear|clean|rename` in the CLI process: the data of the reply,
/// or the error message. `var` is the CLI's environment with `--namespace` applied.
pub fn run_file_operation(
    request: &Value,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, String> {
    let dirs = StateDirs::from_env(var);
    let text = |key: &str| request.get(key).and_then(Value::as_str);
    let action = text("action").unwrap_or_default();
    let result = match action {
        LIST => Ok(state_files::list(&dirs)),
        SHOW => {
            let path = text("path").ok_or_else(|| abx_wire::Request::missing("path"))?;
            state_files::show(&dirs, path, StateKey::from_env(var).as_ref())
        }
        CLEAR => state_files::clear(
            &dirs,
            text("sessionName"),
            request.get("all").and_then(Value::as_bool) == Some(true),
        ),
        CLEAN => Ok(state_files::clean(
            &dirs,
            request.get("days").and_then(Value::as_u64).unwrap_or(30),
        )),
        RENAME => {
            let old = text("oldName").ok_or_else(|| abx_wire::Request::missing("oldName"))?;
            let new = text("newName").ok_or_else(|| abx_wire::Request::missing("newName"))?;
            state_files::rename(&dirs, old, new)
        }
        other => return Err(format!("Unknown state operation: {other}")),
    };
    result.map_err(|e| e.to_string())
}

/// `state list`: the directory, then one line per file with its size and date.
fn listed(t: &mut Text<'_>, data: &Value) -> bool {
    let p = t.p;
    let Some(files) = data.get("files").and_then(Value::as_array) else {
        return false;
    };
    t.out(&p.bold(&format!(
        "Saved states in {}",
        s(data, "directory").unwrap_or("")
    )));
    if files.is_empty() {
        t.out(&p.dim("  No state files found"));
    }
    for file in files {
        let size = u(file, "size").unwrap_or(0);
        let size = if size > 1024 {
            format!("{:.1}KB", size as f64 / 1024.0)
        } else {
            format!("{size}B")
        };
        let date = abx_engine::dates::rfc3339_seconds(u(file, "modified").unwrap_or(0) as i64);
        let date = date.split('T').next().unwrap_or_default().to_string();
        let encrypted = if b(file, "encrypted") == Some(true) {
            " [encrypted]"
        } else {
            ""
        };
        t.out(&format!(
            "  {} {}",
            s(file, "filename").unwrap_or(""),
            p.dim(&format!("({size}, {date}){encrypted}"))
        ));
    }
    true
}

/// `state show`: the file, whether it is encrypted, and what it holds.
fn shown(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(summary) = s(data, "summary") else {
        return false;
    };
    let encrypted = if b(data, "encrypted") == Some(true) {
        " (encrypted)"
    } else {
        ""
    };
    t.out(&format!("{}{encrypted}", s(data, "path").unwrap_or("")));
    t.out(&format!("  {summary}"));
    if let Some(origins) = data.pointer("/state/origins").and_then(Value::as_array) {
        for origin in origins {
            let count = |key: &str| {
                origin
                    .get(key)
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            };
            t.out(&format!(
                "  {}: {} localStorage, {} sessionStorage",
                s(origin, "origin").unwrap_or(""),
                count("localStorage"),
                count("sessionStorage")
            ));
        }
    }
    true
}

fn saved(t: &mut Text<'_>, _data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} State saved to {}", p.ok(), p.green(path)));
}

fn loaded(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    if let Some(note) = s(data, "note") {
        t.out(note);
    }
    t.out(&format!("{} State path set to {}", p.ok(), p.green(path)));
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
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
            Ok(encode(
                if op == "save" { SAVE } else { LOAD },
                &PathRequest {
                    path: Some(path.to_string()),
                },
            ))
        }
        Some("list") => Ok(encode(LIST, &NoParams {})),
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
            Ok(encode(
                CLEAR,
                &ClearRequest {
                    all,
                    session_name: name.map(str::to_string),
                },
            ))
        }
        Some("show") => {
            let file = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("state show", "state show <filename>"))?;
            Ok(encode(
                SHOW,
                &PathRequest {
                    path: Some(file.to_string()),
                },
            ))
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
            Ok(encode(CLEAN, &CleanRequest { days: Some(days) }))
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
            Ok(encode(
                RENAME,
                &RenameRequest {
                    old_name: Some(old.to_string()),
                    new_name: Some(new.to_string()),
                },
            ))
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "state",
            "state <save|load|list|clear|show|clean|rename> ...",
        )),
    }
}
