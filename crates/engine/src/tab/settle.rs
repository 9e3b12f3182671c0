//! When a navigation is over: one pure reading of a [`TabState`] shared by `open`, `back`,
//! `forward`, `reload`, `wait --load` and the wait after an action that navigated
//! (docs/adr/0016-navigation-settling.md).
//!
//! A command takes a [`NavigationMark`] (the tab's counters) before it starts or causes a
//! navigation, then waits until [`progress`] says the navigation it is following is over. It
//! follows the main frame's *newest* navigation, not the loader it started: a client redirect
//! (`location.replace` while the page parses, a navigation from `onload`, a `<meta refresh>` of
//! 0 s) replaces that loader, and the one that replaced it is the page the tab shows.

use super::TabState;

/// The tab's navigation counters before a command started or caused a navigation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NavigationMark {
    starts: u64,
    documents: u64,
    same_document: u64,
}

impl NavigationMark {
    /// The counters of `state` now.
    pub(crate) fn of(state: &TabState) -> NavigationMark {
        NavigationMark {
            starts: state.navigation_starts,
            documents: state.documents,
            same_document: state.same_document_navigations,
        }
    }
}

/// How far into its life a new document must be for the wait to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Milestone {
    /// `DOMContentLoaded` fired.
    DomContentLoaded,
    /// `load` fired and the frame stopped loading (a navigation scheduled by `load` is
    /// reported between the two).
    Load,
    /// Chrome's `networkIdle` lifecycle event (no request for 500 ms).
    NetworkIdle,
}

impl Milestone {
    /// The Chrome lifecycle event it corresponds to.
    fn lifecycle(self) -> &'static str {
        match self {
            Milestone::DomContentLoaded => "DOMContentLoaded",
            Milestone::Load => "load",
            Milestone::NetworkIdle => "networkIdle",
        }
    }
}

/// Where the navigation followed since a mark stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// No main-frame navigation started since the mark.
    NotStarted,
    /// A navigation is pending (started, or scheduled to start now) or the newest document has
    /// not reached the milestone.
    Underway,
    /// The newest document reached the milestone.
    Reached,
    /// The newest navigation since the mark was a same-document one (fragment, History API) and
    /// it completed.
    SameDocument,
    /// Navigations started but none committed and none is pending: a 204 or 205, a download,
    /// a failed, cancelled or aborted navigation. The old document stays.
    NoDocument,
}

impl Progress {
    /// The wait is over (something started and nothing is left to wait for).
    pub(crate) fn is_over(self) -> bool {
        matches!(
            self,
            Progress::Reached | Progress::SameDocument | Progress::NoDocument
        )
    }
}

/// Where the navigation followed since `mark` stands in `state`, for a wait until `milestone`.
pub(crate) fn progress(state: &TabState, mark: &NavigationMark, milestone: Milestone) -> Progress {
    let committed = state.documents > mark.documents;
    let started = state.navigation_starts > mark.starts
        || committed
        || state.same_document_navigations > mark.same_document;
    if !started {
        return Progress::NotStarted;
    }
    if state.pending.is_some() || state.scheduled {
        return Progress::Underway;
    }
    if committed {
        return if reached(state, milestone) {
            Progress::Reached
        } else {
            Progress::Underway
        };
    }
    if state.same_document_navigations > mark.same_document {
        return Progress::SameDocument;
    }
    if state.loading {
        Progress::Underway
    } else {
        Progress::NoDocument
    }
}

/// Whether the current document reached `milestone` with no navigation pending: `wait --load`,
/// which follows whatever the page does rather than a navigation of its own.
pub(crate) fn settled(state: &TabState, milestone: Milestone) -> bool {
    state.pending.is_none() && !state.scheduled && reached(state, milestone)
}

/// Whether the current document reached `milestone`.
fn reached(state: &TabState, milestone: Milestone) -> bool {
    let seen = state.has_lifecycle(&state.loader_id, milestone.lifecycle());
    match milestone {
        Milestone::Load => seen && !state.loading,
        _ => seen,
    }
}
