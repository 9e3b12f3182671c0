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
    /// `--no-webmcp`: launch Chrome without its experimental WebMCP features.
    pub no_webmcp: bool,
    /// `--enable` built-in init scripts (`react-devtools`).
    pub enable: Vec<String>,
}

/// Chrome's features for WebMCP: the page API (`document.modelContext`) and its DevTools domain.
const WEBMCP_FEATURES: &str = "WebMCPTesting,DevToolsWebMCPSupport";
/// The launcher's own `--enable-features` (its defaults), which a second switch would replace.
const DEFAULT_FEATURES: &str = "NetworkService,NetworkServiceInProcess";

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
            enable: list(var(env::ENABLE)),
            no_webmcp: var(env::NO_WEBMCP).is_some_and(|v| {
                !matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "" | "0" | "false" | "no"
                )
            }),
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
        if let Some(on) = request.webmcp {
            self.no_webmcp = !on;
        }
        if let Some(features) = &request.enable {
            self.enable = features.clone();
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
        if request.webmcp.is_none() {
            self.no_webmcp = live.no_webmcp;
        }
        if request.enable.is_none() {
            self.enable = live.enable.clone();
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
                    std::fs::canonicalize(d).map_or_else(|_| d.clone(), |p| p.display().to_string())
                })
                .collect();
            let joined = dirs.join(",");
            args.push(format!("--disable-extensions-except={joined}"));
            args.push(format!("--load-extension={joined}"));
        }
        if !self.no_webmcp {
            // Chrome keeps only the last `--enable-features`: extend the user's (or the
            // launcher's defaults) rather than replace them.
            match args
                .iter_mut()
                .rev()
                .find(|a| a.starts_with("--enable-features="))
            {
                Some(user) => user.push_str(&format!(",{WEBMCP_FEATURES}")),
                None => args.push(format!(
                    "--enable-features={DEFAULT_FEATURES},{WEBMCP_FEATURES}"
                )),
            }
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
        for feature in &self.enable {
            match feature.as_str() {
                // First, so the hook is in place before any user script or page script.
                "react-devtools" => init_scripts.push(abx_engine::REACT_DEVTOOLS_HOOK.to_string()),
                other => {
                    return Err(Failure::message(format!(
                        "Unknown --enable feature: {other} (abx has: react-devtools)"
                    )));
                }
            }
        }
        for path in &self.init_scripts {
            let source = std::fs::read_to_string(path)
                .map_err(|e| Failure::message(format!("Cannot read init script {path}: {e}")))?;
            init_scripts.push(source);
        }
        let setup = abx_engine::PageSetup {
            download_dir: self.download_path.as_ref().map(std::path::PathBuf::from),
            color_scheme: self.color_scheme.clone(),
            init_scripts,
            no_webmcp: self.no_webmcp,
        };
        setup.validate().map_err(Failure::from)?;
        Ok(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webmcp_features_extend_the_last_enable_features_unless_turned_off() {
        let on = PageSpec::default();
        assert_eq!(
            on.chrome_args(&[]),
            [
                "--enable-features=NetworkService,NetworkServiceInProcess,WebMCPTesting,DevToolsWebMCPSupport"
            ]
        );
        assert_eq!(
            on.chrome_args(&["--enable-features=Vulkan".into()]),
            ["--enable-features=Vulkan,WebMCPTesting,DevToolsWebMCPSupport"]
        );
        let off = PageSpec {
            no_webmcp: true,
            ..PageSpec::default()
        };
        assert!(off.chrome_args(&[]).is_empty());
        let env = |k: &str| (k == env::NO_WEBMCP).then(|| "1".to_string());
        assert!(PageSpec::from_env(&env).no_webmcp);
    }

    #[test]
    fn react_devtools_puts_the_hook_first_and_unknown_features_fail() {
        let spec = PageSpec {
            enable: vec!["react-devtools".into()],
            ..PageSpec::default()
        };
        let setup = spec.page_setup().expect("setup");
        assert_eq!(setup.init_scripts, [abx_engine::REACT_DEVTOOLS_HOOK]);
        let bad = PageSpec {
            enable: vec!["vue-devtools".into()],
            ..PageSpec::default()
        };
        let err = bad.page_setup().expect_err("unknown feature");
        assert!(
            err.message
                .contains("Unknown --enable feature: vue-devtools"),
            "{}",
            err.message
        );
    }
}
