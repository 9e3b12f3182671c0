//! Page actions against real Chromium, each proven by what it did to the page (values, events,
//! scroll positions, files), plus `find`, `is`, `get`, element and annotated screenshots, `pdf`.

#[path = "engine_harness.rs"]
mod harness;

use std::time::Duration;

use abx_engine::{
    ClickOptions, EngineError, FindAction, Found, Locator, PdfOptions, ScreenshotOptions,
    SnapshotOptions,
};
use harness::Harness;
use serde_json::json;

fn click() -> ClickOptions {
    ClickOptions::default()
}

/// A link to a page the server answers only after 3 s.
const SLOW_LINK: &str = "document.body.insertAdjacentHTML('beforeend', '<a id=\"slow\" href=\"/slow?ms=3000\">slow</a>')";

#[tokio::test]
async fn a_click_that_navigates_returns_on_the_page_it_led_to() {
    // Engine behaviour (a Host calling Page::click gets it, not only the CLI): the click
    // waits for the navigation it started.
    let h = Harness::at("/page1.html").await;
    h.page().await.click("#to2", &click()).await.expect("click");
    assert_eq!(
        h.session.url().await.expect("url"),
        h.site.url("/page2.html")
    );
    h.eval(SLOW_LINK).await;
    h.page()
        .await
        .click("#slow", &click())
        .await
        .expect("click");
    assert_eq!(
        h.session.url().await.expect("url"),
        h.site.url("/slow?ms=3000"),
        "the click returned before the slow page it opened"
    );
    h.close().await;
}

#[tokio::test]
async fn without_navigation_settling_a_click_returns_once_delivered() {
    let h = Harness::start_with(abx_engine::SessionOptions {
        settle_navigation: false,
        ..abx_engine::SessionOptions::default()
    })
    .await;
    h.open("/page1.html").await;
    h.eval(SLOW_LINK).await;
    h.page()
        .await
        .click("#slow", &click())
        .await
        .expect("click");
    // The server holds the new page for 3 s: the click did not wait for it.
    assert_eq!(
        h.session.url().await.expect("url"),
        h.site.url("/page1.html")
    );
    h.close().await;
}

#[tokio::test]
async fn fill_replaces_the_value_and_fires_input() {
    let h = Harness::at("/form.html").await;
    h.eval("document.getElementById('name').value = 'old'")
        .await;
    let done = h
        .page()
        .await
        .fill("#name", "Ada Lovelace")
        .await
        .expect("fill");
    assert_eq!(
        serde_json::to_value(&done).expect("json"),
        json!({"filled": "#name"})
    );
    assert_eq!(
        h.eval("document.getElementById('name').value").await,
        json!("Ada Lovelace")
    );
    // The page's input listener saw it.
    assert_eq!(
        h.eval("document.getElementById('name-mirror').textContent")
            .await,
        json!("Ada Lovelace")
    );
    // Into a contenteditable, and by ref.
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    let editor = snap
        .refs
        .iter()
        .find(|(_, r)| r.role == "generic")
        .map(|(n, _)| format!("@{n}"))
        .expect("editor ref");
    h.page()
        .await
        .fill(&editor, "rich text")
        .await
        .expect("fill editor");
    assert_eq!(
        h.eval("document.getElementById('editor').textContent")
            .await,
        json!("rich text")
    );
    // Not fillable: a checkbox.
    let err = h.page().await.fill("#agree", "x").await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    h.close().await;
}

#[tokio::test]
async fn type_sends_real_key_events_and_clear_empties_first() {
    let h = Harness::at("/form.html").await;
    let typed = h
        .page()
        .await
        .type_text("#bio", "Hi!", false, None)
        .await
        .expect("type");
    assert_eq!(
        serde_json::to_value(&typed).expect("json"),
        json!({"typed": "Hi!"})
    );
    assert_eq!(
        h.eval("document.getElementById('bio').value").await,
        json!("Hi!")
    );
    assert_eq!(h.eval("window.__keys.join(',')").await, json!("H,i,!"));
    h.page()
        .await
        .type_text("#bio", "ok", true, Some(Duration::from_millis(5)))
        .await
        .expect("type --clear --delay");
    assert_eq!(
        h.eval("document.getElementById('bio').value").await,
        json!("ok")
    );
    h.close().await;
}

#[tokio::test]
async fn press_enter_submits_and_chords_edit() {
    let h = Harness::at("/form.html").await;
    h.page().await.fill("#name", "Grace").await.expect("fill");
    let pressed = h.page().await.press("Enter").await.expect("press Enter");
    assert_eq!(
        serde_json::to_value(&pressed).expect("json"),
        json!({"pressed": "Enter"})
    );
    h.eventually(
        "JSON.parse(document.getElementById('result').textContent || '{}').name || null",
        json!("Grace"),
    )
    .await;
    // Control+a selects all, Backspace deletes it.
    h.page().await.press("Control+a").await.expect("select all");
    h.page().await.press("Backspace").await.expect("backspace");
    assert_eq!(
        h.eval("document.getElementById('name').value").await,
        json!("")
    );
    // Shift+Tab moves focus backwards; Tab forwards.
    h.page().await.focus("#email").await.expect("focus");
    h.page().await.press("Shift+Tab").await.expect("shift+tab");
    assert_eq!(h.eval("document.activeElement.id").await, json!("name"));
    h.page().await.press("Tab").await.expect("tab");
    assert_eq!(h.eval("document.activeElement.id").await, json!("email"));
    let err = h.page().await.press("Hyper+q").await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    h.close().await;
}

#[tokio::test]
async fn keydown_keyup_keyboard_type_and_inserttext() {
    let h = Harness::at("/form.html").await;
    h.page().await.focus("#name").await.expect("focus");
    h.page()
        .await
        .key_down("Shift")
        .await
        .expect("keydown Shift");
    h.page()
        .await
        .keyboard_type("ab", None)
        .await
        .expect("type with shift held");
    h.page().await.key_up("Shift").await.expect("keyup Shift");
    h.page().await.keyboard_type("c", None).await.expect("type");
    // Held Shift reached the page as a modifier on the typed keys.
    assert_eq!(
        h.eval("window.__keys.join(',')").await,
        json!("Shift,a,b,c")
    );
    let inserted = h
        .page()
        .await
        .insert_text(" + more")
        .await
        .expect("inserttext");
    assert_eq!(
        serde_json::to_value(&inserted).expect("json"),
        json!({"inserted": true})
    );
    assert_eq!(
        h.eval("document.getElementById('name').value").await,
        json!("abc + more")
    );
    // insertText fires no key events.
    assert_eq!(h.eval("window.__keys.length").await, json!(4));
    h.close().await;
}

#[tokio::test]
async fn select_by_value_or_label() {
    let h = Harness::at("/form.html").await;
    let selected = h
        .page()
        .await
        .select("#size", &["Large".to_string()])
        .await
        .expect("select by label");
    assert_eq!(
        serde_json::to_value(&selected).expect("json"),
        json!({"selected": ["Large"]})
    );
    assert_eq!(
        h.eval("document.getElementById('size').value").await,
        json!("l")
    );
    h.page()
        .await
        .select("#size", &["m".to_string()])
        .await
        .expect("select by value");
    assert_eq!(
        h.eval("document.getElementById('size').value").await,
        json!("m")
    );
    match h.page().await.select("#size", &["XL".to_string()]).await {
        Err(EngineError::Invalid(msg)) => assert!(
            msg.starts_with("No option matched [\"XL\"]. Available options: s (\"Small\")"),
            "{msg}"
        ),
        other => panic!("expected a no-option error, got {other:?}"),
    }
    // A <select multiple> takes every match.
    h.eval("document.body.insertAdjacentHTML('beforeend', '<select id=\"m\" multiple><option>a</option><option>b</option><option value=\"cv\">c</option></select>')").await;
    h.page()
        .await
        .select("#m", &["a".to_string(), "c".to_string()])
        .await
        .expect("select multiple");
    assert_eq!(
        h.eval("Array.from(document.getElementById('m').selectedOptions, o => o.value).join(',')")
            .await,
        json!("a,cv")
    );
    h.close().await;
}

#[tokio::test]
async fn check_and_uncheck_are_idempotent_and_work_on_radios() {
    let h = Harness::at("/form.html").await;
    let checked = h.page().await.check("#agree").await.expect("check");
    assert_eq!(
        serde_json::to_value(&checked).expect("json"),
        json!({"checked": "#agree"})
    );
    assert_eq!(
        h.eval("document.getElementById('agree').checked").await,
        json!(true)
    );
    h.page().await.check("#agree").await.expect("check again");
    assert_eq!(
        h.eval("document.getElementById('agree').checked").await,
        json!(true)
    );
    let unchecked = h.page().await.uncheck("#agree").await.expect("uncheck");
    assert_eq!(
        serde_json::to_value(&unchecked).expect("json"),
        json!({"unchecked": "#agree"})
    );
    assert_eq!(
        h.eval("document.getElementById('agree').checked").await,
        json!(false)
    );
    h.page().await.check("#color-green").await.expect("radio");
    assert_eq!(
        h.eval("document.querySelector('input[name=color]:checked').value")
            .await,
        json!("green")
    );
    // A hidden input is checked through a script click (styled controls).
    h.eval("document.getElementById('agree').style.display = 'none'")
        .await;
    h.page().await.check("#agree").await.expect("check hidden");
    assert_eq!(
        h.eval("document.getElementById('agree').checked").await,
        json!(true)
    );
    let err = h.page().await.check("#name").await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    h.close().await;
}

#[tokio::test]
async fn hover_applies_hover_styles() {
    let h = Harness::at("/clickable.html").await;
    h.eval("document.head.insertAdjacentHTML('beforeend', '<style>#real-button:hover { background-color: rgb(1, 2, 3); }</style>')").await;
    let hovered = h.page().await.hover("#real-button").await.expect("hover");
    assert_eq!(
        serde_json::to_value(&hovered).expect("json"),
        json!({"hovered": "#real-button"})
    );
    h.eventually(
        "getComputedStyle(document.getElementById('real-button')).backgroundColor",
        json!("rgb(1, 2, 3)"),
    )
    .await;
    h.close().await;
}

#[tokio::test]
async fn clicks_wait_for_late_elements_scroll_far_ones_and_double_click() {
    let h = Harness::at("/form.html").await;
    // #late is hidden and disabled for 500 ms after load.
    h.page()
        .await
        .click("#late", &click())
        .await
        .expect("click late button");
    assert_eq!(
        h.eval("document.getElementById('late-result').textContent")
            .await,
        json!("late clicked")
    );
    h.open("/scroll.html").await;
    h.page()
        .await
        .click("#bottom", &click())
        .await
        .expect("click far button");
    assert_eq!(
        h.eval("document.getElementById('result').textContent")
            .await,
        json!("bottom clicked")
    );
    assert!(h.eval("window.scrollY").await.as_f64().unwrap_or(0.0) > 4000.0);
    h.open("/clickable.html").await;
    h.eval("window.__dbl = 0; document.getElementById('real-button').addEventListener('dblclick', () => window.__dbl++)").await;
    h.page()
        .await
        .dblclick("#real-button")
        .await
        .expect("dblclick");
    assert_eq!(h.eval("window.__dbl").await, json!(1));
    // xpath= selectors.
    h.page()
        .await
        .click("xpath=//div[@id='div-pointer']", &click())
        .await
        .expect("xpath click");
    assert_eq!(
        h.eval("document.getElementById('result').textContent")
            .await,
        json!("div-pointer")
    );
    let missing = h.page().await.click("#nope", &click()).await;
    assert!(
        matches!(&missing, Err(EngineError::NotFound { selector }) if selector == "#nope"),
        "{missing:?}"
    );
    h.close().await;
}

#[tokio::test]
async fn a_hidden_element_times_out_with_the_reason() {
    let h = Harness::at("/form.html").await;
    h.eval("document.getElementById('submit').style.visibility = 'hidden'")
        .await;
    let err = h
        .session
        .page(Some(Duration::from_millis(300)))
        .await
        .expect("page")
        .click("#submit", &click())
        .await;
    match err {
        Err(EngineError::Timeout { what, .. }) => assert!(what.contains("not visible"), "{what}"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    h.close().await;
}

#[tokio::test]
async fn a_covered_element_names_what_covers_it() {
    let h = Harness::at("/covered.html").await;
    let err = h.page().await.click("#target", &click()).await;
    match err {
        Err(EngineError::Covered {
            selector, cover, ..
        }) => {
            assert_eq!(selector, "#target");
            assert_eq!(cover, "div#overlay");
        }
        other => panic!("expected Covered, got {other:?}"),
    }
    // Nothing was clicked.
    assert_eq!(
        h.eval("document.getElementById('result').textContent")
            .await,
        json!("")
    );
    // The same through a ref.
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    let target = snap
        .refs
        .iter()
        .find(|(_, r)| r.name == "Covered target")
        .map(|(n, _)| format!("@{n}"))
        .expect("ref");
    let err = h.page().await.click(&target, &click()).await;
    assert!(matches!(err, Err(EngineError::Covered { .. })), "{err:?}");
    h.close().await;
}

#[tokio::test]
async fn a_click_that_opens_a_dialog_reports_it() {
    let h = Harness::at("/fixture.html").await;
    let clicked = h.page().await.click("", &click()).await;
    assert!(clicked.is_err(), "an empty selector must not click");
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    assert!(snap.snapshot.contains(r#"button "Confirm" [ref=e4]"#));
    let started = std::time::Instant::now();
    let clicked = h
        .page()
        .await
        .click("@e4", &click())
        .await
        .expect("click Confirm");
    assert!(clicked.dialog_opened, "{clicked:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the click waited for the dialog"
    );
    assert_eq!(
        serde_json::to_value(&clicked).expect("json"),
        json!({"clicked": "@e4", "dialogOpened": true})
    );
    let dialog = h.session.active_dialog().expect("dialog pending");
    assert_eq!(dialog.kind, "confirm");
    h.session
        .active_tab()
        .await
        .expect("tab")
        .answer_dialog(true, None, "test")
        .await
        .expect("accept");
    h.eventually(
        "document.getElementById('confirm-result').textContent",
        json!("confirm:true"),
    )
    .await;
    // An alert is auto-accepted: the click completes without a pending dialog.
    let alert = h
        .page()
        .await
        .click("@e3", &click())
        .await
        .expect("click Alert");
    assert!(!alert.dialog_opened);
    h.close().await;
}

#[tokio::test]
async fn click_new_tab_opens_the_link_in_a_new_tab() {
    let h = Harness::at("/page1.html").await;
    let clicked = h
        .page()
        .await
        .click(
            "#to2",
            &ClickOptions {
                new_tab: true,
                ..ClickOptions::default()
            },
        )
        .await
        .expect("click --new-tab");
    assert_eq!(clicked.new_tab, Some(true));
    assert_eq!(
        clicked.url.as_deref(),
        Some(h.site.url("/page2.html").as_str())
    );
    assert_eq!(
        h.session.url().await.expect("url"),
        h.site.url("/page2.html")
    );
    assert_eq!(h.session.tabs().len(), 2);
    h.close().await;
}

#[tokio::test]
async fn scroll_and_scrollintoview_move_the_page() {
    let h = Harness::at("/scroll.html").await;
    let scrolled = h
        .page()
        .await
        .scroll("down", Some(500.0), None)
        .await
        .expect("scroll");
    assert_eq!(
        serde_json::to_value(&scrolled).expect("json"),
        json!({"scrolled": true})
    );
    assert_eq!(h.eval("window.scrollY").await, json!(500));
    h.page()
        .await
        .scroll("up", Some(200.0), None)
        .await
        .expect("scroll up");
    assert_eq!(h.eval("window.scrollY").await, json!(300));
    let into = h
        .page()
        .await
        .scroll_into_view("#bottom")
        .await
        .expect("scrollintoview");
    assert_eq!(
        serde_json::to_value(&into).expect("json"),
        json!({"scrolled": "#bottom"})
    );
    assert!(h.eval("window.scrollY").await.as_f64().unwrap_or(0.0) > 4000.0);
    let err = h.page().await.scroll("sideways", None, None).await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    // With a selector, the element scrolls, not the page.
    h.eval("document.body.insertAdjacentHTML('afterbegin', '<div id=\"box\" style=\"height:100px;overflow:auto\"><div style=\"height:1000px\"></div></div>')").await;
    let page_y = h.eval("window.scrollY").await;
    h.page()
        .await
        .scroll("down", Some(250.0), Some("#box"))
        .await
        .expect("scroll element");
    assert_eq!(
        h.eval("document.getElementById('box').scrollTop").await,
        json!(250)
    );
    assert_eq!(h.eval("window.scrollY").await, page_y);
    h.close().await;
}

#[tokio::test]
async fn mouse_wheel_scrolls_and_mouse_down_up_drag() {
    let h = Harness::at("/scroll.html").await;
    h.page().await.mouse_move(200.0, 200.0).await.expect("move");
    let wheeled = h.page().await.mouse_wheel(400.0, 0.0).await.expect("wheel");
    assert_eq!(
        serde_json::to_value(&wheeled).expect("json"),
        json!({"scrolled": true, "deltaX": 0.0, "deltaY": 400.0})
    );
    h.eventually("window.scrollY > 0", json!(true)).await;

    h.open("/drag.html").await;
    let b = h.page().await.get_box("#handle").await.expect("box");
    let (x, y) = (b.x + b.width / 2.0, b.y + b.height / 2.0);
    h.page()
        .await
        .mouse_move(x, y)
        .await
        .expect("move to handle");
    h.page().await.mouse_down(None).await.expect("down");
    h.page()
        .await
        .mouse_move(x + 100.0, y + 50.0)
        .await
        .expect("move");
    h.page().await.mouse_up(None).await.expect("up");
    assert_eq!(
        h.eval("document.getElementById('pos').textContent").await,
        json!("120,70")
    );
    h.close().await;
}

#[tokio::test]
async fn drag_moves_the_handle_and_does_html5_drag_and_drop() {
    let h = Harness::at("/drag.html").await;
    let dragged = h
        .page()
        .await
        .drag("#handle", "#pos")
        .await
        .expect("drag handle");
    assert_eq!(
        serde_json::to_value(&dragged).expect("json"),
        json!({"dragged": true, "source": "#handle", "target": "#pos"})
    );
    let pos = h.eval("document.getElementById('pos').textContent").await;
    assert_ne!(pos, json!("20,20"), "the handle did not move");
    h.page()
        .await
        .drag("#src", "#dst")
        .await
        .expect("drag and drop");
    assert_eq!(
        h.eval("document.getElementById('result').textContent")
            .await,
        json!("dropped")
    );
    h.close().await;
}

#[tokio::test]
async fn upload_sets_the_input_files() {
    let h = Harness::at("/form.html").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "a").expect("write");
    std::fs::write(&b, "bb").expect("write");
    let files = vec![
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
    ];
    let uploaded = h
        .page()
        .await
        .upload("#upload", &files)
        .await
        .expect("upload");
    assert_eq!(
        serde_json::to_value(&uploaded).expect("json"),
        json!({"uploaded": 2, "selector": "#upload"})
    );
    assert_eq!(h.eval("Array.from(document.getElementById('upload').files, f => f.name + ':' + f.size).join(',')").await, json!("a.txt:1,b.txt:2"));
    let err = h
        .page()
        .await
        .upload("#upload", &["/no/such/file".to_string()])
        .await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    let err = h.page().await.upload("#name", &files[..1]).await;
    assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
    h.close().await;
}

#[tokio::test]
async fn find_by_role_label_text_and_position() {
    let h = Harness::at("/fixture.html").await;
    let role = Locator::Role {
        role: "button".into(),
        name: Some("confirm".into()),
    };
    let found = h
        .page()
        .await
        .find(&role, &FindAction::Text, false)
        .await
        .expect("find role");
    assert!(
        matches!(&found, Found::Text(t) if t.text == "Confirm"),
        "{found:?}"
    );
    match h
        .page()
        .await
        .find(
            &Locator::Role {
                role: "button".into(),
                name: Some("Nope".into()),
            },
            &FindAction::Click,
            false,
        )
        .await
    {
        Err(EngineError::Page(msg)) => {
            assert_eq!(
                msg,
                r#"4 elements have role "button", but none match name "Nope". Names seen: "Alert", "Confirm", "Submit""#
            );
        }
        other => panic!("expected the upstream miss message, got {other:?}"),
    }
    // Exact matching is case-sensitive and whole.
    let exact = h
        .page()
        .await
        .find(
            &Locator::Role {
                role: "button".into(),
                name: Some("confirm".into()),
            },
            &FindAction::Click,
            true,
        )
        .await;
    assert!(exact.is_err(), "{exact:?}");
    let filled = h
        .page()
        .await
        .find(
            &Locator::Label("email".into()),
            &FindAction::Fill("a@b.c".into()),
            false,
        )
        .await
        .expect("find label");
    assert_eq!(
        serde_json::to_value(&filled).expect("json"),
        json!({"filled": "label=\"email\""})
    );
    assert_eq!(
        h.eval("document.getElementById('email').value").await,
        json!("a@b.c")
    );
    h.page()
        .await
        .find(
            &Locator::Text("Clickable div".into()),
            &FindAction::Click,
            false,
        )
        .await
        .expect("find text");
    assert_eq!(h.eval("window.__divClicks").await, json!(1));
    h.page()
        .await
        .find(
            &Locator::Role {
                role: "checkbox".into(),
                name: None,
            },
            &FindAction::Check,
            false,
        )
        .await
        .expect("check");
    assert_eq!(
        h.eval("document.getElementById('agree').checked").await,
        json!(true)
    );
    let last = h
        .page()
        .await
        .find(
            &Locator::Nth {
                selector: "nav a".into(),
                index: -1,
            },
            &FindAction::Text,
            false,
        )
        .await
        .expect("last");
    assert!(
        matches!(&last, Found::Text(t) if t.text == "Second link"),
        "{last:?}"
    );
    h.eval("document.body.insertAdjacentHTML('beforeend', '<input placeholder=\"Search here\"><img alt=\"Logo\" title=\"Brand\" src=\"data:,\" width=\"10\" height=\"10\"><span data-testid=\"tid\">T</span>')").await;
    h.page()
        .await
        .find(
            &Locator::Placeholder("search".into()),
            &FindAction::Fill("q".into()),
            false,
        )
        .await
        .expect("placeholder");
    assert_eq!(
        h.eval("document.querySelector('[placeholder]').value")
            .await,
        json!("q")
    );
    h.page()
        .await
        .find(&Locator::Alt("logo".into()), &FindAction::Hover, false)
        .await
        .expect("alt");
    h.page()
        .await
        .find(&Locator::Title("Brand".into()), &FindAction::Hover, true)
        .await
        .expect("title");
    let tid = h
        .page()
        .await
        .find(&Locator::TestId("tid".into()), &FindAction::Text, false)
        .await
        .expect("testid");
    assert!(matches!(&tid, Found::Text(t) if t.text == "T"), "{tid:?}");
    let none = h
        .page()
        .await
        .find(&Locator::TestId("absent".into()), &FindAction::Click, false)
        .await;
    assert!(
        matches!(none, Err(EngineError::NoElementBy { .. })),
        "{none:?}"
    );
    h.close().await;
}

#[tokio::test]
async fn is_and_get_accept_refs_and_selectors() {
    let h = Harness::at("/form.html").await;
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    let by_name = |name: &str| {
        snap.refs
            .iter()
            .find(|(_, r)| r.name == name)
            .map(|(n, _)| format!("@{n}"))
            .expect(name)
    };
    let disabled = by_name("Disabled");
    let agree = by_name("I agree");
    assert!(
        !h.page()
            .await
            .is_enabled(&disabled)
            .await
            .expect("is enabled")
            .enabled
    );
    assert!(
        h.page()
            .await
            .is_enabled("#submit")
            .await
            .expect("is enabled")
            .enabled
    );
    assert!(
        h.page()
            .await
            .is_visible("#submit")
            .await
            .expect("is visible")
            .visible
    );
    let hidden = h
        .page()
        .await
        .is_visible("#late")
        .await
        .expect("is visible");
    assert_eq!(hidden.origin, h.site.url("/form.html"));
    assert!(
        !h.page()
            .await
            .is_checked(&agree)
            .await
            .expect("is checked")
            .checked
    );
    h.page().await.check(&agree).await.expect("check by ref");
    assert!(
        h.page()
            .await
            .is_checked("#agree")
            .await
            .expect("is checked")
            .checked
    );

    h.page().await.fill("#name", "Zed").await.expect("fill");
    assert_eq!(
        h.page()
            .await
            .get_value(&by_name("Name"))
            .await
            .expect("value")
            .value,
        "Zed"
    );
    assert_eq!(
        h.page().await.get_text("h1").await.expect("text").text,
        "Form"
    );
    assert_eq!(
        h.page()
            .await
            .get_html("#late-result")
            .await
            .expect("html")
            .html,
        ""
    );
    let attr = h
        .page()
        .await
        .get_attribute(&by_name("Submit"), "type")
        .await
        .expect("attr");
    assert_eq!(attr.value.as_deref(), Some("submit"));
    assert_eq!(
        h.page()
            .await
            .get_attribute("#name", "data-none")
            .await
            .expect("attr")
            .value,
        None
    );
    assert_eq!(
        h.page()
            .await
            .get_count("input[type=radio]")
            .await
            .expect("count")
            .count,
        2
    );
    assert_eq!(
        h.page().await.get_count(&agree).await.expect("count").count,
        1
    );
    let b = h
        .page()
        .await
        .get_box(&by_name("Submit"))
        .await
        .expect("box");
    assert!(b.width > 10.0 && b.height > 5.0, "{b:?}");
    let styles = h.page().await.get_styles("#editor").await.expect("styles");
    assert_eq!(
        styles.styles.get("display").map(String::as_str),
        Some("block")
    );
    // Every computed property, as upstream reports them.
    assert!(styles.styles.len() > 200, "{}", styles.styles.len());
    h.close().await;
}

#[tokio::test]
async fn element_and_annotated_screenshots_and_pdf() {
    let h = Harness::at("/fixture.html").await;
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    assert!(snap.refs.contains_key("e1"));
    let shot = h
        .page()
        .await
        .screenshot(&ScreenshotOptions {
            selector: Some("@e1".into()),
            ..ScreenshotOptions::default()
        })
        .await
        .expect("element screenshot by ref");
    assert_eq!(&shot[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes([shot[16], shot[17], shot[18], shot[19]]);
    let height = u32::from_be_bytes([shot[20], shot[21], shot[22], shot[23]]);
    let b = h.page().await.get_box("@e1").await.expect("box");
    assert_eq!(
        (width, height),
        (b.width.round() as u32, b.height.round() as u32)
    );

    let annotated = h
        .page()
        .await
        .screenshot_annotated(&ScreenshotOptions::default())
        .await
        .expect("annotate");
    assert_eq!(&annotated.image[..4], b"\x89PNG");
    let legend: Vec<(u64, &str, &str)> = annotated
        .annotations
        .iter()
        .map(|a| (a.number, a.reference.as_str(), a.role.as_str()))
        .collect();
    assert!(legend.contains(&(1, "e1", "heading")), "{legend:?}");
    assert!(legend.contains(&(4, "e4", "button")), "{legend:?}");
    // Options of a closed select have no box: no label.
    assert!(
        !legend.iter().any(|(_, _, role)| *role == "option"),
        "{legend:?}"
    );
    let json = serde_json::to_value(&annotated.annotations[0]).expect("json");
    assert_eq!(json["ref"], "e1");
    assert_eq!(json["number"], 1);
    // The overlay is gone again.
    assert_eq!(
        h.eval("document.getElementById('__abx_annotations')").await,
        json!(null)
    );

    let pdf = h
        .page()
        .await
        .pdf(&PdfOptions::default())
        .await
        .expect("pdf");
    assert_eq!(&pdf[..5], b"%PDF-");
    h.close().await;
}

#[tokio::test]
async fn clicking_an_option_ref_selects_it() {
    let h = Harness::at("/fixture.html").await;
    let snap = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    assert!(
        snap.snapshot.contains(r#"option "Blue" [ref=e13]"#),
        "{}",
        snap.snapshot
    );
    h.eval("window.__changes = 0; document.querySelector('select').addEventListener('change', () => window.__changes++)")
        .await;
    h.page()
        .await
        .click("@e13", &click())
        .await
        .expect("click option");
    assert_eq!(
        h.eval("document.querySelector('select').value").await,
        json!("Blue")
    );
    assert_eq!(h.eval("window.__changes").await, json!(1));
    let after = h
        .page()
        .await
        .snapshot(&SnapshotOptions {
            interactive: true,
            ..Default::default()
        })
        .await
        .expect("snapshot");
    assert!(
        after
            .snapshot
            .contains("combobox [expanded=false, ref=e9]: Blue"),
        "{}",
        after.snapshot
    );
    h.close().await;
}
