#!/usr/bin/env bash
# Runs the whole test suite against real Chromium (installed with apt-get when missing) and the real
# web applications of tests/real_apps.rs (installed by scripts/ensure-real-apps.sh when missing).
# Tests start Chrome; two at a time suits a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-chromium.sh
./scripts/ensure-real-apps.sh
cargo build --workspace --all-targets --quiet
cargo test --workspace --quiet -- --test-threads="${ABX_TEST_THREADS:-2}"
