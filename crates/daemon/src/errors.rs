//! The one place where engine errors become upstream's error texts, codes and recovery data.

use abx_engine::EngineError;
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
}

impl Failure {
    /// A plain message without a code.
    pub fn message(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: None,
            data: None,
        }
    }
}

impl Failure {
    /// The failure as the reply to `action`: upstream names the command a dialog blocked by its
    /// action (`retry \`gettext\``).
    pub fn for_action(mut self, action: &str) -> Failure {
        if self.code == Some("dialog_blocking")
            && let Some(start) = self.message.rfind("then retry `")
        {
            self.message = format!("{}then retry `{action}`.", &self.message[..start]);
        }
        self
    }
}

impl From<EngineError> for Failure {
    fn from(err: EngineError) -> Self {
        let code = err.code();
        let data = match &err {
            EngineError::TabGone {
                target_id,
                last_url,
            } => {
                let mut data = json!({"targetId": target_id});
                if let Some(url) = last_url {
                    data["lastUrl"] = json!(url);
                }
                Some(data)
            }
            _ => None,
        };
        let message = match &err {
            // Upstream's wording for waits and for generic timeouts.
            EngineError::Timeout { what, after } if what == "Wait" => {
                format!("Wait timed out after {}ms", after.as_millis())
            }
            EngineError::Timeout { what, after } => format!(
                "Operation timed out after {}ms ({what}). The page may still be loading or the element may not exist.",
                after.as_millis()
            ),
            EngineError::Cdp(inner) => inner.to_string(),
            other => other.to_string(),
        };
        Failure {
            message,
            code,
            data,
        }
    }
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
