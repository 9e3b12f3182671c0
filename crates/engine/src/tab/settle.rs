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
    /// Committed: the tab shows the new document (its URL, its history entry).
    Commit,
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
    fn lifecycle(self) -> Option<&'static str> {
        match self {
            Milestone::Commit => None,
            Milestone::DomContentLoaded => Some("DOMContentLoaded"),
            Milestone::Load => Some("load"),
            Milestone::NetworkIdle => Some("networkIdle"),
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
    let Some(name) = milestone.lifecycle() else {
        return true;
    };
    let seen = state.has_lifecycle(&state.loader_id, name);
    match milestone {
        Milestone::Load => seen && !state.loading,
        _ => seen,
    }
}

#[cfg(test)]
mod tests {
    //! The settle predicate on the events Chrome really sends: every navigation pattern of the
    //! corpus (the fixture site's `/nav/` pages) recorded from the headless shell and from full
    //! Chromium by `benches/probes/navigation_traces.mjs` into `traces/`, replayed through the
    //! tab's reducer. Each trace says what the tab must show once the wait is over.

    use abx_cdp::Event;
    use serde_json::Value;

    use super::super::reduce::{Context, TabEvent, reduce};
    use super::*;

    /// What one replay ended with.
    #[derive(Debug)]
    struct Verdict {
        /// The progress when the wait ended, `None` if it never did.
        over: Option<Progress>,
        /// The tab's URL then (or at the end).
        url: String,
        /// Chrome refused the navigation in its reply.
        refused: Option<String>,
    }

    fn replay(lines: &[Value]) -> Verdict {
        let header = &lines[0];
        let target = header["target"].as_str().expect("target").to_string();
        let ctx = Context {
            target_id: &target,
            auto_dialog: true,
            now_ms: 0,
        };
        let mut state = TabState::default();
        if let Some(url) = header["before"].as_str() {
            state.url = url.to_string();
        }
        let mut mark = None;
        // A `Page.navigate` step waits from its reply on; the others from their mark.
        let awaits_reply = lines.iter().any(|l| l.get("reply").is_some());
        let mut waiting = !awaits_reply;
        for line in &lines[1..] {
            if line.get("mark").is_some() {
                mark = Some(NavigationMark::of(&state));
                continue;
            }
            let Some(mark) = mark else { continue };
            if let Some(reply) = line.get("reply") {
                if let Some(error) = reply["errorText"].as_str() {
                    return Verdict {
                        over: None,
                        url: state.url,
                        refused: Some(error.to_string()),
                    };
                }
                waiting = true;
            } else {
                let text = line.to_string();
                let event = Event::from_message(text).expect("a recorded event");
                if let Some(event) = TabEvent::from_cdp(&event, &mut Vec::new()) {
                    reduce(&mut state, event, &ctx);
                }
            }
            if waiting {
                let now = progress(&state, &mark, Milestone::Load);
                if now.is_over() {
                    return Verdict {
                        over: Some(now),
                        url: state.url,
                        refused: None,
                    };
                }
            }
        }
        Verdict {
            over: None,
            url: state.url,
            refused: None,
        }
    }

    #[test]
    fn every_recorded_navigation_pattern_settles_on_the_page_the_tab_shows() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tab/traces");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the traces directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        assert!(files.len() >= 80, "only {} traces in {dir:?}", files.len());
        let mut failures = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a trace");
            let lines: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            let expect = &lines[0]["expect"];
            let (want_url, want) = (
                expect["url"].as_str().unwrap_or_default(),
                expect["outcome"].as_str().unwrap_or_default(),
            );
            let verdict = replay(&lines);
            let ok = match want {
                "error" => verdict.refused.is_some(),
                "never" => verdict.over.is_none() && verdict.refused.is_none(),
                outcome => {
                    verdict.over.is_some_and(|p| format!("{p:?}") == outcome)
                        && verdict.url == want_url
                }
            };
            if !ok {
                let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
                failures.push(format!(
                    "{name}: wanted {want} at {want_url}, got {verdict:?}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
