//! The accessibility tree as upstream prints it: building the tree from `getFullAXTree`'s flat
//! node array, choosing which nodes get refs, and rendering the line grammar (contract §4.1–§4.2).
//!
//! Everything here is pure (no CDP), so the rules are unit-tested against hand-made node arrays.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;

/// Roles that always get a ref.
pub(crate) const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "treeitem",
    "Iframe",
];

/// Roles that get a ref when they have a name.
pub(crate) const CONTENT_ROLES: &[&str] = &[
    "heading",
    "cell",
    "gridcell",
    "columnheader",
    "rowheader",
    "listitem",
    "article",
    "region",
    "main",
    "navigation",
];

/// `getFullAXTree`'s reply, decoded straight from the transport's buffer.
#[derive(Deserialize)]
pub(crate) struct RawTree {
    #[serde(default)]
    pub(crate) nodes: Vec<RawNode>,
}

/// One `Accessibility.AXNode`, only the fields the snapshot reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNode {
    node_id: String,
    #[serde(default)]
    ignored: bool,
    #[serde(default)]
    role: Option<RawValue>,
    #[serde(default)]
    name: Option<RawValue>,
    #[serde(default)]
    value: Option<RawValue>,
    #[serde(default)]
    properties: Vec<RawProperty>,
    #[serde(default)]
    child_ids: Vec<String>,
    #[serde(default, rename = "backendDOMNodeId")]
    backend_dom_node_id: Option<i64>,
}

#[derive(Deserialize, Default)]
struct RawValue {
    #[serde(default)]
    value: Option<Value>,
}

#[derive(Deserialize)]
struct RawProperty {
    name: String,
    #[serde(default)]
    value: RawValue,
}

#[cfg(test)]
impl RawNode {
    /// A node in the shape Chrome reports it (the walker's nodes were built this way before
    /// [`Node::walked`]; kept as the reference that one is tested against). A `value` entry
    /// among `properties` is the node's value (a combobox's), as Chrome keeps it beside the
    /// properties.
    fn from_walker(
        node_id: String,
        ignored: bool,
        role: String,
        name: String,
        mut properties: Vec<(&'static str, Value)>,
        child_ids: Vec<String>,
        backend: Option<i64>,
    ) -> RawNode {
        let text = |v: String| {
            Some(RawValue {
                value: Some(Value::String(v)),
            })
        };
        let value = properties
            .iter()
            .position(|(name, _)| *name == "value")
            .map(|i| RawValue {
                value: Some(properties.remove(i).1),
            });
        RawNode {
            node_id,
            ignored,
            role: text(role),
            name: text(name),
            value,
            properties: properties
                .into_iter()
                .map(|(name, value)| RawProperty {
                    name: name.to_string(),
                    value: RawValue { value: Some(value) },
                })
                .collect(),
            child_ids,
            backend_dom_node_id: backend,
        }
    }
}

impl RawValue {
    /// Upstream's reading of an AX value as text: strings, numbers and booleans.
    fn text(&self) -> String {
        match &self.value {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            _ => String::new(),
        }
    }

    /// The value suffix source: a non-empty string or a number.
    fn value_text(&self) -> Option<String> {
        match &self.value {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// What the cursor-interactive scan found about one element.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CursorInfo {
    /// `clickable`, `editable` or `focusable`.
    pub(crate) kind: &'static str,
    /// `cursor:pointer`, `onclick`, `tabindex`, `contenteditable`, in that order.
    pub(crate) hints: Vec<&'static str>,
    /// The element's text (aria-label, title or text content, whitespace collapsed, ≤ 100 chars).
    pub(crate) text: String,
    /// A `display:none` radio/checkbox inside the element: its role and checked state.
    pub(crate) hidden_input: Option<(&'static str, String)>,
}

/// One node of the built tree. A node whose `role` is empty is transparent (ignored by Chrome, an
/// inline text box, or text merged into a sibling): it prints nothing, its children print in place.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    pub(crate) role: String,
    pub(crate) name: String,
    level: Option<i64>,
    checked: Option<String>,
    expanded: Option<bool>,
    selected: Option<bool>,
    disabled: Option<bool>,
    required: Option<bool>,
    value: Option<String>,
    /// The AX `url` property (links), printed with `-u`.
    pub(crate) url: Option<String>,
    pub(crate) backend: Option<i64>,
    pub(crate) children: Vec<usize>,
    pub(crate) parent: Option<usize>,
    /// The ref, once assigned (`e3`).
    pub(crate) reference: Option<String>,
    /// Cursor hints shown on the line (ref'd cursor-interactive nodes only).
    pub(crate) cursor: Option<CursorInfo>,
}

impl Node {
    /// A node of the in-page walker ([`super::walker`]), as [`Tree::build`] would make it from
    /// the same node in Chrome's shape: `prop` is the one property the walker reports for the
    /// role (a heading's level, a checkbox's checked state, a link's URL, an option's
    /// selection, a combobox's value, which is also closed).
    pub(crate) fn walked(
        role: String,
        name: String,
        ignored: bool,
        prop: Value,
        backend: Option<i64>,
    ) -> Node {
        if ignored && role != "RootWebArea" {
            return Node::default();
        }
        let mut node = Node {
            name,
            backend,
            ..Node::default()
        };
        match role.as_str() {
            "heading" | "listitem" => node.level = prop.as_i64(),
            "checkbox" | "radio" => {
                node.checked = Some(match prop {
                    Value::String(s) => s,
                    Value::Bool(b) => b.to_string(),
                    _ => "false".to_string(),
                });
            }
            "link" => node.url = prop.as_str().map(str::to_string),
            "option" => node.selected = prop.as_bool(),
            "combobox" => {
                node.expanded = Some(false);
                node.value = (RawValue { value: Some(prop) }).value_text();
            }
            _ => {}
        }
        node.role = role;
        node
    }

    fn clear(&mut self) {
        *self = Node {
            parent: self.parent,
            ..Node::default()
        };
    }
}

/// The tree of one frame's document.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    /// Nodes that are nobody's child, in array order (the document root first).
    pub(crate) roots: Vec<usize>,
}

/// How to render.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Render {
    pub(crate) interactive: bool,
    pub(crate) max_depth: Option<usize>,
    pub(crate) urls: bool,
}

impl Tree {
    /// Builds the tree from Chrome's flat array (upstream's rules: ignored nodes other than the
    /// root and inline text boxes are transparent; consecutive `StaticText` siblings merge into
    /// the first; a lone `StaticText` child repeating its parent's name is dropped).
    pub(crate) fn build(raw: Vec<RawNode>) -> Tree {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(raw.len());
        for (i, node) in raw.iter().enumerate() {
            index.insert(node.node_id.as_str(), i);
        }
        let mut nodes: Vec<Node> = Vec::with_capacity(raw.len());
        for node in &raw {
            let role = node.role.as_ref().map(RawValue::text).unwrap_or_default();
            if (node.ignored && role != "RootWebArea") || role == "InlineTextBox" {
                nodes.push(Node::default());
                continue;
            }
            let mut out = Node {
                name: node.name.as_ref().map(RawValue::text).unwrap_or_default(),
                value: node.value.as_ref().and_then(RawValue::value_text),
                backend: node.backend_dom_node_id,
                role,
                ..Node::default()
            };
            for prop in &node.properties {
                let v = &prop.value.value;
                match prop.name.as_str() {
                    "level" => out.level = v.as_ref().and_then(Value::as_i64),
                    "checked" => {
                        out.checked = v.as_ref().map(|v| match v {
                            Value::String(s) => s.clone(),
                            Value::Bool(b) => b.to_string(),
                            _ => "false".to_string(),
                        });
                    }
                    "expanded" => out.expanded = v.as_ref().and_then(Value::as_bool),
                    "selected" => out.selected = v.as_ref().and_then(Value::as_bool),
                    "disabled" => out.disabled = v.as_ref().and_then(Value::as_bool),
                    "required" => out.required = v.as_ref().and_then(Value::as_bool),
                    "url" => out.url = v.as_ref().and_then(Value::as_str).map(str::to_string),
                    _ => {}
                }
            }
            nodes.push(out);
        }
        let children: Vec<Vec<usize>> = raw
            .iter()
            .map(|node| {
                node.child_ids
                    .iter()
                    .filter_map(|child| index.get(child.as_str()).copied())
                    .collect()
            })
            .collect();
        drop(index);
        Tree::link(nodes, children)
    }

    /// The tree of `nodes` (in getFullAXTree's order) with each one's `children` (indices into
    /// `nodes`), after upstream's rules (see [`Tree::build`]).
    pub(crate) fn link(mut nodes: Vec<Node>, children: Vec<Vec<usize>>) -> Tree {
        for (i, kids) in children.into_iter().enumerate() {
            for &c in &kids {
                nodes[c].parent = Some(i);
            }
            nodes[i].children = kids;
        }

        for i in 0..nodes.len() {
            if nodes[i].role.is_empty() || nodes[i].children.is_empty() {
                continue;
            }
            let children = nodes[i].children.clone();
            let mut start = 0;
            while start < children.len() {
                if nodes[children[start]].role != "StaticText" {
                    start += 1;
                    continue;
                }
                let mut end = start + 1;
                while end < children.len() && nodes[children[end]].role == "StaticText" {
                    end += 1;
                }
                if end > start + 1 {
                    let merged: String = children[start..end]
                        .iter()
                        .map(|&c| nodes[c].name.as_str())
                        .collect();
                    nodes[children[start]].name = merged;
                    for &c in &children[start + 1..end] {
                        nodes[c].clear();
                    }
                }
                start = end;
            }
            if children.len() == 1
                && nodes[children[0]].role == "StaticText"
                && nodes[i].name == nodes[children[0]].name
            {
                nodes[children[0]].clear();
            }
        }

        let mut is_child = vec![false; nodes.len()];
        for node in &nodes {
            for &c in &node.children {
                is_child[c] = true;
            }
        }
        let roots = (0..nodes.len()).filter(|&i| !is_child[i]).collect();
        Tree { nodes, roots }
    }

    /// Labels and generics wrapping a `display:none` radio/checkbox take that input's role and
    /// checked state (their own name, or the element's text when they have none).
    pub(crate) fn promote_hidden_inputs(&mut self, cursor: &HashMap<i64, CursorInfo>) {
        for node in &mut self.nodes {
            if node.role != "LabelText" && node.role != "generic" {
                continue;
            }
            let Some(info) = node.backend.and_then(|b| cursor.get(&b)) else {
                continue;
            };
            if let Some((role, checked)) = &info.hidden_input {
                node.role = (*role).to_string();
                if node.name.is_empty() && !info.text.is_empty() {
                    node.name = info.text.clone();
                }
                node.checked = Some(checked.clone());
            }
        }
    }

    /// The nodes that get a ref, in array order (which is what makes numbering match upstream).
    pub(crate) fn ref_candidates(&self, cursor: &HashMap<i64, CursorInfo>) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| {
                let role = node.role.as_str();
                INTERACTIVE_ROLES.contains(&role)
                    || (CONTENT_ROLES.contains(&role) && !node.name.is_empty())
                    || node.backend.is_some_and(|b| cursor.contains_key(&b))
            })
            .filter(|(_, node)| node.backend.is_some())
            .map(|(i, _)| i)
            .collect()
    }

    /// Roots of the part of the tree whose DOM nodes are in `ids` (a `-s` subtree): nodes in the
    /// set with no AX ancestor in the set. (Upstream looks at the parent only, so the options of
    /// a `<select>` — whose popup lives in the select's user-agent shadow tree, outside the DOM
    /// subtree — print a second time as extra roots; looking at every ancestor fixes that.)
    pub(crate) fn subtree_roots(&self, ids: &HashSet<i64>) -> Vec<usize> {
        let inside: Vec<bool> = self
            .nodes
            .iter()
            .map(|n| n.backend.is_some_and(|b| ids.contains(&b)))
            .collect();
        let has_inside_ancestor = |mut i: usize| {
            // Bounded by the node count: a malformed tree with a cycle cannot loop forever.
            for _ in 0..self.nodes.len() {
                match self.nodes[i].parent {
                    Some(p) if inside[p] => return true,
                    Some(p) => i = p,
                    None => return false,
                }
            }
            false
        };
        (0..self.nodes.len())
            .filter(|&i| inside[i] && !has_inside_ancestor(i))
            .collect()
    }

    /// Renders the given roots.
    pub(crate) fn render(&self, roots: &[usize], options: Render) -> String {
        let mut out = String::new();
        for &root in roots {
            self.render_node(root, 0, &mut out, options);
        }
        out
    }

    fn render_children(&self, idx: usize, indent: usize, out: &mut String, options: Render) {
        for &child in &self.nodes[idx].children {
            self.render_node(child, indent, out, options);
        }
    }

    fn render_node(&self, idx: usize, indent: usize, out: &mut String, options: Render) {
        let node = &self.nodes[idx];
        let transparent = node.role.is_empty()
            || (node.role == "generic" && node.reference.is_none() && node.children.len() <= 1)
            || (node.role == "StaticText" && normalize_name(&node.name).trim().is_empty());
        if transparent {
            return self.render_children(idx, indent, out, options);
        }
        if options.max_depth.is_some_and(|max| indent > max) {
            return;
        }
        if node.role == "RootWebArea" || node.role == "WebArea" {
            return self.render_children(idx, indent, out, options);
        }
        if options.interactive && node.reference.is_none() {
            return self.render_children(idx, indent, out, options);
        }
        out.push_str(&"  ".repeat(indent));
        out.push_str("- ");
        out.push_str(&node.role);
        // Interactive mode hides the text children, so a cursor-interactive node without an
        // accessible name shows its own text instead.
        let display = match (&node.cursor, options.interactive) {
            (Some(info), true) if node.name.is_empty() => info.text.as_str(),
            _ => node.name.as_str(),
        };
        if !display.is_empty() {
            out.push(' ');
            out.push_str(&serde_json::to_string(&normalize_name(display)).unwrap_or_default());
        }
        let mut attrs: Vec<String> = Vec::new();
        if let Some(level) = node.level {
            attrs.push(format!("level={level}"));
        }
        if let Some(checked) = &node.checked {
            attrs.push(format!("checked={checked}"));
        }
        if let Some(expanded) = node.expanded {
            attrs.push(format!("expanded={expanded}"));
        }
        if node.selected == Some(true) {
            attrs.push("selected".into());
        }
        if node.disabled == Some(true) {
            attrs.push("disabled".into());
        }
        if node.required == Some(true) {
            attrs.push("required".into());
        }
        if let Some(reference) = &node.reference {
            attrs.push(format!("ref={reference}"));
        }
        if options.urls
            && node.role == "link"
            && node.reference.is_some()
            && let Some(url) = node.url.as_ref().filter(|u| !u.is_empty())
        {
            attrs.push(format!("url={url}"));
        }
        if !attrs.is_empty() {
            out.push_str(" [");
            out.push_str(&attrs.join(", "));
            out.push(']');
        }
        if let Some(info) = &node.cursor {
            out.push(' ');
            out.push_str(info.kind);
            out.push_str(" [");
            out.push_str(&info.hints.join(", "));
            out.push(']');
        }
        if let Some(value) = &node.value
            && !value.is_empty()
            && *value != node.name
        {
            out.push_str(": ");
            out.push_str(value);
        }
        out.push('\n');
        self.render_children(idx, indent + 1, out, options);
    }
}

/// Zero-width characters vanish and no-break spaces become spaces (names stay one readable line
/// without losing word boundaries).
pub(crate) fn normalize_name(name: &str) -> String {
    name.chars()
        .filter_map(|c| match c {
            '\u{00A0}' => Some(' '),
            '\u{FEFF}' | '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' => None,
            c => Some(c),
        })
        .collect()
}

/// `-c` as 0.41.2 does it: keeps lines with a ref, a value (`: `) or visible text (a quoted
/// name), and their ancestors; drops structure that carries none of these (e.g. an empty
/// paragraph).
///
/// Upstream walks back from every such line and keeps each earlier line that is less indented,
/// up to the nearest line at the top level: not only the line's ancestors but their earlier
/// siblings' less indented lines too. One pass from the end gives the same lines in linear time
/// (upstream's walk is quadratic on a long list: 0.5 s on 3,000 rows): a line is kept when a
/// later line that carries something, before the next top-level line, is more indented.
pub(crate) fn compact(tree: &str, interactive: bool) -> String {
    let lines: Vec<&str> = tree.lines().collect();
    let mut keep = vec![false; lines.len()];
    // The deepest indent among the lines after this one that carry something, back to the
    // nearest top-level line.
    let mut deepest: Option<usize> = None;
    for (i, line) in lines.iter().enumerate().rev() {
        let indent = indent_of(line);
        if deepest.is_some_and(|d| indent < d) {
            keep[i] = true;
        }
        if carries_something(line) {
            keep[i] = true;
            deepest = Some(deepest.map_or(indent, |d| d.max(indent)));
        }
        if indent == 0 {
            deepest = None;
        }
    }
    let kept: Vec<&str> = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    let out = kept.join("\n");
    if out.trim().is_empty() && interactive {
        return "(no interactive elements)".to_string();
    }
    out
}

/// A ref, a value (`: `) or visible text (a quoted name).
fn carries_something(line: &str) -> bool {
    line.contains("ref=") || line.contains(": ") || line.contains('"')
}

fn indent_of(line: &str) -> usize {
    (line.len() - line.trim_start().len()) / 2
}

/// Inserts a child frame's snapshot right after the line carrying `[ref=<reference>]`, indented
/// one level deeper than that line. Returns false when the line is not in `output` (cut by `-d`
/// or outside `-s`).
pub(crate) fn insert_frame(output: &mut String, reference: &str, child: &str) -> bool {
    let marker = format!("[ref={reference}]");
    let Some(pos) = output.find(&marker) else {
        return false;
    };
    let line_end = output[pos..].find('\n').map_or(output.len(), |i| pos + i);
    let line_start = output[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &output[line_start..line_end];
    let prefix = " ".repeat(line.len() - line.trim_start().len() + 2);
    let indented: String = child.lines().map(|l| format!("{prefix}{l}\n")).collect();
    if line_end == output.len() {
        output.push('\n');
        output.push_str(&indented);
    } else {
        output.insert_str(line_end + 1, &indented);
    }
    true
}

#[cfg(test)]
mod tests {
    /// Every role and property the walker reports makes the same node through
    /// [`Node::walked`] as through Chrome's shape and [`Tree::build`].
    #[test]
    fn walked_nodes_are_the_nodes_chromes_shape_builds() {
        use serde_json::json;
        let cases: Vec<(&str, &str, bool, Value)> = vec![
            ("RootWebArea", "Title", false, Value::Null),
            ("heading", "Head", false, json!(2)),
            ("listitem", "", false, json!(1)),
            ("checkbox", "Box", false, json!("true")),
            ("radio", "Dot", false, json!("false")),
            ("radio", "Dot", false, Value::Null),
            ("link", "Go", false, json!("http://x/y")),
            ("option", "One", false, json!(true)),
            ("combobox", "Pick", false, json!("One")),
            ("combobox", "Pick", false, json!("")),
            ("StaticText", "text", false, Value::Null),
            ("", "", true, Value::Null),
            ("generic", "", false, Value::Null),
        ];
        for (role, name, ignored, prop) in cases {
            let properties = match role {
                "heading" | "listitem" => vec![("level", prop.clone())],
                "checkbox" | "radio" => vec![("checked", prop.clone())],
                "link" => vec![("url", prop.clone())],
                "option" => vec![("selected", prop.clone())],
                "combobox" => vec![("expanded", Value::Bool(false)), ("value", prop.clone())],
                _ => Vec::new(),
            };
            let raw = RawNode::from_walker(
                "0".into(),
                ignored,
                role.into(),
                name.into(),
                properties,
                Vec::new(),
                Some(-5),
            );
            let reference = Tree::build(vec![raw]).nodes.remove(0);
            let walked = Node::walked(role.into(), name.into(), ignored, prop, Some(-5));
            assert_eq!(
                format!("{walked:?}"),
                format!("{reference:?}"),
                "{role} {name:?}"
            );
        }
    }

    use super::*;
    use serde_json::json;

    fn tree(nodes: Value) -> Tree {
        let raw: RawTree = serde_json::from_value(json!({ "nodes": nodes })).expect("valid nodes");
        Tree::build(raw.nodes)
    }

    fn node(id: &str, role: &str, name: &str, children: &[&str], backend: i64) -> Value {
        json!({"nodeId": id, "ignored": false, "role": {"type": "role", "value": role},
               "name": {"type": "computedString", "value": name}, "childIds": children,
               "backendDOMNodeId": backend})
    }

    #[test]
    fn static_text_merges_and_duplicate_names_drop() {
        let mut t = tree(json!([
            node("1", "RootWebArea", "Doc", &["2", "5"], 1),
            node("2", "paragraph", "", &["3", "4"], 2),
            node("3", "StaticText", "Hello ", &[], 3),
            node("4", "StaticText", "world", &[], 4),
            node("5", "button", "Go", &["6"], 5),
            node("6", "StaticText", "Go", &[], 6),
        ]));
        let refs = t.ref_candidates(&HashMap::new());
        assert_eq!(refs, [4]);
        t.nodes[4].reference = Some("e1".into());
        let text = t.render(&t.roots.clone(), Render::default());
        assert_eq!(
            text,
            "- paragraph\n  - StaticText \"Hello world\"\n- button \"Go\" [ref=e1]\n"
        );
    }

    #[test]
    fn attributes_print_in_upstream_order_and_value_suffix_differs_from_name() {
        let mut n = node("2", "checkbox", "Agree", &[], 2);
        n["properties"] = json!([
            {"name": "required", "value": {"type": "boolean", "value": true}},
            {"name": "checked", "value": {"type": "tristate", "value": "mixed"}},
            {"name": "disabled", "value": {"type": "boolean", "value": true}},
            {"name": "level", "value": {"type": "integer", "value": 2}},
        ]);
        let mut c = node("3", "combobox", "", &[], 3);
        c["value"] = json!({"type": "string", "value": "Red"});
        c["properties"] =
            json!([{"name": "expanded", "value": {"type": "boolean", "value": false}}]);
        let mut t = tree(json!([node("1", "RootWebArea", "", &["2", "3"], 1), n, c]));
        t.nodes[1].reference = Some("e1".into());
        t.nodes[2].reference = Some("e2".into());
        let text = t.render(&t.roots.clone(), Render::default());
        assert_eq!(
            text,
            "- checkbox \"Agree\" [level=2, checked=mixed, disabled, required, ref=e1]\n- combobox [expanded=false, ref=e2]: Red\n"
        );
    }

    #[test]
    fn depth_counts_printed_ancestors_only() {
        let t = tree(json!([
            node("1", "RootWebArea", "", &["2"], 1),
            node("2", "list", "", &["3"], 2),
            node("3", "listitem", "", &["4"], 3),
            node("4", "StaticText", "x", &[], 4),
        ]));
        let roots = t.roots.clone();
        let d0 = t.render(
            &roots,
            Render {
                max_depth: Some(0),
                ..Render::default()
            },
        );
        assert_eq!(d0, "- list\n");
        let d1 = t.render(
            &roots,
            Render {
                max_depth: Some(1),
                ..Render::default()
            },
        );
        assert_eq!(d1, "- list\n  - listitem\n");
    }

    #[test]
    fn compact_keeps_the_lines_upstreams_quadratic_walk_keeps() {
        // Upstream's walk, as 0.41.2 writes it.
        fn walk(tree: &str) -> Vec<bool> {
            let lines: Vec<&str> = tree.lines().collect();
            let mut keep = vec![false; lines.len()];
            for (i, line) in lines.iter().enumerate() {
                if !carries_something(line) {
                    continue;
                }
                keep[i] = true;
                let mine = indent_of(line);
                for j in (0..i).rev() {
                    let theirs = indent_of(lines[j]);
                    if theirs < mine {
                        keep[j] = true;
                        if theirs == 0 {
                            break;
                        }
                    }
                }
            }
            keep
        }
        let mut seed = 0x2545_f491_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for _ in 0..500 {
            let mut tree = String::new();
            let mut depth = 0u64;
            for _ in 0..(1 + next(40)) {
                depth = match next(3) {
                    0 => depth + 1,
                    1 => depth.saturating_sub(1 + next(3)),
                    _ => depth,
                };
                let body = [
                    "- generic",
                    "- link \"a\" [ref=e1]",
                    "- paragraph",
                    "- textbox: x",
                    "- list",
                ];
                tree.push_str(&"  ".repeat(depth as usize));
                tree.push_str(body[next(5) as usize]);
                tree.push('\n');
            }
            let expected: Vec<&str> = tree
                .lines()
                .zip(walk(&tree))
                .filter(|(_, k)| *k)
                .map(|(l, _)| l)
                .collect();
            assert_eq!(compact(&tree, false), expected.join("\n"), "{tree}");
        }
    }

    #[test]
    fn compact_keeps_refs_values_and_their_ancestors() {
        let text = "- navigation\n  - link \"a\" [ref=e1]\n- paragraph\n  - StaticText \"x\"\n- paragraph\n- list\n  - listitem\n- combobox: Red\n";
        assert_eq!(
            compact(text, false),
            "- navigation\n  - link \"a\" [ref=e1]\n- paragraph\n  - StaticText \"x\"\n- combobox: Red"
        );
        assert_eq!(compact("- paragraph\n", true), "(no interactive elements)");
    }

    #[test]
    fn frame_text_goes_under_its_iframe_line() {
        let mut out = "- paragraph\n- Iframe \"f\" [ref=e3]\n- button [ref=e4]\n".to_string();
        assert!(insert_frame(&mut out, "e3", "- button \"in\" [ref=e5]"));
        assert_eq!(
            out,
            "- paragraph\n- Iframe \"f\" [ref=e3]\n  - button \"in\" [ref=e5]\n- button [ref=e4]\n"
        );
        assert!(!insert_frame(&mut out, "e9", "x"));
    }

    #[test]
    fn names_lose_zero_width_chars_and_keep_word_boundaries() {
        assert_eq!(normalize_name("a\u{00A0}b\u{200B}c"), "a bc");
    }
}
