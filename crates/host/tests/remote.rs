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
    AnchorHealth, AnchorLossCause, BrowserSource, Host, HostEvent, OwnerKind, ProfileKey,
    ProfileName, RemoteEndpoint, RunRef, RunState, StageId, StageSpec, var,
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
    async fn start(target: &str) -> Service {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let target = Arc::new(Mutex::new(target.to_string()));
        let current = target.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let target = current.lock().unwrap_or_else(|p| p.into_inner()).clone();
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
        *self.target.lock().unwrap_or_else(|p| p.into_inner()) = target.to_string();
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
    let service = Service::start(&ws_target(&first)).await;

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
    assert_eq!(
        prepared.env.cdp(),
        Some(format!("ws://127.0.0.1:{}/?token=t", service.port).as_str())
    );
    assert_eq!(
        prepared.env.get(var::CDP_HEADERS),
        Some(r#"{"X-Service-Key":"k"}"#)
    );
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
    let service = Service::start(&ws_target(&browser)).await;
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
