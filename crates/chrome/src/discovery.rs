//! Finding the Chrome executable.

use std::path::{Path, PathBuf};

use crate::LaunchError;

/// Names tried on `PATH`, in order, when no executable is given.
pub const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// Resolves the Chrome executable: `explicit` (e.g. `AGENT_BROWSER_EXECUTABLE_PATH`) when given,
/// otherwise the first of [`CANDIDATES`] found on `PATH`. Never downloads anything.
pub fn find_chrome(explicit: Option<&Path>) -> Result<PathBuf, LaunchError> {
    if let Some(path) = explicit {
        if path.as_os_str().is_empty() {
            return Err(LaunchError::ExecutableNotFound {
                checked: vec!["(empty executable path)".into()],
            });
        }
        // A bare name is looked up on PATH; a path must exist and be a file.
        if path.components().count() == 1 && !path.is_absolute() {
            return which::which(path).map_err(|_| LaunchError::ExecutableNotFound {
                checked: vec![path.display().to_string()],
            });
        }
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        return Err(LaunchError::ExecutableNotFound {
            checked: vec![path.display().to_string()],
        });
    }
    for name in CANDIDATES {
        if let Ok(found) = which::which(name) {
            return Ok(found);
        }
    }
    Err(LaunchError::ExecutableNotFound {
        checked: CANDIDATES
            .iter()
            .map(|c| format!("{c} (on PATH)"))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_explicit_path_is_an_error_naming_it() {
        let err = find_chrome(Some(Path::new("/nonexistent/chrome-xyz"))).expect_err("missing");
        assert!(err.to_string().contains("/nonexistent/chrome-xyz"), "{err}");
    }

    #[test]
    fn an_existing_explicit_path_is_used_as_is() {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        assert_eq!(find_chrome(Some(file.path())).expect("found"), file.path());
    }
}
