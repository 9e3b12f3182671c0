//! Routes: what to do with a paused request whose URL matches a pattern.

use std::sync::{Arc, Mutex};

use abx_cdp::Session as CdpSession;
use abx_cdp::protocol::browser_protocol::{fetch, network};
use base64::Engine as _;
use serde::Deserialize;

use super::NetworkError;

/// What a route does with a matching request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteAction {
    /// Fail it (the page sees a network error).
    Abort,
    /// Answer it without touching the network.
    Fulfill(MockResponse),
    /// Let it go on unchanged.
    Continue,
}

/// A mocked response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MockResponse {
    /// The status (default 200).
    pub status: u16,
    /// The body.
    pub body: String,
    /// The `Content-Type`; `None` guesses `application/json` for a JSON body, else `text/plain`.
    pub content_type: Option<String>,
    /// More response headers.
    pub headers: Vec<(String, String)>,
}

impl MockResponse {
    /// A 200 response with this body.
    pub fn body(body: impl Into<String>) -> MockResponse {
        MockResponse {
            status: 200,
            body: body.into(),
            content_type: None,
            headers: Vec::new(),
        }
    }
}

/// A URL pattern and what to do with the requests it matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// A glob over the whole URL, `*` (or `**`, the same) standing for any run of characters;
    /// without `*`, the exact URL.
    pub pattern: String,
    /// What to do.
    pub action: RouteAction,
    /// Only requests of these resource types (any case); empty matches every type.
    pub resource_types: Vec<String>,
}

impl Route {
    /// A route for every resource type.
    pub fn new(pattern: impl Into<String>, action: RouteAction) -> Route {
        Route {
            pattern: pattern.into(),
            action,
            resource_types: Vec::new(),
        }
    }

    pub(crate) fn validate(&self) -> Result<(), NetworkError> {
        if self.pattern.is_empty() {
            return Err(NetworkError::InvalidRoute(
                "A route needs a URL pattern".into(),
            ));
        }
        if let RouteAction::Fulfill(mock) = &self.action
            && !(100..=599).contains(&mock.status)
        {
            return Err(NetworkError::InvalidRoute(format!(
                "Invalid status {}: use an HTTP status from 100 to 599",
                mock.status
            )));
        }
        Ok(())
    }

    fn matches(&self, url: &str, resource_type: &str) -> bool {
        let typed = self.resource_types.is_empty()
            || self
                .resource_types
                .iter()
                .any(|t| t.eq_ignore_ascii_case(resource_type));
        typed && crate::glob::route_matches(&self.pattern, url)
    }
}

/// The routes of one session, shared by its policy and its network state.
#[derive(Clone, Default)]
pub(crate) struct Routes(Arc<Mutex<Vec<Route>>>);

impl Routes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    pub(crate) fn snapshot(&self) -> Vec<Route> {
        self.lock().clone()
    }

    /// Adds `route`, in place of one with the same pattern.
    pub(crate) fn add(&self, route: Route) {
        let mut routes = self.lock();
        match routes.iter_mut().find(|r| r.pattern == route.pattern) {
            Some(existing) => *existing = route,
            None => routes.push(route),
        }
    }

    pub(crate) fn remove(&self, pattern: Option<&str>) -> usize {
        let mut routes = self.lock();
        let before = routes.len();
        match pattern {
            Some(p) => routes.retain(|r| r.pattern != p),
            None => routes.clear(),
        }
        before - routes.len()
    }

    fn first_match(&self, url: &str, resource_type: &str) -> Option<Route> {
        self.lock()
            .iter()
            .find(|r| r.matches(url, resource_type))
            .cloned()
    }
}

/// `Fetch.requestPaused`, read leniently.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PausedRequest {
    pub(crate) request_id: String,
    pub(crate) request: PausedUrl,
    #[serde(default)]
    pub(crate) resource_type: String,
    /// Set when paused at the response stage (we only intercept requests).
    #[serde(default)]
    response_status_code: Option<i64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PausedUrl {
    pub(crate) url: String,
}

impl PausedRequest {
    /// A request paused at the request stage.
    pub(crate) fn new(request_id: &str, url: &str, resource_type: &str) -> PausedRequest {
        PausedRequest {
            request_id: request_id.to_string(),
            request: PausedUrl {
                url: url.to_string(),
            },
            resource_type: resource_type.to_string(),
            response_status_code: None,
        }
    }
}

/// Answers a paused request from the routes: `true` when a route mocked or aborted it, `false`
/// when the caller must let it go on. The caller has checked the allowlist already.
pub(crate) async fn answer_paused(
    session: &CdpSession,
    routes: &Routes,
    paused: &PausedRequest,
) -> bool {
    if paused.response_status_code.is_some() {
        return false;
    }
    let Some(route) = routes.first_match(&paused.request.url, &paused.resource_type) else {
        return false;
    };
    let request_id = fetch::RequestId::from(paused.request_id.clone());
    let sent = match &route.action {
        RouteAction::Continue => return false,
        RouteAction::Abort => {
            session
                .send(&fetch::FailRequestParams::new(
                    request_id,
                    network::ErrorReason::Failed,
                ))
                .await
        }
        RouteAction::Fulfill(mock) => session.send(&fulfill(request_id, mock)).await,
    };
    if let Err(err) = sent {
        tracing::debug!(%err, "cannot answer a routed request");
    }
    true
}

fn fulfill(request_id: fetch::RequestId, mock: &MockResponse) -> fetch::FulfillRequestParams {
    let content_type = mock.content_type.clone().unwrap_or_else(|| {
        if serde_json::from_str::<serde_json::Value>(&mock.body).is_ok() {
            "application/json".into()
        } else {
            "text/plain; charset=utf-8".into()
        }
    });
    let mut headers = vec![fetch::HeaderEntry::new("Content-Type", content_type)];
    headers.extend(
        mock.headers
            .iter()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("content-type"))
            .map(|(name, value)| fetch::HeaderEntry::new(name.clone(), value.clone())),
    );
    let body = base64::engine::general_purpose::STANDARD.encode(mock.body.as_bytes());
    fetch::FulfillRequestParams {
        response_headers: Some(headers),
        body: Some(body.into()),
        ..fetch::FulfillRequestParams::new(request_id, i64::from(mock.status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_for_the_same_pattern_replaces_the_old_one() {
        let routes = Routes::default();
        routes.add(Route::new("**/a", RouteAction::Abort));
        routes.add(Route::new("**/b", RouteAction::Abort));
        routes.add(Route::new("**/a", RouteAction::Continue));
        let all = routes.snapshot();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].action, RouteAction::Continue);
        assert_eq!(routes.remove(Some("**/b")), 1);
        assert_eq!(routes.remove(None), 1);
        assert!(routes.is_empty());
    }

    #[test]
    fn resource_types_narrow_a_route() {
        let mut route = Route::new("*", RouteAction::Abort);
        route.resource_types = vec!["script".into()];
        assert!(route.matches("http://x/a.js", "Script"));
        assert!(!route.matches("http://x/a", "Fetch"));
    }
}
