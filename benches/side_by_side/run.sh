#!/usr/bin/env bash
# Side by side in one run: abx, upstream agent-browser 0.41.2 and Playwright in-process on the same
# Chrome binaries (issue 15 item 5). A developer bench, not a CI step: upstream comes from npm and
# Playwright from the registry (pinned in benches/playwright/package-lock.json).
#
#   benches/side_by_side/run.sh                 7 iterations, the Markdown section on stdout
#   benches/side_by_side/run.sh --out FILE      … also written to FILE
#   ABX_SBS_ITER=11 ABX_SBS_REPEAT=5 benches/side_by_side/run.sh
#   benches/side_by_side/run.sh --large [--out F]   the large generated pages instead (issue 38):
#                               every /large/ page at two sizes, the scaling curve, the daemon's
#                               RSS across 1,000 snapshots (node benches/side_by_side/large.mjs --help)
#   (any other option goes to sbs.mjs: node benches/side_by_side/sbs.mjs --help)
#
# Environment:
#   ABX_SBS_ABX=<path>       our binary (default: build target/release/agent-browser)
#   ABX_SBS_FIXTURES=<path>  the fixture server (default: build target/release/abx-fixtures)
#   ABX_UPSTREAM_BIN=<path>  upstream's native binary (default
#                            /work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64;
#                            when missing: cd /work/upstream && npm install agent-browser@0.41.2).
#                            Never run upstream's `install` or `upgrade`: they download Chrome.
#   ABX_SBS_ITER, ABX_SBS_REPEAT   iterations (default 7), samples per warm command (default 5)
#
# Playwright: `npm ci` installs playwright-core into benches/playwright/node_modules (gitignored)
# with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 and --ignore-scripts: it never downloads a browser, it
# drives /usr/bin/chromium and /usr/bin/chromium-headless-shell. Needs node 20+ and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."

UPSTREAM=${ABX_UPSTREAM_BIN:-/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64}
# npm --ignore-scripts skips the postinstall that marks the native binary executable.
if [ -f "$UPSTREAM" ] && [ ! -x "$UPSTREAM" ]; then chmod +x "$UPSTREAM"; fi
if [ ! -x "$UPSTREAM" ]; then
  echo "side_by_side: upstream agent-browser 0.41.2 not found at $UPSTREAM" >&2
  echo "              install it with: (cd /work/upstream && npm install agent-browser@0.41.2), or set ABX_UPSTREAM_BIN" >&2
  exit 2
fi
command -v node >/dev/null || { echo "side_by_side: needs node (20 or later)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "side_by_side: needs python3 (it times the CLI spawns)" >&2; exit 2; }

# The pinned Playwright, reinstalled when the lock file is newer than the install.
PW=benches/playwright
if [ ! -f "$PW/node_modules/playwright-core/package.json" ] || [ "$PW/package-lock.json" -nt "$PW/node_modules/.package-lock.json" ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$PW" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
fi

target=${CARGO_TARGET_DIR:-target}
if [ -z "${ABX_SBS_ABX:-}" ] || [ -z "${ABX_SBS_FIXTURES:-}" ]; then
  cargo build --release --quiet -j 2 -p agent-browser -p abx-fixtures
fi
OURS=${ABX_SBS_ABX:-$target/release/agent-browser}
FIXTURES=${ABX_SBS_FIXTURES:-$target/release/abx-fixtures}

if [ "${1:-}" = "--large" ]; then
  shift
  exec node benches/side_by_side/large.mjs --abx "$OURS" --upstream "$UPSTREAM" --fixtures "$FIXTURES" \
    --command "${ABX_SBS_COMMAND:-benches/side_by_side/run.sh --large${*:+ $*}}" "$@"
fi
exec node benches/side_by_side/sbs.mjs --abx "$OURS" --upstream "$UPSTREAM" --fixtures "$FIXTURES" \
  --command "${ABX_SBS_COMMAND:-${ABX_SBS_ITER:+ABX_SBS_ITER=$ABX_SBS_ITER }benches/side_by_side/run.sh}" "$@"
