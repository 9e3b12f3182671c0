//! Secrets kept out of messages: the query of a URL (it may carry a service's token) is
//! stripped before the URL is logged, recorded or put in an error.

/// Strips the query (tokens) from an address for messages.
pub(crate) fn redact(url: &str) -> String {
    url.split('?').next().unwrap_or(url).to_string()
}

/// `text` with the query of every URL in it removed (error texts may quote a URL with a token).
pub(crate) fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_query = false;
    for c in text.chars() {
        if in_query {
            if c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ',' | ';') {
                in_query = false;
                out.push(c);
            }
            continue;
        }
        if c == '?' {
            in_query = true;
            continue;
        }
        out.push(c);
    }
    out
}
