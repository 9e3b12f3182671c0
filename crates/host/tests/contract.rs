//! The profile store and lease contracts, run against both implementations (file and memory),
//! plus the file implementation's own guarantees (modes, symlinks, corrupt lock files).

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use abx_host::{
    AcquireOptions, Acquired, FileLease, FileProfileStore, HostError, LeaseHolder, MemoryLease,
    MemoryProfileStore, ProfileKey, ProfileLease, ProfileName, ProfileStore, RunId, RunState,
    Scope, StageId, TryAcquire, acquire,
};

fn key(scope: &str, name: &str) -> ProfileKey {
    ProfileKey::parse(scope, name).expect("valid key")
}

fn stores() -> Vec<(
    &'static str,
    Box<dyn ProfileStore>,
    Option<tempfile::TempDir>,
)> {
    let dir = tempfile::tempdir().expect("dir");
    vec![
        (
            "file",
            Box::new(FileProfileStore::new(dir.path().join("profiles"))),
            Some(dir),
        ),
        ("memory", Box::new(MemoryProfileStore::new()), None),
    ]
}

fn leases() -> Vec<(
    &'static str,
    Arc<dyn ProfileLease>,
    Option<tempfile::TempDir>,
)> {
    let dir = tempfile::tempdir().expect("dir");
    vec![
        (
            "file",
            Arc::new(FileLease::new(dir.path().join("locks"))),
            Some(dir),
        ),
        ("memory", Arc::new(MemoryLease::new()), None),
    ]
}

fn holder(run: &str) -> LeaseHolder {
    LeaseHolder::new(
        &RunId::new(run).expect("run"),
        Some(&StageId::new("s").expect("stage")),
    )
}

#[test]
fn store_open_is_idempotent_and_lists_per_scope() {
    for (name, store, _dir) in stores() {
        let first = store.open(&key("a", "site")).expect("open");
        assert!(first.created(), "{name}: first open creates");
        let again = store.open(&key("a", "site")).expect("open again");
        assert!(!again.created(), "{name}: second open reuses");
        assert_eq!(first.location(), again.location(), "{name}");
        store.open(&key("a", "other")).expect("open");
        store.open(&key("b", "site")).expect("open");
        let listed: Vec<String> = store
            .list(&Scope::new("a").expect("scope"))
            .expect("list")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(listed, ["other", "site"], "{name}");
        assert!(
            store.find(&key("a", "missing")).expect("find").is_none(),
            "{name}"
        );
    }
}

#[test]
fn store_deletes_one_and_by_scope() {
    for (name, store, _dir) in stores() {
        store.open(&key("a", "one")).expect("open");
        store.open(&key("a", "two")).expect("open");
        store.open(&key("b", "one")).expect("open");
        assert!(store.delete(&key("a", "one")).expect("delete"), "{name}");
        assert!(
            !store.delete(&key("a", "one")).expect("delete again"),
            "{name}: idempotent"
        );
        assert_eq!(
            store
                .delete_scope(&Scope::new("a").expect("s"))
                .expect("scope"),
            1,
            "{name}"
        );
        assert!(
            store
                .list(&Scope::new("a").expect("s"))
                .expect("list")
                .is_empty(),
            "{name}"
        );
        assert!(
            store.find(&key("b", "one")).expect("find").is_some(),
            "{name}: scope b untouched"
        );
    }
}

#[test]
fn scope_a_cannot_open_scope_b_by_name_or_by_path() {
    for (name, store, _dir) in stores() {
        let b = store.open(&key("b", "secret")).expect("open b");
        // By name: nothing that reads like a path is a profile name.
        let location = match b.location() {
            abx_host::ProfileLocation::Dir(dir) => dir.to_string_lossy().into_owned(),
            abx_host::ProfileLocation::Opaque(id) => id.clone(),
        };
        for sneaky in [
            "../b/secret",
            "..",
            "b/secret",
            location.as_str(),
            "/b/secret",
        ] {
            assert!(
                matches!(
                    ProfileKey::parse("a", sneaky),
                    Err(HostError::InvalidName { .. })
                ),
                "{name}: {sneaky:?} accepted as a name"
            );
            assert!(
                ProfileKey::parse(sneaky, "secret").is_err(),
                "{name}: {sneaky:?} as a scope"
            );
        }
        // The same name in scope a is a different profile.
        let a = store.open(&key("a", "secret")).expect("open a");
        assert!(a.created(), "{name}: a's profile is new");
        assert_ne!(a.location(), b.location(), "{name}");
        assert!(store.delete(&key("a", "secret")).expect("delete"));
        assert!(
            store.find(&key("b", "secret")).expect("find").is_some(),
            "{name}"
        );
    }
}

#[test]
fn file_store_folders_are_0700_and_symlinks_are_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let store = FileProfileStore::new(dir.path().join("profiles"));
    let handle = store.open(&key("a", "site")).expect("open");
    let profile_dir = handle.user_data_dir().expect("a folder");
    for path in [
        dir.path().join("profiles"),
        dir.path().join("profiles/a"),
        dir.path().join("profiles/a/site"),
        profile_dir.to_path_buf(),
        dir.path().join("profiles/a/site/state"),
    ] {
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", path.display());
    }
    // A planted symlink from scope a into scope b is not followed.
    store.open(&key("b", "secret")).expect("open b");
    std::os::unix::fs::symlink(
        dir.path().join("profiles/b/secret"),
        dir.path().join("profiles/a/link"),
    )
    .expect("symlink");
    assert!(
        store.open(&key("a", "link")).is_err(),
        "a symlinked profile must not open"
    );
    assert!(store.find(&key("a", "link")).is_err());
    assert!(
        !store
            .list(&Scope::new("a").expect("s"))
            .expect("list")
            .iter()
            .any(|n| n.as_str() == "link")
    );
}

#[test]
fn lease_is_exclusive_per_run_and_joined_by_the_same_run() {
    for (name, lease, _dir) in leases() {
        let k = key("local", "site");
        assert_eq!(
            lease.try_acquire(&k, &holder("r1")).expect("a"),
            TryAcquire::Acquired(Acquired::Taken),
            "{name}"
        );
        assert_eq!(
            lease.try_acquire(&k, &holder("r1")).expect("b"),
            TryAcquire::Acquired(Acquired::Joined),
            "{name}"
        );
        match lease.try_acquire(&k, &holder("r2")).expect("c") {
            TryAcquire::Held(h) => assert_eq!(h.run.as_str(), "r1", "{name}: sees the holder"),
            other => panic!("{name}: {other:?}"),
        }
        // Another scope, same name: independent.
        assert_eq!(
            lease
                .try_acquire(&key("other", "site"), &holder("r2"))
                .expect("d"),
            TryAcquire::Acquired(Acquired::Taken),
            "{name}"
        );
        assert!(
            !lease.release(&k, &RunId::new("r2").expect("r")).expect("e"),
            "{name}: never drops another run's lease"
        );
        assert!(
            lease.release(&k, &RunId::new("r1").expect("r")).expect("f"),
            "{name}"
        );
        assert!(
            !lease.release(&k, &RunId::new("r1").expect("r")).expect("g"),
            "{name}: idempotent"
        );
        assert_eq!(
            lease.try_acquire(&k, &holder("r2")).expect("h"),
            TryAcquire::Acquired(Acquired::Taken),
            "{name}"
        );
    }
}

#[test]
fn stale_leases_of_ended_runs_are_reclaimed_unknown_counts_as_live() {
    for (name, lease, _dir) in leases() {
        lease
            .try_acquire(&key("local", "a"), &holder("ended"))
            .expect("a");
        lease
            .try_acquire(&key("local", "b"), &holder("unknown"))
            .expect("b");
        let liveness = |run: &RunId| match run.as_str() {
            "ended" => RunState::Ended,
            _ => RunState::Unknown,
        };
        let dropped = lease.reclaim_stale(&liveness).expect("reclaim");
        assert_eq!(dropped.len(), 1, "{name}");
        assert_eq!(dropped[0].1.run.as_str(), "ended", "{name}");
        assert!(
            lease.holder(&key("local", "b")).expect("h").is_some(),
            "{name}"
        );
        // reclaim is compare-and-delete.
        let current = lease.holder(&key("local", "b")).expect("h").expect("held");
        let mut other = current.clone();
        other.since_ms += 1;
        assert!(
            !lease.reclaim(&key("local", "b"), &other).expect("r"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_queued_run_takes_over_when_the_holder_releases() {
    for (name, lease, _dir) in leases() {
        let k = key("local", "site");
        lease.try_acquire(&k, &holder("first")).expect("first");
        let (told, mut announced) = tokio::sync::mpsc::unbounded_channel();
        let waiting = {
            let lease = lease.clone();
            let k = k.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let options = AcquireOptions {
                    poll: Duration::from_millis(20),
                    ..AcquireOptions::default()
                };
                let got = acquire(
                    &*lease,
                    &k,
                    &holder("second"),
                    &|_: &RunId| RunState::Running,
                    &options,
                    |h| {
                        seen.push(h.run.to_string());
                        let _ = told.send(());
                    },
                )
                .await;
                (got.map_err(|e| e.to_string()), seen)
            })
        };
        // The waiter announces the holder, then keeps waiting while it holds.
        announced.recv().await.expect("the waiter names the holder");
        assert!(!waiting.is_finished(), "{name}: the second run must wait");
        lease
            .release(&k, &RunId::new("first").expect("r"))
            .expect("release");
        let (got, seen) = waiting.await.expect("join");
        assert_eq!(got, Ok(Acquired::Taken), "{name}");
        assert_eq!(seen, ["first"], "{name}: told who holds it, once");
    }
}

/// Limitation 6: a wait behind a live run ends at its limit with the holder named.
#[tokio::test]
async fn lease_wait_has_a_limit() {
    for (name, lease, _dir) in leases() {
        let k = key("local", "site");
        lease.try_acquire(&k, &holder("holder")).expect("holder");
        let options = AcquireOptions {
            wait_limit: Some(Duration::from_millis(300)),
            poll: Duration::from_millis(20),
            cancel: None,
        };
        let err = acquire(
            &*lease,
            &k,
            &holder("waiter"),
            &|_: &RunId| RunState::Waiting,
            &options,
            |_| {},
        )
        .await
        .expect_err("must time out");
        match err {
            HostError::LeaseWaitTimedOut { holder, .. } => {
                assert_eq!(holder.run.as_str(), "holder", "{name}");
            }
            other => panic!("{name}: {other}"),
        }
    }
}

#[tokio::test]
async fn lease_wait_reclaims_an_ended_holder_and_can_be_cancelled() {
    for (name, lease, _dir) in leases() {
        let k = key("local", "site");
        lease.try_acquire(&k, &holder("dead")).expect("dead");
        let options = AcquireOptions::default();
        let ended = |run: &RunId| {
            if run.as_str() == "dead" {
                RunState::Ended
            } else {
                RunState::Running
            }
        };
        assert_eq!(
            acquire(&*lease, &k, &holder("next"), &ended, &options, |_| {})
                .await
                .expect("reclaimed"),
            Acquired::Taken,
            "{name}"
        );
        let cancel = tokio_util_cancel();
        let options = AcquireOptions {
            cancel: Some(cancel.clone()),
            ..AcquireOptions::default()
        };
        cancel.cancel();
        let err = acquire(
            &*lease,
            &k,
            &holder("third"),
            &|_: &RunId| RunState::Running,
            &options,
            |_| {},
        )
        .await
        .expect_err("cancelled");
        assert!(
            matches!(err, HostError::LeaseWaitCancelled { .. }),
            "{name}: {err}"
        );
    }
}

fn tokio_util_cancel() -> abx_host::CancelToken {
    abx_host::CancelToken::new()
}

#[test]
fn file_lease_replaces_a_corrupt_lock_file_and_writes_0600() {
    let dir = tempfile::tempdir().expect("dir");
    let lease = FileLease::new(dir.path().join("locks"));
    let path = dir.path().join("locks/local/site.lock");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, "{not json").expect("corrupt");
    assert_eq!(
        lease
            .try_acquire(&key("local", "site"), &holder("r1"))
            .expect("acquire"),
        TryAcquire::Acquired(Acquired::Taken)
    );
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("\"r1\""), "{text}");
}

#[test]
fn two_file_leases_on_one_folder_see_each_other() {
    // Two Hosts (two FileLease values) on one machine share the lock files.
    let dir = tempfile::tempdir().expect("dir");
    let one = FileLease::new(dir.path().join("locks"));
    let two = FileLease::new(dir.path().join("locks"));
    one.try_acquire(&key("local", "site"), &holder("r1"))
        .expect("one");
    assert!(matches!(
        two.try_acquire(&key("local", "site"), &holder("r2"))
            .expect("two"),
        TryAcquire::Held(_)
    ));
    let _ = ProfileName::new("site").expect("name");
}
