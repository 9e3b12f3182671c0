//! A launched Chrome with one engine session on the fixture site, shared by the library tests
//! (`snapshot.rs`, `actions.rs`) through `#[path]`. Dropping it on a failed test kills Chrome's
//! process group (abx-chrome's drop path); [`Harness::close`] closes gracefully and checks.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_engine::{Browser, Page, Session, SessionOptions, WaitUntil};
use abx_fixtures::FixtureServer;
use serde_json::Value;

pub(crate) struct Harness {
    pub site: FixtureServer,
    pub session: Session,
}

impl Harness {
    /// Chrome, a session, and the fixture site; the session's default deadline is short so a
    /// hang fails the test quickly.
    pub(crate) async fn start() -> Harness {
        Harness::start_with(SessionOptions::default()).await
    }

    /// Like [`Harness::start`] with these session options (the deadline stays short).
    pub(crate) async fn start_with(options: SessionOptions) -> Harness {
        let site = FixtureServer::start().await.expect("fixture server");
        let browser = Arc::new(
            Browser::launch(abx_tests::launch_options(None))
                .await
                .expect("launch Chrome"),
        );
        let options = SessionOptions {
            default_timeout: Duration::from_secs(5),
            ..options
        };
        let session = Session::start(browser, options).await.expect("session");
        Harness { site, session }
    }

    /// Starts and opens `path` on the fixture site.
    pub(crate) async fn at(path: &str) -> Harness {
        let h = Harness::start().await;
        h.open(path).await;
        h
    }

    pub(crate) async fn open(&self, path: &str) {
        let url = if path.contains(':') {
            path.to_string()
        } else {
            self.site.url(path)
        };
        self.session
            .navigate(&url, WaitUntil::Load, None)
            .await
            .expect("navigate");
    }

    /// A view of the active tab with the session's default deadline.
    pub(crate) async fn page(&self) -> Page<'_> {
        self.session.page(None).await.expect("page")
    }

    /// Evaluates `script` in the page and returns its value.
    pub(crate) async fn eval(&self, script: &str) -> Value {
        self.page()
            .await
            .evaluate(script)
            .await
            .expect("evaluate")
            .value
    }

    /// Polls `script` until it returns `expected`.
    pub(crate) async fn eventually(&self, script: &str, expected: Value) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let value = self.eval(script).await;
            if value == expected {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{script} stayed {value}, expected {expected}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Closes the browser gracefully and checks nothing of it survived.
    pub(crate) async fn close(self) {
        let receipt = self.session.close().await;
        assert!(receipt.verified, "Chrome not verified gone: {receipt:?}");
    }
}

/// `tests/golden/<name>`; `ABX_BLESS=1` rewrites it with `actual`.
pub(crate) fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(name);
    if std::env::var("ABX_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("create golden dir");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with ABX_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{} differs (ABX_BLESS=1 rewrites it)\n--- expected\n{expected}\n--- actual\n{actual}\n---",
            path.display()
        );
    }
}
