//! `wait <ms|selector>`, `wait --url|--load|--fn|--text|--download …`: waits for time, an
//! element, text, a URL, a load state, a function or a download.

use abx_engine::WaitUntil;

use crate::commands::interaction::download;
use crate::commands::prelude::*;

/// `wait <ms|selector|--text>`.
pub const WAIT: &str = "wait";
/// `wait --url <pattern>`.
pub const URL: &str = "waitforurl";
/// `wait --load <state>`.
pub const LOAD: &str = "waitforloadstate";
/// `wait --fn <expression>`.
pub const FUNCTION: &str = "waitforfunction";
/// `wait --download [path]`.
pub const DOWNLOAD: &str = "waitfordownload";

const USAGE: &str = "wait <selector|ms|--url|--load|--fn|--text|--download> [--timeout <ms>]";
/// The usage lines of `wait`'s errors, as upstream prints them.
const MISSING_USAGE: &str = "wait <selector|ms|--url|--load|--fn|--text>";
const TIMEOUT_USAGE: &str = "wait <selector|ms|--url|--load|--fn|--text> [--timeout <ms>]";

/// `wait`: `{"selector", "state"?}`, `{"text"}` or `{"timeout"}` (ms to sleep).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WaitRequest {
    /// Wait for this element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// `visible` (default), `hidden`, `attached` or `detached`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Wait for this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The deadline, or with neither selector nor text the time to sleep (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// `waitforurl`: `{"url"}` (a glob).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlRequest {
    /// The pattern.
    pub url: Option<String>,
    /// Deadline (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// `waitforloadstate`: `{"state"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadRequest {
    /// `load` (default), `domcontentloaded` or `networkidle`.
    pub state: Option<String>,
    /// Deadline (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// `waitforfunction`: `{"expression"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionRequest {
    /// A JavaScript expression that must become truthy.
    pub expression: Option<String>,
    /// Deadline (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["wait"],
    help: Some(Help {
        about: "Wait for time, an element, text, a URL, a load state, a function or a download",
        usage: &[
            USAGE,
            "wait <selector> --state <visible|hidden|attached|detached>",
        ],
        examples: &[
            "wait '#results'",
            "wait 1500",
            "wait '#spinner' --state hidden",
            "wait --text 'Welcome back'",
            "wait --url '**/dashboard' --timeout 10000",
            "wait --load networkidle",
            "wait --fn 'window.appReady === true'",
            "wait --download ./report.pdf",
        ],

        description: "\
Blocks until a condition holds, then prints what it waited for. Every wait except a plain
number of milliseconds gives up after --timeout (default AGENT_BROWSER_DEFAULT_TIMEOUT, 25 s)
and fails.",
        sections: &[
            (
                "Conditions",
                &[
                    ("<selector>", "Until the element is there (see --state)"),
                    ("<ms>", "Sleep this many milliseconds"),
                    (
                        "-u, --url <pattern>",
                        "Until the URL matches (glob, ** for any path)",
                    ),
                    (
                        "-l, --load <state>",
                        "Until a load state: load, domcontentloaded or networkidle",
                    ),
                    ("-f, --fn <js>", "Until the expression is truthy"),
                    (
                        "-t, --text <text>",
                        "Until the text appears on the page (substring)",
                    ),
                    (
                        "-d, --download [path]",
                        "Until a download finishes; saves it at path when given",
                    ),
                ],
            ),
            (
                "Options",
                &[
                    (
                        "--state <state>",
                        "With a selector: visible (default), hidden, attached or detached",
                    ),
                    ("--timeout <ms>", "Give up after this long"),
                ],
            ),
        ],
        notes: "\
To wait for something to go away: `wait <selector> --state hidden` (or detached), or
`wait --fn \"!document.body.innerText.includes('Loading')\"`.
Before the command word, --state <path> is the global option that loads a saved state.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(WAIT, |ctx| Box::pin(run_wait(ctx)))
            .with_default_timeout()
            .waiting(),
        Action::queued(URL, |ctx| Box::pin(run_url(ctx)))
            .with_default_timeout()
            .waiting(),
        Action::queued(LOAD, |ctx| Box::pin(run_load(ctx)))
            .with_default_timeout()
            .waiting(),
        Action::queued(FUNCTION, |ctx| Box::pin(run_function(ctx)))
            .with_default_timeout()
            .waiting(),
        Action::queued(DOWNLOAD, |ctx| Box::pin(run_download(ctx)))
            .with_default_timeout()
            .waiting()
            .rendered(Render {
                saved: Some(download::saved),
                example: r#"{"path":"/tmp/d.bin"}"#,
                ..Render::DEFAULT
            }),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(19, "agent_browser_wait_ms", "core", &["wait"], "ms:i!").read_only(),
    McpTool::new(
        20,
        "agent_browser_wait_for_selector",
        "core",
        &["wait"],
        "selector:s! state:e(visible|hidden|attached|detached)@--state waitTimeoutMs:i@--timeout",
    )
    .read_only()
    .in_core(),
    McpTool::new(
        21,
        "agent_browser_wait_for_text",
        "core",
        &["wait", "--text"],
        "text:s! waitTimeoutMs:i@--timeout",
    )
    .read_only()
    .in_core(),
    McpTool::new(
        22,
        "agent_browser_wait_for_url",
        "all",
        &["wait", "--url"],
        "url:s! waitTimeoutMs:i@--timeout",
    )
    .read_only(),
    McpTool::new(
        23,
        "agent_browser_wait_for_load",
        "core",
        &["wait", "--load"],
        "state:e(load|domcontentloaded|networkidle)! waitTimeoutMs:i@--timeout",
    )
    .read_only(),
    McpTool::new(
        24,
        "agent_browser_wait_for_function",
        "all",
        &["wait", "--fn"],
        "expression:s! waitTimeoutMs:i@--timeout",
    )
    .read_only(),
    McpTool::new(
        45,
        "agent_browser_wait_for_download",
        "debug",
        &["wait", "--download"],
        "path:s waitTimeoutMs:i@--timeout",
    )
    .read_only(),
];

/// `--timeout` and `--state`: they apply to every variant and are taken out first, wherever
/// they are (between a variant flag and its value too: `wait --url --timeout 5 x` waits for x).
const COMMON_FLAGS: &[Flag] = &[
    Flag::value(&["--timeout"], "wait --timeout", TIMEOUT_USAGE),
    Flag::value(
        &["--state"],
        "wait --state",
        "wait <selector> --state <visible|hidden|attached|detached>",
    ),
];

/// The variants, in upstream's order of priority: the first of these flags found among the
/// other words decides, whatever comes before it (`wait --text a --url b` waits for the URL).
const VARIANT_FLAGS: &[Flag] = &[
    Flag::value(&["--url", "-u"], "wait --url", "wait --url <pattern>"),
    Flag::value(&["--load", "-l"], "wait --load", "wait --load <state>"),
    Flag::value(&["--fn", "-f"], "wait --fn", "wait --fn <expression>"),
    Flag::value(&["--text", "-t"], "wait --text", "wait --text <text>"),
    // The path only when one follows: `wait --download --timeout 5` has none.
    Flag::lenient(&["--download", "-d"], |word| !word.starts_with("--")),
];

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let mut timeout: Option<u64> = None;
    let mut state: Option<&str> = None;
    let mut args: Vec<&str> = Vec::new();
    for word in scan(input.rest, COMMON_FLAGS) {
        match word? {
            Word::Value("--timeout", raw) => {
                let ms = raw.parse::<u64>().map_err(|_| {
                    ParseError::invalid(
                        format!("--timeout expects a number in ms, got '{raw}'"),
                        TIMEOUT_USAGE,
                    )
                })?;
                timeout = Some(ms);
            }
            Word::Value("--state", value) => state = Some(value),
            other => args.push(other.text()),
        }
    }
    // Each variant flag is looked for on its own, over all the other words, as upstream does:
    // its first occurrence takes the next word as its value, whatever that word is. So in
    // `wait --text --url x` the `--url` is found (and outranks `--text`): a URL wait for x. One
    // scan with every variant flag would read `--url` there as the text.
    for flag in VARIANT_FLAGS {
        let first = scan(&args, std::slice::from_ref(flag))
            .find(|word| !matches!(word, Ok(Word::Other(_))));
        let Some(word) = first else {
            continue;
        };
        return Ok(match word? {
            Word::Value("--url", url) => encode(
                URL,
                &UrlRequest {
                    url: Some(url.to_string()),
                    timeout,
                },
            ),
            Word::Value("--load", state) => encode(
                LOAD,
                &LoadRequest {
                    state: Some(state.to_string()),
                    timeout,
                },
            ),
            Word::Value("--fn", expression) => encode(
                FUNCTION,
                &FunctionRequest {
                    expression: Some(expression.to_string()),
                    timeout,
                },
            ),
            Word::Value("--text", text) => encode(
                WAIT,
                &WaitRequest {
                    text: Some(text.to_string()),
                    timeout,
                    ..WaitRequest::default()
                },
            ),
            download => encode(
                DOWNLOAD,
                &DownloadRequest {
                    path: match download {
                        Word::Value(_, path) => Some(path.to_string()),
                        _ => None,
                    },
                    timeout,
                },
            ),
        });
    }
    let arg = args
        .first()
        .ok_or_else(|| ParseError::missing("wait", MISSING_USAGE))?;
    let request = match arg.parse::<u64>() {
        Ok(ms) => WaitRequest {
            timeout: Some(ms),
            ..WaitRequest::default()
        },
        Err(_) => WaitRequest {
            selector: Some(arg.to_string()),
            state: state.map(str::to_string),
            timeout,
            ..WaitRequest::default()
        },
    };
    Ok(encode(WAIT, &request))
}

async fn run_wait(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: WaitRequest = ctx.params()?;
    let session = ctx.session().await?;
    let timeout = ctx.timeout();
    if let Some(selector) = &request.selector {
        let state = request.state.as_deref().unwrap_or("visible");
        session
            .page(timeout)
            .await?
            .wait_selector(selector, state)
            .await?;
        return Ok(json!({"waited": "selector", "selector": selector}));
    }
    if let Some(text) = &request.text {
        session.page(timeout).await?.wait_text(text).await?;
        return Ok(json!({"waited": "text", "text": text}));
    }
    let ms = ctx.request().u64(abx_wire::extras::TIMEOUT).unwrap_or(0);
    session.wait_ms(ms).await;
    Ok(json!({"waited": "timeout", "ms": ms}))
}

async fn run_url(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: UrlRequest = ctx.params()?;
    let pattern = required(&request.url, "url")?;
    let session = ctx.session().await?;
    Ok(json!({"url": session.page(ctx.timeout()).await?.wait_url(pattern).await?}))
}

async fn run_load(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: LoadRequest = ctx.params()?;
    let state = request.state.as_deref().unwrap_or("load");
    let session = ctx.session().await?;
    let wait = WaitUntil::parse(state)?;
    session.page(ctx.timeout()).await?.wait_load(wait).await?;
    Ok(json!({"state": state}))
}

async fn run_function(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: FunctionRequest = ctx.params()?;
    let expression = required(&request.expression, "expression")?;
    let session = ctx.session().await?;
    let result = session
        .page(ctx.timeout())
        .await?
        .wait_for_function(expression, FUNCTION)
        .await?;
    Ok(json!({"result": result}))
}

/// `waitfordownload`: `{"path"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DownloadRequest {
    /// Where to save the download (default: the download directory, else the temp directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How long to wait (ms); the handler reads it as the request's deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

async fn run_download(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DownloadRequest = ctx.params()?;
    let session = ctx.session().await?;
    let saved = session
        .wait_download(request.path.as_deref(), ctx.timeout())
        .await?;
    Ok(json!({"path": saved.path}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(words: &[&str]) -> Result<Value, ParseError> {
        let host = crate::host::MemoryHost::new();
        crate::commands::spec::parse_words(parse, "wait", words, &host).0
    }

    fn url(url: &str, timeout: Option<u64>) -> Result<Value, ParseError> {
        Ok(encode(
            URL,
            &UrlRequest {
                url: Some(url.into()),
                timeout,
            },
        ))
    }

    #[test]
    fn timeout_and_state_are_read_anywhere_even_between_a_flag_and_its_value() {
        assert_eq!(
            request(&["--url", "--timeout", "5", "x"]),
            url("x", Some(5))
        );
        assert_eq!(
            request(&["#a", "--state", "hidden", "--timeout", "7"]),
            Ok(encode(
                WAIT,
                &WaitRequest {
                    selector: Some("#a".into()),
                    state: Some("hidden".into()),
                    timeout: Some(7),
                    ..WaitRequest::default()
                }
            ))
        );
        // `--state`'s value is the next word, whatever it is.
        assert_eq!(
            request(&["--state", "--timeout", "-u", "x"]),
            url("x", None)
        );
        assert_eq!(
            request(&["--timeout"]),
            Err(ParseError::missing("wait --timeout", TIMEOUT_USAGE))
        );
        assert_eq!(
            request(&["--timeout", "soon", "--state"]),
            Err(ParseError::invalid(
                "--timeout expects a number in ms, got 'soon'",
                TIMEOUT_USAGE
            ))
        );
    }

    #[test]
    fn the_first_variant_in_priority_order_decides_and_takes_any_next_word() {
        assert_eq!(request(&["--text", "a", "--url", "b"]), url("b", None));
        // `--url` is found as a flag even where `--text` would take it as its value.
        assert_eq!(request(&["--text", "--url", "x"]), url("x", None));
        assert_eq!(request(&["-u", "--text", "t"]), url("--text", None));
        assert_eq!(
            request(&["--load", "--url"]),
            Err(ParseError::missing("wait --url", "wait --url <pattern>"))
        );
        assert_eq!(
            request(&["-f", "ok()", "-l", "load"]),
            Ok(encode(
                LOAD,
                &LoadRequest {
                    state: Some("load".into()),
                    timeout: None
                }
            ))
        );
    }

    #[test]
    fn download_takes_a_path_only_when_one_follows() {
        let download = |path: Option<&str>, timeout| {
            Ok(encode(
                DOWNLOAD,
                &DownloadRequest {
                    path: path.map(str::to_string),
                    timeout,
                },
            ))
        };
        assert_eq!(request(&["-d", "out.pdf"]), download(Some("out.pdf"), None));
        assert_eq!(
            request(&["--download", "--timeout", "5"]),
            download(None, Some(5))
        );
        assert_eq!(request(&["--download", "--x"]), download(None, None));
        assert_eq!(request(&["--download"]), download(None, None));
    }

    #[test]
    fn other_words_are_a_selector_or_milliseconds() {
        let selector = |s: &str| {
            Ok(encode(
                WAIT,
                &WaitRequest {
                    selector: Some(s.into()),
                    ..WaitRequest::default()
                },
            ))
        };
        assert_eq!(request(&["--bogus", "#a"]), selector("--bogus"));
        assert_eq!(
            request(&["1500"]),
            Ok(encode(
                WAIT,
                &WaitRequest {
                    timeout: Some(1500),
                    ..WaitRequest::default()
                }
            ))
        );
        assert_eq!(
            request(&["--timeout", "5"]),
            Err(ParseError::missing("wait", MISSING_USAGE))
        );
    }
}
