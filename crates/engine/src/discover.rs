//! Finding Chrome on this machine: the user-data directories Chrome, Chromium and Brave keep
//! under a home directory, their profiles (`profiles`), and a running browser with remote
//! debugging (`--auto-connect`), found through the `DevToolsActivePort` file Chrome writes into
//! its user-data directory.
//!
//! ```
//! let dirs = abx_engine::discover::user_data_dirs(std::path::Path::new("/home/ada"));
//! assert_eq!(dirs[0], std::path::Path::new("/home/ada/.config/google-chrome"));
//! ```

use std::path::{Path, PathBuf};

use serde::Serialize;

/// The user-data directories looked at, in order (Linux layout, as upstream): Chrome, Chrome
/// Unstable, Chromium, Brave.
pub fn user_data_dirs(home: &Path) -> Vec<PathBuf> {
    let config = home.join(".config");
    [
        "google-chrome",
        "google-chrome-unstable",
        "chromium",
        "BraveSoftware/Brave-Browser",
    ]
    .iter()
    .map(|name| config.join(name))
    .collect()
}

/// The first of [`user_data_dirs`] that holds a `Local State` file (Chrome has used it).
pub fn find_user_data_dir(home: &Path) -> Option<PathBuf> {
    user_data_dirs(home)
        .into_iter()
        .find(|dir| dir.join("Local State").is_file())
}

/// A profile of a user-data directory.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ChromeProfile {
    /// Its directory (`Default`, `Profile 1`): what `--profile` takes.
    pub directory: String,
    /// The name Chrome shows for it.
    pub name: String,
}

/// The profiles `Local State` lists (`profile.info_cache`), by directory name; empty when the
/// file is missing or not what Chrome writes.
pub fn profiles(user_data_dir: &Path) -> Vec<ChromeProfile> {
    let Ok(text) = std::fs::read_to_string(user_data_dir.join("Local State")) else {
        return Vec::new();
    };
    let Ok(state) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let Some(cache) = state
        .pointer("/profile/info_cache")
        .and_then(|c| c.as_object())
    else {
        return Vec::new();
    };
    let mut list: Vec<ChromeProfile> = cache
        .iter()
        .map(|(directory, info)| ChromeProfile {
            directory: directory.clone(),
            name: info
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or(directory)
                .to_string(),
        })
        .collect();
    list.sort_by(|a, b| a.directory.cmp(&b.directory));
    list
}

/// The browser endpoint a `DevToolsActivePort` file names: its first line is the port, its
/// second the browser's WebSocket path.
pub fn active_port_endpoint(user_data_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(user_data_dir.join("DevToolsActivePort")).ok()?;
    let mut lines = text.lines();
    let port: u16 = lines.next()?.trim().parse().ok()?;
    if port == 0 {
        return None;
    }
    let path = lines
        .next()
        .map(str::trim)
        .filter(|p| p.starts_with('/'))
        .unwrap_or("/devtools/browser");
    Some(format!("ws://127.0.0.1:{port}{path}"))
}

/// The endpoints `--auto-connect` tries, in order: each user-data directory's
/// `DevToolsActivePort`, then the usual debugging ports 9222 and 9229.
pub fn auto_connect_candidates(home: &Path) -> Vec<String> {
    let mut candidates: Vec<String> = user_data_dirs(home)
        .iter()
        .filter_map(|dir| active_port_endpoint(dir))
        .collect();
    candidates.extend(["9222".to_string(), "9229".to_string()]);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_port_file_gives_the_browser_websocket() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(active_port_endpoint(dir.path()), None);
        std::fs::write(
            dir.path().join("DevToolsActivePort"),
            "40123\n/devtools/browser/abc\n",
        )
        .expect("write");
        assert_eq!(
            active_port_endpoint(dir.path()).as_deref(),
            Some("ws://127.0.0.1:40123/devtools/browser/abc")
        );
        std::fs::write(dir.path().join("DevToolsActivePort"), "junk\n").expect("write");
        assert_eq!(active_port_endpoint(dir.path()), None);
    }

    #[test]
    fn profiles_come_from_local_state_sorted_by_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("Local State"),
            r#"{"profile":{"info_cache":{"Profile 1":{"name":"Work"},"Default":{"name":"Ada"},"Profile 2":{}}}}"#,
        )
        .expect("write");
        let names: Vec<(String, String)> = profiles(dir.path())
            .into_iter()
            .map(|p| (p.directory, p.name))
            .collect();
        assert_eq!(
            names,
            [
                ("Default".into(), "Ada".into()),
                ("Profile 1".into(), "Work".into()),
                ("Profile 2".into(), "Profile 2".into())
            ]
        );
    }
}
