//! Commands die with their caller: a CLI that is killed (`kill -9`, SIGTERM from a tool's time
//! limit), a `batch` killed half way, an MCP call cancelled by its client or whose client left,
//! and a navigation interrupted by a later one. In each case the command stops in the daemon and
//! the session's next command runs at once, on a tab that is still usable.
//!
//! "At once" is checked against the cancelled command's own deadline (60 s): the next command
//! must finish within [`PROMPT`], a bound far below it, so a command left running fails the
//! test; no timing is measured.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use abx_fixtures::FixtureServer;
use abx_tests::cli::{Cli, Output, finish};
use abx_tests::wait_for;
use serde_json::{Value, json};

mod common;

/// How long the next command may take: far below the 60 s the cancelled one would hold the
/// page for, generous for a loaded 2-core machine.
const PROMPT: Duration = Duration::from_secs(10);

/// The deadline given to the commands that get cancelled.
const HELD_MS: &str = "60000";

/// A session whose commands get [`HELD_MS`] as their deadline.
fn held_session(name: &str) -> Cli {
    Cli::new()
        .session(name)
        .env("AGENT_BROWSER_DEFAULT_TIMEOUT", HELD_MS)
}

/// Waits until the fixture server has seen a request whose path starts with `prefix`: the
/// command that makes it is running in the daemon.
fn wait_for_request(site: &FixtureServer, prefix: &str) {
    wait_for(
        Duration::from_secs(30),
        &format!("a request for {prefix}"),
        || site.requests().iter().any(|r| r.path.starts_with(prefix)),
    );
}

/// Runs `args` and fails the test unless it finishes within [`PROMPT`].
#[track_caller]
fn run_promptly(ab: &Cli, args: &[&str]) -> Output {
    let mut child = ab.spawn(args);
    let deadline = Instant::now() + PROMPT;
    loop {
        if child.try_wait().ok().flatten().is_some() {
            return finish(child);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let output = finish(child);
            panic!(
                "`{}` did not finish within {PROMPT:?}: {output:#?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends `signal` to a child we started (by its pid) and reaps it.
fn signal(mut child: Child, signal: nix::sys::signal::Signal) -> Output {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, signal).expect("signal the CLI");
    let _ = child.wait();
    finish(child)
}

/// A `wait --fn` that never holds and requests `/log?<marker>` each time it is polled.
fn endless_wait(marker: &str) -> String {
    format!("fetch('/log?{marker}').then(() => false)")
}

#[test]
fn a_killed_client_cancels_its_wait_and_the_next_command_runs_at_once() {
    let site = common::site();
    let ab = held_session("cancel-kill");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let script = endless_wait("cancel=kill");
    let waiting = ab.spawn(&["wait", "--fn", &script, "--timeout", HELD_MS]);
    wait_for_request(&site, "/log?cancel=kill");
    let killed = signal(waiting, nix::sys::signal::Signal::SIGKILL);
    assert_ne!(killed.code, 0, "{killed:#?}");

    let next = run_promptly(&ab, &["eval", "document.title"]).success();
    assert_eq!(next.out(), "\"Page One\"");
    // The cancelled wait polls no more. Its last in-page poll slice may run out (a slice is at
    // most 1 s), so the window looked at starts 1.5 s later, timed by the page itself.
    run_promptly(
        &ab,
        &["eval", "new Promise(r => setTimeout(() => r(1), 1500))"],
    )
    .success();
    site.clear_requests();
    run_promptly(
        &ab,
        &["eval", "new Promise(r => setTimeout(() => r(1), 500))"],
    )
    .success();
    assert!(
        !site
            .requests()
            .iter()
            .any(|r| r.path.starts_with("/log?cancel=kill")),
        "the cancelled wait is still polling"
    );
}

#[test]
fn a_sigtermed_client_cancels_its_command_and_the_next_click_runs_at_once() {
    let site = common::site();
    let ab = held_session("cancel-term");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let script = endless_wait("cancel=term");
    let waiting = ab.spawn(&["wait", "--fn", &script, "--timeout", HELD_MS]);
    wait_for_request(&site, "/log?cancel=term");
    let terminated = signal(waiting, nix::sys::signal::Signal::SIGTERM);
    assert_ne!(terminated.code, 0, "{terminated:#?}");

    run_promptly(&ab, &["click", "#to2"]).success();
    // `click` returns once the click is dispatched, not once the navigation it starts is done
    // (as upstream): the title changes a moment later.
    wait_for(
        Duration::from_secs(10),
        "the click's navigation to Page Two",
        || run_promptly(&ab, &["get", "title"]).success().out() == "Page Two",
    );
}

#[test]
fn a_killed_batch_runs_none_of_its_remaining_steps() {
    let site = common::site();
    let ab = held_session("cancel-batch");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let script = endless_wait("cancel=batch");
    let wait_step = format!("wait --fn \"{script}\" --timeout {HELD_MS}");
    let batch = ab.spawn(&["batch", &wait_step, "eval window.__after_batch = 'ran'"]);
    wait_for_request(&site, "/log?cancel=batch");
    signal(batch, nix::sys::signal::Signal::SIGKILL);

    let after = run_promptly(&ab, &["eval", "String(window.__after_batch)"]).success();
    assert_eq!(
        after.out(),
        "\"undefined\"",
        "a step after the killed one ran"
    );
}

#[test]
fn an_open_interrupted_by_a_later_open_fails_at_once_and_the_later_page_wins() {
    let site = common::site();
    let ab = held_session("cancel-nav");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let never = site.url("/never");
    let stuck = ab.spawn(&["open", &never]);
    wait_for_request(&site, "/never");

    let later = run_promptly(&ab, &["open", &site.url("/page2.html")]).success();
    assert!(later.out().starts_with("✓ Page Two"), "{later:#?}");
    // The interrupted open answers as soon as it lost the tab, not at its own deadline.
    let deadline = Instant::now() + PROMPT;
    let mut stuck = stuck;
    while stuck.try_wait().ok().flatten().is_none() {
        if Instant::now() >= deadline {
            let _ = stuck.kill();
            panic!("the interrupted open is still waiting");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let interrupted = finish(stuck).failure();
    assert!(
        interrupted
            .stderr
            .contains("interrupted by a navigation to")
            && interrupted.stderr.contains("/page2.html"),
        "{interrupted:#?}"
    );
    assert_eq!(
        run_promptly(&ab, &["get", "url"]).success().out(),
        site.url("/page2.html")
    );
}

#[test]
fn a_click_onto_a_page_that_never_answers_holds_no_later_command() {
    let site = common::site();
    // A short default timeout: the next command waits at most that long for the click's page.
    let ab = Cli::new()
        .session("cancel-click")
        .env("AGENT_BROWSER_DEFAULT_TIMEOUT", "3000");
    let launcher = site.url("/nav/links.html?to=/never");
    ab.run(&["open", &launcher]).success();
    // The click returns once delivered; it does not wait for a page that never answers.
    run_promptly(&ab, &["click", "#go"]).success();
    wait_for_request(&site, "/never");

    // Chrome runs none of the old page's scripts while the request is unanswered: a page
    // command says so instead of hanging until its own timeout.
    let pending = run_promptly(&ab, &["eval", "1"]).failure();
    assert!(
        pending.stderr.contains("still waiting for") && pending.stderr.contains("/never"),
        "{pending:#?}"
    );
    assert_eq!(run_promptly(&ab, &["get", "url"]).success().out(), launcher);
    // A navigation replaces the unanswered one at once.
    let later = run_promptly(&ab, &["open", &site.url("/page2.html")]).success();
    assert!(later.out().starts_with("✓ Page Two"), "{later:#?}");
    assert_eq!(run_promptly(&ab, &["eval", "1 + 1"]).success().out(), "2");
}

#[test]
fn a_cancelled_open_leaves_the_tab_on_the_page_it_showed() {
    let site = common::site();
    let ab = held_session("cancel-open");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let stuck = ab.spawn(&["open", &site.url("/never")]);
    wait_for_request(&site, "/never");
    signal(stuck, nix::sys::signal::Signal::SIGKILL);

    // The abandoned navigation was stopped: the tab shows the page it showed, and takes
    // commands and navigations as before.
    assert_eq!(
        run_promptly(&ab, &["get", "url"]).success().out(),
        site.url("/page1.html")
    );
    run_promptly(&ab, &["wait", "--load", "load"]).success();
    assert_eq!(
        run_promptly(&ab, &["eval", "document.title"])
            .success()
            .out(),
        "\"Page One\""
    );
    let opened = run_promptly(&ab, &["open", &site.url("/page2.html")]).success();
    assert!(opened.out().starts_with("✓ Page Two"), "{opened:#?}");
}

/// The MCP server over a pipe: requests in, messages out.
struct Mcp {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Mcp {
    fn start(ab: &Cli) -> Mcp {
        let mut child = ab
            .command(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the MCP server");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
        };
        mcp.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        let init = mcp.next();
        assert_eq!(init["id"], 0, "{init}");
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answered within 60 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn call(&mut self, id: i64, tool: &str, arguments: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A script that never settles and requests `/log?<marker>` once.
fn endless_eval(marker: &str) -> String {
    format!("new Promise(() => {{ fetch('/log?{marker}'); }})")
}

#[test]
fn an_mcp_call_cancelled_by_its_client_stops_and_gets_no_reply() {
    let site = common::site();
    let ab = held_session("cancel-mcp");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let mut mcp = Mcp::start(&ab);
    mcp.call(
        7,
        "agent_browser_eval",
        json!({"script": endless_eval("cancel=mcp")}),
    );
    wait_for_request(&site, "/log?cancel=mcp");
    mcp.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "the user stopped it"}}),
    );

    // The session is free at once, for the shell and for the next call of the same client.
    assert_eq!(
        run_promptly(&ab, &["eval", "document.title"])
            .success()
            .out(),
        "\"Page One\""
    );
    mcp.call(8, "agent_browser_get_url", json!({}));
    let reply = mcp.next();
    assert_eq!(
        reply["id"], 8,
        "the cancelled call must get no reply: {reply}"
    );
    assert_eq!(reply["result"]["isError"], false, "{reply}");
}

#[test]
fn an_mcp_client_that_disconnects_takes_its_running_call_with_it() {
    let site = common::site();
    let ab = held_session("cancel-mcp-gone");
    ab.run(&["open", &site.url("/page1.html")]).success();
    // A client that is gone closes both of its pipes (closing stdin alone only ends its
    // requests: the calls it asked for are still answered, as upstream's are).
    let mut child = ab
        .command(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the MCP server");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "agent_browser_eval",
        "arguments": {"script": endless_eval("cancel=mcp-gone")}}});
    writeln!(stdin, "{call}").expect("send the call");
    wait_for_request(&site, "/log?cancel=mcp-gone");
    drop(stdin);
    drop(stdout);
    let mut mcp = Mcp {
        child,
        stdin: None,
        lines: std::sync::mpsc::channel().1,
    };

    // The server exits on its own and the session's page is free.
    let deadline = Instant::now() + PROMPT;
    while mcp.child.try_wait().ok().flatten().is_none() {
        assert!(
            Instant::now() < deadline,
            "the MCP server did not exit after its client left"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        run_promptly(&ab, &["eval", "document.title"])
            .success()
            .out(),
        "\"Page One\""
    );
}
