//! Scratch: LiveView fps without the daemon.
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::main]
async fn main() {
    let site = abx_fixtures::FixtureServer::start().await.expect("site");
    let opts = abx_chrome::LaunchOptions {
        args: vec!["--disable-quic".into(), "--disable-gpu".into()],
        ..Default::default()
    };
    let browser = Arc::new(abx_engine::Browser::launch(opts).await.expect("launch"));
    let session = Arc::new(
        abx_engine::Session::start(browser.clone(), abx_engine::SessionOptions::default())
            .await
            .expect("session"),
    );
    session
        .navigate(
            &site.url("/animated.html"),
            abx_engine::WaitUntil::Load,
            None,
        )
        .await
        .expect("nav");
    let t = Instant::now();
    let view = abx_relay::LiveView::open(session.clone(), Default::default())
        .await
        .expect("view");
    let mut frames = view.frames();
    let f = frames.next().await.expect("frame");
    println!("first frame {:?} meta {:?}", t.elapsed(), f.metadata());
    let t = Instant::now();
    let mut n = 0;
    while t.elapsed() < Duration::from_secs(2) {
        if frames.next().await.is_some() {
            n += 1;
        }
    }
    println!("{} fps", n as f64 / 2.0);
    let server = abx_relay::StreamServer::start(
        view.relay().clone(),
        abx_relay::ServerOptions::default(),
        Arc::new(abx_relay::NoHooks),
    )
    .expect("server");
    let port = server.port();
    use futures_util::StreamExt;
    let t = Instant::now();
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/"))
        .await
        .expect("ws");
    let mut n = 0;
    let mut first = None;
    while t.elapsed() < Duration::from_secs(3) {
        if let Some(Ok(m)) = ws.next().await {
            if let tokio_tungstenite::tungstenite::Message::Text(t2) = m {
                if t2.starts_with("{\"type\":\"frame\"") {
                    if first.is_none() {
                        first = Some(t.elapsed());
                    }
                    n += 1;
                }
            }
        }
    }
    println!("ws: first {:?} {} fps", first, (n as f64 - 1.0) / 3.0);
    drop(ws);
    server.shutdown().await;
    view.close().await;
    session.close().await;
}
