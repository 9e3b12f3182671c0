//! The one URL glob matcher, in the two syntaxes upstream gives its commands:
//!
//! - [`Glob::new`] (`wait --url`, saved-login checks): `*` matches within a path segment, `**`
//!   across segments, `?` one character; a pattern without wildcards matches as a substring
//!   (upstream accepts both).
//! - [`Glob::route`] (`network route`): `*` (and `**`, the same) stands for any run of characters,
//!   every other character for itself; a pattern without `*` is the exact URL. This is what
//!   upstream's routes match in effect (its `Fetch.enable` patterns are the route patterns, and
//!   Chrome's `urlPattern` spans the whole URL).
//!
//! Matching is over bytes, in time proportional to pattern × URL (no backtracking blow-up on
//! patterns like `*a*a*a*b`, which routes run against every request).

/// Which glob syntax a pattern is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syntax {
    /// `wait --url`: segment-bound `*`, `**`, `?`; no wildcard means substring.
    Segments,
    /// `network route`: `*` spans anything, `?` is literal; no wildcard means the exact URL.
    Route,
}

/// A compiled URL glob.
#[derive(Clone, Debug)]
pub struct Glob {
    pattern: String,
    syntax: Syntax,
}

impl Glob {
    /// Compiles a `wait --url` pattern.
    pub fn new(pattern: &str) -> Glob {
        Glob {
            pattern: pattern.to_string(),
            syntax: Syntax::Segments,
        }
    }

    /// Compiles a `network route` pattern.
    pub fn route(pattern: &str) -> Glob {
        Glob {
            pattern: pattern.to_string(),
            syntax: Syntax::Route,
        }
    }

    /// Whether `url` matches.
    pub fn matches(&self, url: &str) -> bool {
        matches(self.syntax, &self.pattern, url)
    }
}

/// Whether `url` matches the `network route` pattern `pattern` (no compiled [`Glob`] needed for
/// the per-request check).
pub(crate) fn route_matches(pattern: &str, url: &str) -> bool {
    matches(Syntax::Route, pattern, url)
}

#[derive(Clone, Copy)]
enum Token {
    Byte(u8),
    AnyByte,
    /// A run of bytes; `crosses` says whether it may contain `/`.
    Star {
        crosses: bool,
    },
}

fn matches(syntax: Syntax, pattern: &str, url: &str) -> bool {
    match syntax {
        Syntax::Segments if !pattern.contains(['*', '?']) => return url.contains(pattern),
        Syntax::Route if !pattern.contains('*') => return url == pattern,
        _ => {}
    }
    let text = url.as_bytes();
    // `reach[i]`: the tokens so far can match exactly `text[..i]`.
    let mut reach = vec![false; text.len() + 1];
    reach[0] = true;
    let mut next = vec![false; text.len() + 1];
    for token in tokens(syntax, pattern.as_bytes()) {
        match token {
            Token::Byte(b) => {
                next[0] = false;
                for i in 0..text.len() {
                    next[i + 1] = reach[i] && text[i] == b;
                }
            }
            Token::AnyByte => {
                next[0] = false;
                next[1..].copy_from_slice(&reach[..text.len()]);
            }
            Token::Star { crosses } => {
                next[0] = reach[0];
                for i in 1..=text.len() {
                    next[i] = reach[i] || (next[i - 1] && (crosses || text[i - 1] != b'/'));
                }
            }
        }
        std::mem::swap(&mut reach, &mut next);
        if !reach.contains(&true) {
            return false;
        }
    }
    reach[text.len()]
}

fn tokens(syntax: Syntax, pattern: &[u8]) -> Vec<Token> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        let token = match (syntax, pattern[i]) {
            (Syntax::Segments, b'*') if pattern.get(i + 1) == Some(&b'*') => {
                i += 1;
                Token::Star { crosses: true }
            }
            (Syntax::Segments, b'*') => Token::Star { crosses: false },
            (Syntax::Segments, b'?') => Token::AnyByte,
            (Syntax::Route, b'*') => Token::Star { crosses: true },
            (_, b) => Token::Byte(b),
        };
        out.push(token);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_path_segments() {
        assert!(Glob::new("**/page2.html").matches("http://127.0.0.1:1/page2.html"));
        assert!(Glob::new("http://*/a").matches("http://host/a"));
        assert!(!Glob::new("http://*/a").matches("http://host/x/a"));
        assert!(Glob::new("**/a?c").matches("http://h/abc"));
        assert!(
            Glob::new("page2").matches("http://h/page2.html"),
            "plain text is a substring"
        );
        assert!(!Glob::new("**/page3.html").matches("http://h/page2.html"));
        assert!(Glob::new("***/c").matches("http://h/a/b/c"), "** then *");
        assert!(!Glob::new("http://h/*").matches("http://h/a/b"));
        assert!(
            Glob::new("http://h/*").matches("http://h/"),
            "* may be empty"
        );
        assert!(!Glob::new("a?").matches("a"), "? needs a character");
    }

    #[test]
    fn route_globs_span_the_whole_url() {
        let u = "http://127.0.0.1:8080/api/items?x=1";
        assert!(route_matches(u, u), "no wildcard: the exact URL");
        assert!(!route_matches("/api/items", u), "not a substring");
        assert!(route_matches("*", u));
        assert!(route_matches("**/api/*", u));
        assert!(route_matches("**/api/items*", u));
        assert!(
            !route_matches("**/api/items", u),
            "a glob spans the whole URL"
        );
        assert!(route_matches("http://127.0.0.1:8080/**", u));
        assert!(!route_matches("https://**", u));
        assert!(route_matches("*items*", u));
        assert!(!route_matches("*a*a*a*a*", "http://a/"));
        assert!(
            route_matches("*/x?y=*", "http://h/x?y=1"),
            "? is literal in a route"
        );
        assert!(!route_matches("*/x?y", "http://h/xzy"));
        assert!(
            Glob::route("*/a/*").matches("http://h/a/b/c"),
            "* crosses segments"
        );
    }

    #[test]
    fn many_stars_on_a_long_url_do_not_backtrack_exponentially() {
        let url = format!("http://h/{}", "a".repeat(4000));
        assert!(!route_matches("*a*a*a*a*a*a*a*a*a*a*b", &url));
        assert!(!Glob::new("**a**a**a**a**a**a**a**a**b").matches(&url));
    }
}
