//! Validated names: owner scope, profile, run and stage ids. Each becomes a folder name, so each
//! is checked once here and never again (seed invariant 27, 10). Also the lease holder, a run
//! (and stage) by id: the errors name it, so it lives below them with the ids it is made of.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::clock::now_ms;
use crate::error::{HostError, Result};

fn validate(kind: &'static str, value: &str, max: usize) -> Result<()> {
    let fail = |reason| {
        Err(HostError::InvalidName {
            kind,
            value: value.chars().take(80).collect(),
            reason,
        })
    };
    if value.is_empty() {
        return fail("it is empty");
    }
    if value.len() > max {
        return fail("it is too long");
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return fail("only letters, digits, '.', '_' and '-' are allowed");
    }
    if value.starts_with('.') || value.contains("..") {
        return fail("it may not start with '.' or contain '..'");
    }
    Ok(())
}

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $max:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Validates `value`.
            pub fn new(value: impl Into<String>) -> Result<Self> {
                let value = value.into();
                validate($kind, &value, $max)?;
                Ok(Self(value))
            }

            /// The name.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = HostError;
            fn try_from(value: String) -> Result<Self> {
                Self::new(value)
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

name_type!(
    /// The owner scope of profiles (a tenant). Comes from the Host, never from a pipeline file.
    Scope, "scope", 64
);
name_type!(
    /// A profile name within a scope (a saved browser login).
    ProfileName, "profile", 64
);
name_type!(
    /// A run id.
    RunId, "run", 128
);
name_type!(
    /// A stage id within a run.
    StageId, "stage", 128
);

/// A profile: scope plus name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProfileKey {
    /// The owner scope.
    pub scope: Scope,
    /// The profile name.
    pub name: ProfileName,
}

impl ProfileKey {
    /// Validates both parts.
    ///
    /// ```
    /// let key = abx_host::ProfileKey::parse("local", "fixture-site").unwrap();
    /// assert_eq!(key.to_string(), "local/fixture-site");
    /// assert!(abx_host::ProfileKey::parse("local", "../other").is_err());
    /// ```
    pub fn parse(scope: &str, name: &str) -> Result<ProfileKey> {
        Ok(ProfileKey {
            scope: Scope::new(scope)?,
            name: ProfileName::new(name)?,
        })
    }
}

impl fmt::Display for ProfileKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.scope, self.name)
    }
}

/// Who holds a lease. Identity is the run; the stage is informational.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseHolder {
    /// The holding run.
    pub run: RunId,
    /// The stage that took it first.
    pub stage: Option<StageId>,
    /// When it was taken (ms since the epoch).
    pub since_ms: u64,
}

impl LeaseHolder {
    /// A holder for `run` (and `stage`) from now.
    pub fn new(run: &RunId, stage: Option<&StageId>) -> Self {
        Self {
            run: run.clone(),
            stage: stage.cloned(),
            since_ms: now_ms(),
        }
    }
}

/// The first `len` hex digits of SHA-256 of `input`.
pub fn short_hash(input: &str, len: usize) -> String {
    let digest = Sha256::digest(input.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..len.min(hex.len())].to_string()
}

/// `name` cut to `max` bytes with a hash of the whole name at the end when it is longer.
pub fn capped(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let hash = short_hash(name, 8);
    let keep = max.saturating_sub(hash.len() + 1);
    let mut head: String = name.chars().take(keep).collect();
    while head.len() > keep {
        head.pop();
    }
    format!("{head}-{hash}")
}

/// A random token of 32 bytes, hex-encoded.
pub(crate) fn random_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_be_paths_are_refused() {
        for bad in [
            "", "..", "a/b", "/abs", "../x", ".hidden", "a..b", "a b", "é", "a\\b",
        ] {
            assert!(ProfileName::new(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["work", "fixture-site", "a.b_c-1", "X9"] {
            assert!(ProfileName::new(good).is_ok(), "{good:?} refused");
        }
        assert!(ProfileName::new("x".repeat(65)).is_err());
    }

    #[test]
    fn capped_names_keep_a_hash_of_the_whole() {
        assert_eq!(capped("short", 48), "short");
        let long = "abx-".to_string() + &"p".repeat(80);
        let cut = capped(&long, 48);
        assert_eq!(cut.len(), 48);
        assert_ne!(cut, capped(&(long + "x"), 48));
    }
}
