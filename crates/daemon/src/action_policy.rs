//! `--action-policy <file>` and `--confirm-actions <list>`: which actions a session may run, and
//! which wait for `confirm <id>` / `deny <id>`.
//!
//! The policy file is upstream's JSON, keyed by wire action names (`navigate`, `click`, `fill`,
//! `evaluate`, …): `{"default":"allow|deny","allow":[…],"deny":[…],"confirm":[…]}`. It is read
//! again before every command, so edits apply at once. Deny wins over confirm, confirm over
//! allow; with a non-empty `allow` list, an action outside it is denied unless `default` is
//! `allow`. A command that needs confirmation is parked and answered with
//! `{"confirmation_required":true,"confirmation_id","action"}`; `confirm` runs it, `deny` drops
//! it, and an unanswered one expires after 60 s. Beyond upstream: a policy file that cannot be
//! read or parsed refuses every command (upstream silently runs without it), and `close`,
//! `confirm` and `deny` are never gated, so a strict policy cannot lock a session open.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use abx_wire::env;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::errors::Failure;
use crate::protocol::Request;

/// How long a parked command waits for `confirm`.
pub const CONFIRM_WINDOW: Duration = Duration::from_secs(60);

/// Actions no policy gates.
const UNGATED: &[&str] = &["close", "confirm", "deny", "__abx_fault"];

#[derive(Debug, Default, Deserialize)]
struct PolicyFile {
    #[serde(default)]
    default: Option<String>,
    #[serde(default)]
    allow: Option<Vec<String>>,
    #[serde(default)]
    deny: Option<Vec<String>>,
    #[serde(default)]
    confirm: Option<Vec<String>>,
}

/// What the policy says about one action.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Allow,
    Deny(String),
    Confirm,
}

impl PolicyFile {
    fn check(&self, action: &str) -> Verdict {
        let listed = |list: &Option<Vec<String>>| {
            list.as_ref().is_some_and(|l| l.iter().any(|a| a == action))
        };
        if listed(&self.deny) {
            return Verdict::Deny(format!("Action '{action}' is denied by policy"));
        }
        if listed(&self.confirm) {
            return Verdict::Confirm;
        }
        let default_deny = self
            .default
            .as_deref()
            .is_some_and(|d| d.eq_ignore_ascii_case("deny"));
        match &self.allow {
            Some(allow) if !allow.is_empty() && !listed(&self.allow) => {
                if self.default.is_none() || default_deny {
                    Verdict::Deny(format!("Action '{action}' is not in the allow list"))
                } else {
                    Verdict::Allow
                }
            }
            Some(allow) if !allow.is_empty() => Verdict::Allow,
            _ if default_deny => {
                Verdict::Deny(format!("Action '{action}' denied: default policy is deny"))
            }
            _ => Verdict::Allow,
        }
    }
}

struct Pending {
    id: String,
    action: String,
    request: Request,
    since: Instant,
}

/// The session's gate.
pub struct ActionGate {
    policy: Option<PathBuf>,
    confirm: HashSet<String>,
    pending: Mutex<Option<Pending>>,
    approved: Mutex<Option<String>>,
}

impl std::fmt::Debug for ActionGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionGate")
            .field("policy", &self.policy)
            .field("confirm", &self.confirm)
            .finish_non_exhaustive()
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl ActionGate {
    /// From `AGENT_BROWSER_ACTION_POLICY` (or the legacy `AGENT_BROWSER_POLICY`) and
    /// `AGENT_BROWSER_CONFIRM_ACTIONS`.
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> ActionGate {
        let policy = var(env::ACTION_POLICY)
            .or_else(|| var(env::POLICY))
            .filter(|p| !p.trim().is_empty())
            .map(PathBuf::from);
        let confirm = var(env::CONFIRM_ACTIONS)
            .unwrap_or_default()
            .split(',')
            .map(|a| a.trim().to_ascii_lowercase())
            .filter(|a| !a.is_empty())
            .collect();
        ActionGate {
            policy,
            confirm,
            pending: Mutex::new(None),
            approved: Mutex::new(None),
        }
    }

    fn read_policy(&self) -> Result<Option<PolicyFile>, Failure> {
        let Some(path) = &self.policy else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::message(format!(
                "Failed to read policy file {}: {e}. Every command is refused until it is readable",
                path.display()
            ))
        })?;
        serde_json::from_str(&text).map(Some).map_err(|e| {
            Failure::message(format!(
                "Invalid policy JSON in {}: {e}. Every command is refused until it is fixed",
                path.display()
            ))
        })
    }

    /// Admits `request`, or returns the reply that stops it: a denial (`success: false`) or a
    /// confirmation request (`success: true`, the command parked).
    pub fn admit(&self, request: &Request) -> Option<Value> {
        let action = request.action.as_str();
        if UNGATED.contains(&action) || (self.policy.is_none() && self.confirm.is_empty()) {
            return None;
        }
        let id = id_text(&request.id);
        {
            let mut approved = self
                .approved
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if approved.as_deref() == Some(id.as_str()) && !id.is_empty() {
                *approved = None;
                return None;
            }
        }
        let verdict = match self.read_policy() {
            Ok(Some(policy)) => policy.check(action),
            Ok(None) => Verdict::Allow,
            Err(failure) => {
                return Some(crate::protocol::failure(
                    &request.id,
                    &failure.message,
                    Some("policy_unreadable"),
                    None,
                    None,
                ));
            }
        };
        let verdict = match verdict {
            Verdict::Allow if self.confirm.contains(action) => Verdict::Confirm,
            other => other,
        };
        match verdict {
            Verdict::Allow => None,
            Verdict::Deny(reason) => Some(crate::protocol::failure(
                &request.id,
                &format!("Action '{action}' denied by policy: {reason}"),
                Some("policy_denied"),
                None,
                None,
            )),
            Verdict::Confirm => {
                let confirmation = if id.is_empty() {
                    format!("c{}", std::process::id())
                } else {
                    id
                };
                *self
                    .pending
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Pending {
                    id: confirmation.clone(),
                    action: action.to_string(),
                    request: request.clone(),
                    since: Instant::now(),
                });
                Some(json!({
                    "id": request.id,
                    "success": true,
                    "data": {
                        "confirmation_required": true,
                        "confirmation_id": confirmation,
                        "action": action,
                    },
                    "error": null,
                }))
            }
        }
    }

    /// Takes the parked command `id` (`confirm`/`deny`). With `approve`, the command is let
    /// through once when it is handled again.
    pub fn take(&self, id: &str, approve: bool) -> Result<(String, Request), Failure> {
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(parked) = pending.take() else {
            return Err(Failure::message("No pending confirmation"));
        };
        if parked.id != id {
            let known = parked.id.clone();
            *pending = Some(parked);
            return Err(Failure::message(format!(
                "No pending confirmation with id {id} (the pending one is {known})"
            )));
        }
        if parked.since.elapsed() > CONFIRM_WINDOW {
            return Err(Failure::message(format!(
                "Confirmation {id} expired after {}s and was denied",
                CONFIRM_WINDOW.as_secs()
            )));
        }
        if approve {
            *self
                .approved
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some(id_text(&parked.request.id));
        }
        Ok((parked.action, parked.request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> PolicyFile {
        serde_json::from_str(text).expect("policy")
    }

    #[test]
    fn deny_beats_confirm_beats_allow() {
        let p = policy(r#"{"allow":["click","navigate"],"deny":["navigate"],"confirm":["click"]}"#);
        assert!(matches!(p.check("navigate"), Verdict::Deny(_)));
        assert_eq!(p.check("click"), Verdict::Confirm);
        assert!(matches!(p.check("fill"), Verdict::Deny(_)));
        let open = policy(r#"{"default":"allow","allow":["click"]}"#);
        assert_eq!(open.check("fill"), Verdict::Allow);
        let closed = policy(r#"{"default":"deny"}"#);
        assert!(
            matches!(closed.check("fill"), Verdict::Deny(r) if r.contains("default policy is deny"))
        );
        assert_eq!(policy("{}").check("fill"), Verdict::Allow);
    }
}
