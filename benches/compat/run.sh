#!/usr/bin/env bash
# Side-by-side compatibility harness: the same ordered list of upstream-documented commands through
# upstream agent-browser 0.41.2 and ours, one row per command (or group of subcommands), each row
# `same`, `differs (intended: why)`, `differs (why)` or `not provided`. A developer tool, not a CI
# step (upstream's binary comes from npm).
#
#   benches/compat/run.sh                  run every row (a few minutes), print the table, write
#                                          target/compat/compat.json and compat-details.md
#   benches/compat/run.sh --update-docs    … and write the table section of docs/compat.md
#   benches/compat/run.sh --check          … and exit 1 when docs/compat.md's table is stale
#   benches/compat/run.sh --only network  only rows whose id or area matches (writes compat-only.json)
#   benches/compat/run.sh --list           list the rows
#   benches/compat/run.sh --from target/compat/compat.json --check   check without running
#   benches/compat/run.sh --help           every option
#
# Environment:
#   ABX_COMPAT_OURS=<path>       our binary (default: build target/debug/agent-browser)
#   ABX_COMPAT_RELEASE=1         build and use the release binary instead
#   ABX_UPSTREAM_BIN=<path>      upstream's native binary
#                                (default /work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64;
#                                 when missing: cd /work/upstream && npm install agent-browser@0.41.2).
#                                Never run upstream's `install` or `upgrade`: they download.
#
# Each binary gets its own HOME, TMPDIR and AGENT_BROWSER_SOCKET_DIR under one temp dir, the same
# /usr/bin/chromium with the developers' guide's flags in AGENT_BROWSER_ARGS, and
# AGENT_BROWSER_NO_VERSION_CHECK=1; both run against the bundled fixture site (abx-fixtures). Every
# process of the run carries ABX_COMPAT_RUN=<marker> in its environment; at the end (also after
# Ctrl-C) the harness closes both binaries' sessions and ends what is left by pid, then removes the
# temp dir. Rows live in benches/compat/rows.mjs, intended differences in expected.mjs.
set -euo pipefail
cd "$(dirname "$0")/../.."

UPSTREAM=${ABX_UPSTREAM_BIN:-/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64}
# npm --ignore-scripts skips the postinstall that marks the native binary executable.
if [ -f "$UPSTREAM" ] && [ ! -x "$UPSTREAM" ]; then chmod +x "$UPSTREAM"; fi
if [ ! -x "$UPSTREAM" ]; then
  echo "compat: upstream agent-browser 0.41.2 not found at $UPSTREAM" >&2
  echo "        install it with: (cd /work/upstream && npm install agent-browser@0.41.2), or set ABX_UPSTREAM_BIN" >&2
  exit 2
fi
command -v node >/dev/null || { echo "compat: needs node (18 or later)" >&2; exit 2; }

for arg in "$@"; do
  case "$arg" in
    --list|--from|-h|--help) exec node benches/compat/harness.mjs "$@" ;;
  esac
done

profile=debug
[ "${ABX_COMPAT_RELEASE:-0}" = 1 ] && profile=release
target=${CARGO_TARGET_DIR:-target}
if [ -z "${ABX_COMPAT_OURS:-}" ]; then
  flags=(--quiet -j 2 -p agent-browser -p abx-fixtures)
  [ "$profile" = release ] && flags+=(--release)
  cargo build "${flags[@]}"
fi
OURS=${ABX_COMPAT_OURS:-$target/$profile/agent-browser}
FIXTURES=$target/$profile/abx-fixtures
[ -x "$FIXTURES" ] || cargo build --quiet -j 2 -p abx-fixtures ${ABX_COMPAT_RELEASE:+--release}

# Short: socket paths must stay under the 108-byte sun_path limit.
ROOT=$(mktemp -d /tmp/abxc-XXXXXX)
MARKER="abxc-$$-$RANDOM$RANDOM"
trap 'node benches/compat/harness.mjs --sweep "$MARKER" --root "$ROOT"' EXIT
trap 'exit 130' INT TERM HUP

node benches/compat/harness.mjs --ours "$OURS" --upstream "$UPSTREAM" --fixtures "$FIXTURES" \
  --marker "$MARKER" --root "$ROOT" "$@"
