//! Helpers shared by the binary-level test files.

use abx_fixtures::FixtureServer;

/// A fixture server on its own runtime thread, alive for the test's life.
pub(crate) fn site() -> FixtureServer {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let server = FixtureServer::start().await.expect("fixture server");
            let _ = tx.send(server);
            std::future::pending::<()>().await;
        });
    });
    rx.recv().expect("fixture server started")
}
