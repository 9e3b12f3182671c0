//! Reading elements and finding them semantically: `find role|text|label|placeholder|alt|title|
//! testid|first|last|nth`, `is visible|enabled|checked`, and the `get` forms — all accepting
//! snapshot refs as well as CSS/XPath selectors, as [`Page`] methods.
//!
//! `find role` matches on the accessibility tree (so implicit roles work: a `<button>` is a
//! button without `role=`), with the name as a case-insensitive substring unless `exact`. A miss
//! among elements that do have the role names what was seen, as upstream 0.41 does:
//! `4 elements have role "button", but none match name "Nope". Names seen: "Alert", "Confirm", "Submit"`.

use std::collections::BTreeMap;
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{accessibility, dom};
use abx_cdp::protocol::js_protocol::runtime;
use serde::Serialize;
use serde_json::{Value, json};

use crate::actions::{CHECKED_FN, Checked, Clicked, Filled, Hovered};
use crate::element::{BoundingBox, finder_all_js, ref_name};
use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::locate::Handle;
use crate::session::{Page, Session};
use crate::snapshot::tree::{RawTree, Tree};
use crate::snapshot::{SnapshotSource, walker};
use crate::tab::Tab;

/// How `find` locates its element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Locator {
    /// `find role <role> [--name N]`.
    Role {
        /// The ARIA role (implicit roles count).
        role: String,
        /// The accessible name to match.
        name: Option<String>,
    },
    /// `find text <t>`: the innermost element whose text matches.
    Text(String),
    /// `find label <l>`: the control a `<label>`, `aria-label` or `aria-labelledby` names.
    Label(String),
    /// `find placeholder <p>`.
    Placeholder(String),
    /// `find alt <t>`.
    Alt(String),
    /// `find title <t>`.
    Title(String),
    /// `find testid <id>` (`data-testid`, always exact).
    TestId(String),
    /// `find first|last|nth <n> <css>`: 0-based, negative from the end (`last` is -1).
    Nth {
        /// The CSS/XPath selector.
        selector: String,
        /// The index.
        index: i64,
    },
}

impl Locator {
    fn describe(&self) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        match self {
            Locator::Role {
                role,
                name: Some(name),
            } => format!("role={role}[name={}]", q(name)),
            Locator::Role { role, name: None } => format!("role={role}"),
            Locator::Text(t) => format!("text={}", q(t)),
            Locator::Label(t) => format!("label={}", q(t)),
            Locator::Placeholder(t) => format!("placeholder={}", q(t)),
            Locator::Alt(t) => format!("alt={}", q(t)),
            Locator::Title(t) => format!("title={}", q(t)),
            Locator::TestId(t) => format!("testid={}", q(t)),
            Locator::Nth { selector, index } => format!("{selector} >> nth={index}"),
        }
    }
}

/// What `find` does with the element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FindAction {
    /// Click it (default).
    #[default]
    Click,
    /// Fill it with the value.
    Fill(String),
    /// Check it.
    Check,
    /// Hover it.
    Hover,
    /// Read its text.
    Text,
}

/// The result of `find`, shaped like the matching action's `data` (`{"clicked": …}`,
/// `{"filled": …}`, `{"checked": …}`, `{"hovered": …}`, or `{"text": …}`), the selector being a
/// description of the locator such as `role=button[name="Submit"]`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Found {
    /// After a click.
    Clicked(Clicked),
    /// After a fill.
    Filled(Filled),
    /// After a check.
    Checked(Checked),
    /// After a hover.
    Hovered(Hovered),
    /// The element's text.
    Text(TextOf),
}

/// `{"text", "origin"}` (`get text`, `find … text`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TextOf {
    /// `innerText` (or `textContent`).
    pub text: String,
    /// The page URL.
    pub origin: String,
}

/// `{"html"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HtmlOf {
    /// `innerHTML`.
    pub html: String,
}

/// `{"value"}` (`get value`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ValueOf {
    /// The control's value (empty when it has none).
    pub value: String,
}

/// `{"value", "origin"}` (`get attr`; `null` when the attribute is absent).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct AttributeOf {
    /// The attribute value.
    pub value: Option<String>,
    /// The page URL.
    pub origin: String,
}

/// `{"count", "selector"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CountOf {
    /// How many elements match.
    pub count: u64,
    /// The selector.
    pub selector: String,
}

/// `{"styles": {…}}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct StylesOf {
    /// Computed style values by property.
    pub styles: BTreeMap<String, String>,
}

/// `{"visible", "origin"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct IsVisible {
    /// Rendered with a non-empty box and not `visibility:hidden`.
    pub visible: bool,
    /// The page URL.
    pub origin: String,
}

/// `{"enabled", "origin"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct IsEnabled {
    /// Not `:disabled` and not inside `aria-disabled=true`.
    pub enabled: bool,
    /// The page URL.
    pub origin: String,
}

/// `{"checked", "origin"}`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct IsChecked {
    /// Checked (false for elements that cannot be checked).
    pub checked: bool,
    /// The page URL.
    pub origin: String,
}

/// Finds elements by text-ish attributes in the page. `this` is unused; arguments are the kind,
/// the text and `exact`. Returns the element or null.
const FIND_FN: PageFn = PageFn::new(include_str!("find/find.js"));

/// Elements considered visible by `is visible`.
const VISIBLE_FN: PageFn = PageFn::new(include_str!("find/visible.js"));

/// Not `:disabled` and not inside `aria-disabled=true`.
const ENABLED_FN: PageFn = PageFn::new(include_str!("find/enabled.js"));
/// The rendered text (`innerText`, else `textContent`).
const TEXT_FN: PageFn = PageFn::new(include_str!("find/text.js"));
/// `innerHTML`.
const INNER_HTML_FN: PageFn = PageFn::new(include_str!("find/inner_html.js"));
/// An input's `value`.
const VALUE_FN: PageFn = PageFn::new(include_str!("find/value.js"));
/// One attribute's value (`null` when absent).
const ATTRIBUTE_FN: PageFn = PageFn::new(include_str!("find/attribute.js"));
/// The `i`-th element of a list (negative from the end), or `null`.
const NTH_FN: PageFn = PageFn::new(include_str!("find/nth.js"));

/// Every computed style property of the element (`get styles`).
const STYLES_FN: PageFn = PageFn::new(include_str!("find/styles.js"));

/// The box in viewport coordinates of the element's own document.
const BOX_FN: PageFn = PageFn::new(include_str!("find/box.js"));

/// Evaluates `expression` (one of our element finders) into a remote object of `group`.
fn element_in_group(expression: String, group: &str) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        object_group: Some(group.to_string()),
        ..runtime::EvaluateParams::new(expression)
    }
}

/// (name, node) of each node of `tree` with `role` (ASCII case-insensitive), in the tree's
/// order.
fn nodes_of(tree: Tree, role: &str) -> Vec<(String, i64)> {
    tree.nodes
        .into_iter()
        .filter(|n| n.role.eq_ignore_ascii_case(role))
        .filter_map(|n| Some((n.name, n.backend?)))
        .collect()
}

impl Session {
    /// The page URL a reply reports: the tab's, or Chrome's target URL before the pump has one.
    pub(crate) fn origin_of(&self, tab: &Tab) -> String {
        let url = tab.read(|st| st.url.clone());
        if url.is_empty() {
            self.browser()
                .target(tab.target_id())
                .map(|t| t.url)
                .unwrap_or_default()
        } else {
            url
        }
    }

    async fn locate_semantic(
        &self,
        tab: &Tab,
        locator: &Locator,
        exact: bool,
        timeout: Duration,
    ) -> Result<Handle> {
        match locator {
            Locator::Role { role, name } => {
                self.locate_role(tab, role, name.as_deref(), exact, timeout)
                    .await
            }
            Locator::Nth { selector, index } => {
                self.locate_nth(tab, selector, *index, timeout).await
            }
            Locator::Text(t) => {
                self.locate_by(tab, "text", t, exact, locator, timeout)
                    .await
            }
            Locator::Label(t) => {
                self.locate_by(tab, "label", t, exact, locator, timeout)
                    .await
            }
            Locator::Placeholder(t) => {
                self.locate_by(tab, "placeholder", t, exact, locator, timeout)
                    .await
            }
            Locator::Alt(t) => self.locate_by(tab, "alt", t, exact, locator, timeout).await,
            Locator::Title(t) => {
                self.locate_by(tab, "title", t, exact, locator, timeout)
                    .await
            }
            Locator::TestId(t) => {
                self.locate_by(tab, "testid", t, true, locator, timeout)
                    .await
            }
        }
    }

    /// A handle for a page-evaluated element expression (null → not found).
    async fn handle_from(
        &self,
        tab: &Tab,
        reply: runtime::EvaluateReturns,
        selector: String,
        group: String,
    ) -> Result<Handle> {
        if let Some(details) = &reply.exception_details {
            return Err(EngineError::Evaluation(crate::js::exception_text(details)));
        }
        let object_id =
            crate::js::element_object(&reply.result).ok_or_else(|| EngineError::NotFound {
                selector: selector.clone(),
            })?;
        Ok(Handle {
            session: tab.cdp().clone(),
            oopif: false,
            subframe: false,
            object_id,
            group,
            selector,
            from_ref: false,
        })
    }

    async fn locate_by(
        &self,
        tab: &Tab,
        kind: &str,
        text: &str,
        exact: bool,
        locator: &Locator,
        timeout: Duration,
    ) -> Result<Handle> {
        let expression = FIND_FN.call(&[json!(kind), json!(text), json!(exact)]);
        let group = crate::locate::new_group();
        let reply = tab
            .cdp()
            .call_within(element_in_group(expression, &group), timeout)
            .await?;
        self.handle_from(tab, reply, locator.describe(), group)
            .await
            .map_err(|err| match err {
                EngineError::NotFound { .. } => EngineError::NoElementBy {
                    strategy: kind.to_string(),
                    value: text.to_string(),
                },
                other => other,
            })
    }

    async fn locate_nth(
        &self,
        tab: &Tab,
        selector: &str,
        index: i64,
        timeout: Duration,
    ) -> Result<Handle> {
        let all = finder_all_js(selector)?;
        let expression = NTH_FN.call_exprs(&[&all, &index.to_string()]);
        let group = crate::locate::new_group();
        let reply = tab
            .cdp()
            .call_within(element_in_group(expression, &group), timeout)
            .await?;
        if let Some(details) = &reply.exception_details {
            return Err(EngineError::Invalid(format!(
                "Invalid selector '{selector}': {}",
                crate::js::exception_text(details)
            )));
        }
        self.handle_from(tab, reply, selector.to_string(), group)
            .await
    }

    async fn locate_role(
        &self,
        tab: &Tab,
        role: &str,
        name: Option<&str>,
        exact: bool,
        timeout: Duration,
    ) -> Result<Handle> {
        // The in-page walker names and roles nodes as Chrome's tree does (ADR 0018) for a
        // fraction of its cost on a large page; Chrome's tree where the walker cannot answer
        // exactly, and on a tab whose last snapshot read a small tree.
        let last_tree = self.refs.with_tab(tab.target_id(), |t| t.last_tree_nodes);
        let walked = match SnapshotSource::Auto.walks(last_tree) {
            true => match self.watch_world(tab, timeout).await {
                // Text is merged and pruned by the tree's rules (adjacent pieces are one node):
                // that role takes the whole tree.
                Some(world) if role.eq_ignore_ascii_case("StaticText") => {
                    walker::capture(tab.cdp(), world, false, timeout)
                        .await
                        .map(|walk| nodes_of(walk.tree, role))
                }
                Some(world) => walker::nodes_of_role(tab.cdp(), world, role, timeout).await,
                None => None,
            },
            false => None,
        };
        let keyed = walked.is_some();
        // (name, node) of each node with the role, in the tree's order.
        let with_role: Vec<(String, i64)> = match walked {
            Some(found) => found,
            None => {
                // Own reply type: a whole AX tree, of which the tree builder reads a few fields.
                let raw: RawTree = tab
                    .cdp()
                    .call_as(
                        &accessibility::GetFullAxTreeParams::default(),
                        Some(timeout),
                    )
                    .await?;
                nodes_of(Tree::build(raw.nodes), role)
            }
        };
        let matches = |n: &&(String, i64)| match name {
            None => true,
            Some(want) if exact => n.0 == want,
            Some(want) => n.0.to_lowercase().contains(&want.to_lowercase()),
        };
        let Some(found) = with_role.iter().find(matches) else {
            let locator = Locator::Role {
                role: role.to_string(),
                name: name.map(str::to_string),
            };
            if let (Some(want), false) = (name, with_role.is_empty()) {
                let mut seen: Vec<&str> = with_role
                    .iter()
                    .map(|n| n.0.as_str())
                    .filter(|n| !n.is_empty())
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                let seen: Vec<String> = seen
                    .iter()
                    .map(|n| serde_json::to_string(n).unwrap_or_default())
                    .collect();
                let count = with_role.len();
                let have = if count == 1 {
                    "element has"
                } else {
                    "elements have"
                };
                // What the page has, not a caller mistake.
                return Err(EngineError::Page(format!(
                    "{count} {have} role \"{role}\", but none match name \"{want}\". Names seen: {}",
                    seen.join(", ")
                )));
            }
            return Err(EngineError::NotFound {
                selector: locator.describe(),
            });
        };
        let mut backend = found.1;
        if keyed {
            // A walker key: the node's id in Chrome, to resolve it in the page's own world.
            backend = walker::backend_of(tab.cdp(), backend, timeout)
                .await
                .ok_or_else(|| EngineError::NotFound {
                    selector: Locator::Role {
                        role: role.to_string(),
                        name: name.map(str::to_string),
                    }
                    .describe(),
                })?;
        }
        let group = crate::locate::new_group();
        let resolve = dom::ResolveNodeParams {
            backend_node_id: Some(dom::BackendNodeId::new(backend)),
            object_group: Some(group.clone()),
            ..Default::default()
        };
        let resolved = tab.cdp().call_within(resolve, timeout).await?;
        let object_id = resolved
            .object
            .object_id
            .map(String::from)
            .unwrap_or_default();
        Ok(Handle {
            session: tab.cdp().clone(),
            oopif: false,
            subframe: false,
            object_id,
            group,
            selector: role.to_string(),
            from_ref: false,
        })
    }

    /// The element's box: script-measured in its document, or from `DOM.getContentQuads` for a
    /// same-process child frame (whose script coordinates are frame-local).
    pub(crate) async fn box_of(&self, handle: &Handle, timeout: Duration) -> Result<BoundingBox> {
        if handle.subframe
            && let Some(q) = handle.content_quad(timeout).await?
        {
            let xs = [q[0], q[2], q[4], q[6]];
            let ys = [q[1], q[3], q[5], q[7]];
            let (x0, x1) = (
                xs.iter().copied().fold(f64::MAX, f64::min),
                xs.iter().copied().fold(f64::MIN, f64::max),
            );
            let (y0, y1) = (
                ys.iter().copied().fold(f64::MAX, f64::min),
                ys.iter().copied().fold(f64::MIN, f64::max),
            );
            return Ok(BoundingBox {
                x: x0,
                y: y0,
                width: x1 - x0,
                height: y1 - y0,
            });
        }
        let value = handle.call(BOX_FN, &[], timeout).await?;
        serde_json::from_value(value)
            .map_err(|e| EngineError::Chrome(format!("unexpected box reply: {e}")))
    }
}

impl Page<'_> {
    /// Runs `function` on the element `selector` names and returns its value.
    async fn read_element(
        &self,
        command: &str,
        selector: &str,
        function: PageFn,
        args: &[Value],
    ) -> Result<(Value, String)> {
        let (tab, _, timeout) = self.parts();
        // The common case in one renderer call; refs, frames and misses take the handle path.
        let direct = tab
            .guarded(
                command,
                self.session
                    .call_direct(&tab, selector, function, args, timeout),
            )
            .await?;
        if let Some(value) = direct {
            return Ok((value, self.session.origin_of(&tab)));
        }
        let handle = self
            .session
            .locate_on(&tab, command, selector, timeout)
            .await?;
        let value = tab
            .guarded(command, handle.call(function, args, timeout))
            .await;
        handle.release().await;
        Ok((value?, self.session.origin_of(&tab)))
    }

    /// `find <locator> <value> [action]`; then waits for a navigation the action started
    /// (like [`Page::click`]).
    pub async fn find(&self, locator: &Locator, action: &FindAction, exact: bool) -> Result<Found> {
        self.settling(self.find_unsettled(locator, action, exact))
            .await
    }

    async fn find_unsettled(
        &self,
        locator: &Locator,
        action: &FindAction,
        exact: bool,
    ) -> Result<Found> {
        let (tab, deadline, timeout) = self.parts();
        let mut handle = tab
            .guarded(
                "find",
                self.session.locate_semantic(&tab, locator, exact, timeout),
            )
            .await?;
        let described = locator.describe();
        handle.selector = described.clone();
        let outcome = async {
            Ok(match action {
                FindAction::Click => {
                    let mut clicked = self
                        .session
                        .click_handle(&tab, &mut handle, "left", 1, deadline)
                        .await?;
                    clicked.clicked = described;
                    Found::Clicked(clicked)
                }
                FindAction::Fill(value) => {
                    self.session
                        .fill_handle(&tab, &mut handle, value, deadline, timeout)
                        .await?;
                    Found::Filled(Filled { filled: described })
                }
                FindAction::Check => {
                    self.session
                        .set_checked_handle(&tab, &mut handle, true, deadline, timeout)
                        .await?;
                    Found::Checked(Checked { checked: described })
                }
                FindAction::Hover => {
                    self.session
                        .hover_handle(&tab, &mut handle, deadline)
                        .await?;
                    Found::Hovered(Hovered { hovered: described })
                }
                FindAction::Text => {
                    let text = tab
                        .guarded("find", handle.call(TEXT_FN, &[], timeout))
                        .await?;
                    Found::Text(TextOf {
                        text: text.as_str().unwrap_or_default().to_string(),
                        origin: self.session.origin_of(&tab),
                    })
                }
            })
        }
        .await;
        handle.release().await;
        outcome
    }

    /// `is visible <selector>`.
    pub async fn is_visible(&self, selector: &str) -> Result<IsVisible> {
        let (value, origin) = self
            .read_element("is visible", selector, VISIBLE_FN, &[])
            .await?;
        Ok(IsVisible {
            visible: value == Value::Bool(true),
            origin,
        })
    }

    /// `is enabled <selector>`.
    pub async fn is_enabled(&self, selector: &str) -> Result<IsEnabled> {
        let (value, origin) = self
            .read_element("is enabled", selector, ENABLED_FN, &[])
            .await?;
        Ok(IsEnabled {
            enabled: value == Value::Bool(true),
            origin,
        })
    }

    /// `is checked <selector>`.
    pub async fn is_checked(&self, selector: &str) -> Result<IsChecked> {
        let (value, origin) = self
            .read_element("is checked", selector, CHECKED_FN, &[])
            .await?;
        Ok(IsChecked {
            checked: value == Value::Bool(true),
            origin,
        })
    }

    /// `get text <selector>`.
    pub async fn get_text(&self, selector: &str) -> Result<TextOf> {
        let function = TEXT_FN;
        let (value, origin) = self
            .read_element("get text", selector, function, &[])
            .await?;
        Ok(TextOf {
            text: value.as_str().unwrap_or_default().to_string(),
            origin,
        })
    }

    /// `get html <selector>`.
    pub async fn get_html(&self, selector: &str) -> Result<HtmlOf> {
        let function = INNER_HTML_FN;
        let (value, _) = self
            .read_element("get html", selector, function, &[])
            .await?;
        Ok(HtmlOf {
            html: value.as_str().unwrap_or_default().to_string(),
        })
    }

    /// `get value <selector>`.
    pub async fn get_value(&self, selector: &str) -> Result<ValueOf> {
        let function = VALUE_FN;
        let (value, _) = self
            .read_element("get value", selector, function, &[])
            .await?;
        let value = match value {
            Value::String(s) => s,
            Value::Null => String::new(),
            other => other.to_string(),
        };
        Ok(ValueOf { value })
    }

    /// `get attr <selector> <name>`.
    pub async fn get_attribute(&self, selector: &str, name: &str) -> Result<AttributeOf> {
        let function = ATTRIBUTE_FN;
        let (value, origin) = self
            .read_element("get attribute", selector, function, &[json!(name)])
            .await?;
        Ok(AttributeOf {
            value: value.as_str().map(str::to_string),
            origin,
        })
    }

    /// `get count <selector>` (a live ref counts as one).
    pub async fn get_count(&self, selector: &str) -> Result<CountOf> {
        let (tab, _, timeout) = self.parts();
        let count = if ref_name(selector).is_some() {
            let handle = self
                .session
                .locate_on(&tab, "count", selector, timeout)
                .await;
            match handle {
                Ok(handle) => {
                    handle.release().await;
                    1
                }
                Err(EngineError::UnknownRef(_) | EngineError::StaleRef { .. }) => 0,
                Err(other) => return Err(other),
            }
        } else {
            self.session.count_scoped(&tab, selector, timeout).await?
        };
        Ok(CountOf {
            count,
            selector: selector.to_string(),
        })
    }

    /// `get box <selector>`: the element's box in the viewport, in page (top frame) coordinates.
    pub async fn get_box(&self, selector: &str) -> Result<BoundingBox> {
        let (tab, _, timeout) = self.parts();
        let handle = self
            .session
            .locate_on(&tab, "get box", selector, timeout)
            .await?;
        let outcome = tab
            .guarded("get box", self.session.box_of(&handle, timeout))
            .await;
        handle.release().await;
        outcome
    }

    /// `get styles <selector>`.
    pub async fn get_styles(&self, selector: &str) -> Result<StylesOf> {
        let (value, _) = self
            .read_element("styles", selector, STYLES_FN, &[])
            .await?;
        let styles = value
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(StylesOf { styles })
    }
}
