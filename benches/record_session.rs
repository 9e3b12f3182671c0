//! What recording costs the commands: a 20-command session timed with and without `record start`
//! running (30 fps WebM unless `ABX_BENCH_RECORD_FPS`), alternating per iteration, on the
//! fixture site. Prints the median session wall time and per-command medians as Markdown.
//!
//! `cargo bench -p abx-bench --bench record_session` (env `ABX_BENCH_ITERATIONS`, default 5;
//! `ABX_BENCH_OURS_BIN` or `ABX_BENCH_BINARY`, default the release build beside the bench, else
//! `target/debug/agent-browser`).
//! Needs `ffmpeg` on PATH.

#[path = "support/twenty_commands.rs"]
mod support;
use support::twenty_commands;
#[path = "support/abx_binary.rs"]
mod abx_binary;
use abx_binary::abx_binary;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHROME_ARGS: &str = "--no-sandbox,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-quic,--disable-gpu";

struct Env {
    home: tempfile::TempDir,
    binary: PathBuf,
}

impl Env {
    fn run(&self, args: &[&str]) -> Duration {
        let started = Instant::now();
        let output = Command::new(&self.binary)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("AGENT_BROWSER_SOCKET_DIR", self.home.path().join("s"))
            .env("AGENT_BROWSER_SESSION", "bench")
            .env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium")
            .env("AGENT_BROWSER_ARGS", CHROME_ARGS)
            .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run");
        let took = started.elapsed();
        if !output.status.success() {
            eprintln!(
                "{args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        took
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

fn main() {
    let iterations: usize = std::env::var("ABX_BENCH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let fps = std::env::var("ABX_BENCH_RECORD_FPS").unwrap_or_else(|_| "30".into());
    let binary = abx_binary();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime
        .block_on(abx_fixtures::FixtureServer::start())
        .expect("fixture server");
    let base = site.url("");
    let base = base.trim_end_matches('/').to_string();
    let env = Env {
        home: tempfile::tempdir().expect("home"),
        binary: binary.clone(),
    };
    let shot = env.home.path().join("shot.png").display().to_string();
    let video = env.home.path().join("bench.webm").display().to_string();
    let commands = twenty_commands(&base, &shot);
    env.run(&["open", &format!("{base}/static.html")]);
    let mut plain: Vec<Vec<Duration>> = vec![Vec::new(); commands.len()];
    let mut recorded: Vec<Vec<Duration>> = vec![Vec::new(); commands.len()];
    let mut totals = (Vec::new(), Vec::new());
    let mut stops = Vec::new();
    for i in 0..iterations * 2 {
        let recording = i % 2 == 1;
        if recording {
            env.run(&["record", "start", &video, "--fps", &fps]);
        }
        let started = Instant::now();
        for (n, command) in commands.iter().enumerate() {
            let args: Vec<&str> = command.iter().map(String::as_str).collect();
            let took = env.run(&args);
            if recording {
                recorded[n].push(took);
            } else {
                plain[n].push(took);
            }
        }
        let total = started.elapsed();
        if recording {
            totals.1.push(total);
            stops.push(env.run(&["record", "stop"]));
        } else {
            totals.0.push(total);
        }
    }
    env.run(&["close"]);
    println!(
        "{iterations} iterations of each, alternating; recording at {fps} fps; binary {}\n",
        binary.display()
    );
    println!("| | without recording | while recording | ratio |\n|---|---|---|---|");
    let (a, b) = (median(totals.0), median(totals.1));
    println!(
        "| **20-command session, ms** | {} | {} | {:.2}× |",
        ms(a),
        ms(b),
        b.as_secs_f64() / a.as_secs_f64().max(1e-9)
    );
    for (n, command) in commands.iter().enumerate() {
        let (a, b) = (median(plain[n].clone()), median(recorded[n].clone()));
        println!(
            "| `{}` | {} | {} | {:.2}× |",
            command[0],
            ms(a),
            ms(b),
            b.as_secs_f64() / a.as_secs_f64().max(1e-9)
        );
    }
    println!(
        "\n`record stop` (ffmpeg finishing the file): median {} ms",
        ms(median(stops))
    );
}
