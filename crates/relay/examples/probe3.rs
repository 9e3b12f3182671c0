//! Scratch: reopen via LiveView.
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
        abx_engine::Session::start(
            browser.clone(),
            abx_engine::SessionOptions {
                pin_tab: true,
                ..Default::default()
            },
        )
        .await
        .expect("session"),
    );
    session
        .navigate(&site.url("/form.html"), abx_engine::WaitUntil::Load, None)
        .await
        .expect("nav");
    let view = abx_relay::LiveView::open(session.clone(), Default::default())
        .await
        .expect("view");
    let mut events = view.events();
    let mut frames = view.frames();
    frames.next().await.expect("frame");
    let t = Instant::now();
    let r = view.reopen_tab().await;
    println!("reopen {:?} in {:?}", r, t.elapsed());
    let end = Instant::now() + Duration::from_secs(3);
    while Instant::now() < end {
        match tokio::time::timeout(Duration::from_millis(500), events.recv()).await {
            Ok(Ok(e)) => println!("{:?} {:?}", t.elapsed(), e),
            Ok(Err(e)) => println!("err {e:?}"),
            Err(_) => {}
        }
    }
    println!("status {:?}", view.status());
    view.close().await;
    session.close().await;
}
