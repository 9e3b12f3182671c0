//! The unchanged-page fast path of `snapshot` against real Chromium: a second snapshot of a page
//! that did not change answers from the first (no full read: the page's own counter of cursor
//! scans stays put), and every kind of change the watcher is there for — DOM mutations, changes
//! inside an open shadow root, values and checked states set by script without an event, style
//! rules inserted through the CSSOM, navigation, emulation, changes inside same-site and
//! cross-site frames and a frame's navigation — gives a fresh, correct snapshot.

#[path = "engine_harness.rs"]
mod harness;

use abx_engine::SnapshotOptions;
use harness::Harness;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde_json::{Value, json};

fn opts() -> SnapshotOptions {
    SnapshotOptions::default()
}

async fn scans(h: &Harness) -> i64 {
    h.eval("window.scans")
        .await
        .as_i64()
        .expect("scans is a number")
}

async fn snapshot(h: &Harness) -> String {
    h.page()
        .await
        .snapshot(&opts())
        .await
        .expect("snapshot")
        .snapshot
        .to_string()
}

#[tokio::test]
async fn an_unchanged_page_answers_from_the_watch_with_the_same_text_and_refs() {
    let h = Harness::at("/watch.html").await;
    let first = h.page().await.snapshot(&opts()).await.expect("first");
    let full_reads = scans(&h).await;
    assert!(full_reads >= 1, "the first snapshot reads the page");
    assert!(
        first.snapshot.contains("button \"Shadow button\""),
        "{}",
        first.snapshot
    );

    let second = h.page().await.snapshot(&opts()).await.expect("second");
    assert_eq!(second.snapshot, first.snapshot);
    assert_eq!(second.refs, first.refs);
    assert!(second.removed_refs.is_empty());
    assert_eq!(
        scans(&h).await,
        full_reads,
        "the second snapshot read the page again"
    );

    // Another option set is its own snapshot, and reassigns refs: the first set reads again.
    let interactive = SnapshotOptions {
        interactive: true,
        ..SnapshotOptions::default()
    };
    h.page().await.snapshot(&interactive).await.expect("-i");
    let after_interactive = scans(&h).await;
    assert!(after_interactive > full_reads);
    assert_eq!(snapshot(&h).await, *first.snapshot);
    assert!(scans(&h).await > after_interactive);
    h.close().await;
}

/// Records the page's events and mutations in `window.__activity`.
const PAGE_ACTIVITY: &str = "window.__activity = []; \
  for (const t of ['input', 'change', 'focusin', 'focusout', 'mouseover', 'mouseout', 'pointerdown', \
    'keydown', 'toggle', 'load', 'error', 'transitionstart', 'animationstart', 'resize', 'hashchange', \
    'popstate']) addEventListener(t, (e) => __activity.push(t + ' ' + (e.target && e.target.nodeName)), true); \
  new MutationObserver((rs) => rs.forEach((r) => __activity.push(r.type + ' ' + (r.attributeName || '')))) \
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true }); 1";

#[tokio::test]
async fn an_unchanged_page_is_answered_without_a_message_to_chrome() {
    let h = Harness::at("/watch.html").await;
    // What the page did meanwhile, for the failure message: a page event or mutation makes
    // the watcher ask (and read) again, rightly.
    h.eval(PAGE_ACTIVITY).await;
    let first = snapshot(&h).await;
    let sent = h.session.browser().connection().messages_sent();
    assert_eq!(snapshot(&h).await, first);
    assert_eq!(snapshot(&h).await, first);
    let now = h.session.browser().connection().messages_sent();
    if now != sent {
        panic!(
            "an unchanged page's snapshots sent {} messages to Chrome; the page did: {}",
            now - sent,
            h.eval("window.__activity").await
        );
    }
    h.close().await;
}

/// Snapshots until one contains `needle` (the page changes by itself, on a timer: no command
/// of ours tells the session); panics after about 5 s.
async fn snapshot_until(h: &Harness, needle: &str) -> String {
    for _ in 0..100 {
        let text = snapshot(h).await;
        if text.contains(needle) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no snapshot showed {needle:?}: {}", snapshot(h).await);
}

#[tokio::test]
async fn changes_a_page_makes_on_its_own_reach_the_next_snapshots() {
    let h = Harness::at("/watch.html").await;
    // A mutation from a page timer: the watcher tells the session at once.
    h.eval("setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Late text</p>'), 200); 1")
        .await;
    let before = snapshot(&h).await;
    assert!(!before.contains("Late text"), "{before}");
    snapshot_until(&h, "Late text").await;
    // A checked state set by a page timer, with no mutation and no event: the watcher finds it
    // on its own look at the values.
    h.eval("setTimeout(() => { document.getElementById('agree').checked = true; }, 200); 1")
        .await;
    let before = snapshot(&h).await;
    assert!(
        before.contains("checkbox \"Agree\" [checked=false"),
        "{before}"
    );
    snapshot_until(&h, "checkbox \"Agree\" [checked=true").await;
    // A style rule inserted through the CSSOM by a page timer hides the note.
    h.eval("setTimeout(() => document.getElementById('sheet').sheet.insertRule('#note { display: none }'), 200); 1")
        .await;
    let before = snapshot(&h).await;
    let note = before
        .lines()
        .find(|line| line.contains("Note"))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no note line in {before}"));
    for _ in 0..100 {
        if !snapshot(&h).await.contains(&note) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let after = snapshot(&h).await;
    assert!(
        !after.contains(&note),
        "the hidden note is still there: {after}"
    );
    h.close().await;
}

#[tokio::test]
async fn changes_the_watcher_guards_give_a_fresh_snapshot() {
    let h = Harness::at("/watch.html").await;
    let base = snapshot(&h).await;
    assert!(base.contains("checkbox \"Agree\" [checked=false"), "{base}");

    // A property set by script: no mutation, no event.
    h.eval("document.getElementById('agree').checked = true")
        .await;
    let checked = snapshot(&h).await;
    assert!(
        checked.contains("checkbox \"Agree\" [checked=true"),
        "{checked}"
    );

    h.eval("document.getElementById('name').value = 'Ada'")
        .await;
    assert!(snapshot(&h).await.contains("textbox \"Name\""));
    let typed = snapshot(&h).await;
    assert!(typed.contains(": Ada"), "{typed}");

    h.eval("document.getElementById('color').selectedIndex = 1")
        .await;
    let selected = snapshot(&h).await;
    assert!(
        selected.contains("combobox \"Color\"") && selected.contains(": Blue"),
        "{selected}"
    );

    h.eval("document.getElementById('partial').indeterminate = true")
        .await;
    let mixed = snapshot(&h).await;
    assert!(
        mixed.contains("checkbox \"Partial\" [checked=mixed"),
        "{mixed}"
    );

    h.eval("document.getElementById('bio').value = 'Wrote compilers'")
        .await;
    let bio = snapshot(&h).await;
    assert!(bio.contains("Wrote compilers"), "{bio}");

    // Another option of a multiple select, selectedIndex unchanged.
    h.eval("document.getElementById('sizes').options[0].selected = true")
        .await;
    let first_size = snapshot(&h).await;
    h.eval("document.getElementById('sizes').options[2].selected = true")
        .await;
    let two_sizes = snapshot(&h).await;
    assert_ne!(two_sizes, first_size, "{two_sizes}");

    // A DOM mutation.
    h.eval("document.getElementById('note').textContent = 'Changed note'")
        .await;
    let mutated = snapshot(&h).await;
    assert!(mutated.contains("Changed note"), "{mutated}");

    // Inside an open shadow root.
    h.eval("document.getElementById('host').shadowRoot.getElementById('inner').textContent = 'Renamed'")
        .await;
    let shadow = snapshot(&h).await;
    assert!(shadow.contains("button \"Renamed\""), "{shadow}");

    // A rule inserted through the CSSOM hides the note: no mutation either.
    h.eval("document.getElementById('sheet').sheet.insertRule('#note { display: none }', 1)")
        .await;
    let styled = snapshot(&h).await;
    assert!(!styled.contains("Changed note"), "{styled}");

    // A sheet the shadow root adopts, then rewritten in place (`replaceSync`: as many rules as
    // before, no mutation, no event).
    h.eval(
        "const sheet = new CSSStyleSheet(); sheet.replaceSync('#inner { color: red }'); \
         document.getElementById('host').shadowRoot.adoptedStyleSheets = [sheet]; \
         window.adopted = sheet;",
    )
    .await;
    let adopted = snapshot(&h).await;
    assert!(adopted.contains("button \"Renamed\""), "{adopted}");
    h.eval("window.adopted.replaceSync('#inner { display: none }')")
        .await;
    let replaced = snapshot(&h).await;
    assert!(!replaced.contains("Renamed"), "{replaced}");

    // A new document.
    h.open("/watch.html").await;
    let fresh = snapshot(&h).await;
    assert!(
        fresh.contains("Note text") && fresh.contains("checked=false"),
        "{fresh}"
    );
    h.close().await;
}

#[tokio::test]
async fn pages_the_watcher_cannot_see_whole_take_the_full_path() {
    let h = Harness::at("/watch.html").await;
    // A custom element without an open shadow root may hide a closed one.
    h.eval(
        "const el = document.createElement('x-closed'); \
         el.attachShadow({mode: 'closed'}).innerHTML = '<button>Closed</button>'; \
         document.body.append(el); 1",
    )
    .await;
    let first = snapshot(&h).await;
    assert!(first.contains("button \"Closed\""), "{first}");
    let reads = scans(&h).await;
    let second = snapshot(&h).await;
    assert_eq!(second, first);
    assert!(
        scans(&h).await > reads,
        "a page with a closed shadow host was answered from the watch"
    );
    h.close().await;
}

/// Puts `/watch.html`'s scan counter on a page: a clickable row whose tagging by a full
/// snapshot's cursor scan counts in `window.scans`.
const SCAN_COUNTER: &str = "window.scans = 0; \
    const row = document.createElement('div'); row.id = 'clicky'; row.style.cursor = 'pointer'; \
    row.onclick = () => {}; row.textContent = 'Clickable row'; document.body.append(row); \
    new MutationObserver((records) => { for (const r of records) \
      if (r.attributeName === 'data-__ab-ci' && r.target.hasAttribute('data-__ab-ci')) window.scans++; \
    }).observe(row, { attributes: true }); 1";

#[tokio::test]
async fn chrome_makes_the_snapshot_world_with_each_document_so_a_snapshot_need_not() {
    // The main document and the same-site frame (a cross-site one may live in another
    // renderer, reached through a session of its own).
    let h = Harness::at("/large/frames?n=2").await;
    let worlds = h.page().await.snapshot_worlds_made_at_load();
    assert!(worlds.len() >= 2, "worlds made at load: {worlds:?}");
    let first = snapshot(&h).await;
    assert!(first.contains("Send 1"), "{first}");
    // A new document brings its own world; the old documents' worlds are forgotten.
    h.open("/fixture.html").await;
    let worlds = h.page().await.snapshot_worlds_made_at_load();
    assert_eq!(worlds.len(), 1, "worlds after a navigation: {worlds:?}");
    h.eval(SCAN_COUNTER).await;
    snapshot(&h).await;
    let reads = scans(&h).await;
    snapshot(&h).await;
    assert_eq!(
        scans(&h).await,
        reads,
        "the world made at load watches the page"
    );
    h.close().await;
}

#[tokio::test]
async fn a_page_with_frames_answers_from_the_watch_until_something_in_a_frame_changes() {
    // `#f1` is same-site (this renderer), `#f2` is on `localhost` (a cross-site frame).
    let h = Harness::at("/large/frames?n=2").await;
    // The page's load event waited for both frames.
    h.eval(SCAN_COUNTER).await;
    let first = snapshot(&h).await;
    assert!(
        first.contains("Send 1") && first.contains("Send 2"),
        "{first}"
    );
    let reads = scans(&h).await;
    assert_eq!(snapshot(&h).await, first);
    assert_eq!(
        scans(&h).await,
        reads,
        "an unchanged page with frames was read again"
    );

    // A change inside the same-site frame only: the main document does not move.
    h.eval(
        "document.getElementById('f1').contentDocument.body.insertAdjacentHTML('beforeend', '<p>Added in frame one</p>'); 1",
    )
    .await;
    let second = snapshot(&h).await;
    assert!(second.contains("Added in frame one"), "{second}");
    assert!(scans(&h).await > reads);

    // A change inside the cross-site frame, made from within it.
    h.session
        .select_frame("#f2", None)
        .await
        .expect("select the cross-site frame");
    h.eval("document.body.insertAdjacentHTML('beforeend', '<p>Added in frame two</p>'); 1")
        .await;
    h.session
        .select_main_frame()
        .await
        .expect("back to the main frame");
    let third = snapshot(&h).await;
    assert!(third.contains("Added in frame two"), "{third}");
    let reads = scans(&h).await;

    // Unchanged again: answered from the watch.
    assert_eq!(snapshot(&h).await, third);
    assert_eq!(scans(&h).await, reads);

    // A frame that navigates has lost its watcher's world: the next snapshot reads it again.
    h.eval("document.getElementById('f1').contentWindow.location.replace('/large/frame?i=7'); 1")
        .await;
    h.eventually(
        "document.getElementById('f1').contentDocument.querySelector('h2') !== null && document.getElementById('f1').contentDocument.querySelector('h2').textContent",
        json!("Frame 7"),
    )
    .await;
    let fourth = snapshot(&h).await;
    assert!(
        fourth.contains("Send 7") && !fourth.contains("Added in frame one"),
        "{fourth}"
    );

    // A frame the page navigates by itself, on a timer: no command of ours tells the session.
    h.eval("setTimeout(() => document.getElementById('f1').contentWindow.location.replace('/large/frame?i=9'), 200); 1")
        .await;
    assert!(snapshot(&h).await.contains("Send 7"));
    snapshot_until(&h, "Send 9").await;
    h.close().await;
}

#[tokio::test]
async fn emulation_forgets_stored_snapshots() {
    let h = Harness::at("/watch.html").await;
    snapshot(&h).await;
    let reads = scans(&h).await;
    h.session
        .set_media(Some("dark"), None)
        .await
        .expect("set media");
    snapshot(&h).await;
    assert!(scans(&h).await > reads);
    assert_eq!(h.eval("1").await, json!(1));
    h.close().await;
}

mod common;

/// The reply's `data` without what differs between two answers of the same page.
fn answer(out: &abx_tests::cli::Output) -> Value {
    answer_of(&out.json())
}

/// [`answer`] of a reply line.
fn answer_of(reply: &Value) -> Value {
    let mut data = reply["data"].clone();
    if let Some(map) = data.as_object_mut() {
        map.remove("lifecycle");
        map.remove("removedRefs");
    }
    data
}

/// The daemon writes an unchanged page's answer from the first answer's encoding: over the wire
/// it must be the same answer, and a page that changed, another option set or a navigation must
/// never get a stale one.
#[test]
fn the_wire_answer_of_an_unchanged_page_is_the_first_answer_and_never_a_stale_one() {
    let site = common::site();
    let ab = abx_tests::cli::Cli::new();
    ab.run(&["open", &site.url("/large/list?n=300")]).success();
    let first = ab.run(&["--json", "snapshot"]).success();
    let second = ab.run(&["--json", "snapshot"]).success();
    assert_eq!(answer(&second), answer(&first));
    assert_eq!(second.json()["data"]["removedRefs"], json!([]));
    assert_eq!(
        second.json()["data"]["lifecycle"]["reused"],
        json!(true),
        "the daemon's lifecycle is merged into the encoded answer"
    );
    let refs = first.json()["data"]["refs"]
        .as_object()
        .map_or(0, serde_json::Map::len);
    assert!(refs > 900, "300 rows give 900 refs and more, got {refs}");
    let text = ab.run(&["snapshot"]).success();
    let printed = format!(
        "{}\n",
        first.json()["data"]["snapshot"]
            .as_str()
            .unwrap_or_default()
    );
    assert_eq!(text.out(), printed.trim_end_matches('\n'));
    // Printed straight from the passed memory file: to a pipe (above), to a regular file, and
    // to a file opened for appending (the text must land after what is there).
    let out_dir = tempfile::tempdir().expect("a temp dir");
    let into_file = out_dir.path().join("snapshot.txt");
    let status = ab
        .command(&["snapshot"])
        .stdout(std::fs::File::create(&into_file).expect("an output file"))
        .status()
        .expect("ran");
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&into_file).expect("read"), printed);
    std::fs::write(&into_file, "before\n").expect("written");
    let appending = std::fs::OpenOptions::new()
        .append(true)
        .open(&into_file)
        .expect("opened");
    let status = ab
        .command(&["snapshot"])
        .stdout(appending)
        .status()
        .expect("ran");
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&into_file).expect("read"),
        format!("before\n{printed}")
    );
    // On the socket: a sender that prints text gets the line without `refs` (half of it on a
    // large page) and the text beside the line, unescaped, in a sealed memory file whose
    // descriptor comes with the line; any other sender gets upstream's whole answer.
    let exchange = |request: &str| -> (Value, Option<String>) {
        let mut stream = UnixStream::connect(ab.file("sock")).expect("daemon socket");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        stream.write_all(request.as_bytes()).expect("write");
        let mut reader = BufReader::new(agent_browser::client::ReplyStream::new(stream));
        let mut line = String::new();
        reader.read_line(&mut line).expect("reply");
        let reply: Value = serde_json::from_str(&line).expect("a JSON reply");
        let passed = reader.get_mut().take_passed().map(|fd| {
            // At offset 0: the offset is shared with the daemon, which wrote the file.
            let file = std::fs::File::from(fd);
            let length = file.metadata().expect("the passed file's size").len();
            let mut text = vec![0; usize::try_from(length).expect("a size")];
            std::os::unix::fs::FileExt::read_exact_at(&file, &mut text, 0)
                .expect("the passed file reads");
            String::from_utf8(text).expect("UTF-8")
        });
        (reply, passed)
    };
    let raw = |request: &str| exchange(request).0;
    let (lean, passed) = exchange("{\"id\":\"t\",\"action\":\"snapshot\",\"abxTextReply\":true}\n");
    let text = first.json()["data"]["snapshot"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        lean["abxTail"],
        json!({"bytes": text.len(), "fd": true, "key": "snapshot"}),
        "{lean}"
    );
    assert!(
        lean["data"].get("snapshot").is_none(),
        "the text is in the line too"
    );
    assert_eq!(
        passed.as_deref(),
        Some(text.as_str()),
        "the file holds the text"
    );
    let (upstreams, passed) = exchange("{\"id\":\"w\",\"action\":\"snapshot\"}\n");
    assert!(
        passed.is_none(),
        "a file passed to a reader that did not ask for text"
    );
    assert!(upstreams.get("abxTail").is_none(), "{upstreams:.300}");
    assert!(
        lean["data"].get("refs").is_none(),
        "refs sent to a text reader"
    );
    assert_eq!(lean["data"]["removedRefs"], json!([]));
    let whole = raw("{\"id\":\"w\",\"action\":\"snapshot\"}\n");
    assert_eq!(answer_of(&whole), answer(&first));

    // The page changes: the next answer shows it.
    ab.run(&[
        "eval",
        "document.querySelector('h1').textContent = 'Renamed list'",
    ])
    .success();
    let changed = ab.run(&["--json", "snapshot"]).success();
    let changed_text = changed.json()["data"]["snapshot"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(changed_text.contains("Renamed list"), "{changed_text:.400}");
    assert_eq!(
        answer(&ab.run(&["--json", "snapshot"]).success()),
        answer(&changed)
    );

    // Another option set reassigns refs; the full snapshot after it is its own answer again.
    let interactive = ab.run(&["--json", "snapshot", "-i"]).success();
    assert_ne!(
        interactive.json()["data"]["snapshot"].as_str(),
        Some(changed_text.as_str())
    );
    let again = ab.run(&["--json", "snapshot"]).success();
    assert_eq!(
        again.json()["data"]["snapshot"].as_str(),
        Some(changed_text.as_str())
    );

    // Another page is another answer.
    ab.run(&["open", &site.url("/page1.html")]).success();
    let other = ab.run(&["--json", "snapshot"]).success();
    assert_eq!(
        other.json()["data"]["origin"],
        json!(site.url("/page1.html"))
    );
    assert!(
        !answer(&other)["snapshot"]
            .as_str()
            .unwrap_or_default()
            .contains("Renamed list")
    );
    ab.run(&["close"]).success();
}
