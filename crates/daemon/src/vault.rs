//! The credential vault of `auth save|login|list|show|delete`: one encrypted file per login
//! profile in `~/.agent-browser/auth/<name>.json` (a `0700` directory, `0600` files).
//!
//! Files interoperate with upstream agent-browser 0.41.2: a profile is the JSON
//! `{"name","url","username","password",…selectors}` sealed with AES-256-GCM into
//! `{"version":1,"encrypted":true,"iv","authTag","data"}` (base64 fields). The key is
//! `AGENT_BROWSER_ENCRYPTION_KEY` as 64 hex digits, else the key file
//! `~/.agent-browser/.encryption-key`, which the first save creates when neither exists.
//! Nothing here logs or prints a password; [`Profile`]'s `Debug` hides it.

use std::fs;
use std::path::PathBuf;

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::state_files::{StateDirs, private_dir, write_private};

/// Why the vault could not do something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VaultError {
    /// A profile name outside `[A-Za-z0-9_-]+`.
    #[error("Invalid profile name '{0}'. Must match /^[a-zA-Z0-9_-]+$/")]
    InvalidName(String),
    /// No such profile.
    #[error("Auth profile '{0}' not found")]
    NotFound(String),
    /// The key in the environment is not 64 hex digits.
    #[error(
        "AGENT_BROWSER_ENCRYPTION_KEY should be a 64-character hex string (256 bits). Generate one with: openssl rand -hex 32"
    )]
    BadKey,
    /// The key file holds something else.
    #[error("Invalid encryption key in {0}. Expected a 64-character hex string.")]
    BadKeyFile(String),
    /// No key anywhere (reading).
    #[error("Encryption key required. Set AGENT_BROWSER_ENCRYPTION_KEY or ensure {0} exists.")]
    NoKey(String),
    /// The key does not open the profile.
    #[error(
        "Cannot decrypt auth profile '{0}': the encryption key is not the one it was saved with, or the file was altered"
    )]
    WrongKey(String),
    /// The file is not a vault entry.
    #[error("Auth profile '{name}' is not a valid vault file: {reason}")]
    Invalid {
        /// The profile.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The file system refused.
    #[error("Failed to {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// Writing went wrong.
    #[error(transparent)]
    File(#[from] crate::state_files::StateFileError),
}

type Result<T> = std::result::Result<T, VaultError>;

/// Where a login page's fields are, as CSS selectors: saved with a profile, or given to one
/// `auth login` (which prefers them to the profile's). Flattened into both, as upstream keeps
/// them at the top level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginSelectors {
    /// CSS selector of the user-name field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username_selector: Option<String>,
    /// CSS selector of the password field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_selector: Option<String>,
    /// CSS selector of the submit button.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_selector: Option<String>,
}

/// One saved login.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The profile name.
    pub name: String,
    /// The login page.
    pub url: String,
    /// The user name.
    pub username: String,
    /// The password (never printed).
    pub password: String,
    /// Where the login page's fields are (the defaults find them when unset).
    #[serde(flatten)]
    pub selectors: LoginSelectors,
    /// When it was saved (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When `auth login` last used it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_login_at: Option<String>,
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profile")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("username", &self.username)
            .field("password", &"***")
            .finish_non_exhaustive()
    }
}

impl Profile {
    /// What `auth show` tells: everything but the password.
    pub fn metadata(&self) -> Value {
        json!({
            "name": self.name,
            "url": self.url,
            "username": self.username,
            "usernameSelector": self.selectors.username_selector,
            "passwordSelector": self.selectors.password_selector,
            "submitSelector": self.selectors.submit_selector,
            "createdAt": self.created_at,
            "lastLoginAt": self.last_login_at,
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sealed {
    version: u32,
    encrypted: bool,
    iv: String,
    auth_tag: String,
    data: String,
}

/// The vault of one environment.
#[derive(Clone, Debug)]
pub struct Vault {
    dir: PathBuf,
    key_file: PathBuf,
    env_key: Option<String>,
}

fn valid_name(name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(VaultError::InvalidName(name.into()));
    }
    Ok(())
}

fn parse_hex_key(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[i * 2..i * 2 + 2], 16).ok()?;
    }
    Some(key)
}

/// Now as RFC 3339 (UTC, seconds).
fn now_rfc3339() -> String {
    abx_engine::dates::rfc3339_seconds(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    )
}

/// Where the vault's key comes from (see [`Vault::key_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `AGENT_BROWSER_ENCRYPTION_KEY`, 64 hex digits.
    Env,
    /// `AGENT_BROWSER_ENCRYPTION_KEY` is set but is not 64 hex digits.
    EnvInvalid,
    /// The key file.
    File(PathBuf),
    /// The key file holds something else.
    FileInvalid(PathBuf),
    /// No key yet: the first save creates this file.
    Missing(PathBuf),
}

impl Vault {
    /// The vault for this environment (`HOME`, `AGENT_BROWSER_ENCRYPTION_KEY`).
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Vault {
        let dirs = StateDirs::from_env(var);
        Vault {
            dir: dirs.base.join("auth"),
            key_file: dirs.base.join(".encryption-key"),
            env_key: var(abx_wire::env::ENCRYPTION_KEY).filter(|k| !k.is_empty()),
        }
    }

    /// The vault's directory.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    fn key(&self) -> Result<[u8; 32]> {
        if let Some(text) = &self.env_key {
            return parse_hex_key(text).ok_or(VaultError::BadKey);
        }
        match fs::read_to_string(&self.key_file) {
            Ok(text) => parse_hex_key(&text)
                .ok_or_else(|| VaultError::BadKeyFile(self.key_file.display().to_string())),
            Err(_) => Err(VaultError::NoKey(self.key_file.display().to_string())),
        }
    }

    /// Where the key would come from, without creating anything (`doctor`).
    pub fn key_source(&self) -> KeySource {
        if let Some(text) = &self.env_key {
            return if parse_hex_key(text).is_some() {
                KeySource::Env
            } else {
                KeySource::EnvInvalid
            };
        }
        match fs::read_to_string(&self.key_file) {
            Ok(text) if parse_hex_key(&text).is_some() => KeySource::File(self.key_file.clone()),
            Ok(_) => KeySource::FileInvalid(self.key_file.clone()),
            Err(_) => KeySource::Missing(self.key_file.clone()),
        }
    }

    /// Creates the key file when there is no key at all (`doctor --fix`); `true` when it did.
    pub fn ensure_key(&self) -> Result<bool> {
        self.key_for_writing().map(|(_, created)| created)
    }

    /// The key, creating the key file when there is none; `true` when it was just created.
    fn key_for_writing(&self) -> Result<([u8; 32], bool)> {
        match self.key() {
            Ok(key) => Ok((key, false)),
            Err(VaultError::NoKey(_)) => {
                let mut key = [0u8; 32];
                rand::rng().fill_bytes(&mut key);
                let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
                if let Some(parent) = self.key_file.parent() {
                    private_dir(parent)?;
                }
                write_private(&self.key_file, format!("{hex}\n").as_bytes())?;
                Ok((key, true))
            }
            Err(other) => Err(other),
        }
    }

    fn seal(key: &[u8; 32], profile: &Profile) -> Result<String> {
        let plain = serde_json::to_vec(profile).map_err(|e| VaultError::Invalid {
            name: profile.name.clone(),
            reason: e.to_string(),
        })?;
        let mut iv = [0u8; 12];
        rand::rng().fill_bytes(&mut iv);
        let sealed = Aes256Gcm::new(key.into())
            .encrypt(Nonce::from_slice(&iv), plain.as_slice())
            .map_err(|_| VaultError::Invalid {
                name: profile.name.clone(),
                reason: "encryption failed".into(),
            })?;
        let (data, tag) = sealed.split_at(sealed.len().saturating_sub(16));
        let envelope = Sealed {
            version: 1,
            encrypted: true,
            iv: STANDARD.encode(iv),
            auth_tag: STANDARD.encode(tag),
            data: STANDARD.encode(data),
        };
        serde_json::to_string_pretty(&envelope).map_err(|e| VaultError::Invalid {
            name: profile.name.clone(),
            reason: e.to_string(),
        })
    }

    fn open(&self, name: &str, text: &str) -> Result<Profile> {
        let invalid = |reason: &str| VaultError::Invalid {
            name: name.into(),
            reason: reason.into(),
        };
        let Ok(envelope) = serde_json::from_str::<Sealed>(text) else {
            return Err(invalid("not an encrypted vault entry"));
        };
        let key = self.key()?;
        let iv = STANDARD
            .decode(&envelope.iv)
            .map_err(|_| invalid("bad iv"))?;
        if iv.len() != 12 {
            return Err(invalid("bad iv"));
        }
        let mut body = STANDARD
            .decode(&envelope.data)
            .map_err(|_| invalid("bad data"))?;
        body.extend(
            STANDARD
                .decode(&envelope.auth_tag)
                .map_err(|_| invalid("bad authTag"))?,
        );
        let plain = Aes256Gcm::new((&key).into())
            .decrypt(Nonce::from_slice(&iv), body.as_slice())
            .map_err(|_| VaultError::WrongKey(name.into()))?;
        serde_json::from_slice(&plain).map_err(|e| invalid(&e.to_string()))
    }

    /// Reads profile `name`.
    pub fn load(&self, name: &str) -> Result<Profile> {
        valid_name(name)?;
        let path = self.path(name);
        let text = fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                VaultError::NotFound(name.into())
            } else {
                VaultError::Io {
                    what: format!("read {}", path.display()),
                    source: e,
                }
            }
        })?;
        self.open(name, &text)
    }

    /// `auth save`: writes (or replaces) a profile. The reply is `{"saved":true,"name"}` or, for
    /// an existing profile, `{"updated":true,"name"}`; `note` tells when a key file was made.
    pub fn save(&self, mut profile: Profile) -> Result<Value> {
        valid_name(&profile.name)?;
        let (key, created_key) = self.key_for_writing()?;
        let existed = self.path(&profile.name).exists();
        if existed && let Ok(old) = self.load(&profile.name) {
            profile.created_at = old.created_at;
        }
        if profile.created_at.is_none() {
            profile.created_at = Some(now_rfc3339());
        }
        private_dir(&self.dir)?;
        let text = Self::seal(&key, &profile)?;
        write_private(&self.path(&profile.name), text.as_bytes())?;
        let mut reply = if existed {
            json!({"updated": true, "name": profile.name})
        } else {
            json!({"saved": true, "name": profile.name})
        };
        if created_key {
            reply["keyFile"] = json!(self.key_file.display().to_string());
        }
        Ok(reply)
    }

    /// Records a successful login (`lastLoginAt`).
    pub fn touch_login(&self, name: &str) -> Result<()> {
        let mut profile = self.load(name)?;
        profile.last_login_at = Some(now_rfc3339());
        let key = self.key()?;
        let text = Self::seal(&key, &profile)?;
        write_private(&self.path(name), text.as_bytes())?;
        Ok(())
    }

    /// `auth list`: `{"profiles":[{name,url,username}]}` (a file that does not open is listed
    /// with its `error`).
    pub fn list(&self) -> Value {
        let mut names: Vec<String> = fs::read_dir(&self.dir)
            .map(|rd| {
                rd.flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.strip_suffix(".json").map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        let profiles: Vec<Value> = names
            .iter()
            .map(|name| match self.load(name) {
                Ok(p) => json!({"name": p.name, "url": p.url, "username": p.username}),
                Err(err) => json!({"name": name, "error": err.to_string()}),
            })
            .collect();
        json!({"profiles": profiles})
    }

    /// `auth show`: `{"profile":{…}}` without the password.
    pub fn show(&self, name: &str) -> Result<Value> {
        Ok(json!({"profile": self.load(name)?.metadata()}))
    }

    /// `auth delete`: `{"deleted":true,"name"}`.
    pub fn delete(&self, name: &str) -> Result<Value> {
        valid_name(name)?;
        let path = self.path(name);
        if !path.exists() {
            return Err(VaultError::NotFound(name.into()));
        }
        fs::remove_file(&path).map_err(|e| VaultError::Io {
            what: format!("delete {}", path.display()),
            source: e,
        })?;
        Ok(json!({"deleted": true, "name": name}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(home: &std::path::Path, key: Option<&str>) -> Vault {
        let home = home.display().to_string();
        let key = key.map(str::to_string);
        Vault::from_env(&move |name| match name {
            "HOME" => Some(home.clone()),
            "AGENT_BROWSER_ENCRYPTION_KEY" => key.clone(),
            _ => None,
        })
    }

    fn profile() -> Profile {
        Profile {
            name: "site".into(),
            url: "http://x/login".into(),
            username: "ada".into(),
            password: "s3cret-pw".into(),
            selectors: LoginSelectors::default(),
            created_at: None,
            last_login_at: None,
        }
    }

    #[test]
    fn key_source_reports_without_creating_and_ensure_key_creates_once() {
        let home = tempfile::tempdir().expect("tmp");
        let v = vault(home.path(), None);
        let file = home.path().join(".agent-browser/.encryption-key");
        assert_eq!(v.key_source(), KeySource::Missing(file.clone()));
        assert!(!file.exists(), "key_source created the key");
        assert!(v.ensure_key().expect("create"));
        assert_eq!(v.key_source(), KeySource::File(file));
        assert!(!v.ensure_key().expect("exists"), "a second key was made");
        assert_eq!(
            vault(home.path(), Some("short")).key_source(),
            KeySource::EnvInvalid
        );
        assert_eq!(
            vault(home.path(), Some(&"ab".repeat(32))).key_source(),
            KeySource::Env
        );
    }

    #[test]
    fn profiles_are_sealed_and_open_with_their_key_only() {
        let home = tempfile::tempdir().expect("tmp");
        let key = "ab".repeat(32);
        let v = vault(home.path(), Some(&key));
        v.save(profile()).expect("save");
        let text = fs::read_to_string(v.path("site")).expect("file");
        assert!(!text.contains("s3cret-pw") && !text.contains("ada"));
        assert_eq!(v.load("site").expect("load").password, "s3cret-pw");
        let wrong = vault(home.path(), Some(&"cd".repeat(32)));
        assert!(matches!(wrong.load("site"), Err(VaultError::WrongKey(_))));
        assert!(matches!(
            vault(home.path(), Some("short")).load("site"),
            Err(VaultError::BadKey)
        ));
        assert!(!format!("{:?}", v.load("site").expect("load")).contains("s3cret"));
        assert!(!v.show("site").expect("show").to_string().contains("s3cret"));
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |p: &std::path::Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&v.path("site")), 0o600);
        assert_eq!(mode(v.dir()), 0o700);
    }

    #[test]
    fn a_key_file_is_made_when_none_exists() {
        let home = tempfile::tempdir().expect("tmp");
        let v = vault(home.path(), None);
        assert!(matches!(v.load("site"), Err(VaultError::NotFound(_))));
        let reply = v.save(profile()).expect("save");
        assert!(reply.get("keyFile").is_some());
        assert_eq!(v.load("site").expect("load").username, "ada");
        assert_eq!(v.save(profile()).expect("again")["updated"], true);
        assert!(v.delete("site").is_ok());
        assert!(v.delete("site").is_err());
        assert!(v.load("../etc").is_err());
    }

    #[test]
    fn dates_are_rfc3339() {
        let now = now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.starts_with("20"));
    }
}
