//! What a rendering is ([`Rendered`]: stdout, stderr, exit code) and how to print
//! ([`OutputOptions`]). A leaf: the text rules, the error lines and every command that prints
//! by itself build on it.

use crate::globals::Flags;

/// What to write and how to exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Text for stdout (complete lines, each ending in `\n`).
    pub stdout: String,
    /// Text for stderr (complete lines).
    pub stderr: String,
    /// Process exit code (0 success, 1 failure).
    pub exit_code: i32,
}

impl Rendered {
    /// Append another rendering (stdout after stdout, stderr after stderr); the exit code becomes 1
    /// if either failed.
    pub fn append(&mut self, other: Rendered) {
        // Moved, not copied, into an empty rendering: a large snapshot is half a megabyte.
        join(&mut self.stdout, other.stdout);
        join(&mut self.stderr, other.stderr);
        self.exit_code = self.exit_code.max(other.exit_code);
    }

    pub(crate) fn out(&mut self, line: &str) {
        // Room for the line and its newline at once: no second, doubled buffer for a large one.
        self.stdout.reserve(line.len() + 1);
        self.stdout.push_str(line);
        self.stdout.push('\n');
    }

    pub(crate) fn err(&mut self, line: &str) {
        self.stderr.push_str(line);
        self.stderr.push('\n');
    }
}

/// How to print.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputOptions {
    /// `--json`: one JSON line on stdout.
    pub json: bool,
    /// `--content-boundaries`: wrap page-derived text in nonce markers.
    pub content_boundaries: bool,
    /// `--max-output N`: truncate page-derived text to N characters.
    pub max_output: Option<usize>,
    /// ANSI colours (`AGENT_BROWSER_COLOR` truthy and `NO_COLOR` unset).
    pub color: bool,
    /// Nonce for boundary markers (32 hex chars, random per process; empty without
    /// `--content-boundaries`, which is the only output that prints it).
    pub boundary_nonce: String,
}

impl OutputOptions {
    /// Options from resolved flags, with a fresh random boundary nonce when boundaries are on.
    pub fn from_flags(flags: &Flags) -> Self {
        Self {
            json: flags.json,
            content_boundaries: flags.content_boundaries,
            max_output: flags.max_output,
            color: flags.color,
            boundary_nonce: if flags.content_boundaries {
                random_nonce()
            } else {
                String::new()
            },
        }
    }

    /// Plain text output (used before flags are known: no boundaries, so no nonce).
    pub fn plain(color: bool) -> Self {
        Self {
            color,
            ..Self::default()
        }
    }
}

/// 16 random bytes as 32 lowercase hex digits (from `/dev/urandom`; falls back to a hash of the
/// clock and PID where that is unavailable).
pub fn random_nonce() -> String {
    use std::io::Read;
    let mut buf = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok();
    if !filled {
        use sha2::{Digest, Sha256};
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        let digest = Sha256::digest(seed.as_bytes());
        buf.copy_from_slice(&digest[..16]);
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// `tail` after `head`.
fn join(head: &mut String, tail: String) {
    if head.is_empty() {
        *head = tail;
    } else {
        head.push_str(&tail);
    }
}
