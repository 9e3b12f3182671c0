//! Remote anchors against a real browser service: the open-source Browserless platform, started
//! by the test on loopback with Debian's Chromium (see `docs/host.md`, "Remote browsers").
//!
//! Opt-in (`#[ignore]`d, so a run without the service reports them ignored instead of passing
//! them unchecked), because it needs `npm install @browserless.io/browserless@2.42.0` (~580 MB),
//! which CI does not install:
//!
//! ```sh
//! mkdir -p /tmp/abx-browserless && (cd /tmp/abx-browserless && npm install @browserless.io/browserless@2.42.0)
//! ABX_BROWSERLESS_DIR=/tmp/abx-browserless \
//!     cargo test -p abx-host --test browserless -- --ignored --test-threads=1
//! ```

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_fixtures::FixtureServer;
use abx_host::{
    BrowserSource, Host, OwnerKind, ProfileName, RemoteEndpoint, RunRef, RunState, StageId,
    StageSpec, var,
};
use common::{Place, Runs, ab, ab_ok};

/// Browserless running on a loopback port; its process group is ended on drop.
struct Browserless {
    child: Child,
    port: u16,
    token: String,
    _dirs: tempfile::TempDir,
}

fn chromium_revision(install: &Path) -> String {
    let text = std::fs::read_to_string(install.join("node_modules/playwright-core/browsers.json"))
        .expect("playwright-core/browsers.json in the Browserless install");
    let value: serde_json::Value = serde_json::from_str(&text).expect("browsers.json");
    value["browsers"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["name"] == "chromium"))
        .and_then(|b| b["revision"].as_str())
        .expect("chromium revision")
        .to_string()
}

impl Browserless {
    fn start(install: &Path) -> Browserless {
        let dirs = tempfile::tempdir().expect("dirs");
        let browsers = dirs.path().join("pw");
        let chrome_dir = browsers
            .join(format!("chromium-{}", chromium_revision(install)))
            .join("chrome-linux64");
        std::fs::create_dir_all(&chrome_dir).expect("browser dir");
        // The real ELF, not the /usr/bin/chromium shell wrapper.
        std::os::unix::fs::symlink("/usr/lib/chromium/chromium", chrome_dir.join("chrome"))
            .expect("chrome symlink");
        let routes = dirs.path().join("routes");
        std::fs::create_dir_all(&routes).expect("routes");
        for route in ["chromium", "management"] {
            std::os::unix::fs::symlink(
                install
                    .join("node_modules/@browserless.io/browserless/build/routes")
                    .join(route),
                routes.join(route),
            )
            .expect("route symlink");
        }
        for dir in ["data", "downloads"] {
            std::fs::create_dir_all(dirs.path().join(dir)).expect("service dir");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let token = format!("bl-secret-{}", std::process::id());
        let child = Command::new("node")
            .arg("node_modules/@browserless.io/browserless/build/index.js")
            .current_dir(install)
            .env("PLAYWRIGHT_BROWSERS_PATH", &browsers)
            .env("ROUTES", &routes)
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("TOKEN", &token)
            .env("DATA_DIR", dirs.path().join("data"))
            .env("DOWNLOAD_DIR", dirs.path().join("downloads"))
            .env("CONCURRENT", "10")
            .env("QUEUED", "10")
            // Without it a session is cut after 30 s.
            .env("TIMEOUT", "0")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("node");
        // A failed start exits 0 too: wait for the port, not for the exit code.
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "Browserless did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Browserless {
            child,
            port,
            token,
            _dirs: dirs,
        }
    }

    fn pgid(&self) -> i32 {
        self.child.id() as i32
    }
}

/// The processes Browserless started (its descendants: it launches browsers in their own
/// process groups), with their command lines, from /proc.
fn group(root: i32) -> Vec<(i32, String)> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| stat[i + 2..].to_string()) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first().is_some_and(|s| *s == "Z") {
            continue;
        }
        if let Some(ppid) = fields.get(1).and_then(|p| p.parse::<i32>().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut family = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, ppid) in &parents {
            if family.contains(ppid) && !family.contains(pid) {
                family.push(*pid);
                grew = true;
            }
        }
    }
    family
        .into_iter()
        .filter(|pid| parents.iter().any(|(p, _)| p == pid))
        .map(|pid| {
            let cmdline = std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                .unwrap_or_default()
                .replace('\0', " ");
            (pid, cmdline)
        })
        .collect()
}

/// The DevTools ports of the browsers Browserless runs now (`--remote-debugging-port=N`, or
/// `<user-data-dir>/DevToolsActivePort` for `=0`).
fn browser_ports(pgid: i32) -> Vec<u16> {
    let mut ports: Vec<u16> = group(pgid)
        .iter()
        .filter(|(_, cmd)| cmd.contains("--remote-debugging-port"))
        .filter_map(|(_, cmd)| {
            let explicit = cmd
                .split_whitespace()
                .find_map(|a| a.strip_prefix("--remote-debugging-port="))
                .and_then(|p| p.parse::<u16>().ok())
                .filter(|p| *p != 0);
            if explicit.is_some() {
                return explicit;
            }
            let dir = cmd
                .split_whitespace()
                .find_map(|a| a.strip_prefix("--user-data-dir="))?;
            let active = std::fs::read_to_string(Path::new(dir).join("DevToolsActivePort")).ok()?;
            active.lines().next()?.trim().parse().ok()
        })
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// Whether Browserless runs a browser process now.
fn browsers_running(pgid: i32) -> bool {
    group(pgid)
        .iter()
        .any(|(_, cmd)| cmd.contains("--remote-debugging-port"))
}

impl Drop for Browserless {
    fn drop(&mut self) {
        // Browserless and what it started (by pid; browsers run in their own groups).
        let started = group(self.pgid());
        let pgid = nix::unistd::Pid::from_raw(self.pgid());
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(5);
        while started.iter().any(|(pid, _)| common::alive(*pid)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        for (pid, _) in &started {
            if common::alive(*pid) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(*pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        let _ = self.child.wait();
    }
}

/// Browserless launches a browser per connection to `/chromium`; other clients reach a running
/// one at `/devtools/browser/<browserId>`, which its `/sessions` listing names. The Host's
/// connection is recognised there by its tabs' target ids.
fn sessions_resolver(port: u16, token: String) -> abx_host::StageAddressResolver {
    Arc::new(move |browser: abx_host::RemoteBrowser| {
        let token = token.clone();
        Box::pin(async move {
            let (status, body) =
                abx_cdp::http_get("127.0.0.1", port, &format!("/sessions?token={token}"), &[])
                    .await
                    .map_err(|e| e.to_string())?;
            if status != 200 {
                return Err(format!("/sessions answered {status}"));
            }
            let sessions: Vec<serde_json::Value> =
                serde_json::from_str(&body).map_err(|e| e.to_string())?;
            sessions
                .iter()
                .find(|s| {
                    s["id"]
                        .as_str()
                        .is_some_and(|id| browser.target_ids.iter().any(|t| t == id))
                })
                .and_then(|s| s["browserId"].as_str())
                .map(|id| format!("ws://127.0.0.1:{port}/devtools/browser/{id}"))
                .ok_or_else(|| "no session lists this browser's tabs".to_string())
        })
    })
}

/// Neither the stages' envs nor any file of the Host's home or socket root (browser-env.json,
/// anchor.json, owner.json, the daemons' files) holds the service's token.
fn assert_no_credential(place: &Place, envs: &[&abx_host::BrowserEnv], token: &str) {
    for env in envs {
        for (name, value) in env.iter() {
            assert!(!value.contains(token), "{name} carries the token: {value}");
        }
        assert_eq!(env.get(var::CDP_HEADERS), None);
    }
    for root in [place.home.path(), place.sockets.path()] {
        let mut dirs = vec![root.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Ok(bytes) = std::fs::read(&path) {
                    assert!(
                        !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                        "the token is written in {}",
                        path.display()
                    );
                }
            }
        }
    }
}

/// The Browserless install the opt-in tests run (`ABX_BROWSERLESS_DIR`, default
/// `/tmp/abx-browserless`); panics saying how to install it when it is not there.
fn install_dir() -> PathBuf {
    let dir = PathBuf::from(
        std::env::var("ABX_BROWSERLESS_DIR").unwrap_or_else(|_| "/tmp/abx-browserless".into()),
    );
    assert!(
        dir.join("node_modules/@browserless.io/browserless")
            .exists(),
        "no Browserless install in {} (set ABX_BROWSERLESS_DIR, or run `npm install \
         @browserless.io/browserless@2.42.0` there; see docs/host.md)",
        dir.display()
    );
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Browserless install CI does not have: see this file's header, run with --ignored"]
async fn browserless_remote_anchor_discovery_and_browser_lost() {
    let install = install_dir();
    let service = Browserless::start(&install);
    let site = FixtureServer::start().await.expect("site");
    let (port, token) = (service.port, service.token.clone());

    // Discovery: `http://host:port?token=` keeps its query on /json/version (a chunked answer)
    // and on the WebSocket it names; `ws://host:port?token=` (no path) is a valid request.
    for url in [
        format!("http://127.0.0.1:{port}?token={token}"),
        format!("ws://127.0.0.1:{port}?token={token}"),
    ] {
        let connection = abx_cdp::Connection::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let version = connection
            .browser()
            .call_json("Browser.getVersion", serde_json::json!({}))
            .await
            .expect("Browser.getVersion");
        assert!(
            version["product"]
                .as_str()
                .is_some_and(|p| p.contains("Chrome")),
            "{version}"
        );
        connection.close();
    }

    // A Host whose anchors are Browserless browsers, authenticated by a header.
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers = BrowserSource::Remote(RemoteEndpoint {
        url: format!("ws://127.0.0.1:{port}/chromium"),
        headers: vec![("Authorization".into(), format!("Bearer {token}"))],
        stage_address: Some(sessions_resolver(port, token.clone())),
    });
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "remote-run").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("remote").expect("name"));
    let (a, b) = (StageId::new("a").expect("a"), StageId::new("b").expect("b"));
    let (stage_a, stage_b) = tokio::join!(
        host.prepare_stage(&run, &a, &spec),
        host.prepare_stage(&run, &b, &spec)
    );
    let (stage_a, stage_b) = (stage_a.expect("a"), stage_b.expect("b"));
    let cdp = stage_a.env.cdp().expect("cdp").to_string();
    assert!(cdp.starts_with("ws://127.0.0.1:"), "{cdp}");
    assert!(cdp.contains("/devtools/browser/"), "{cdp}");
    let base = |cdp: &str| cdp.rsplit_once('/').map(|(b, _)| b.to_string());
    assert_eq!(
        stage_b.env.cdp().and_then(base),
        base(&cdp),
        "one remote browser for the run, a token per stage"
    );
    assert_ne!(stage_b.env.cdp(), Some(cdp.as_str()));
    assert_no_credential(&place, &[&stage_a.env, &stage_b.env], &token);
    assert!(
        place
            .owners()
            .iter()
            .any(|(_, o)| o.kind == OwnerKind::RemoteAnchor)
    );
    ab_ok(&stage_a.env, &["open", &site.url("/page1.html")]);
    ab_ok(&stage_b.env, &["open", &site.url("/page2.html")]);
    assert!(ab_ok(&stage_a.env, &["snapshot"]).contains("Page One"));
    assert_eq!(ab_ok(&stage_b.env, &["get", "title"]), "Page Two");
    assert_eq!(
        ab_ok(&stage_a.env, &["get", "title"]),
        "Page One",
        "each stage keeps its tab"
    );
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert_eq!(
        report.anchors_closed, 1,
        "the remote browser was closed over CDP"
    );
    let after = abx_cdp::Connection::connect_with(
        &cdp,
        abx_cdp::ConnectOptions {
            headers: vec![("Authorization".into(), format!("Bearer {token}"))],
            connect_timeout: Duration::from_secs(3),
            ..Default::default()
        },
    )
    .await;
    if let Ok(connection) = after {
        let answered = connection
            .browser()
            .call_json_within(
                "Browser.getVersion",
                serde_json::json!({}),
                Duration::from_secs(3),
            )
            .await;
        assert!(answered.is_err(), "the run's remote browser still answers");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while browsers_running(service.pgid()) {
        assert!(
            Instant::now() < deadline,
            "a browser of the run is still running"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // When the service ends the browser under a session attached through the launch URL, the
    // session fails with browser_lost; it never reconnects to a new, blank browser.
    let lost = place.config();
    let mut env = abx_host::BrowserEnv::new();
    env.set(var::SESSION, "abx-lost");
    env.set(
        var::SOCKET_DIR,
        lost.socket_root.join("lost").to_string_lossy(),
    );
    env.set(var::CDP, format!("ws://127.0.0.1:{port}?token={token}"));
    env.set(var::PIN_TAB, "1");
    env.set(var::IDLE_TIMEOUT_MS, "0");
    ab_ok(&env, &["open", &site.url("/page1.html")]);
    assert_eq!(ab_ok(&env, &["get", "title"]), "Page One");
    let ports = browser_ports(service.pgid());
    assert_eq!(
        ports.len(),
        1,
        "one browser runs now: {ports:?} among {:?}",
        group(service.pgid())
            .iter()
            .map(|(p, c)| format!("{p} {}", &c[..c.len().min(80)]))
            .collect::<Vec<_>>()
    );
    let ended = abx_cdp::Connection::connect(&format!("http://127.0.0.1:{}", ports[0]))
        .await
        .expect("the browser's own port");
    let _ = ended
        .browser()
        .call_json("Browser.close", serde_json::json!({}))
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while browsers_running(service.pgid()) {
        assert!(Instant::now() < deadline, "the browser did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let title = ab(&env, &["get", "title"]);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&title.stdout),
        String::from_utf8_lossy(&title.stderr)
    );
    assert!(
        !title.status.success(),
        "get title must fail after the browser ended: {printed:?}"
    );
    assert!(printed.contains("browser_lost"), "{printed:?}");
    ab_ok(&env, &["close"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Browserless install CI does not have: see this file's header, run with --ignored"]
async fn browserless_remote_profile_keeps_its_login_across_runs() {
    let install = install_dir();
    let service = Browserless::start(&install);
    let site = FixtureServer::start().await.expect("site");
    let (port, token) = (service.port, service.token.clone());
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers = BrowserSource::Remote(RemoteEndpoint {
        url: format!("ws://127.0.0.1:{port}/chromium"),
        headers: vec![("Authorization".into(), format!("Bearer {token}"))],
        stage_address: Some(sessions_resolver(port, token.clone())),
    });
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let stage = StageId::new("work").expect("stage");

    // Run one: a person (here the test) logs in.
    let one = RunRef::parse("local", "bl-one").expect("run");
    runs.set(&one, RunState::Running);
    let prepared = host
        .prepare_stage(&one, &stage, &spec)
        .await
        .expect("prepare");
    ab_ok(&prepared.env, &["open", &site.url("/login.html")]);
    ab_ok(&prepared.env, &["fill", "#username", "ada"]);
    ab_ok(&prepared.env, &["fill", "#password", "pw"]);
    ab_ok(&prepared.env, &["click", "#signin"]);
    ab_ok(&prepared.env, &["wait", "--url", "**/account"]);
    assert_no_credential(&place, &[&prepared.env], &token);
    let report = host.end_run(&one.id).await.expect("end run one");
    assert!(report.complete(), "{report:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while browsers_running(service.pgid()) {
        assert!(Instant::now() < deadline, "run one's browser still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Run two: Browserless launches a new, blank browser; the profile is still logged in.
    let two = RunRef::parse("local", "bl-two").expect("run");
    runs.set(&two, RunState::Running);
    let prepared = host
        .prepare_stage(&two, &stage, &spec)
        .await
        .expect("prepare again");
    ab_ok(&prepared.env, &["open", &site.url("/members")]);
    let url = ab_ok(&prepared.env, &["get", "url"]);
    assert!(url.ends_with("/members"), "sent to the login form: {url}");
    assert_eq!(ab_ok(&prepared.env, &["get", "title"]), "Account");
    assert_no_credential(&place, &[&prepared.env], &token);
    let report = host.end_run(&two.id).await.expect("end run two");
    assert!(report.complete(), "{report:?}");
}
