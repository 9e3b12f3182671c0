//! The contract of `Session::page` (the per-command view the page actions live on), against
//! real Chromium: a view acts on the tab that was active when it was taken, even after a tab
//! switch, and fails typed once that tab is gone; its deadline is the one given to `page()`;
//! taking one costs no CDP call.

#[path = "engine_harness.rs"]
mod harness;

use std::time::{Duration, Instant};

use abx_engine::EngineError;
use harness::Harness;
use serde_json::json;

#[tokio::test]
async fn a_page_taken_before_a_tab_switch_keeps_acting_on_its_own_tab() {
    let h = Harness::at("/form.html").await;
    let form = h.session.page(None).await.expect("page of the form");
    let form_target = form.tab().target_id().to_string();
    h.session
        .tab_new(Some(&h.site.url("/page1.html")), None)
        .await
        .expect("tab new (becomes active)");
    assert_ne!(
        h.session.active_target().as_deref(),
        Some(form_target.as_str()),
        "the new tab is the active one"
    );

    form.fill("#name", "Ada")
        .await
        .expect("fill through the old view");
    let on_form = form
        .evaluate("[location.pathname, document.querySelector('#name').value]")
        .await
        .expect("evaluate through the old view")
        .value;
    assert_eq!(on_form, json!(["/form.html", "Ada"]));

    // A view taken now is of the new active tab, which the fill did not touch.
    let now = h.session.page(None).await.expect("page of the new tab");
    assert_ne!(now.tab().target_id(), form_target);
    let on_new = now
        .evaluate("[location.pathname, document.querySelector('#name') === null]")
        .await
        .expect("evaluate on the new tab")
        .value;
    assert_eq!(on_new, json!(["/page1.html", true]));
    h.close().await;
}

#[tokio::test]
async fn a_page_whose_tab_was_closed_fails_typed_instead_of_acting_on_another_tab() {
    let h = Harness::at("/form.html").await;
    let form = h.session.page(None).await.expect("page of the form");
    let form_target = form.tab().target_id().to_string();
    let listing = h
        .session
        .tab_new(Some(&h.site.url("/form.html")), None)
        .await
        .expect("a second form tab");
    h.session.tab_close(Some("t1")).await.expect("close t1");

    let err = form
        .fill("#name", "Ada")
        .await
        .expect_err("a view of a closed tab must not succeed");
    match &err {
        EngineError::TabGone { target_id, .. } => assert_eq!(target_id, &form_target),
        other => panic!("expected TabGone for the closed tab, got {other:?}"),
    }
    let untouched = h
        .session
        .page(None)
        .await
        .expect("page of the remaining tab");
    assert_eq!(untouched.tab().target_id(), listing.target_id);
    let value = untouched
        .evaluate("document.querySelector('#name').value")
        .await
        .expect("evaluate")
        .value;
    assert_eq!(value, json!(""), "the fill went nowhere else");
    h.close().await;
}

#[tokio::test]
async fn a_wait_through_a_page_times_out_at_the_deadline_given_to_page() {
    let h = Harness::at("/form.html").await;
    let limit = Duration::from_millis(800);
    let page = h.session.page(Some(limit)).await.expect("page");
    let started = Instant::now();
    let err = page
        .wait_selector("#never-there", "visible")
        .await
        .expect_err("the element never appears");
    match &err {
        EngineError::Timeout { after, .. } => assert_eq!(*after, limit),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(
        started.elapsed() >= limit,
        "the wait gave up before the view's deadline"
    );

    // The deadline is the view's, not one per call: on the same view, even a wait that would
    // succeed at once now fails, while a fresh view of the same tab succeeds.
    let late = page.wait_selector("#name", "visible").await;
    assert!(
        matches!(late, Err(EngineError::Timeout { .. })),
        "a wait on a view past its deadline must time out, got {late:?}"
    );
    h.session
        .page(Some(limit))
        .await
        .expect("fresh page")
        .wait_selector("#name", "visible")
        .await
        .expect("a fresh view has its own deadline");
    h.close().await;
}

#[tokio::test]
async fn taking_a_page_makes_no_cdp_call() {
    let h = Harness::at("/form.html").await;
    // Counted on the session's own connection (a tracing subscriber per thread missed calls
    // now and then when other tests ran alongside).
    let sent = || h.session.browser().connection().messages_sent();
    // The counter sees calls at all (else the assertion below would pass vacuously).
    let before_eval = sent();
    h.session
        .page(None)
        .await
        .expect("page")
        .evaluate("1")
        .await
        .expect("evaluate");
    assert!(sent() > before_eval, "the counter saw no CDP call");

    let before = sent();
    let page = h.session.page(Some(Duration::from_secs(2))).await;
    let after = sent();
    page.expect("page");
    assert_eq!(
        after,
        before,
        "Session::page made {} CDP calls",
        after - before
    );
    h.close().await;
}
