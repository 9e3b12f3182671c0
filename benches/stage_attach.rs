//! Stage attach: what a pipeline stage pays to get its own pinned tab on a shared anchor.
//!
//! Two Hosts (the `abx-host` kit, as a pipeline Host links it), each with its own anchor started
//! the way the kit starts one (an `agent-browser` session on a profile folder): one keeps a spare
//! tab per anchor (`HostConfig::spare_tabs = 1`, the default), the other none (`0`). Rounds
//! alternate between them. Per round a new stage is prepared (`prepare_stage`, not timed; then
//! `ABX_STAGE_GAP_MS`, default 250, stands for the agent's own start: a Host starts the agent
//! after `prepare_stage`, and the next stage's spare is made meanwhile; with `0`, that creation
//! lands on this stage's attach), then its first command,
//! `agent-browser --json open <fixture>` — daemon spawn, attach, navigation — is timed at the
//! shell, followed by a warm `open` of the same page and five `get url`s; then `end_stage` (not
//! timed). Reported as p50 and p90 over `ABX_BENCH_ROUNDS` rounds per Host (default 15):
//! - first `open` at the shell (everything);
//! - its navigation inside the daemon (`lifecycle.timings.executeMs` of the reply);
//! - attach = the first `open` minus its navigation: process start, daemon spawn, the CDP
//!   connection, the tab (created, or the spare taken) and its attach, domain set-up, the socket
//!   round trips;
//! - warm `open` (navigation only) and warm `get url` (the fixed cost per command).
//!
//! `cargo bench -p abx-bench --bench stage_attach`. Prints a Markdown table.

#[path = "support/abx_binary.rs"]
mod abx_binary;
use abx_binary::abx_binary;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_fixtures::FixtureServer;
use abx_host::{
    BrowserEnv, DisplayProbe, Host, HostConfig, LaunchSettings, ProfileName, RunId, RunRef,
    RunState, Screen, StageId, StageSpec,
};
use serde_json::Value;

const CHROME_ARGS: &[&str] = &[
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
];

fn run(bin: &Path, env: &BrowserEnv, args: &[&str]) -> (Duration, Value) {
    let mut command = Command::new(bin);
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
        .envs(env.iter())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    let started = Instant::now();
    let output = command.output().expect("run agent-browser");
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

/// One row of the table: which samples it shows.
type Pick = fn(&Samples) -> &Vec<f64>;

#[derive(Default)]
struct Samples {
    first_open: Vec<f64>,
    navigation: Vec<f64>,
    attach: Vec<f64>,
    warm_open: Vec<f64>,
    warm_get: Vec<f64>,
    spare_taken: usize,
}

struct Bench {
    name: &'static str,
    host: Host,
    run: RunRef,
    samples: Samples,
    _home: tempfile::TempDir,
    _sockets: tempfile::TempDir,
}

fn host(name: &'static str, spare_tabs: usize, bin: &Path) -> Bench {
    let home = tempfile::Builder::new()
        .prefix("abxb-home")
        .tempdir()
        .expect("home");
    let sockets = tempfile::Builder::new()
        .prefix("abxb")
        .tempdir_in("/tmp")
        .expect("socket root");
    let mut config = HostConfig::new(home.path());
    config.socket_root = sockets.path().join("s");
    config.display = DisplayProbe::fixed(Screen::None);
    config.launch = LaunchSettings {
        args: CHROME_ARGS.iter().map(ToString::to_string).collect(),
        executable_path: std::env::var_os("ABX_BENCH_CHROME").map(Into::into),
    };
    config.spare_tabs = spare_tabs;
    let liveness = Arc::new(|_: &RunId| RunState::Running);
    let host = Host::local(config, liveness, bin).expect("host");
    let run = RunRef::parse("local", &format!("bench-{}", name.replace(' ', "-"))).expect("run");
    Bench {
        name,
        host,
        run,
        samples: Samples::default(),
        _home: home,
        _sockets: sockets,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds: usize = std::env::var("ABX_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let gap = Duration::from_millis(
        std::env::var("ABX_STAGE_GAP_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(250),
    );
    let bin = abx_binary();
    let site = FixtureServer::start().await.expect("fixture server");
    let url = site.url("/fixture.html");
    let spec = StageSpec::with_profile(ProfileName::new("bench").expect("profile"));
    let mut benches = [
        host("with a spare tab", 1, &bin),
        host("without spares", 0, &bin),
    ];
    // Warm-up: each Host starts its anchor with a first stage that is not counted.
    for bench in &mut benches {
        let stage = StageId::new("warm").expect("stage");
        let prepared = bench
            .host
            .prepare_stage(&bench.run, &stage, &spec)
            .await
            .expect("prepare");
        run(&bin, &prepared.env, &["open", &url]);
        bench
            .host
            .end_stage(&bench.run.id, &stage)
            .await
            .expect("end");
    }
    for round in 0..rounds {
        for bench in &mut benches {
            let stage = StageId::new(format!("s{round}")).expect("stage");
            let prepared = bench
                .host
                .prepare_stage(&bench.run, &stage, &spec)
                .await
                .expect("prepare");
            let handed = prepared
                .env
                .session_file("target")
                .is_some_and(|p| p.exists());
            tokio::time::sleep(gap).await;
            let env = prepared.env;
            let (took, reply) = run(&bin, &env, &["--json", "open", &url]);
            let samples = &mut bench.samples;
            samples.spare_taken += usize::from(handed);
            samples.first_open.push(ms(took));
            samples.navigation.push(execute_ms(&reply));
            samples.attach.push(ms(took) - execute_ms(&reply));
            let (took, _) = run(&bin, &env, &["--json", "open", &url]);
            samples.warm_open.push(ms(took));
            let gets: Vec<f64> = (0..5)
                .map(|_| ms(run(&bin, &env, &["get", "url"]).0))
                .collect();
            samples.warm_get.push(quantile(&gets, 0.5));
            bench
                .host
                .end_stage(&bench.run.id, &stage)
                .await
                .expect("end stage");
        }
    }
    for bench in &benches {
        let report = bench.host.end_run(&bench.run.id).await.expect("end run");
        assert!(report.complete(), "{report:?}");
    }

    println!("| stage step | with a spare tab p50 / p90 ms | without spares p50 / p90 ms |");
    println!("|---|---|---|");
    let rows: [(&str, Pick); 5] = [
        (
            "first `open` at the shell (spawn + attach + navigate)",
            |s| &s.first_open,
        ),
        ("its navigation inside the daemon", |s| &s.navigation),
        ("**attach** (first `open` minus its navigation)", |s| {
            &s.attach
        }),
        ("warm `open` (same page again)", |s| &s.warm_open),
        ("warm `get url`", |s| &s.warm_get),
    ];
    for (label, pick) in rows {
        let cells: Vec<String> = benches
            .iter()
            .map(|b| {
                let s = pick(&b.samples);
                format!("{:.1} / {:.1}", quantile(s, 0.5), quantile(s, 0.9))
            })
            .collect();
        println!("| {label} | {} |", cells.join(" | "));
    }
    for bench in &benches {
        println!(
            "\n{}: {} of {rounds} stages were handed a spare tab",
            bench.name, bench.samples.spare_taken
        );
    }
    println!(
        "\n{rounds} rounds per Host, alternating; gap between prepare and first command {} ms; \
         anchors: {}; binary {}",
        gap.as_millis(),
        chrome_name(),
        bin.display()
    );
}

fn chrome_name() -> String {
    let Ok(chrome) = std::env::var("ABX_BENCH_CHROME") else {
        return "abx's default Chrome (the headless shell when installed, ADR 0007)".into();
    };
    Command::new(&chrome)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or(chrome)
}
