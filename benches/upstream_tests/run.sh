#!/usr/bin/env bash
# Runs upstream agent-browser's own black-box CLI tests (cli/tests/*.rs of a checkout of
# vercel-labs/agent-browser) against upstream's binary and any others; see README.md.
#
#   benches/upstream_tests/run.sh --upstream-src DIR --upstream-bin PATH \
#       --bin abx=PATH [--bin NAME=PATH ...] --out FILE.md [--only REGEX] [--timeout S]
#   benches/upstream_tests/run.sh --upstream-src DIR --upstream-results OLD.md.json \
#       --bin abx=PATH --out FILE.md     reuse upstream's outcomes from an earlier run
#   benches/upstream_tests/run.sh --help  every option
set -euo pipefail
exec python3 "$(dirname "$0")/harness.py" "$@"
