//! A remote profile's login kept across runs: the browser's persistent cookies, read over CDP
//! when the anchor ends (and when a stage on it ends), sealed with AES-256-GCM and kept through
//! the [`ProfileStore`](crate::ProfileStore); set again over CDP when the next anchor of the
//! profile starts. A remote service's browser starts blank, and its disk is not the Host's:
//! the login lives in the Host's own store instead (see `docs/host.md`, "Remote browsers").

use std::path::Path;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::error::{HostError, Result};
use crate::fsutil::write_private;
use crate::names::ProfileKey;

/// The name of the sealed cookies in a profile's state.
pub(crate) const COOKIES: &str = "remote-cookies.sealed";

const VERSION: u8 = 1;

/// The key that seals saved profile state (32 bytes). Its `Debug` shows nothing of it.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(…)")
    }
}

impl StateKey {
    /// A key from 32 bytes the Host keeps (e.g. from its secret store).
    pub fn from_bytes(bytes: [u8; 32]) -> StateKey {
        StateKey(bytes)
    }

    /// The key in `path` (64 hex digits), created (0600) when missing.
    pub fn load_or_create(path: &Path) -> Result<StateKey> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let text = text.trim();
                let mut bytes = [0u8; 32];
                if text.len() != 64 || !text.is_ascii() {
                    return Err(HostError::Corrupt {
                        path: path.to_path_buf(),
                        reason: "a state key is 64 hex digits".into(),
                    });
                }
                for (i, byte) in bytes.iter_mut().enumerate() {
                    *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| {
                        HostError::Corrupt {
                            path: path.to_path_buf(),
                            reason: "a state key is 64 hex digits".into(),
                        }
                    })?;
                }
                Ok(StateKey(bytes))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let mut bytes = [0u8; 32];
                rand::rng().fill_bytes(&mut bytes);
                let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                write_private(path, format!("{hex}\n").as_bytes())?;
                Ok(StateKey(bytes))
            }
            Err(err) => Err(HostError::io("cannot read the state key", path, err)),
        }
    }

    /// Sealed `plain` for `key`'s profile: a version byte, a random 12-byte nonce, then the
    /// ciphertext with its tag. The profile's key is authenticated too, so a sealed state moved
    /// to another profile does not open.
    pub(crate) fn seal(&self, profile: &ProfileKey, plain: &[u8]) -> Result<Vec<u8>> {
        let mut nonce = [0u8; 12];
        rand::rng().fill_bytes(&mut nonce);
        let aad = aad(profile);
        let sealed = Aes256Gcm::new((&self.0).into())
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plain,
                    aad: aad.as_bytes(),
                },
            )
            .map_err(|_| HostError::Profile {
                key: profile.clone(),
                reason: "could not seal the saved state".into(),
            })?;
        let mut out = Vec::with_capacity(1 + 12 + sealed.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// The plain state, or an error when it was sealed with another key or for another profile.
    pub(crate) fn open(&self, profile: &ProfileKey, sealed: &[u8]) -> Result<Vec<u8>> {
        let bad = |reason: &str| HostError::Profile {
            key: profile.clone(),
            reason: reason.to_string(),
        };
        if sealed.len() < 1 + 12 + 16 || sealed[0] != VERSION {
            return Err(bad("the saved state is not in a format this kit reads"));
        }
        let aad = aad(profile);
        Aes256Gcm::new((&self.0).into())
            .decrypt(
                Nonce::from_slice(&sealed[1..13]),
                Payload {
                    msg: &sealed[13..],
                    aad: aad.as_bytes(),
                },
            )
            .map_err(|_| bad("the saved state does not open with this key for this profile"))
    }
}

fn aad(profile: &ProfileKey) -> String {
    format!(
        "abx-host profile state v{VERSION} {}/{}",
        profile.scope, profile.name
    )
}

/// One cookie as `Storage.getCookies` gives it and `Storage.setCookies` takes it (the fields
/// a login needs; others are Chrome's defaults when set again).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SavedCookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    pub expires: f64,
    #[serde(default)]
    pub http_only: bool,
    #[serde(default)]
    pub secure: bool,
    #[serde(default)]
    pub session: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_party: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_scheme: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<serde_json::Value>,
}

/// The cookies a profile folder would keep across a browser restart: persistent ones only
/// (a session cookie ends with its browser, as it does locally).
pub(crate) fn persistent(cookies: Vec<SavedCookie>) -> Vec<SavedCookie> {
    cookies.into_iter().filter(|c| !c.session).collect()
}

/// `Storage.setCookies` parameters for saved cookies.
pub(crate) fn set_cookies_params(cookies: &[SavedCookie]) -> serde_json::Value {
    let cookies: Vec<serde_json::Value> = cookies
        .iter()
        .map(|c| {
            let mut value = serde_json::json!({
                "name": c.name,
                "value": c.value,
                "domain": c.domain,
                "path": c.path,
                "secure": c.secure,
                "httpOnly": c.http_only,
                "expires": c.expires,
            });
            if let Some(same_site) = &c.same_site {
                value["sameSite"] = same_site.clone().into();
            }
            if let Some(priority) = &c.priority {
                value["priority"] = priority.clone().into();
            }
            if let Some(scheme) = &c.source_scheme {
                value["sourceScheme"] = scheme.clone().into();
            }
            if let Some(key) = &c.partition_key {
                value["partitionKey"] = key.clone();
            }
            value
        })
        .collect();
    serde_json::json!({ "cookies": cookies })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::{ProfileName, Scope};

    fn key(name: &str) -> ProfileKey {
        ProfileKey {
            scope: Scope::new("s").expect("scope"),
            name: ProfileName::new(name).expect("name"),
        }
    }

    #[test]
    fn sealed_state_opens_only_for_its_profile_and_key() {
        let state_key = StateKey::from_bytes([7; 32]);
        let sealed = state_key.seal(&key("a"), b"cookies").expect("seal");
        assert!(
            !sealed.windows(7).any(|w| w == b"cookies"),
            "not plain text"
        );
        assert_eq!(
            state_key.open(&key("a"), &sealed).expect("open"),
            b"cookies"
        );
        assert!(
            state_key.open(&key("b"), &sealed).is_err(),
            "moved to another profile"
        );
        let other = StateKey::from_bytes([8; 32]);
        assert!(other.open(&key("a"), &sealed).is_err(), "another key");
        assert!(
            state_key.open(&key("a"), &sealed[..10]).is_err(),
            "cut short"
        );
    }

    #[test]
    fn a_state_key_file_is_created_private_and_read_back() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("state.key");
        let first = StateKey::load_or_create(&path).expect("create");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = StateKey::load_or_create(&path).expect("read");
        assert_eq!(first.0, again.0);
    }
}
