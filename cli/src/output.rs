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

use serde_json::Value;

/// A daemon response (`id` ignored); the wire type both sides share.
pub use abx_wire::Response;

use crate::commands::error::ParseError;
use crate::commands::invocation::{CliError, Failure};

pub(crate) mod errors;
pub(crate) mod rendered;
pub mod text;

pub use errors::{error_json, render_error, render_warning, typed_error_json};
pub use rendered::{OutputOptions, PassedText, Rendered, random_nonce};
pub use text::{Palette, Render, Text};
use text::{b, json_string, s};

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
        if let Some(note) = lifecycle_note(data) {
            r.err(&format!("{} {note}", p.dim("[agent-browser]")));
        }
        let render = action
            .and_then(crate::commands::registry::action)
            .map_or(Render::DEFAULT, |a| a.render);
        text::render_data(&mut Text::new(&mut r, opts), data, &render);
    }
    if let Some(w) = &resp.warning {
        r.err(&format!("{} {w}", p.warn()));
    }
    r
}

/// [`render_response`] of a reply with the text the daemon passed as a memory file beside it,
/// if any (`passed`: its `data` key and file; the member itself is an empty string). A snapshot
/// printed as it is (half a megabyte on a large page) is printed straight from the file: the
/// reply is rendered with its empty text, which must print exactly an empty line, and the file
/// goes before that line. Anything else renders the reply with the text read into it.
pub fn render_owned_response(
    mut resp: Response,
    action: Option<&str>,
    opts: &OutputOptions,
    passed: Option<(String, PassedText)>,
) -> Rendered {
    let Some((key, file)) = passed else {
        return render_response(&resp, action, opts);
    };
    let render = action
        .and_then(crate::commands::registry::action)
        .map_or(Render::DEFAULT, |a| a.render);
    let plain = !opts.json
        && resp.success
        && opts.max_output.is_none()
        && !opts.content_boundaries
        && render.first.is_none()
        && render.diff.is_none()
        && key == "snapshot"
        && resp.data.as_ref().is_some_and(|data| {
            data.get("url").is_none() && data.get("cdpUrl").is_none() && data[&key] == ""
        });
    if plain {
        let mut rendered = render_response(&resp, action, opts);
        if rendered.stdout == "\n" {
            rendered.stdout_file = Some(file);
            return rendered;
        }
    }
    if let Some(data) = resp.data.as_mut().and_then(Value::as_object_mut) {
        data.insert(key, Value::String(file.text()));
    }
    render_response(&resp, action, opts)
}

/// The stderr note upstream prints before a reply's text when the command started or replaced
/// the browser, or restored or saved state: `launched browser`, `relaunched browser`,
/// `restore: loaded`, `save: saved`, joined by `; `. `None` when there is nothing to say.
fn lifecycle_note(data: &Value) -> Option<String> {
    let lifecycle = data.get("lifecycle")?;
    let flag = |key: &str| b(lifecycle, key).unwrap_or(false);
    let mut parts: Vec<String> = Vec::new();
    if flag("relaunchedBrowser") {
        parts.push("relaunched browser".into());
    } else if flag("launched") && !flag("reused") {
        parts.push("launched browser".into());
    }
    if let Some(status) = s(lifecycle, "restoreStatus")
        && !matches!(status, "not_configured" | "pending")
    {
        parts.push(format!("restore: {status}"));
    }
    if let Some(status) = s(lifecycle, "saveStatus")
        && !matches!(status, "not_attempted" | "not_configured")
    {
        parts.push(format!("save: {status}"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Accumulates `batch` results: text mode prints each step as it comes (blank line between
/// steps, errors as `✗ Command <n>: …` on stderr); `--json` prints one array at the end.
#[derive(Debug, Clone)]
pub struct BatchReport {
    opts: OutputOptions,
    omit_command: bool,
    rendered: Rendered,
    results: Vec<Value>,
    printed_any: bool,
}

impl BatchReport {
    /// An empty report.
    pub fn new(opts: &OutputOptions) -> Self {
        Self {
            opts: opts.clone(),
            omit_command: false,
            rendered: Rendered::default(),
            results: Vec::new(),
            printed_any: false,
        }
    }

    /// `--omit-command`: each `--json` result names its step by `index`, not by `command`.
    pub fn omitting_command(mut self, omit: bool) -> Self {
        self.omit_command = omit;
        self
    }

    fn step_key(&self, index: usize, argv: &[String]) -> (&'static str, Value) {
        if self.omit_command {
            ("index", serde_json::json!(index))
        } else {
            ("command", serde_json::json!(argv))
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
            let (key, step) = self.step_key(index, argv);
            obj.insert(key.into(), step);
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
            let (key, step) = self.step_key(index, argv);
            let mut obj = serde_json::Map::new();
            obj.insert(key.into(), step);
            obj.insert("success".into(), Value::Bool(false));
            obj.insert("error".into(), Value::String(message.to_string()));
            self.results.push(Value::Object(obj));
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
        stdout: format!("agent-browser {}\n", crate::upstream::UPSTREAM_VERSION),
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

#[cfg(test)]
mod lifecycle_note_tests {
    use serde_json::json;

    use super::lifecycle_note;

    #[test]
    fn a_command_that_started_the_browser_says_launched_browser() {
        let data = json!({"lifecycle": {"launched": true, "reused": false,
            "relaunchedBrowser": false, "restoreStatus": "not_configured",
            "saveStatus": "not_attempted"}});
        assert_eq!(lifecycle_note(&data).as_deref(), Some("launched browser"));
    }

    #[test]
    fn a_reused_browser_and_unconfigured_restore_say_nothing() {
        let data = json!({"lifecycle": {"launched": true, "reused": true,
            "relaunchedBrowser": false, "restoreStatus": "pending",
            "saveStatus": "not_configured"}});
        assert_eq!(lifecycle_note(&data), None);
        assert_eq!(lifecycle_note(&json!({"url": "about:blank"})), None);
    }

    #[test]
    fn a_relaunch_with_restore_and_save_joins_the_parts() {
        let data = json!({"lifecycle": {"launched": true, "reused": false,
            "relaunchedBrowser": true, "restoreStatus": "loaded", "saveStatus": "saved"}});
        assert_eq!(
            lifecycle_note(&data).as_deref(),
            Some("relaunched browser; restore: loaded; save: saved")
        );
    }
}

#[cfg(test)]
mod owned_response_tests {
    use serde_json::json;

    use super::{OutputOptions, PassedText, Response, render_owned_response, render_response};

    /// `text` in a memory file whose offset is at its end, as the daemon's is.
    fn passed_file(text: &str) -> PassedText {
        use std::io::Write as _;
        let fd = nix::sys::memfd::memfd_create(c"t", nix::sys::memfd::MemFdCreateFlag::empty())
            .expect("memfd");
        let mut file = std::fs::File::from(fd);
        file.write_all(text.as_bytes()).expect("written");
        PassedText::new(file, text.len())
    }

    /// Moving the page text out must never change what is printed.
    #[test]
    fn an_owned_reply_renders_as_the_borrowed_one_does() {
        let replies = [
            json!({"success": true, "data": {"origin": "http://a/", "refs": {}, "snapshot": "- heading \"A\" [ref=e1]\n  - text: b"}}),
            json!({"success": true, "data": {"origin": "http://a/", "snapshot": ""}}),
            json!({"success": true, "data": {"snapshot": "- a", "lifecycle": {"launched": true}}, "warning": "w"}),
            json!({"success": true, "data": {"url": "http://a/", "snapshot": "- a"}}),
            json!({"success": true, "data": {"snapshot": {"kind": "unchanged", "revision": 3}}}),
            json!({"success": false, "error": "boom", "data": {"snapshot": "- a"}}),
        ];
        let options = [
            OutputOptions::default(),
            OutputOptions {
                max_output: Some(4),
                ..OutputOptions::default()
            },
            OutputOptions {
                content_boundaries: true,
                boundary_nonce: "n".into(),
                ..OutputOptions::default()
            },
            OutputOptions {
                json: true,
                ..OutputOptions::default()
            },
        ];
        for reply in &replies {
            for opts in &options {
                for action in [
                    Some("snapshot"),
                    Some("url"),
                    Some("diff_snapshot"),
                    Some("evaluate"),
                    Some("read"),
                    None,
                ] {
                    let resp: Response = serde_json::from_value(reply.clone()).expect("a reply");
                    let want = render_response(&resp, action, opts);
                    assert_eq!(
                        render_owned_response(resp.clone(), action, opts, None),
                        want,
                        "{reply} {action:?} {opts:?}"
                    );
                    // The same reply with its text passed as a memory file prints the same.
                    let Some(text) = reply["data"]["snapshot"].as_str() else {
                        continue;
                    };
                    let mut emptied = resp.clone();
                    if let Some(data) = emptied.data.as_mut() {
                        data["snapshot"] = json!("");
                    }
                    let passed = Some(("snapshot".to_string(), passed_file(text)));
                    let got = render_owned_response(emptied, action, opts, passed);
                    let printed = got
                        .stdout_file
                        .as_ref()
                        .map(PassedText::text)
                        .unwrap_or_default()
                        + &got.stdout;
                    assert_eq!(printed, want.stdout, "{reply} {action:?} {opts:?}");
                    assert_eq!(got.stderr, want.stderr);
                    assert_eq!(got.exit_code, want.exit_code);
                }
            }
        }
    }
}
