//! Rendering daemon responses: each text rule, `--json`, truncation and content boundaries.

use agent_browser::output::{
    BatchReport, OutputOptions, Rendered, Response, render_close_all, render_error,
    render_response, render_session_list,
};
use serde_json::{Value, json};

const NONCE: &str = "0123456789abcdef0123456789abcdef";

fn text() -> OutputOptions {
    OutputOptions {
        boundary_nonce: NONCE.to_string(),
        ..OutputOptions::default()
    }
}

fn json_mode() -> OutputOptions {
    OutputOptions {
        json: true,
        ..text()
    }
}

fn ok(data: Value) -> Response {
    Response {
        success: true,
        data: Some(data),
        ..Response::default()
    }
}

fn out(action: &str, data: Value) -> String {
    let r = render_response(&ok(data), Some(action), &text());
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.stderr, "", "{action}: unexpected stderr");
    r.stdout
}

#[test]
fn each_text_rule_prints_upstreams_wording() {
    let table: Vec<(&str, Value, &str)> = vec![
        (
            "navigate",
            json!({"url": "https://x.test/", "title": "X", "lifecycle": {}}),
            "✓ X\n  https://x.test/\n",
        ),
        (
            "back",
            json!({"url": "https://x.test/"}),
            "https://x.test/\n",
        ),
        (
            "tab_new",
            json!({"tabId": "t2", "label": null, "url": "about:blank", "total": 2}),
            "about:blank\n",
        ),
        (
            "tab_switch",
            json!({"tabId": "t2", "url": "https://y/", "title": "Y"}),
            "✓ Y\n  https://y/\n",
        ),
        (
            "cdp_url",
            json!({"cdpUrl": "ws://127.0.0.1:1/devtools/browser/u"}),
            "ws://127.0.0.1:1/devtools/browser/u\n",
        ),
        (
            "snapshot",
            json!({"snapshot": "- heading \"Hi\" [level=1, ref=e1]", "origin": "https://x/"}),
            "- heading \"Hi\" [level=1, ref=e1]\n",
        ),
        (
            "snapshot",
            json!({"snapshot": {"kind": "unchanged", "revision": 3}}),
            "unchanged (revision 3)\n",
        ),
        ("title", json!({"title": "Fixture Page"}), "Fixture Page\n"),
        (
            "gettext",
            json!({"text": "hello", "origin": "https://x/"}),
            "hello\n",
        ),
        ("innerhtml", json!({"html": "<b>x</b>"}), "<b>x</b>\n"),
        ("inputvalue", json!({"value": "v"}), "v\n"),
        ("count", json!({"count": 4, "selector": "li"}), "4\n"),
        (
            "boundingbox",
            json!({"x": 8, "y": 8.5, "width": 100, "height": 20}),
            "x:      8\ny:      8.5\nwidth:  100\nheight: 20\n",
        ),
        (
            "styles",
            json!({"styles": {"color": "red", "opacity": 1}}),
            "color: red\nopacity: 1\n",
        ),
        (
            "isvisible",
            json!({"visible": false, "origin": "o"}),
            "false\n",
        ),
        ("isenabled", json!({"enabled": true}), "true\n"),
        ("ischecked", json!({"checked": true}), "true\n"),
        (
            "evaluate",
            json!({"result": "Fixture Page", "origin": "o"}),
            "\"Fixture Page\"\n",
        ),
        (
            "evaluate",
            json!({"result": {"a": 1}}),
            "{\n  \"a\": 1\n}\n",
        ),
        ("evaluate", json!({"result": null}), "null\n"),
        (
            "tab_list",
            json!({"tabs": [
                {"tabId": "t1", "label": null, "title": "One", "url": "https://1/", "active": true},
                {"tabId": "t2", "label": "docs", "title": "Two", "url": "https://2/", "active": false}
            ]}),
            "→ [t1] One - https://1/\n  [t2] docs Two - https://2/\n",
        ),
        (
            "window_new",
            json!({"tabId": "t4", "total": 2}),
            "✓ Window opened [t4] (2 total)\n",
        ),
        (
            "console",
            json!({"messages": [{"type": "log", "text": "hello {a: 1}"}, {"type": "error", "text": "bad"}]}),
            "[log] hello {a: 1}\n[error] bad\n",
        ),
        (
            "errors",
            json!({"errors": [{"text": "Error: boom", "line": 1}]}),
            "✗ Error: boom\n",
        ),
        (
            "cookies_get",
            json!({"cookies": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]}),
            "a=1\nb=2\n",
        ),
        (
            "requests",
            json!({"requests": [
                {"requestId": "1.1", "method": "GET", "url": "https://x/", "resourceType": "Document", "status": 200},
                {"requestId": "1.2", "method": "POST", "url": "https://x/api", "resourceType": "XHR"}
            ]}),
            "[1.1] GET https://x/ (Document) 200\n[1.2] POST https://x/api (XHR)\n",
        ),
        (
            "requests",
            json!({"requests": []}),
            "No requests captured\n",
        ),
        (
            "cookies_clear",
            json!({"cleared": true}),
            "✓ Cookies cleared\n",
        ),
        (
            "console",
            json!({"cleared": true}),
            "✓ Console log cleared\n",
        ),
        (
            "requests",
            json!({"cleared": true}),
            "✓ Request log cleared\n",
        ),
        (
            "storage_clear",
            json!({"cleared": true}),
            "✓ Storage cleared\n",
        ),
        (
            "storage_get",
            json!({"data": {"k": "v", "n": 1}}),
            "k: v\nn: 1\n",
        ),
        ("storage_get", json!({"data": {}}), "No storage entries\n"),
        ("storage_get", json!({"key": "k", "value": "v"}), "k: v\n"),
        (
            "tab_close",
            json!({"tabId": "t3", "label": null, "closed": true}),
            "✓ Tab [t3] closed\n",
        ),
        (
            "close",
            json!({"closed": true, "restoreStatus": "not_configured"}),
            "✓ Browser closed\n",
        ),
        (
            "stream_status",
            json!({"enabled": true, "port": 9333, "connected": false, "screencasting": false}),
            "Streaming enabled on ws://127.0.0.1:9333\nConnected: false\nScreencasting: false\n",
        ),
        (
            "stream_disable",
            json!({"disabled": true}),
            "Streaming disabled\n",
        ),
        (
            "dialog",
            json!({"hasDialog": false}),
            "✓ No dialog is currently open\n",
        ),
        (
            "dialog",
            json!({"hasDialog": true, "type": "prompt", "message": "name?", "defaultPrompt": "x"}),
            "⚠ JavaScript prompt dialog is open: \"name?\"\n  Default prompt text: \"x\"\n  Use `dialog accept [text]` or `dialog dismiss` to resolve it\n",
        ),
        (
            "inspect",
            json!({"opened": true, "url": "http://127.0.0.1:1/"}),
            "✓ Opened DevTools: http://127.0.0.1:1/\n",
        ),
        (
            "read",
            json!({"content": "# Doc", "url": "https://x/", "finalUrl": "https://x/doc"}),
            "# Doc\n",
        ),
        (
            "pdf",
            json!({"path": "/tmp/a.pdf"}),
            "✓ PDF saved to /tmp/a.pdf\n",
        ),
        (
            "trace_stop",
            json!({"path": "t.json"}),
            "✓ Trace saved to t.json\n",
        ),
        (
            "profiler_stop",
            json!({"path": "p.json", "eventCount": 12}),
            "✓ Profile saved to p.json (12 events)\n",
        ),
        (
            "har_stop",
            json!({"path": "o.har", "requestCount": 3}),
            "✓ HAR saved to o.har (3 requests)\n",
        ),
        (
            "download",
            json!({"path": "/tmp/d"}),
            "✓ Download saved to /tmp/d\n",
        ),
        (
            "state_save",
            json!({"saved": true, "path": "s.json"}),
            "✓ State saved to s.json\n",
        ),
        (
            "state_load",
            json!({"loaded": true, "path": "s.json"}),
            "✓ State path set to s.json\n",
        ),
        (
            "screenshot",
            json!({"path": "/tmp/s.png", "annotations": [
                {"number": 1, "ref": "e1", "role": "heading", "name": "Hello Fixture"},
                {"number": 2, "ref": "e2", "role": "button", "name": ""}
            ]}),
            "✓ Screenshot saved to /tmp/s.png\n   [1] @e1 heading \"Hello Fixture\"\n   [2] @e2 button\n",
        ),
        (
            "har_start",
            json!({"started": true}),
            "✓ HAR recording started\n",
        ),
        (
            "trace_start",
            json!({"started": true}),
            "✓ Recording started\n",
        ),
        (
            "diff_snapshot",
            json!({"changed": false}),
            "✓ No changes detected\n",
        ),
        (
            "diff_snapshot",
            json!({"changed": true, "diff": "--- before\n+++ after\n+ a", "additions": 1, "removals": 0, "unchanged": 0}),
            "--- before\n+++ after\n+ a\n\n1 additions, 0 removals, 0 unchanged\n",
        ),
        (
            "click",
            json!({"confirmation_required": true, "category": "click", "description": "Click buy", "confirmation_id": "c1"}),
            "Confirmation required:\n  click: Click buy\n  Run: agent-browser confirm c1\n  Or:  agent-browser deny c1\n",
        ),
        (
            "confirm",
            json!({"confirmed": true}),
            "✓ Action confirmed\n",
        ),
        ("deny", json!({"denied": true}), "✓ Action denied\n"),
        (
            "click",
            json!({"clicked": "@e1", "lifecycle": {"reused": true}}),
            "✓ Done\n",
        ),
        ("wait", json!({"waited": "timeout", "ms": 10}), "✓ Done\n"),
        ("wait", json!({"waited": "text", "text": "hi"}), "hi\n"),
        (
            "launch",
            json!({"launched": true, "reused": false}),
            "✓ Done\n",
        ),
    ];
    for (action, data, want) in table {
        assert_eq!(out(action, data.clone()), want, "{action} {data}");
    }
}

#[test]
fn failures_go_to_stderr_with_exit_1_and_warnings_follow() {
    let resp = Response {
        success: false,
        error: Some("Element not found: #missing.".into()),
        warning: Some("A JavaScript confirm dialog is blocking the page".into()),
        ..Response::default()
    };
    let r = render_response(&resp, Some("click"), &text());
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "✗ Element not found: #missing.\n⚠ A JavaScript confirm dialog is blocking the page\n"
    );
    assert_eq!(r.exit_code, 1);

    let warned = Response {
        warning: Some("dialog pending".into()),
        ..ok(json!({"clicked": "@e1"}))
    };
    let r = render_response(&warned, Some("click"), &text());
    assert_eq!(
        (r.stdout.as_str(), r.stderr.as_str()),
        ("✓ Done\n", "⚠ dialog pending\n")
    );

    assert_eq!(
        render_error("Daemon failed to start", &text()),
        Rendered {
            stdout: String::new(),
            stderr: "✗ Daemon failed to start\n".into(),
            exit_code: 1,
            ..Rendered::default()
        }
    );
    assert_eq!(
        render_error("Daemon failed to start", &json_mode()).stdout,
        "{\"error\":\"Daemon failed to start\",\"success\":false}\n"
    );
}

#[test]
fn json_mode_prints_one_envelope_line_with_explicit_nulls() {
    let r = render_response(&ok(json!({"url": "https://x/"})), Some("url"), &json_mode());
    assert_eq!(
        r.stdout,
        "{\"success\":true,\"data\":{\"url\":\"https://x/\"},\"error\":null}\n"
    );
    assert_eq!(r.exit_code, 0);

    let gone = Response {
        success: false,
        data: Some(json!({"targetId": "T1"})),
        error: Some("tab_gone: bound tab is gone".into()),
        code: Some("tab_gone".into()),
        warning: None,
    };
    let r = render_response(&gone, Some("url"), &json_mode());
    assert_eq!(
        r.stdout,
        "{\"success\":false,\"data\":{\"targetId\":\"T1\"},\"error\":\"tab_gone: bound tab is gone\",\"code\":\"tab_gone\"}\n"
    );
    assert_eq!(r.exit_code, 1);

    let bare = Response {
        success: false,
        error: Some("x".into()),
        warning: Some("w".into()),
        ..Response::default()
    };
    assert_eq!(
        render_response(&bare, None, &json_mode()).stdout,
        "{\"success\":false,\"data\":null,\"error\":\"x\",\"warning\":\"w\"}\n"
    );
}

#[test]
fn json_with_boundaries_adds_a_sorted_boundary_object() {
    let opts = OutputOptions {
        content_boundaries: true,
        ..json_mode()
    };
    let r = render_response(
        &ok(json!({"text": "t", "origin": "https://x/"})),
        Some("gettext"),
        &opts,
    );
    assert_eq!(
        r.stdout,
        format!(
            "{{\"_boundary\":{{\"nonce\":\"{NONCE}\",\"origin\":\"https://x/\"}},\"data\":{{\"origin\":\"https://x/\",\"text\":\"t\"}},\"error\":null,\"success\":true}}\n"
        )
    );
}

#[test]
fn max_output_truncates_page_text() {
    let opts = OutputOptions {
        max_output: Some(5),
        ..text()
    };
    let r = render_response(&ok(json!({"text": "héllo world"})), Some("gettext"), &opts);
    assert_eq!(
        r.stdout,
        "héllo\n[truncated: showing 5 of 11 chars. Use --max-output to adjust]\n"
    );
    let r = render_response(&ok(json!({"text": "short"})), Some("gettext"), &opts);
    assert_eq!(r.stdout, "short\n");
    // Titles are not page content.
    let r = render_response(&ok(json!({"title": "a long title"})), Some("title"), &opts);
    assert_eq!(r.stdout, "a long title\n");
}

#[test]
fn content_boundaries_wrap_page_text_with_the_nonce_and_origin() {
    let opts = OutputOptions {
        content_boundaries: true,
        max_output: Some(3),
        ..text()
    };
    let r = render_response(
        &ok(json!({"snapshot": "- doc", "origin": "https://x/"})),
        Some("snapshot"),
        &opts,
    );
    assert_eq!(
        r.stdout,
        format!(
            "--- AGENT_BROWSER_PAGE_CONTENT nonce={NONCE} origin=https://x/ ---\n- d\n[truncated: showing 3 of 5 chars. Use --max-output to adjust]\n--- END_AGENT_BROWSER_PAGE_CONTENT nonce={NONCE} ---\n"
        )
    );
    let r = render_response(
        &ok(json!({"result": 1})),
        Some("evaluate"),
        &OutputOptions {
            max_output: None,
            ..opts
        },
    );
    assert!(r.stdout.contains("origin=unknown ---\n1\n"), "{}", r.stdout);
}

#[test]
fn colours_only_when_enabled() {
    let opts = OutputOptions {
        color: true,
        ..text()
    };
    let r = render_response(&ok(json!({"clicked": "x"})), Some("click"), &opts);
    assert_eq!(r.stdout, "\x1b[32m✓\x1b[0m Done\n");
    assert_eq!(out("click", json!({"clicked": "x"})), "✓ Done\n");
}

#[test]
fn batch_reports_each_step() {
    let argv = |w: &[&str]| w.iter().map(ToString::to_string).collect::<Vec<_>>();
    let mut report = BatchReport::new(&text());
    report.push_response(
        0,
        &argv(&["get", "url"]),
        &ok(json!({"url": "https://x/"})),
        Some("url"),
    );
    report.push_error(1, &argv(&["bogus"]), "Unknown command: bogus");
    report.push_response(
        2,
        &argv(&["get", "title"]),
        &ok(json!({"title": "X"})),
        Some("title"),
    );
    assert!(report.failed());
    let r = report.finish();
    assert_eq!(r.stdout, "https://x/\n\nX\n");
    assert_eq!(r.stderr, "✗ Command 2: Unknown command: bogus\n");
    assert_eq!(r.exit_code, 1);

    let mut report = BatchReport::new(&json_mode());
    report.push_response(
        0,
        &argv(&["get", "url"]),
        &ok(json!({"url": "u"})),
        Some("url"),
    );
    let r = report.finish();
    assert_eq!(
        r.stdout,
        "[{\"command\":[\"get\",\"url\"],\"error\":null,\"result\":{\"url\":\"u\"},\"success\":true}]\n"
    );
    assert_eq!(r.exit_code, 0);
}

#[test]
fn session_and_close_all_listings() {
    let sessions = vec!["a".to_string(), "fake".to_string()];
    assert_eq!(
        render_session_list(&sessions, "fake", &text()).stdout,
        "Active sessions:\n  a\n→ fake\n"
    );
    assert_eq!(
        render_session_list(&[], "fake", &text()).stdout,
        "No active sessions\n"
    );
    assert_eq!(
        render_session_list(&sessions, "fake", &json_mode()).stdout,
        "{\"success\":true,\"data\":{\"sessions\":[\"a\",\"fake\"]}}\n"
    );
    let r = render_close_all(
        &["a".to_string()],
        &[("b".to_string(), "boom".to_string())],
        &text(),
    );
    assert_eq!(r.stdout, "✓ Closed session: a\n");
    assert_eq!(r.stderr, "✗ Failed to close b: boom\n");
    assert_eq!(r.exit_code, 1);
    assert_eq!(
        render_close_all(&[], &[], &text()).stdout,
        "No active sessions\n"
    );
}

#[test]
fn responses_deserialize_from_daemon_lines() {
    let resp: Response = serde_json::from_str(r#"{"data":{"url":"u"},"id":"r1","success":true}"#)
        .expect("response line");
    assert_eq!(resp, ok(json!({"url": "u"})));
}
