//! `diff snapshot|screenshot|url`: compares the page's snapshot with a baseline (a file, or the
//! last snapshot), two screenshots, or two URLs (each opened in turn in the tab, snapshotted
//! and, with `--screenshot`, captured; the tab stays on the second URL).

use crate::commands::capture::snapshot::SnapshotRequest;
use crate::commands::prelude::*;

/// `diff snapshot`.
pub const SNAPSHOT: &str = "diff_snapshot";
/// `diff screenshot`.
pub const SCREENSHOT: &str = "diff_screenshot";
/// `diff url`.
pub const URL: &str = "diff_url";

/// `diff snapshot`: `{"baseline"?, "selector"?, "compact"?, "maxDepth"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiffSnapshotRequest {
    /// A baseline file, or literal snapshot text; without one, the last snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The snapshot options.
    #[serde(flatten)]
    pub snapshot: SnapshotRequest,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["diff"],
    help: Some(Help {
        about: "Compare snapshots, screenshots or URLs",
        usage: &[
            "diff snapshot [--baseline <file>] [-s <sel>] [-c] [-d <n>]",
            "diff screenshot --baseline <file> [-o <out>] [-t <0-1>] [-s <sel>] [--full]",
            "diff url <url1> <url2> [--screenshot] [--full] [--wait-until <s>] [-s <sel>] [-c] [-d <n>]",
        ],
        examples: &[
            "diff snapshot",
            "diff snapshot --baseline before.txt -c",
            "diff screenshot --baseline before.png -o diff.png",
            "diff url https://staging.example.com https://example.com -c",
            "diff url http://a.test http://b.test --screenshot --wait-until networkidle",
        ],

        description: "\
Compares two states of a page and prints what changed: the accessibility snapshot as
added and removed lines, or screenshots pixel by pixel with a diff image.",
        sections: &[
            (
                "Subcommands",
                &[
                    (
                        "snapshot",
                        "The page now against the session's last snapshot (or a file)",
                    ),
                    ("screenshot", "The page now against a baseline image"),
                    ("url <url1> <url2>", "Two pages, loaded one after the other"),
                ],
            ),
            (
                "snapshot options",
                &[
                    (
                        "-b, --baseline <file>",
                        "Compare with this saved snapshot instead",
                    ),
                    (
                        "-s, --selector <sel>",
                        "Only this subtree (selector or @ref)",
                    ),
                    ("-c, --compact", "Compact snapshots"),
                    ("-d, --depth <n>", "Limit the depth"),
                ],
            ),
            (
                "screenshot options",
                &[
                    (
                        "-b, --baseline <file>",
                        "The image to compare with (required)",
                    ),
                    (
                        "-o, --output <file>",
                        "Where the diff image goes (default: a temporary file)",
                    ),
                    (
                        "-t, --threshold <0-1>",
                        "Colour distance below which pixels count as equal (default 0.1)",
                    ),
                    ("-s, --selector <sel>", "Only this element"),
                    ("-f, --full", "Full page"),
                ],
            ),
            (
                "url options",
                &[
                    (
                        "--screenshot",
                        "Compare screenshots too (default: snapshots only)",
                    ),
                    ("-f, --full", "Full-page screenshots"),
                    (
                        "--wait-until <state>",
                        "load (default), domcontentloaded or networkidle",
                    ),
                    ("-s, --selector <sel>", "Only this subtree"),
                    ("-c, --compact", "Compact snapshots"),
                    ("-d, --depth <n>", "Limit the depth"),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(SNAPSHOT, |ctx| Box::pin(run_snapshot(ctx))).rendered(Render {
            diff: Some(snapshot_diff),
            example: r#"{"changed":true,"diff":"+ a\n- b\n  c","additions":1,"removals":1,"unchanged":1}"#,
            ..Render::DEFAULT
        }),
        Action::queued(SCREENSHOT, |ctx| Box::pin(run_screenshot(ctx))).rendered(Render {
            diff: Some(screenshot_diff),
            example: r#"{"match":false,"mismatchPercentage":12.345,"diffPath":"/tmp/d.png","differentPixels":12,"totalPixels":100}"#,
            ..Render::DEFAULT
        }),
        Action::queued(URL, |ctx| Box::pin(run_url(ctx))).rendered(Render {
            diff: Some(url_diff),
            example: r#"{"diff":{"changed":false},"screenshot":{"match":true,"differentPixels":0,"totalPixels":4}}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        119,
        "agent_browser_diff_snapshot",
        "debug",
        &["diff", "snapshot"],
        "baseline:s@--baseline compact:b@--compact depth:i@--depth selector:s@--selector",
    ),
    McpTool::new(
        120,
        "agent_browser_diff_screenshot",
        "debug",
        &["diff", "screenshot"],
        "baseline:s@--baseline fullPage:b@--full output:s@--output selector:s@--selector threshold:n@--threshold",
    ),
    McpTool::new(
        121,
        "agent_browser_diff_url",
        "debug",
        &["diff", "url"],
        "url1:s! url2:s! compact:b@--compact depth:i@--depth fullPage:b@--full screenshot:b@--screenshot selector:s@--selector waitUntil:s@--wait-until",
    ),
];

async fn run_snapshot(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DiffSnapshotRequest = ctx.params()?;
    let session = ctx.session().await?;
    data(
        session
            .page(None)
            .await?
            .diff_snapshot(&request.snapshot.options(), request.baseline.as_deref())
            .await?,
    )
}

/// `diff screenshot`: `{"baseline", "output"?, "threshold"?, "selector"?, "fullPage"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffScreenshotRequest {
    /// The baseline image file.
    pub baseline: Option<String>,
    /// Where to write the diff image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Per-pixel colour tolerance, 0 to 1 (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Only this element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The whole page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_page: bool,
}

async fn run_screenshot(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DiffScreenshotRequest = ctx.params()?;
    let baseline_path = required(&request.baseline, "baseline")?;
    let baseline = std::fs::read(baseline_path)
        .map_err(|e| Failure::message(format!("Failed to read baseline: {e}")))?;
    let session = ctx.session().await?;
    let options = abx_engine::ScreenshotOptions {
        full_page: request.full_page,
        selector: request.selector.clone(),
        ..Default::default()
    };
    let diff = session
        .page(ctx.timeout())
        .await?
        .diff_screenshot(&baseline, &options, request.threshold.unwrap_or(0.1))
        .await?;
    if let Some(output) = &request.output {
        crate::commands::support::write_file(std::path::Path::new(output), &diff.diff_png)?;
    }
    Ok(json!({
        "match": diff.matched,
        "mismatchPercentage": diff.mismatch_percentage,
        "totalPixels": diff.total_pixels,
        "differentPixels": diff.different_pixels,
        "diffPath": request.output,
        "dimensionMismatch": diff.dimension_mismatch.then_some(true),
    }))
}

/// `✓ No changes detected`, or the coloured diff and its counts.
fn snapshot_diff(t: &mut Text<'_>, data: &Value) {
    let p = t.p;
    if !b(data, "changed").unwrap_or(false) {
        t.out(&format!("{} No changes detected", p.ok()));
        return;
    }
    if let Some(diff) = s(data, "diff") {
        for line in diff.lines() {
            if line.starts_with("+ ") {
                t.out(&p.green(line));
            } else if line.starts_with("- ") {
                t.out(&p.red(line));
            } else {
                t.out(&p.dim(line));
            }
        }
        t.out(&format!(
            "\n{} additions, {} removals, {} unchanged",
            p.green(&i(data, "additions").unwrap_or(0).to_string()),
            p.red(&i(data, "removals").unwrap_or(0).to_string()),
            i(data, "unchanged").unwrap_or(0)
        ));
    }
}

/// Whether the images match, and the pixel counts.
fn screenshot_diff(t: &mut Text<'_>, data: &Value) {
    let p = t.p;
    let mismatch = data
        .get("mismatchPercentage")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if b(data, "dimensionMismatch").unwrap_or(false) {
        t.out(&format!("{} Images have different dimensions", p.fail()));
    } else if b(data, "match").unwrap_or(false) {
        t.out(&format!("{} Images match (0% difference)", p.ok()));
    } else {
        t.out(&format!("{} {mismatch:.2}% pixels differ", p.fail()));
    }
    if let Some(path) = s(data, "diffPath") {
        t.out(&format!("  Diff image: {}", p.green(path)));
    }
    t.out(&format!(
        "  {} different / {} total pixels",
        p.red(&i(data, "differentPixels").unwrap_or(0).to_string()),
        i(data, "totalPixels").unwrap_or(0)
    ));
}

/// `diff url`'s text (upstream prints nothing): the snapshot report as `diff snapshot` prints
/// it, then, with `--screenshot`, the image report as `diff screenshot` prints it.
fn url_diff(t: &mut Text<'_>, data: &Value) {
    let p = t.p;
    if let Some(snap) = data.get("diff").filter(|v| v.is_object()) {
        snapshot_diff(t, snap);
    }
    if let Some(shot) = data.get("screenshot").filter(|v| v.is_object()) {
        t.out(&format!("\n{}", p.bold("Screenshot diff:")));
        screenshot_diff(t, shot);
    }
}

/// `diff url`: `{"url1", "url2", "screenshot"?, "fullPage"?, "waitUntil"?, "selector"?,
/// "compact"?, "maxDepth"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffUrlRequest {
    /// The first URL (the "before").
    pub url1: Option<String>,
    /// The second URL (the "after"); the tab stays there.
    pub url2: Option<String>,
    /// Also compare screenshots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub screenshot: bool,
    /// Screenshots of the whole page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full_page: bool,
    /// How long each navigation waits (`load` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_until: Option<String>,
    /// The snapshot options (`-s`, `-c`, `-d`).
    #[serde(flatten)]
    pub snapshot: SnapshotRequest,
}

/// A snapshot line without its ref (refs differ between two loads of the same page).
fn without_refs(tree: &str) -> String {
    let mut out = String::with_capacity(tree.len());
    for line in tree.lines() {
        let mut line = line.to_string();
        while let Some(start) = line.find("ref=e") {
            let digits = line[start + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            let mut end = start + 5 + digits;
            let mut begin = start;
            if line[end..].starts_with(", ") {
                end += 2;
            } else if line[..begin].ends_with(", ") {
                begin -= 2;
            }
            line.replace_range(begin..end, "");
        }
        out.push_str(&line.replace(" []", ""));
        out.push('\n');
    }
    out
}

async fn run_url(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DiffUrlRequest = ctx.params()?;
    let url1 = required(&request.url1, "url1")?;
    let url2 = required(&request.url2, "url2")?;
    let wait = match &request.wait_until {
        Some(name) => abx_engine::WaitUntil::parse(name)?,
        None => abx_engine::WaitUntil::Load,
    };
    let options = request.snapshot.options();
    let shot = abx_engine::ScreenshotOptions {
        full_page: request.full_page,
        ..Default::default()
    };
    let session = ctx.session().await?;
    let mut snapshots = Vec::new();
    let mut images = Vec::new();
    for url in [url1, url2] {
        session.navigate(url, wait, ctx.timeout()).await?;
        snapshots.push(session.page(None).await?.snapshot(&options).await?.snapshot);
        if request.screenshot {
            images.push(session.page(ctx.timeout()).await?.screenshot(&shot).await?);
        }
    }
    let diff = abx_engine::diff_text(&without_refs(&snapshots[0]), &without_refs(&snapshots[1]));
    let mut data = json!({
        "url1": url1,
        "url2": url2,
        "snapshot1": snapshots[0],
        "snapshot2": snapshots[1],
        "diff": {
            "changed": diff.changed,
            "identical": !diff.changed,
            "additions": diff.additions,
            "removals": diff.removals,
            "deletions": diff.removals,
            "unchanged": diff.unchanged,
            "diff": diff.diff,
        },
    });
    if let [before, after] = images.as_slice() {
        let images = abx_engine::diff_images(before, after, 0.1)?;
        data["screenshot"] = json!({
            "match": images.matched,
            "mismatchPercentage": images.mismatch_percentage,
            "totalPixels": images.total_pixels,
            "differentPixels": images.different_pixels,
            "dimensionMismatch": images.dimension_mismatch.then_some(true),
        });
    }
    Ok(data)
}

/// `-d <n>`: a non-negative depth.
fn depth(raw: &str, usage: &'static str) -> Result<i64, ParseError> {
    raw.parse::<u32>().map(i64::from).map_err(|_| {
        ParseError::invalid(
            format!("Depth must be a non-negative integer, got: {raw}"),
            usage,
        )
    })
}

const SNAPSHOT_FLAGS: &[Flag] = &[
    Flag::value(
        &["-b", "--baseline"],
        "diff snapshot --baseline",
        "diff snapshot --baseline <file>",
    ),
    Flag::value(
        &["-s", "--selector"],
        "diff snapshot --selector",
        "diff snapshot --selector <sel>",
    ),
    Flag::switch(&["-c", "--compact"]),
    Flag::value(
        &["-d", "--depth"],
        "diff snapshot --depth",
        "diff snapshot --depth <n>",
    ),
];

const SCREENSHOT_FLAGS: &[Flag] = &[
    Flag::value(
        &["-b", "--baseline"],
        "diff screenshot --baseline",
        "diff screenshot --baseline <file>",
    ),
    Flag::value(
        &["-o", "--output"],
        "diff screenshot --output",
        "diff screenshot --output <file>",
    ),
    Flag::value(
        &["-t", "--threshold"],
        "diff screenshot --threshold",
        THRESHOLD_USAGE,
    ),
    Flag::value(
        &["-s", "--selector"],
        "diff screenshot --selector",
        "diff screenshot --selector <sel>",
    ),
    Flag::switch(&["--full", "-f"]),
];

const THRESHOLD_USAGE: &str = "diff screenshot --threshold <0-1>";

const URL_FLAGS: &[Flag] = &[
    Flag::switch(&["--screenshot"]),
    Flag::switch(&["--full", "-f"]),
    Flag::value(
        &["--wait-until"],
        "diff url --wait-until",
        "diff url <url1> <url2> --wait-until <load|domcontentloaded|networkidle>",
    ),
    Flag::value(
        &["-s", "--selector"],
        "diff url --selector",
        "diff url <url1> <url2> --selector <sel>",
    ),
    Flag::switch(&["-c", "--compact"]),
    Flag::value(
        &["-d", "--depth"],
        "diff url --depth",
        "diff url <url1> <url2> --depth <n>",
    ),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    match rest.first().copied() {
        Some("snapshot") => {
            const USAGE: &str =
                "diff snapshot [--baseline <file>] [--selector <sel>] [--compact] [--depth <n>]";
            let mut req = DiffSnapshotRequest::default();
            for word in scan(&rest[1..], SNAPSHOT_FLAGS) {
                match word? {
                    Word::Value("-b", v) => req.baseline = Some(v.to_string()),
                    Word::Value("-s", v) => req.snapshot.selector = Some(v.to_string()),
                    Word::Switch("-c") => req.snapshot.compact = true,
                    Word::Value("-d", v) => {
                        req.snapshot.max_depth = Some(depth(v, "diff snapshot --depth <n>")?);
                    }
                    other => return Err(other.refused(USAGE)),
                }
            }
            Ok(encode(SNAPSHOT, &req))
        }
        Some("screenshot") => {
            const USAGE: &str = "diff screenshot --baseline <file> [--output <file>] [--threshold <0-1>] [--selector <sel>] [--full/-f]";
            let mut req = DiffScreenshotRequest::default();
            for word in scan(&rest[1..], SCREENSHOT_FLAGS) {
                match word? {
                    Word::Value("-b", v) => req.baseline = Some(v.to_string()),
                    Word::Value("-o", v) => req.output = Some(v.to_string()),
                    Word::Value("-t", raw) => {
                        let t = raw.parse::<f64>().map_err(|_| {
                            ParseError::invalid(
                                format!("Invalid threshold value: {raw}"),
                                THRESHOLD_USAGE,
                            )
                        })?;
                        if !(0.0..=1.0).contains(&t) {
                            return Err(ParseError::invalid(
                                format!("Threshold must be between 0 and 1, got {t}"),
                                THRESHOLD_USAGE,
                            ));
                        }
                        req.threshold = Some(t);
                    }
                    Word::Value("-s", v) => req.selector = Some(v.to_string()),
                    Word::Switch("--full") => req.full_page = true,
                    other => return Err(other.refused(USAGE)),
                }
            }
            if req.baseline.is_none() {
                return Err(ParseError::missing(
                    "diff screenshot",
                    "diff screenshot --baseline <file>",
                ));
            }
            Ok(encode(SCREENSHOT, &req))
        }
        Some("url") => {
            const USAGE: &str = "diff url <url1> <url2> [--screenshot] [--full/-f] [--wait-until <strategy>] [--selector <sel>] [--compact] [--depth <n>]";
            let (Some(url1), Some(url2)) = (rest.get(1), rest.get(2)) else {
                return Err(ParseError::missing("diff url", "diff url <url1> <url2>"));
            };
            let mut req = DiffUrlRequest {
                url1: Some(url1.to_string()),
                url2: Some(url2.to_string()),
                ..DiffUrlRequest::default()
            };
            for word in scan(&rest[3..], URL_FLAGS) {
                match word? {
                    Word::Switch("--screenshot") => req.screenshot = true,
                    Word::Switch("--full") => req.full_page = true,
                    Word::Value("--wait-until", v) => req.wait_until = Some(v.to_string()),
                    Word::Value("-s", v) => req.snapshot.selector = Some(v.to_string()),
                    Word::Switch("-c") => req.snapshot.compact = true,
                    Word::Value("-d", v) => {
                        req.snapshot.max_depth =
                            Some(depth(v, "diff url <url1> <url2> --depth <n>")?);
                    }
                    other => return Err(other.refused(USAGE)),
                }
            }
            Ok(encode(URL, &req))
        }
        Some(sub) => Err(ParseError::unknown_sub(
            sub,
            &["snapshot", "screenshot", "url"],
        )),
        None => Err(ParseError::missing(
            "diff",
            "diff <snapshot|screenshot|url>",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::without_refs;

    #[test]
    fn refs_are_left_out_of_the_compared_lines() {
        let tree = "- heading \"A\" [level=1, ref=e12]\n- link \"B\" [ref=e3]\n- paragraph";
        assert_eq!(
            without_refs(tree),
            "- heading \"A\" [level=1]\n- link \"B\"\n- paragraph\n"
        );
        assert_eq!(
            without_refs("- button \"X\" [ref=e4, url=/a]"),
            "- button \"X\" [url=/a]\n"
        );
    }
}
