//! URL globs for `wait --url`: `*` matches within a path segment, `**` across segments, `?` one
//! character; a pattern without wildcards matches as a substring (upstream accepts both).

/// A compiled URL glob.
#[derive(Clone, Debug)]
pub struct Glob {
    pattern: String,
}

impl Glob {
    /// Compiles `pattern`.
    pub fn new(pattern: &str) -> Glob {
        Glob {
            pattern: pattern.to_string(),
        }
    }

    /// Whether `url` matches.
    pub fn matches(&self, url: &str) -> bool {
        if !self.pattern.contains(['*', '?']) {
            return url == self.pattern || url.contains(&self.pattern);
        }
        matches_at(self.pattern.as_bytes(), url.as_bytes())
    }
}

fn matches_at(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some(b'*') => {
            let double = pattern.get(1) == Some(&b'*');
            let rest = if double { &pattern[2..] } else { &pattern[1..] };
            for i in 0..=text.len() {
                if i > 0 && !double && text[i - 1] == b'/' {
                    return false;
                }
                if matches_at(rest, &text[i..]) {
                    return true;
                }
            }
            false
        }
        Some(b'?') => !text.is_empty() && matches_at(&pattern[1..], &text[1..]),
        Some(c) => text.first() == Some(c) && matches_at(&pattern[1..], &text[1..]),
    }
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
    }
}
