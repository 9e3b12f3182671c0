//! What the parser may learn about the world, behind one trait.
//!
//! The parser never reads the process environment, the file system or stdin directly: it asks a
//! [`Host`]. [`SystemHost`] answers from the real process; [`MemoryHost`] answers from maps so tests
//! can pin HOME, the working directory, environment variables, files and stdin.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The environment a CLI invocation runs in.
pub trait Host {
    /// The value of an environment variable (`None` when unset or not valid UTF-8).
    fn var(&self, name: &str) -> Option<String>;
    /// The user's home directory.
    fn home_dir(&self) -> Option<PathBuf>;
    /// The current working directory (relative paths are resolved against it).
    fn current_dir(&self) -> PathBuf;
    /// The system temporary directory.
    fn temp_dir(&self) -> PathBuf;
    /// Read a whole text file.
    fn read_to_string(&self, path: &Path) -> io::Result<String>;
    /// Whether a file exists at `path`.
    fn exists(&self, path: &Path) -> bool;
    /// Read all of stdin (only called for `eval --stdin`, `batch` without arguments and
    /// `auth save --password-stdin`).
    fn read_stdin(&self) -> io::Result<String>;
}

/// The real process: `std::env`, the file system, the process's stdin.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemHost;

impl Host for SystemHost {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn home_dir(&self) -> Option<PathBuf> {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    }

    fn current_dir(&self) -> PathBuf {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
    }

    fn temp_dir(&self) -> PathBuf {
        std::env::temp_dir()
    }

    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn read_stdin(&self) -> io::Result<String> {
        let mut input = String::new();
        io::stdin().read_to_string(&mut input)?;
        Ok(input)
    }
}

/// An in-memory [`Host`] for tests: nothing is read from the real process.
#[derive(Debug, Clone)]
pub struct MemoryHost {
    vars: HashMap<String, String>,
    home: Option<PathBuf>,
    cwd: PathBuf,
    temp: PathBuf,
    files: HashMap<PathBuf, String>,
    stdin: Option<String>,
}

impl Default for MemoryHost {
    fn default() -> Self {
        Self {
            vars: HashMap::new(),
            home: Some(PathBuf::from("/home/test")),
            cwd: PathBuf::from("/work/project"),
            temp: PathBuf::from("/tmp"),
            files: HashMap::new(),
            stdin: None,
        }
    }
}

impl MemoryHost {
    /// A host with HOME `/home/test`, cwd `/work/project`, no variables, files or stdin.
    pub fn new() -> Self {
        Self::default()
    }

    /// Set an environment variable.
    pub fn with_var(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_string(), value.to_string());
        self
    }

    /// Set (or clear) the home directory.
    pub fn with_home(mut self, home: Option<&Path>) -> Self {
        self.home = home.map(Path::to_path_buf);
        self
    }

    /// Set the working directory.
    pub fn with_cwd(mut self, cwd: &Path) -> Self {
        self.cwd = cwd.to_path_buf();
        self
    }

    /// Set the temporary directory.
    pub fn with_temp_dir(mut self, temp: &Path) -> Self {
        self.temp = temp.to_path_buf();
        self
    }

    /// Add a file with the given content.
    pub fn with_file(mut self, path: &Path, content: &str) -> Self {
        self.files.insert(path.to_path_buf(), content.to_string());
        self
    }

    /// Provide stdin content.
    pub fn with_stdin(mut self, stdin: &str) -> Self {
        self.stdin = Some(stdin.to_string());
        self
    }
}

impl Host for MemoryHost {
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    fn home_dir(&self) -> Option<PathBuf> {
        self.home.clone()
    }

    fn current_dir(&self) -> PathBuf {
        self.cwd.clone()
    }

    fn temp_dir(&self) -> PathBuf {
        self.temp.clone()
    }

    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        self.files.get(path).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "No such file or directory (os error 2)",
            )
        })
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    fn read_stdin(&self) -> io::Result<String> {
        Ok(self.stdin.clone().unwrap_or_default())
    }
}
