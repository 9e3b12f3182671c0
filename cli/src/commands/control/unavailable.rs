//! What cannot work here is refused before anything starts (no daemon, no Chrome): a cloud
//! provider (`-p <name>`: abx drives a local or `--cdp` browser only, and must never quietly fall
//! back to a local Chrome), `chat` (an AI gateway client abx does not ship) and an engine other
//! than Chrome (`--engine lightpanda|obscura`), an iOS `--device`, and `--enable <feature>`
//! other than `react-devtools` (abx's only built-in init script). Where upstream names a missing key or binary, the
//! error does too.
//!
//! An engine other than Chrome is checked in upstream's order: the name, then the options that
//! engine cannot take, then its binary, and only then refused — so an agent fixing its command
//! line meets the same errors one after another as with upstream.

use crate::globals::Flags;
use crate::host::Host;

/// The API key variable upstream's providers read.
fn provider_key(provider: &str) -> Option<&'static str> {
    match provider {
        "browserbase" => Some("BROWSERBASE_API_KEY"),
        "kernel" => Some("KERNEL_API_KEY"),
        "browseruse" => Some("BROWSER_USE_API_KEY"),
        "browserless" => Some("BROWSERLESS_API_KEY"),
        _ => None,
    }
}

/// Why this invocation cannot run here, or `None`. `command` is the first command word.
pub fn refusal(flags: &Flags, command: Option<&str>, host: &dyn Host) -> Option<String> {
    if command == Some("chat") {
        if host.var("AI_GATEWAY_API_KEY").is_none_or(|k| k.is_empty()) {
            return Some("AI_GATEWAY_API_KEY not set. Set the AI_GATEWAY_API_KEY environment variable to enable chat.".into());
        }
        return None;
    }
    if let Some(provider) = flags.provider.as_deref().filter(|p| !p.is_empty()) {
        let provider = provider.to_ascii_lowercase();
        if let Some(key) = provider_key(&provider)
            && host.var(key).is_none_or(|k| k.is_empty())
        {
            return Some(format!("{key} environment variable is not set"));
        }
        return Some(match provider.as_str() {
            "ios" | "safari" => format!(
                "Provider '{provider}' needs macOS with Xcode; abx drives Chrome/Chromium only"
            ),
            _ => format!(
                "Provider '{provider}' is not supported by abx: it drives a local Chrome or one you attach with --cdp <url> (use the provider's CDP WebSocket URL there)"
            ),
        });
    }
    if let Some(device) = flags.device.as_deref().filter(|d| !d.is_empty()) {
        return Some(format!(
            "--device {device} picks an iOS simulator for -p ios, which needs macOS with Xcode; abx drives Chrome/Chromium only (use `set device <name>` to emulate a phone)"
        ));
    }
    if let Some(feature) = flags.enable.iter().find(|f| *f != "react-devtools") {
        return Some(format!(
            "--enable {feature} is not supported by abx: its only built-in init script is react-devtools"
        ));
    }
    if let Some(message) = engine_refusal(flags, host) {
        return Some(message);
    }
    None
}

/// The engines upstream knows; abx runs only the first.
const ENGINES: &[&str] = &["chrome", "lightpanda", "obscura"];

/// `--engine` (or `AGENT_BROWSER_ENGINE`) other than Chrome, for a browser this session would
/// launch: upstream's validation, in its order, then abx's refusal.
fn engine_refusal(flags: &Flags, host: &dyn Host) -> Option<String> {
    let engine = flags.engine.as_deref().filter(|e| !e.is_empty())?;
    if !ENGINES.contains(&engine) {
        return Some(format!(
            "Unknown engine '{engine}'. Supported engines: {}",
            ENGINES.join(", ")
        ));
    }
    // Attaching ignores the engine, as upstream (the browser at the endpoint is what it is).
    if engine == "chrome" || flags.cdp.is_some() || flags.auto_connect {
        return None;
    }
    let name = if engine == "obscura" {
        "Obscura"
    } else {
        "Lightpanda"
    };
    if let Some(option) = chrome_only_option(flags, engine) {
        return Some(option.replace("{name}", name));
    }
    let binary = match flags.executable_path.as_deref().filter(|p| !p.is_empty()) {
        Some(path) => match std::fs::metadata(path) {
            Ok(_) => std::path::PathBuf::from(path),
            Err(err) => return Some(format!("Failed to launch {name} at \"{path}\": {err}")),
        },
        None => match find_engine(host, engine) {
            Some(found) => found,
            None => {
                let install = if engine == "obscura" {
                    "https://github.com/h4ckf0r0day/obscura"
                } else {
                    "https://lightpanda.io/docs/open-source/installation"
                };
                return Some(format!(
                    "{name} not found. Install it from {install} or use --executable-path."
                ));
            }
        },
    };
    Some(format!(
        "--engine {engine} is not supported by abx: it drives Chrome/Chromium only (found {})",
        binary.display()
    ))
}

/// The first setting the engine cannot take, in upstream's order (`{name}`: the engine's name).
fn chrome_only_option(flags: &Flags, engine: &str) -> Option<&'static str> {
    let set = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.is_empty());
    if !flags.extensions.is_empty() {
        return Some("Extensions are not supported with {name}");
    }
    if set(&flags.profile) {
        return Some("Profiles are not supported with {name}");
    }
    if set(&flags.state) {
        return Some("Storage state is not supported with {name}");
    }
    if flags.allow_file_access {
        return Some("File access is not supported with {name}");
    }
    if flags.headed {
        return Some("Headed mode is not supported with {name} (headless only)");
    }
    if flags.webgpu {
        return Some("WebGPU (--webgpu) is not supported with {name}");
    }
    // The resolved setting: the flag, AGENT_BROWSER_PROXY_BYPASS, the config or NO_PROXY.
    if engine == "obscura" && set(&flags.proxy_bypass) {
        return Some(
            "--proxy-bypass is not supported with Obscura (including AGENT_BROWSER_PROXY_BYPASS and NO_PROXY)",
        );
    }
    if set(&flags.args) {
        return Some("Custom Chrome arguments (--args) are not supported with {name}");
    }
    None
}

/// Where upstream looks for the engine's binary when no path is given: `PATH`, and for Obscura
/// also `~/.local/bin` and `~/.cargo/bin`.
fn find_engine(host: &dyn Host, engine: &str) -> Option<std::path::PathBuf> {
    if let Some(path) = host.var("PATH") {
        let found = path
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(engine))
            .find(|p| host.exists(p));
        if found.is_some() {
            return found;
        }
    }
    if engine != "obscura" {
        return None;
    }
    let home = host.home_dir()?;
    [".local/bin/obscura", ".cargo/bin/obscura"]
        .iter()
        .map(|rel| home.join(rel))
        .find(|p| host.exists(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemoryHost;

    fn flags(engine: &str) -> Flags {
        Flags {
            engine: Some(engine.into()),
            ..Flags::default()
        }
    }

    fn refusal_of(flags: &Flags) -> String {
        engine_refusal(flags, &MemoryHost::new().with_var("PATH", "/nonexistent"))
            .unwrap_or_default()
    }

    #[test]
    fn an_unknown_engine_is_named_before_anything_else() {
        let mut f = flags("foo");
        f.extensions = vec!["/x".into()];
        assert_eq!(
            refusal_of(&f),
            "Unknown engine 'foo'. Supported engines: chrome, lightpanda, obscura"
        );
        assert!(engine_refusal(&flags("chrome"), &MemoryHost::new()).is_none());
    }

    #[test]
    fn engine_options_are_checked_in_upstreams_order_before_the_binary() {
        let mut f = flags("obscura");
        f.executable_path = Some("/nonexistent/obscura-probe".into());
        f.extensions = vec!["/x".into()];
        f.profile = Some("/p".into());
        f.state = Some("/s.json".into());
        f.allow_file_access = true;
        f.headed = true;
        f.webgpu = true;
        f.proxy_bypass = Some("localhost".into());
        f.args = Some("--foo".into());
        let expected = [
            "Extensions are not supported with Obscura",
            "Profiles are not supported with Obscura",
            "Storage state is not supported with Obscura",
            "File access is not supported with Obscura",
            "Headed mode is not supported with Obscura (headless only)",
            "WebGPU (--webgpu) is not supported with Obscura",
            "--proxy-bypass is not supported with Obscura (including AGENT_BROWSER_PROXY_BYPASS and NO_PROXY)",
            "Custom Chrome arguments (--args) are not supported with Obscura",
            "Failed to launch Obscura at \"/nonexistent/obscura-probe\": No such file or directory (os error 2)",
        ];
        for message in expected {
            assert_eq!(refusal_of(&f), message);
            // Clear the setting just reported; the next one is reported next.
            if !f.extensions.is_empty() {
                f.extensions.clear();
            } else if f.profile.is_some() {
                f.profile = None;
            } else if f.state.is_some() {
                f.state = None;
            } else if f.allow_file_access {
                f.allow_file_access = false;
            } else if f.headed {
                f.headed = false;
            } else if f.webgpu {
                f.webgpu = false;
            } else if f.proxy_bypass.is_some() {
                f.proxy_bypass = None;
            } else {
                f.args = None;
            }
        }
    }

    #[test]
    fn lightpanda_takes_a_proxy_bypass_and_reports_its_missing_binary() {
        let mut f = flags("lightpanda");
        f.proxy_bypass = Some("localhost".into());
        assert_eq!(
            refusal_of(&f),
            "Lightpanda not found. Install it from https://lightpanda.io/docs/open-source/installation or use --executable-path."
        );
        f.executable_path = Some("/nonexistent/lp".into());
        assert_eq!(
            refusal_of(&f),
            "Failed to launch Lightpanda at \"/nonexistent/lp\": No such file or directory (os error 2)"
        );
    }

    #[test]
    fn a_found_engine_binary_is_still_refused_and_attaching_ignores_the_engine() {
        let host = MemoryHost::new()
            .with_var("PATH", "/opt/bin")
            .with_file(std::path::Path::new("/opt/bin/obscura"), "");
        let refused = engine_refusal(&flags("obscura"), &host).unwrap_or_default();
        assert!(
            refused.contains("is not supported by abx") && refused.contains("/opt/bin/obscura"),
            "{refused}"
        );
        let mut attach = flags("obscura");
        attach.cdp = Some("9222".into());
        attach.proxy_bypass = Some("localhost".into());
        assert!(engine_refusal(&attach, &host).is_none());
    }
}
