//! `find <locator> <value> [action] [text]`: semantic locators (role, text, label,
//! placeholder, alt, title, testid, first, last, nth) and what to do with the element they
//! find (click by default, fill, check, hover, text). A click or key that starts a navigation
//! waits for it (engine behaviour).

use abx_engine::{FindAction, Locator};

use crate::commands::prelude::*;

/// `find role <role> [--name <name>]`.
pub const ROLE: &str = "getbyrole";
/// `find text <text>`.
pub const TEXT: &str = "getbytext";
/// `find label <label>`.
pub const LABEL: &str = "getbylabel";
/// `find placeholder <text>`.
pub const PLACEHOLDER: &str = "getbyplaceholder";
/// `find alt <text>`.
pub const ALT: &str = "getbyalttext";
/// `find title <text>`.
pub const TITLE: &str = "getbytitle";
/// `find testid <id>`.
pub const TEST_ID: &str = "getbytestid";
/// `find first|last|nth <n> <selector>`.
pub const NTH: &str = "nth";

const FIND_ACTIONS: &[&str] = &["click", "fill", "check", "hover", "text"];

/// `find role`'s usage, also what `--name` without a value reports for every locator.
const ROLE_USAGE: &str = "find role <role> [action] [--name <name>] [--exact]";

/// The flags after the value and the action. `--name`'s context is the locator's (`find
/// <locator>`), set where it is read.
const TAIL_FLAGS: &[Flag] = &[
    Flag::switch(&["--exact"]),
    Flag::value(&["--name"], "find", ROLE_USAGE),
];

/// The request of every locator; each sends its own fields (upstream's shapes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindRequest {
    /// `find role`: the ARIA role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// `find role --name`: the accessible name (`null` when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Option<String>>,
    /// `find text|alt|title`: the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `find label`: the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `find placeholder`: the placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// `find testid`: the test id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_id: Option<String>,
    /// `find first|last|nth`: the selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// `find first|last|nth`: 0-based index (`-1` is the last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// `--exact`: whole, case-sensitive match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// `click` (default), `fill`, `check`, `hover` or `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subaction: Option<String>,
    /// The text for `fill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["find"],
    help: Some(Help {
        about: "Semantic locators: role text label placeholder alt title testid first last nth",
        usage: &[
            "find <locator> <value> [action] [text]",
            "find role <role> [action] [--name <name>] [--exact]",
            "find nth <index> <selector> [action] [text]",
        ],
        examples: &[
            "find role button click --name Submit",
            "find label Email fill ada@example.com",
            "find text 'Sign in'",
            "find testid save-button click",
            "find nth 2 '.card' text",
            "find role link --name Docs --exact",
        ],

        description: "\
Finds an element the way a person would describe it, by role, text, label and so on, and
does something with it (click when no action is given).",
        sections: &[
            (
                "Locators",
                &[
                    (
                        "role <role>",
                        "ARIA role; --name narrows by accessible name",
                    ),
                    ("text <text>", "Visible text"),
                    ("label <text>", "The label of a form field"),
                    ("placeholder <text>", "Placeholder text"),
                    ("alt <text>", "Image alt text"),
                    ("title <text>", "title attribute"),
                    ("testid <id>", "data-testid attribute"),
                    ("first <selector>", "First match of a CSS selector"),
                    ("last <selector>", "Last match"),
                    ("nth <index> <selector>", "Match number <index>, from 0"),
                ],
            ),
            (
                "Actions",
                &[
                    ("click", "Click it (default)"),
                    ("fill <text>", "Fill it with the text"),
                    ("check", "Check it"),
                    ("hover", "Hover it"),
                    ("text", "Print its text"),
                ],
            ),
            (
                "Options",
                &[
                    (
                        "--name <name>",
                        "\
With role: the accessible name (a case-insensitive substring
unless --exact)",
                    ),
                    (
                        "--exact",
                        "\
Match text and names exactly, case included (the role word
itself is never case-sensitive)",
                    ),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ROLE, |ctx| Box::pin(run(ctx))),
        Action::queued(TEXT, |ctx| Box::pin(run(ctx))),
        Action::queued(LABEL, |ctx| Box::pin(run(ctx))),
        Action::queued(PLACEHOLDER, |ctx| Box::pin(run(ctx))),
        Action::queued(ALT, |ctx| Box::pin(run(ctx))),
        Action::queued(TITLE, |ctx| Box::pin(run(ctx))),
        Action::queued(TEST_ID, |ctx| Box::pin(run(ctx))),
        Action::queued(NTH, |ctx| Box::pin(run(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(54, "agent_browser_find", "all", &["find"], "locator:e(role|text|label|placeholder|alt|title|testid|first|last|nth)! index:i value:s! action:s text:s name:s@--name exact:b@--exact").arranged(mcp_words),
];

/// `find`'s words after the command, as upstream builds them: the index only for `nth` (0 when
/// absent), and `click` as the action when `text`, `name` or `exact` is given without one (the
/// grammar reads the word after the value as the action). The arguments are already checked.
fn mcp_words(args: &serde_json::Map<String, Value>, _positional: Vec<String>) -> Vec<String> {
    let text = |name: &str| args.get(name).and_then(Value::as_str).map(str::to_string);
    let locator = text("locator").unwrap_or_default();
    let mut words = vec![locator.clone()];
    if locator == "nth" {
        let index = args.get("index").and_then(Value::as_i64).unwrap_or(0);
        words.push(index.to_string());
    }
    words.extend(text("value"));
    let wants_action = ["text", "name"].iter().any(|k| text(k).is_some())
        || args.get("exact").and_then(Value::as_bool) == Some(true);
    match text("action") {
        Some(action) => words.push(action),
        None if wants_action => words.push("click".to_string()),
        None => {}
    }
    words.extend(text("text"));
    words
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "role",
        "text",
        "label",
        "placeholder",
        "alt",
        "title",
        "testid",
        "first",
        "last",
        "nth",
    ];
    let rest = input.rest;
    let locator = rest
        .first()
        .copied()
        .ok_or_else(|| ParseError::missing("find", "find <locator> <value> [action] [text]"))?;
    let usage: &'static str = match locator {
        "role" => ROLE_USAGE,
        "text" => "find text <text> [action] [--exact]",
        "label" => "find label <label> [action] [text] [--exact]",
        "placeholder" => "find placeholder <text> [action] [text] [--exact]",
        "alt" => "find alt <text> [action] [--exact]",
        "title" => "find title <text> [action] [--exact]",
        "testid" => "find testid <id> [action] [text]",
        "first" => "find first <selector> [action] [text]",
        "last" => "find last <selector> [action] [text]",
        "nth" => "find nth <index> <selector> [action] [text]",
        other => return Err(ParseError::unknown_sub(other, VALID)),
    };
    let context = format!("find {locator}");

    // `find nth <n> <sel> …` has one more leading argument than the other locators.
    let (index, value, tail_start): (Option<i64>, &str, usize) = if locator == "nth" {
        let raw = rest
            .get(1)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        let n = raw
            .parse::<i64>()
            .map_err(|_| ParseError::missing(&context, usage))?;
        let sel = rest
            .get(2)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        (Some(n), sel, 3)
    } else {
        let value = rest
            .get(1)
            .ok_or_else(|| ParseError::missing(&context, usage))?;
        (None, value, 2)
    };

    let mut subaction = "click";
    let mut name: Option<&str> = None;
    let mut exact = false;
    let mut fill_parts: Vec<&str> = Vec::new();
    let mut tail = &rest[tail_start..];
    if let Some(first) = tail.first()
        && !first.starts_with("--")
    {
        subaction = first;
        tail = &tail[1..];
    }
    for word in scan(tail, TAIL_FLAGS) {
        // `--name` without a value names the locator: `Missing arguments for: find text`.
        match word.map_err(|err| err.in_context(&context))? {
            Word::Switch("--exact") => exact = true,
            Word::Value("--name", value) => name = Some(value),
            // Any other word, an unknown flag included, is part of the fill text.
            other => fill_parts.push(other.text()),
        }
    }
    // An action word that is not one goes to the daemon, which refuses it in upstream's words
    // (upstream's CLI sends it too: the error is a command's failure, not a parse error).
    let value = value.to_string();
    let (action, mut request) = match locator {
        "role" => (
            ROLE,
            FindRequest {
                role: Some(value),
                name: Some(name.map(str::to_string)),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "text" => (
            TEXT,
            FindRequest {
                text: Some(value),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "label" => (
            LABEL,
            FindRequest {
                label: Some(value),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "placeholder" => (
            PLACEHOLDER,
            FindRequest {
                placeholder: Some(value),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "alt" => (
            ALT,
            FindRequest {
                text: Some(value),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "title" => (
            TITLE,
            FindRequest {
                text: Some(value),
                exact: Some(exact),
                ..FindRequest::default()
            },
        ),
        "testid" => (
            TEST_ID,
            FindRequest {
                test_id: Some(value),
                ..FindRequest::default()
            },
        ),
        "first" => (
            NTH,
            FindRequest {
                selector: Some(value),
                index: Some(0),
                ..FindRequest::default()
            },
        ),
        "last" => (
            NTH,
            FindRequest {
                selector: Some(value),
                index: Some(-1),
                ..FindRequest::default()
            },
        ),
        _ => (
            NTH,
            FindRequest {
                selector: Some(value),
                index: Some(index.unwrap_or(0)),
                ..FindRequest::default()
            },
        ),
    };
    request.subaction = Some(subaction.to_string());
    // text/alt/title locators take no fill value (upstream drops it).
    if !fill_parts.is_empty() && !matches!(locator, "text" | "alt" | "title") {
        request.value = Some(fill_parts.join(" "));
    }
    Ok(encode(action, &request))
}

fn locator(action: &str, request: &FindRequest) -> Result<Locator, Failure> {
    let field = |value: &Option<String>, name: &str| required(value, name).map(str::to_string);
    Ok(match action {
        ROLE => Locator::Role {
            role: field(&request.role, "role")?,
            name: request.name.clone().flatten(),
        },
        TEXT => Locator::Text(field(&request.text, "text")?),
        LABEL => Locator::Label(field(&request.label, "label")?),
        PLACEHOLDER => Locator::Placeholder(field(&request.placeholder, "placeholder")?),
        ALT => Locator::Alt(field(&request.text, "text")?),
        TITLE => Locator::Title(field(&request.text, "text")?),
        TEST_ID => Locator::TestId(field(&request.test_id, "testId")?),
        _ => Locator::Nth {
            selector: field(&request.selector, "selector")?,
            index: request.index.unwrap_or(0),
        },
    })
}

fn find_action(request: &FindRequest) -> Result<FindAction, Failure> {
    Ok(match request.subaction.as_deref().unwrap_or("click") {
        "click" => FindAction::Click,
        "fill" => FindAction::Fill(request.value.clone().unwrap_or_default()),
        "check" => FindAction::Check,
        "hover" => FindAction::Hover,
        "text" => FindAction::Text,
        other => {
            return Err(Failure::message(format!(
                "Unknown action '{other}' for find. Valid actions: {}.",
                FIND_ACTIONS.join(", ")
            )));
        }
    })
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: FindRequest = ctx.params()?;
    let locator = locator(&ctx.request().action, &request)?;
    let action = find_action(&request)?;
    let session = ctx.session().await?;
    data(
        session
            .page(ctx.timeout())
            .await?
            .find(&locator, &action, request.exact.unwrap_or(false))
            .await?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(words: &[&str]) -> Result<Value, ParseError> {
        let host = crate::host::MemoryHost::new();
        crate::commands::spec::parse_words(parse, "find", words, &host).0
    }

    fn role(name: Option<&str>, exact: bool, subaction: &str, value: Option<&str>) -> Value {
        encode(
            ROLE,
            &FindRequest {
                role: Some("button".into()),
                name: Some(name.map(str::to_string)),
                exact: Some(exact),
                subaction: Some(subaction.into()),
                value: value.map(str::to_string),
                ..FindRequest::default()
            },
        )
    }

    #[test]
    fn name_without_a_value_names_the_locator_and_roles_usage() {
        for locator in ["role", "text", "nth"] {
            let mut line = vec![locator];
            if locator == "nth" {
                line.push("1");
            }
            line.extend(["x", "click", "--name"]);
            assert_eq!(
                request(&line),
                Err(ParseError::missing(&format!("find {locator}"), ROLE_USAGE)),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_flag_is_never_the_action_and_names_take_any_next_word() {
        assert_eq!(
            request(&["role", "button", "--exact"]),
            Ok(role(None, true, "click", None))
        );
        // `--name`'s value is the next word, even a flag; the last `--name` counts.
        assert_eq!(
            request(&["role", "button", "click", "--name", "--exact"]),
            Ok(role(Some("--exact"), false, "click", None))
        );
        assert_eq!(
            request(&["role", "button", "--name", "A", "--name", "B"]),
            Ok(role(Some("B"), false, "click", None))
        );
    }

    #[test]
    fn unknown_flags_and_other_words_are_the_fill_text() {
        assert_eq!(
            request(&["role", "button", "fill", "a", "--bogus", "--exact", "b"]),
            Ok(role(None, true, "fill", Some("a --bogus b")))
        );
        // A missing `--name` value is a parse error; an unknown action goes to the daemon,
        // which refuses it as upstream's does.
        assert_eq!(
            request(&["role", "button", "tickle", "--name"]),
            Err(ParseError::missing("find role", ROLE_USAGE))
        );
        assert_eq!(
            request(&["role", "button", "tickle"]),
            Ok(role(None, false, "tickle", None))
        );
        let unknown = FindRequest {
            subaction: Some("tickle".into()),
            ..FindRequest::default()
        };
        assert_eq!(
            find_action(&unknown).err().map(|f| f.message),
            Some(
                "Unknown action 'tickle' for find. Valid actions: click, fill, check, hover, text."
                    .to_string()
            )
        );
    }
}
