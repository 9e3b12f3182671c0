#!/usr/bin/env bash
# Fails when a crate of the workspace declares a dependency its code never names.
#
# For every workspace member's Cargo.toml, each key under [dependencies], [dev-dependencies] and
# [build-dependencies] (also target-specific ones) must appear as a Rust path (`serde_json`,
# `abx_cdp::…`, `use thiserror::…`) in that crate's sources: src/, tests/, benches/, examples/,
# build.rs and its other .rs files, doc comments included (doc tests use them), plain `//`
# comments not. Normal dependencies must be named outside dev-only places too. A dependency that
# is needed without being named (a feature switch, a linker-only crate) carries
# `# check-deps: allow <reason>` on its line.
#
# No toolchain plugin needed (cargo-machete/udeps are not installed on CI): grep and awk.
set -euo pipefail
cd "$(dirname "$0")/.."

failed=0
manifests=$(find . -name Cargo.toml -not -path './target/*' -not -path '*/target/*' | sort)
for manifest in $manifests; do
    grep -q '^\[package\]' "$manifest" || continue
    dir=$(dirname "$manifest")
    # Sources of this crate only (nested crates have their own Cargo.toml and are checked alone).
    sources=$(find "$dir" -name '*.rs' -not -path "$dir/target/*" | while read -r file; do
        owner=$(dirname "$file")
        while [ ! -f "$owner/Cargo.toml" ]; do owner=$(dirname "$owner"); done
        [ "$owner" = "$dir" ] && echo "$file"
    done)
    # "section name allowed" per dependency line.
    deps=$(awk '
        /^\[/ {
            section = ""
            if ($0 ~ /^\[(target\..*\.)?dependencies\]/) section = "normal"
            else if ($0 ~ /^\[(target\..*\.)?dev-dependencies\]/) section = "dev"
            else if ($0 ~ /^\[(target\..*\.)?build-dependencies\]/) section = "build"
            next
        }
        section != "" && /^[A-Za-z0-9_-]+[ .=]/ {
            name = $0; sub(/[ .=].*/, "", name)
            allowed = ($0 ~ /# check-deps: allow/) ? "allow" : "check"
            print section, name, allowed
        }' "$manifest")
    [ -n "$deps" ] || continue
    # The crate's code with plain `//` comments blanked (doc comments stay: doc tests run them),
    # once for everything and once without tests/ and benches/.
    strip='s#^[[:space:]]*//([^/!].*)?$##'
    all_code=$(echo "$sources" | { grep . || true; } | xargs -r sed -E "$strip")
    lib_code=$(echo "$sources" | { grep -v -E "^$dir/(tests|benches)/" || true; } | xargs -r sed -E "$strip")
    while read -r section name allowed; do
        [ "$allowed" = allow ] && continue
        ident=${name//-/_}
        pattern="(^|[^A-Za-z0-9_])${ident}::|(^|[^A-Za-z0-9_])(use|extern crate) ${ident}([^A-Za-z0-9_]|$)"
        # A normal dependency must be used by the crate itself, not only by its tests or benches.
        if [ "$section" = normal ]; then code=$lib_code; else code=$all_code; fi
        if ! grep -q -E "$pattern" <<< "$code"; then
            echo "unused dependency: $name ($section) in $manifest"
            failed=1
        fi
    done <<< "$deps"
done
# A [workspace.dependencies] entry no member inherits is dead weight too.
members=$(echo "$manifests" | grep -v '^./Cargo.toml$')
workspace_deps=$(awk '/^\[/ { on = ($0 == "[workspace.dependencies]"); next }
    on && /^[A-Za-z0-9_-]+[ .=]/ { name = $0; sub(/[ .=].*/, "", name); print name }' Cargo.toml)
for name in $workspace_deps; do
    if ! grep -q -h -E "^${name}(\.workspace|[[:space:]]*=[[:space:]]*\{[^}]*workspace[[:space:]]*=[[:space:]]*true)" $members; then
        echo "unused workspace dependency: $name in ./Cargo.toml (no member inherits it)"
        failed=1
    fi
done
if [ "$failed" = 1 ]; then
    echo "Remove it, or mark a dependency needed without being named with '# check-deps: allow <reason>'."
    exit 1
fi
echo "check-deps: every declared dependency is used"
