//! Scale curve: N pinned stage sessions on one anchor Chrome, all at once, and a soak of one
//! session.
//!
//! For each N in `ABX_SCALE_N` (default `1,4,16,32`) and each binary (ours, and upstream 0.41.2
//! when it is found as `cli_latency.rs` describes; `ABX_SCALE_UPSTREAM=0` skips it), a fresh
//! anchor Chrome is launched (as the Host launches it), then N stage sessions attach to it the
//! Host's way — `AGENT_BROWSER_CDP=<port>` and `AGENT_BROWSER_PIN_TAB=1`, each its own session
//! name — with a first `open` (its own tab; not timed in the curve). Then all N run the
//! 20-command session of `record_session.rs` `ABX_SCALE_LOOPS` times (default 2) at the same
//! time, each command a real CLI process. Reported per N and binary:
//! - per-command p50/p99 (all commands, and per command kind), and p99 against N = 1;
//! - total actions per second (commands finished by all stages / wall time of the phase);
//! - Chrome memory per stage tab: the anchor's renderer processes (PSS and RSS from
//!   `/proc/<pid>/smaps_rollup`, summed) after the phase, minus the renderers of the bare anchor
//!   before any stage attached, divided by N;
//! - daemon RSS per stage (`VmRSS` of each `<session>.pid`, averaged).
//!
//! Then a soak (`ABX_SOAK` commands, default 10000; 0 skips it): one stage session runs the same
//! 20 commands round and round; every 500 commands (`ABX_SOAK_EVERY`) the daemon's RSS and open
//! file descriptors (`/proc/<pid>/fd`) are sampled and printed as a curve. `ABX_SOAK_UPSTREAM=1`
//! soaks upstream too.
//!
//! `ABX_SCALE_THINK_MS=<ms>` makes each stage pause 0.5–1.5× that long after every command (an
//! agent thinking between commands; starts staggered), default 0: back to back.
//!
//! `cargo bench -p abx-bench --bench stage_scale`; a quick run:
//! `ABX_SCALE_N=1,4 ABX_SCALE_LOOPS=1 ABX_SOAK=2000 cargo bench -p abx-bench --bench stage_scale`.
//! `ABX_BENCH_OURS_BIN` (or `ABX_BENCH_BINARY`) picks our binary (default: `target/release/agent-browser`, else debug).
//! Prints Markdown.

#[path = "support/twenty_commands.rs"]
mod support;
use support::twenty_commands;
#[path = "support/abx_binary.rs"]
mod abx_binary;
use abx_binary::abx_binary;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use abx_chrome::{Chrome, LaunchOptions};
use abx_fixtures::FixtureServer;

const CHROME_ARGS: &[&str] = &[
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

#[derive(Clone)]
struct Binary {
    name: &'static str,
    path: PathBuf,
}

fn ours() -> Binary {
    Binary {
        name: "abx",
        path: abx_binary(),
    }
}

fn upstream() -> Option<Binary> {
    let path = std::env::var("ABX_UPSTREAM_BIN").map_or_else(
        |_| PathBuf::from("/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64"),
        PathBuf::from,
    );
    path.is_file().then_some(Binary {
        name: "upstream 0.41.2",
        path,
    })
}

/// One stage session: its own session name, attached to the anchor with pin-tab.
struct Stage {
    bin: Binary,
    home: PathBuf,
    session: String,
    port: u16,
}

impl Stage {
    fn socket_dir(&self) -> PathBuf {
        self.home.join("s")
    }

    /// Runs one command; its wall time, or what failed.
    fn run(&self, args: &[String]) -> Result<Duration, String> {
        let started = Instant::now();
        let output = Command::new(&self.bin.path)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("AGENT_BROWSER_SOCKET_DIR", self.socket_dir())
            .env("AGENT_BROWSER_SESSION", &self.session)
            .env("AGENT_BROWSER_CDP", self.port.to_string())
            .env("AGENT_BROWSER_PIN_TAB", "1")
            .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("spawn {}: {e}", self.bin.path.display()))?;
        let took = started.elapsed();
        if output.status.success() {
            Ok(took)
        } else {
            Err(format!(
                "{} {:?}: {}",
                self.session,
                args,
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    }

    fn daemon_pid(&self) -> Option<i32> {
        std::fs::read_to_string(self.socket_dir().join(format!("{}.pid", self.session)))
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

/// The kind a command is reported under: its verb (`get`/`is` with their sub-verb).
fn kind(args: &[String]) -> String {
    match args.first().map(String::as_str) {
        Some(verb @ ("get" | "is")) => format!("{verb} {}", args.get(1).map_or("", |s| s)),
        Some(verb) => verb.to_string(),
        None => String::new(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(index).copied().unwrap_or(f64::NAN)
}

/// A `kB` field of `/proc/<pid>/status` or `smaps_rollup`, in MB.
fn proc_mb(path: &str, field: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field))?
        .split_whitespace()
        .next()?
        .parse::<f64>()
        .ok()
        .map(|kb| kb / 1024.0)
}

fn rss_mb(pid: i32) -> Option<f64> {
    proc_mb(&format!("/proc/{pid}/status"), "VmRSS:")
}

/// The anonymous part of the RSS (heap, stacks): what a leak grows. The rest is the binary's
/// pages, which rise as more of its code runs once (a debug build's are many).
fn anon_mb(pid: i32) -> Option<f64> {
    proc_mb(&format!("/proc/{pid}/status"), "RssAnon:")
}

/// CPU time (user + system) of a process in ms, from `/proc/<pid>/stat`.
fn cpu_ms(pid: i32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on Linux.
    Some(ticks as f64 * 10.0)
}

/// CPU ms of every process of the anchor's group.
fn group_cpu_ms(chrome_pid: i32) -> f64 {
    abx_chrome::group::members(chrome_pid)
        .into_iter()
        .filter_map(cpu_ms)
        .sum()
}

fn open_fds(pid: i32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// Chrome rewrites its helpers' command lines, but a renderer's keeps `--renderer-client-id`.
fn is_renderer(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
        c.split(['\0', ' '])
            .any(|a| a == "--type=renderer" || a.starts_with("--renderer-client-id="))
    })
}

/// The anchor's renderers: (PSS MB, RSS MB, count).
fn renderer_memory(chrome_pid: i32) -> (f64, f64, usize) {
    let (mut pss, mut rss, mut count) = (0.0, 0.0, 0);
    for pid in abx_chrome::group::members(chrome_pid) {
        if !is_renderer(pid) {
            continue;
        }
        let rollup = format!("/proc/{pid}/smaps_rollup");
        if let (Some(p), Some(r)) = (proc_mb(&rollup, "Pss:"), proc_mb(&rollup, "Rss:")) {
            pss += p;
            rss += r;
            count += 1;
        }
    }
    (pss, rss, count)
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

async fn launch_anchor() -> Chrome {
    Chrome::launch(LaunchOptions {
        args: CHROME_ARGS.iter().map(ToString::to_string).collect(),
        ..LaunchOptions::default()
    })
    .await
    .expect("anchor chrome")
}

/// One point of the curve.
struct Point {
    binary: &'static str,
    stages: usize,
    attached: usize,
    commands: usize,
    failures: Vec<String>,
    wall: Duration,
    all: Vec<f64>,
    by_kind: Vec<(String, Vec<f64>)>,
    tab_pss: f64,
    tab_rss: f64,
    renderers: usize,
    daemon_rss: f64,
    daemon_anon: f64,
    daemon_cpu: f64,
    chrome_cpu: f64,
}

/// A stage's pause after each command (`ABX_SCALE_THINK_MS`, default 0: back to back), as an
/// agent thinks between its commands; spread over 0.5–1.5× the mean so the stages drift apart.
fn think_pause(mean_ms: u64, stage: usize, step: usize) -> Duration {
    // A fixed pseudo-random spread (splitmix64 of stage and step): the same in every run.
    let mut z = (stage as u64) << 32 ^ step as u64;
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Duration::from_millis(mean_ms / 2 + z % (mean_ms + 1))
}

async fn scale_point(
    bin: &Binary,
    stages: usize,
    loops: usize,
    think_ms: u64,
    base: &str,
) -> Point {
    let anchor = launch_anchor().await;
    let (bare_pss, bare_rss, bare_renderers) = renderer_memory(anchor.pid());
    let home = tempfile::tempdir().expect("temp home");
    let stage_list: Vec<Arc<Stage>> = (0..stages)
        .map(|k| {
            Arc::new(Stage {
                bin: bin.clone(),
                home: home.path().to_path_buf(),
                session: format!("stage{k}"),
                port: anchor.port(),
            })
        })
        .collect();
    let mut failures = Vec::new();
    // Attach one after another (the Host starts stages as they come; attach has its own bench).
    let first = format!("{base}/page1.html");
    let mut live = Vec::new();
    for stage in &stage_list {
        match stage.run(&["open".to_string(), first.clone()]) {
            Ok(_) => live.push(stage.clone()),
            Err(e) => failures.push(format!("attach: {e}")),
        }
    }
    let attached = live.len();
    let barrier = Arc::new(Barrier::new(live.len() + 1));
    let threads: Vec<_> = live
        .iter()
        .enumerate()
        .map(|(index, stage)| {
            let stage = stage.clone();
            let barrier = barrier.clone();
            let live_count = live.len();
            let shot = home.path().join(format!("{}.png", stage.session));
            let commands = twenty_commands(base, &shot.to_string_lossy());
            std::thread::spawn(move || {
                let mut samples = Vec::new();
                let mut errors = Vec::new();
                barrier.wait();
                if think_ms > 0 {
                    // Staggered starts: agents do not begin their turns in step.
                    let offset = think_ms * index as u64 / live_count.max(1) as u64;
                    std::thread::sleep(Duration::from_millis(offset));
                }
                let mut step = 0;
                for _ in 0..loops {
                    for args in &commands {
                        match stage.run(args) {
                            Ok(took) => samples.push((kind(args), ms(took))),
                            Err(e) => errors.push(e),
                        }
                        if think_ms > 0 {
                            std::thread::sleep(think_pause(think_ms, index, step));
                        }
                        step += 1;
                    }
                }
                (samples, errors)
            })
        })
        .collect();
    let daemon_pids: Vec<i32> = live.iter().filter_map(|s| s.daemon_pid()).collect();
    let daemon_cpu_start: f64 = daemon_pids.iter().filter_map(|p| cpu_ms(*p)).sum();
    let chrome_cpu_start = group_cpu_ms(anchor.pid());
    barrier.wait();
    let started = Instant::now();
    let mut all_samples = Vec::new();
    for thread in threads {
        let (samples, errors) = thread.join().expect("stage thread");
        all_samples.extend(samples);
        failures.extend(errors);
    }
    let wall = started.elapsed();
    let daemon_cpu = daemon_pids.iter().filter_map(|p| cpu_ms(*p)).sum::<f64>() - daemon_cpu_start;
    let chrome_cpu = group_cpu_ms(anchor.pid()) - chrome_cpu_start;

    let (pss, rss, renderers) = renderer_memory(anchor.pid());
    let daemons: Vec<f64> = live
        .iter()
        .filter_map(|s| s.daemon_pid().and_then(rss_mb))
        .collect();
    let daemon_rss = daemons.iter().sum::<f64>() / daemons.len().max(1) as f64;
    let anon: Vec<f64> = live
        .iter()
        .filter_map(|s| s.daemon_pid().and_then(anon_mb))
        .collect();
    let daemon_anon = anon.iter().sum::<f64>() / anon.len().max(1) as f64;
    for stage in &stage_list {
        let _ = stage.run(&["close".to_string()]);
    }
    let _ = anchor.close(None).await;

    let mut by_kind: Vec<(String, Vec<f64>)> = Vec::new();
    for (k, v) in &all_samples {
        match by_kind.iter_mut().find(|(name, _)| name == k) {
            Some((_, list)) => list.push(*v),
            None => by_kind.push((k.clone(), vec![*v])),
        }
    }
    let per_tab = attached.max(1) as f64;
    Point {
        binary: bin.name,
        stages,
        attached,
        commands: all_samples.len(),
        failures,
        wall,
        all: all_samples.iter().map(|(_, v)| *v).collect(),
        by_kind,
        tab_pss: (pss - bare_pss) / per_tab,
        tab_rss: (rss - bare_rss) / per_tab,
        renderers: renderers.saturating_sub(bare_renderers),
        daemon_rss,
        daemon_anon,
        daemon_cpu,
        chrome_cpu,
    }
}

struct SoakSample {
    commands: usize,
    seconds: f64,
    rss: Option<f64>,
    anon: Option<f64>,
    fds: Option<usize>,
    p50: f64,
    p99: f64,
}

async fn soak(bin: &Binary, total: usize, every: usize, base: &str) -> (Vec<SoakSample>, usize) {
    let anchor = launch_anchor().await;
    let home = tempfile::tempdir().expect("temp home");
    let stage = Stage {
        bin: bin.clone(),
        home: home.path().to_path_buf(),
        session: "soak".into(),
        port: anchor.port(),
    };
    let shot = home.path().join("soak.png");
    let commands = twenty_commands(base, &shot.to_string_lossy());
    let mut failures = 0;
    if let Err(e) = stage.run(&["open".to_string(), format!("{base}/page1.html")]) {
        eprintln!("soak attach failed: {e}");
    }
    let pid = stage.daemon_pid();
    let sample = |commands: usize, seconds: f64, window: &[f64]| SoakSample {
        commands,
        seconds,
        rss: pid.and_then(rss_mb),
        anon: pid.and_then(anon_mb),
        fds: pid.and_then(open_fds),
        p50: quantile(window, 0.5),
        p99: quantile(window, 0.99),
    };
    let mut curve = vec![sample(0, 0.0, &[])];
    let started = Instant::now();
    let mut window = Vec::new();
    for i in 0..total {
        let args = &commands[i % commands.len()];
        match stage.run(args) {
            Ok(took) => window.push(ms(took)),
            Err(e) => {
                failures += 1;
                if failures <= 3 {
                    eprintln!("soak: {e}");
                }
            }
        }
        if (i + 1) % every == 0 || i + 1 == total {
            curve.push(sample(i + 1, started.elapsed().as_secs_f64(), &window));
            window.clear();
        }
    }
    let _ = stage.run(&["close".to_string()]);
    let _ = anchor.close(None).await;
    (curve, failures)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn cell(v: f64) -> String {
    if v.is_nan() {
        "–".into()
    } else {
        format!("{v:.1}")
    }
}

fn print_curve(points: &[Point]) {
    println!(
        "| binary | stages | commands (failed) | wall s | actions/s | p50 ms | p99 ms | p99 ÷ 1-stage p99 | Chrome PSS / tab MB | Chrome RSS / tab MB | renderers | daemon RSS (anonymous) / stage MB | daemon CPU ms / command | Chrome CPU ms / command |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for p in points {
        let single = points
            .iter()
            .find(|q| q.binary == p.binary && q.stages == 1)
            .map(|q| quantile(&q.all, 0.99));
        let p99 = quantile(&p.all, 0.99);
        let ratio = single.map_or("–".to_string(), |s| format!("{:.2}×", p99 / s));
        let attached = if p.attached == p.stages {
            p.stages.to_string()
        } else {
            format!("{} ({} attached)", p.stages, p.attached)
        };
        println!(
            "| {} | {attached} | {} ({}) | {:.1} | {:.1} | {} | {} | {ratio} | {} | {} | {} | {} ({}) | {:.2} | {:.1} |",
            p.binary,
            p.commands,
            p.failures.len(),
            p.wall.as_secs_f64(),
            p.commands as f64 / p.wall.as_secs_f64().max(1e-9),
            cell(quantile(&p.all, 0.5)),
            cell(p99),
            cell(p.tab_pss),
            cell(p.tab_rss),
            p.renderers,
            cell(p.daemon_rss),
            cell(p.daemon_anon),
            p.daemon_cpu / p.commands.max(1) as f64,
            p.chrome_cpu / p.commands.max(1) as f64,
        );
    }
    // Per command kind: p50 / p99 per point.
    let mut kinds: Vec<String> = Vec::new();
    for p in points {
        for (k, _) in &p.by_kind {
            if !kinds.contains(k) {
                kinds.push(k.clone());
            }
        }
    }
    println!("\nPer command kind, p50 / p99 ms:\n");
    let headers: Vec<String> = points
        .iter()
        .map(|p| format!("{} ×{}", p.binary, p.stages))
        .collect();
    println!("| command | {} |", headers.join(" | "));
    println!("|---|{}", "---|".repeat(points.len()));
    for k in &kinds {
        let cells: Vec<String> = points
            .iter()
            .map(|p| {
                p.by_kind
                    .iter()
                    .find(|(name, _)| name == k)
                    .map_or("–".to_string(), |(_, v)| {
                        format!("{} / {}", cell(quantile(v, 0.5)), cell(quantile(v, 0.99)))
                    })
            })
            .collect();
        println!("| `{k}` | {} |", cells.join(" | "));
    }
    for p in points {
        for f in p.failures.iter().take(3) {
            println!("\n- {} ×{} failure: {f}", p.binary, p.stages);
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let counts: Vec<usize> = std::env::var("ABX_SCALE_N")
        .unwrap_or_else(|_| if quick { "1,4" } else { "1,4,16,32" }.into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .filter(|n| *n > 0)
        .collect();
    let loops = env_or("ABX_SCALE_LOOPS", if quick { 1 } else { 2 });
    let soak_total = env_or("ABX_SOAK", if quick { 1000 } else { 10_000 });
    let soak_every = env_or("ABX_SOAK_EVERY", 500usize).max(1);
    let think_ms = env_or("ABX_SCALE_THINK_MS", 0u64);
    let mut binaries = vec![ours()];
    if env_or("ABX_SCALE_UPSTREAM", 1) != 0 {
        match upstream() {
            Some(up) => binaries.push(up),
            None => eprintln!("upstream agent-browser 0.41.2 not found: abx only"),
        }
    }
    let site = FixtureServer::start().await.expect("fixture server");
    let base = site.origin();
    let load_start = loadavg();

    let mut points = Vec::new();
    for &n in &counts {
        for bin in &binaries {
            eprintln!("== {} with {n} stages", bin.name);
            points.push(scale_point(bin, n, loops, think_ms, &base).await);
        }
    }
    println!("## Scale curve: N pinned stages on one anchor, at once\n");
    print_curve(&points);
    println!(
        "\n{loops} × the 20-command session per stage, {}; load average (1, 5, 15 min) {load_start} at the start, {} after the curve; binary {}",
        if think_ms > 0 {
            format!("each stage pausing 0.5–1.5 × {think_ms} ms after every command")
        } else {
            "commands back to back".to_string()
        },
        loadavg(),
        binaries[0].path.display()
    );

    if soak_total > 0 {
        let mut soaked = vec![binaries[0].clone()];
        if env_or("ABX_SOAK_UPSTREAM", 0) != 0
            && let Some(up) = binaries.get(1)
        {
            soaked.push(up.clone());
        }
        for bin in &soaked {
            eprintln!("== soak {} ({soak_total} commands)", bin.name);
            let load = loadavg();
            let (curve, failures) = soak(bin, soak_total, soak_every, &base).await;
            println!(
                "\n## Soak: {soak_total} commands on one {} stage session\n",
                bin.name
            );
            println!(
                "| commands | s | daemon RSS MB | of it anonymous MB | open fds | window p50 ms | window p99 ms |"
            );
            println!("|---|---|---|---|---|---|---|");
            for s in &curve {
                println!(
                    "| {} | {:.0} | {} | {} | {} | {} | {} |",
                    s.commands,
                    s.seconds,
                    s.rss.map_or("–".into(), cell),
                    s.anon.map_or("–".into(), cell),
                    s.fds.map_or("–".into(), |f| f.to_string()),
                    cell(s.p50),
                    cell(s.p99),
                );
            }
            println!(
                "\n{failures} failed; load average {load} at the start, {} at the end",
                loadavg()
            );
        }
    }
}
