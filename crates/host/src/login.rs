//! The login check (seed §4 step 2.8): the Host, not a model, decides whether a profile is
//! logged in. Open the check URL in the stage's session, wait for network idle, read the URL
//! until it settles, match the logged-out globs (they win) and the logged-in globs.

use std::time::Duration;

use abx_engine::glob::Glob;
use serde::{Deserialize, Serialize};

use crate::env::BrowserEnv;
use crate::error::Result;
use crate::runner::{BrowserRunner, run_ok};

/// How to tell a logged-in profile from a logged-out one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginCheck {
    /// The page to open (a members-only page that redirects when logged out).
    pub url: String,
    /// URL globs of a logged-in landing (`**/account`).
    pub logged_in: Vec<String>,
    /// URL globs of a logged-out landing (`**/login*`); these win.
    pub logged_out: Vec<String>,
    /// The URL counts as settled when it stays the same this long.
    #[serde(default = "default_settle", with = "millis")]
    pub settle: Duration,
    /// The whole check's deadline.
    #[serde(default = "default_timeout", with = "millis")]
    pub timeout: Duration,
}

fn default_settle() -> Duration {
    Duration::from_millis(400)
}

fn default_timeout() -> Duration {
    Duration::from_secs(30)
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

impl LoginCheck {
    /// A check of `url` with default timings.
    pub fn new(url: impl Into<String>, logged_in: &[&str], logged_out: &[&str]) -> Self {
        Self {
            url: url.into(),
            logged_in: logged_in.iter().map(ToString::to_string).collect(),
            logged_out: logged_out.iter().map(ToString::to_string).collect(),
            settle: default_settle(),
            timeout: default_timeout(),
        }
    }

    /// The state a final URL means.
    ///
    /// ```
    /// use abx_host::{LoginCheck, LoginState};
    /// let check = LoginCheck::new("http://h/members", &["**/members"], &["**/login.html*"]);
    /// assert_eq!(check.state_of("http://h/members"), LoginState::LoggedIn);
    /// assert_eq!(check.state_of("http://h/login.html?next=%2Fmembers"), LoginState::LoggedOut);
    /// assert_eq!(check.state_of("http://h/elsewhere"), LoginState::Unknown);
    /// ```
    pub fn state_of(&self, url: &str) -> LoginState {
        if self.logged_out.iter().any(|g| Glob::new(g).matches(url)) {
            LoginState::LoggedOut
        } else if self.logged_in.iter().any(|g| Glob::new(g).matches(url)) {
            LoginState::LoggedIn
        } else {
            LoginState::Unknown
        }
    }
}

/// What the check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoginState {
    /// A logged-in glob matched (and no logged-out one).
    LoggedIn,
    /// A logged-out glob matched.
    LoggedOut,
    /// Neither matched.
    Unknown,
}

/// The persisted result (`browser-login-check.json`): `{state, logged_in, url}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginResult {
    /// The state.
    pub state: LoginState,
    /// `state == logged_in`, for a pipeline's routing.
    pub logged_in: bool,
    /// The settled URL (may carry tokens in its query: treat as sensitive).
    pub url: String,
}

/// Runs the check in the session of `env`.
pub(crate) async fn run_check(
    runner: &dyn BrowserRunner,
    env: &BrowserEnv,
    check: &LoginCheck,
) -> Result<LoginResult> {
    let deadline = tokio::time::Instant::now() + check.timeout;
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    run_ok(runner, env, &["open", &check.url], left()).await?;
    // Network idle may never come (a long poll); the URL reading below still decides.
    let _ = runner
        .run(env, &["wait", "--load", "networkidle"], left())
        .await;
    let mut last = run_ok(runner, env, &["get", "url"], left())
        .await?
        .answer("url");
    loop {
        if left().is_zero() {
            break;
        }
        tokio::time::sleep(check.settle.min(left())).await;
        let now = run_ok(
            runner,
            env,
            &["get", "url"],
            left().max(Duration::from_secs(5)),
        )
        .await?
        .answer("url");
        if now == last {
            break;
        }
        last = now;
    }
    let state = check.state_of(&last);
    Ok(LoginResult {
        state,
        logged_in: state == LoginState::LoggedIn,
        url: last,
    })
}
