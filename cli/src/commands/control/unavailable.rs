//! What cannot work here is refused before anything starts (no daemon, no Chrome): a cloud
//! provider (`-p <name>`: abx drives a local or `--cdp` browser only, and must never quietly fall
//! back to a local Chrome), `chat` (an AI gateway client abx does not ship) and an engine other
//! than Chrome (`--engine lightpanda|obscura`), an iOS `--device`, and `--enable <feature>`
//! other than `react-devtools` (abx's only built-in init script). Where upstream names a missing key or binary, the
//! error does too.

use crate::flags::Flags;
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

fn on_path(host: &dyn Host, name: &str) -> bool {
    host.var("PATH").is_some_and(|path| {
        path.split(':')
            .filter(|d| !d.is_empty())
            .any(|d| host.exists(&std::path::Path::new(d).join(name)))
    })
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
    if let Some(engine) = flags
        .engine
        .as_deref()
        .filter(|e| !e.is_empty() && *e != "chrome")
    {
        let binary = flags.executable_path.clone().filter(|_| engine != "chrome");
        let found = match &binary {
            Some(path) => host.exists(std::path::Path::new(path)),
            None => on_path(host, engine),
        };
        if !found {
            return Some(format!(
                "--engine {engine}: the {engine} binary was not found (looked {}); abx drives Chrome/Chromium only",
                binary.map_or_else(|| "on PATH".to_string(), |p| format!("at {p}"))
            ));
        }
        return Some(format!(
            "--engine {engine} is not supported by abx: it drives Chrome/Chromium only"
        ));
    }
    None
}
