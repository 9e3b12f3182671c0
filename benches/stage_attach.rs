//! Stage attach: what a pipeline stage pays to get its own pinned tab on a shared anchor.
//!
//! One anchor Chrome (launched by us, as the Host launches it), then per round a new stage
//! session runs `agent-browser open <fixture>` with `AGENT_BROWSER_CDP=<anchor port>` and
//! `AGENT_BROWSER_PIN_TAB=1` — daemon spawn, attach, its own tab, navigation — followed by a
//! warm `open` of the same page and a `get url` on that session, then `close`. Reported, as
//! medians and p90 over `ABX_BENCH_ROUNDS` rounds (default 15):
//! - first `open` at the shell (everything);
//! - its navigation inside the daemon (`lifecycle.timings.executeMs` of the reply);
//! - attach = the first `open` minus its navigation: process start, daemon spawn, the CDP
//!   connection, target creation and attach, domain set-up, the socket round trips;
//! - warm `open` (navigation only) and warm `get url` (the fixed cost per command).
//!
//! `cargo bench -p abx-bench --bench stage_attach`. Prints a Markdown table.

#[path = "support/abx_binary.rs"]
mod abx_binary;
use abx_binary::abx_binary;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use abx_chrome::{Chrome, LaunchOptions};
use abx_fixtures::FixtureServer;
use serde_json::Value;

const CHROME_ARGS: &[&str] = &[
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

struct Stage<'a> {
    bin: &'a Path,
    socket_dir: &'a Path,
    home: &'a Path,
    session: String,
    port: u16,
}

impl Stage<'_> {
    fn run(&self, args: &[&str]) -> (Duration, Value) {
        let started = Instant::now();
        let output = Command::new(self.bin)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home)
            .env("AGENT_BROWSER_SOCKET_DIR", self.socket_dir)
            .env("AGENT_BROWSER_SESSION", &self.session)
            .env("AGENT_BROWSER_CDP", self.port.to_string())
            .env("AGENT_BROWSER_PIN_TAB", "1")
            .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .stdout(Stdio::piped())
            .output()
            .expect("run agent-browser");
        let took = started.elapsed();
        assert!(
            output.status.success(),
            "{args:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let reply = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        (took, reply)
    }
}

fn execute_ms(reply: &Value) -> f64 {
    reply
        .pointer("/data/lifecycle/timings/executeMs")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn quantile(samples: &[f64], q: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let index = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(index).copied().unwrap_or(0.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds: usize = std::env::var("ABX_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let bin = abx_binary();
    let site = FixtureServer::start().await.expect("fixture server");
    let anchor = Chrome::launch(LaunchOptions {
        args: CHROME_ARGS.iter().map(|s| s.to_string()).collect(),
        ..LaunchOptions::default()
    })
    .await
    .expect("anchor chrome");
    let home = tempfile::tempdir().expect("temp home");
    let socket_dir = home.path().join("s");
    let url = site.url("/fixture.html");

    let mut first_open = Vec::new();
    let mut navigation = Vec::new();
    let mut attach = Vec::new();
    let mut warm_open = Vec::new();
    let mut warm_get = Vec::new();
    for round in 0..rounds {
        let stage = Stage {
            bin: &bin,
            socket_dir: &socket_dir,
            home: home.path(),
            session: format!("stage{round}"),
            port: anchor.port(),
        };
        let (took, reply) = stage.run(&["--json", "open", &url]);
        first_open.push(ms(took));
        navigation.push(execute_ms(&reply));
        attach.push(ms(took) - execute_ms(&reply));
        let (took, _) = stage.run(&["--json", "open", &url]);
        warm_open.push(ms(took));
        let mut gets = Vec::new();
        for _ in 0..5 {
            gets.push(ms(stage.run(&["get", "url"]).0));
        }
        warm_get.push(quantile(&gets, 0.5));
        stage.run(&["close"]);
    }
    let _ = anchor.close(None).await;

    println!("| stage step | p50 ms | p90 ms |");
    println!("|---|---|---|");
    for (name, samples) in [
        (
            "first `open` at the shell (spawn + attach + navigate)",
            &first_open,
        ),
        ("its navigation inside the daemon", &navigation),
        ("attach (first `open` minus its navigation)", &attach),
        ("warm `open` (same page again)", &warm_open),
        ("warm `get url`", &warm_get),
    ] {
        println!(
            "| {name} | {:.1} | {:.1} |",
            quantile(samples, 0.5),
            quantile(samples, 0.9)
        );
    }
    println!(
        "\n{rounds} rounds, one anchor ({}), binary {}",
        anchor_name(),
        bin.display()
    );
}

fn anchor_name() -> String {
    Command::new("/usr/bin/chromium")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
