//! `snapshot [-i] [-c] [-d <n>] [-s <sel>] [-u] [-C] [--delta]`: the accessibility tree with
//! refs (`@e1`) that later commands accept as selectors.

use abx_engine::{SnapshotOptions, SnapshotSource};

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "snapshot";

/// `{"interactive"?, "compact"?, "cursor"?, "urls"?, "delta"?, "full"?, "maxDepth"?,
/// "selector"?}` (flags only when given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRequest {
    /// `-i`: only nodes with refs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interactive: bool,
    /// `-c`: only lines with a ref or a value, and their ancestors.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compact: bool,
    /// `-C`: cursor-interactive elements too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cursor: bool,
    /// `-u`: each link's URL.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub urls: bool,
    /// `--delta`: only what changed since the last snapshot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delta: bool,
    /// `--full`: with `--delta`, the whole tree again (a new base).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full: bool,
    /// `-d <n>`: at most this deep (a negative depth means no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<i64>,
    /// `-s <sel>`: only this subtree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

impl SnapshotRequest {
    /// The engine's options for it.
    pub fn options(&self) -> SnapshotOptions {
        SnapshotOptions {
            interactive: self.interactive,
            compact: self.compact,
            max_depth: self.max_depth.and_then(|d| usize::try_from(d).ok()),
            selector: self.selector.clone(),
            urls: self.urls,
            source: snapshot_source(),
        }
    }
}

/// Where snapshots read the tree from: the in-page walker where it answers, Chrome's tree
/// elsewhere and on small pages (ADR 0018); `ABX_SNAPSHOT_AX=1` forces Chrome's accessibility
/// tree everywhere, `ABX_SNAPSHOT_WALKER=1` the walker on small pages too.
fn snapshot_source() -> SnapshotSource {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1");
    if set("ABX_SNAPSHOT_AX") {
        SnapshotSource::Accessibility
    } else if set("ABX_SNAPSHOT_WALKER") {
        SnapshotSource::Walker
    } else {
        SnapshotSource::Auto
    }
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Accessibility tree with refs",
        usage: &["snapshot [-i] [-c] [-d <n>] [-s <sel>] [-u] [-C] [--delta [--full]]"],
        examples: &[
            "snapshot",
            "snapshot -i",
            "snapshot -i --urls",
            "snapshot -c -d 3 -s main",
            "snapshot -i --delta",
            "snapshot --delta --full",
        ],

        description: "\
Prints the page's accessibility tree, one line per element with its role, name and a ref
(@e1, @e2, ...) that later commands accept in place of a selector. Refs stay valid across
snapshots while the element lives; when an element was replaced, a ref falls back to the
single element with the same role and name, and fails if that is ambiguous. Take a new
snapshot after a navigation or a change of the page.",
        sections: &[(
            "Options",
            &[
                ("-i, --interactive", "Only elements one can act on"),
                (
                    "-c, --compact",
                    "Drop structural elements that carry no text",
                ),
                ("-d, --depth <n>", "Stop at this depth"),
                (
                    "-s, --selector <sel>",
                    "Only the subtree under this CSS selector",
                ),
                ("-u, --urls", "Show the href of links"),
                (
                    "-C, --cursor",
                    "Also list elements that only look clickable (cursor: pointer, onclick)",
                ),
                (
                    "--delta",
                    "Full tree the first time, then only what changed since the last one",
                ),
                (
                    "--full",
                    "With --delta: print the full tree and make it the new baseline",
                ),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::queued(ACTION, |ctx| Box::pin(run(ctx)))],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(7, "agent_browser_snapshot", "core", &["snapshot"], "compact:b@-c delta:b@--delta depth:i@-d full:b@--full includeUrls:b@--urls interactive:b@-i selector:s@-s").read_only().in_core(),
];

/// Upstream's flags, read leniently: `-d` takes the next word only when it is a number, `-s`
/// any next word; a flag without its value and any other word are ignored.
const FLAGS: &[Flag] = &[
    Flag::switch(&["-i", "--interactive"]),
    Flag::switch(&["-c", "--compact"]),
    Flag::switch(&["-C", "--cursor"]),
    Flag::switch(&["-u", "--urls"]),
    Flag::switch(&["--delta"]),
    Flag::switch(&["--full"]),
    Flag::lenient(&["-d", "--depth"], |w| w.parse::<i64>().is_ok()),
    Flag::lenient(&["-s", "--selector"], |_| true),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let mut request = SnapshotRequest::default();
    for word in scan(input.rest, FLAGS) {
        match word? {
            Word::Switch("-i") => request.interactive = true,
            Word::Switch("-c") => request.compact = true,
            Word::Switch("-C") => request.cursor = true,
            Word::Switch("-u") => request.urls = true,
            Word::Switch("--delta") => request.delta = true,
            Word::Switch("--full") => request.full = true,
            Word::Value("-d", n) => request.max_depth = n.parse().ok(),
            Word::Value("-s", selector) => request.selector = Some(selector.to_string()),
            _ => {}
        }
    }
    Ok(encode(ACTION, &request))
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: SnapshotRequest = ctx.params()?;
    let session = ctx.session().await?;
    if request.delta {
        return data(
            session
                .page(None)
                .await?
                .snapshot_delta(&request.options(), request.full)
                .await?,
        );
    }
    let snapshot = session
        .page(None)
        .await?
        .snapshot(&request.options())
        .await?;
    match encoded_answer(&snapshot) {
        Some(encoded) => ctx.answer_encoded(encoded),
        None => data(snapshot),
    }
}

/// The last snapshot's text and refs map, encoded. A page that did not change answers with the
/// same refs map (shared) and the same text, whose encoding (a megabyte on a large page) is then
/// reused, not even copied: only the URL and the removed refs are encoded again.
static LAST_ENCODED: std::sync::Mutex<Option<EncodedParts>> = std::sync::Mutex::new(None);

struct EncodedParts {
    /// Held, so that no other map can take its address while this is kept.
    refs: std::sync::Arc<std::collections::BTreeMap<String, abx_engine::RefInfo>>,
    text: abx_daemon::shared_text::SharedText,
    refs_json: std::sync::Arc<str>,
    text_json: std::sync::Arc<str>,
}

/// `snapshot`'s `data` as upstream's object (`origin`, `refs`, `removedRefs`, `snapshot`, keys
/// in alphabetical order as every other reply). `refs` is for JSON readers: a CLI that prints
/// text gets the line without it, and the text itself after the line, unescaped.
fn encoded_answer(snapshot: &abx_engine::Snapshot) -> Option<EncodedData> {
    let mut last = LAST_ENCODED.lock().unwrap_or_else(|p| p.into_inner());
    let reusable = last.as_ref().is_some_and(|parts| {
        std::sync::Arc::ptr_eq(&parts.refs, &snapshot.refs)
            && (std::sync::Arc::ptr_eq(parts.text.text(), &snapshot.snapshot)
                || **parts.text.text() == *snapshot.snapshot)
    });
    if !reusable {
        *last = Some(EncodedParts {
            refs: snapshot.refs.clone(),
            text: abx_daemon::shared_text::SharedText::new(snapshot.snapshot.clone()),
            refs_json: serde_json::to_string(&*snapshot.refs).ok()?.into(),
            text_json: serde_json::to_string(&snapshot.snapshot).ok()?.into(),
        });
    }
    let parts = last.as_ref()?;
    Some(
        EncodedData::default()
            .member("origin", serde_json::to_string(&snapshot.origin).ok()?)
            .unprinted_member("refs", parts.refs_json.clone())
            .member(
                "removedRefs",
                serde_json::to_string(&snapshot.removed_refs).ok()?,
            )
            .tail_member("snapshot", parts.text_json.clone(), parts.text.clone()),
    )
}
