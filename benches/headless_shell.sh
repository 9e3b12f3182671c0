#!/usr/bin/env bash
# The headless shell against full Chromium --headless=new (docs/adr/0007-headless-shell.md):
# cold start, cold `open` through the CLI, navigation, screenshot, screencast fps, memory per tab.
#
#   benches/headless_shell.sh [ROUNDS]     (default 5; A/B alternating, medians)
#
# Release builds; needs /usr/bin/chromium and chromium-headless-shell (scripts/ensure-chromium.sh).
# The machine may be shared: the load average before and after is printed with the table.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-chromium.sh
cargo build --release --quiet -j 2 -p agent-browser
ABX_BENCH_ROUNDS=${1:-5} cargo bench --quiet -j 2 -p abx-bench --bench headless_shell
