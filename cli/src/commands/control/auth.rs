//! `auth save|login|list|delete|show`: the credential vault. Not implemented yet: the daemon
//! answers `Not yet implemented: auth_*`.

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

/// The command.
pub const COMMAND: Command = Command {
    names: &["auth"],
    help: Some(Help {
        about: "Credential vault",
        usage: &["auth <save|login|list|delete|show> ..."],
        examples: &[
            "auth save github --url https://github.com/login --username ada --password-stdin",
            "auth login github",
        ],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(SAVE),
        Action::todo(LOGIN),
        Action::todo(LIST),
        Action::todo(DELETE),
        Action::todo(SHOW),
    ],
};

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
            let mut selectors: Vec<(&str, &str)> = Vec::new();
            let mut j = 2;
            while j < rest.len() {
                match rest[j] {
                    "--url" => {
                        url = rest.get(j + 1).copied();
                        j += 1;
                    }
                    "--username" => {
                        username = rest.get(j + 1).copied();
                        j += 1;
                    }
                    "--password" => {
                        password = rest.get(j + 1).map(|p| p.to_string());
                        j += 1;
                    }
                    "--password-stdin" => password_stdin = true,
                    "--username-selector" | "--password-selector" | "--submit-selector" => {
                        let key = match rest[j] {
                            "--username-selector" => "usernameSelector",
                            "--password-selector" => "passwordSelector",
                            _ => "submitSelector",
                        };
                        if let Some(v) = rest.get(j + 1) {
                            selectors.push((key, v));
                        }
                        j += 1;
                    }
                    other if other.starts_with("--") => {
                        return Err(ParseError::invalid(
                            format!("unknown flag '{other}' for auth save"),
                            SAVE_USAGE,
                        ));
                    }
                    _ => {}
                }
                j += 1;
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
            let mut req = Req::new(SAVE)
                .set("name", *name)
                .set("url", url)
                .set("username", username);
            if let Some(p) = password {
                req.put("password", p);
            }
            for (key, value) in selectors {
                req.put(key, value);
            }
            ok(req)
        }
        Some("login") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth login", "agent-browser auth login <name>")
            })?;
            ok(Req::new(LOGIN).set("name", *name))
        }
        Some("list") => ok(Req::new(LIST)),
        Some("delete") | Some("remove") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth delete", "agent-browser auth delete <name>")
            })?;
            ok(Req::new(DELETE).set("name", *name))
        }
        Some("show") => {
            let name = rest.get(1).ok_or_else(|| {
                ParseError::missing("auth show", "agent-browser auth show <name>")
            })?;
            ok(Req::new(SHOW).set("name", *name))
        }
        other => Err(ParseError::unknown_sub(
            other.unwrap_or("(none)"),
            &["save", "login", "list", "delete", "show"],
        )),
    }
}
