//! HTML as plain reading text, without a browser: the conversion an HTTP `read` applies to an
//! HTML body, made to give the same text as upstream's (agent-browser 0.41.2) byte for byte.
//!
//! It is a tag scan, not a parser: scripts, styles, `noscript`, `svg` and `head` go with their
//! content; block elements become blank lines, list items `- `, headings `#`s and `pre` a fenced
//! block; every other tag goes and its text stays (links keep their words, not their target);
//! a few entities are decoded; whitespace collapses per line and runs of blank lines to one.

/// Elements dropped with everything inside them, in the order they are removed.
const DROPPED: [&str; 5] = ["script", "style", "noscript", "svg", "head"];

/// Elements whose start and end are paragraph breaks.
const BLOCKS: [&str; 13] = [
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "blockquote",
    "table",
    "tr",
    "ul",
    "ol",
];

/// The reading text of an HTML document.
pub fn to_text(html: &str) -> String {
    let mut html = html.to_string();
    for name in DROPPED {
        html = drop_elements(&html, name);
    }
    let mut text = String::with_capacity(html.len());
    let mut in_pre = false;
    let mut rest = html.as_str();
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (tag, next) = match after.find('>') {
            Some(close) => (&after[..close], &after[close + 1..]),
            None => (after, ""),
        };
        tag_break(tag, &mut text, &mut in_pre);
        rest = next;
    }
    text.push_str(rest);
    let mut text = decode_entities(&text);
    if in_pre {
        text.push_str("\n```");
    }
    tidy(&text)
}

/// `html` without the `name` elements and their content. An element that is never closed takes
/// the rest of the document with it.
fn drop_elements(html: &str, name: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let end_tag = format!("</{name}>");
    let mut kept = String::with_capacity(html.len());
    let mut at = 0;
    while let Some(start) = start_tag(&lower, name, at) {
        kept.push_str(&html[at..start]);
        let content = lower[start..]
            .find('>')
            .map_or(html.len(), |gt| start + gt + 1);
        at = lower[content..]
            .find(&end_tag)
            .map_or(html.len(), |end| content + end + end_tag.len());
    }
    kept.push_str(&html[at..]);
    kept
}

/// Where the next `<name` start tag begins (the name must end there: `<head>` is not
/// `<header>`).
fn start_tag(lower: &str, name: &str, from: usize) -> Option<usize> {
    let needle = format!("<{name}");
    let mut from = from;
    loop {
        let start = from + lower[from..].find(&needle)?;
        let end = start + needle.len();
        match lower.as_bytes().get(end) {
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>') => {
                return Some(start);
            }
            Some(_) => from = end,
        }
    }
}

/// The text a tag leaves behind (`tag` is what stands between `<` and `>`).
fn tag_break(tag: &str, text: &mut String, in_pre: &mut bool) {
    let tag = tag.trim();
    if tag.is_empty() || tag.starts_with(['!', '?']) {
        return;
    }
    let end = tag.starts_with('/');
    let name = tag
        .trim_start_matches('/')
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_ascii_lowercase();
    let heading = match name.as_bytes() {
        [b'h', level @ b'1'..=b'6'] => Some(usize::from(level - b'0')),
        _ => None,
    };
    let block = BLOCKS.contains(&name.as_str());
    if end {
        if name == "pre" {
            text.push_str("\n```\n\n");
            *in_pre = false;
        } else if block || heading.is_some() || name == "li" {
            text.push_str("\n\n");
        }
        return;
    }
    if let Some(level) = heading {
        text.push_str("\n\n");
        text.push_str(&"#".repeat(level));
        text.push(' ');
    } else if block {
        text.push_str("\n\n");
    } else {
        match name.as_str() {
            "br" => text.push('\n'),
            "li" => text.push_str("\n- "),
            "pre" => {
                text.push_str("\n\n```\n");
                *in_pre = true;
            }
            _ => {}
        }
    }
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric references. Anything else
/// stays as written, less the `;` that ended it (upstream's text).
fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '&' {
            out.push(c);
            continue;
        }
        let mut name = String::new();
        while let Some(&next) = chars.peek() {
            if next == ';' {
                chars.next();
                break;
            }
            if name.len() >= 16 || next.is_whitespace() || next == '&' {
                break;
            }
            name.push(next);
            chars.next();
        }
        match entity(&name) {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('&');
                out.push_str(&name);
            }
        }
    }
    out
}

fn entity(name: &str) -> Option<char> {
    let numeric = |digits: &str, radix| u32::from_str_radix(digits, radix).ok();
    let code = match name {
        "amp" => return Some('&'),
        "lt" => return Some('<'),
        "gt" => return Some('>'),
        "quot" => return Some('"'),
        "apos" => return Some('\''),
        "nbsp" => return Some(' '),
        _ => match name.strip_prefix('#') {
            Some(hex) if hex.starts_with(['x', 'X']) => numeric(&hex[1..], 16),
            Some(dec) => numeric(dec, 10),
            None => None,
        },
    };
    code.and_then(char::from_u32)
}

/// One space between words outside fenced blocks, trailing space off inside them, at most one
/// blank line in a row, none at the ends.
fn tidy(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut fenced = false;
    let mut blank_before = false;
    for raw in text.lines() {
        let line = if fenced {
            raw.trim_end().to_string()
        } else {
            raw.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        if line.trim() == "```" {
            fenced = !fenced;
        }
        if line.trim().is_empty() {
            if !blank_before && !lines.is_empty() {
                lines.push(String::new());
            }
            blank_before = true;
        } else {
            blank_before = false;
            lines.push(line);
        }
    }
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::to_text;

    #[test]
    fn blocks_become_paragraphs_and_inline_markup_goes() {
        let html = "<html><head><title>T</title></head><body><header><p>site</p></header>\
            <h1>Guide</h1><p>Some <strong>bold</strong> and a <a href=\"/x\">link</a>.</p>\
            <ul><li>one</li><li>two</li></ul></body></html>";
        assert_eq!(
            to_text(html),
            "site\n\n# Guide\n\nSome bold and a link.\n\n- one\n\n- two"
        );
    }

    #[test]
    fn pre_is_fenced_and_keeps_its_spacing() {
        assert_eq!(
            to_text("<p>x</p><pre><code>a  b\n  c</code></pre><p>y</p>"),
            "x\n\n```\na  b\n  c\n```\n\ny"
        );
        assert_eq!(to_text("<pre>open"), "```\nopen\n```");
    }

    #[test]
    fn scripts_styles_and_head_go_with_their_content() {
        let html = "<head><style>p{}</style></head><script>var a = '<p>';</script>\
            <header>kept</header><svg><text>no</text></svg><noscript>no</noscript>";
        assert_eq!(to_text(html), "kept");
    }

    #[test]
    fn entities_known_and_unknown() {
        assert_eq!(
            to_text("a &amp; b &lt;c&gt; &#65;&#x42; &copy; x&nbsp;y &#zz;"),
            "a & b <c> AB &copy x y &#zz"
        );
    }

    #[test]
    fn table_cells_run_together_as_upstream_prints_them() {
        let html =
            "<table><tr><th>Name</th><th>Score</th></tr><tr><td>Ann</td><td>9</td></tr></table>";
        assert_eq!(to_text(html), "NameScore\n\nAnn9");
    }
}
