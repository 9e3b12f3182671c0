//! The page settings of a launch (`--download-path`, `--color-scheme`, `--init-script`,
//! `--extension`): read from the daemon's environment and `launch` requests, turned into the
//! engine's [`abx_engine::PageSetup`] and Chrome's extension flags.

use abx_wire::{LaunchRequest, env};
use serde::Serialize;

use crate::errors::Failure;

/// Page settings as given (paths not yet read).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PageSpec {
    /// `--download-path`.
    pub download_path: Option<String>,
    /// `--color-scheme`.
    pub color_scheme: Option<String>,
    /// `--init-script` files.
    pub init_scripts: Vec<String>,
    /// `--extension` directories (unpacked extensions).
    pub extensions: Vec<String>,
}

fn list(raw: Option<String>) -> Vec<String> {
    raw.map(|r| {
        r.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

impl PageSpec {
    /// From the daemon's environment (`AGENT_BROWSER_DOWNLOAD_PATH` ...).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> PageSpec {
        PageSpec {
            download_path: non_empty(var(env::DOWNLOAD_PATH)),
            color_scheme: non_empty(var(env::COLOR_SCHEME)),
            init_scripts: list(var(env::INIT_SCRIPTS)),
            extensions: list(var(env::EXTENSIONS)),
        }
    }

    /// An explicit `launch` request's settings over the spawn-time ones.
    pub fn apply(&mut self, request: &LaunchRequest) {
        if let Some(path) = request.download_path.clone().filter(|p| !p.is_empty()) {
            self.download_path = Some(path);
        }
        if let Some(scheme) = request.color_scheme.clone().filter(|s| !s.is_empty()) {
            self.color_scheme = Some(scheme);
        }
        if let Some(scripts) = &request.init_scripts {
            self.init_scripts = scripts.clone();
        }
        if let Some(extensions) = &request.extensions {
            self.extensions = extensions.clone();
        }
    }

    /// Takes from `live` what `request` does not set.
    pub fn keep_unmentioned(&mut self, request: &LaunchRequest, live: &PageSpec) {
        if request.download_path.as_deref().is_none_or(str::is_empty) {
            self.download_path = live.download_path.clone();
        }
        if request.color_scheme.as_deref().is_none_or(str::is_empty) {
            self.color_scheme = live.color_scheme.clone();
        }
        if request.init_scripts.is_none() {
            self.init_scripts = live.init_scripts.clone();
        }
        if request.extensions.is_none() {
            self.extensions = live.extensions.clone();
        }
    }

    /// Chrome's arguments: the user's plus the extension flags (which make the launcher pick
    /// full Chrome: the headless shell has no extensions).
    pub fn chrome_args(&self, user_args: &[String]) -> Vec<String> {
        let mut args = user_args.to_vec();
        if !self.extensions.is_empty() {
            let dirs: Vec<String> = self
                .extensions
                .iter()
                .map(|d| {
                    std::fs::canonicalize(d)
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|_| d.clone())
                })
                .collect();
            let joined = dirs.join(",");
            args.push(format!("--disable-extensions-except={joined}"));
            args.push(format!("--load-extension={joined}"));
        }
        args
    }

    /// The engine's page setup: init scripts read, every setting checked. A bad setting fails
    /// the launch before anything starts.
    pub fn page_setup(&self) -> Result<abx_engine::PageSetup, Failure> {
        for dir in &self.extensions {
            let manifest = std::path::Path::new(dir).join("manifest.json");
            if !manifest.is_file() {
                return Err(Failure::message(format!(
                    "Extension not found: {dir} has no manifest.json (give an unpacked extension directory)"
                )));
            }
        }
        let mut init_scripts = Vec::new();
        for path in &self.init_scripts {
            let source = std::fs::read_to_string(path)
                .map_err(|e| Failure::message(format!("Cannot read init script {path}: {e}")))?;
            init_scripts.push(source);
        }
        let setup = abx_engine::PageSetup {
            download_dir: self.download_path.as_ref().map(std::path::PathBuf::from),
            color_scheme: self.color_scheme.clone(),
            init_scripts,
        };
        setup.validate().map_err(Failure::from)?;
        Ok(setup)
    }
}
