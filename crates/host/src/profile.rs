//! Profiles: a store keyed by owner scope and name. Only the store builds paths; callers hold a
//! [`ProfileHandle`] (seed §8: a service swaps in tenant storage behind [`ProfileStore`]).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{HostError, Result};
use crate::fsutil::{is_real_dir, private_dir};
use crate::names::{ProfileKey, ProfileName, Scope};

/// Where a profile's browser data lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileLocation {
    /// A local folder Chrome uses as its user-data-dir (mode 0700).
    Dir(PathBuf),
    /// Storage a remote browser host resolves itself (a volume, an object store key).
    Opaque(String),
}

/// An opened profile. Only a [`ProfileStore`] makes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileHandle {
    key: ProfileKey,
    location: ProfileLocation,
    created: bool,
}

impl ProfileHandle {
    /// The profile's key.
    pub fn key(&self) -> &ProfileKey {
        &self.key
    }

    /// Where its data lives.
    pub fn location(&self) -> &ProfileLocation {
        &self.location
    }

    /// The Chrome user-data-dir, for a local folder.
    pub fn user_data_dir(&self) -> Option<&Path> {
        match &self.location {
            ProfileLocation::Dir(dir) => Some(dir),
            ProfileLocation::Opaque(_) => None,
        }
    }

    /// Whether this `open` created the profile.
    pub fn created(&self) -> bool {
        self.created
    }
}

/// Profiles keyed by scope and name. Names are validated by [`ProfileKey`]; an implementation
/// never lets one scope reach another's data, by name or by path.
pub trait ProfileStore: Send + Sync {
    /// Opens the profile, creating it when missing.
    fn open(&self, key: &ProfileKey) -> Result<ProfileHandle>;
    /// The profile if it exists.
    fn find(&self, key: &ProfileKey) -> Result<Option<ProfileHandle>>;
    /// Profile names of one scope, sorted.
    fn list(&self, scope: &Scope) -> Result<Vec<ProfileName>>;
    /// Deletes one profile; `false` when it did not exist.
    fn delete(&self, key: &ProfileKey) -> Result<bool>;
    /// Deletes every profile of a scope; returns how many.
    fn delete_scope(&self, scope: &Scope) -> Result<usize>;
    /// Keeps `bytes` (already sealed by the kit) as the profile's state `name`; `false` when
    /// this store keeps no state (a remote profile's login then lasts one run).
    fn save_state(&self, key: &ProfileKey, name: &str, bytes: &[u8]) -> Result<bool> {
        let _ = (key, name, bytes);
        Ok(false)
    }
    /// The profile's state `name`, as saved.
    fn load_state(&self, key: &ProfileKey, name: &str) -> Result<Option<Vec<u8>>> {
        let _ = (key, name);
        Ok(None)
    }
}

/// Profiles as folders: `<root>/<scope>/<name>/{profile,state}`, every folder mode 0700.
#[derive(Debug, Clone)]
pub struct FileProfileStore {
    root: PathBuf,
}

impl FileProfileStore {
    /// A store under `root` (created on first use, mode 0700).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    fn scope_dir(&self, scope: &Scope) -> PathBuf {
        self.root.join(scope.as_str())
    }

    fn profile_dir(&self, key: &ProfileKey) -> PathBuf {
        self.scope_dir(&key.scope).join(key.name.as_str())
    }

    /// Refuses a folder that is a symlink (it could point into another scope).
    fn check_real(&self, key: &ProfileKey, dir: &Path) -> Result<()> {
        if fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(HostError::Profile {
                key: key.clone(),
                reason: format!("{} is not a plain folder of this store", dir.display()),
            });
        }
        Ok(())
    }

    fn handle(&self, key: &ProfileKey, created: bool) -> ProfileHandle {
        ProfileHandle {
            key: key.clone(),
            location: ProfileLocation::Dir(self.profile_dir(key).join("profile")),
            created,
        }
    }
}

impl ProfileStore for FileProfileStore {
    fn open(&self, key: &ProfileKey) -> Result<ProfileHandle> {
        let scope_dir = self.scope_dir(&key.scope);
        let dir = self.profile_dir(key);
        for path in [&self.root, &scope_dir, &dir] {
            self.check_real(key, path)?;
        }
        let created = !dir.exists();
        for path in [
            self.root.clone(),
            scope_dir,
            dir.clone(),
            dir.join("profile"),
            dir.join("state"),
        ] {
            self.check_real(key, &path)?;
            private_dir(&path)?;
        }
        if created {
            tracing::info!(profile = %key, "profile created");
        }
        Ok(self.handle(key, created))
    }

    fn find(&self, key: &ProfileKey) -> Result<Option<ProfileHandle>> {
        let dir = self.profile_dir(key);
        self.check_real(key, &self.scope_dir(&key.scope))?;
        self.check_real(key, &dir)?;
        Ok(is_real_dir(&dir).then(|| self.handle(key, false)))
    }

    fn list(&self, scope: &Scope) -> Result<Vec<ProfileName>> {
        let dir = self.scope_dir(scope);
        if !is_real_dir(&dir) {
            return Ok(Vec::new());
        }
        let entries = fs::read_dir(&dir).map_err(|e| HostError::io("cannot list", &dir, e))?;
        let mut names: Vec<ProfileName> = entries
            .flatten()
            .filter(|e| is_real_dir(&e.path()))
            .filter_map(|e| ProfileName::new(e.file_name().to_string_lossy().into_owned()).ok())
            .collect();
        names.sort();
        Ok(names)
    }

    fn delete(&self, key: &ProfileKey) -> Result<bool> {
        let dir = self.profile_dir(key);
        self.check_real(key, &self.scope_dir(&key.scope))?;
        if fs::symlink_metadata(&dir).is_err() {
            return Ok(false);
        }
        self.check_real(key, &dir)?;
        fs::remove_dir_all(&dir).map_err(|e| HostError::io("cannot delete", &dir, e))?;
        tracing::info!(profile = %key, "profile deleted");
        Ok(true)
    }

    fn delete_scope(&self, scope: &Scope) -> Result<usize> {
        let names = self.list(scope)?;
        for name in &names {
            self.delete(&ProfileKey {
                scope: scope.clone(),
                name: name.clone(),
            })?;
        }
        let dir = self.scope_dir(scope);
        if is_real_dir(&dir) {
            let _ = fs::remove_dir(&dir);
        }
        Ok(names.len())
    }

    /// `<root>/<scope>/<name>/state/<name>` (0600, written to a temp file and renamed).
    fn save_state(&self, key: &ProfileKey, name: &str, bytes: &[u8]) -> Result<bool> {
        let handle = self.open(key)?;
        let state = match handle.location() {
            ProfileLocation::Dir(dir) => dir.with_file_name("state"),
            ProfileLocation::Opaque(_) => return Ok(false),
        };
        self.check_real(key, &state)?;
        crate::fsutil::write_private(&state.join(state_file_name(name)), bytes)?;
        Ok(true)
    }

    fn load_state(&self, key: &ProfileKey, name: &str) -> Result<Option<Vec<u8>>> {
        let path = self
            .profile_dir(key)
            .join("state")
            .join(state_file_name(name));
        self.check_real(key, &self.profile_dir(key))?;
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(HostError::io("cannot read saved state", &path, err)),
        }
    }
}

/// A state name as a plain file name (no separators, no dot files).
fn state_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_string()
}

/// Profiles in memory (a test double, or the front of a service whose browsers keep their own
/// storage): handles carry an opaque `memory://` location, never a folder.
#[derive(Debug, Default)]
pub struct MemoryProfileStore {
    profiles: Mutex<BTreeMap<ProfileKey, u64>>,
    states: Mutex<BTreeMap<(ProfileKey, String), Vec<u8>>>,
    next: Mutex<u64>,
}

impl MemoryProfileStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn handle(key: &ProfileKey, generation: u64, created: bool) -> ProfileHandle {
        ProfileHandle {
            key: key.clone(),
            location: ProfileLocation::Opaque(format!(
                "memory://{}/{}#{generation}",
                key.scope, key.name
            )),
            created,
        }
    }
}

impl ProfileStore for MemoryProfileStore {
    fn open(&self, key: &ProfileKey) -> Result<ProfileHandle> {
        let mut profiles = self
            .profiles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(generation) = profiles.get(key) {
            return Ok(Self::handle(key, *generation, false));
        }
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *next += 1;
        profiles.insert(key.clone(), *next);
        Ok(Self::handle(key, *next, true))
    }

    fn find(&self, key: &ProfileKey) -> Result<Option<ProfileHandle>> {
        let profiles = self
            .profiles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(profiles.get(key).map(|g| Self::handle(key, *g, false)))
    }

    fn list(&self, scope: &Scope) -> Result<Vec<ProfileName>> {
        let profiles = self
            .profiles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(profiles
            .keys()
            .filter(|k| &k.scope == scope)
            .map(|k| k.name.clone())
            .collect())
    }

    fn delete(&self, key: &ProfileKey) -> Result<bool> {
        let mut profiles = self
            .profiles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|(k, _), _| k != key);
        Ok(profiles.remove(key).is_some())
    }

    fn delete_scope(&self, scope: &Scope) -> Result<usize> {
        let mut profiles = self
            .profiles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = profiles.len();
        profiles.retain(|k, _| &k.scope != scope);
        self.states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|(k, _), _| &k.scope != scope);
        Ok(before - profiles.len())
    }

    fn save_state(&self, key: &ProfileKey, name: &str, bytes: &[u8]) -> Result<bool> {
        self.open(key)?;
        self.states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert((key.clone(), name.to_string()), bytes.to_vec());
        Ok(true)
    }

    fn load_state(&self, key: &ProfileKey, name: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(key.clone(), name.to_string()))
            .cloned())
    }
}
