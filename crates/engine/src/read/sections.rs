//! `--outline` and `--filter` over reading text (Markdown headings), with upstream's wording for
//! what they find or do not find.

struct Heading<'a> {
    level: usize,
    title: &'a str,
}

/// An ATX heading line (`## Title ##`), levels 1 to 6.
fn heading(line: &str) -> Option<Heading<'_>> {
    let line = line.trim_start();
    let level = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim();
    (!title.is_empty()).then_some(Heading { level, title })
}

fn contains(haystack: &str, needle_lower: &str) -> bool {
    haystack.to_ascii_lowercase().contains(needle_lower)
}

/// `content` shaped by the read options: its outline (headings from `source_url`), else the
/// sections `filter` picks, else as it is; `source` gets `-outline` or `-filtered` to say so.
pub(super) fn shape(
    source: &str,
    content: String,
    source_url: &str,
    outline_only: bool,
    filter_by: Option<&str>,
) -> (String, String) {
    if outline_only {
        (
            format!("{source}-outline"),
            outline(&content, source_url, filter_by),
        )
    } else if let Some(needle) = filter_by {
        (format!("{source}-filtered"), filter(&content, needle))
    } else {
        (source.to_string(), content)
    }
}

/// `# Outline`, the source, then the headings as a nested list (only those containing
/// `filter`, when given).
pub(super) fn outline(content: &str, source: &str, filter: Option<&str>) -> String {
    let needle = filter.map(str::to_ascii_lowercase);
    let headings: Vec<Heading<'_>> = content
        .lines()
        .filter_map(heading)
        .filter(|h| needle.as_deref().is_none_or(|n| contains(h.title, n)))
        .collect();
    if headings.is_empty() {
        return if filter.is_some() {
            "No matching headings"
        } else {
            "No headings found"
        }
        .to_string();
    }
    let mut out = format!("# Outline\n\nSource: {source}\n");
    for h in headings {
        out.push('\n');
        out.push_str(&"  ".repeat(h.level - 1));
        out.push_str("- ");
        out.push_str(h.title);
    }
    out
}

/// The sections whose heading contains `filter` (each with its subsections); failing that, the
/// heading-delimited chunks that mention it; failing that, the lines that do.
pub(super) fn filter(content: &str, filter: &str) -> String {
    let needle = filter.to_ascii_lowercase();
    let lines: Vec<&str> = content.lines().collect();
    let headings: Vec<(usize, Heading<'_>)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| heading(line).map(|h| (i, h)))
        .collect();
    let mut sections = Vec::new();
    let mut covered_to = 0;
    for (n, (start, h)) in headings.iter().enumerate() {
        if *start < covered_to || !contains(h.title, &needle) {
            continue;
        }
        let end = headings[n + 1..]
            .iter()
            .find(|(_, next)| next.level <= h.level)
            .map_or(lines.len(), |(i, _)| *i);
        covered_to = end;
        sections.push(lines[*start..end].join("\n").trim().to_string());
    }
    if !sections.is_empty() {
        return sections.join("\n\n");
    }
    mentions(content, &needle, "No matching page sections")
}

/// Chunks of `body` (split before lines starting with `#`) that mention `needle_lower`, or the
/// lines that do, or `none`.
fn mentions(body: &str, needle_lower: &str, none: &str) -> String {
    let mut chunks = Vec::new();
    let mut chunk = String::new();
    for line in body.lines() {
        if line.trim_start().starts_with('#') && !chunk.trim().is_empty() {
            if contains(&chunk, needle_lower) {
                chunks.push(chunk.trim().to_string());
            }
            chunk.clear();
        }
        chunk.push_str(line);
        chunk.push('\n');
    }
    if !chunk.trim().is_empty() && contains(&chunk, needle_lower) {
        chunks.push(chunk.trim().to_string());
    }
    if !chunks.is_empty() {
        return chunks.join("\n\n");
    }
    let lines: Vec<&str> = body
        .lines()
        .filter(|line| contains(line, needle_lower))
        .collect();
    if lines.is_empty() {
        none.to_string()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str =
        "intro\n\n# Guide\n\ntext\n\n## Setup\n\nsteps\n\n### Deep\n\nmore\n\n## Usage\n\nuse it";

    #[test]
    fn outline_nests_by_level() {
        assert_eq!(
            outline(PAGE, "http://x/", None),
            "# Outline\n\nSource: http://x/\n\n- Guide\n  - Setup\n    - Deep\n  - Usage"
        );
        assert_eq!(outline(PAGE, "u", Some("nothing")), "No matching headings");
        assert_eq!(outline("plain", "u", None), "No headings found");
    }

    #[test]
    fn filter_keeps_a_section_with_its_subsections() {
        assert_eq!(
            filter(PAGE, "SETUP"),
            "## Setup\n\nsteps\n\n### Deep\n\nmore"
        );
        assert_eq!(filter(PAGE, "use it"), "## Usage\n\nuse it");
        assert_eq!(filter("a\nb", "zzz"), "No matching page sections");
    }
}
