//! The Chrome command line: upstream agent-browser's default set plus the caller's options.

use std::path::Path;

use crate::{BrowserKind, LaunchOptions};

/// Upstream's defaults (contract §1.7), minus `--remote-debugging-port`, which the launcher adds.
pub const DEFAULT_ARGS: &[&str] = &[
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-backgrounding-occluded-windows",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-sync",
    "--disable-features=Translate",
    "--enable-features=NetworkService,NetworkServiceInProcess",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
];

/// A Chrome feature abx turns on in every browser it launches: `Page.captureScreenshot` renders
/// into a surface of its own instead of waiting on the view's next frame, which takes a
/// viewport screenshot from ~40 to ~30 ms (Playwright launches with it too). ADR 0013.
/// `--disable-features=CDPScreenshotNewSurface` turns it off again (Chrome lets a disable win).
pub(crate) const SCREENSHOT_FEATURE: &str = "CDPScreenshotNewSurface";

/// A switch abx adds to every Chrome it launches (upstream does not; Playwright and Puppeteer
/// do): a hidden tab's timers run at the rate the page asked for instead of at most once a
/// second. A stage's pinned tab on a shared anchor is a hidden tab while no one watches, and
/// without it a page's 10 ms `setTimeout` took 1000 ms there (debounced inputs, polling,
/// script-driven waits). ADR 0015.
pub(crate) const UNTHROTTLED_TIMERS: &str = "--disable-background-timer-throttling";

/// Builds the full argument list for one launch of full Chrome.
pub fn build_args(options: &LaunchOptions, user_data_dir: &Path, run_as_root: bool) -> Vec<String> {
    build_args_for(BrowserKind::Chrome, options, user_data_dir, run_as_root)
}

/// Builds the full argument list for one launch of `kind`. The headless shell is headless by
/// nature: it gets no `--headless=new` (which it ignores) and everything else the same.
pub fn build_args_for(
    kind: BrowserKind,
    options: &LaunchOptions,
    user_data_dir: &Path,
    run_as_root: bool,
) -> Vec<String> {
    let mut args: Vec<String> = vec!["--remote-debugging-port=0".to_string()];
    args.extend(DEFAULT_ARGS.iter().map(ToString::to_string));
    let user_sets = |prefix: &str| options.args.iter().any(|a| a.starts_with(prefix));
    if !user_sets(UNTHROTTLED_TIMERS) {
        args.push(UNTHROTTLED_TIMERS.into());
    }
    if options.headless {
        if kind == BrowserKind::Chrome {
            args.push("--headless=new".into());
        }
        if options.hide_scrollbars {
            args.push("--hide-scrollbars".into());
        }
        args.push("--enable-unsafe-swiftshader".into());
    }
    if !user_sets("--window-size") && !user_sets("--start-maximized") {
        let (w, h) = options.window_size.unwrap_or((1280, 720));
        args.push(format!("--window-size={w},{h}"));
    }
    if let Some(proxy) = &options.proxy {
        args.push(format!("--proxy-server={}", proxy.server));
        if let Some(bypass) = &proxy.bypass {
            args.push(format!("--proxy-bypass-list={bypass}"));
        }
    }
    if let Some(pac) = &options.proxy_pac_url {
        args.push(format!("--proxy-pac-url={pac}"));
    }
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    if options.ignore_https_errors {
        args.push("--ignore-certificate-errors".into());
    }
    if options.allow_file_access {
        args.push("--allow-file-access-from-files".into());
        args.push("--allow-file-access".into());
    }
    if options.deny_permission_prompts && !user_sets("--deny-permission-prompts") {
        args.push("--deny-permission-prompts".into());
    }
    if let Some(ua) = &options.user_agent {
        args.push(format!("--user-agent={ua}"));
    }
    args.extend(options.args.iter().cloned());
    if options.restrict_webrtc {
        args.push("--force-webrtc-ip-handling-policy=disable_non_proxied_udp".into());
    }
    // Chrome refuses to run as root with its sandbox; upstream adds these in containers/CI too.
    if (run_as_root || options.no_sandbox) && !user_sets("--no-sandbox") {
        args.push("--no-sandbox".into());
    }
    if (run_as_root || options.no_sandbox) && !user_sets("--disable-dev-shm-usage") {
        args.push("--disable-dev-shm-usage".into());
    }
    with_feature(&mut args, SCREENSHOT_FEATURE);
    // Unless the caller passed a start page: a headless full Chrome on a throw-away profile
    // starts with no window, so the session's first tab is one it creates. Chrome's startup tab
    // carries an infobar (the unsupported-flag warning) that takes 56 px off its viewport
    // (1280×577 instead of the 1280×633 every other tab, and upstream's, gets at 1280×720). A
    // persistent profile keeps its startup window: Chrome restores a profile's last session
    // into it. Elsewhere start on about:blank: otherwise Chrome opens its new-tab page, whose
    // target is swapped out on the first navigation.
    if !options.args.iter().any(|a| !a.starts_with('-')) {
        if kind == BrowserKind::Chrome && options.headless && options.profile.is_none() {
            if !user_sets("--no-startup-window") {
                args.push("--no-startup-window".into());
            }
        } else {
            args.push("about:blank".into());
        }
    }
    args
}

/// Adds `feature` to the `--enable-features` Chrome reads: it keeps only the last such switch,
/// so a caller's own list is extended rather than replaced.
fn with_feature(args: &mut [String], feature: &str) {
    let Some(last) = args
        .iter_mut()
        .rev()
        .find(|a| a.starts_with("--enable-features="))
    else {
        return; // DEFAULT_ARGS always has one
    };
    let listed = last["--enable-features=".len()..]
        .split(',')
        .any(|f| f.trim() == feature);
    if !listed {
        if !last.ends_with('=') {
            last.push(',');
        }
        last.push_str(feature);
    }
}

/// Splits an `AGENT_BROWSER_ARGS` value the way upstream 0.41.2 does: one argument per line, or
/// comma-separated where the comma is followed by another `--flag`, so commas inside a value
/// (`--window-size=800,600`) survive.
pub fn split_user_args(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in raw.split('\n') {
        let mut current = String::new();
        let mut rest = line;
        while let Some(idx) = rest.find(',') {
            let (head, tail) = rest.split_at(idx);
            let after = &tail[1..];
            current.push_str(head);
            if after.trim_start().starts_with("--") {
                push_trimmed(&mut out, &current);
                current.clear();
            } else {
                current.push(',');
            }
            rest = after;
        }
        current.push_str(rest);
        push_trimmed(&mut out, &current);
    }
    out
}

fn push_trimmed(out: &mut Vec<String>, arg: &str) {
    let arg = arg.trim();
    if !arg.is_empty() {
        out.push(arg.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_args_split_on_newlines_and_on_commas_before_flags_only() {
        assert_eq!(
            split_user_args("--no-sandbox,--window-size=800,600"),
            vec!["--no-sandbox", "--window-size=800,600"]
        );
        assert_eq!(
            split_user_args("--a\n--b=1,2\n\n --c "),
            vec!["--a", "--b=1,2", "--c"]
        );
        assert_eq!(split_user_args(""), Vec::<String>::new());
        assert_eq!(split_user_args("--lang=en,--x"), vec!["--lang=en", "--x"]);
    }

    #[test]
    fn headless_launch_gets_upstream_defaults_and_a_window_size() {
        let options = LaunchOptions::default();
        let args = build_args(&options, Path::new("/tmp/p"), false);
        assert!(args.contains(&"--headless=new".to_string()));
        assert!(args.contains(&"--window-size=1280,720".to_string()));
        assert!(args.contains(&"--user-data-dir=/tmp/p".to_string()));
        assert!(args.contains(&"--remote-debugging-port=0".to_string()));
        assert!(!args.contains(&"--no-sandbox".to_string()));
    }

    #[test]
    fn every_launch_keeps_hidden_tabs_timers_unthrottled_once() {
        for kind in [BrowserKind::Chrome, BrowserKind::HeadlessShell] {
            let args = build_args_for(kind, &LaunchOptions::default(), Path::new("/tmp/p"), false);
            assert_eq!(args.iter().filter(|a| *a == UNTHROTTLED_TIMERS).count(), 1);
        }
        let options = LaunchOptions {
            args: vec![UNTHROTTLED_TIMERS.into()],
            ..LaunchOptions::default()
        };
        let args = build_args(&options, Path::new("/tmp/p"), false);
        assert_eq!(args.iter().filter(|a| *a == UNTHROTTLED_TIMERS).count(), 1);
    }

    #[test]
    fn the_screenshot_surface_feature_joins_the_last_enable_features_once() {
        let enabled = |args: &[String]| -> Vec<String> {
            args.iter()
                .filter(|a| a.starts_with("--enable-features="))
                .cloned()
                .collect()
        };
        let args = build_args(&LaunchOptions::default(), Path::new("/tmp/p"), false);
        assert_eq!(
            enabled(&args),
            ["--enable-features=NetworkService,NetworkServiceInProcess,CDPScreenshotNewSurface"]
        );
        // Chrome reads only the last switch: the caller's own list is the one extended.
        let options = LaunchOptions {
            args: vec!["--enable-features=Vulkan".into()],
            ..LaunchOptions::default()
        };
        let args = build_args(&options, Path::new("/tmp/p"), false);
        assert_eq!(
            enabled(&args).last().map(String::as_str),
            Some("--enable-features=Vulkan,CDPScreenshotNewSurface")
        );
        let options = LaunchOptions {
            args: vec!["--enable-features=CDPScreenshotNewSurface,Vulkan".into()],
            ..LaunchOptions::default()
        };
        let args = build_args(&options, Path::new("/tmp/p"), false);
        assert_eq!(
            enabled(&args).last().map(String::as_str),
            Some("--enable-features=CDPScreenshotNewSurface,Vulkan")
        );
    }

    #[test]
    fn the_headless_shell_gets_no_headless_new_and_the_same_rest() {
        let options = LaunchOptions::default();
        let full = build_args(&options, Path::new("/tmp/p"), false);
        let shell = build_args_for(
            BrowserKind::HeadlessShell,
            &options,
            Path::new("/tmp/p"),
            false,
        );
        assert!(
            !shell.iter().any(|a| a.starts_with("--headless")),
            "{shell:?}"
        );
        // Full Chrome starts without a window (its startup tab's infobar shrinks the viewport);
        // the shell has no infobars and starts on about:blank.
        let without: Vec<&String> = full
            .iter()
            .filter(|a| *a != "--headless=new" && *a != "--no-startup-window")
            .collect();
        let shell_rest: Vec<&String> = shell.iter().filter(|a| *a != "about:blank").collect();
        assert_eq!(without, shell_rest);
        assert!(
            full.contains(&"--no-startup-window".to_string()),
            "{full:?}"
        );
        assert!(!full.contains(&"about:blank".to_string()), "{full:?}");
        assert!(shell.contains(&"about:blank".to_string()), "{shell:?}");
    }

    #[test]
    fn a_start_page_a_headed_launch_or_a_profile_keeps_the_startup_window() {
        let page = LaunchOptions {
            args: vec!["http://127.0.0.1:1/".into()],
            ..LaunchOptions::default()
        };
        let args = build_args(&page, Path::new("/tmp/p"), false);
        assert!(
            !args.contains(&"--no-startup-window".to_string()),
            "{args:?}"
        );
        let headed = LaunchOptions {
            headless: false,
            ..LaunchOptions::default()
        };
        let args = build_args(&headed, Path::new("/tmp/p"), false);
        assert!(
            !args.contains(&"--no-startup-window".to_string()),
            "{args:?}"
        );
        assert!(args.contains(&"about:blank".to_string()), "{args:?}");
        // A persistent profile restores its last session into the startup window.
        let profile = LaunchOptions {
            profile: Some("/tmp/profile".into()),
            ..LaunchOptions::default()
        };
        let args = build_args(&profile, Path::new("/tmp/profile"), false);
        assert!(
            !args.contains(&"--no-startup-window".to_string()),
            "{args:?}"
        );
    }

    #[test]
    fn headed_launch_drops_headless_flags_and_user_window_size_wins() {
        let options = LaunchOptions {
            headless: false,
            args: vec!["--window-size=800,600".into()],
            ..LaunchOptions::default()
        };
        let args = build_args(&options, Path::new("/tmp/p"), true);
        assert!(!args.iter().any(|a| a.starts_with("--headless")));
        assert_eq!(
            args.iter()
                .filter(|a| a.starts_with("--window-size"))
                .count(),
            1
        );
        assert!(
            args.contains(&"--no-sandbox".to_string()),
            "root needs --no-sandbox"
        );
    }
}
