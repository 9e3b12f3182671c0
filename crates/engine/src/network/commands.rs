//! The session's network commands: the request log (`network requests`, `network request`),
//! routes (`network route`, `unroute`) and HAR recording (`network har start|stop`).

use std::path::Path;

use abx_cdp::protocol::browser_protocol::{browser as cdp_browser, network};

use super::{
    CALL_DEADLINE, HarContent, HarSaved, NetworkError, RequestDetail, RequestFilter, RequestRecord,
    Route, body_text, har, lock, response_body,
};
use crate::session::Session;

impl Session {
    /// The logged requests of this session's tabs that pass `filter`, oldest first (at most
    /// [`MAX_REQUESTS`](super::MAX_REQUESTS); logging starts when the session attaches a tab).
    pub fn network_requests(
        &self,
        filter: &RequestFilter,
    ) -> Result<Vec<RequestRecord>, NetworkError> {
        let matcher = filter.compile()?;
        Ok(lock(&self.network.log).matching(&matcher))
    }

    /// Empties the request log.
    pub fn clear_network_requests(&self) {
        lock(&self.network.log).clear();
    }

    /// One logged request with its request and response headers, its request body and, while
    /// Chrome still holds it (until the page navigates away), its response body.
    pub async fn network_request(&self, request_id: &str) -> Result<RequestDetail, NetworkError> {
        let record = lock(&self.network.log)
            .find(request_id)
            .cloned()
            .ok_or_else(|| NetworkError::RequestNotFound {
                request_id: request_id.to_string(),
            })?;
        let mut detail = RequestDetail::from_record(&record);
        let cdp = self.network.cdp_of(record.target_id());
        if let Some(cdp) = cdp {
            if record.post_data.is_none() && record.has_post_data() {
                let post = network::GetRequestPostDataParams::new(request_id.to_string());
                if let Ok(reply) = cdp.call_within(post, CALL_DEADLINE).await {
                    detail.record.post_data = Some(reply.post_data);
                }
            }
            if record.finished() {
                match response_body(&cdp, request_id).await {
                    Ok(body) => {
                        let (text, base64) = body_text(body.body, body.base64_encoded);
                        detail.response_body = Some(text);
                        detail.response_body_base64 = base64;
                    }
                    Err(err) => tracing::debug!(%err, "no response body for the request"),
                }
            }
        }
        Ok(detail)
    }

    /// Adds a route (replacing one with the same pattern). Requests of the session's targets
    /// that match it are mocked, aborted or let through as it says; with an allowlist, only
    /// requests the allowlist lets out reach a route.
    pub async fn route(&self, route: Route) -> Result<(), NetworkError> {
        route.validate()?;
        self.network.routes.add(route);
        self.network.sync_interception().await
    }

    /// Removes the route with this pattern, or every route (`None`); returns how many went.
    pub async fn unroute(&self, pattern: Option<&str>) -> Result<usize, NetworkError> {
        let removed = self.network.routes.remove(pattern);
        self.network.sync_interception().await?;
        Ok(removed)
    }

    /// The current routes, in the order they are tried.
    pub fn routes(&self) -> Vec<Route> {
        self.network.routes.snapshot()
    }

    /// Starts a HAR recording (a running one starts over), embedding response bodies per
    /// `content`.
    pub fn har_start(&self, content: HarContent) {
        let mut har = lock(&self.network.har);
        let generation = har.as_ref().map_or(1, |r| r.generation + 1);
        *har = Some(har::Recording::new(content, generation));
    }

    /// Writes the recording as HAR 1.2 to `path` and ends it, naming `abx` and this crate's
    /// version as the HAR's creator. When the file cannot be written the recording goes on, so
    /// the caller can retry with another path.
    pub async fn har_stop(&self, path: &Path) -> Result<HarSaved, NetworkError> {
        self.har_stop_as(path, "abx", env!("CARGO_PKG_VERSION"))
            .await
    }

    /// [`har_stop`](Self::har_stop) with the HAR's `log.creator` given by the caller (the
    /// `agent-browser` CLI writes its own name and version there, as upstream does).
    pub async fn har_stop_as(
        &self,
        path: &Path,
        creator: &str,
        creator_version: &str,
    ) -> Result<HarSaved, NetworkError> {
        let entries = {
            let har = lock(&self.network.har);
            let recording = har.as_ref().ok_or(NetworkError::HarNotStarted)?;
            recording.entries()
        };
        let browser = self
            .browser()
            .connection()
            .browser()
            .call_within(cdp_browser::GetVersionParams::default(), CALL_DEADLINE)
            .await
            .ok()
            .map(|v| v.product);
        let document = har::document(
            &entries.records,
            browser.as_deref(),
            (creator, creator_version),
        );
        let text = serde_json::to_string_pretty(&document).map_err(|e| NetworkError::HarWrite {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        std::fs::write(path, text).map_err(|e| NetworkError::HarWrite {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        *lock(&self.network.har) = None;
        Ok(HarSaved {
            path: path.to_path_buf(),
            request_count: entries.records.len(),
            dropped: entries.dropped,
        })
    }

    /// Whether a HAR recording is running.
    pub fn har_recording(&self) -> bool {
        lock(&self.network.har).is_some()
    }
}
