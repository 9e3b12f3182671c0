//! The one place where engine errors become upstream's error texts, codes and recovery data,
//! with the CLI advice (`Run \`agent-browser tab list\``) the engine's own messages leave out.

use abx_engine::{EngineError, Unanswerable};
use serde_json::{Value, json};

/// A failed command, ready for the wire.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The `error` text.
    pub message: String,
    /// The `code`, when upstream (or abx) defines one.
    pub code: Option<&'static str>,
    /// Recovery data (`tab_gone`: `{"targetId","lastUrl"}`).
    pub data: Option<Value>,
    /// A dialog blocked the command: upstream names the command in the message, and only the
    /// daemon knows its action (see [`Failure::for_action`]).
    pub blocked_by: Option<BlockingDialog>,
}

/// The dialog that blocked a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockingDialog {
    /// alert | confirm | prompt | beforeunload.
    pub kind: String,
    /// Its message.
    pub message: String,
}

impl BlockingDialog {
    /// Upstream's text, naming the blocked command by its action.
    fn text(&self, action: &str) -> String {
        format!(
            "A JavaScript {} dialog is blocking the page: \"{}\". Resolve it with `dialog accept` or `dialog dismiss`, then retry `{action}`.",
            self.kind, self.message
        )
    }
}

impl Failure {
    /// A plain message without a code.
    pub fn message(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: None,
            data: None,
            blocked_by: None,
        }
    }

    /// A message with a code.
    pub fn coded(message: impl Into<String>, code: &'static str) -> Self {
        Self {
            code: Some(code),
            ..Self::message(message)
        }
    }

    /// The failure as the reply to `action` (upstream names a command a dialog blocked by its
    /// action: `retry \`gettext\``).
    pub fn for_action(mut self, action: &str) -> Failure {
        if let Some(dialog) = &self.blocked_by {
            self.message = dialog.text(action);
        }
        self
    }
}

impl From<EngineError> for Failure {
    fn from(err: EngineError) -> Self {
        let code = err.code();
        let mut failure = Failure {
            message: String::new(),
            code,
            data: None,
            blocked_by: None,
        };
        failure.message = match &err {
            EngineError::TabGone {
                target_id,
                last_url,
            } => {
                let mut data = json!({"targetId": target_id});
                // Like `.target`: no query, fragment or credentials (tokens stay out of logs).
                let last_url = last_url.as_deref().map(crate::sidecar::sanitize_url);
                let mut what = format!("target {target_id}");
                if let Some(url) = last_url {
                    what.push_str(&format!(", last url {url}"));
                    data["lastUrl"] = json!(url);
                }
                failure.data = Some(data);
                format!(
                    "tab_gone: bound tab is gone ({what}). Run `agent-browser tab new <url>` to bind a new tab, or `agent-browser tab list` to pick an existing one"
                )
            }
            EngineError::DialogBlocking {
                kind,
                message,
                command,
            } => {
                let dialog = BlockingDialog {
                    kind: kind.clone(),
                    message: message.clone(),
                };
                let text = dialog.text(command);
                failure.blocked_by = Some(dialog);
                text
            }
            EngineError::StaleRef { reference, reason } => format!(
                "ref {reference} is stale: {reason}. Run `snapshot` again to get fresh refs"
            ),
            EngineError::TabPinned { target_id, holder } => format!(
                "tab_pinned: tab {target_id} is pinned by another session ({holder}); a pinned tab cannot be taken over or closed by another session. Run `agent-browser tab new <url>` to open your own tab"
            ),
            EngineError::TabPosition { .. } => "Expected a tab id like `t2` or a label; positional integers are not accepted (run `agent-browser tab` to list stable tab ids)".to_string(),
            EngineError::TabNotFound { reference } => {
                format!("Tab not found: {reference}. Run `agent-browser tab list`")
            }
            EngineError::DialogUnanswerable(Unanswerable::OpenedBeforeAttach) => "this dialog opened before this session attached to the tab; Chrome only lets the client that was attached when it opened answer it, so it can be dismissed (`dialog dismiss`) but not accepted".to_string(),
            EngineError::DialogUnanswerable(Unanswerable::Beforeunload) => "the dialog did not go away when the tab was hidden; this is what a beforeunload dialog does, and only closing the tab (`tab close`) clears it".to_string(),
            EngineError::NotALink { selector } => format!(
                "--new-tab needs a link: '{selector}' is not inside an element with an href"
            ),
            EngineError::CookieNeedsUrl { .. } => {
                "Cannot set a cookie without --url or --domain on a page that is not http(s)"
                    .to_string()
            }
            // Upstream's wording for waits and for generic timeouts.
            EngineError::Timeout { what, after } if what == "Wait" => {
                format!("Wait timed out after {}ms", after.as_millis())
            }
            EngineError::Timeout { what, after } => format!(
                "Operation timed out after {}ms ({}). The page may still be loading or the element may not exist.",
                after.as_millis(),
                cli_words(what)
            ),
            EngineError::HeadersNeedOrigin { url } => {
                format!("--headers needs a URL with an origin, got {url}")
            }
            EngineError::Cdp(inner) => inner.to_string(),
            // Upstream's opening words, so scripts that look for them keep working.
            EngineError::EndpointUnreachable { address, reason } => {
                format!("All CDP discovery methods failed for {address}: {reason}")
            }
            other => other.to_string(),
        };
        failure
    }
}

/// The engine names its operations by their API (`wait_download`); the CLI by its words.
fn cli_words(what: &str) -> String {
    what.replace("wait_download", "wait --download")
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::message(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::message(message)
    }
}

/// The text of a failed local launch: `Auto-launch failed: <why>`, and for a profile another
/// Chrome holds, how to get it back.
pub fn launch_failed(err: &EngineError) -> String {
    let text = err.to_string();
    if text.contains("it is in use by another Chrome") {
        let session = text
            .split_once("session \"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map_or("<name>", |(name, _)| name);
        return format!(
            "Auto-launch failed: {text}. Close the session that uses the profile \
             (agent-browser --session {session} close) or choose another --profile"
        );
    }
    format!("Auto-launch failed: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocked_command_is_named_by_its_action() {
        let failure = Failure::from(EngineError::DialogBlocking {
            kind: "alert".into(),
            message: "hi".into(),
            command: "get text".into(),
        });
        assert_eq!(failure.code, Some("dialog_blocking"));
        assert_eq!(
            failure.for_action("gettext").message,
            "A JavaScript alert dialog is blocking the page: \"hi\". Resolve it with `dialog accept` or `dialog dismiss`, then retry `gettext`."
        );
    }

    #[test]
    fn tab_gone_last_url_drops_query_fragment_and_credentials() {
        let failure = Failure::from(EngineError::TabGone {
            target_id: "T1".into(),
            last_url: Some("http://u:p@127.0.0.1:8/mine?token=secret#fragment".into()),
        });
        assert_eq!(
            failure.data,
            Some(json!({"targetId": "T1", "lastUrl": "http://127.0.0.1:8/mine"}))
        );
    }

    #[test]
    fn engine_messages_name_no_cli_command_and_the_daemon_adds_upstreams_advice() {
        let gone = EngineError::TabGone {
            target_id: "T1".into(),
            last_url: Some("https://x/".into()),
        };
        assert!(!gone.to_string().contains("agent-browser"), "{gone}");
        let failure = Failure::from(gone);
        assert_eq!(
            failure.message,
            "tab_gone: bound tab is gone (target T1, last url https://x/). Run `agent-browser tab new <url>` to bind a new tab, or `agent-browser tab list` to pick an existing one"
        );
        assert_eq!(
            failure.data,
            Some(json!({"targetId": "T1", "lastUrl": "https://x/"}))
        );
        let errors = [
            EngineError::StaleRef {
                reference: "@e1".into(),
                reason: "gone".into(),
            },
            EngineError::TabPinned {
                target_id: "T".into(),
                holder: "s".into(),
            },
            EngineError::TabPosition {
                reference: "2".into(),
            },
            EngineError::TabNotFound {
                reference: "t9".into(),
            },
            EngineError::DialogUnanswerable(Unanswerable::OpenedBeforeAttach),
            EngineError::DialogUnanswerable(Unanswerable::Beforeunload),
            EngineError::NotALink {
                selector: "#a".into(),
            },
            EngineError::CookieNeedsUrl {
                page_url: "about:blank".into(),
            },
            EngineError::DialogBlocking {
                kind: "alert".into(),
                message: "m".into(),
                command: "click".into(),
            },
        ];
        for err in errors {
            let text = err.to_string();
            assert!(
                !text.contains("agent-browser") && !text.contains('`') && !text.contains("--"),
                "engine message with CLI advice: {text}"
            );
        }
    }

    #[test]
    fn the_cli_words_for_headers_and_download_waits_are_added_here() {
        let headers = EngineError::HeadersNeedOrigin {
            url: "about:blank".into(),
        };
        assert!(!headers.to_string().contains("--"), "{headers}");
        assert_eq!(
            Failure::from(headers).message,
            "--headers needs a URL with an origin, got about:blank"
        );
        let waited = EngineError::Timeout {
            what: "wait_download (no download finished)".into(),
            after: std::time::Duration::from_millis(500),
        };
        assert!(!waited.to_string().contains("--"), "{waited}");
        assert_eq!(
            Failure::from(waited).message,
            "Operation timed out after 500ms (wait --download (no download finished)). The page may still be loading or the element may not exist."
        );
    }
}
