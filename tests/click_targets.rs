//! Click points on elements shaped like real pages': a link that wraps onto two lines (the middle
//! of its bounding box is on its parent, between the lines) and a label slotted into a shadow
//! `<button>` (a web component's text is light DOM shown through a `<slot>`). Both were refused
//! as "covered" (found driving Debian's Python docs and JupyterLab, tests/real_apps.rs).

use abx_tests::cli::Cli;

mod common;

/// A page as a `data:` URL.
fn page(html: &str) -> String {
    format!("data:text/html,{}", html.replace('#', "%23"))
}

#[test]
fn a_link_that_wraps_onto_two_lines_is_clicked_on_its_text() {
    let _site = common::site();
    let ab = Cli::new().session("wrap");
    let html = "<title>Wrap</title><p style='width:150px;font:16px/24px sans-serif;margin:20px'>\
        <a id=next href='#clicked' onclick='document.title=\"Clicked\"'>io — Core tools for working with streams</a></p>";
    ab.run(&["open", &page(html)]).success();
    let lines = ab.run(&[
        "eval",
        "document.getElementById('next').getClientRects().length",
    ]);
    assert_eq!(
        lines.success().out(),
        "2",
        "the link must wrap for this test to mean anything"
    );
    ab.run(&["click", "#next"]).success();
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Clicked");
}

#[test]
fn a_label_slotted_into_a_shadow_button_does_not_cover_it() {
    let _site = common::site();
    let ab = Cli::new().session("slot");
    let html = "<title>Slot</title><script>customElements.define('x-button', class extends HTMLElement {\
        constructor() { super(); const root = this.attachShadow({mode: 'open'});\
        root.innerHTML = '<button id=inner style=\"font:20px sans-serif;padding:10px\"><slot></slot></button>';\
        root.getElementById('inner').addEventListener('click', () => { document.title = 'Pressed'; }); } });\
        </script><x-button id=kernel><span class=label>Python 3 (ipykernel)</span></x-button>";
    ab.run(&["open", &page(html)]).success();
    let snapshot = ab.run(&["snapshot", "-i"]).success();
    let reference = snapshot
        .out()
        .lines()
        .find(|l| l.contains("button") && l.contains("Python 3"))
        .and_then(|l| l.split("[ref=").nth(1))
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("no button ref in {snapshot:#?}"))
        .to_string();
    ab.run(&["click", &format!("@{reference}")]).success();
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Pressed");
}
