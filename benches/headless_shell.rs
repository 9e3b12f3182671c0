//! The headless shell against full Chromium `--headless=new`, same machine, one run
//! (`docs/adr/0007-headless-shell.md`).
//!
//! Per binary, alternating A/B per round so machine load hits both alike, `ABX_BENCH_ROUNDS`
//! rounds (default 5), medians (min–max):
//! - cold start: spawn to the first CDP answer (`Browser.getVersion`);
//! - cold `open` through our CLI: `agent-browser open <fixture>` with a fresh session (daemon
//!   spawn, Chrome launch, navigation), the executable given explicitly;
//! - navigation: `Page.navigate` to the load event, alternating two fixture pages;
//! - screenshot: `Page.captureScreenshot` (PNG) of the fixture page;
//! - screencast: frames per second of `Page.startScreencast` (JPEG q80, 1280×720, every frame
//!   acked) on the animated fixture page, over 3 s;
//! - memory: PSS and RSS of each renderer with four tabs on the fixture article, the PSS each
//!   tab after the first adds, and the whole process group's;
//! - graceful close.
//!
//! `cargo bench -p abx-bench --bench headless_shell` (or `benches/headless_shell.sh`). Needs
//! `/usr/bin/chromium` and `chromium-headless-shell` (`ABX_BENCH_SHELL`, `ABX_BENCH_FULL` override
//! the paths). Prints a Markdown table.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use abx_cdp::{Connection, EventFilter, Session};
use abx_chrome::{Chrome, LaunchOptions};
use abx_fixtures::FixtureServer;
use serde_json::{Value, json};

const CHROME_ARGS: &[&str] = &[
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

#[derive(Default)]
struct Samples {
    cold_start: Vec<f64>,
    cli_open: Vec<f64>,
    navigation: Vec<f64>,
    screenshot: Vec<f64>,
    fps: Vec<f64>,
    renderer_pss: Vec<f64>,
    renderer_rss: Vec<f64>,
    renderers: Vec<f64>,
    tab_pss: Vec<f64>,
    group_pss: Vec<f64>,
    group_rss: Vec<f64>,
    processes: Vec<f64>,
    close: Vec<f64>,
    user_agent: String,
}

fn options(executable: &Path) -> LaunchOptions {
    LaunchOptions {
        executable: Some(executable.to_path_buf()),
        args: CHROME_ARGS.iter().map(ToString::to_string).collect(),
        ..LaunchOptions::default()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn open_tab(conn: &Connection, url: &str) -> Session {
    let created = conn
        .browser()
        .call_json("Target.createTarget", json!({"url": "about:blank"}))
        .await
        .expect("createTarget");
    let page = conn
        .attach(created["targetId"].as_str().expect("targetId"))
        .await
        .expect("attach");
    page.call_json("Page.enable", json!({}))
        .await
        .expect("Page.enable");
    navigate(&page, url).await;
    page
}

async fn navigate(page: &Session, url: &str) -> Duration {
    let mut loads = page.subscribe(EventFilter::methods(["Page.loadEventFired"]), 8);
    let started = Instant::now();
    page.call_json("Page.navigate", json!({"url": url}))
        .await
        .expect("navigate");
    tokio::time::timeout(Duration::from_secs(20), loads.recv())
        .await
        .expect("load within 20 s")
        .expect("session alive");
    started.elapsed()
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `Pss:` and `Rss:` of a process in MB (from `smaps_rollup`).
fn memory_mb(pid: i32) -> Option<(f64, f64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
    };
    Some((field("Pss:")?, field("Rss:")?))
}

/// Chrome rewrites its helpers' command lines (one space-separated title, `--type` dropped by
/// full Chrome), but a renderer's keeps `--renderer-client-id`.
fn is_renderer(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
        c.split(['\0', ' '])
            .any(|a| a == "--type=renderer" || a.starts_with("--renderer-client-id="))
    })
}

/// PSS of the whole group and of its renderers, in MB.
fn group_memory(pgid: i32) -> (f64, f64, Vec<(f64, f64)>, usize) {
    let members = abx_chrome::group::members(pgid);
    let mut renderers = Vec::new();
    let (mut pss, mut rss) = (0.0, 0.0);
    for pid in &members {
        if let Some((p, r)) = memory_mb(*pid) {
            pss += p;
            rss += r;
            if is_renderer(*pid) {
                renderers.push((p, r));
            }
        }
    }
    (pss, rss, renderers, members.len())
}

async fn round(executable: &Path, cli: &Path, site: &FixtureServer, s: &mut Samples) {
    // Cold start: spawn to the first CDP answer.
    let started = Instant::now();
    let chrome = Chrome::launch(options(executable)).await.expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("connect");
    let version = conn
        .browser()
        .call_json("Browser.getVersion", json!({}))
        .await
        .expect("getVersion");
    s.cold_start.push(ms(started.elapsed()));
    s.user_agent = version["userAgent"].as_str().unwrap_or("").to_string();

    let page = open_tab(&conn, &site.url("/fixture.html")).await;
    let mut navs = Vec::new();
    for i in 0..10 {
        let path = if i % 2 == 0 {
            "/page1.html"
        } else {
            "/page2.html"
        };
        navs.push(ms(navigate(&page, &site.url(path)).await));
    }
    s.navigation.push(median(&navs));

    navigate(&page, &site.url("/fixture.html")).await;
    let mut shots = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        page.call_json("Page.captureScreenshot", json!({"format": "png"}))
            .await
            .expect("screenshot");
        shots.push(ms(started.elapsed()));
    }
    s.screenshot.push(median(&shots));

    navigate(&page, &site.url("/animated.html")).await;
    let mut frames = page.subscribe(EventFilter::methods(["Page.screencastFrame"]), 256);
    page.call_json("Page.startScreencast",
        json!({"format": "jpeg", "quality": 80, "maxWidth": 1280, "maxHeight": 720, "everyNthFrame": 1}),
    )
    .await
    .expect("startScreencast");
    // The first frames come in a burst; count from the first one on.
    let _ = tokio::time::timeout(Duration::from_secs(5), frames.recv()).await;
    let window = Duration::from_secs(3);
    let deadline = tokio::time::Instant::now() + window;
    let mut count = 0u32;
    while let Ok(Some(frame)) = tokio::time::timeout_at(deadline, frames.recv()).await {
        count += 1;
        let p: Value = frame.parse().unwrap_or_default();
        let _ = page
            .send_json(
                "Page.screencastFrameAck",
                &json!({"sessionId": p["sessionId"]}),
            )
            .await;
    }
    let _ = page.call_json("Page.stopScreencast", json!({})).await;
    s.fps.push(f64::from(count) / window.as_secs_f64());

    // Memory: one tab, then four tabs, on the article page.
    navigate(&page, &site.url("/article.html")).await;
    let (one_tab_pss, ..) = group_memory(chrome.pid());
    let mut tabs = vec![page];
    for _ in 0..3 {
        tabs.push(open_tab(&conn, &site.url("/article.html")).await);
    }
    let (pss, rss, renderers, processes) = group_memory(chrome.pid());
    let renderer_pss: Vec<f64> = renderers.iter().map(|m| m.0).collect();
    let renderer_rss: Vec<f64> = renderers.iter().map(|m| m.1).collect();
    s.renderer_pss.push(median(&renderer_pss));
    s.renderer_rss.push(median(&renderer_rss));
    s.renderers.push(renderers.len() as f64);
    s.tab_pss.push((pss - one_tab_pss) / 3.0);
    s.group_pss.push(pss);
    s.group_rss.push(rss);
    s.processes.push(processes as f64);

    let started = Instant::now();
    let receipt = chrome.close(Some(&conn)).await;
    assert!(receipt.verified, "close verified: {receipt:?}");
    s.close.push(ms(started.elapsed()));

    // Cold `open` through the CLI.
    let home = tempfile::tempdir().expect("home");
    let cli_cmd = |args: &[&str]| {
        let mut command = Command::new(cli);
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("AGENT_BROWSER_SOCKET_DIR", home.path().join("s"))
            .env("AGENT_BROWSER_SESSION", "bench")
            .env("AGENT_BROWSER_EXECUTABLE_PATH", executable)
            .env("AGENT_BROWSER_ARGS", CHROME_ARGS.join(","))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command
    };
    let started = Instant::now();
    let out = cli_cmd(&["open", &site.url("/fixture.html")])
        .output()
        .expect("cli open");
    s.cli_open.push(ms(started.elapsed()));
    assert!(
        out.status.success(),
        "open: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli_cmd(&["close"]).output().expect("cli close");
    assert!(out.status.success(), "close");
}

fn cli_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("bench exe");
    let target = exe.parent().and_then(Path::parent).expect("target dir");
    let release = target.join("agent-browser");
    if release.is_file() {
        release
    } else {
        target.join("../debug/agent-browser")
    }
}

fn cell(values: &[f64], digits: usize) -> String {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "{:.d$} ({:.d$}–{:.d$})",
        median(values),
        min,
        max,
        d = digits
    )
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let rounds: usize = std::env::var("ABX_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let shell = std::env::var("ABX_BENCH_SHELL").map_or_else(
        |_| abx_chrome::skip_passthrough_wrapper(Path::new("/usr/bin/chromium-headless-shell")),
        PathBuf::from,
    );
    let full = std::env::var("ABX_BENCH_FULL")
        .map_or_else(|_| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let cli = cli_binary();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let load_before = loadavg();
    let (a, b) = runtime.block_on(async {
        let site = FixtureServer::start().await.expect("fixture server");
        let (mut a, mut b) = (Samples::default(), Samples::default());
        for i in 0..rounds {
            // Alternate which binary goes first.
            if i % 2 == 0 {
                round(&shell, &cli, &site, &mut a).await;
                round(&full, &cli, &site, &mut b).await;
            } else {
                round(&full, &cli, &site, &mut b).await;
                round(&shell, &cli, &site, &mut a).await;
            }
            eprintln!("round {}/{rounds} done", i + 1);
        }
        site.shutdown().await;
        (a, b)
    });
    let version = Command::new(&full)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("### Headless shell vs full Chromium (`benches/headless_shell.rs`)\n");
    println!(
        "{version}; {} vs {}; {rounds} rounds, A/B alternating; medians (min–max); load average \
         (1, 5, 15 min) {load_before} before, {} after; {} cores.\n",
        shell.display(),
        full.display(),
        loadavg(),
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );
    println!("| measure | chromium-headless-shell | chromium --headless=new | shell / full |");
    println!("|---|---|---|---|");
    let rows: &[(&str, &Vec<f64>, &Vec<f64>, usize)] = &[
        (
            "cold start: spawn → first CDP answer (ms)",
            &a.cold_start,
            &b.cold_start,
            0,
        ),
        (
            "cold `open` through the CLI (ms)",
            &a.cli_open,
            &b.cli_open,
            0,
        ),
        (
            "navigation to load event (ms)",
            &a.navigation,
            &b.navigation,
            1,
        ),
        (
            "screenshot, PNG 1280×720 (ms)",
            &a.screenshot,
            &b.screenshot,
            1,
        ),
        ("screencast on the animated page (fps)", &a.fps, &b.fps, 1),
        (
            "renderer PSS per tab, 4 tabs (MB)",
            &a.renderer_pss,
            &b.renderer_pss,
            1,
        ),
        (
            "renderer RSS per tab, 4 tabs (MB)",
            &a.renderer_rss,
            &b.renderer_rss,
            1,
        ),
        ("renderer processes, 4 tabs", &a.renderers, &b.renderers, 0),
        (
            "PSS added per tab, tabs 2–4 (MB)",
            &a.tab_pss,
            &b.tab_pss,
            1,
        ),
        (
            "whole group PSS, 4 tabs (MB)",
            &a.group_pss,
            &b.group_pss,
            0,
        ),
        (
            "whole group RSS, 4 tabs (MB)",
            &a.group_rss,
            &b.group_rss,
            0,
        ),
        ("processes, 4 tabs", &a.processes, &b.processes, 0),
        ("graceful close (ms)", &a.close, &b.close, 0),
    ];
    for &(name, x, y, digits) in rows {
        println!(
            "| {name} | {} | {} | {:.2} |",
            cell(x, digits),
            cell(y, digits),
            median(x) / median(y)
        );
    }
    println!("\nUser agent, shell: `{}`", a.user_agent);
    println!("User agent, full: `{}`", b.user_agent);
}
