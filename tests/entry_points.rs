//! The entry points an agent meets first, black-box: `skills` (the guides built into the binary,
//! or `AGENT_BROWSER_SKILLS_DIR`), `doctor` (against this machine's real Chromium, stale daemon
//! files and a live session), `install` (the found-Chrome path of the documented
//! `npm i -g agent-browser && agent-browser install`; apt is never run here), `upgrade`, and the
//! help (where to begin; an example for every command).

use std::path::{Path, PathBuf};

use abx_tests::cli::Cli;

mod common;
use common::site;

fn repo_skills() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A CLI whose commands never need a browser.
fn local_cli() -> Cli {
    Cli::new().without("AGENT_BROWSER_ARGS")
}

#[test]
fn skills_get_core_prints_the_guide_built_into_the_binary() {
    let ab = local_cli();
    let core = read(&repo_skills().join("core/SKILL.md"));
    assert_eq!(ab.run(&["skills", "get", "core"]).success().stdout, core);

    let json = ab
        .run(&["--json", "skills", "get", "core"])
        .success()
        .json();
    assert_eq!(json["success"], true);
    assert_eq!(json["data"][0]["name"], "core");
    assert_eq!(json["data"][0]["content"], core.as_str());
    assert!(json["data"][0].get("files").is_none(), "{json}");

    // The stub agents install is served too, though not listed.
    let stub = ab.run(&["skills", "get", "agent-browser"]).success();
    assert!(stub.stdout.contains("skills get core"), "{}", stub.stdout);
    let listed = ab.run(&["skills", "list"]).success();
    assert!(
        !listed
            .stdout
            .lines()
            .any(|l| l.split_whitespace().next() == Some("agent-browser")),
        "{}",
        listed.stdout
    );
    // Never any session or browser for it.
    assert!(!ab.socket_dir().exists());
}

#[test]
fn skills_list_shows_every_guide_by_name_in_text_and_json() {
    let ab = local_cli();
    let names = [
        "agentcore",
        "core",
        "derive-client",
        "dogfood",
        "electron",
        "protected-vercel-deployments",
        "slack",
        "vercel-sandbox",
        "webmcp-gen",
    ];
    let text = ab.run(&["skills"]).success();
    let first: Vec<&str> = text
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(first, names);
    for line in text.stdout.lines() {
        assert!(line.starts_with("  "), "{line:?}");
        assert!(line.len() <= 2 + 28 + 2 + 70 + 3 + 2, "long line {line:?}");
    }
    assert_eq!(ab.run(&["skills", "list"]).success().stdout, text.stdout);

    let json = ab.run(&["--json", "skills", "list"]).success().json();
    let listed: Vec<&str> = json["data"]
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(listed, names);
    assert!(
        json["data"][1]["description"]
            .as_str()
            .is_some_and(|d| d.contains("before your first")),
        "{json}"
    );
}

#[test]
fn skills_get_full_appends_every_reference_and_template_and_ref_picks_one() {
    let ab = local_cli();
    let dir = repo_skills().join("core");
    let full = ab
        .run(&["skills", "get", "core", "--full"])
        .success()
        .stdout;
    assert!(full.starts_with(&read(&dir.join("SKILL.md"))));
    let mut parts = Vec::new();
    for sub in ["references", "templates"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        files.sort();
        parts.extend(files.into_iter().map(|f| format!("{sub}/{f}")));
    }
    let mut at = 0;
    for part in &parts {
        let header = format!("\n--- {part} ---\n\n");
        let found = full[at..]
            .find(&header)
            .unwrap_or_else(|| panic!("{part} missing or out of order"));
        at += found + header.len();
        assert!(full[at..].starts_with(&read(&dir.join(part))), "{part}");
    }

    let json = ab
        .run(&["--json", "skills", "get", "core", "--full"])
        .success()
        .json();
    let paths: Vec<&str> = json["data"][0]["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(paths, parts);

    let commands = read(&dir.join("references/commands.md"));
    for name in ["commands", "commands.md", "references/commands.md"] {
        let out = ab.run(&["skills", "get", "core", "--ref", name]).success();
        assert_eq!(out.stdout, commands, "--ref {name}");
    }
    let two = ab
        .run(&[
            "skills",
            "get",
            "core",
            "--ref",
            "webgpu",
            "--ref",
            "form-automation",
        ])
        .success()
        .stdout;
    assert!(two.starts_with("--- references/webgpu.md ---\n\n"), "{two}");
    assert!(two.contains("\n--- templates/form-automation.sh ---\n\n#!"));
    let json = ab
        .run(&["--json", "skills", "get", "core", "--ref", "commands"])
        .success()
        .json();
    assert_eq!(
        json["data"][0]["files"][0]["path"],
        "references/commands.md"
    );
    assert!(json["data"][0].get("content").is_none());

    // Several names: one after the other, separated by a rule.
    let two = ab.run(&["skills", "get", "core", "slack"]).success().stdout;
    assert!(two.contains("\n---\n\n---\nname: slack\n"), "{two}");
}

#[test]
fn skills_bad_input_gets_a_clear_error_and_exit_1() {
    let ab = local_cli();
    let cases: &[(&[&str], &str)] = &[
        (&["skills", "get", "nope"], "✗ Skill not found: nope\n"),
        (
            &["skills", "get"],
            "✗ No skill name provided. Usage: agent-browser skills get <name>\n",
        ),
        (
            &["skills", "get", "core", "--ref"],
            "✗ --ref needs a value. Usage: agent-browser skills get <name> --ref <ref>\n",
        ),
        (&["skills", "path", "nope"], "✗ Skill not found: nope\n"),
    ];
    for (args, stderr) in cases {
        let out = ab.run(args).failure();
        assert_eq!(out.code, 1, "{args:?}");
        assert_eq!(out.stderr, *stderr, "{args:?}");
    }
    let out = ab
        .run(&["skills", "get", "core", "--ref", "nope"])
        .failure();
    assert!(
        out.stderr
            .starts_with("✗ Reference not found: nope. Available: references/authentication.md"),
        "{}",
        out.stderr
    );
    let out = ab
        .run(&["skills", "get", "core", "slack", "--ref", "commands"])
        .failure();
    assert!(out.stderr.contains("--ref needs exactly one skill name"));
    let out = ab.run(&["skills", "bogus"]).failure();
    assert!(out.stderr.starts_with("✗ Unknown skills subcommand: bogus"));
    let json = ab
        .run(&["--json", "skills", "get", "nope"])
        .failure()
        .json();
    assert_eq!(
        json,
        serde_json::json!({"success": false, "error": "Skill not found: nope"})
    );
    // An unknown flag is named, and the guide still printed.
    let out = ab.run(&["skills", "get", "core", "--bogus"]).success();
    assert_eq!(out.stderr, "⚠ Unknown flag ignored: --bogus\n");
}

#[test]
fn skills_read_agent_browser_skills_dir_instead_when_it_is_set() {
    let dir = tempfile::tempdir().expect("dir");
    let guide = dir.path().join("mine");
    std::fs::create_dir_all(guide.join("references")).expect("mkdir");
    std::fs::write(
        guide.join("SKILL.md"),
        "---\nname: mine\ndescription: A guide of my own.\n---\n\n# Mine\n",
    )
    .expect("write");
    std::fs::write(guide.join("references/extra.md"), "# Extra\n").expect("write");
    let ab = local_cli().env("AGENT_BROWSER_SKILLS_DIR", &dir.path().to_string_lossy());
    assert_eq!(
        ab.run(&["skills", "list"]).success().stdout,
        "  mine  A guide of my own.\n"
    );
    assert_eq!(
        ab.run(&["skills", "get", "mine", "--full"])
            .success()
            .stdout,
        "---\nname: mine\ndescription: A guide of my own.\n---\n\n# Mine\n\n--- references/extra.md ---\n\n# Extra\n"
    );
    assert_eq!(
        ab.run(&["skills", "path", "mine"]).success().out(),
        guide.display().to_string()
    );
    ab.run(&["skills", "get", "core"]).failure();

    let missing = local_cli().env("AGENT_BROWSER_SKILLS_DIR", "/nonexistent/abx-skills");
    let out = missing.run(&["skills"]).failure();
    assert!(
        out.stderr
            .contains("AGENT_BROWSER_SKILLS_DIR=/nonexistent/abx-skills is not a directory"),
        "{}",
        out.stderr
    );
}

#[test]
fn skills_path_gives_a_directory_holding_the_built_in_guides() {
    let ab = local_cli();
    let core = PathBuf::from(ab.run(&["skills", "path", "core"]).success().out());
    assert!(core.starts_with(ab.home()), "{}", core.display());
    assert_eq!(
        read(&core.join("SKILL.md")),
        read(&repo_skills().join("core/SKILL.md"))
    );
    assert!(core.join("references/commands.md").is_file());
    let root = PathBuf::from(ab.run(&["skills", "path"]).success().out());
    assert_eq!(core.parent(), Some(root.as_path()));
    let json = ab
        .run(&["--json", "skills", "path", "core"])
        .success()
        .json();
    assert_eq!(json["data"]["name"], "core");
    assert_eq!(json["data"]["path"], core.display().to_string());
    // Asking again reuses the copy.
    assert_eq!(
        ab.run(&["skills", "path", "core"]).success().out(),
        core.display().to_string()
    );
}

fn check<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

#[test]
fn doctor_reports_chrome_the_headless_choice_and_the_machine_one_line_per_check() {
    let ab = local_cli();
    let report = ab.run(&["--json", "doctor", "--quick"]).success().json();
    assert_eq!(report["success"], true, "{report}");
    assert_eq!(report["summary"]["fail"], 0, "{report}");
    // Upstream's ids where the same thing is checked, each once.
    for id in [
        "env.version",
        "env.home",
        "env.state_dir",
        "env.socket_dir",
        "env.socket_path",
        "env.disk_free",
        "env.sandbox",
        "chrome.installed",
        "chrome.headless_shell",
        "chrome.selection",
        "display.headed",
        "recording.ffmpeg",
        "recording.ffmpeg_encoders",
        "fonts.installed",
        "daemon.active",
        "security.encryption_key",
        "providers.browserless",
        "providers.chat",
    ] {
        let c = check(&report, id);
        assert!(c["message"].as_str().is_some_and(|m| !m.is_empty()), "{c}");
        assert!(
            ["pass", "warn", "info"].contains(&c["status"].as_str().unwrap_or("")),
            "{c}"
        );
    }
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default();
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate ids: {ids:?}");
    let chrome = check(&report, "chrome.installed")["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        chrome.contains("Chromium 1") && chrome.contains("/usr/bin/chromium"),
        "{chrome}"
    );
    let shell = check(&report, "chrome.headless_shell")["message"]
        .as_str()
        .unwrap_or("");
    assert!(shell.contains("chromium-headless-shell"), "{shell}");
    let choice = check(&report, "chrome.selection")["message"]
        .as_str()
        .unwrap_or("");
    assert!(choice.contains("runs headless-shell"), "{choice}");
    assert!(report.get("checks").is_some_and(|c| {
        c.as_array()
            .is_some_and(|a| a.iter().all(|c| c.get("category").is_some()))
    }));
    // --quick: no launch test.
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|a| !a.iter().any(|c| c["id"] == "launch.elapsed"))
    );

    // An explicit executable decides the choice.
    let full = local_cli().env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium");
    let report = full.run(&["--json", "doctor", "--quick"]).success().json();
    let choice = check(&report, "chrome.selection")["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        choice.contains("runs chrome") && choice.contains("AGENT_BROWSER_EXECUTABLE_PATH"),
        "{choice}"
    );
    // ...and is the Chrome `chrome.installed` reports (upstream doctor_cli).
    let installed = check(&report, "chrome.installed");
    assert_eq!(installed["status"], "pass", "{installed}");
    assert!(
        installed["message"]
            .as_str()
            .is_some_and(|m| m.contains("/usr/bin/chromium") && m.contains("configured")),
        "{installed}"
    );

    let text = ab.run(&["doctor", "--quick"]).success();
    assert!(
        text.stdout
            .starts_with("agent-browser doctor\n\nEnvironment\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("\nChrome\n  pass  Chromium"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("\nSummary: "), "{}", text.stdout);
}

#[test]
fn doctor_fails_with_exit_1_on_an_unwritable_or_too_long_socket_dir() {
    let file = tempfile::NamedTempFile::new().expect("file");
    let under_file = file.path().join("sockets");
    let ab = local_cli().env("AGENT_BROWSER_SOCKET_DIR", &under_file.to_string_lossy());
    let out = ab.run(&["doctor", "--quick"]).failure();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("  fail  Socket directory")
            && out.stdout.contains("fix: export AGENT_BROWSER_SOCKET_DIR="),
        "{}",
        out.stdout
    );
    let report = ab.run(&["--json", "doctor", "--quick"]).failure().json();
    assert_eq!(report["success"], false);
    assert_eq!(check(&report, "env.socket_dir")["status"], "fail");

    let long = std::env::temp_dir().join("x".repeat(100));
    let ab = local_cli().env("AGENT_BROWSER_SOCKET_DIR", &long.to_string_lossy());
    let report = ab.run(&["--json", "doctor", "--quick"]).failure().json();
    let path = check(&report, "env.socket_path");
    assert_eq!(path["status"], "fail", "{path}");
    assert!(
        path["message"].as_str().is_some_and(|m| m.contains("103")),
        "{path}"
    );
    assert!(!long.exists(), "doctor created the socket dir");

    let out = local_cli().run(&["doctor", "--bogus"]).failure();
    assert!(
        out.stderr.starts_with("✗ Unknown doctor option: --bogus"),
        "{}",
        out.stderr
    );
}

/// A pid that is certainly dead: a child that has exited and been reaped.
fn dead_pid() -> i32 {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = child.id() as i32;
    child.wait().expect("wait");
    pid
}

#[test]
fn doctor_removes_only_the_files_of_daemons_whose_pid_is_dead_and_lists_live_sessions() {
    let site = site();
    let ab = Cli::new().session("live");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let live_pid = ab.daemon_pid().expect("live daemon");
    let dir = ab.socket_dir().to_path_buf();
    let dead = dead_pid();
    std::fs::write(dir.join("gone.pid"), format!("{dead}\n")).expect("pid");
    std::fs::write(dir.join("gone.version"), "0.41.2").expect("version");
    // A Host stage's binding survives its daemon on purpose.
    std::fs::write(dir.join("gone.target"), "{}").expect("target");
    // A socket file nobody listens on.
    drop(std::os::unix::net::UnixListener::bind(dir.join("gone.sock")).expect("bind"));
    assert!(dir.join("gone.sock").exists());

    let report = ab.run(&["--json", "doctor", "--quick"]).success().json();
    let cleaned = check(&report, "daemon.cleaned.gone");
    assert_eq!(cleaned["status"], "warn");
    assert!(
        cleaned["message"]
            .as_str()
            .is_some_and(|m| m.contains("\"gone\"")
                && m.contains(&dead.to_string())
                && m.contains("gone.sock")
                && m.contains("gone.pid")),
        "{cleaned}"
    );
    let live = check(&report, "daemon.session.live");
    assert_eq!(live["status"], "pass", "{live}");
    assert!(
        live["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("live (pid {live_pid})"))),
        "{live}"
    );
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|a| !a.iter().any(|c| c["id"] == "daemon.active")),
        "{report}"
    );
    for suffix in ["pid", "sock", "version"] {
        assert!(
            !dir.join(format!("gone.{suffix}")).exists(),
            "gone.{suffix} left"
        );
    }
    assert!(dir.join("gone.target").exists(), "the stage binding went");
    // The next run has nothing left to clean.
    let report = ab.run(&["--json", "doctor", "--quick"]).success().json();
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|a| !a.iter().any(|c| c["id"] == "daemon.cleaned.gone")),
        "{report}"
    );
    // The live session is untouched and still answers.
    assert!(ab.file("pid").exists() && ab.file("sock").exists());
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    ab.run(&["close"]).success();
}

#[test]
fn doctor_fix_creates_the_missing_encryption_key_and_help_lists_exit_codes() {
    let ab = local_cli();
    let key = ab.home().join(".agent-browser/.encryption-key");
    let report = ab.run(&["--json", "doctor", "--quick"]).success().json();
    assert_eq!(check(&report, "security.encryption_key")["status"], "info");
    assert!(!key.exists(), "doctor without --fix created the key");
    let report = ab
        .run(&["--json", "doctor", "--quick", "--fix"])
        .success()
        .json();
    assert_eq!(
        check(&report, "security.encryption_key")["status"],
        "pass",
        "{report}"
    );
    assert!(
        report["fixed"].as_array().is_some_and(
            |f| f.len() == 1 && f[0].as_str().is_some_and(|l| l.contains(".encryption-key"))
        ),
        "{report}"
    );
    let text = std::fs::read_to_string(&key).expect("key file");
    assert_eq!(text.trim().len(), 64, "{text}");

    let help = ab.run(&["doctor", "--help"]).success();
    for needle in [
        "--offline",
        "--quick",
        "--fix",
        "--json",
        "Exit codes:",
        "  1  ",
    ] {
        assert!(help.stdout.contains(needle), "{needle}: {}", help.stdout);
    }
}

#[test]
fn doctor_launch_test_runs_a_real_headless_session_and_leaves_nothing() {
    let ab = Cli::new();
    let tmp = tempfile::tempdir().expect("tmp");
    let started = std::time::Instant::now();
    let out = ab
        .command(&["--json", "doctor"])
        .env("TMPDIR", tmp.path())
        .output()
        .expect("doctor");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let launch = check(&report, "launch.elapsed");
    assert_eq!(launch["status"], "pass", "{launch}");
    assert!(
        launch["message"]
            .as_str()
            .is_some_and(|m| m.contains("with headless-shell")),
        "{launch}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    // The scratch socket dir is gone, and so is its daemon.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("abx-doctor"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(
        !ab.socket_dir().exists(),
        "doctor used the user's socket dir"
    );
}

#[test]
fn install_finds_the_system_chrome_and_exits_0_without_downloading() {
    // `npm i -g agent-browser && agent-browser install`: the second half, with our binary.
    let ab = local_cli();
    let out = ab.run(&["install"]).success();
    assert!(out.stdout.contains("/usr/bin/chromium"), "{}", out.stdout);
    assert!(out.stdout.contains("nothing to download"), "{}", out.stdout);
    let json = ab.run(&["--json", "install"]).success().json();
    assert_eq!(json["data"]["found"], true);
    assert_eq!(json["data"]["executablePath"], "/usr/bin/chromium");
    assert_eq!(json["data"]["installed"], serde_json::json!([]));
    assert!(
        json["data"]["headlessShell"]
            .as_str()
            .is_some_and(|p| p.contains("headless-shell"))
    );
    ab.run(&["install", "--with-deps"]).success();
    assert!(!ab.socket_dir().exists());
}

#[test]
fn install_without_chrome_or_apt_prints_the_packages_and_exits_1() {
    // A PATH with neither Chrome nor apt-get: nothing can be installed from here.
    let bin = tempfile::tempdir().expect("bin");
    let ab = local_cli().env("PATH", &bin.path().to_string_lossy());
    let out = ab.run(&["install"]).failure();
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("apt-get install -y chromium chromium-headless-shell"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.starts_with("✗ No browser installed"),
        "{}",
        out.stderr
    );
    let json = ab
        .run(&["--json", "install", "--with-deps"])
        .failure()
        .json();
    assert_eq!(json["success"], false);
    assert_eq!(
        json["data"]["packages"],
        serde_json::json!([
            "chromium",
            "chromium-headless-shell",
            "xvfb",
            "fonts-liberation",
            "ffmpeg",
            "libnss3-tools"
        ])
    );
    let out = local_cli().run(&["install", "--bogus"]).failure();
    assert!(out.stderr.starts_with("✗ Unknown install option: --bogus"));
}

#[test]
fn upgrade_says_how_this_binary_is_upgraded_and_exits_0() {
    let ab = local_cli();
    let out = ab.run(&["upgrade"]).success();
    assert!(
        out.stdout.contains("does not update itself"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("cargo build --release"),
        "{}",
        out.stdout
    );
    let json = ab.run(&["--json", "upgrade"]).success().json();
    assert_eq!(json["data"]["upgraded"], false);
    ab.run(&["upgrade", "now"]).failure();
}

#[test]
fn help_starts_with_where_to_begin_and_every_command_has_an_example() {
    let ab = local_cli();
    let general = ab.run(&["--help"]).success().stdout;
    let head: Vec<&str> = general.lines().take(12).collect();
    assert!(
        head.iter().any(|l| l.contains("skills get core")),
        "{head:#?}"
    );
    assert!(head.iter().any(|l| l.contains("snapshot -i")), "{head:#?}");
    let mut checked = 0;
    for command in agent_browser::commands::registry::TABLE {
        let Some(help) = command.help else {
            continue;
        };
        let name = command.names[0];
        assert!(
            general.contains(help.usage[0]),
            "{name} is not in the general help"
        );
        let text = ab.run(&[name, "--help"]).success().stdout;
        let examples = text
            .split("\nExamples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("`{name} --help` has no examples:\n{text}"));
        assert!(
            examples.lines().next().is_some_and(|l| command
                .names
                .iter()
                .any(|n| l.starts_with(&format!("  agent-browser {n}")))),
            "`{name} --help`: {examples}"
        );
        checked += 1;
    }
    assert!(checked > 60, "only {checked} commands in the help");
}
