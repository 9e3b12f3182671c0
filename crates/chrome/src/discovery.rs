//! Finding the Chrome executable, and choosing between the headless shell and full Chrome.
//!
//! A headless launch with no explicit executable runs `chromium-headless-shell` (or
//! `chrome-headless-shell`) when one is installed and nothing the launch asks for needs the full
//! browser (see [`full_chrome_needs`]); otherwise it runs full Chrome as before. A persistent
//! profile remembers the kind of binary it runs with ([`PROFILE_RECORD`]) so a profile's runs and
//! commands never switch binaries on their own. Measurements and the feature comparison:
//! `docs/adr/0007-headless-shell.md`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{LaunchError, LaunchOptions};

/// Full Chrome: names tried on `PATH`, in order, when no executable is given.
pub const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// The headless shell: names tried on `PATH`, in order (Debian's package, then Chrome for
/// Testing's binary).
pub const HEADLESS_SHELL_CANDIDATES: &[&str] =
    &["chromium-headless-shell", "chrome-headless-shell"];

/// The file in a persistent profile that records which kind of binary the profile runs with.
pub const PROFILE_RECORD: &str = "abx-browser.json";

/// Which Chrome build runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BrowserKind {
    /// `chromium-headless-shell` / `chrome-headless-shell`: Chrome's old headless mode as its own,
    /// smaller binary. Starts faster; no headed mode, no extensions, no built-in PDF viewer.
    HeadlessShell,
    /// The full browser (`chromium`, `google-chrome`, ...), headed or `--headless=new`.
    Chrome,
}

impl BrowserKind {
    /// `headless-shell` or `chrome`.
    pub fn as_str(self) -> &'static str {
        match self {
            BrowserKind::HeadlessShell => "headless-shell",
            BrowserKind::Chrome => "chrome",
        }
    }

    /// The kind of an executable, by its file name (`*headless-shell*`, `*headless_shell*` —
    /// Playwright's build — are the shell; anything else is full Chrome).
    pub fn of_executable(path: &Path) -> BrowserKind {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.contains("headless-shell") || name.contains("headless_shell") {
            BrowserKind::HeadlessShell
        } else {
            BrowserKind::Chrome
        }
    }
}

impl std::fmt::Display for BrowserKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a binary was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Choice {
    /// The caller named the executable (`AGENT_BROWSER_EXECUTABLE_PATH`, `--executable-path`).
    Explicit,
    /// The persistent profile's record ([`PROFILE_RECORD`]) names this kind.
    Profile,
    /// Headless, the shell is installed and nothing needs full Chrome.
    HeadlessShell,
    /// Something the launch asks for needs full Chrome ([`BrowserBinary::needs_full_chrome`]).
    NeedsFullChrome,
    /// Headless, but no headless shell is installed.
    ShellNotInstalled,
}

/// The binary a launch runs, and why. Reported by [`crate::Chrome::binary`] and, through the
/// daemon, in `lifecycle.effectiveLaunch.browser`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserBinary {
    /// The executable.
    #[serde(rename = "executablePath")]
    pub executable: PathBuf,
    /// Shell or full Chrome.
    pub kind: BrowserKind,
    /// Why this one.
    pub choice: Choice,
    /// What in the launch needs full Chrome (`headed`, `extensions`, ...); empty when nothing.
    pub needs_full_chrome: Vec<String>,
    /// The kind the persistent profile ran with before this launch, when it differs from
    /// [`BrowserBinary::kind`]: the profile switches binaries with this launch (see
    /// [`BrowserBinary::warning`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switched_from: Option<BrowserKind>,
}

impl BrowserBinary {
    /// A sentence for the user when this launch switches a profile's binary, else `None`.
    pub fn warning(&self) -> Option<String> {
        let from = self.switched_from?;
        let why = match self.choice {
            Choice::Explicit => "the executable path was given explicitly".to_string(),
            Choice::NeedsFullChrome => {
                format!(
                    "this launch needs full Chrome ({})",
                    self.needs_full_chrome.join(", ")
                )
            }
            Choice::ShellNotInstalled => "no headless shell is installed".to_string(),
            Choice::Profile | Choice::HeadlessShell => "the profile asked for it".to_string(),
        };
        Some(format!(
            "the profile ran with {from} and now runs with {} ({}) because {why}; the user agent \
             and browser features change with the binary",
            self.kind,
            self.executable.display()
        ))
    }
}

/// What in `options` needs full Chrome rather than the headless shell: headed mode, extensions
/// (`--load-extension`, `--disable-extensions-except`), an explicit `--headless=new` or
/// `--headless=chrome` in the caller's args (the shell would silently ignore it), session restore
/// (`--restore-last-session`), a PAC proxy script ([`LaunchOptions::proxy_pac_url`] or
/// `--proxy-pac-url`), and the caller's own [`LaunchOptions::needs_full_chrome`].
pub fn full_chrome_needs(options: &LaunchOptions) -> Vec<String> {
    let mut needs = Vec::new();
    let mut add = |need: &str| {
        if !needs.iter().any(|n| n == need) {
            needs.push(need.to_string());
        }
    };
    if !options.headless {
        add("headed");
    }
    for arg in &options.args {
        if arg.starts_with("--load-extension") || arg.starts_with("--disable-extensions-except") {
            add("extensions");
        }
        if arg == "--headless=new" || arg == "--headless=chrome" {
            add("--headless=new");
        }
        // The shell has no session service: it starts on about:blank whatever the profile holds.
        if arg == "--restore-last-session" {
            add("session restore");
        }
        if arg.starts_with("--proxy-pac-url") {
            add("PAC proxy script");
        }
    }
    // The shell ignores `--proxy-pac-url`: every request would go direct.
    if options.proxy_pac_url.is_some() {
        add("PAC proxy script");
    }
    for need in &options.needs_full_chrome {
        add(need);
    }
    needs
}

/// Resolves the Chrome executable: `explicit` (e.g. `AGENT_BROWSER_EXECUTABLE_PATH`) when given,
/// otherwise the first of [`CANDIDATES`] found on `PATH`. Never downloads anything.
pub fn find_chrome(explicit: Option<&Path>) -> Result<PathBuf, LaunchError> {
    if let Some(path) = explicit {
        return find_explicit(path);
    }
    find_full(&on_path)
}

/// Chooses the binary for `options` (see the module docs) without launching anything. The
/// choice depends only on `options`, what is installed on `PATH` and the profile's record, so
/// calling it twice gives the same answer; the daemon puts its executable in the launch hash.
pub fn select_browser(options: &LaunchOptions) -> Result<BrowserBinary, LaunchError> {
    select_with(options, &on_path)
}

fn on_path(name: &str) -> Option<PathBuf> {
    which::which(name).ok()
}

fn find_explicit(path: &Path) -> Result<PathBuf, LaunchError> {
    if path.as_os_str().is_empty() {
        return Err(LaunchError::ExecutableNotFound {
            checked: vec!["(empty executable path)".into()],
        });
    }
    // A bare name is looked up on PATH; a path must exist and be a file.
    if path.components().count() == 1 && !path.is_absolute() {
        return which::which(path)
            .map(|found| skip_passthrough_wrapper(&found))
            .map_err(|_| LaunchError::ExecutableNotFound {
                checked: vec![path.display().to_string()],
            });
    }
    if path.is_file() {
        return Ok(skip_passthrough_wrapper(path));
    }
    Err(LaunchError::ExecutableNotFound {
        checked: vec![path.display().to_string()],
    })
}

fn find_full(lookup: &dyn Fn(&str) -> Option<PathBuf>) -> Result<PathBuf, LaunchError> {
    CANDIDATES
        .iter()
        .find_map(|name| lookup(name))
        .map(|found| skip_passthrough_wrapper(&found))
        .ok_or_else(|| LaunchError::ExecutableNotFound {
            checked: CANDIDATES
                .iter()
                .map(|c| format!("{c} (on PATH)"))
                .collect(),
        })
}

fn find_shell(lookup: &dyn Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
    HEADLESS_SHELL_CANDIDATES
        .iter()
        .find_map(|name| lookup(name))
        .map(|found| skip_passthrough_wrapper(&found))
}

/// The binary a launcher script only passes its arguments to, else `path` itself.
///
/// Debian's `/usr/bin/chromium-headless-shell` is `#!/bin/sh -e` plus one line,
/// `/usr/lib/chromium/chromium-headless-shell "$@"`, without `exec`: launched as is, the pid we own
/// would be `sh`'s, a signal to it would not reach Chrome, and every launch would pay for a
/// shell. A script whose only command runs one absolute path with `"$@"` is skipped; anything
/// more (environment, flags, checks — like Debian's `/usr/bin/chromium`) is kept.
pub fn skip_passthrough_wrapper(path: &Path) -> PathBuf {
    use std::io::Read;
    let mut head = [0u8; 4096];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let Ok(text) = std::str::from_utf8(&head[..read]) else {
        return path.to_path_buf();
    };
    if !text.starts_with("#!") || read == head.len() {
        return path.to_path_buf();
    }
    let commands: Vec<&str> = text
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let [command] = commands.as_slice() else {
        return path.to_path_buf();
    };
    let mut words = command.split_whitespace();
    let mut target = words.next();
    if target == Some("exec") {
        target = words.next();
    }
    let rest: Vec<&str> = words.collect();
    let passes_args = matches!(rest.as_slice(), [r#""$@""#] | [r#""${@}""#]);
    match target.map(|t| t.trim_matches(|c| c == '"' || c == '\'')) {
        Some(target) if passes_args && target.starts_with('/') && Path::new(target).is_file() => {
            PathBuf::from(target)
        }
        _ => path.to_path_buf(),
    }
}

/// The kind a persistent profile runs with: its record, or full Chrome for a profile Chrome has
/// already used without one (made before abx chose binaries, or by another tool), or `None` for
/// a new profile.
pub fn profile_kind(profile: &Path) -> Option<BrowserKind> {
    // `Local State` is the first file Chrome writes into a user-data-dir.
    profile_kind_recorded(profile).or_else(|| {
        profile
            .join("Local State")
            .exists()
            .then_some(BrowserKind::Chrome)
    })
}

/// Records `binary` as the kind `profile` runs with (written once, and again when it switches).
pub(crate) fn record_profile_kind(profile: &Path, binary: &BrowserBinary) -> std::io::Result<()> {
    if profile_kind_recorded(profile) == Some(binary.kind) {
        return Ok(());
    }
    let record = serde_json::json!({
        "kind": binary.kind,
        "executablePath": binary.executable,
        "note": "written by abx: the kind of Chrome binary this profile runs with; an explicit \
                 executable path switches it",
    });
    let path = profile.join(PROFILE_RECORD);
    let temp = profile.join(format!("{PROFILE_RECORD}.tmp"));
    std::fs::write(&temp, format!("{record:#}\n"))?;
    std::fs::rename(&temp, &path)
}

fn profile_kind_recorded(profile: &Path) -> Option<BrowserKind> {
    #[derive(Deserialize)]
    struct Record {
        kind: BrowserKind,
    }
    let text = std::fs::read_to_string(profile.join(PROFILE_RECORD)).ok()?;
    serde_json::from_str::<Record>(&text).ok().map(|r| r.kind)
}

fn select_with(
    options: &LaunchOptions,
    lookup: &dyn Fn(&str) -> Option<PathBuf>,
) -> Result<BrowserBinary, LaunchError> {
    let needs = full_chrome_needs(options);
    let profile = options.profile.as_deref().and_then(profile_kind);
    let chosen = |executable: PathBuf, kind: BrowserKind, choice: Choice| BrowserBinary {
        executable,
        kind,
        choice,
        needs_full_chrome: needs.clone(),
        switched_from: profile.filter(|p| *p != kind),
    };
    if let Some(explicit) = &options.executable {
        let executable = find_explicit(explicit)?;
        let kind = BrowserKind::of_executable(&executable);
        if kind == BrowserKind::HeadlessShell && !needs.is_empty() {
            return Err(LaunchError::NeedsFullChrome {
                executable: executable.display().to_string(),
                needs: needs.clone(),
            });
        }
        return Ok(chosen(executable, kind, Choice::Explicit));
    }
    let full = |choice| find_full(lookup).map(|exe| chosen(exe, BrowserKind::Chrome, choice));
    if !needs.is_empty() {
        return full(Choice::NeedsFullChrome);
    }
    match profile {
        Some(BrowserKind::Chrome) => full(Choice::Profile),
        Some(BrowserKind::HeadlessShell) => match find_shell(lookup) {
            Some(exe) => Ok(chosen(exe, BrowserKind::HeadlessShell, Choice::Profile)),
            None => full(Choice::ShellNotInstalled),
        },
        None => match find_shell(lookup) {
            Some(exe) => Ok(chosen(
                exe,
                BrowserKind::HeadlessShell,
                Choice::HeadlessShell,
            )),
            None => full(Choice::ShellNotInstalled),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(names: &'static [&'static str]) -> impl Fn(&str) -> Option<PathBuf> {
        move |name| {
            names
                .contains(&name)
                .then(|| PathBuf::from(format!("/opt/abx-test/bin/{name}")))
        }
    }

    const BOTH: &[&str] = &["chromium", "chromium-headless-shell"];

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

    #[test]
    fn headless_without_needs_runs_the_shell_when_installed() {
        let chosen = select_with(&LaunchOptions::default(), &installed(BOTH)).expect("chosen");
        assert_eq!(chosen.kind, BrowserKind::HeadlessShell);
        assert_eq!(chosen.choice, Choice::HeadlessShell);
        assert_eq!(
            chosen.executable,
            PathBuf::from("/opt/abx-test/bin/chromium-headless-shell")
        );
        let chosen = select_with(&LaunchOptions::default(), &installed(&["chromium"])).expect("c");
        assert_eq!(chosen.kind, BrowserKind::Chrome);
        assert_eq!(chosen.choice, Choice::ShellNotInstalled);
        let chosen = select_with(
            &LaunchOptions::default(),
            &installed(&["chrome-headless-shell"]),
        )
        .expect("chrome for testing's shell");
        assert_eq!(chosen.kind, BrowserKind::HeadlessShell);
    }

    #[test]
    fn headed_extensions_and_explicit_headless_new_need_full_chrome() {
        let cases: Vec<(LaunchOptions, &str)> = vec![
            (
                LaunchOptions {
                    headless: false,
                    ..LaunchOptions::default()
                },
                "headed",
            ),
            (
                LaunchOptions {
                    args: vec!["--load-extension=/tmp/ext".into()],
                    ..LaunchOptions::default()
                },
                "extensions",
            ),
            (
                LaunchOptions {
                    args: vec!["--headless=new".into()],
                    ..LaunchOptions::default()
                },
                "--headless=new",
            ),
            (
                LaunchOptions {
                    args: vec!["--restore-last-session".into()],
                    ..LaunchOptions::default()
                },
                "session restore",
            ),
            (
                LaunchOptions {
                    proxy_pac_url: Some("data:,x".into()),
                    ..LaunchOptions::default()
                },
                "PAC proxy script",
            ),
            (
                LaunchOptions {
                    needs_full_chrome: vec!["webgpu".into()],
                    ..LaunchOptions::default()
                },
                "webgpu",
            ),
        ];
        for (options, need) in cases {
            let chosen = select_with(&options, &installed(BOTH)).expect("chosen");
            assert_eq!(chosen.kind, BrowserKind::Chrome, "{need}");
            assert_eq!(chosen.choice, Choice::NeedsFullChrome, "{need}");
            assert_eq!(chosen.needs_full_chrome, vec![need.to_string()]);
        }
    }

    #[test]
    fn an_explicit_shell_with_a_full_chrome_need_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let shell = dir.path().join("chrome-headless-shell");
        std::fs::write(&shell, "").expect("file");
        let options = LaunchOptions {
            executable: Some(shell.clone()),
            headless: false,
            ..LaunchOptions::default()
        };
        let err = select_with(&options, &installed(BOTH)).expect_err("refused");
        let text = err.to_string();
        assert!(
            text.contains("headed") && text.contains("chrome-headless-shell"),
            "{text}"
        );
        let options = LaunchOptions {
            executable: Some(shell),
            ..LaunchOptions::default()
        };
        let chosen = select_with(&options, &installed(BOTH)).expect("headless is fine");
        assert_eq!(
            (chosen.kind, chosen.choice),
            (BrowserKind::HeadlessShell, Choice::Explicit)
        );
    }

    #[test]
    fn a_profile_keeps_its_binary_and_switches_only_visibly() {
        let profile = tempfile::tempdir().expect("profile");
        let options = LaunchOptions {
            profile: Some(profile.path().to_path_buf()),
            ..LaunchOptions::default()
        };
        // New profile: the shell, recorded.
        let first = select_with(&options, &installed(BOTH)).expect("first");
        assert_eq!(first.kind, BrowserKind::HeadlessShell);
        assert_eq!(first.switched_from, None);
        record_profile_kind(profile.path(), &first).expect("record");
        let again = select_with(&options, &installed(BOTH)).expect("again");
        assert_eq!(
            (again.kind, again.choice),
            (BrowserKind::HeadlessShell, Choice::Profile)
        );
        // Headed needs full Chrome: a visible switch.
        let headed = LaunchOptions {
            headless: false,
            ..options.clone()
        };
        let switched = select_with(&headed, &installed(BOTH)).expect("headed");
        assert_eq!(switched.kind, BrowserKind::Chrome);
        assert_eq!(switched.switched_from, Some(BrowserKind::HeadlessShell));
        assert!(switched.warning().expect("warning").contains("headed"));
        record_profile_kind(profile.path(), &switched).expect("record");
        // Once on full Chrome, a headless launch stays there.
        let back = select_with(&options, &installed(BOTH)).expect("back");
        assert_eq!(
            (back.kind, back.choice),
            (BrowserKind::Chrome, Choice::Profile)
        );
        assert_eq!(back.switched_from, None);
    }

    #[test]
    fn a_profile_chrome_already_used_without_a_record_stays_on_full_chrome() {
        let profile = tempfile::tempdir().expect("profile");
        std::fs::write(profile.path().join("Local State"), "{}").expect("local state");
        let options = LaunchOptions {
            profile: Some(profile.path().to_path_buf()),
            ..LaunchOptions::default()
        };
        let chosen = select_with(&options, &installed(BOTH)).expect("chosen");
        assert_eq!(
            (chosen.kind, chosen.choice),
            (BrowserKind::Chrome, Choice::Profile)
        );
    }

    #[test]
    fn a_shell_profile_without_the_shell_installed_switches_visibly() {
        let profile = tempfile::tempdir().expect("profile");
        std::fs::write(
            profile.path().join(PROFILE_RECORD),
            r#"{"kind":"headless-shell"}"#,
        )
        .expect("record");
        let options = LaunchOptions {
            profile: Some(profile.path().to_path_buf()),
            ..LaunchOptions::default()
        };
        let chosen = select_with(&options, &installed(&["chromium"])).expect("chosen");
        assert_eq!(chosen.kind, BrowserKind::Chrome);
        assert_eq!(chosen.choice, Choice::ShellNotInstalled);
        assert_eq!(chosen.switched_from, Some(BrowserKind::HeadlessShell));
        assert!(chosen.warning().is_some());
    }

    #[test]
    fn a_passthrough_launcher_script_is_skipped_and_others_are_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let real = dir.path().join("chromium-headless-shell");
        std::fs::write(&real, "binary").expect("real");
        let script = |name: &str, body: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, body).expect("script");
            path
        };
        let real_s = real.display().to_string();
        let debian = script("debian", format!("#!/bin/sh -e\n\n{real_s} \"$@\"\n"));
        assert_eq!(skip_passthrough_wrapper(&debian), real);
        let exec = script(
            "exec",
            format!("#!/bin/sh\n# launcher\nexec \"{real_s}\" \"$@\"\n"),
        );
        assert_eq!(skip_passthrough_wrapper(&exec), real);
        for (name, body) in [
            ("flags", format!("#!/bin/sh\nexec {real_s} --flag \"$@\"\n")),
            (
                "env",
                format!("#!/bin/sh\nexport A=1\nexec {real_s} \"$@\"\n"),
            ),
            ("no-args", format!("#!/bin/sh\nexec {real_s}\n")),
            ("relative", "#!/bin/sh\nexec ./chrome \"$@\"\n".to_string()),
            (
                "missing",
                "#!/bin/sh\nexec /nonexistent/chrome \"$@\"\n".to_string(),
            ),
        ] {
            let path = script(name, body);
            assert_eq!(skip_passthrough_wrapper(&path), path, "{name}");
        }
        assert_eq!(skip_passthrough_wrapper(&real), real, "a binary is itself");
    }

    #[test]
    fn executable_names_tell_the_kind() {
        for shell in [
            "/usr/bin/chromium-headless-shell",
            "/opt/chrome-headless-shell-linux64/chrome-headless-shell",
            "/root/.cache/ms-playwright/chromium_headless_shell-1/chrome-linux/headless_shell",
        ] {
            assert_eq!(
                BrowserKind::of_executable(Path::new(shell)),
                BrowserKind::HeadlessShell,
                "{shell}"
            );
        }
        for full in [
            "/usr/bin/chromium",
            "/usr/bin/google-chrome-stable",
            "chrome",
        ] {
            assert_eq!(
                BrowserKind::of_executable(Path::new(full)),
                BrowserKind::Chrome
            );
        }
    }
}
