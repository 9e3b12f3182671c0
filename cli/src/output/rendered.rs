//! What a rendering is ([`Rendered`]: stdout, stderr, exit code) and how to print
//! ([`OutputOptions`]). A leaf: the text rules, the error lines and every command that prints
//! by itself build on it.

use crate::globals::Flags;

/// What to write and how to exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Text printed on stdout before [`Rendered::stdout`] straight from the memory file the
    /// daemon passed (an unchanged page's snapshot), never copied into this process.
    pub stdout_file: Option<PassedText>,
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
    pub fn append(&mut self, mut other: Rendered) {
        // A passed text can only stay in its file where it still comes first on stdout.
        if let Some(file) = other.stdout_file.take() {
            if self.stdout.is_empty() && self.stdout_file.is_none() {
                self.stdout_file = Some(file);
            } else {
                other.stdout.insert_str(0, &file.text());
            }
        }
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

/// A text the daemon passed as a sealed memory file (`abxTail` with a descriptor): printed from
/// the file with `sendfile` where the output allows it.
#[derive(Debug, Clone)]
pub struct PassedText {
    file: std::sync::Arc<std::fs::File>,
    len: usize,
}

impl PartialEq for PassedText {
    fn eq(&self, other: &PassedText) -> bool {
        std::sync::Arc::ptr_eq(&self.file, &other.file) && self.len == other.len
    }
}

impl Eq for PassedText {}

impl PassedText {
    /// The first `len` bytes of `file` (read at their offset: the file's own offset is shared
    /// with the daemon that wrote it).
    pub fn new(file: std::fs::File, len: usize) -> PassedText {
        PassedText {
            file: std::sync::Arc::new(file),
            len,
        }
    }

    /// The text, read into this process; empty when it cannot be read or is not UTF-8 (the
    /// reply was checked to fit in it when it came).
    pub fn text(&self) -> String {
        let mut bytes = vec![0; self.len];
        match std::os::unix::fs::FileExt::read_exact_at(&*self.file, &mut bytes, 0) {
            Ok(()) => String::from_utf8(bytes).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Writes the text on stdout (`out` is its lock): by `sendfile`, with no copy through this
    /// process, or through `out` where stdout cannot take that (a terminal).
    pub fn print(&self, out: &mut std::io::StdoutLock<'_>) -> std::io::Result<()> {
        use std::io::Write as _;
        use std::os::fd::AsFd;
        out.flush()?;
        let mut offset: i64 = 0;
        let end = i64::try_from(self.len).unwrap_or(i64::MAX);
        while offset < end {
            let left = usize::try_from(end - offset).unwrap_or(usize::MAX);
            match nix::sys::sendfile::sendfile(
                out.as_fd(),
                self.file.as_fd(),
                Some(&mut offset),
                left,
            ) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(nix::errno::Errno::EINVAL | nix::errno::Errno::ENOSYS) if offset == 0 => {
                    return out.write_all(self.text().as_bytes());
                }
                Err(err) => return Err(err.into()),
            }
        }
        Ok(())
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
