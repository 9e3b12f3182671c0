//! `auth save|login|list|show|delete`: the credential vault (`abx_daemon::vault`, encrypted
//! files in `~/.agent-browser/auth/`). `save`, `list`, `show` and `delete` are answered by the CLI
//! itself ([`run_vault_operation`]), so a password read from stdin never travels to the daemon;
//! `login` runs in the daemon, which opens the vault, fills the login form at the profile's URL
//! and submits it. A password is never printed, logged or put in a reply.

use abx_daemon::vault::{LoginSelectors, Profile, Vault};
use abx_engine::ClickOptions;

use crate::commands::prelude::*;

/// `auth save <name> …`.
pub const SAVE: &str = "auth_save";
/// `auth login <name>`.
pub const LOGIN: &str = "auth_login";
/// `auth list`.
pub const LIST: &str = "auth_list";
/// `auth delete <name>`.
pub const DELETE: &str = "auth_delete";
/// `auth show <name>`.
pub const SHOW: &str = "auth_show";

/// Whether `action` is a vault operation the CLI answers itself.
pub fn is_vault_operation(action: &str) -> bool {
    matches!(action, SAVE | LIST | DELETE | SHOW)
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["auth"],
    help: Some(Help {
        about: "Credential vault (encrypted login profiles)",
        usage: &[
            "auth <save|login|list|show|delete> ...",
            "auth save <name> --url <url> --username <user> --password-stdin [--username-selector <s>] [--password-selector <s>] [--submit-selector <s>]",
            "auth login <name> [--url <url>] [--username-selector <s>] [--password-selector <s>] [--submit-selector <s>]",
            "auth list",
            "auth show <name>",
            "auth delete <name>",
        ],
        examples: &[
            "auth save github --url https://github.com/login --username ada --password-stdin",
            "auth login github",
            "auth list",
        ],
        description: "\
Keeps login credentials encrypted in ~/.agent-browser/auth/ and fills login forms with them.
Passwords are never printed or logged; `login` waits for the form's fields.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("save <name>", "Store a profile"),
                    (
                        "login <name>",
                        "Open the profile's URL, fill the form and submit it",
                    ),
                    ("list", "Stored profiles"),
                    ("show <name>", "A profile without its password"),
                    ("delete <name>", "Remove a profile"),
                ],
            ),
            (
                "save options",
                &[
                    ("--url <url>", "The login page"),
                    ("--username <user>", "User name"),
                    (
                        "--password-stdin",
                        "Read the password from stdin (preferred)",
                    ),
                    ("--password <pw>", "The password on the command line"),
                    (
                        "--username-selector <s>",
                        "The user-name field, when not found by itself",
                    ),
                    ("--password-selector <s>", "The password field"),
                    ("--submit-selector <s>", "The submit button"),
                ],
            ),
            (
                "login options",
                &[
                    ("--url <url>", "Log in at this URL instead"),
                    (
                        "--username-selector <s>, --password-selector <s>, --submit-selector <s>",
                        "Override the stored selectors for this login",
                    ),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::local(SAVE),
        Action::queued(LOGIN, |ctx| Box::pin(run_login(ctx))).moving_tab(),
        Action::local(LIST),
        Action::local(DELETE),
        Action::local(SHOW),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        104,
        "agent_browser_auth_save",
        "state",
        &["auth", "save"],
        "name:s! url:s!@--url username:s!@--username password:s!@S--password-stdin usernameSelector:s@--username-selector passwordSelector:s@--password-selector submitSelector:s@--submit-selector",
    ),
    McpTool::new(
        105,
        "agent_browser_auth_login",
        "state",
        &["auth", "login"],
        "name:s! noNavigate:b@--no-navigate",
    ),
    McpTool::new(
        106,
        "agent_browser_auth_list",
        "state",
        &["auth", "list"],
        "",
    )
    .read_only(),
    McpTool::new(
        107,
        "agent_browser_auth_show",
        "state",
        &["auth", "show"],
        "name:s!",
    )
    .read_only(),
    McpTool::new(
        108,
        "agent_browser_auth_delete",
        "state",
        &["auth", "delete"],
        "name:s!",
    ),
];

/// Carries out `auth save|list|show|delete` in the CLI process: the reply's data or the error.
pub fn run_vault_operation(
    request: &Value,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, String> {
    let vault = Vault::from_env(var);
    let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_string);
    let name = text("name").unwrap_or_default();
    let result = match text("action").as_deref() {
        Some(SAVE) => vault.save(Profile {
            name,
            url: text("url").unwrap_or_default(),
            username: text("username").unwrap_or_default(),
            password: text("password").unwrap_or_default(),
            selectors: LoginSelectors {
                username_selector: text("usernameSelector"),
                password_selector: text("passwordSelector"),
                submit_selector: text("submitSelector"),
            },
            created_at: None,
            last_login_at: None,
        }),
        Some(LIST) => Ok(vault.list()),
        Some(SHOW) => vault.show(&name),
        Some(DELETE) => vault.delete(&name),
        other => return Err(format!("Unknown auth operation: {}", other.unwrap_or(""))),
    };
    result.map_err(|e| e.to_string())
}

/// `auth login` as sent.
/// `auth login`: `{"name", "url"?, "usernameSelector"?, "passwordSelector"?, "submitSelector"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    /// The saved profile.
    pub name: Option<String>,
    /// The login page (default: the profile's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Where the page's fields are (`--username-selector`, `--password-selector`,
    /// `--submit-selector`).
    #[serde(flatten)]
    pub selectors: LoginSelectors,
}

/// `auth save` (answered by the CLI from the vault): the profile and its fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveRequest {
    /// The profile's name.
    pub name: Option<String>,
    /// The login page.
    pub url: Option<String>,
    /// The user name.
    pub username: Option<String>,
    /// The password (never echoed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Where the page's fields are (`--username-selector`, `--password-selector`,
    /// `--submit-selector`).
    #[serde(flatten)]
    pub selectors: LoginSelectors,
}

/// `auth show|delete`: `{"name"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NameRequest {
    /// The profile's name.
    pub name: Option<String>,
}

/// Finds the first selector of a list that matches a visible, enabled field.
const FIRST_VISIBLE_JS: &str = include_str!("auth_field.js");

/// Where a user name usually goes, most specific first (upstream's order).
const USERNAME_SELECTORS: &[&str] = &[
    "input[type=email]",
    "input[name=email]",
    "input[id=email]",
    "input[autocomplete=email]",
    "input[autocomplete=username]",
    "input[name=username]",
    "input[name*=email i]",
    "input[name*=user i]",
    "input[id*=email i]",
    "input[id*=user i]",
    "input[type=text]",
    "input:not([type])",
];
const PASSWORD_SELECTORS: &[&str] = &["input[type=password]"];
const SUBMIT_SELECTORS: &[&str] = &[
    "button[type=submit]",
    "input[type=submit]",
    "button:not([type])",
];

/// Waits for the first of `selectors` to match a visible field; its selector.
async fn first_visible(
    session: &abx_engine::Session,
    selectors: &[&str],
    what: &str,
    timeout: Option<std::time::Duration>,
) -> Result<String, Failure> {
    let expression = format!("({FIRST_VISIBLE_JS})({})", json!(selectors));
    match session
        .page(timeout)
        .await?
        .wait_for_function(&expression, "auth login")
        .await
    {
        Ok(Value::String(found)) => Ok(found),
        _ => Err(Failure::message(format!(
            "Timed out waiting for the {what} (tried selectors: {})",
            selectors.join(", ")
        ))),
    }
}

async fn run_login(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: LoginRequest = ctx.params()?;
    let name = required(&request.name, "name")?;
    let vault = Vault::from_env(&|n| std::env::var(n).ok());
    let profile = vault
        .load(name)
        .map_err(|e| Failure::message(e.to_string()))?;
    let url = request.url.clone().unwrap_or_else(|| profile.url.clone());
    if url.is_empty() {
        return Err(Failure::message(format!(
            "Auth profile '{name}' has no URL: save it with --url or pass --url to auth login"
        )));
    }
    let timeout = ctx.timeout();
    let session = ctx.session().await?;
    session
        .navigate(&url, abx_engine::WaitUntil::Load, timeout)
        .await?;
    let pick = |given: &Option<String>, stored: &Option<String>| given.clone().or(stored.clone());
    let user_sel = match pick(
        &request.selectors.username_selector,
        &profile.selectors.username_selector,
    ) {
        Some(sel) => first_visible(&session, &[sel.as_str()], "username field", timeout).await?,
        None => first_visible(&session, USERNAME_SELECTORS, "username field", timeout).await?,
    };
    session
        .page(timeout)
        .await?
        .fill(&user_sel, &profile.username)
        .await?;
    let pass_sel = match pick(
        &request.selectors.password_selector,
        &profile.selectors.password_selector,
    ) {
        Some(sel) => first_visible(&session, &[sel.as_str()], "password field", timeout).await?,
        None => first_visible(&session, PASSWORD_SELECTORS, "password field", timeout).await?,
    };
    session
        .page(timeout)
        .await?
        .fill(&pass_sel, &profile.password)
        .await?;
    let submit_sel = match pick(
        &request.selectors.submit_selector,
        &profile.selectors.submit_selector,
    ) {
        Some(sel) => first_visible(&session, &[sel.as_str()], "submit button", timeout).await?,
        None => first_visible(&session, SUBMIT_SELECTORS, "submit button", timeout).await?,
    };
    // The click waits for the navigation the submit starts.
    session
        .page(timeout)
        .await?
        .click(&submit_sel, &ClickOptions::default())
        .await?;
    let _ = vault.touch_login(name);
    Ok(json!({"loggedIn": true, "name": name}))
}

/// `auth save`'s flags. Each value flag takes the next word, whatever it is; one at the end of
/// the line has none (and the save then misses it), never an error of its own.
const SAVE_FLAGS: &[Flag] = &[
    Flag::lenient(&["--url"], |_| true),
    Flag::lenient(&["--username"], |_| true),
    Flag::lenient(&["--password"], |_| true),
    Flag::switch(&["--password-stdin"]),
    Flag::lenient(&["--username-selector"], |_| true),
    Flag::lenient(&["--password-selector"], |_| true),
    Flag::lenient(&["--submit-selector"], |_| true),
];

/// `auth login`'s flags: each needs its value.
const LOGIN_FLAGS: &[Flag] = &[
    Flag::value(&["--url"], "auth login", LOGIN_MISSING_USAGE),
    Flag::value(&["--username-selector"], "auth login", LOGIN_MISSING_USAGE),
    Flag::value(&["--password-selector"], "auth login", LOGIN_MISSING_USAGE),
    Flag::value(&["--submit-selector"], "auth login", LOGIN_MISSING_USAGE),
];

/// What a login flag without its value reports (upstream names only `--url`).
const LOGIN_MISSING_USAGE: &str = "agent-browser auth login <name> [--url <url>]";

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const SAVE_USAGE: &str =
        "agent-browser auth save <name> --url <url> --username <user> --password <pass>";
    const SAVE_USAGE_FULL: &str = "agent-browser auth save <name> --url <url> --username <user> --password <pass> [--password-stdin]";
    match rest.first().copied() {
        Some("save") => {
            let name = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE))?;
            let mut url = None;
            let mut username = None;
            let mut password: Option<String> = None;
            let mut password_stdin = false;
            let mut req = SaveRequest {
                name: Some(name.to_string()),
                ..SaveRequest::default()
            };
            for word in scan(&rest[2..], SAVE_FLAGS).flatten() {
                // A flag at the end of the line is a `Switch`: no value.
                let value = match word {
                    Word::Value(_, value) => Some(value),
                    _ => None,
                };
                match word {
                    Word::Switch("--password-stdin") => password_stdin = true,
                    // The last one counts, even without a value.
                    Word::Switch("--url") | Word::Value("--url", _) => url = value,
                    Word::Switch("--username") | Word::Value("--username", _) => username = value,
                    Word::Switch("--password") | Word::Value("--password", _) => {
                        password = value.map(str::to_string);
                    }
                    // A selector without a value leaves the one before it.
                    Word::Value("--username-selector", value) => {
                        req.selectors.username_selector = Some(value.to_string());
                    }
                    Word::Value("--password-selector", value) => {
                        req.selectors.password_selector = Some(value.to_string());
                    }
                    Word::Value(_, value) => {
                        req.selectors.submit_selector = Some(value.to_string());
                    }
                    Word::Switch(_) => {}
                    Word::Other(other) if other.starts_with("--") => {
                        return Err(ParseError::invalid(
                            format!("unknown flag '{other}' for auth save"),
                            SAVE_USAGE,
                        ));
                    }
                    // Positional words are ignored.
                    Word::Other(_) => {}
                }
            }
            let url = url.ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE_FULL))?;
            let username =
                username.ok_or_else(|| ParseError::missing("auth save", SAVE_USAGE_FULL))?;
            if !password_stdin && password.is_none() {
                return Err(ParseError::missing("auth save", SAVE_USAGE_FULL));
            }
            if password.is_some() {
                input.warnings.push("Passwords on the command line may be visible in process listings and shell history. Use --password-stdin instead.".to_string());
            }
            if password_stdin {
                let input = input.host.read_stdin().map_err(|_| {
                    ParseError::invalid(
                        "Failed to read password from stdin",
                        "auth save <name> --password-stdin",
                    )
                })?;
                let line = input.lines().next().unwrap_or("");
                if line.is_empty() {
                    return Err(ParseError::invalid(
                        "Password from stdin is empty",
                        "auth save <name> --password-stdin",
                    ));
                }
                password = Some(line.to_string());
            }
            req.url = Some(url.to_string());
            req.username = Some(username.to_string());
            req.password = password;
            Ok(encode(SAVE, &req))
        }
        Some("login") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing(
                    "auth login",
                    "agent-browser auth login <name> [--no-navigate] [--credential-provider <plugin>] [--item <ref>] [--url <url>] [--username-selector <s>] [--password-selector <s>] [--submit-selector <s>]",
                )
            })?;
            let mut req = LoginRequest {
                name: Some(name.to_string()),
                ..LoginRequest::default()
            };
            for word in scan(&rest[2..], LOGIN_FLAGS) {
                match word? {
                    Word::Value("--url", value) => req.url = Some(value.to_string()),
                    Word::Value("--username-selector", value) => {
                        req.selectors.username_selector = Some(value.to_string());
                    }
                    Word::Value("--password-selector", value) => {
                        req.selectors.password_selector = Some(value.to_string());
                    }
                    Word::Value(_, value) => {
                        req.selectors.submit_selector = Some(value.to_string());
                    }
                    Word::Other(other) if other.starts_with("--") => {
                        return Err(ParseError::invalid(
                            format!("unknown flag '{other}' for auth login"),
                            "agent-browser auth login <name> [--url <url>] [--username-selector <s>] [--password-selector <s>] [--submit-selector <s>]",
                        ));
                    }
                    // Positional words are skipped.
                    _ => {}
                }
            }
            Ok(encode(LOGIN, &req))
        }
        Some("list") => Ok(encode(LIST, &NoParams {})),
        Some("delete") | Some("remove") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth delete", "agent-browser auth delete <name>")
            })?;
            Ok(encode(
                DELETE,
                &NameRequest {
                    name: Some(name.to_string()),
                },
            ))
        }
        Some("show") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth show", "agent-browser auth show <name>")
            })?;
            Ok(encode(
                SHOW,
                &NameRequest {
                    name: Some(name.to_string()),
                },
            ))
        }
        other => Err(ParseError::unknown_sub(
            other.unwrap_or("(none)"),
            &["save", "login", "list", "delete", "show"],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAVE_USAGE_FULL: &str = "agent-browser auth save <name> --url <url> --username <user> --password <pass> [--password-stdin]";

    /// The request or error, and the warnings.
    fn request(words: &[&str], stdin: &str) -> (Result<Value, ParseError>, Vec<String>) {
        let host = crate::host::MemoryHost::new().with_stdin(stdin);
        crate::commands::spec::parse_words(parse, "auth", words, &host)
    }

    fn save(password: &str, selectors: LoginSelectors) -> Result<Value, ParseError> {
        Ok(encode(
            SAVE,
            &SaveRequest {
                name: Some("n".into()),
                url: Some("u".into()),
                username: Some("a".into()),
                password: Some(password.into()),
                selectors,
            },
        ))
    }

    #[test]
    fn save_values_take_any_next_word_and_positional_words_are_ignored() {
        let (saved, warnings) = request(
            &[
                "save",
                "n",
                "extra",
                "--url",
                "u",
                "-x",
                "--username",
                "a",
                "--password",
                "--password-stdin",
            ],
            "",
        );
        assert_eq!(saved, save("--password-stdin", LoginSelectors::default()));
        assert_eq!(warnings.len(), 1, "a password on the command line warns");
        let (saved, warnings) = request(
            &[
                "save",
                "n",
                "--password-stdin",
                "--url",
                "u",
                "--username",
                "a",
                "--submit-selector",
                "#go",
            ],
            "secret\nmore",
        );
        let selectors = LoginSelectors {
            submit_selector: Some("#go".into()),
            ..LoginSelectors::default()
        };
        assert_eq!(saved, save("secret", selectors));
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_save_value_flag_at_the_end_leaves_its_value_unset() {
        // The last `--url` counts: without a value it unsets the one before.
        let (saved, _) = request(
            &[
                "save",
                "n",
                "--username",
                "a",
                "--password",
                "p",
                "--url",
                "u",
                "--url",
            ],
            "",
        );
        assert_eq!(
            saved,
            Err(ParseError::missing("auth save", SAVE_USAGE_FULL))
        );
        // A selector without a value keeps the one before.
        let (saved, _) = request(
            &[
                "save",
                "n",
                "--url",
                "u",
                "--username",
                "a",
                "--password",
                "p",
                "--username-selector",
                "#u",
                "--username-selector",
            ],
            "",
        );
        let selectors = LoginSelectors {
            username_selector: Some("#u".into()),
            ..LoginSelectors::default()
        };
        assert_eq!(saved, save("p", selectors));
    }

    #[test]
    fn save_refuses_an_unknown_flag_where_it_stands() {
        let (saved, _) = request(&["save", "n", "--url", "--bogus", "--bogus"], "");
        assert_eq!(
            saved,
            Err(ParseError::invalid(
                "unknown flag '--bogus' for auth save",
                "agent-browser auth save <name> --url <url> --username <user> --password <pass>"
            ))
        );
    }

    #[test]
    fn login_flags_need_their_value_and_positional_words_are_skipped() {
        let (login, _) = request(&["login", "n", "x", "--url", "--submit-selector", "-y"], "");
        assert_eq!(
            login,
            Ok(encode(
                LOGIN,
                &LoginRequest {
                    name: Some("n".into()),
                    url: Some("--submit-selector".into()),
                    ..LoginRequest::default()
                }
            ))
        );
        let missing = ParseError::missing("auth login", LOGIN_MISSING_USAGE);
        assert_eq!(
            request(&["login", "n", "--password-selector"], "").0,
            Err(missing)
        );
        // Errors come in the order of the words.
        let (login, _) = request(&["login", "n", "--user", "--url"], "");
        assert_eq!(
            login.map_err(|e| e.to_string()),
            Err("unknown flag '--user' for auth login\nUsage: agent-browser agent-browser auth login <name> [--url <url>] [--username-selector <s>] [--password-selector <s>] [--submit-selector <s>]".into())
        );
    }
}
