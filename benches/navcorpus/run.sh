#!/usr/bin/env bash
# The navigation corpus side by side: every pattern of benches/navcorpus/patterns.mjs (a route of
# the fixture site, fixtures/src/nav.rs) through upstream agent-browser 0.41.2 and abx, each on full
# Chromium and on the headless shell, one row per pattern × step with exit code, output and wall
# time, and a verdict (abx equal to upstream / better / worse / both fail). A developer tool, not a
# CI step (upstream's binary comes from npm); tests/navigation_corpus.rs is the CI side.
#
#   benches/navcorpus/run.sh                   every pattern (a quarter of an hour or more: a
#                                              binary that hangs waits out its 25 s timeout), writes
#                                              target/navcorpus/navcorpus.json, prints a summary
#   benches/navcorpus/run.sh --update-docs     … and rewrites the generated part of
#                                              docs/navigation-corpus.md
#   benches/navcorpus/run.sh --only redirect   patterns whose id or group matches
#   benches/navcorpus/run.sh --sides abx-shell,upstream-shell
#   benches/navcorpus/run.sh --from target/navcorpus/navcorpus.json --update-docs   no run
#   benches/navcorpus/run.sh --help            every option
#
# Environment:
#   ABX_NAV_RELEASE=1      build and run abx's release binary (default: debug)
#   ABX_NAV_ABX=<path>     abx's binary (no build)
#   ABX_NAV_COMMIT=<rev>   the commit that binary was built from, for the report
#   ABX_UPSTREAM_BIN=<path>  upstream's native binary
#                          (default /work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64;
#                           when missing: cd /work/upstream && npm install agent-browser@0.41.2).
#                          Never run upstream's `install` or `upgrade`: they download.
#
# Each of the four runs (upstream and abx × /usr/bin/chromium and /usr/bin/chromium-headless-shell,
# chosen with AGENT_BROWSER_EXECUTABLE_PATH) has its own HOME, TMPDIR and AGENT_BROWSER_SOCKET_DIR
# under one temp dir and the same Chrome flags. Every process of the run carries a marker in its
# environment (ABX_COMPAT_RUN, the compat harness's sweep); at the end, also after Ctrl-C, the
# harness closes every session, stops the fixture server and ends what is left by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."

UPSTREAM=${ABX_UPSTREAM_BIN:-/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64}
if [ -f "$UPSTREAM" ] && [ ! -x "$UPSTREAM" ]; then chmod +x "$UPSTREAM"; fi

for arg in "$@"; do
  case "$arg" in
    --list|--from|-h|--help) exec node benches/navcorpus/harness.mjs "$@" ;;
  esac
done

if [ ! -x "$UPSTREAM" ]; then
  echo "navcorpus: upstream agent-browser 0.41.2 not found at $UPSTREAM" >&2
  echo "           install it with: (cd /work/upstream && npm install agent-browser@0.41.2), or set ABX_UPSTREAM_BIN" >&2
  exit 2
fi
command -v node >/dev/null || { echo "navcorpus: needs node (18 or later)" >&2; exit 2; }
for chrome in /usr/bin/chromium /usr/bin/chromium-headless-shell; do
  [ -x "$chrome" ] || { echo "navcorpus: needs $chrome (scripts/ensure-chromium.sh)" >&2; exit 2; }
done

profile=debug
[ "${ABX_NAV_RELEASE:-0}" = 1 ] && profile=release
target=${CARGO_TARGET_DIR:-target}
flags=(--quiet -j 2 -p abx-fixtures)
[ -z "${ABX_NAV_ABX:-}" ] && flags+=(-p agent-browser)
[ "$profile" = release ] && flags+=(--release)
cargo build "${flags[@]}"
ABX=${ABX_NAV_ABX:-$target/$profile/agent-browser}
FIXTURES=$target/$profile/abx-fixtures

# Short: socket paths must stay under the 108-byte sun_path limit.
ROOT=$(mktemp -d /tmp/abxn-XXXXXX)
MARKER="abxn-$$-$RANDOM$RANDOM"
trap 'node benches/navcorpus/harness.mjs --sweep "$MARKER" --root "$ROOT"' EXIT
trap 'exit 130' INT TERM HUP

node benches/navcorpus/harness.mjs --abx "$ABX" --upstream "$UPSTREAM" --fixtures "$FIXTURES" \
  --marker "$MARKER" --root "$ROOT" --profile "$profile" ${ABX_NAV_COMMIT:+--abx-commit "$ABX_NAV_COMMIT"} "$@"
