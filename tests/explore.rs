use std::sync::Arc;
use abx_engine::{Browser, Session, SessionOptions, WaitUntil, SnapshotOptions};
use abx_fixtures::FixtureServer;

#[tokio::test]
async fn dump() {
    let site = FixtureServer::start().await.unwrap();
    let browser = Arc::new(Browser::launch(abx_tests::launch_options(None)).await.unwrap());
    let session = Session::start(browser.clone(), SessionOptions::default()).await.unwrap();
    session.navigate(&site.url("/fixture.html"), WaitUntil::Load, None).await.unwrap();
    let s = session.snapshot(&SnapshotOptions::default()).await.unwrap();
    println!("{}", s.snapshot);
    let r = session.close().await;
    assert!(r.verified);
}
