//! `snapshot --delta`: the first snapshot of a tab (per option set and frame) in full, later
//! ones as `unchanged` or as the one block of lines that changed, with the refs whose role or
//! name changed, appeared or went away — upstream 0.41's shape (contract §4.3):
//! `{"kind": "full", "revision", "tree", "refs"}`, `{"kind": "unchanged", "baseRevision",
//! "revision"}`, `{"kind": "delta", "baseRevision", "revision", "changes", "treeChange":
//! {"startLine" (0-based), "deleteCount", "lines"}}`.
//!
//! A new URL, `--full`, or a change touching more than a quarter of the tree's lines gives a
//! full snapshot again (a delta that large saves nothing and is harder to apply).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::RefInfo;

/// One `snapshot --delta` answer; serializes to upstream's `data`: `{"origin", "snapshot"}`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeltaSnapshot {
    /// The page URL.
    pub origin: String,
    /// What changed.
    pub snapshot: SnapshotDelta,
}

/// What a delta snapshot reports.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SnapshotDelta {
    /// The whole tree (first call, new URL, `--full`, or a large change).
    Full {
        /// This snapshot's revision.
        revision: u64,
        /// The tree text.
        tree: String,
        /// Every live ref (keys without `@`).
        refs: BTreeMap<String, RefInfo>,
    },
    /// Nothing changed since `base_revision`.
    Unchanged {
        /// The revision compared with.
        #[serde(rename = "baseRevision")]
        base_revision: u64,
        /// This snapshot's revision.
        revision: u64,
    },
    /// One block of lines changed since `base_revision`.
    Delta {
        /// The revision compared with.
        #[serde(rename = "baseRevision")]
        base_revision: u64,
        /// This snapshot's revision.
        revision: u64,
        /// Refs that appeared, went away or changed role or name.
        changes: Vec<RefChange>,
        /// The lines to replace in the base tree.
        #[serde(rename = "treeChange")]
        tree_change: TreeChange,
    },
}

/// One ref-level change.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RefChange {
    /// `add`, `remove` or `replace`.
    pub op: &'static str,
    /// The ref, `@`-prefixed.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `replace`: the field that changed (`name` or `role`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'static str>,
    /// `replace`: the new value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `add`: the new ref's role.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `add`: the new ref's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Replace `delete_count` lines from `start_line` (0-based) of the base tree with `lines`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TreeChange {
    /// The first changed line, 0-based.
    #[serde(rename = "startLine")]
    pub start_line: usize,
    /// How many base lines go.
    #[serde(rename = "deleteCount")]
    pub delete_count: usize,
    /// The lines that come in their place.
    pub lines: Vec<String>,
}

/// The last delta snapshot of one option set.
#[derive(Clone, Debug)]
struct Base {
    revision: u64,
    url: String,
    tree: String,
    refs: BTreeMap<String, RefInfo>,
}

/// Per tab: the revision counter and the base of each option set.
#[derive(Debug, Default)]
pub(crate) struct DeltaHistory {
    revision: u64,
    bases: HashMap<String, Base>,
}

/// The one block where `old` and `new` differ (common head and tail trimmed).
fn tree_change(old: &str, new: &str) -> TreeChange {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    TreeChange {
        start_line: head,
        delete_count: old.len() - head - tail,
        lines: new[head..new.len() - tail]
            .iter()
            .map(ToString::to_string)
            .collect(),
    }
}

fn ref_changes(old: &BTreeMap<String, RefInfo>, new: &BTreeMap<String, RefInfo>) -> Vec<RefChange> {
    let change = |op, name: &str| RefChange {
        op,
        reference: format!("@{name}"),
        field: None,
        value: None,
        role: None,
        name: None,
    };
    let mut out = Vec::new();
    for (name, info) in new {
        match old.get(name) {
            None => out.push(RefChange {
                role: Some(info.role.clone()),
                name: Some(info.name.clone()),
                ..change("add", name)
            }),
            Some(before) => {
                if before.role != info.role {
                    out.push(RefChange {
                        field: Some("role"),
                        value: Some(info.role.clone()),
                        ..change("replace", name)
                    });
                }
                if before.name != info.name {
                    out.push(RefChange {
                        field: Some("name"),
                        value: Some(info.name.clone()),
                        ..change("replace", name)
                    });
                }
            }
        }
    }
    out.extend(
        old.keys()
            .filter(|name| !new.contains_key(*name))
            .map(|name| change("remove", name)),
    );
    // Ref number order, as snapshots list them.
    let number = |c: &RefChange| c.reference[2..].parse::<u64>().unwrap_or(u64::MAX);
    out.sort_by_key(number);
    out
}

impl DeltaHistory {
    /// Records `tree` as the new base of `key` and says how it differs from the old one.
    pub(super) fn record(
        &mut self,
        key: String,
        url: &str,
        tree: String,
        refs: BTreeMap<String, RefInfo>,
        full: bool,
    ) -> SnapshotDelta {
        self.revision += 1;
        let revision = self.revision;
        let base = Base {
            revision,
            url: url.to_string(),
            tree,
            refs,
        };
        let previous = self.bases.insert(key, base.clone());
        let full_answer = || SnapshotDelta::Full {
            revision,
            tree: base.tree.clone(),
            refs: base.refs.clone(),
        };
        let Some(previous) = previous.filter(|p| !full && p.url == base.url) else {
            return full_answer();
        };
        if previous.tree == base.tree && previous.refs == base.refs {
            return SnapshotDelta::Unchanged {
                base_revision: previous.revision,
                revision,
            };
        }
        let change = tree_change(&previous.tree, &base.tree);
        let size = previous.tree.lines().count().max(base.tree.lines().count());
        if (change.delete_count + change.lines.len()) * 4 > size {
            return full_answer();
        }
        SnapshotDelta::Delta {
            base_revision: previous.revision,
            revision,
            changes: ref_changes(&previous.refs, &base.refs),
            tree_change: change,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(items: &[(&str, &str, &str)]) -> BTreeMap<String, RefInfo> {
        items
            .iter()
            .map(|(r, role, name)| {
                let info = RefInfo {
                    role: role.to_string(),
                    name: name.to_string(),
                };
                (r.to_string(), info)
            })
            .collect()
    }

    #[test]
    fn one_changed_line_in_a_long_tree_is_a_delta_with_a_zero_based_start() {
        let mut h = DeltaHistory::default();
        let old: String = (0..10).map(|i| format!("- line {i}\n")).collect();
        let new = old.replace("- line 5", "- button \"Send\" [ref=e3]");
        let first = h.record("k".into(), "u", old, refs(&[("e3", "button", "Go")]), false);
        assert!(matches!(first, SnapshotDelta::Full { revision: 1, .. }));
        let again = h.record(
            "k".into(),
            "u",
            new.clone(),
            refs(&[("e3", "button", "Send")]),
            false,
        );
        let SnapshotDelta::Delta {
            base_revision,
            revision,
            changes,
            tree_change,
        } = again
        else {
            panic!("expected a delta: {again:?}");
        };
        assert_eq!((base_revision, revision), (1, 2));
        assert_eq!(tree_change.start_line, 5);
        assert_eq!(tree_change.delete_count, 1);
        assert_eq!(tree_change.lines, ["- button \"Send\" [ref=e3]"]);
        assert_eq!(changes.len(), 1);
        assert_eq!((changes[0].op, changes[0].field), ("replace", Some("name")));
        let same = h.record(
            "k".into(),
            "u",
            new,
            refs(&[("e3", "button", "Send")]),
            false,
        );
        assert_eq!(
            same,
            SnapshotDelta::Unchanged {
                base_revision: 2,
                revision: 3
            }
        );
    }

    #[test]
    fn a_new_url_a_large_change_or_full_gives_the_whole_tree() {
        let mut h = DeltaHistory::default();
        h.record("k".into(), "u", "- a\n- b".into(), BTreeMap::new(), false);
        let bigger = h.record(
            "k".into(),
            "u",
            "- a\n- b\n- c".into(),
            BTreeMap::new(),
            false,
        );
        assert!(matches!(bigger, SnapshotDelta::Full { .. }), "{bigger:?}");
        let moved = h.record(
            "k".into(),
            "v",
            "- a\n- b\n- c".into(),
            BTreeMap::new(),
            false,
        );
        assert!(matches!(moved, SnapshotDelta::Full { .. }), "{moved:?}");
        let forced = h.record(
            "k".into(),
            "v",
            "- a\n- b\n- c".into(),
            BTreeMap::new(),
            true,
        );
        assert!(matches!(forced, SnapshotDelta::Full { revision: 4, .. }));
        let other_options = h.record("j".into(), "v", "- a".into(), BTreeMap::new(), false);
        assert!(matches!(other_options, SnapshotDelta::Full { .. }));
    }
}
