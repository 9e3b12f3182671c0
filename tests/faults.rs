//! Reliability: each test injects one fault and checks that nothing hangs, nothing leaks and the
//! error says what happened. The comment on each test names the line whose removal makes it fail.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use abx_tests::cli::{Cli, finish};
use abx_tests::{children, cmdline, pids_alive, wait_gone_blocking, wait_until};
use serde_json::{Value, json};

mod common;

/// The daemon's Chrome: (pid = process group, user-data-dir).
fn chrome_of(daemon: i32) -> Option<(i32, PathBuf)> {
    children(daemon).into_iter().find_map(|pid| {
        let cmd = cmdline(pid);
        if !cmd.contains("--remote-debugging") {
            return None;
        }
        let dir = cmd
            .split_whitespace()
            .find_map(|a| a.strip_prefix("--user-data-dir="))?
            .to_string();
        Some((pid, PathBuf::from(dir)))
    })
}

fn zombies_of(pid: i32) -> Vec<i32> {
    children(pid)
        .into_iter()
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/stat"))
                .ok()
                .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with('Z')))
                .unwrap_or(false)
        })
        .collect()
}

/// A `wait --fn` that never holds, started in the background; returns once the page runs its
/// predicate (the first evaluation requests `/log?wait=pending` from the fixture site), so a fault
/// injected after it meets a command that is in flight, not one still on its way.
fn pending_wait(ab: &Cli, site: &abx_fixtures::FixtureServer) -> std::process::Child {
    let pending = ab.spawn(&[
        "--json",
        "wait",
        "--fn",
        "(window.__told || (window.__told = fetch('/log?wait=pending')), window.__never === 1)",
        "--timeout",
        "20000",
    ]);
    assert!(
        wait_until(Duration::from_secs(30), || site
            .requests()
            .iter()
            .any(|r| r.path == "/log?wait=pending")),
        "the pending wait never ran its predicate in the page"
    );
    pending
}

/// Sends raw lines to the session's socket and returns the reply lines (one per request line).
fn raw(cli: &Cli, lines: &[&[u8]]) -> Vec<String> {
    let mut stream = UnixStream::connect(cli.file("sock")).expect("daemon socket");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut replies = Vec::new();
    for line in lines {
        stream.write_all(line).expect("write");
        stream.write_all(b"\n").expect("newline");
        let mut reply = String::new();
        if reader.read_line(&mut reply).unwrap_or(0) == 0 {
            break;
        }
        replies.push(reply.trim_end().to_string());
    }
    replies
}

fn with_tmpdir(cli: Cli, dir: &Path) -> Cli {
    cli.env("TMPDIR", dir.to_str().expect("utf8"))
}

fn temp_profiles(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|e| {
            e.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("agent-browser-chrome-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

// Guards the orphan guard (crates/chrome/src/guard.rs `kill -KILL -"$pgid"`) and the lock-based
// stale-file handling (crates/daemon/src/server.rs `remove_file(&socket)` after taking the lock).
#[test]
fn daemon_sigkill_takes_chrome_and_its_temp_profile_down_and_the_next_command_recovers() {
    let site = common::site();
    let tmp = tempfile::tempdir().expect("tmp");
    let ab = with_tmpdir(Cli::new(), tmp.path());
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let (chrome, profile) = chrome_of(daemon).expect("the daemon's Chrome");
    let group = abx_tests::group_members(chrome);
    assert!(!group.is_empty() && profile.exists());

    let killed = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(daemon),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill");
    let took = wait_gone_blocking(&group, Duration::from_secs(3));
    if took.is_none() {
        // Leave nothing behind even when the protection is broken.
        abx_tests::kill_group(chrome);
    }
    println!(
        "figure: Chrome group ({} processes) gone {took:?} after the daemon's SIGKILL",
        group.len()
    );
    assert!(
        took.is_some_and(|t| t <= Duration::from_secs(1)),
        "Chrome outlived its daemon: {took:?}, alive {:?}",
        pids_alive(&group)
    );
    assert!(
        wait_until(Duration::from_secs(1), || !profile.exists()),
        "temp profile left behind"
    );
    println!(
        "figure: temp profile removed {:?} after the SIGKILL",
        killed.elapsed()
    );
    // The dead daemon's .sock/.pid are still there; the next command must not trip on them.
    assert!(ab.file("sock").exists());
    let out = ab.run(&["open", &site.url("/page2.html")]).success();
    assert!(out.out().contains("Page Two"));
    assert_ne!(ab.daemon_pid(), Some(daemon));
    ab.run(&["close"]).success();
    assert!(temp_profiles(tmp.path()).is_empty());
}

// Guards `socket_watch` (crates/daemon/src/server.rs): a daemon nobody can reach any more ends
// and closes its Chrome instead of running until the idle timeout (an hour by default).
#[test]
fn a_daemon_whose_socket_dir_was_removed_closes_its_chrome_and_exits() {
    let site = common::site();
    let tmp = tempfile::tempdir().expect("tmp");
    let ab = with_tmpdir(Cli::new(), tmp.path()).env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let (chrome, profile) = chrome_of(daemon).expect("the daemon's Chrome");
    let mut everything = abx_tests::group_members(chrome);
    everything.push(daemon);

    std::fs::remove_dir_all(ab.socket_dir()).expect("remove the socket dir");
    let took = wait_gone_blocking(&everything, Duration::from_secs(10));
    if took.is_none() {
        abx_tests::kill_group(chrome);
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(daemon),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(
        took.is_some(),
        "the unreachable daemon or its Chrome lived on: {:?}",
        pids_alive(&everything)
    );
    println!("figure: daemon and Chrome gone {took:?} after the socket dir was removed");
    assert!(!profile.exists(), "temp profile left behind");
}

// Guards running each command in its own task (crates/daemon/src/server.rs `tokio::spawn` of
// `daemon.handle`): without it a client disconnect would drop the command half way.
#[test]
fn a_cli_killed_mid_command_leaves_the_daemon_serving_without_zombies() {
    let site = common::site();
    // The daemon's debug log tells when it has the command and when it saw its client go.
    let ab = Cli::new().env("AGENT_BROWSER_DEBUG", "1");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let log = || std::fs::read_to_string(ab.file("log")).unwrap_or_default();
    let mut waiting = ab.spawn(&["wait", "20000"]);
    assert!(
        wait_until(Duration::from_secs(30), || log()
            .contains("request action=wait")),
        "the daemon never got the wait: {}",
        log()
    );
    waiting.kill().expect("kill the CLI");
    let _ = waiting.wait();
    assert!(
        wait_until(Duration::from_secs(10), || log()
            .contains("the client went away: cancelling its command")),
        "the daemon did not notice its client went away: {}",
        log()
    );
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page1.html")
    );
    assert_eq!(ab.daemon_pid(), Some(daemon), "same daemon keeps serving");
    assert!(
        zombies_of(daemon).is_empty(),
        "zombie children of the daemon"
    );
    ab.run(&["close"]).success();
}

// Guards failing pending calls when the socket dies (crates/cdp/src/connection.rs
// `Shared::shutdown`) and the relaunch of an owned browser (crates/daemon/src/daemon.rs `launch`).
#[test]
fn a_killed_chrome_fails_the_pending_command_at_once_and_the_next_command_relaunches() {
    let site = common::site();
    // No launch settings: the relaunch happens inside `open` itself (with them, the CLI's
    // preceding `launch` request would carry it).
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let (chrome, _) = chrome_of(daemon).expect("chrome");
    let pending = pending_wait(&ab, &site);
    let killed_at = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(chrome),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill chrome");
    let outcome = finish(pending);
    println!(
        "figure: pending command failed {:?} after Chrome was killed",
        killed_at.elapsed()
    );
    assert!(
        killed_at.elapsed() < Duration::from_secs(3),
        "the pending command waited {:?}",
        killed_at.elapsed()
    );
    let json = outcome.json();
    assert_eq!(json["success"], false, "{outcome:?}");
    assert_eq!(json["code"], "browser_lost", "{outcome:?}");
    let next = ab
        .run(&["--json", "open", &site.url("/page2.html")])
        .success()
        .json();
    assert_eq!(next["data"]["lifecycle"]["relaunchedBrowser"], true);
    assert_eq!(next["data"]["title"], "Page Two");
    ab.run(&["close"]).success();
}

// Guards `Inspector.targetCrashed` handling (crates/engine/src/tab.rs `crashed = true` and
// crates/cdp/src/connection.rs `CRASHED`).
#[test]
fn a_crashed_renderer_fails_the_pending_command_with_target_crashed() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let cdp = ab.run(&["get", "cdp-url"]).success().out().to_string();
    let target = ab.run(&["--json", "tab", "list"]).success().json()["data"]["tabs"][0]["targetId"]
        .as_str()
        .expect("target")
        .to_string();
    let pending = pending_wait(&ab, &site);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let conn = abx_cdp::Connection::connect(&cdp)
            .await
            .expect("raw client");
        // Kept open until Chrome reports the crash: closing it first could detach the session
        // before Chrome acted on `Page.crash`.
        let browser = conn.browser();
        let mut crashed =
            browser.subscribe(abx_cdp::EventFilter::methods(["Target.targetCrashed"]), 8);
        browser
            .call_json("Target.setDiscoverTargets", json!({"discover": true}))
            .await
            .expect("Target.setDiscoverTargets");
        let session = conn.attach(&target).await.expect("attach");
        let _ = session.send_json("Page.crash", &json!({})).await;
        tokio::time::timeout(Duration::from_secs(10), crashed.recv())
            .await
            .expect("Target.targetCrashed within 10 s");
    });
    let outcome = finish(pending);
    println!(
        "figure: pending command failed {:?} after the renderer crash was requested",
        outcome.took
    );
    let json = outcome.json();
    assert_eq!(json["code"], "target_crashed", "{outcome:?}");
    assert!(outcome.took < Duration::from_secs(10));
    // The session reports it clearly and recovers by navigating.
    let after = ab.run(&["--json", "get", "title"]);
    assert!(
        after.json()["success"] == true || after.json()["code"] == "target_crashed",
        "{after:?}"
    );
    ab.run(&["close"]).success();
}

// Guards the no-fallback rule for attached sessions (crates/daemon/src/daemon.rs "never fall back
// to launching one").
#[test]
fn an_attached_session_reports_a_lost_browser_instead_of_launching_one() {
    let site = common::site();
    let anchor = Cli::new().session("anchor");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let stage = anchor
        .sibling("stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp);
    stage.run(&["open", &site.url("/page1.html")]).success();
    anchor.run(&["close"]).success();
    let lost = stage.run(&["--json", "get", "title"]).failure().json();
    assert_eq!(lost["code"], "browser_lost", "{lost}");
    let daemon = stage.daemon_pid().expect("stage daemon");
    assert!(
        chrome_of(daemon).is_none(),
        "an attached session must never launch a local Chrome"
    );
    stage.run(&["close"]).success();
}

// Guards the reconnect path (crates/daemon/src/daemon.rs `reconnect`).
#[test]
fn a_dropped_cdp_socket_fails_pending_calls_and_the_next_command_reconnects_to_the_same_browser() {
    let site = common::site();
    let ab = Cli::new().env("ABX_FAULT_INJECTION", "1");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let cdp = ab.run(&["get", "cdp-url"]).success().out().to_string();
    let pending = pending_wait(&ab, &site);
    let started = Instant::now();
    let reply = raw(
        &ab,
        &[br#"{"id":"f1","action":"__abx_fault","kind":"drop_cdp"}"#],
    );
    assert!(reply[0].contains("\"success\":true"), "{reply:?}");
    let outcome = finish(pending);
    println!(
        "figure: pending command failed {:?} after the CDP socket drop",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "pending call waited {:?}",
        started.elapsed()
    );
    assert_eq!(outcome.json()["success"], false);
    // Same browser, same tab, same page.
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/page1.html")
    );
    assert_eq!(ab.run(&["get", "cdp-url"]).success().out(), cdp);
    ab.run(&["close"]).success();
}

// Guards per-command deadlines (crates/daemon/src/daemon.rs `tokio::time::timeout(budget, work)`
// and the engine's navigation deadline).
#[test]
fn a_server_that_never_answers_times_out_at_the_deadline_and_close_still_works() {
    let site = common::site();
    let ab = Cli::new().env("AGENT_BROWSER_DEFAULT_TIMEOUT", "1500");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let never = ab.run(&["open", &site.url("/never")]).failure();
    assert!(never.stderr.contains("timed out"), "{never:?}");
    assert!(never.took < Duration::from_secs(10), "{never:?}");
    let closed = ab.run(&["close"]).success();
    println!(
        "figure: never-answering server: open failed after {:?}, close took {:?}",
        never.took, closed.took
    );
    assert!(
        closed.took < Duration::from_secs(2),
        "close took {:?}",
        closed.took
    );
}

// Guards the ownership lock (crates/daemon/src/sidecar.rs `Flock::lock`): without it both CLIs
// start a daemon and one steals the other's socket.
#[test]
fn two_clis_starting_the_same_session_end_with_one_daemon() {
    let site = common::site();
    let ab = Cli::new();
    let a = ab.spawn(&["open", &site.url("/page1.html")]);
    let b = ab.spawn(&["open", &site.url("/page1.html")]);
    let (a, b) = (finish(a), finish(b));
    assert_eq!(a.code, 0, "{a:?}");
    assert_eq!(b.code, 0, "{b:?}");
    let daemons: Vec<i32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe == abx_tests::cli::binary())
        })
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                let env = String::from_utf8_lossy(&env);
                env.contains("AGENT_BROWSER_DAEMON=1")
                    && env.contains(&format!(
                        "ABX_DAEMON_SOCKET_DIR={}",
                        ab.socket_dir().display()
                    ))
            })
        })
        .filter(|pid| !pids_alive(&[*pid]).is_empty())
        .collect();
    assert_eq!(daemons.len(), 1, "daemons for one session: {daemons:?}");
    ab.run(&["close"]).success();
}

// Guards FIFO serialization of page commands (crates/daemon/src/daemon.rs `self.queue.lock()`).
#[test]
fn twenty_concurrent_commands_are_all_answered_one_at_a_time() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let script = "(async () => { const n = (window.__n = (window.__n || 0) + 1); window.__busy = (window.__busy || 0) + 1; \
                  const overlap = window.__busy; await new Promise(r => setTimeout(r, 20)); window.__busy -= 1; return [n, overlap]; })()";
    let children: Vec<_> = (0..20)
        .map(|_| ab.spawn(&["--json", "eval", script]))
        .collect();
    let mut seen = Vec::new();
    for child in children {
        let out = finish(child);
        let json = out.json();
        assert_eq!(json["success"], true, "{out:?}");
        let pair = json["data"]["result"].as_array().cloned().expect("pair");
        assert_eq!(pair[1], 1, "two commands ran on the page at once: {out:?}");
        seen.push(pair[0].as_u64().expect("n"));
    }
    seen.sort();
    assert_eq!(seen, (1..=20).collect::<Vec<u64>>());
    ab.run(&["close"]).success();
}

#[test]
fn sixteen_stage_sessions_run_in_parallel_on_one_anchor() {
    let site = common::site();
    let anchor = Cli::new().session("anchor");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let stages: Vec<Cli> = (0..16)
        .map(|i| {
            anchor
                .sibling(&format!("stage{i}"))
                .without("AGENT_BROWSER_ARGS")
                .env("AGENT_BROWSER_CDP", &cdp)
                .env("AGENT_BROWSER_PIN_TAB", "1")
        })
        .collect();
    let pages = ["/page1.html", "/page2.html", "/form.html", "/table.html"];
    let opening: Vec<_> = stages
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.spawn(&[
                "open",
                &format!("{}?stage={i}", site.url(pages[i % pages.len()])),
            ])
        })
        .collect();
    for child in opening {
        finish(child).success();
    }
    for (i, stage) in stages.iter().enumerate() {
        let url = stage.run(&["get", "url"]).success();
        assert_eq!(
            url.out(),
            format!("{}?stage={i}", site.url(pages[i % pages.len()])),
            "stage {i} lost its tab"
        );
    }
    for stage in &stages {
        stage.run(&["tab", "close"]).success();
        stage.run(&["close"]).success();
    }
    anchor.run(&["close"]).success();
}

fn fd_count(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

fn soak(cycles: usize) {
    let site = common::site();
    let tmp = tempfile::tempdir().expect("tmp");
    // Owned sessions: open/close.
    let owned = with_tmpdir(Cli::new().session("soak"), tmp.path());
    let mut chromes = Vec::new();
    for _ in 0..cycles {
        owned.run(&["open", &site.url("/page1.html")]).success();
        let daemon = owned.daemon_pid().expect("daemon");
        if let Some((chrome, _)) = chrome_of(daemon) {
            chromes.extend(abx_tests::group_members(chrome));
        }
        owned.run(&["close"]).success();
        assert!(pids_alive(&[daemon]).is_empty(), "daemon alive after close");
    }
    assert!(
        pids_alive(&chromes).is_empty(),
        "leaked Chrome processes: {:?}",
        pids_alive(&chromes)
    );
    assert!(temp_profiles(tmp.path()).is_empty(), "leaked temp profiles");

    // Attached sessions: attach/detach on one anchor.
    let anchor = with_tmpdir(Cli::new().session("soak-anchor"), tmp.path());
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let anchor_daemon = anchor.daemon_pid().expect("anchor daemon");
    let (anchor_chrome, _) = chrome_of(anchor_daemon).expect("anchor chrome");
    let stage = anchor
        .sibling("soak-stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1");
    // Warm up once so lazily opened descriptors are counted in the baseline.
    stage.run(&["open", &site.url("/page2.html")]).success();
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    let fds_before = fd_count(anchor_daemon);
    let procs_before = abx_tests::group_members(anchor_chrome).len();
    for _ in 0..cycles {
        stage.run(&["open", &site.url("/page2.html")]).success();
        stage.run(&["tab", "close"]).success();
        stage.run(&["close"]).success();
    }
    // Closing tabs and sessions releases descriptors and renderers asynchronously: wait until
    // the counts are back (or the deadline passes), then judge them.
    wait_until(Duration::from_secs(5), || {
        fd_count(anchor_daemon) <= fds_before + 2
            && abx_tests::group_members(anchor_chrome).len() <= procs_before + 1
    });
    let fds_after = fd_count(anchor_daemon);
    let procs_after = abx_tests::group_members(anchor_chrome).len();
    assert!(
        fds_after <= fds_before + 2,
        "anchor daemon fds grew: {fds_before} → {fds_after}"
    );
    assert!(
        procs_after <= procs_before + 1,
        "anchor Chrome processes grew: {procs_before} → {procs_after}"
    );
    let leftovers: Vec<String> = std::fs::read_dir(stage.socket_dir())
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !leftovers
            .iter()
            .any(|f| f.starts_with("soak-stage.") && (f.ends_with(".sock") || f.ends_with(".pid"))),
        "socket files left: {leftovers:?}"
    );
    anchor.run(&["close"]).success();
    assert!(temp_profiles(tmp.path()).is_empty(), "leaked temp profiles");
    println!(
        "soak: {cycles} owned open/close + {cycles} attach/detach; anchor daemon fds {fds_before} → {fds_after}, anchor Chrome processes {procs_before} → {procs_after}"
    );
}

#[test]
fn soak_10_cycles_leaves_nothing_behind() {
    soak(10);
}

#[test]
#[ignore = "soak: 100 cycles (~2 min), run with --ignored"]
fn soak_100_cycles_leaves_nothing_behind() {
    soak(100);
}

// Guards the protocol's input handling (crates/daemon/src/protocol.rs `parse_line`, the nesting
// guard and MAX_LINE in server.rs).
#[test]
fn malformed_requests_get_clear_errors_and_the_daemon_keeps_serving() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let huge = format!(
        r#"{{"id":"h","action":"evaluate","script":"'{}'.length"}}"#,
        "x".repeat(2_000_000)
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let replies = raw(
        &ab,
        &[
            b"{not json",
            br#"{"id":"t1","action":5}"#,
            br#"{"id":"t2"}"#,
            br#"["action","url"]"#,
            &[0xff, 0xfe, 0xfd],
            deep.as_bytes(),
            br#"{"id":"t3","action":"navigate","url":12}"#,
            br#"{"id":"t4","action":"definitely_not_an_action"}"#,
            huge.as_bytes(),
            br#"{"id":"ok","action":"url"}"#,
        ],
    );
    assert_eq!(replies.len(), 10, "{replies:?}");
    let parsed: Vec<Value> = replies
        .iter()
        .map(|r| serde_json::from_str(r).expect("JSON reply"))
        .collect();
    assert!(
        parsed[0]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("Invalid JSON")),
        "{}",
        parsed[0]
    );
    for (i, reply) in parsed.iter().enumerate().take(9) {
        if i == 8 {
            continue; // the huge eval is valid and succeeds
        }
        assert_eq!(reply["success"], false, "reply {i}: {reply}");
    }
    assert_eq!(
        parsed[7]["error"],
        "Not yet implemented: definitely_not_an_action"
    );
    assert_eq!(parsed[8]["data"]["result"], 2_000_000);
    assert_eq!(parsed[9]["data"]["url"], site.url("/page1.html"));
    // HTTP on the socket: the connection is closed, the daemon keeps serving.
    let replies = raw(&ab, &[b"GET / HTTP/1.1"]);
    assert!(replies.is_empty());
    ab.run(&["get", "url"]).success();
    ab.run(&["close"]).success();
}

#[test]
fn sockets_and_sidecars_stay_private_under_a_permissive_umask_and_cdp_and_stream_listen_on_loopback_only()
 {
    let site = common::site();
    let ab = Cli::new();
    let status = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "umask 000; exec \"$0\" open {}",
            site.url("/page1.html")
        ))
        .arg(abx_tests::cli::binary())
        .envs(
            ab.command(&[])
                .get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .status()
        .expect("run under umask 000");
    assert!(status.success());
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(ab.socket_dir()), 0o700);
    for suffix in ["sock", "pid", "version", "config", "engine", "target"] {
        assert_eq!(mode(&ab.file(suffix)), 0o600, "{suffix}");
    }
    let cdp = ab.run(&["get", "cdp-url"]).success().out().to_string();
    let port: u16 = cdp
        .trim_start_matches("ws://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    let tcp = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default()
        + &std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    let listeners: Vec<String> = tcp
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(3) == Some(&"0A")
                && f.get(1)
                    .and_then(|a| a.rsplit(':').next())
                    .and_then(|p| u16::from_str_radix(p, 16).ok())
                    == Some(port)
        })
        .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
        .collect();
    assert!(!listeners.is_empty());
    assert!(
        listeners.iter().all(|a| a.starts_with("0100007F:")),
        "CDP port bound beyond loopback: {listeners:?}"
    );
    // The stream server too.
    let stream_port: u16 = std::fs::read_to_string(ab.file("stream"))
        .expect(".stream")
        .trim()
        .parse()
        .expect("port");
    let stream_listeners: Vec<String> = tcp
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(3) == Some(&"0A")
                && f.get(1)
                    .and_then(|a| a.rsplit(':').next())
                    .and_then(|p| u16::from_str_radix(p, 16).ok())
                    == Some(stream_port)
        })
        .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
        .collect();
    assert!(!stream_listeners.is_empty(), "stream server not listening");
    assert!(
        stream_listeners.iter().all(|a| a.starts_with("0100007F:")),
        "stream server bound beyond loopback: {stream_listeners:?}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn the_debug_log_records_commands_but_never_filled_typed_or_cookie_values() {
    let site = common::site();
    let ab = Cli::new().env("AGENT_BROWSER_DEBUG", "1");
    ab.run(&["open", &site.url("/form.html")]).success();
    ab.run(&["fill", "#name", "S3CRET-filled"]).success();
    ab.run(&["type", "#email", "S3CRET-typed"]).success();
    ab.run(&["keyboard", "type", "S3CRET-keys"]).success();
    ab.run(&["cookies", "set", "token", "S3CRET-cookie"])
        .success();
    assert_eq!(
        ab.run(&["get", "value", "#name"]).success().out(),
        "S3CRET-filled"
    );
    assert!(
        ab.run(&["cookies"])
            .success()
            .out()
            .contains("S3CRET-cookie")
    );
    ab.run(&["close"]).success();
    // The log exists and records every command by its action …
    let log = std::fs::read_to_string(ab.file("log")).expect("the debug log exists after close");
    for action in [
        "navigate",
        "fill",
        "type",
        "keyboard",
        "cookies_set",
        "inputvalue",
        "cookies_get",
        "close",
    ] {
        assert!(
            log.contains(&format!("action={action}")),
            "no `{action}` line in the debug log:\n{log}"
        );
    }
    // … and never a value the page was given or holds.
    assert!(!log.contains("S3CRET"), "a secret in the debug log:\n{log}");
}

#[test]
fn every_response_carries_phase_timings_and_close_carries_a_verified_cleanup_receipt() {
    let site = common::site();
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let open = ab
        .run(&["--json", "open", &site.url("/page1.html")])
        .success()
        .json();
    let timings = &open["data"]["lifecycle"]["timings"];
    assert!(
        timings["launchMs"].as_u64().is_some_and(|ms| ms > 0),
        "{timings}"
    );
    assert!(
        timings["executeMs"].is_u64() && timings["queueMs"].is_u64(),
        "{timings}"
    );
    let close = ab.run(&["--json", "close"]).success().json();
    let cleanup = &close["data"]["lifecycle"]["cleanup"];
    assert_eq!(cleanup["verified"], true, "{close}");
    assert_eq!(cleanup["survivors"], 0);
    assert_eq!(cleanup["graceful"], true);
    assert_eq!(cleanup["tempProfileRemoved"], true);
}
