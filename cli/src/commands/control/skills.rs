//! `skills [list] | get <name>… [--full | --ref <ref>… | --all] | path [name]`: abx's own guides
//! for agents, embedded in the binary at build time from the repository's `skills/` directory (so
//! they always match the binary), or read from `AGENT_BROWSER_SKILLS_DIR` (same layout). Answered
//! by the CLI; output shapes (text and `--json`) are upstream 0.41.2's.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::commands::invocation::{Invocation, LocalCommand, LocalRun};
use crate::commands::prelude::{Command, Flag, Grammar, Help, McpTool, Word, scan};
use crate::host::Host;
use crate::output::rendered::Rendered;
use crate::output::text::Palette;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/skills.rs"));
}

/// The variable naming a directory of guides to serve instead of the embedded ones.
pub const SKILLS_DIR_VAR: &str = "AGENT_BROWSER_SKILLS_DIR";

/// The command.
pub const COMMAND: Command = Command {
    names: &["skills"],
    help: Some(Help {
        about: "Guides for agents, matching this binary (start: skills get core)",
        usage: &[
            "skills [list]",
            "skills get <name> [name...] [--full]",
            "skills get <name> --ref <ref> [--ref <ref>...]",
            "skills get --all",
            "skills path [name]",
        ],
        examples: &[
            "skills get core",
            "skills list",
            "skills get core --ref commands",
            "skills get core --full",
            "skills path core",
        ],
        description: "\
Prints the guides for agents that ship inside this binary, so they always match it (or those
in AGENT_BROWSER_SKILLS_DIR). Start with `skills get core`.",
        sections: &[
            (
                "Subcommands",
                &[
                    ("list", "The guides (the default)"),
                    ("get <name>...", "Print guides"),
                    ("path [name]", "Where the guides are on disk"),
                ],
            ),
            (
                "get options",
                &[
                    ("--full", "Include every reference of the guide"),
                    ("--ref <ref>", "Only this reference (repeatable)"),
                    ("--all", "Every guide"),
                ],
            ),
        ],
        ..Help::BLANK
    }),
    grammar: Grammar::Local(parse),
    actions: &[],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        143,
        "agent_browser_skills_list",
        "state",
        &["skills", "list"],
        "",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        144,
        "agent_browser_skills_get",
        "state",
        &["skills", "get"],
        "names:a all:b@--all full:b@--full refs:a@L--ref",
    )
    .read_only()
    .closed_world(),
    McpTool::new(
        145,
        "agent_browser_skills_path",
        "state",
        &["skills", "path"],
        "name:s",
    )
    .read_only()
    .closed_world(),
];

fn parse(clean: &[String]) -> LocalCommand {
    LocalRun::command(clean, run)
}

/// One guide: a directory with a `SKILL.md` and optional `references/` and `templates/`.
#[derive(Debug, Clone)]
pub struct Skill {
    /// `name` from the front matter (the directory name when it has none).
    pub name: String,
    /// `description` from the front matter.
    pub description: String,
    /// `hidden: true` (the discovery stub): served by `get`, not listed.
    pub hidden: bool,
    /// The `SKILL.md` text, front matter included.
    pub content: String,
    /// `references/*` then `templates/*`, each sorted by file name: (path in the guide, text).
    pub parts: Vec<(String, String)>,
    /// Its directory name.
    pub dir: String,
}

/// Where the guides come from.
#[derive(Debug, Clone)]
pub struct Library {
    /// The guides, sorted by name.
    pub skills: Vec<Skill>,
    /// `AGENT_BROWSER_SKILLS_DIR`, when it supplied them.
    pub root: Option<PathBuf>,
}

impl Library {
    /// The embedded guides.
    pub fn embedded() -> Library {
        Library {
            skills: build(
                embedded::FILES
                    .iter()
                    .map(|(p, c)| (p.to_string(), c.to_string())),
            ),
            root: None,
        }
    }

    /// The guides of a directory with the `skills/` layout.
    pub fn from_dir(root: &Path) -> Result<Library, String> {
        if !root.is_dir() {
            return Err(format!(
                "{SKILLS_DIR_VAR}={} is not a directory. Unset it to use the guides built into \
                 this binary.",
                root.display()
            ));
        }
        let mut files = Vec::new();
        let dirs = std::fs::read_dir(root)
            .map_err(|e| format!("Cannot read {SKILLS_DIR_VAR}={}: {e}", root.display()))?;
        for dir in dirs.flatten().filter(|e| e.path().is_dir()) {
            let name = dir.file_name().to_string_lossy().to_string();
            let skill_md = dir.path().join("SKILL.md");
            let Ok(content) = std::fs::read_to_string(&skill_md) else {
                continue;
            };
            files.push((format!("{name}/SKILL.md"), content));
            for sub in ["references", "templates"] {
                let Ok(entries) = std::fs::read_dir(dir.path().join(sub)) else {
                    continue;
                };
                for entry in entries.flatten().filter(|e| e.path().is_file()) {
                    if let Ok(text) = std::fs::read_to_string(entry.path()) {
                        let file = entry.file_name().to_string_lossy().to_string();
                        files.push((format!("{name}/{sub}/{file}"), text));
                    }
                }
            }
        }
        Ok(Library {
            skills: build(files.into_iter()),
            root: Some(root.to_path_buf()),
        })
    }

    /// `AGENT_BROWSER_SKILLS_DIR` when set, else the embedded guides.
    pub fn for_host(host: &dyn Host) -> Result<Library, String> {
        match host.var(SKILLS_DIR_VAR).filter(|v| !v.is_empty()) {
            Some(dir) => Library::from_dir(Path::new(&dir)),
            None => Ok(Library::embedded()),
        }
    }

    /// The guide called `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

fn build(files: impl Iterator<Item = (String, String)>) -> Vec<Skill> {
    let mut skills: Vec<Skill> = Vec::new();
    let mut parts: Vec<(String, String, String)> = Vec::new();
    for (path, text) in files {
        let Some((dir, rest)) = path.split_once('/') else {
            continue;
        };
        if rest == "SKILL.md" {
            let front = front_matter(&text);
            skills.push(Skill {
                name: front.name.unwrap_or_else(|| dir.to_string()),
                description: front.description,
                hidden: front.hidden,
                content: text,
                parts: Vec::new(),
                dir: dir.to_string(),
            });
        } else if rest.starts_with("references/") || rest.starts_with("templates/") {
            parts.push((dir.to_string(), rest.to_string(), text));
        }
    }
    // references before templates, each by file name.
    parts.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    for (dir, rest, text) in parts {
        if let Some(skill) = skills.iter_mut().find(|s| s.dir == dir) {
            skill.parts.push((rest, text));
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    skills
}

#[derive(Default)]
struct Front {
    name: Option<String>,
    description: String,
    hidden: bool,
}

/// The YAML front matter's `name`, `description` (one line, or continued on indented lines) and
/// `hidden`.
fn front_matter(text: &str) -> Front {
    let mut front = Front::default();
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return front;
    }
    let mut in_description = false;
    for line in lines {
        if line.trim_end() == "---" {
            break;
        }
        if in_description && line.starts_with([' ', '\t']) {
            front.description.push(' ');
            front.description.push_str(line.trim());
            continue;
        }
        in_description = false;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match key.trim() {
            "name" => front.name = Some(value.to_string()),
            "description" => {
                front.description = value.to_string();
                in_description = true;
            }
            "hidden" => front.hidden = value == "true",
            _ => {}
        }
    }
    front
}

/// `description` cut at a word boundary to at most `max` bytes, with `...` when cut.
fn truncate(description: &str, max: usize) -> String {
    if description.len() <= max {
        return description.to_string();
    }
    let mut end = max;
    while !description.is_char_boundary(end) {
        end -= 1;
    }
    // Cut at the last space before the limit (upstream's rule), or at the limit in one long word.
    let cut = description[..end].rfind(' ').unwrap_or(end);
    format!("{}...", &description[..cut])
}

/// A part by the names agents use: `commands`, `commands.md`, `references/commands.md`,
/// `form-automation`, `templates/form-automation.sh`.
fn find_part<'a>(skill: &'a Skill, wanted: &str) -> Option<&'a (String, String)> {
    skill.parts.iter().find(|(path, _)| {
        let file = path.rsplit('/').next().unwrap_or(path);
        let stem = file.rsplit_once('.').map(|(s, _)| s).unwrap_or(file);
        path == wanted || file == wanted || stem == wanted
    })
}

/// What one `skills` invocation prints.
struct Out {
    json: bool,
    color: bool,
    rendered: Rendered,
}

impl Out {
    fn data(mut self, data: Value) -> Rendered {
        let line = json!({"success": true, "data": data}).to_string();
        self.rendered.stdout.push_str(&line);
        self.rendered.stdout.push('\n');
        self.rendered
    }

    fn text(mut self, text: &str) -> Rendered {
        self.rendered.stdout.push_str(text);
        self.rendered
    }

    fn fail(mut self, message: &str) -> Rendered {
        self.rendered.exit_code = 1;
        if self.json {
            let line = json!({"success": false, "error": message}).to_string();
            self.rendered.stdout.push_str(&line);
            self.rendered.stdout.push('\n');
        } else {
            let mark = Palette(self.color).fail();
            self.rendered
                .stderr
                .push_str(&format!("{mark} {message}\n"));
        }
        self.rendered
    }

    fn warn(&mut self, message: &str) {
        let mark = Palette(self.color).warn();
        self.rendered
            .stderr
            .push_str(&format!("{mark} {message}\n"));
    }
}

fn run(args: &[String], inv: &Invocation, host: &dyn Host) -> Rendered {
    let out = Out {
        json: inv.output.json,
        color: inv.output.color,
        rendered: Rendered::default(),
    };
    let library = match Library::for_host(host) {
        Ok(library) => library,
        Err(message) => return out.fail(&message),
    };
    match args.first().map(String::as_str) {
        None | Some("list") => list(&library, out),
        Some("get") => get(&library, &args[1..], out),
        Some("path") => path(&library, args.get(1).map(String::as_str), host, out),
        Some(other) => out.fail(&format!("Unknown skills subcommand: {other}")),
    }
}

fn list(library: &Library, out: Out) -> Rendered {
    let shown: Vec<&Skill> = library.skills.iter().filter(|s| !s.hidden).collect();
    if out.json {
        let items: Vec<Value> = shown
            .iter()
            .map(|s| json!({"name": s.name, "description": s.description}))
            .collect();
        return out.data(Value::Array(items));
    }
    if shown.is_empty() {
        return out.text("No skills found\n");
    }
    let width = shown.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for skill in shown {
        text.push_str(&format!(
            "  {:<width$}  {}\n",
            skill.name,
            truncate(&skill.description, 70)
        ));
    }
    out.text(&text)
}

/// `skills get`'s flags. `--ref` takes the next word only when it is not a flag, and is refused
/// without one.
const GET_FLAGS: &[Flag] = &[
    Flag::switch(&["--full"]),
    Flag::switch(&["--all"]),
    Flag::lenient(&["--ref"], |word| !word.starts_with("--")),
];

fn get(library: &Library, args: &[String], mut out: Out) -> Rendered {
    let mut names = Vec::new();
    let mut refs = Vec::new();
    let (mut full, mut all) = (false, false);
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    // Lenient flags never fail.
    for word in scan(&words, GET_FLAGS).flatten() {
        match word {
            Word::Switch("--full") => full = true,
            Word::Switch("--all") => all = true,
            Word::Value(_, r) => refs.push(r.to_string()),
            // `--ref` at the end of the line or before another flag.
            Word::Switch(_) => {
                return out.fail(
                    "--ref needs a value. Usage: agent-browser skills get <name> --ref <ref>",
                );
            }
            Word::Other(flag) if flag.starts_with("--") => {
                out.warn(&format!("Unknown flag ignored: {flag}"));
            }
            Word::Other(name) => names.push(name.to_string()),
        }
    }
    if !refs.is_empty() && (names.len() != 1 || full || all) {
        return out.fail(
            "--ref needs exactly one skill name and cannot be combined with --all or --full. \
             Usage: agent-browser skills get <name> --ref <ref>",
        );
    }
    let chosen: Vec<&Skill> = if all {
        library.skills.iter().filter(|s| !s.hidden).collect()
    } else {
        if names.is_empty() {
            return out.fail("No skill name provided. Usage: agent-browser skills get <name>");
        }
        let mut chosen = Vec::new();
        for name in &names {
            match library.get(name) {
                Some(skill) => chosen.push(skill),
                None => return out.fail(&format!("Skill not found: {name}")),
            }
        }
        chosen
    };

    if !refs.is_empty() {
        let skill = chosen[0];
        let mut found = Vec::new();
        for wanted in &refs {
            match find_part(skill, wanted) {
                Some(part) => found.push(part),
                None => {
                    let available: Vec<&str> =
                        skill.parts.iter().map(|(p, _)| p.as_str()).collect();
                    let available = if available.is_empty() {
                        "none".to_string()
                    } else {
                        available.join(", ")
                    };
                    return out.fail(&format!(
                        "Reference not found: {wanted}. Available: {available}"
                    ));
                }
            }
        }
        if out.json {
            let files: Vec<Value> = found
                .iter()
                .map(|(path, content)| json!({"path": path, "content": content}))
                .collect();
            return out.data(json!([{"name": skill.name, "files": files}]));
        }
        if let [(_, content)] = found.as_slice() {
            return out.text(&with_newline(content));
        }
        let mut text = String::new();
        for (n, (path, content)) in found.iter().enumerate() {
            if n > 0 {
                text.push('\n');
            }
            text.push_str(&format!("--- {path} ---\n\n{}", with_newline(content)));
        }
        return out.text(&text);
    }

    if out.json {
        let items: Vec<Value> = chosen
            .iter()
            .map(|skill| {
                let mut item = json!({"name": skill.name, "content": skill.content});
                if full {
                    item["files"] = skill
                        .parts
                        .iter()
                        .map(|(path, content)| json!({"path": path, "content": content}))
                        .collect();
                }
                item
            })
            .collect();
        return out.data(Value::Array(items));
    }
    let mut text = String::new();
    for (n, skill) in chosen.iter().enumerate() {
        if n > 0 {
            text.push_str("\n---\n\n");
        }
        text.push_str(&with_newline(&skill.content));
        if full {
            for (path, content) in &skill.parts {
                text.push_str(&format!("\n--- {path} ---\n\n{}", with_newline(content)));
            }
        }
    }
    out.text(&text)
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

fn path(library: &Library, name: Option<&str>, host: &dyn Host, out: Out) -> Rendered {
    let root = match &library.root {
        Some(root) => root.clone(),
        None => match materialize(host) {
            Ok(root) => root,
            Err(message) => return out.fail(&message),
        },
    };
    match name {
        Some(name) => {
            let Some(skill) = library.get(name) else {
                return out.fail(&format!("Skill not found: {name}"));
            };
            let dir = root.join(&skill.dir);
            if out.json {
                out.data(json!({"name": skill.name, "path": dir}))
            } else {
                out.text(&format!("{}\n", dir.display()))
            }
        }
        None if out.json => out.data(json!({"paths": [root]})),
        None => out.text(&format!("{}\n", root.display())),
    }
}

/// The embedded guides as files, for tools that copy a skill directory: written once per
/// content under `~/.agent-browser/skills/abx-<hash>/` (the hash of every file, so a new
/// binary with changed guides gets a new directory and an old one is never half-overwritten).
fn materialize(host: &dyn Host) -> Result<PathBuf, String> {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for (path, text) in embedded::FILES {
        hash.update(path.as_bytes());
        hash.update([0]);
        hash.update(text.as_bytes());
        hash.update([0]);
    }
    let digest: String = hash.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let base = host
        .home_dir()
        .map(|home| home.join(".agent-browser"))
        .unwrap_or_else(|| host.temp_dir().join("agent-browser"));
    let root = base.join("skills").join(format!("abx-{digest}"));
    if root.join(".complete").exists() {
        return Ok(root);
    }
    let staging = base
        .join("skills")
        .join(format!(".abx-{digest}-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        for (path, text) in embedded::FILES {
            let file = staging.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&file, text)?;
        }
        std::fs::write(staging.join(".complete"), b"")?;
        match std::fs::rename(&staging, &root) {
            // Another invocation finished first: its copy is the same.
            Err(_) if root.join(".complete").exists() => {
                let _ = std::fs::remove_dir_all(&staging);
                Ok(())
            }
            other => other,
        }
    };
    write().map_err(|e| {
        let _ = std::fs::remove_dir_all(&staging);
        format!(
            "Cannot write the built-in guides to {}: {e}. Set {SKILLS_DIR_VAR} to a directory \
             of guides instead.",
            root.display()
        )
    })?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_guides_have_names_descriptions_and_the_hidden_stub() {
        let library = Library::embedded();
        let names: Vec<&str> = library.skills.iter().map(|s| s.name.as_str()).collect();
        for name in [
            "agent-browser",
            "agentcore",
            "core",
            "derive-client",
            "dogfood",
            "electron",
            "protected-vercel-deployments",
            "slack",
            "vercel-sandbox",
            "webmcp-gen",
        ] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        for skill in &library.skills {
            assert!(
                !skill.description.is_empty(),
                "{} has no description",
                skill.name
            );
            assert_eq!(
                skill.dir, skill.name,
                "front matter name differs from the directory"
            );
        }
        assert!(library.get("agent-browser").is_some_and(|s| s.hidden));
        let core = library.get("core").expect("core");
        assert!(find_part(core, "commands").is_some());
        assert!(find_part(core, "references/commands.md").is_some());
        assert!(find_part(core, "form-automation").is_some());
        let first_template = core
            .parts
            .iter()
            .position(|(p, _)| p.starts_with("templates/"))
            .expect("templates");
        assert!(
            core.parts[..first_template]
                .iter()
                .all(|(p, _)| p.starts_with("references/"))
        );
    }

    #[test]
    fn descriptions_are_cut_at_a_word_within_seventy_bytes() {
        assert_eq!(truncate("short", 70), "short");
        assert_eq!(truncate("one two three", 8), "one two...");
        assert_eq!(truncate("one two three", 7), "one...");
        assert_eq!(truncate("abcdefghij", 4), "abcd...");
        let cut = truncate(&"é".repeat(50), 9);
        assert!(cut.ends_with("..."));
    }

    #[test]
    fn front_matter_reads_continued_descriptions() {
        let front = front_matter("---\nname: x\ndescription: one\n  two\nhidden: true\n---\nbody");
        assert_eq!(front.name.as_deref(), Some("x"));
        assert_eq!(front.description, "one two");
        assert!(front.hidden);
        assert!(front_matter("no front matter").name.is_none());
    }

    #[test]
    fn get_flags_read_refs_and_warn_about_unknown_flags() {
        let library = Library::embedded();
        let get = |line: &str| {
            let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
            let out = Out {
                json: false,
                color: false,
                rendered: Rendered::default(),
            };
            get(&library, &words, out)
        };
        let needs_value = "--ref needs a value. Usage: agent-browser skills get <name> --ref <ref>";
        for line in [
            "core --ref",
            "core --ref --full",
            "--bogus core --ref --ref commands",
        ] {
            let rendered = get(line);
            assert_eq!(rendered.exit_code, 1, "{line}");
            assert!(
                rendered.stderr.ends_with(&format!("{needs_value}\n")),
                "{line}: {rendered:?}"
            );
        }
        // Unknown flags are warned about, in order, and ignored.
        let rendered = get("--bogus core --ref commands --wat");
        assert_eq!(rendered.exit_code, 0);
        let warnings: Vec<&str> = rendered.stderr.lines().collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].ends_with("Unknown flag ignored: --bogus"));
        assert!(warnings[1].ends_with("Unknown flag ignored: --wat"));
        assert_eq!(
            rendered.stdout,
            get("core --ref references/commands.md").stdout
        );
        // `--ref` with `--all` is refused after the words are read.
        assert!(
            get("core --ref commands --all")
                .stderr
                .contains("cannot be combined")
        );
    }
}
