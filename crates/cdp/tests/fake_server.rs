//! The transport against an in-process fake CDP server: routing, deadlines, socket death,
//! garbage, and the zero-copy screencast path.

use std::time::{Duration, Instant};

use abx_cdp::{ConnectOptions, Connection, Error, EventFilter};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

// The test packages' one wait-for-a-condition helper.
#[allow(dead_code)]
#[path = "../../../tests/support/wait.rs"]
mod wait;

/// What the fake server should do next.
enum Act {
    Text(String),
    Binary(Vec<u8>),
    /// Drop the TCP connection without a close handshake (like a crashed Chrome).
    Drop,
}

struct FakeChrome {
    url: String,
    /// Requests the client sent, parsed.
    requests: mpsc::UnboundedReceiver<Value>,
    acts: mpsc::UnboundedSender<Act>,
}

impl FakeChrome {
    async fn start() -> FakeChrome {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "ws://{}/devtools/browser/fake",
            listener.local_addr().expect("addr")
        );
        let (req_tx, requests) = mpsc::unbounded_channel();
        let (acts, mut act_rx) = mpsc::unbounded_channel::<Act>();
        tokio::spawn(async move {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
                return;
            };
            let (mut sink, mut source) = ws.split();
            loop {
                tokio::select! {
                    msg = source.next() => match msg {
                        Some(Ok(Message::Text(text))) => {
                            let value: Value = serde_json::from_str(&text).expect("client sent JSON");
                            let _ = req_tx.send(value);
                        }
                        Some(Ok(_)) => {}
                        _ => break,
                    },
                    act = act_rx.recv() => match act {
                        Some(Act::Text(text)) => { let _ = sink.send(Message::text(text)).await; }
                        Some(Act::Binary(data)) => { let _ = sink.send(Message::binary(data)).await; }
                        Some(Act::Drop) | None => break,
                    },
                }
            }
            // Dropping both halves closes the TCP socket without a close frame.
        });
        FakeChrome {
            url,
            requests,
            acts,
        }
    }

    async fn next_request(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(5), self.requests.recv())
            .await
            .expect("a request within 5 s")
            .expect("server alive")
    }

    fn send(&self, value: Value) {
        let _ = self.acts.send(Act::Text(value.to_string()));
    }
}

#[tokio::test]
async fn replies_are_routed_by_id_even_out_of_order() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let browser = conn.browser();
    let first = tokio::spawn({
        let b = browser.clone();
        async move { b.call_json("Test.first", json!({"n": 1})).await }
    });
    let req1 = chrome.next_request().await;
    let second = tokio::spawn({
        let b = browser.clone();
        async move { b.call_json("Test.second", json!({"n": 2})).await }
    });
    let req2 = chrome.next_request().await;
    assert_eq!(req1["method"], "Test.first");
    assert_eq!(req1["params"]["n"], 1);
    assert!(
        req1.get("sessionId").is_none(),
        "browser calls carry no sessionId"
    );
    // Answer the second first.
    chrome.send(json!({"id": req2["id"], "result": {"who": "second"}}));
    chrome.send(json!({"id": req1["id"], "result": {"who": "first"}}));
    assert_eq!(second.await.expect("join").expect("reply")["who"], "second");
    assert_eq!(first.await.expect("join").expect("reply")["who"], "first");
}

#[tokio::test]
async fn session_calls_carry_the_session_id_and_protocol_errors_are_typed() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let page = conn.session("S1");
    let call =
        tokio::spawn(async move { page.call_json("Page.navigate", json!({"url": "x"})).await });
    let req = chrome.next_request().await;
    assert_eq!(req["sessionId"], "S1");
    chrome.send(json!({"id": req["id"], "sessionId": "S1", "error": {"code": -32602, "message": "Invalid parameters"}}));
    let err = call.await.expect("join").expect_err("protocol error");
    assert_eq!(err.protocol_code(), Some(-32602));
    assert!(err.to_string().contains("Page.navigate"), "{err}");
}

#[tokio::test]
async fn events_are_routed_to_their_session_and_filtered_by_method() {
    let chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let mut s1 = conn.session("S1").subscribe(EventFilter::All, 16);
    let mut s2_dialogs = conn
        .session("S2")
        .subscribe(EventFilter::methods(["Page.javascriptDialogOpening"]), 16);
    let mut browser = conn.browser().subscribe(EventFilter::All, 16);

    chrome.send(
        json!({"method": "Page.loadEventFired", "sessionId": "S1", "params": {"timestamp": 1.0}}),
    );
    chrome.send(
        json!({"method": "Page.loadEventFired", "sessionId": "S2", "params": {"timestamp": 2.0}}),
    );
    chrome.send(json!({"method": "Page.javascriptDialogOpening", "sessionId": "S2", "params": {"type": "confirm", "message": "sure?"}}));
    chrome.send(
        json!({"method": "Target.targetCreated", "params": {"targetInfo": {"targetId": "T"}}}),
    );

    let e1 = tokio::time::timeout(Duration::from_secs(2), s1.recv())
        .await
        .expect("in time")
        .expect("event");
    assert_eq!(e1.method(), "Page.loadEventFired");
    assert_eq!(e1.session_id(), Some("S1"));
    let params: Value = e1.parse().expect("params");
    assert_eq!(params["timestamp"], 1.0);

    let d = tokio::time::timeout(Duration::from_secs(2), s2_dialogs.recv())
        .await
        .expect("in time")
        .expect("event");
    assert_eq!(
        d.method(),
        "Page.javascriptDialogOpening",
        "filter let the load event of S2 through"
    );

    let b = tokio::time::timeout(Duration::from_secs(2), browser.recv())
        .await
        .expect("in time")
        .expect("event");
    assert_eq!(b.method(), "Target.targetCreated");
    assert_eq!(b.session_id(), None);
    // Nothing else arrived on S1: events are read in order, so a marker sent last is the next
    // thing S1 sees unless one of the events above was routed to it too.
    chrome.send(json!({"method": "Test.marker", "sessionId": "S1", "params": {}}));
    let next = tokio::time::timeout(Duration::from_secs(2), s1.recv())
        .await
        .expect("in time")
        .expect("event");
    assert_eq!(
        next.method(),
        "Test.marker",
        "S1 got another session's event"
    );
}

#[tokio::test]
async fn a_call_without_reply_fails_at_its_deadline() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let started = Instant::now();
    let err = conn
        .browser()
        .call_json_within("Test.neverAnswered", json!({}), Duration::from_millis(150))
        .await
        .expect_err("must time out");
    let waited = started.elapsed();
    assert!(err.is_timeout(), "{err}");
    assert!(
        waited >= Duration::from_millis(150) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
    // A late reply is dropped and does not disturb the next call.
    let req = chrome.next_request().await;
    chrome.send(json!({"id": req["id"], "result": {}}));
    let next = tokio::spawn({
        let b = conn.browser();
        async move { b.call_json("Test.next", json!({})).await }
    });
    let req2 = chrome.next_request().await;
    chrome.send(json!({"id": req2["id"], "result": {"ok": true}}));
    assert_eq!(next.await.expect("join").expect("reply")["ok"], true);
    assert!(
        wait::wait_until_async(Duration::from_secs(2), || std::future::ready(
            conn.stats().unmatched_replies == 1
        ))
        .await,
        "the late reply is counted as unmatched: {}",
        conn.stats().unmatched_replies
    );
}

#[tokio::test]
async fn socket_drop_fails_every_pending_call_within_100ms() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let mut calls = Vec::new();
    for i in 0..5 {
        let session = if i % 2 == 0 {
            conn.browser()
        } else {
            conn.session("S1")
        };
        calls.push(tokio::spawn(async move {
            let r = session
                .call_json_within("Test.pending", json!({}), Duration::from_secs(30))
                .await;
            (r, Instant::now())
        }));
    }
    for _ in 0..5 {
        chrome.next_request().await;
    }
    let mut events = conn.session("S1").subscribe(EventFilter::All, 4);
    let dropped_at = Instant::now();
    let _ = chrome.acts.send(Act::Drop);
    for call in calls {
        let (result, at) = call.await.expect("join");
        let err = result.expect_err("pending call must fail");
        assert!(err.is_connection_closed(), "{err}");
        assert!(
            at.duration_since(dropped_at) < Duration::from_millis(100),
            "took {:?}",
            at - dropped_at
        );
    }
    assert!(conn.is_closed());
    assert!(
        events.recv().await.is_none(),
        "subscriptions end with the connection"
    );
    // New calls fail at once too.
    let started = Instant::now();
    let err = conn
        .browser()
        .call_json("Test.after", json!({}))
        .await
        .expect_err("closed");
    assert!(err.is_connection_closed());
    assert!(started.elapsed() < Duration::from_millis(50));
}

#[tokio::test]
async fn garbage_frames_are_ignored_and_the_reader_keeps_serving() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let call = tokio::spawn({
        let b = conn.browser();
        async move { b.call_json("Test.afterGarbage", json!({})).await }
    });
    let req = chrome.next_request().await;
    let _ = chrome.acts.send(Act::Text("not json at all".into()));
    let _ = chrome.acts.send(Act::Text("[1,2,3]".into()));
    let _ = chrome.acts.send(Act::Text(r#"{"method": 17}"#.into()));
    let _ = chrome
        .acts
        .send(Act::Text(r#"{"no":"id or method"}"#.into()));
    let _ = chrome.acts.send(Act::Binary(vec![0xff, 0xfe, 0x00]));
    chrome.send(json!({"method": "Unknown.eventNobodyKnows", "params": {"deeply": {"nested": [1, {"x": null}]}}}));
    chrome.send(json!({"id": req["id"], "result": {"fine": true}}));
    let reply = call.await.expect("join").expect("reply after garbage");
    assert_eq!(reply["fine"], true);
    assert!(conn.stats().malformed >= 5, "{:?}", conn.stats());
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn screencast_frames_keep_the_base64_text_without_copying() {
    let chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let mut frames = conn
        .session("S1")
        .subscribe(EventFilter::methods(["Page.screencastFrame"]), 4);
    let data = "/9j/4AAQSkZJRgABAQAAAQABAAD".repeat(1000);
    chrome.send(json!({
        "method": "Page.screencastFrame",
        "sessionId": "S1",
        "params": {"data": data, "sessionId": 7, "metadata": {"offsetTop": 0, "pageScaleFactor": 1,
            "deviceWidth": 1280, "deviceHeight": 577, "scrollOffsetX": 0, "scrollOffsetY": 3, "timestamp": 1700000000.25}}
    }));
    let event = tokio::time::timeout(Duration::from_secs(2), frames.recv())
        .await
        .expect("in time")
        .expect("frame");
    let frame = event
        .screencast_frame()
        .expect("fast path parsed the frame");
    assert_eq!(frame.ack_id, 7);
    assert_eq!(frame.data.len(), data.len());
    assert_eq!(&frame.data[..], data.as_bytes());
    assert_eq!(frame.metadata.device_height, 577.0);
    assert_eq!(frame.metadata.timestamp, Some(1_700_000_000.25));
    // Zero copy: the frame data points into the same allocation as the event's params.
    let params = event.params().bytes();
    let params_range = params.as_ptr() as usize..params.as_ptr() as usize + params.len();
    assert!(
        params_range.contains(&(frame.data.as_ptr() as usize)),
        "data was copied out of the message"
    );
}

#[tokio::test]
async fn detached_session_fails_its_pending_calls_and_ends_its_events() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let mut events = conn.session("S9").subscribe(EventFilter::All, 4);
    let call = tokio::spawn({
        let s = conn.session("S9");
        async move {
            s.call_json_within(
                "Runtime.evaluate",
                json!({"expression": "1"}),
                Duration::from_secs(30),
            )
            .await
        }
    });
    let other = tokio::spawn({
        let s = conn.session("S8");
        async move {
            s.call_json_within("Runtime.evaluate", json!({}), Duration::from_secs(30))
                .await
        }
    });
    chrome.next_request().await;
    let other_req = chrome.next_request().await;
    chrome.send(json!({"method": "Target.detachedFromTarget", "params": {"sessionId": "S9", "targetId": "T9"}}));
    let err = tokio::time::timeout(Duration::from_secs(1), call)
        .await
        .expect("fast")
        .expect("join")
        .expect_err("detached");
    assert!(matches!(err, Error::SessionDetached { .. }), "{err}");
    assert!(events.recv().await.is_none());
    // Other sessions are unaffected.
    chrome.send(json!({"id": other_req["id"], "result": {"v": 1}}));
    assert_eq!(other.await.expect("join").expect("reply")["v"], 1);
}

#[tokio::test]
async fn crashed_target_fails_its_pending_calls() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let call = tokio::spawn({
        let s = conn.session("S3");
        async move {
            s.call_json_within("Runtime.evaluate", json!({}), Duration::from_secs(30))
                .await
        }
    });
    chrome.next_request().await;
    chrome.send(json!({"method": "Inspector.targetCrashed", "sessionId": "S3", "params": {}}));
    let err = tokio::time::timeout(Duration::from_secs(1), call)
        .await
        .expect("fast")
        .expect("join")
        .expect_err("crash");
    assert!(matches!(err, Error::TargetCrashed { .. }), "{err}");
}

#[tokio::test]
async fn a_full_subscriber_drops_events_but_never_stalls_replies() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let slow = conn.session("S1").subscribe(EventFilter::All, 2);
    for i in 0..50 {
        chrome
            .send(json!({"method": "Network.dataReceived", "sessionId": "S1", "params": {"i": i}}));
    }
    let call = tokio::spawn({
        let b = conn.browser();
        async move { b.call_json("Test.ping", json!({})).await }
    });
    let req = chrome.next_request().await;
    chrome.send(json!({"id": req["id"], "result": {"pong": true}}));
    let reply = tokio::time::timeout(Duration::from_secs(1), call)
        .await
        .expect("reply not stalled")
        .expect("join");
    assert_eq!(reply.expect("ok")["pong"], true);
    assert_eq!(slow.dropped(), 48);
}

#[tokio::test]
async fn sends_keep_their_order() {
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let page = conn.session("S1");
    for i in 0..200 {
        page.send_json(
            "Input.dispatchKeyEvent",
            &json!({"type": "char", "text": i.to_string()}),
        )
        .await
        .expect("queued");
    }
    for i in 0..200 {
        let req = chrome.next_request().await;
        assert_eq!(req["params"]["text"], i.to_string());
    }
}

#[tokio::test]
async fn connect_reports_a_refused_endpoint() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let opts = ConnectOptions {
        connect_timeout: Duration::from_secs(2),
        ..Default::default()
    };
    let err = Connection::connect_with(
        &format!("ws://127.0.0.1:{port}/devtools/browser/x"),
        opts.clone(),
    )
    .await
    .expect_err("refused");
    assert!(matches!(err, Error::Connect { .. }), "{err}");
    let err = Connection::connect_with(&format!("http://127.0.0.1:{port}"), opts)
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("/json/version"), "{err}");
}

#[tokio::test]
async fn typed_commands_use_chromiumoxide_types() {
    use abx_cdp::protocol::browser_protocol::browser::GetVersionParams;
    let mut chrome = FakeChrome::start().await;
    let conn = Connection::connect(&chrome.url).await.expect("connect");
    let call = tokio::spawn({
        let b = conn.browser();
        async move { b.call(GetVersionParams::default()).await }
    });
    let req = chrome.next_request().await;
    assert_eq!(req["method"], "Browser.getVersion");
    chrome.send(
        json!({"id": req["id"], "result": {"protocolVersion": "1.3", "product": "Chrome/156",
        "revision": "r", "userAgent": "UA", "jsVersion": "13"}}),
    );
    let version = call.await.expect("join").expect("typed reply");
    assert_eq!(version.product, "Chrome/156");
}
