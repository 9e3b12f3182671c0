//! An example Host: the seed's pipeline on the fixture site, driven through the `agent-browser`
//! binary as an agent would drive it from bash.
//!
//! 1. `check`: a login check of profile `fixture-site` (the Host decides from the settled URL).
//! 2. `login` (only when logged out): a human login stage. This Host has no screen, so the
//!    person logs in through the live view: a control ticket, a credential, frames, their
//!    clicks and keys; the Host checks the login again before going on.
//! 3. `work-a` and `work-b` in parallel on the same profile, each in its own pinned tab of the
//!    run's one shared browser, each seeing the login.
//! 4. Run teardown: stage sessions, the shared browser (gracefully, so cookies persist), the
//!    lease. Nothing is left running.
//!
//! Run it with `cargo run -p abx-host --example pipeline` (after `cargo build -p agent-browser`);
//! `cargo test -p abx-host --example pipeline` runs it as a test.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use abx_fixtures::FixtureServer;
use abx_host::{
    BrowserEnv, DisplayProbe, Headed, Host, HostConfig, LoginCheck, ProfileName, RunId, RunRef,
    RunState, Screen, StageId, StageSpec, ViewMode, Viewer, ViewerMessage,
};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// What the run observed.
#[derive(Debug)]
pub struct Report {
    /// The first check's verdict.
    pub logged_in_at_start: bool,
    /// How the login stage's browser ran, and why.
    pub login_display: String,
    /// Frames the person saw while logging in.
    pub frames_seen: usize,
    /// The Host's re-check after the person finished.
    pub logged_in_after_login: bool,
    /// What each work stage read from its own tab.
    pub work: Vec<(String, String)>,
    /// Both work stages used the same shared browser.
    pub one_shared_browser: bool,
    /// Run teardown closed everything.
    pub teardown_complete: bool,
    /// Socket dirs left behind.
    pub leftovers: usize,
}

/// An agent's bash: `agent-browser <args>` with the stage env and nothing else of ours.
fn agent(binary: &Path, env: &BrowserEnv, args: &[&str]) -> Result<String, Error> {
    let mut command = std::process::Command::new(binary);
    command.args(args).env_clear();
    for key in ["PATH", "HOME", "TMPDIR"] {
        if let Ok(value) = std::env::var(key) {
            command.env(key, value);
        }
    }
    let output = command.envs(env.iter()).output()?;
    if !output.status.success() {
        return Err(format!(
            "agent-browser {args:?}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .trim_end()
        .to_string())
}

/// A person in front of the live view: clicks a field, types, presses Enter.
struct Person<'a> {
    view: &'a Viewer,
}

impl Person<'_> {
    async fn click(&self, x: f64, y: f64) -> Result<(), Error> {
        for kind in ["mousePressed", "mouseReleased"] {
            self.view
                .send(&format!(
                    r#"{{"type":"input_mouse","eventType":"{kind}","x":{x},"y":{y},"button":"left","clickCount":1}}"#
                ))
                .await?;
        }
        Ok(())
    }

    async fn type_text(&self, text: &str) -> Result<(), Error> {
        for c in text.chars() {
            let key = serde_json::to_string(&c.to_string())?;
            self.view
                .send(&format!(
                    r#"{{"type":"input_keyboard","eventType":"keyDown","key":{key},"text":{key}}}"#
                ))
                .await?;
            self.view
                .send(&format!(
                    r#"{{"type":"input_keyboard","eventType":"keyUp","key":{key}}}"#
                ))
                .await?;
        }
        Ok(())
    }

    async fn press_enter(&self) -> Result<(), Error> {
        self.view
            .send(r#"{"type":"input_keyboard","eventType":"keyDown","key":"Enter","text":"\r","windowsVirtualKeyCode":13}"#)
            .await?;
        self.view
            .send(r#"{"type":"input_keyboard","eventType":"keyUp","key":"Enter","windowsVirtualKeyCode":13}"#)
            .await?;
        Ok(())
    }
}

/// The centre of `selector` on the stage's page (what the person sees in the frames).
fn centre(binary: &Path, env: &BrowserEnv, selector: &str) -> Result<(f64, f64), Error> {
    let script = format!(
        "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
        serde_json::to_string(selector)?
    );
    let value: serde_json::Value = serde_json::from_str(&agent(binary, env, &["eval", &script])?)?;
    Ok((
        value[0].as_f64().ok_or("no x")?,
        value[1].as_f64().ok_or("no y")?,
    ))
}

/// The person's side of the login stage.
async fn log_in_through_the_live_view(
    host: &Host,
    binary: &Path,
    run: &RunRef,
    stage: &StageId,
    env: &BrowserEnv,
) -> Result<usize, Error> {
    // The Host hands the person a one-use ticket; their browser trades it for a credential.
    let ticket = host.live_view_ticket(run, stage, ViewMode::Control);
    let credential = host.redeem_live_view_ticket(&ticket)?;
    let mut view = host.open_viewer(&run.scope, &credential.token).await?;
    let mut frames = 0;
    view.next_frame()
        .await
        .ok_or("no frame of the login page")?;
    frames += 1;
    let person = Person { view: &view };
    let (x, y) = centre(binary, env, "#username")?;
    person.click(x, y).await?;
    person.type_text("ada").await?;
    let (x, y) = centre(binary, env, "#password")?;
    person.click(x, y).await?;
    person.type_text("correct horse").await?;
    person.press_enter().await?;
    // The person sees the account page arrive, then confirms.
    tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(message) = view.next().await {
            match message {
                ViewerMessage::Frame(_) => frames += 1,
                ViewerMessage::Event(text)
                    if text.contains("\"type\":\"url\"") && text.contains("/account") =>
                {
                    return Ok(());
                }
                ViewerMessage::Event(_) => {}
            }
        }
        Err::<(), Error>("the live view ended before the login finished".into())
    })
    .await
    .map_err(|_| "the login did not finish within 20 s")??;
    Ok(frames)
}

/// The whole pipeline. `home` and `socket_root` are the Host's folders.
pub async fn run(
    site: &FixtureServer,
    binary: &Path,
    home: &Path,
    socket_root: &Path,
) -> Result<Report, Error> {
    let mut config = HostConfig::new(home);
    config.socket_root = socket_root.to_path_buf();
    // A server Host: no screen, but a live view for the person who logs in.
    config.display = DisplayProbe::fixed(Screen::None);
    config.live_view_handoff = true;
    config.launch.args = vec!["--disable-quic".into(), "--disable-gpu".into()];
    // This example's only run is live until its teardown; a real Host answers from its run table.
    let host = Host::local(config, Arc::new(|_: &RunId| RunState::Running), binary)?;
    host.sweep().await?;

    let run = RunRef::parse("local", &format!("run-{}", std::process::id()))?;
    let profile = ProfileName::new("fixture-site")?;
    let check = LoginCheck::new(site.url("/members"), &["**/members"], &["**/login.html*"]);

    // 1. The check stage: the Host decides.
    let check_stage = StageId::new("check")?;
    let checked = host
        .prepare_stage(
            &run,
            &check_stage,
            &StageSpec {
                login_check: Some(check.clone()),
                ..StageSpec::with_profile(profile.clone())
            },
        )
        .await?;
    let logged_in_at_start = checked.login.as_ref().is_some_and(|l| l.logged_in);
    host.end_stage(&run.id, &check_stage).await?;

    // 2. The human login stage, only when needed.
    let mut login_display = String::from("skipped");
    let mut frames_seen = 0;
    let mut logged_in_after_login = logged_in_at_start;
    if !logged_in_at_start {
        let login_stage = StageId::new("login")?;
        let login = host
            .prepare_stage(
                &run,
                &login_stage,
                &StageSpec {
                    human_login: Some(site.url("/login.html")),
                    headed: Headed::Auto,
                    ..StageSpec::with_profile(profile.clone())
                },
            )
            .await?;
        login_display = login.display.to_string();
        frames_seen =
            log_in_through_the_live_view(&host, binary, &run, &login_stage, &login.env).await?;
        logged_in_after_login = host
            .login_check(&run, &login_stage, &check)
            .await?
            .logged_in;
        host.end_stage(&run.id, &login_stage).await?;
    }
    if !logged_in_after_login {
        return Err("still logged out after the login stage".into());
    }

    // 3. Two work stages in parallel on the same profile.
    let work_spec = StageSpec::with_profile(profile.clone());
    let (a, b) = (StageId::new("work-a")?, StageId::new("work-b")?);
    let (env_a, env_b) = tokio::try_join!(
        host.prepare_stage(&run, &a, &work_spec),
        host.prepare_stage(&run, &b, &work_spec)
    )?;
    let one_shared_browser = env_a.env.cdp() == env_b.env.cdp();
    let jobs = [
        (env_a.env.clone(), "/account", "#persist"),
        (env_b.env.clone(), "/page2.html", "h1"),
    ];
    let mut handles = Vec::new();
    for (env, path, selector) in jobs {
        let binary: PathBuf = binary.to_path_buf();
        let url = site.url(path);
        handles.push(tokio::task::spawn_blocking(
            move || -> Result<(String, String), Error> {
                agent(&binary, &env, &["open", &url])?;
                let text = agent(&binary, &env, &["get", "text", selector])?;
                Ok((agent(&binary, &env, &["get", "title"])?, text))
            },
        ));
    }
    let mut work = Vec::new();
    for handle in handles {
        work.push(handle.await??);
    }
    host.end_stage(&run.id, &a).await?;
    host.end_stage(&run.id, &b).await?;

    // 4. Run teardown.
    let teardown = host.end_run(&run.id).await?;
    let leftovers = std::fs::read_dir(socket_root).map_or(0, Iterator::count);
    Ok(Report {
        logged_in_at_start,
        login_display,
        frames_seen,
        logged_in_after_login,
        work,
        one_shared_browser,
        teardown_complete: teardown.complete(),
        leftovers,
    })
}

/// The `agent-browser` next to this example's target dir, or `AGENT_BROWSER_BIN`.
fn agent_browser() -> PathBuf {
    if let Some(path) = std::env::var_os("AGENT_BROWSER_BIN") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("agent-browser")))
        .unwrap_or_else(|| PathBuf::from("agent-browser"))
}

#[cfg_attr(test, allow(dead_code))]
#[tokio::main]
async fn main() -> Result<(), Error> {
    let site = FixtureServer::start().await?;
    let home = tempfile::tempdir()?;
    let sockets = tempfile::Builder::new().prefix("abxs").tempdir_in("/tmp")?;
    let report = Box::pin(run(
        &site,
        &agent_browser(),
        home.path(),
        &sockets.path().join("s"),
    ))
    .await?;
    println!("{report:#?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_pipeline_example_runs() {
        let site = abx_fixtures::FixtureServer::start().await.expect("site");
        let home = tempfile::tempdir().expect("home");
        let sockets = tempfile::Builder::new()
            .prefix("abxs")
            .tempdir_in("/tmp")
            .expect("sockets");
        let binary = super::agent_browser();
        assert!(
            binary.exists(),
            "build agent-browser first: {}",
            binary.display()
        );
        let report = Box::pin(super::run(
            &site,
            &binary,
            home.path(),
            &sockets.path().join("s"),
        ))
        .await
        .expect("the pipeline");
        println!("{report:#?}");
        assert!(
            !report.logged_in_at_start,
            "a new profile starts logged out"
        );
        assert!(
            report.login_display.contains("live view"),
            "{}",
            report.login_display
        );
        assert!(report.frames_seen > 0);
        assert!(report.logged_in_after_login);
        assert_eq!(
            report.work[0],
            ("Account".to_string(), "ada".to_string()),
            "work-a sees the login"
        );
        assert_eq!(
            report.work[1],
            ("Page Two".to_string(), "Page Two".to_string())
        );
        assert!(report.one_shared_browser);
        assert!(report.teardown_complete);
        assert_eq!(report.leftovers, 0, "nothing left in the socket root");
    }
}
