//! What several commands share: the one-selector request, argv helpers, serialization and
//! handler helpers.

use abx_daemon::errors::Failure;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::error::ParseError;
use super::spec::Input;

/// System CA bundles probed (in order) for `read`'s implicit `tls.caCert`.
pub const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// `{"selector": …}`: the request of every command that takes one element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectorRequest {
    /// CSS, `xpath=…` or a snapshot ref (`@e3`).
    pub selector: Option<String>,
}

impl SelectorRequest {
    /// The selector, or upstream's `Missing required parameter: selector`.
    pub fn selector(&self) -> Result<&str, Failure> {
        required(&self.selector, "selector")
    }
}

/// A required field, or upstream's `Missing required parameter: <name>`.
pub(crate) fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, Failure> {
    value
        .as_deref()
        .ok_or_else(|| Failure::message(abx_wire::Request::missing(name)))
}

/// `<command> <selector>`: the grammar of every one-element command.
pub(crate) fn selector_grammar(
    input: &Input<'_>,
    action: &str,
    usage: &'static str,
) -> Result<Value, ParseError> {
    let selector = input
        .rest
        .first()
        .ok_or_else(|| ParseError::missing(input.word, usage))?;
    Ok(abx_wire::encode(
        action,
        &SelectorRequest {
            selector: Some(selector.to_string()),
        },
    ))
}

/// An engine result as reply data.
pub(crate) fn data<T: Serialize>(value: T) -> Result<Value, Failure> {
    serde_json::to_value(value)
        .map_err(|e| Failure::message(format!("cannot encode the result: {e}")))
}

/// Writes an output file, creating its directory.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::message(format!("Cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, bytes)
        .map_err(|e| Failure::message(format!("Cannot write {}: {e}", path.display())))
}

/// Prepend `https://` unless the URL starts (case-insensitively) with a known scheme.
pub fn normalize_url(url: &str) -> String {
    let lower = url.to_lowercase();
    const SCHEMES: &[&str] = &[
        "http://",
        "https://",
        "about:",
        "data:",
        "file:",
        "chrome-extension://",
        "chrome://",
    ];
    if SCHEMES.iter().any(|s| lower.starts_with(s)) {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

pub(crate) fn record_url(url: &str) -> String {
    if url.starts_with("http") || url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

/// Split a string into words the way a POSIX shell would for simple quoting: double and single
/// quotes group, backslash escapes the next character outside single quotes.
pub fn shell_words_split(s: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut in_double = false;
    let mut in_single = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !in_single => {
                if let Some(next) = chars.next() {
                    current.push(next);
                    in_word = true;
                }
            }
            '"' if !in_single => {
                in_double = !in_double;
                in_word = true;
            }
            '\'' if !in_double => {
                in_single = !in_single;
                in_word = true;
            }
            c if c.is_whitespace() && !in_double && !in_single => {
                if in_word {
                    args.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            _ => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        args.push(current);
    }
    args
}

pub(crate) fn flag_value<'a>(rest: &[&'a str], names: &[&str]) -> Option<&'a str> {
    rest.iter()
        .position(|s| names.contains(s))
        .and_then(|i| rest.get(i + 1).copied())
}

/// Parse a cookie file for `cookies set --curl`: a JSON array of `{name, value}`, a "Copy as cURL"
/// command (its `Cookie:` header, `-b` or `--cookie`), or a bare `a=1; b=2` header. Errors never
/// echo cookie values.
pub fn parse_cookie_file(raw: &str) -> Result<Vec<Value>, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err("cookies file is empty".to_string());
    }
    if trimmed.starts_with('[') {
        let list: Vec<Value> = serde_json::from_str(trimmed).map_err(|e| {
            format!(
                "cookies JSON parse error at line {} column {}",
                e.line(),
                e.column()
            )
        })?;
        return list
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = c
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("cookies[{i}] missing string name"))?;
                let value = c
                    .get("value")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("cookies[{i}] missing string value"))?;
                Ok(json!({ "name": name, "value": value }))
            })
            .collect();
    }
    let lower: String = trimmed.chars().take(5).collect::<String>().to_lowercase();
    let looks_like_curl = lower.starts_with("curl")
        && lower
            .chars()
            .nth(4)
            .is_some_and(|c| c.is_whitespace() || c == '\'' || c == '"');
    let header = if looks_like_curl {
        cookie_header_from_curl(trimmed).ok_or_else(|| {
            "no Cookie header found in this cURL - right-click an authenticated request in DevTools → Network → Copy → Copy as cURL".to_string()
        })?
    } else {
        trimmed.to_string()
    };
    let cookies: Vec<Value> = header
        .split(';')
        .filter_map(|piece| {
            let (name, value) = piece.trim().split_once('=')?;
            let name = name.trim();
            (!name.is_empty()).then(|| json!({ "name": name, "value": value.trim() }))
        })
        .collect();
    if cookies.is_empty() {
        return Err("no cookies found in input".to_string());
    }
    Ok(cookies)
}

fn cookie_header_from_curl(curl: &str) -> Option<String> {
    let joined = curl
        .replace("\\\r\n", " ")
        .replace("\\\n", " ")
        .replace("^\r\n", " ")
        .replace("^\n", " ");
    let words = shell_words_split(&joined);
    let mut iter = words.iter();
    let mut found: Option<String> = None;
    while let Some(word) = iter.next() {
        match word.as_str() {
            "-H" | "--header" => {
                if let Some(h) = iter.next()
                    && let Some((name, value)) = h.split_once(':')
                    && name.trim().eq_ignore_ascii_case("cookie")
                    && found.is_none()
                {
                    found = Some(value.trim().to_string());
                }
            }
            "-b" | "--cookie" => {
                if let Some(v) = iter.next()
                    && found.is_none()
                {
                    found = Some(v.clone());
                }
            }
            _ => {}
        }
    }
    found
}

/// Writes a whole number without a fraction (`300`, not `300.0`), as upstream's CLI sends a
/// number it parsed as an integer; other numbers as they are.
pub(crate) fn whole_number<S: serde::Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => serializer.serialize_i64(*n as i64),
        Some(n) => serializer.serialize_f64(*n),
        None => serializer.serialize_none(),
    }
}
