//! The CLI writes a `launch` and its command in one write on one connection. A failed launch
//! must fence that connection: the command after it is answered without being run, so it never
//! runs on a browser the launch did not set up (crates/daemon/src/server.rs, `fence`). A
//! launch that succeeded with its command already waiting behind it is answered together with
//! that command, in one write (`held`).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::{children, pids_alive, wait_until};
use serde_json::Value;

mod common;

/// Writes `lines` in one write and reads the replies (fewer when the daemon hangs up).
fn pipelined(cli: &Cli, lines: &[&str]) -> Vec<Value> {
    let mut stream = UnixStream::connect(cli.file("sock")).expect("daemon socket");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut batch = lines.join("\n");
    batch.push('\n');
    stream.write_all(batch.as_bytes()).expect("write");
    let mut reader = BufReader::new(stream);
    let mut replies = Vec::new();
    for _ in lines {
        let mut reply = String::new();
        if reader.read_line(&mut reply).unwrap_or(0) == 0 {
            break;
        }
        replies.push(serde_json::from_str(&reply).expect("JSON reply"));
    }
    replies
}

#[test]
fn a_failed_launch_fences_the_commands_pipelined_after_it() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon pid");
    // Port 1 never serves CDP: the attach fails (and the old browser was let go for it).
    let replies = pipelined(
        &ab,
        &[
            r#"{"id":"l","action":"launch","cdpPort":1}"#,
            r#"{"id":"u","action":"url"}"#,
            r#"{"id":"t","action":"title"}"#,
        ],
    );
    let launch = replies.first().expect("the failed launch is answered");
    assert_eq!(launch["id"], "l", "{launch}");
    assert_eq!(launch["success"], false, "{launch}");
    // The commands behind it are never run: answered `fenced` while the daemon keeps a browser,
    // or not answered at all because the daemon, left without one, ends right after its reply
    // (crates/daemon/src/server.rs `failed_launch_left_nothing`). Either way, it is checked.
    match replies.len() {
        3 => {
            for reply in &replies[1..] {
                assert_eq!(reply["success"], false, "{reply}");
                assert_eq!(reply["code"], "fenced", "{reply}");
            }
        }
        1 => assert!(
            wait_until(Duration::from_secs(10), || pids_alive(&[daemon]).is_empty()),
            "the daemon answered only the launch but did not end"
        ),
        n => panic!("{n} replies to 3 pipelined requests: {replies:?}"),
    }
    assert!(
        children(daemon).is_empty(),
        "a fenced command must not launch a browser: children {:?}",
        children(daemon)
    );
    ab.run(&["close"]).success();
}

/// The launch line the CLI sends for [`Cli::new`]'s settings (so the daemon reuses its browser).
fn unchanged_launch(id: &str) -> String {
    serde_json::json!({
        "id": id,
        "action": "launch",
        "args": abx_tests::TEST_CHROME_ARGS,
        "noXvfb": false,
        "plugins": [],
    })
    .to_string()
}

#[test]
fn a_launch_and_the_command_behind_it_are_answered_in_one_write() {
    let site = common::site();
    let ab = Cli::new();
    let page = site.url("/page1.html");
    ab.run(&["open", &page]).success();
    let mut stream = UnixStream::connect(ab.file("sock")).expect("daemon socket");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let batch = format!(
        "{}\n{}\n",
        unchanged_launch("l"),
        r#"{"id":"u","action":"url"}"#
    );
    stream.write_all(batch.as_bytes()).expect("write");
    // Both replies come in the first read: one write, so the CLI wakes up once.
    let mut buf = vec![0u8; 256 * 1024];
    let n = stream.read(&mut buf).expect("read");
    let text = std::str::from_utf8(&buf[..n]).expect("UTF-8");
    let replies: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON reply"))
        .collect();
    assert_eq!(
        replies.len(),
        2,
        "one read should hold both replies: {text}"
    );
    assert_eq!(
        replies[0]["id"], "l",
        "the launch's reply comes first: {text}"
    );
    assert_eq!(replies[0]["success"], true, "{text}");
    assert_eq!(
        replies[0]["data"]["reused"], true,
        "an unchanged launch reuses the browser: {text}"
    );
    assert_eq!(replies[1]["id"], "u", "{text}");
    assert_eq!(replies[1]["data"]["url"], page.as_str(), "{text}");
    drop(stream);
    // A held launch reply still comes first when what follows it is not a request.
    let replies = pipelined(&ab, &[&unchanged_launch("l2"), "{not json"]);
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_eq!(replies[0]["id"], "l2", "{replies:?}");
    assert_eq!(replies[0]["success"], true, "{replies:?}");
    assert_eq!(replies[1]["success"], false, "{replies:?}");
    ab.run(&["close"]).success();
}

#[test]
fn a_cli_command_after_a_failed_launch_reports_the_launch_error_and_starts_no_browser() {
    let ab = Cli::new().env("AGENT_BROWSER_CDP", "1");
    let failed = ab.run(&["--json", "get", "url"]).failure().json();
    assert_eq!(failed["success"], false, "{failed}");
    assert_ne!(
        failed["code"], "fenced",
        "the CLI prints the launch's own error: {failed}"
    );
    // The daemon either still runs, without a browser, or ended after the failed attach (it
    // has nothing to serve) and took its socket with it; nothing else.
    match ab
        .daemon_pid()
        .filter(|pid| !pids_alive(&[*pid]).is_empty())
    {
        Some(daemon) => assert!(
            children(daemon).is_empty(),
            "no browser may start after a failed attach: {:?}",
            children(daemon)
        ),
        None => assert!(
            !ab.file("sock").exists(),
            "the daemon is gone but its socket is left"
        ),
    }
    ab.run(&["close"]).success();
}

/// Regression: a daemon whose launch failed removed its socket only while exiting, after its
/// reply; the CLI's next command could still connect to the listener that was about to close
/// and read `Connection reset by peer` (seen as `close` failing after a bad `--extension`).
/// The socket now goes before the reply, so the next command starts a new daemon.
#[test]
fn a_failed_launch_removes_its_socket_before_it_replies() {
    for _ in 0..3 {
        let ab = Cli::new();
        let failed = ab.run(&["--extension", "/nonexistent/ext", "open", "about:blank"]);
        assert_eq!(failed.code, 1, "{failed:?}");
        assert!(failed.stderr.contains("Extension not found"), "{failed:?}");
        assert!(
            !ab.file("sock").exists(),
            "the socket of a daemon on its way out is still there after its reply"
        );
        let next = ab.run(&["close"]);
        assert_eq!(next.code, 0, "{next:?}");
        assert!(!next.stderr.contains("reset by peer"), "{next:?}");
    }
}
