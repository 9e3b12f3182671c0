//! A scripted stand-in for Chrome's DevTools end, for unit tests of engine logic that must not
//! need a browser (fault injection: replies Chrome would only give in rare states).
//!
//! It speaks the `--remote-debugging-pipe` framing (NUL-separated JSON) over an in-memory duplex,
//! records every message it receives, and answers each call with what the test's `answer`
//! function returns for it (`Ok(result)` or `Err(message)` for a protocol error); `None` leaves
//! the call unanswered.

use std::sync::{Arc, Mutex};

use abx_cdp::{ConnectOptions, Connection};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

type Answer = dyn Fn(&Value) -> Option<Result<Value, String>> + Send + Sync;

/// The fake end; dropping it closes the connection.
pub(crate) struct FakeChrome {
    received: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeChrome {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeChrome {
    /// A connection to a fake Chrome that answers with `answer`.
    pub(crate) fn start(
        answer: impl Fn(&Value) -> Option<Result<Value, String>> + Send + Sync + 'static,
    ) -> (Connection, FakeChrome) {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (our_read, our_write) = tokio::io::split(ours);
        let connection = Connection::over_pipe(our_read, our_write, &ConnectOptions::default());
        let received = Arc::new(Mutex::new(Vec::new()));
        let answer: Arc<Answer> = Arc::new(answer);
        let log = received.clone();
        let task = tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(theirs);
            let mut reader = BufReader::new(read);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(request) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if let Ok(mut log) = log.lock() {
                    log.push(request.clone());
                }
                let mut reply = match answer(&request) {
                    Some(Ok(result)) => json!({"id": request["id"], "result": result}),
                    Some(Err(text)) => {
                        json!({"id": request["id"], "error": {"code": -32000, "message": text}})
                    }
                    None => continue,
                };
                if let Some(session) = request.get("sessionId") {
                    reply["sessionId"] = session.clone();
                }
                let mut bytes = reply.to_string().into_bytes();
                bytes.push(0);
                if write.write_all(&bytes).await.is_err() {
                    return;
                }
            }
        });
        (connection, FakeChrome { received, task })
    }

    /// Every message received so far, in order.
    pub(crate) fn received(&self) -> Vec<Value> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The methods received on `session` (`None`: the browser session), in order.
    pub(crate) fn methods_on(&self, session: Option<&str>) -> Vec<String> {
        self.received()
            .iter()
            .filter(|m| m.get("sessionId").and_then(Value::as_str) == session)
            .filter_map(|m| m.get("method").and_then(Value::as_str).map(str::to_string))
            .collect()
    }
}
