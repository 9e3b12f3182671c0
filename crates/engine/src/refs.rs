//! Snapshot refs (`@e1`, `@e2`, …): which DOM node each ref names, per tab.
//!
//! Filled by the snapshot module; resolved by actions. A ref is tied to the node's
//! `backendNodeId` and the document (loader) it was taken in, so a ref from an older document
//! fails loudly instead of acting on another element.

use std::collections::HashMap;
use std::sync::Mutex;

/// The refs of every tab of a session, keyed by target id.
#[derive(Debug, Default)]
pub struct RefStore {
    tabs: Mutex<HashMap<String, TabRefs>>,
}

/// The refs of one tab.
#[derive(Clone, Debug, Default)]
pub struct TabRefs {
    /// Next ref number (never reused within the session).
    pub next: u64,
}

impl RefStore {
    /// Runs `f` on the refs of `target_id`.
    pub fn with<T>(&self, target_id: &str, f: impl FnOnce(&mut TabRefs) -> T) -> T {
        let mut tabs = self.tabs.lock().unwrap_or_else(|p| p.into_inner());
        f(tabs.entry(target_id.to_string()).or_default())
    }
}
