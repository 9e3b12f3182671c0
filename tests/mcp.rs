//! `agent-browser mcp`: the stdio MCP server driven by a scripted JSON-RPC client (initialize,
//! tools/list, a tools/call that opens a fixture page and reads it, malformed input), and
//! `mcp call` from the shell.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use abx_tests::cli::Cli;
use serde_json::{Value, json};

mod common;

/// A JSON-RPC client over the server's stdin/stdout, one message per line.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Client {
    fn start(ab: &Cli, args: &[&str]) -> Client {
        let mut child = ab
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcp server");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            lines,
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next message the server writes (each must be one JSON object on one line).
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answered within 60 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let reply = self.next();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// Closes stdin and waits for the server to exit on its own.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        for _ in 0..500 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the server did not exit after stdin closed");
    }
}

#[test]
fn mcp_server_lists_core_tools_and_a_tool_call_drives_a_fixture_page() {
    let site = common::site();
    let ab = Cli::new().session("mcp1");
    let mut client = Client::start(&ab, &["mcp"]);

    let init = client.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "agent-browser");
    client.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    let listed = client.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for expected in [
        "agent_browser_open",
        "agent_browser_snapshot",
        "agent_browser_click",
        "agent_browser_get_text",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(
        !names.contains(&"agent_browser_network"),
        "the default list must stay small: {names:?}"
    );
    for tool in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{tool}"
        );
    }
    let size = listed["result"].to_string().len();
    assert!(size < 10_000, "default tools/list is {size} characters");

    let opened = client.request(
        3,
        "tools/call",
        json!({"name": "agent_browser_open", "arguments": {"url": site.url("/fixture.html")}}),
    );
    assert_eq!(opened["result"]["isError"], false, "{opened}");
    let read = client.request(
        4,
        "tools/call",
        json!({"name": "agent_browser_get_text", "arguments": {"selector": "h1"}}),
    );
    assert_eq!(read["result"]["isError"], false, "{read}");
    assert_eq!(read["result"]["content"][0]["type"], "text");
    assert_eq!(
        read["result"]["content"][0]["text"], "Hello Fixture",
        "{read}"
    );
    assert_eq!(
        read["result"]["structuredContent"]["response"]["data"]["text"],
        "Hello Fixture"
    );

    // The page's own errors are tool results with isError, in the CLI's words.
    let missing = client.request(
        5,
        "tools/call",
        json!({"name": "agent_browser_click", "arguments": {"selector": "#no-such-element"}}),
    );
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    assert!(
        missing["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("#no-such-element")),
        "{missing}"
    );

    // One session per server: the server's calls went to this CLI's session.
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/fixture.html")
    );

    let closed = client.request(6, "tools/call", json!({"name": "agent_browser_close"}));
    assert_eq!(closed["result"]["isError"], false, "{closed}");
    assert!(client.finish().success());
}

#[test]
fn mcp_server_answers_malformed_json_rpc_with_errors_and_keeps_serving() {
    let ab = Cli::new().session("mcp2");
    let mut client = Client::start(&ab, &["mcp"]);
    client.send_raw("this is not json");
    let parse = client.next();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null);
    client.send_raw("[1, 2, 3]");
    assert_eq!(client.next()["error"]["code"], -32600);
    client.send_raw(r#"{"jsonrpc":"2.0","id":7}"#);
    assert_eq!(client.next()["error"]["code"], -32600);
    let unknown_method = client.request(8, "resources/nope", json!({}));
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");
    let unknown_tool = client.request(9, "tools/call", json!({"name": "agent_browser_nope"}));
    assert_eq!(unknown_tool["error"]["code"], -32602, "{unknown_tool}");
    // A tool outside the enabled profiles is not callable either.
    let disabled = client.request(
        10,
        "tools/call",
        json!({"name": "agent_browser_network", "arguments": {"args": ["requests"]}}),
    );
    assert_eq!(disabled["error"]["code"], -32602, "{disabled}");
    let bad_args = client.request(
        11,
        "tools/call",
        json!({"name": "agent_browser_open", "arguments": {"address": "x"}}),
    );
    assert_eq!(bad_args["error"]["code"], -32602, "{bad_args}");
    assert!(
        bad_args["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("address") && m.contains("url")),
        "{bad_args}"
    );
    let wrong_type = client.request(
        12,
        "tools/call",
        json!({"name": "agent_browser_open", "arguments": {"url": 42}}),
    );
    assert_eq!(wrong_type["error"]["code"], -32602, "{wrong_type}");
    // Still alive and answering after all that; nothing launched a browser.
    assert_eq!(client.request(13, "ping", json!({}))["result"], json!({}));
    assert!(client.finish().success());
    assert!(ab.daemon_pid().is_none(), "bad calls started a daemon");
}

#[test]
fn mcp_tools_all_lists_every_command_and_stateless_discover_works() {
    let ab = Cli::new().session("mcp3");
    let mut client = Client::start(&ab, &["mcp", "--tools", "all"]);
    // The 2026-07-28 revision has no handshake: discovery and listing work straight away.
    let discovered = client.request(1, "server/discover", json!({}));
    assert!(
        discovered["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.iter().any(|v| v == "2025-11-25")),
        "{discovered}"
    );
    let listed = client.request(2, "tools/list", json!({}));
    let names: Vec<String> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    // Upstream's full set (156 tools in 0.41.2), each with the session-wide arguments.
    for expected in [
        "agent_browser_network_route",
        "agent_browser_cookies_get",
        "agent_browser_tab_list",
        "agent_browser_stream_status",
        "agent_browser_dashboard_start",
        "agent_browser_dashboard_stop",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
    assert!(names.len() >= 156, "{} tools", names.len());
    for tool in listed["result"]["tools"].as_array().expect("tools") {
        for common in ["session", "extraArgs", "timeoutMs"] {
            assert!(
                tool["inputSchema"]["properties"].get(common).is_some(),
                "{} has no {common}",
                tool["name"]
            );
        }
    }
    assert!(client.finish().success());
}

#[test]
fn mcp_call_runs_one_tool_from_the_shell_with_upstreams_exit_codes() {
    let site = common::site();
    let ab = Cli::new().session("mcp4");
    let opened = ab
        .run(&[
            "mcp",
            "call",
            "agent_browser_open",
            &json!({"url": site.url("/page1.html")}).to_string(),
        ])
        .success()
        .json();
    assert_eq!(opened["isError"], false, "{opened}");
    assert_eq!(opened["_meta"]["agentBrowserVersion"], "0.41.2");
    let title = ab
        .run(&["mcp", "call", "agent_browser_get_title", "{}"])
        .success()
        .json();
    assert_eq!(title["content"][0]["text"], "Page One", "{title}");

    // The tool's own failure: exit 1 and isError.
    let failed = ab.run(&[
        "mcp",
        "call",
        "agent_browser_click",
        r##"{"selector":"#gone"}"##,
    ]);
    assert_eq!(failed.code, 1, "{failed:?}");
    assert_eq!(failed.json()["isError"], true);

    // Bad input: a JSON-RPC error on stdout and exit 2, as upstream documents.
    for args in [
        vec!["mcp", "call", "agent_browser_nope", "{}"],
        vec!["mcp", "call", "agent_browser_open", r#"{"urlx":1}"#],
        vec!["mcp", "call", "agent_browser_open", "not json"],
        vec![
            "mcp",
            "call",
            "agent_browser_tab",
            r#"{"args":["list"]}"#,
            "--tools",
            "core",
        ],
    ] {
        let out = ab.run(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert_eq!(out.json()["error"]["code"], -32602, "{args:?}: {out:?}");
    }
    // An unknown profile or subcommand is a plain CLI error.
    let bad = ab.run(&["mcp", "--tools", "everything"]).failure();
    assert!(bad.stderr.contains("everything"), "{bad:?}");
    assert_eq!(bad.code, 1);
    ab.run(&["close"]).success();
}

#[test]
fn unlisted_upstream_tools_answer_by_name_on_the_default_server() {
    let ab = Cli::new().session("mcp-unlisted");
    let mut client = Client::start(&ab, &["mcp"]);
    let status = client.request(
        1,
        "tools/call",
        json!({"name": "agent_browser_stream_status", "arguments": {"session": "mcp-unlisted"}}),
    );
    assert_eq!(status["result"]["isError"], false, "{status}");
    assert_eq!(
        status["result"]["structuredContent"]["response"]["success"], true,
        "{status}"
    );
    let unknown = client.request(2, "tools/call", json!({"name": "agent_browser_nope"}));
    assert_eq!(
        unknown["error"]["message"], "Unknown tool: agent_browser_nope",
        "{unknown}"
    );
    assert!(client.finish().success());
    ab.run(&["close"]);
}

/// Calls `tool` and returns its result, asserting it is not an error.
fn call_ok(client: &mut Client, id: i64, tool: &str, arguments: Value) -> Value {
    let reply = client.request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    );
    assert_eq!(reply["result"]["isError"], false, "{tool}: {reply}");
    reply["result"].clone()
}

fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Tools whose command grammar is unusual (a path as a word, a JSON flag, `find`'s index and
/// implied action, `set media`'s motion word, a password on stdin) run what upstream runs, and
/// replies read as upstream's (a screenshot's image, `(no output)`, the a11y report).
#[test]
fn mcp_tools_with_unusual_grammar_run_upstreams_commands_and_reply_as_upstream() {
    let site = common::site();
    let ab = Cli::new().session("mcp-grammar");
    let mut client = Client::start(&ab, &["mcp", "--tools", "all"]);
    call_ok(
        &mut client,
        1,
        "agent_browser_open",
        json!({"url": site.url("/form.html")}),
    );

    // find: an index given with `first` is not a word; `text` without an action clicks.
    call_ok(
        &mut client,
        2,
        "agent_browser_find",
        json!({"locator": "first", "value": "#name", "index": 3, "action": "fill", "text": "Ann"}),
    );
    call_ok(
        &mut client,
        3,
        "agent_browser_find",
        json!({"locator": "text", "value": "Submit", "text": "ignored"}),
    );
    let submitted = call_ok(
        &mut client,
        4,
        "agent_browser_get_text",
        json!({"selector": "#result"}),
    );
    assert!(
        first_text(&submitted).contains(r#""name":"Ann""#),
        "{submitted}"
    );

    // An empty value reads `(no output)`.
    let empty = call_ok(
        &mut client,
        5,
        "agent_browser_get_value",
        json!({"selector": "#email"}),
    );
    assert_eq!(first_text(&empty), "(no output)", "{empty}");

    call_ok(
        &mut client,
        6,
        "agent_browser_set_media",
        json!({"reducedMotion": "reduce"}),
    );
    let motion = call_ok(
        &mut client,
        7,
        "agent_browser_eval",
        json!({"script": "matchMedia('(prefers-reduced-motion: reduce)').matches"}),
    );
    assert_eq!(first_text(&motion), "true", "{motion}");

    // A screenshot's file comes back as image content too.
    let shot = ab.home().join("shot.png");
    let shot = shot.to_str().expect("utf-8 path");
    let taken = call_ok(
        &mut client,
        8,
        "agent_browser_screenshot",
        json!({"path": shot}),
    );
    assert_eq!(first_text(&taken), shot, "{taken}");
    assert_eq!(taken["content"][1]["type"], "image", "{taken}");
    assert_eq!(taken["content"][1]["mimeType"], "image/png");
    assert!(
        taken["content"][1]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBORw0KGgo")),
        "not a base64 PNG"
    );

    // The trace path is the command's word (a `--path` flag was saved as a file named `--path`).
    let trace = ab.home().join("trace.json");
    let trace = trace.to_str().expect("utf-8 path");
    call_ok(&mut client, 9, "agent_browser_trace_start", json!({}));
    let stopped = call_ok(
        &mut client,
        10,
        "agent_browser_trace_stop",
        json!({"path": trace}),
    );
    assert_eq!(first_text(&stopped), trace, "{stopped}");
    assert!(std::path::Path::new(trace).exists());

    // The a11y report reads as the CLI's, not as the audited URL.
    let audit = call_ok(
        &mut client,
        11,
        "agent_browser_a11y",
        json!({"url": site.url("/a11y-bad.html")}),
    );
    let report = first_text(&audit);
    assert!(
        report.starts_with("url: ") && report.contains("axe-core: "),
        "{report}"
    );

    // The password travels on the child's stdin: no command-line warning, and the server's
    // own stdin (the protocol) is untouched, so the next call is still answered.
    let saved = call_ok(
        &mut client,
        12,
        "agent_browser_auth_save",
        json!({"name": "site", "url": site.url("/login.html"), "username": "u", "password": "pw"}),
    );
    assert!(!first_text(&saved).contains("stderr:"), "{saved}");
    let shown = call_ok(
        &mut client,
        13,
        "agent_browser_auth_show",
        json!({"name": "site"}),
    );
    assert_eq!(
        shown["structuredContent"]["response"]["data"]["profile"]["username"], "u",
        "{shown}"
    );

    call_ok(&mut client, 14, "agent_browser_close", json!({}));
    assert!(client.finish().success());
}
