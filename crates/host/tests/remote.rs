//! A remote anchor behind a stand-in browser service (a loopback WebSocket proxy that sends
//! every connection to the browser it serves now), and the session-loss rule: when the service
//! ends the browser and serves a new one at the same address, a stage fails with `browser_lost`
//! instead of silently working on the new, blank browser. (The real service is in
//! `browserless.rs`, opt-in.)

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_engine::Browser;
use abx_fixtures::FixtureServer;
use abx_host::{
    AnchorHealth, AnchorLossCause, BrowserSource, Host, HostEvent, OwnerKind, ProfileBrowser,
    ProfileKey, ProfileName, RemoteEndpoint, RunRef, RunState, StageId, StageSpec, var,
};
use common::{Place, Runs, ab, ab_ok};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Forwards each connection to `target` (`host:port/path` of a browser's WebSocket), rewriting
/// the request path, as a browser service routes its clients to the browser it runs.
struct Service {
    port: u16,
    target: Arc<Mutex<String>>,
    task: tokio::task::JoinHandle<()>,
}

impl Service {
    /// A service that refuses a connection whose request lacks `key` (a header line or a
    /// query, as `name: value` / `name=value`).
    async fn start_with_key(target: &str, key: Option<String>) -> Service {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let target = Arc::new(Mutex::new(target.to_string()));
        let current = target.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let target = current
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                let key = key.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        if client.read_exact(&mut byte).await.is_err() {
                            return;
                        }
                        head.push(byte[0]);
                    }
                    let text = String::from_utf8_lossy(&head).into_owned();
                    if let Some(key) = &key
                        && !text
                            .to_ascii_lowercase()
                            .contains(&key.to_ascii_lowercase())
                    {
                        let _ = client
                            .write_all(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n")
                            .await;
                        return;
                    }
                    let (authority, path) = target.split_once('/').unwrap_or((&target, ""));
                    let mut lines = text.split("\r\n");
                    let request = lines.next().unwrap_or("");
                    let method = request.split(' ').next().unwrap_or("GET");
                    let mut rewritten = format!("{method} /{path} HTTP/1.1\r\n");
                    for line in lines.filter(|l| !l.is_empty()) {
                        if line.to_ascii_lowercase().starts_with("host:") {
                            rewritten.push_str(&format!("Host: {authority}\r\n"));
                        } else {
                            rewritten.push_str(line);
                            rewritten.push_str("\r\n");
                        }
                    }
                    rewritten.push_str("\r\n");
                    let Ok(mut upstream) = tokio::net::TcpStream::connect(authority).await else {
                        return;
                    };
                    if upstream.write_all(rewritten.as_bytes()).await.is_err() {
                        return;
                    }
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                });
            }
        });
        Service { port, target, task }
    }

    fn serve(&self, target: &str) {
        *self
            .target
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = target.to_string();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn ws_target(browser: &Browser) -> String {
    browser.cdp_url().trim_start_matches("ws://").to_string()
}

async fn launch() -> Browser {
    Browser::launch(abx_engine::LaunchOptions {
        args: vec!["--disable-quic".into(), "--disable-gpu".into()],
        ..Default::default()
    })
    .await
    .expect("Chrome")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_anchor_serves_the_run_and_a_replaced_browser_is_browser_lost() {
    let site = FixtureServer::start().await.expect("site");
    let first = launch().await;
    let service =
        Service::start_with_key(&ws_target(&first), Some("x-service-key: k".into())).await;

    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers = BrowserSource::Remote(RemoteEndpoint {
        // No path, a query: sent as `GET /?token=…`.
        url: format!("ws://127.0.0.1:{}?token=t", service.port),
        headers: vec![("X-Service-Key".into(), "k".into())],
        stage_address: None,
    });
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "remote").expect("run");
    runs.set(&run, RunState::Running);
    let stage = StageId::new("work").expect("stage");
    let prepared = host
        .prepare_stage(
            &run,
            &stage,
            &StageSpec::with_profile(ProfileName::new("p").expect("name")),
        )
        .await
        .expect("prepare");
    // The stage reaches the service through the kit's loopback forwarder, with its own token.
    let cdp = prepared.env.cdp().expect("cdp");
    assert!(cdp.starts_with("ws://127.0.0.1:"), "{cdp}");
    assert!(!cdp.contains("token=t"), "{cdp}");
    assert_eq!(prepared.env.get(var::CDP_HEADERS), None);
    assert!(
        place
            .owners()
            .iter()
            .any(|(_, o)| o.kind == OwnerKind::RemoteAnchor)
    );
    ab_ok(&prepared.env, &["open", &site.url("/page1.html")]);
    assert_eq!(ab_ok(&prepared.env, &["get", "title"]), "Page One");

    // The service ends the browser and serves a fresh one at the same address.
    first.close().await;
    let second = launch().await;
    service.serve(&ws_target(&second));
    let lost = ab(&prepared.env, &["get", "title"]);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&lost.stdout),
        String::from_utf8_lossy(&lost.stderr)
    );
    assert!(
        !lost.status.success(),
        "the stage must not work on a new, blank browser: {printed:?}"
    );
    assert!(printed.contains("browser_lost"), "{printed:?}");
    let again = ab(&prepared.env, &["open", &site.url("/page2.html")]);
    assert!(!again.status.success(), "nor on the next command");
    ab_ok(&prepared.env, &["close"]);

    // The next stage gets a working anchor again (the Host's connection to the old one died).
    let next = host
        .prepare_stage(
            &run,
            &StageId::new("next").expect("stage"),
            &StageSpec::with_profile(ProfileName::new("p").expect("name")),
        )
        .await
        .expect("next stage");
    assert!(next.anchor_restarted);
    ab_ok(&next.env, &["open", &site.url("/page2.html")]);
    assert_eq!(ab_ok(&next.env, &["get", "title"]), "Page Two");
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.anchors_closed, 1, "closed over CDP");
    tokio::time::timeout(Duration::from_secs(10), second.connection().closed())
        .await
        .expect("the remote browser was ended by Browser.close");
    second.close().await;
}

/// Issue 37 part 2: when the service ends the browser of a remote anchor, the Host's watch (its
/// keeper connection) reports `anchor_lost` with the service as the cause, at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_the_service_ends_is_an_anchor_lost_event() {
    let browser = launch().await;
    let service = Service::start_with_key(&ws_target(&browser), None).await;
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers = BrowserSource::Remote(RemoteEndpoint {
        url: format!("ws://127.0.0.1:{}?token=t", service.port),
        headers: Vec::new(),
        stage_address: None,
    });
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "remote-lost").expect("run");
    runs.set(&run, RunState::Running);
    let stage = StageId::new("work").expect("stage");
    let key = ProfileKey {
        scope: run.scope.clone(),
        name: ProfileName::new("p").expect("name"),
    };
    host.prepare_stage(&run, &stage, &StageSpec::with_profile(key.name.clone()))
        .await
        .expect("prepare");
    let status = host
        .anchor_health(&run.id, &key)
        .await
        .expect("health")
        .expect("an anchor");
    assert_eq!(status.health, AnchorHealth::Up, "{status:?}");
    assert_eq!(
        status.browser_pid, None,
        "a remote browser's pid is not ours to know"
    );

    let mut events = host.events();
    // The service ends its browser; the service itself still answers.
    browser.close().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let (cause, stages) = loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(HostEvent::AnchorLost {
                run: lost_run,
                profile,
                cause,
                stages,
                ..
            })) => {
                assert_eq!((lost_run, profile), (run.id.clone(), key.clone()));
                break (cause, stages);
            }
            Ok(Ok(_)) => continue,
            other => panic!("no anchor_lost event: {other:?}"),
        }
    };
    assert!(
        matches!(cause, AnchorLossCause::ServiceEnded { .. }),
        "{cause:?}"
    );
    assert_eq!(stages, vec![stage.clone()]);
    let status = host
        .anchor_health(&run.id, &key)
        .await
        .expect("health")
        .expect("still recorded");
    assert!(
        matches!(status.health, AnchorHealth::Lost { .. }),
        "{status:?}"
    );
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert!(place.sockets_empty(), "{:?}", place.owners());
}

/// Every file under `root` (recursively) whose bytes contain `needle`.
fn files_containing(root: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file()
                && std::fs::read(&path)
                    .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
            {
                found.push(path);
            }
        }
    }
    found
}

/// A stage's raw CDP address, used as a stage with a shell could.
async fn raw(cdp: &str) -> abx_cdp::Connection {
    abx_cdp::Connection::connect(cdp)
        .await
        .expect("the stage's own CDP address")
}

fn target_ids(listed: &serde_json::Value) -> Vec<String> {
    listed["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "page")
        .filter_map(|t| t["targetId"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_sources_are_chosen_per_profile_and_no_credential_reaches_a_stage() {
    let site = FixtureServer::start().await.expect("site");
    let (chrome_a, chrome_b) = (launch().await, launch().await);
    const KEY_A: &str = "alpha-service-key-5e1";
    const TOKEN_A: &str = "alpha-query-token-9c3";
    const KEY_B: &str = "beta-service-key-77d";
    let service_a =
        Service::start_with_key(&ws_target(&chrome_a), Some(format!("x-key: {KEY_A}"))).await;
    let service_b =
        Service::start_with_key(&ws_target(&chrome_b), Some(format!("x-key: {KEY_B}"))).await;
    let endpoint = |port: u16, key: &str, token: Option<&str>| RemoteEndpoint {
        url: match token {
            Some(token) => format!("ws://127.0.0.1:{port}?token={token}"),
            None => format!("ws://127.0.0.1:{port}"),
        },
        headers: vec![("X-Key".into(), key.to_string())],
        stage_address: None,
    };
    let (alpha_endpoint, beta_endpoint) = (
        endpoint(service_a.port, KEY_A, Some(TOKEN_A)),
        endpoint(service_b.port, KEY_B, None),
    );

    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers =
        BrowserSource::PerProfile(Arc::new(move |key: &ProfileKey| match key.name.as_str() {
            "alpha" => ProfileBrowser::Remote(alpha_endpoint.clone()),
            "beta" => ProfileBrowser::Remote(beta_endpoint.clone()),
            _ => ProfileBrowser::Local,
        }));
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "fleet").expect("run");
    runs.set(&run, RunState::Running);
    let on = |profile: &str| StageSpec::with_profile(ProfileName::new(profile).expect("name"));
    let (a, b, a2) = (
        StageId::new("a").expect("a"),
        StageId::new("b").expect("b"),
        StageId::new("a2").expect("a2"),
    );
    let stage_a = host.prepare_stage(&run, &a, &on("alpha")).await.expect("a");
    let stage_b = host.prepare_stage(&run, &b, &on("beta")).await.expect("b");
    let stage_a2 = host
        .prepare_stage(&run, &a2, &on("alpha"))
        .await
        .expect("a2");
    ab_ok(&stage_a.env, &["open", &site.url("/page1.html")]);
    ab_ok(&stage_b.env, &["open", &site.url("/page2.html")]);
    ab_ok(&stage_a2.env, &["open", &site.url("/form.html")]);
    assert_eq!(ab_ok(&stage_a.env, &["get", "title"]), "Page One");
    assert_eq!(ab_ok(&stage_b.env, &["get", "title"]), "Page Two");

    // Each profile's stages run in the browser of its own service.
    let urls = |cdp: String| async move {
        common::pages(&cdp)
            .await
            .into_iter()
            .map(|(_, url, _)| url)
            .collect::<Vec<_>>()
    };
    let in_a = urls(chrome_a.cdp_url().to_string()).await;
    let in_b = urls(chrome_b.cdp_url().to_string()).await;
    assert!(in_a.iter().any(|u| u.ends_with("/page1.html")), "{in_a:?}");
    assert!(in_a.iter().any(|u| u.ends_with("/form.html")), "{in_a:?}");
    assert!(!in_a.iter().any(|u| u.ends_with("/page2.html")), "{in_a:?}");
    assert!(in_b.iter().any(|u| u.ends_with("/page2.html")), "{in_b:?}");
    assert!(!in_b.iter().any(|u| u.ends_with("/page1.html")), "{in_b:?}");

    // No credential in a stage's env, nor in any file of the Host's home or socket root
    // (browser-env.json, anchor.json, owner.json, the daemons' own files).
    for stage in [&stage_a, &stage_b, &stage_a2] {
        for (name, value) in stage.env.iter() {
            for secret in [KEY_A, TOKEN_A, KEY_B] {
                assert!(
                    !value.contains(secret),
                    "{name} carries a credential: {value}"
                );
            }
        }
        assert_eq!(stage.env.get(var::CDP_HEADERS), None);
    }
    for secret in [KEY_A, TOKEN_A, KEY_B] {
        for root in [place.home.path(), place.sockets.path()] {
            let leaked = files_containing(root, secret);
            assert!(leaked.is_empty(), "{secret} written to {leaked:?}");
        }
    }
    assert!(
        place
            .owners()
            .iter()
            .filter(|(_, o)| o.kind == OwnerKind::RemoteAnchor)
            .count()
            == 2,
        "one remote anchor per profile"
    );

    // A stage with a shell, on its raw address: only its own tab is there.
    let own = raw(stage_a2.env.cdp().expect("cdp")).await;
    let listed = own
        .browser()
        .call_json("Target.getTargets", serde_json::json!({}))
        .await
        .expect("getTargets");
    let visible = target_ids(&listed);
    let all_a = common::pages(chrome_a.cdp_url()).await;
    let other = all_a
        .iter()
        .find(|(_, url, _)| url.ends_with("/page1.html"))
        .map(|(id, _, _)| id.clone())
        .expect("stage a's tab");
    assert_eq!(visible.len(), 1, "{listed}");
    assert!(
        !visible.contains(&other),
        "another stage's tab is listed: {listed}"
    );
    let attach = own
        .browser()
        .call_json(
            "Target.attachToTarget",
            serde_json::json!({"targetId": other, "flatten": true}),
        )
        .await;
    assert!(
        attach.is_err(),
        "attached to another stage's tab: {attach:?}"
    );
    let closed = own
        .browser()
        .call_json("Target.closeTarget", serde_json::json!({"targetId": other}))
        .await;
    assert!(closed.is_err(), "closed another stage's tab: {closed:?}");
    let ended = own
        .browser()
        .call_json("Browser.close", serde_json::json!({}))
        .await;
    assert!(ended.is_err(), "a stage ended the anchor: {ended:?}");
    own.close();
    assert_eq!(
        ab_ok(&stage_a.env, &["get", "title"]),
        "Page One",
        "stage a untouched"
    );
    // A token the kit did not hand out gets nothing.
    let base = stage_a2
        .env
        .cdp()
        .expect("cdp")
        .rsplit_once('/')
        .expect("token")
        .0
        .to_string();
    assert!(
        abx_cdp::Connection::connect(&format!("{base}/not-a-token"))
            .await
            .is_err(),
        "an unknown token was let in"
    );

    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.anchors_closed, 2);
    for chrome in [&chrome_a, &chrome_b] {
        tokio::time::timeout(Duration::from_secs(10), chrome.connection().closed())
            .await
            .expect("each remote browser was ended by Browser.close");
    }
    chrome_a.close().await;
    chrome_b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_profile_stays_logged_in_across_runs() {
    let site = FixtureServer::start().await.expect("site");
    let first = launch().await;
    let service = Service::start_with_key(&ws_target(&first), Some("x-key: s3cret".into())).await;
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.browsers = BrowserSource::Remote(RemoteEndpoint {
        url: format!("ws://127.0.0.1:{}", service.port),
        headers: vec![("X-Key".into(), "s3cret".into())],
        stage_address: None,
    });
    let host = Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let stage = StageId::new("login").expect("stage");

    let one = RunRef::parse("local", "one").expect("run");
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
    let report = host.end_run(&one.id).await.expect("end run one");
    assert!(report.complete(), "{report:?}");
    tokio::time::timeout(Duration::from_secs(10), first.connection().closed())
        .await
        .expect("run one's browser ended");
    first.close().await;
    let sealed = place
        .home
        .path()
        .join("profiles/local/site/state/remote-cookies.sealed");
    let bytes = std::fs::read(&sealed).expect("the login was saved in the profile store");
    assert!(
        !bytes
            .windows(b"abx_persist".len())
            .any(|w| w == b"abx_persist"),
        "saved cookies are sealed, not plain"
    );

    // The service gives the next run a new, blank browser: the kit brings the login back.
    let second = launch().await;
    service.serve(&ws_target(&second));
    let two = RunRef::parse("local", "two").expect("run");
    runs.set(&two, RunState::Running);
    let prepared = host
        .prepare_stage(&two, &stage, &spec)
        .await
        .expect("prepare again");
    ab_ok(&prepared.env, &["open", &site.url("/members")]);
    let url = ab_ok(&prepared.env, &["get", "url"]);
    assert!(url.ends_with("/members"), "sent to the login form: {url}");
    assert_eq!(ab_ok(&prepared.env, &["get", "title"]), "Account");
    let report = host.end_run(&two.id).await.expect("end run two");
    assert!(report.complete(), "{report:?}");
    second.close().await;
}
