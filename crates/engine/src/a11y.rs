//! The accessibility audit: DOM checks run as page JavaScript on the session's own tab, in the
//! shape of an axe-core report (rule ids, impacts, tags and node targets), without shipping
//! axe-core. [`A11Y_RULES`] lists what is checked.
//!
//! ```no_run
//! # async fn demo(session: &abx_engine::Session) -> abx_engine::Result<()> {
//! let report = abx_engine::a11y_audit(&session.page(None).await?, &[], None).await?;
//! println!("{} violations", report["violations"].as_array().map_or(0, Vec::len));
//! # Ok(()) }
//! ```

use serde_json::{Value, json};

use crate::error::{EngineError, Result};
use crate::session::Page;

/// The audit, a function of `{tags, selector}` (see the file's header).
const AUDIT_JS: &str = include_str!("a11y/audit.js");

/// The audit's rules: `(id, impact, tags, what it flags)`.
pub const A11Y_RULES: &[(&str, &str, &str, &str)] = &[
    (
        "aria-roles",
        "critical",
        "wcag2a wcag412",
        "a role attribute that is not an ARIA role",
    ),
    (
        "button-name",
        "critical",
        "wcag2a wcag412",
        "a button (or role=button) without an accessible name",
    ),
    (
        "color-contrast",
        "serious",
        "wcag2aa wcag143",
        "text below 4.5:1 (3:1 when large) against its solid background; an image or gradient background is reported as incomplete",
    ),
    (
        "document-title",
        "serious",
        "wcag2a wcag242",
        "a missing or empty <title>",
    ),
    (
        "duplicate-id",
        "minor",
        "best-practice",
        "an id used by more than one element",
    ),
    (
        "heading-order",
        "moderate",
        "best-practice",
        "a heading more than one level below the one before it",
    ),
    (
        "html-has-lang",
        "serious",
        "wcag2a wcag311",
        "<html> without a lang attribute",
    ),
    (
        "image-alt",
        "critical",
        "wcag2a wcag111",
        "an <img> (or role=img) without alt, aria-label, aria-labelledby or title",
    ),
    (
        "label",
        "critical",
        "wcag2a wcag412 wcag131",
        "a text field without a label, aria-label, aria-labelledby, title or placeholder",
    ),
    (
        "link-name",
        "serious",
        "wcag2a wcag244 wcag412",
        "a link without an accessible name",
    ),
    (
        "select-name",
        "critical",
        "wcag2a wcag412 wcag131",
        "a <select> without an accessible name",
    ),
];

/// Audits the session's page: only rules with one of `tags` (or whose id is in `tags`; all
/// rules when empty), only inside the first element matching `selector` (page-level rules are
/// then skipped). The report: `{url, engine, rules, counts, violations, incomplete}`, each
/// violation `{id, impact, help, helpUrl, tags, nodeCount, nodes: [{target, html,
/// failureSummary}]}`.
pub async fn a11y_audit(page: &Page<'_>, tags: &[String], selector: Option<&str>) -> Result<Value> {
    let options = json!({
        "tags": if tags.is_empty() { Value::Null } else { json!(tags) },
        "selector": selector,
    });
    let script = format!("({AUDIT_JS})({options})");
    let raw = page.evaluate(&script).await?.value;
    if let Some(error) = raw.get("error").and_then(Value::as_str) {
        return Err(EngineError::Invalid(error.to_string()));
    }
    let count = |key: &str| raw.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    let violations = count("violations");
    let incomplete = count("incomplete");
    let Value::Object(mut report) = raw else {
        return Err(EngineError::Invalid(
            "a11y: the page returned no report".into(),
        ));
    };
    let passes = report.remove("passes").unwrap_or(json!(0));
    let inapplicable = report.remove("inapplicable").unwrap_or(json!(0));
    report.insert("engine".into(), json!("abx-a11y"));
    report.insert(
        "counts".into(),
        json!({
            "violations": violations,
            "incomplete": incomplete,
            "passes": passes,
            "inapplicable": inapplicable,
        }),
    );
    Ok(Value::Object(report))
}
