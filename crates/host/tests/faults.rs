//! Fault tests: the anchor killed mid-run, its Chrome killed (an `anchor_lost` event), an anchor
//! start dropped or failing half way, a human login with nothing but Xvfb, a Host killed mid-run
//! then restarted (the sweep), two Hosts' runs on one profile, a resume behind another run, a
//! Host shutdown.

mod common;

use std::io::BufRead;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use abx_fixtures::FixtureServer;
use abx_host::{
    AnchorHealth, AnchorLossCause, AnchorRecord, BoxFuture, BrowserEnv, BrowserRunner, CliRunner,
    DisplayProbe, FileLease, FileProfileStore, Host, HostError, HostEvent, OwnerKind, ProfileKey,
    ProfileName, RunOutput, RunRef, RunState, Screen, StageId, StageSpec,
};
use common::wait::wait_until_async;
use common::{Place, Runs, ab_ok, alive, cdp_answers, daemon_pid, wait_gone};

fn stage(name: &str) -> StageId {
    StageId::new(name).expect("stage id")
}

fn profile_spec(name: &str) -> StageSpec {
    StageSpec::with_profile(ProfileName::new(name).expect("name"))
}

fn anchor_record(host: &Host, run: &RunRef, profile: &str) -> AnchorRecord {
    let path = host
        .config()
        .home
        .join("runs")
        .join(run.id.as_str())
        .join("browser")
        .join(run.scope.as_str())
        .join(profile)
        .join("anchor.json");
    serde_json::from_slice(&std::fs::read(path).expect("anchor.json")).expect("record")
}

async fn wait_until_unreachable(cdp: &str) {
    assert!(
        wait_until_async(Duration::from_secs(10), || async {
            !cdp_answers(cdp).await
        })
        .await,
        "{cdp} still answers"
    );
}

/// Limitation 10: the anchor dies mid-run; the next stage gets a new anchor, and every stage
/// env of the run (also of stages that were already prepared) points at it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anchor_killed_mid_run_next_stage_gets_a_new_anchor_and_every_env_follows() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-k").expect("run");
    runs.set(&run, RunState::Running);
    let first = host
        .prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect("a");
    ab_ok(&first.env, &["open", &site.url("/page1.html")]);
    let old = anchor_record(&host, &run, "site");
    let anchor_env = old.env.clone().expect("a local anchor");
    let anchor_pid = daemon_pid(&anchor_env).expect("anchor daemon");

    // The anchor's daemon is killed; its orphan guard takes its Chrome down.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(anchor_pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the anchor daemon we started");
    assert!(wait_gone(anchor_pid, Duration::from_secs(5)));
    wait_until_unreachable(&old.cdp).await;

    let second = host
        .prepare_stage(&run, &stage("b"), &profile_spec("site"))
        .await
        .expect("b");
    assert!(
        second.anchor_restarted,
        "a new anchor replaced the dead one"
    );
    let new = anchor_record(&host, &run, "site");
    assert_ne!(new.cdp, old.cdp);
    assert_eq!(new.restarts, 1);
    assert_eq!(second.env.cdp(), Some(new.cdp.as_str()));
    ab_ok(&second.env, &["open", &site.url("/page2.html")]);
    assert_eq!(ab_ok(&second.env, &["get", "title"]), "Page Two");
    // Stage a's persisted env was re-pointed; its next command works on the new anchor.
    let repointed = host
        .stage_env(&run.id, &stage("a"))
        .expect("read")
        .expect("env");
    assert_eq!(repointed.cdp(), Some(new.cdp.as_str()));
    ab_ok(&repointed, &["open", &site.url("/page1.html")]);
    assert_eq!(ab_ok(&repointed, &["get", "title"]), "Page One");
    assert!(host.end_run(&run.id).await.expect("end").complete());
    assert!(place.sockets_empty(), "{:?}", place.owners());
}

/// Two Hosts (here: two `Host` values on one home, as two processes would be) run on one
/// profile: the second run waits, is told who holds it, and runs once the first ends; the
/// first run's login survived its graceful close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_runs_on_one_profile_the_second_waits_then_runs() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.lease_wait.poll = Duration::from_millis(50);
    let first_host =
        Host::local(config.clone(), runs.clone(), common::agent_browser()).expect("host 1");
    let second_host =
        Arc::new(Host::local(config, runs.clone(), common::agent_browser()).expect("host 2"));
    let (run1, run2) = (
        RunRef::parse("local", "run-1").expect("r"),
        RunRef::parse("local", "run-2").expect("r"),
    );
    runs.set(&run1, RunState::Running);
    runs.set(&run2, RunState::Running);
    let one = first_host
        .prepare_stage(&run1, &stage("login"), &profile_spec("site"))
        .await
        .expect("run 1");
    ab_ok(&one.env, &["open", &site.url("/login.html")]);
    ab_ok(&one.env, &["fill", "#username", "ada"]);
    ab_ok(&one.env, &["fill", "#password", "pw"]);
    ab_ok(&one.env, &["click", "#signin"]);
    ab_ok(&one.env, &["wait", "--url", "**/account"]);

    let mut events = second_host.events();
    let waiting = {
        let host = second_host.clone();
        let run2 = run2.clone();
        tokio::spawn(async move {
            host.prepare_stage(&run2, &stage("work"), &profile_spec("site"))
                .await
        })
    };
    let holder = loop {
        match tokio::time::timeout(Duration::from_secs(20), events.recv()).await {
            Ok(Ok(HostEvent::WaitingForProfile { holder, .. })) => break holder,
            Ok(Ok(_)) => continue,
            other => panic!("no waiting event: {other:?}"),
        }
    };
    assert_eq!(holder.run, run1.id, "the waiting run sees the holder");
    assert!(
        !waiting.is_finished(),
        "run 2 must wait while run 1 holds the profile"
    );
    assert!(
        first_host
            .end_run(&run1.id)
            .await
            .expect("end run 1")
            .complete()
    );
    runs.set(&run1, RunState::Ended);

    let two = tokio::time::timeout(Duration::from_secs(60), waiting)
        .await
        .expect("run 2 proceeds")
        .expect("join")
        .expect("run 2");
    ab_ok(&two.env, &["open", &site.url("/account")]);
    assert_eq!(
        ab_ok(&two.env, &["get", "text", "#persist"]),
        "ada",
        "the persistent cookie survived the graceful close"
    );
    assert!(
        second_host
            .end_run(&run2.id)
            .await
            .expect("end run 2")
            .complete()
    );
}

/// Limitation 7: a resume behind another run's lease queues like a fresh start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_queues_behind_another_run_instead_of_failing() {
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.lease_wait.poll = Duration::from_millis(50);
    let host = Arc::new(Host::local(config, runs.clone(), common::agent_browser()).expect("host"));
    let (holder_run, resumed) = (
        RunRef::parse("local", "holder").expect("r"),
        RunRef::parse("local", "resumed").expect("r"),
    );
    runs.set(&holder_run, RunState::Running);
    runs.set(&resumed, RunState::Waiting);
    host.prepare_stage(&holder_run, &stage("s"), &profile_spec("site"))
        .await
        .expect("holder");
    let mut events = host.events();
    let resume = {
        let host = host.clone();
        let resumed = resumed.clone();
        tokio::spawn(async move {
            host.resume_stage(&resumed, &stage("gate"), &profile_spec("site"))
                .await
        })
    };
    loop {
        match tokio::time::timeout(Duration::from_secs(20), events.recv()).await {
            Ok(Ok(HostEvent::WaitingForProfile { holder, .. })) => {
                assert_eq!(holder.run, holder_run.id);
                break;
            }
            Ok(Ok(_)) => continue,
            other => panic!("the resume did not queue: {other:?}"),
        }
    }
    assert!(!resume.is_finished(), "the resume waits");
    assert!(host.end_run(&holder_run.id).await.expect("end").complete());
    let resumed_stage = resume
        .await
        .expect("join")
        .expect("the resume runs once the lease is free");
    assert!(resumed_stage.login.is_none(), "a resume runs no check");
    assert!(host.end_run(&resumed.id).await.expect("end").complete());
}

/// Limitation 9: a Host shutdown closes the browsers of runs that will not resume and leaves
/// a waiting run's browser up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_runs_that_will_not_resume_and_keeps_waiting_ones() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let (done, waiting) = (
        RunRef::parse("local", "done").expect("r"),
        RunRef::parse("local", "waiting").expect("r"),
    );
    let closing = host
        .prepare_stage(&done, &stage("s"), &profile_spec("one"))
        .await
        .expect("done");
    ab_ok(&closing.env, &["open", &site.url("/page1.html")]);
    let kept = host
        .prepare_stage(&waiting, &stage("gate"), &StageSpec::throwaway())
        .await
        .expect("waiting");
    ab_ok(&kept.env, &["open", &site.url("/page2.html")]);
    let closing_pid = daemon_pid(&closing.env).expect("daemon");
    let anchor_cdp = closing.env.cdp().expect("cdp").to_string();

    let report = host
        .shutdown(|run| run == &waiting.id)
        .await
        .expect("shutdown");
    assert_eq!(report.len(), 1);
    assert!(report[0].1.complete(), "{report:?}");
    assert!(!alive(closing_pid));
    assert!(
        !cdp_answers(&anchor_cdp).await,
        "the ended run's anchor is closed"
    );
    assert!(host.leases().leases().expect("leases").is_empty());
    assert_eq!(
        ab_ok(&kept.env, &["get", "title"]),
        "Page Two",
        "the waiting run is untouched"
    );
    assert!(host.end_run(&waiting.id).await.expect("end").complete());
}

/// Not a test on its own: the Host process that `host_killed_mid_run_...` starts and kills.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the child Host of host_killed_mid_run_then_restarted_the_sweep_cleans_only_dead_runs"]
async fn child_host() {
    let (Ok(home), Ok(sockets), Ok(url)) = (
        std::env::var("ABX_HOST_CHILD_HOME"),
        std::env::var("ABX_HOST_CHILD_SOCKETS"),
        std::env::var("ABX_HOST_CHILD_URL"),
    ) else {
        return;
    };
    let mut config = abx_host::HostConfig::new(home);
    config.socket_root = sockets.into();
    config.display = DisplayProbe::fixed(Screen::None);
    config.launch.args = vec!["--disable-quic".into(), "--disable-gpu".into()];
    let host =
        Host::local(config, Arc::new(Runs::default()), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "dead-run").expect("run");
    let work = host
        .prepare_stage(&run, &stage("work"), &profile_spec("site"))
        .await
        .expect("work");
    ab_ok(&work.env, &["open", &url]);
    let scrape = host
        .prepare_stage(&run, &stage("scrape"), &StageSpec::throwaway())
        .await
        .expect("scrape");
    ab_ok(&scrape.env, &["open", &url]);
    println!("READY");
    // Wait to be killed.
    tokio::time::sleep(Duration::from_secs(300)).await;
}

/// A Host killed mid-run, then a new Host: its sweep closes everything of the dead run (stage
/// sessions first, then the anchor; the lease is reclaimed) and touches nothing of a live one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_killed_mid_run_then_restarted_the_sweep_cleans_only_dead_runs() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let config = place.config();
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .args([
            "child_host",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ABX_HOST_CHILD_HOME", &config.home)
        .env("ABX_HOST_CHILD_SOCKETS", &config.socket_root)
        .env("ABX_HOST_CHILD_URL", site.url("/page1.html"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("child Host");
    let stdout = child.stdout.take().expect("stdout");
    let ready = tokio::task::spawn_blocking(move || {
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("READY"))
    });
    assert!(
        tokio::time::timeout(Duration::from_secs(120), ready)
            .await
            .expect("child ready in time")
            .expect("join")
    );
    // The Host dies without any teardown.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the child Host we started");
    let _ = child.wait();

    let dead: Vec<_> = place.owners();
    assert_eq!(
        dead.len(),
        3,
        "anchor + two stages of the dead run: {dead:?}"
    );
    let dead_pids: Vec<i32> = dead
        .iter()
        .filter_map(|(_, o)| o.env.as_ref().and_then(daemon_pid))
        .collect();
    assert_eq!(dead_pids.len(), 3, "their daemons survived the Host");

    // The restarted Host has a live run of its own on another profile.
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let (dead_run, live_run) = (
        RunRef::parse("local", "dead-run").expect("r"),
        RunRef::parse("local", "live-run").expect("r"),
    );
    runs.set(&dead_run, RunState::Ended);
    runs.set(&live_run, RunState::Running);
    let live = host
        .prepare_stage(&live_run, &stage("work"), &profile_spec("other"))
        .await
        .expect("live");
    ab_ok(&live.env, &["open", &site.url("/page2.html")]);
    let live_owners: Vec<_> = place
        .owners()
        .into_iter()
        .filter(|(_, o)| o.run == live_run.id)
        .collect();

    let report = host.sweep().await.expect("sweep");
    assert_eq!(
        (report.stages_closed, report.anchors_closed, report.left),
        (2, 1, 0),
        "{report:?}"
    );
    assert!(report.leases_reclaimed >= 1, "{report:?}");
    for pid in dead_pids {
        assert!(
            wait_gone(pid, Duration::from_secs(5)),
            "daemon {pid} of the dead run survived the sweep"
        );
    }
    let after = place.owners();
    assert!(
        after.iter().all(|(_, o)| o.run == live_run.id),
        "something of the dead run is left: {after:?}"
    );
    assert_eq!(
        after.len(),
        live_owners.len(),
        "the live run's records are untouched"
    );
    assert!(after.iter().any(|(_, o)| o.kind == OwnerKind::Anchor));
    assert!(
        host.leases()
            .leases()
            .expect("leases")
            .iter()
            .all(|(_, h)| h.run == live_run.id)
    );
    assert_eq!(
        ab_ok(&live.env, &["get", "title"]),
        "Page Two",
        "the live run still works"
    );
    assert!(host.end_run(&live_run.id).await.expect("end").complete());
    assert!(place.sockets_empty());
}

fn profile_key(run: &RunRef, name: &str) -> ProfileKey {
    ProfileKey {
        scope: run.scope.clone(),
        name: ProfileName::new(name).expect("name"),
    }
}

/// The parent pid and the name of a process, from `/proc/<pid>/stat`.
fn parent_and_name(pid: i32) -> Option<(i32, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let name = stat[stat.find('(')? + 1..stat.rfind(')')?].to_string();
    let ppid = stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ppid, name))
}

/// The next `AnchorLost` event (other events are skipped), within `bound`.
async fn next_loss(
    events: &mut tokio::sync::broadcast::Receiver<HostEvent>,
    bound: Duration,
) -> HostEvent {
    let deadline = tokio::time::Instant::now() + bound;
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event @ HostEvent::AnchorLost { .. })) => return event,
            Ok(Ok(_)) => continue,
            other => panic!("no anchor_lost event within {bound:?}: {other:?}"),
        }
    }
}

/// Issue 37 part 2: `kill -9` of the anchor's Chrome is an `anchor_lost` event as it happens,
/// with its typed cause and the stages that were on it; the health check says so; the next
/// stage replaces the anchor as before, and the loss is not reported twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_anchor_chrome_is_an_anchor_lost_event_and_the_next_stage_replaces_it() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let audit = Arc::new(abx_host::MemoryAudit::new());
    let host = common::host(&place, runs.clone()).with_audit(audit.clone());
    let run = RunRef::parse("local", "run-lost").expect("run");
    runs.set(&run, RunState::Running);
    let key = profile_key(&run, "site");
    let first = host
        .prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect("a");
    ab_ok(&first.env, &["open", &site.url("/page1.html")]);
    let old = anchor_record(&host, &run, "site");
    let anchor_daemon = daemon_pid(old.env.as_ref().expect("a local anchor")).expect("daemon");

    // The health check: up, and the watch names the anchor's Chrome (a child of its daemon).
    let deadline = Instant::now() + Duration::from_secs(15);
    let chrome = loop {
        let status = host
            .anchor_health(&run.id, &key)
            .await
            .expect("health")
            .expect("an anchor");
        assert_eq!(status.health, AnchorHealth::Up, "{status:?}");
        if let Some(pid) = status.browser_pid {
            assert_eq!(status.stages, vec![stage("a")]);
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "the watch never learned the Chrome pid"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (parent, name) = parent_and_name(chrome).expect("the anchor's Chrome runs");
    assert_eq!(
        parent, anchor_daemon,
        "{chrome} ({name}) is the anchor daemon's Chrome"
    );
    assert!(name.contains("chrom"), "{name}");

    let mut events = host.events();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(chrome),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the anchor's Chrome (started by this test's Host)");
    let killed = Instant::now();
    let lost = next_loss(&mut events, Duration::from_secs(5)).await;
    eprintln!(
        "anchor_lost {:?} after kill -9 of the anchor's Chrome",
        killed.elapsed()
    );
    assert_eq!(
        lost,
        HostEvent::AnchorLost {
            run: run.id.clone(),
            scope: run.scope.clone(),
            profile: key.clone(),
            cause: AnchorLossCause::BrowserExited { pid: Some(chrome) },
            stages: vec![stage("a")],
        }
    );
    let json = serde_json::to_value(&lost).expect("events serialize");
    assert_eq!(json["event"], "anchor_lost", "{json}");
    assert_eq!(json["cause"]["kind"], "browser_exited", "{json}");
    assert_eq!(json["stages"], serde_json::json!(["a"]), "{json}");
    // The loss is in the audit trail too, with the sink the Host set after it started.
    let audited = audit
        .entries()
        .into_iter()
        .filter(|e| matches!(&e.record, abx_host::AuditRecord::AnchorLost { run: r, .. } if *r == run.id))
        .count();
    assert_eq!(audited, 1, "one anchor_lost audit record");
    let status = host
        .anchor_health(&run.id, &key)
        .await
        .expect("health")
        .expect("the lost anchor is still recorded");
    assert!(
        matches!(
            &status.health,
            AnchorHealth::Lost {
                cause: AnchorLossCause::BrowserExited { .. },
                ..
            }
        ),
        "{status:?}"
    );

    // The next stage replaces it, as before the watch; every stage env follows.
    let second = host
        .prepare_stage(&run, &stage("b"), &profile_spec("site"))
        .await
        .expect("b");
    assert!(second.anchor_restarted);
    let new = anchor_record(&host, &run, "site");
    assert_ne!(new.cdp, old.cdp);
    assert_eq!(new.restarts, 1);
    ab_ok(&second.env, &["open", &site.url("/page2.html")]);
    assert_eq!(ab_ok(&second.env, &["get", "title"]), "Page Two");
    let repointed = host
        .stage_env(&run.id, &stage("a"))
        .expect("read")
        .expect("env");
    assert_eq!(repointed.cdp(), Some(new.cdp.as_str()));
    let mut later = Vec::new();
    while let Ok(event) = events.try_recv() {
        later.push(event);
    }
    assert!(
        !later
            .iter()
            .any(|e| matches!(e, HostEvent::AnchorLost { .. })),
        "the loss is reported once: {later:?}"
    );
    assert!(
        later.iter().any(|e| matches!(
            e,
            HostEvent::AnchorStarted {
                restarted: true,
                ..
            }
        )),
        "{later:?}"
    );
    let all = host.anchors_health().await.expect("health");
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].health, AnchorHealth::Up, "{all:?}");
    assert!(host.end_run(&run.id).await.expect("end").complete());
    assert!(wait_gone(anchor_daemon, Duration::from_secs(5)));
    assert!(
        host.anchor_health(&run.id, &key)
            .await
            .expect("health")
            .is_none(),
        "a closed anchor has no health"
    );
    assert!(place.sockets_empty(), "{:?}", place.owners());
}

/// How [`Faulty`] breaks `get cdp-url`, once.
#[derive(Clone, Copy)]
enum CdpUrlFault {
    /// Never answers (the preparation is dropped while it waits).
    Hang,
    /// Fails.
    Fail,
}

/// The real `agent-browser`, except that the first `get cdp-url` hangs or fails; it notes the
/// session daemon that was running at that moment.
struct Faulty {
    inner: CliRunner,
    fault: CdpUrlFault,
    armed: AtomicBool,
    daemon: Mutex<Option<i32>>,
    hit: tokio::sync::Notify,
}

impl Faulty {
    fn new(fault: CdpUrlFault) -> Arc<Faulty> {
        Arc::new(Faulty {
            inner: CliRunner::new(common::agent_browser()),
            fault,
            armed: AtomicBool::new(true),
            daemon: Mutex::new(None),
            hit: tokio::sync::Notify::new(),
        })
    }

    fn daemon(&self) -> Option<i32> {
        *self
            .daemon
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl BrowserRunner for Faulty {
    fn run<'a>(
        &'a self,
        env: &'a BrowserEnv,
        args: &'a [&'a str],
        timeout: Duration,
    ) -> BoxFuture<'a, RunOutput> {
        if args == ["get", "cdp-url"] && self.armed.swap(false, Ordering::SeqCst) {
            *self
                .daemon
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = daemon_pid(env);
            self.hit.notify_one();
            return match self.fault {
                CdpUrlFault::Hang => Box::pin(std::future::pending()),
                CdpUrlFault::Fail => Box::pin(async {
                    RunOutput {
                        code: 1,
                        stdout: String::new(),
                        stderr: "injected failure".into(),
                    }
                }),
            };
        }
        self.inner.run(env, args, timeout)
    }
}

fn faulty_host(place: &Place, runs: Arc<Runs>, runner: Arc<Faulty>) -> Host {
    let config = place.config();
    Host::new(
        config.clone(),
        Arc::new(FileProfileStore::new(config.home.join("profiles"))),
        Arc::new(FileLease::new(config.home.join("locks"))),
        runs,
        runner,
    )
    .expect("host")
}

/// Issue 37 part 6: a `prepare_stage` dropped while its anchor starts (Chrome launched, its
/// address not read yet) leaves no Chrome holding the profile: the start was recorded before
/// the launch, and what it launched is closed; the next stage starts a fresh anchor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_anchor_start_leaves_no_browser_holding_the_profile() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let runner = Faulty::new(CdpUrlFault::Hang);
    let host = Arc::new(faulty_host(&place, runs.clone(), runner.clone()));
    let run = RunRef::parse("local", "run-drop").expect("run");
    runs.set(&run, RunState::Running);
    let hit = runner.hit.notified();
    let preparing = {
        let (host, run) = (host.clone(), run.clone());
        tokio::spawn(async move {
            host.prepare_stage(&run, &stage("a"), &profile_spec("site"))
                .await
        })
    };
    tokio::time::timeout(Duration::from_secs(60), hit)
        .await
        .expect("the anchor started and its address was asked for");
    let daemon = runner.daemon().expect("the anchor's daemon runs");
    let starting = anchor_record(&host, &run, "site");
    assert!(
        starting.is_starting(),
        "recorded before its address is known: {starting:?}"
    );
    preparing.abort();
    assert!(preparing.await.expect_err("dropped").is_cancelled());

    assert!(
        wait_gone(daemon, Duration::from_secs(30)),
        "the dropped start's session (and its Chrome) is still up"
    );
    let next = host
        .prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect("the next preparation");
    assert!(next.anchor_started);
    assert!(
        !next.anchor_restarted,
        "an unfinished start is not a restart"
    );
    ab_ok(&next.env, &["open", &site.url("/page1.html")]);
    assert_eq!(ab_ok(&next.env, &["get", "title"]), "Page One");
    assert!(host.end_run(&run.id).await.expect("end").complete());
    assert!(place.sockets_empty(), "{:?}", place.owners());
}

/// Issue 37 part 6: a failing `get cdp-url` closes the anchor it started (no Chrome keeps the
/// profile, no record is left), and the next stage starts one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_get_cdp_url_closes_the_anchor_it_started() {
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let runner = Faulty::new(CdpUrlFault::Fail);
    let host = faulty_host(&place, runs.clone(), runner.clone());
    let run = RunRef::parse("local", "run-fail").expect("run");
    runs.set(&run, RunState::Running);
    let err = host
        .prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect_err("the anchor's address cannot be read");
    assert!(matches!(err, HostError::Anchor { .. }), "{err}");
    let daemon = runner.daemon().expect("the anchor's daemon ran");
    assert!(!alive(daemon), "the failed start's session is still up");
    assert!(
        !place
            .owners()
            .iter()
            .any(|(_, o)| o.kind == OwnerKind::Anchor),
        "{:?}",
        place.owners()
    );
    let record = host
        .config()
        .home
        .join("runs/run-fail/browser/local/site/anchor.json");
    assert!(!record.exists(), "no record of a closed start");
    let next = host
        .prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect("the next preparation");
    assert!(next.anchor_started);
    assert!(host.end_run(&run.id).await.expect("end").complete());
    assert!(place.sockets_empty(), "{:?}", place.owners());
}

/// Issue 37 part 6: a human-login stage on a server whose only screen is Xvfb (a window nobody
/// sees) and that offers no live view fails with `NoScreen` before anything starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_login_with_only_xvfb_and_no_live_view_is_no_screen() {
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.display = DisplayProbe::fixed(Screen::Virtual {
        xvfb: "/usr/bin/Xvfb".into(),
    });
    config.live_view_handoff = false;
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "run-human").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec {
        human_login: Some("http://127.0.0.1:9/login".into()),
        ..profile_spec("site")
    };
    let err = host
        .prepare_stage(&run, &stage("login"), &spec)
        .await
        .expect_err("nobody could see the login window");
    match &err {
        HostError::NoScreen { reason } => assert!(reason.contains("Xvfb"), "{reason}"),
        other => panic!("expected NoScreen, got {other}"),
    }
    assert!(
        place.owners().is_empty(),
        "nothing started: {:?}",
        place.owners()
    );
    assert!(host.leases().leases().expect("leases").is_empty());
}

/// Issue 37 part 2: the anchor's session killed (its daemon `kill -9`; the orphan guard takes
/// its Chrome down) is `anchor_lost` with `session_ended`, also with spare tabs off (the Host
/// then holds its connection to the anchor for the watch alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_anchor_session_is_session_ended_even_with_spare_tabs_off() {
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.spare_tabs = 0;
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "run-session").expect("run");
    runs.set(&run, RunState::Running);
    let key = profile_key(&run, "site");
    host.prepare_stage(&run, &stage("a"), &profile_spec("site"))
        .await
        .expect("a");
    let old = anchor_record(&host, &run, "site");
    let anchor_daemon = daemon_pid(old.env.as_ref().expect("a local anchor")).expect("daemon");
    // Watched once the Host's connection learned the anchor's processes.
    assert!(
        wait_until_async(Duration::from_secs(15), || async {
            host.anchor_health(&run.id, &key)
                .await
                .expect("health")
                .and_then(|s| s.browser_pid)
                .is_some()
        })
        .await,
        "the anchor is not watched"
    );
    let mut events = host.events();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(anchor_daemon),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the anchor daemon this test's Host started");
    match next_loss(&mut events, Duration::from_secs(5)).await {
        HostEvent::AnchorLost { cause, stages, .. } => {
            assert_eq!(
                cause,
                AnchorLossCause::SessionEnded {
                    daemon_pid: Some(anchor_daemon)
                }
            );
            assert_eq!(stages, vec![stage("a")]);
        }
        other => panic!("{other:?}"),
    }
    assert!(host.end_run(&run.id).await.expect("end").complete());
    let left: Vec<_> = walk(&place.socket_root());
    assert!(place.sockets_empty(), "{left:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(entry.path());
        if entry.path().is_dir() {
            out.extend(walk(&entry.path()));
        }
    }
    out
}
