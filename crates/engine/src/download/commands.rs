//! The session's download commands: `download <selector> <path>` and `wait --download [path]`,
//! and the start of the event pump they read from.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use abx_cdp::EventFilter;
use abx_cdp::protocol::browser_protocol::{browser as cdp_browser, page};

use super::{Downloaded, Progress, Started, destination, free_name, move_file, pump, writable_dir};
use crate::actions::ClickOptions;
use crate::error::{EngineError, Result};
use crate::session::Session;

impl Session {
    /// Sets the download behaviour on the session's browser context and starts following
    /// download events (once per session).
    pub(crate) async fn downloads_started(&self) -> Result<()> {
        let downloads = &self.downloads;
        let mut started = downloads.started.lock().await;
        if started.is_some() {
            return Ok(());
        }
        let tab = self.active_tab().await?;
        if let Some(dir) = &downloads.dir {
            writable_dir(dir)?;
        }
        // Staged in a directory of our own, then moved: a GUID-named file never shows up in
        // the user's download directory.
        let staging = std::env::temp_dir().join(format!(
            "abx-downloads-{}-{}",
            std::process::id(),
            crate::tab::now_ms()
        ));
        let staging = writable_dir(&staging)?;
        let context = self
            .browser()
            .target(tab.target_id())
            .and_then(|t| t.browser_context_id);
        let browser = self.browser().connection().browser();
        let events = browser.subscribe(
            EventFilter::methods([
                cdp_browser::EventDownloadWillBegin::IDENTIFIER,
                cdp_browser::EventDownloadProgress::IDENTIFIER,
            ]),
            1024,
        );
        let behavior = cdp_browser::SetDownloadBehaviorParams {
            behavior: cdp_browser::SetDownloadBehaviorBehavior::AllowAndName,
            browser_context_id: context.map(Into::into),
            download_path: Some(staging.display().to_string()),
            events_enabled: Some(true),
        };
        browser
            .call_within(behavior, Duration::from_secs(5))
            .await?;
        let pump = tokio::spawn(pump(
            events,
            downloads.ledger.clone(),
            downloads.changes.clone(),
            staging.clone(),
            downloads.dir.clone(),
        ));
        *started = Some(Started { staging, pump });
        Ok(())
    }

    /// The frame ids of the active tab (main frame first).
    async fn tab_frames(&self, timeout: Duration) -> Result<HashSet<String>> {
        let tab = self.active_tab().await?;
        let mut frames = HashSet::from([tab.target_id().to_string()]);
        if let Ok(tree) = tab
            .cdp()
            .call_within(page::GetFrameTreeParams::default(), timeout)
            .await
        {
            let mut stack = vec![tree.frame_tree];
            while let Some(node) = stack.pop() {
                frames.insert(node.frame.id.inner().clone());
                stack.extend(node.child_frames.unwrap_or_default());
            }
        }
        Ok(frames)
    }

    /// `download <selector> <path>`: clicks the element and saves the download the click
    /// started to `path` (its directory is created). Fails when nothing downloads within the
    /// timeout or the download is canceled.
    pub async fn download(
        &self,
        selector: &str,
        path: &str,
        timeout: Option<Duration>,
    ) -> Result<Downloaded> {
        let timeout = timeout.unwrap_or(self.options().default_timeout);
        let dest = destination(path)?;
        self.downloads_started().await?;
        let frames = self.tab_frames(timeout).await?;
        let mark = self.downloads.ledger().records.len();
        self.page(Some(timeout))
            .await?
            .click(selector, &ClickOptions::default())
            .await?;
        self.claim_download(&frames, mark, Some(dest), timeout, "download")
            .await
    }

    /// `wait --download [path]`: waits for the next download of the session's tab (one that
    /// finished earlier and was not claimed counts) and moves it to `path` when given.
    pub async fn wait_download(
        &self,
        path: Option<&str>,
        timeout: Option<Duration>,
    ) -> Result<Downloaded> {
        let timeout = timeout.unwrap_or(self.options().default_timeout);
        let dest = path.map(destination).transpose()?;
        self.downloads_started().await?;
        let frames = self.tab_frames(timeout).await?;
        self.claim_download(&frames, 0, dest, timeout, "wait_download")
            .await
    }

    async fn claim_download(
        &self,
        frames: &HashSet<String>,
        from: usize,
        dest: Option<PathBuf>,
        timeout: Duration,
        what: &str,
    ) -> Result<Downloaded> {
        let deadline = Instant::now() + timeout;
        let mut changes = self.downloads.changes.subscribe();
        loop {
            let found = {
                let mut ledger = self.downloads.ledger();
                let pick = ledger
                    .records
                    .iter_mut()
                    .skip(from)
                    .find(|r| !r.claimed && frames.contains(&r.frame_id));
                match pick {
                    Some(r) if r.progress == Progress::Canceled => {
                        r.claimed = true;
                        return Err(EngineError::Page(format!(
                            "The download of {} was canceled",
                            r.url
                        )));
                    }
                    Some(r) if r.progress == Progress::Completed && r.file.is_some() => {
                        r.claimed = true;
                        Some(r.clone())
                    }
                    _ => None,
                }
            };
            if let Some(record) = found {
                let file = record.file.unwrap_or_default();
                let saved = match dest {
                    Some(dest) => {
                        move_file(&file, &dest)?;
                        dest
                    }
                    None => {
                        // Still staged under its GUID (no download directory): out of the
                        // staging directory, which goes with the session, under its name.
                        if file.file_name().and_then(|n| n.to_str()) == Some(record.guid.as_str()) {
                            let named = free_name(&std::env::temp_dir(), &record.suggested);
                            move_file(&file, &named)?;
                            named
                        } else {
                            file
                        }
                    }
                };
                return Ok(Downloaded {
                    path: saved.display().to_string(),
                    url: record.url,
                    suggested_filename: record.suggested,
                });
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(EngineError::Timeout {
                    what: format!("{what} (no download finished)"),
                    after: timeout,
                });
            }
            let tab = self.active_tab().await?;
            tab.check_usable(what)?;
            // Wake on a download event, and now and then to notice a dialog or a closed tab.
            let slice = remaining.min(Duration::from_millis(250));
            let _ = tokio::time::timeout(slice, changes.changed()).await;
        }
    }
}
