//! `screenshot [selector] [path] [--full] [--if-changed] [--threshold <0-1>]`: a PNG (or JPEG)
//! of the viewport, the full page or one element; `--annotate` adds numbered labels for the
//! interactive elements and prints their refs.

use std::path::PathBuf;

use abx_engine::ScreenshotOptions;

use crate::commands::prelude::*;
use crate::commands::support::write_file;

/// The wire action.
pub const ACTION: &str = "screenshot";

const USAGE: &str = "screenshot [selector] [path] [--full] [--if-changed] [--threshold <0-1>]";
/// The usage line of a flag error, as upstream prints it.
const ERROR_USAGE: &str = "screenshot [selector] [path] [--if-changed] [--threshold <0-1>]";

/// `{"path", "selector", "fullPage", "annotate", "format"?, "quality"?, "screenshotDir"?,
/// "ifChanged"?, "threshold"?}` (`path` and `selector` are `null` when not given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotRequest {
    /// Where to write it (default: `~/.agent-browser/tmp/screenshots/screenshot-<ms>.png`).
    #[serde(default)]
    pub path: Option<String>,
    /// Only this element.
    #[serde(default)]
    pub selector: Option<String>,
    /// `--full`: the whole page.
    #[serde(default)]
    pub full_page: bool,
    /// `--annotate`: numbered labels.
    #[serde(default)]
    pub annotate: bool,
    /// `png` or `jpeg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// JPEG quality 0–100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<u64>,
    /// Directory for a screenshot without a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_dir: Option<String>,
    /// `--if-changed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub if_changed: bool,
    /// `--threshold <0-1>` for `--if-changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Take a screenshot (--annotate adds numbered labels)",
        usage: &[USAGE],
        examples: &[
            "screenshot",
            "screenshot page.png --full",
            "screenshot '#chart' chart.png",
            "screenshot --if-changed --threshold 0.01",
            "screenshot --annotate ./labelled.png",
            "screenshot --screenshot-format jpeg --screenshot-quality 70",
        ],

        description: "\
Saves an image of the viewport, the whole page or one element. A first argument that looks
like a selector or @ref picks the element; the other is the file path. Without a path the
image goes to the screenshot directory (--screenshot-dir) or a temporary one, and the path
is printed. Headless screenshots hide scrollbars unless --hide-scrollbars false was given at
launch.",
        sections: &[(
            "Options",
            &[
                (
                    "-f, --full",
                    "The whole scrollable page, not just the viewport",
                ),
                (
                    "--if-changed",
                    "\
Skip writing when the page looks the same as the last screenshot
(saves tokens when polling)",
                ),
                (
                    "--threshold <0-1>",
                    "\
Share of changed pixels still counted as unchanged (implies
--if-changed; default 0)",
                ),
                (
                    "--annotate",
                    "\
Global: number the interactive elements; label N is ref @eN,
and a legend of roles and names is printed (in --json too)",
                ),
                (
                    "--screenshot-dir <path>",
                    "Global: default directory for the images",
                ),
                ("--screenshot-format <fmt>", "Global: png (default) or jpeg"),
                ("--screenshot-quality <n>", "Global: JPEG quality 0-100"),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(unchanged),
            saved: Some(saved),
            example: r#"{"path":"/tmp/s.png","annotations":[{"number":1,"ref":"e1","role":"heading","name":"Hello"}]}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(25, "agent_browser_screenshot", "core", &["screenshot"], "selector:s path:s annotate:b@--annotate format:e(png|jpeg)@G--screenshot-format fullPage:b@--full ifChanged:b@--if-changed quality:i@G--screenshot-quality screenshotDir:s@G--screenshot-dir threshold:n@--threshold").in_core(),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let flags = input.flags;
    let mut full_page = false;
    let mut if_changed = false;
    let mut threshold: Option<f64> = None;
    let mut positional: Vec<&str> = Vec::new();
    const FLAGS: &[Flag] = &[
        Flag::switch(&["--full", "-f"]),
        Flag::switch(&["--if-changed"]),
        Flag::value(&["--threshold"], "screenshot --threshold", ERROR_USAGE),
    ];
    for word in scan(rest, FLAGS) {
        match word? {
            Word::Switch("--full") => full_page = true,
            Word::Switch("--if-changed") => if_changed = true,
            // Upstream's words for a value that is no number, and one out of range.
            Word::Value(_, raw) => match raw.parse::<f64>() {
                Ok(t) if (0.0..=1.0).contains(&t) => threshold = Some(t),
                Ok(_) => {
                    return Err(ParseError::invalid(
                        format!("--threshold must be from 0 to 1, got '{raw}'"),
                        ERROR_USAGE,
                    ));
                }
                Err(_) => {
                    return Err(ParseError::invalid(
                        format!("--threshold expects a number from 0 to 1, got '{raw}'"),
                        ERROR_USAGE,
                    ));
                }
            },
            other => positional.push(other.text()),
        }
    }
    let (selector, path) = match positional.as_slice() {
        [first, second, ..] => (Some(*first), Some(*second)),
        [first] => {
            let relative = first.starts_with("./") || first.starts_with("../");
            let looks_selector = !relative
                && (first.starts_with('.') || first.starts_with('#') || first.starts_with('@'));
            let has_ext = [".png", ".jpg", ".jpeg", ".webp"]
                .iter()
                .any(|ext| first.ends_with(ext));
            let looks_path = relative || first.contains('/') || has_ext;
            if looks_selector || !looks_path {
                (Some(*first), None)
            } else {
                (None, Some(*first))
            }
        }
        [] => (None, None),
    };
    let request = ScreenshotRequest {
        path: path.map(str::to_string),
        selector: selector.map(str::to_string),
        full_page,
        annotate: flags.annotate,
        format: flags.screenshot_format.clone(),
        quality: flags.screenshot_quality.map(u64::from),
        screenshot_dir: flags.screenshot_dir.clone(),
        if_changed,
        threshold,
    };
    if request.quality.is_some() && flags.screenshot_format.as_deref() != Some("jpeg") {
        input.warnings.push(
            "--screenshot-quality is ignored for PNG; use --screenshot-format jpeg".to_string(),
        );
    }
    Ok(encode(ACTION, &request))
}

/// `✓ Screenshot unchanged (revision N, R% pixels changed)` for an `--if-changed` capture
/// that was not saved.
fn unchanged(t: &mut Text<'_>, data: &Value) -> bool {
    if b(data, "changed") != Some(false) || data.get("revision").is_none() {
        return false;
    }
    let ratio = data
        .get("pixelChangeRatio")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let p = t.p;
    t.out(&format!(
        "{} Screenshot unchanged (revision {}, {:.4}% pixels changed)",
        p.ok(),
        u(data, "revision").unwrap_or(0),
        ratio * 100.0
    ));
    true
}

/// `✓ Screenshot saved to <path>` and the annotation legend.
fn saved(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!("{} Screenshot saved to {}", p.ok(), p.green(path)));
    if let Some(annotations) = data.get("annotations").and_then(Value::as_array) {
        for a in annotations {
            let num = p.dim(&format!("[{}]", u(a, "number").unwrap_or(0)));
            let reference = s(a, "ref").unwrap_or("");
            let role = s(a, "role").unwrap_or("");
            match s(a, "name").filter(|n| !n.is_empty()) {
                Some(name) => t.out(&format!("   {num} @{reference} {role} {name:?}")),
                None => t.out(&format!("   {num} @{reference} {role}")),
            }
        }
    }
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ScreenshotRequest = ctx.params()?;
    let session = ctx.session().await?;
    let options = ScreenshotOptions {
        full_page: request.full_page,
        format: request.format.clone(),
        quality: request.quality.map(|q| q.min(100) as u8),
        selector: request.selector.clone(),
    };
    if request.if_changed || request.threshold.is_some() {
        // `--threshold` implies `--if-changed`, as upstream documents.
        let threshold = request.threshold.unwrap_or(0.0);
        let shot = session
            .page(ctx.timeout())
            .await?
            .screenshot_if_changed(&options, threshold)
            .await?;
        let mut data = json!({
            "changed": shot.changed,
            "revision": shot.revision,
            "pixelChangeRatio": shot.pixel_change_ratio,
            "threshold": shot.threshold,
        });
        if let Some(image) = shot.image {
            let path = screenshot_path(&request);
            write_file(&path, &image)?;
            data["path"] = json!(path.display().to_string());
        }
        return Ok(data);
    }
    let (bytes, annotations) = if request.annotate {
        let shot = session
            .page(ctx.timeout())
            .await?
            .screenshot_annotated(&options)
            .await?;
        (shot.image, Some(shot.annotations))
    } else {
        (
            session
                .page(ctx.timeout())
                .await?
                .screenshot(&options)
                .await?,
            None,
        )
    };
    let path = screenshot_path(&request);
    write_file(&path, &bytes)?;
    let mut data = json!({"path": path.display().to_string()});
    if let Some(annotations) = annotations {
        data["annotations"] = json!(annotations);
    }
    Ok(data)
}

/// The path given, or a new file in the screenshot directory.
fn screenshot_path(request: &ScreenshotRequest) -> PathBuf {
    let extension = if request.format.as_deref() == Some("jpeg") {
        "jpg"
    } else {
        "png"
    };
    match &request.path {
        Some(path) => PathBuf::from(path),
        None => {
            let dir = request
                .screenshot_dir
                .as_ref()
                .map(PathBuf::from)
                .unwrap_or_else(default_screenshot_dir);
            dir.join(format!("screenshot-{}.{extension}", epoch_ms()))
        }
    }
}

fn default_screenshot_dir() -> PathBuf {
    let home = std::env::var("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir());
    home.join(".agent-browser").join("tmp").join("screenshots")
}

fn epoch_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}
