//! `abx-host` on stdio, driven as a Host in another language would: typed errors for bad
//! input, EOF ends the front's runs (a run the Host said waits at a gate is kept, and swept
//! by the next front once its Host says it ended, asked over the channel), and a viewer
//! carried on the channel.

mod common;

use std::time::Duration;

use common::{FrontProcess, Place, Site};
use serde_json::{Value, json};

#[test]
fn malformed_requests_get_typed_errors_and_the_front_keeps_serving() {
    let place = Place::new();
    let mut front = FrontProcess::start(&place.args());
    front.send_raw("{not json");
    let error = front.wait_for("a parse error", Duration::from_secs(10), |l| {
        l.get("error").is_some()
    });
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], "parse_error");
    let cases = [
        (json!({"id": "a", "op": 7}), "invalid_request"),
        (json!({"id": "b", "op": "fly"}), "unknown_op"),
        (
            json!({"id": "c", "op": "hello", "v": 9}),
            "unsupported_version",
        ),
        (
            json!({"id": "d", "op": "end_run", "args": {"run": "../../etc"}}),
            "invalid_request",
        ),
        (
            json!({"id": "e", "op": "prepare_stage", "args": {"scope": "local", "run": "r", "stage": "s", "spec": {"profil": "x"}}}),
            "invalid_request",
        ),
        (
            json!({"id": "f", "op": "answer", "args": {"ask_id": 99, "state": "running"}}),
            "unknown_ask",
        ),
        (
            json!({"id": "g", "op": "login_check", "args": {"scope": "local", "run": "r", "stage": "s", "check": {"url": "http://127.0.0.1:9/"}}}),
            "no_stage_env",
        ),
        (
            json!({"id": "h", "op": "viewer_send", "args": {"viewer": 5, "message": {}}}),
            "unknown_viewer",
        ),
        (
            json!({"id": "i", "op": "open_viewer", "args": {"scope": "local", "credential": "guess"}}),
            "live_view_denied",
        ),
    ];
    for (request, code) in cases {
        front.send_raw(&request.to_string());
        let id = request["id"].clone();
        let reply = front.wait_for("the error reply", Duration::from_secs(10), |l| {
            l["id"] == id
        });
        assert_eq!(reply["error"]["code"], code, "{request} → {reply}");
        assert!(reply["error"]["message"].is_string(), "{reply}");
    }
    let hello = front.call("hello", json!({})).expect("still serving");
    assert_eq!(hello["protocol"], 1);
    assert!(
        hello["operations"]
            .as_array()
            .is_some_and(|ops| ops.iter().any(|op| op == "prepare_stage")),
        "{hello}"
    );
    let status = front
        .close_stdin_and_wait(Duration::from_secs(30))
        .expect("EOF ends the front");
    assert!(status.success(), "{status}");
}

fn runs_in_socket_dirs(place: &Place) -> Vec<String> {
    let mut runs: Vec<String> = place
        .session_dirs()
        .iter()
        .filter_map(|dir| std::fs::read_to_string(dir.join("owner.json")).ok())
        .filter_map(|text| serde_json::from_str::<Value>(&text).ok())
        .filter_map(|owner| owner["run"].as_str().map(str::to_string))
        .collect();
    runs.sort();
    runs
}

#[test]
fn eof_closes_the_fronts_runs_but_keeps_a_run_waiting_at_a_gate_until_a_sweep() {
    let place = Place::new();
    let mut first = FrontProcess::start(&place.args());
    for (run, profile) in [("run-a", "pa"), ("run-b", "pb")] {
        first
            .call(
                "prepare_stage",
                json!({"scope": "local", "run": run, "stage": "work", "spec": {"profile": profile}}),
            )
            .unwrap_or_else(|e| panic!("prepare {run}: {e}"));
    }
    first
        .call("run_state", json!({"run": "run-b", "state": "waiting"}))
        .expect("run_state");
    assert_eq!(
        runs_in_socket_dirs(&place),
        ["run-a", "run-a", "run-b", "run-b"],
        "an anchor and a stage session per run"
    );
    let status = first
        .close_stdin_and_wait(Duration::from_secs(90))
        .expect("EOF ends the front");
    assert!(status.success(), "{status}");
    assert_eq!(
        runs_in_socket_dirs(&place),
        ["run-b", "run-b"],
        "run-a closed at EOF; run-b waits at a gate and is kept"
    );

    // The next front's sweep asks its Host, over the channel, whether run-b is live.
    let mut second = FrontProcess::start(&place.args());
    second.liveness = Box::new(|_| "waiting");
    let report = second.call("sweep", json!({})).expect("sweep");
    assert_eq!(report["skipped_live"], 2, "{report}");
    assert_eq!(runs_in_socket_dirs(&place), ["run-b", "run-b"]);
    // The run ends: the Host says so (a fresh answer would otherwise be reused for a second).
    second.liveness = Box::new(|run| if run == "run-b" { "ended" } else { "unknown" });
    second
        .call("run_state", json!({"run": "run-b", "state": "ended"}))
        .expect("run_state");
    let report = second.call("sweep", json!({})).expect("sweep");
    assert_eq!(
        (
            report["stages_closed"].clone(),
            report["anchors_closed"].clone()
        ),
        (json!(1), json!(1)),
        "{report}"
    );
    assert!(
        place.session_dirs().is_empty(),
        "{:?}",
        place.session_dirs()
    );
}

#[test]
fn a_viewer_on_the_channel_gets_frames_and_a_watcher_cannot_type() {
    let site = Site::start();
    let place = Place::new();
    let mut front = FrontProcess::start(&place.args());
    let run = json!({"scope": "local", "run": "run-v", "stage": "login"});
    let mut prepare = run.clone();
    prepare["spec"] = json!({"profile": "pv", "human_login": site.url("/login.html")});
    let prepared = front.call("prepare_stage", prepare).expect("prepare");
    assert_eq!(prepared["display"]["reason"]["reason"], "live_view");

    let mut ticket_args = run;
    ticket_args["mode"] = json!("watch");
    let ticket = front.call("live_view_ticket", ticket_args).expect("ticket");
    let credential = front
        .call(
            "redeem_live_view_ticket",
            json!({"ticket": ticket["ticket"]}),
        )
        .expect("redeem");
    assert_eq!(credential["mode"], "watch");
    let again = front.call(
        "redeem_live_view_ticket",
        json!({"ticket": ticket["ticket"]}),
    );
    assert_eq!(again.expect_err("one use")["code"], "live_view_denied");
    let opened = front
        .call(
            "open_viewer",
            json!({"scope": "local", "credential": credential["credential"], "via": "channel"}),
        )
        .expect("open viewer");
    let viewer = opened["viewer"].clone();
    assert_eq!(opened["url"], Value::Null, "carried on the channel");
    let frame = front.wait_for("a frame on the channel", Duration::from_secs(30), |l| {
        l["viewer"] == viewer && l["message"]["type"] == "frame"
    });
    assert!(frame["message"]["data"].is_string(), "a JPEG in base64");
    let typed = front.call(
        "viewer_send",
        json!({"viewer": viewer, "message": {"type": "input_keyboard", "eventType": "keyDown", "key": "a", "text": "a"}}),
    );
    assert_eq!(typed.expect_err("watch mode")["code"], "read_only");
    let closed = front
        .call("close_viewer", json!({"viewer": viewer}))
        .expect("close");
    assert_eq!(closed["closed"], true);
    let end = front.wait_for("the viewer's end", Duration::from_secs(10), |l| {
        l["viewer"] == viewer && l.get("end").is_some()
    });
    assert_eq!(end["end"]["reason"], "closed");

    let teardown = front
        .call("end_run", json!({"run": "run-v"}))
        .expect("end run");
    assert_eq!(teardown["complete"], true, "{teardown}");
    assert!(
        place.session_dirs().is_empty(),
        "{:?}",
        place.session_dirs()
    );
}

#[test]
fn the_socket_front_serves_each_connection_and_stops_on_shutdown() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::fs::PermissionsExt;
    let place = Place::new();
    let socket = place.sockets.path().join("front.sock");
    let mut args = place.args();
    args.extend([
        "--listen".to_string(),
        socket.to_string_lossy().into_owned(),
    ]);
    let mut child = std::process::Command::new(common::abx_host())
        .args(&args)
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("abx-host --listen");
    let connect = || {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(stream) = std::os::unix::net::UnixStream::connect(&socket) {
                break stream;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the socket never came up"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let exchange = |stream: &std::os::unix::net::UnixStream, request: Value| {
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        let mut writer = stream;
        writer
            .write_all(format!("{request}\n").as_bytes())
            .expect("write");
        loop {
            let mut line = String::new();
            assert!(
                reader.read_line(&mut line).expect("read") > 0,
                "closed early"
            );
            let line: Value = serde_json::from_str(&line).expect("JSON");
            if line.get("id") == request.get("id") {
                return line;
            }
        }
    };
    let first = connect();
    let mode = std::fs::metadata(&socket)
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "only its owner may connect: {mode:o}");
    let hello = exchange(&first, json!({"id": 1, "op": "hello"}));
    assert_eq!(hello["result"]["protocol"], 1, "{hello}");
    drop(first);
    // A connection that ends leaves the front serving the next one.
    let second = connect();
    let status = exchange(&second, json!({"id": 2, "op": "status"}));
    assert_eq!(status["result"]["runs"], json!([]), "{status}");
    let shutdown = exchange(
        &second,
        json!({"id": 3, "op": "shutdown", "args": {"keep": []}}),
    );
    assert_eq!(shutdown["result"]["runs"], json!({}), "{shutdown}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let exited = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("abx-host did not exit after shutdown");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exited.success(), "{exited}");
    assert!(!socket.exists(), "the socket file is removed");
}

#[test]
fn sigterm_closes_the_fronts_runs_like_eof() {
    let place = Place::new();
    let mut front = FrontProcess::start(&place.args());
    front
        .call(
            "prepare_stage",
            json!({"scope": "local", "run": "run-t", "stage": "work", "spec": {"profile": "pt"}}),
        )
        .expect("prepare");
    assert_eq!(runs_in_socket_dirs(&place), ["run-t", "run-t"]);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &front.pid().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(killed.success());
    let status = front
        .wait_for_exit(Duration::from_secs(90))
        .expect("SIGTERM ends the front");
    assert!(status.success(), "{status}");
    assert!(
        place.session_dirs().is_empty(),
        "{:?}",
        place.session_dirs()
    );
}
