#!/usr/bin/env bash
# Runs the same command list against our agent-browser and upstream 0.41.2 (from npm) on the
# bundled fixture site and diffs the normalized text output (stdout+stderr+exit code per command).
# Usage: benches/conformance.sh [upstream-binary]   (skips cleanly when upstream is unavailable)
set -uo pipefail
cd "$(dirname "$0")/.."
UPSTREAM=${1:-${ABX_UPSTREAM_BIN:-/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64}}
# npm --ignore-scripts skips the postinstall that marks the native binary executable.
[ -f "$UPSTREAM" ] && [ ! -x "$UPSTREAM" ] && chmod +x "$UPSTREAM"
if [ ! -x "$UPSTREAM" ]; then
  dir=$(mktemp -d)
  if (cd "$dir" && npm install --ignore-scripts --no-audit --no-fund agent-browser@0.41.2 >/dev/null 2>&1); then
    UPSTREAM="$dir/node_modules/agent-browser/bin/agent-browser-linux-x64"
    chmod +x "$UPSTREAM"
  else
    echo "upstream agent-browser 0.41.2 unavailable (npm unreachable): skipping conformance" >&2
    exit 0
  fi
fi
cargo build --quiet --bin agent-browser --bin abx-fixtures
OURS="$PWD/target/debug/agent-browser"
WORK=$(mktemp -d)
"$PWD/target/debug/abx-fixtures" > "$WORK/url" & FIX=$!
trap 'kill $FIX 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/url" ] && break; sleep 0.05; done
SITE=$(head -1 "$WORK/url")

COMMANDS=(
  "open $SITE/fixture.html"
  "get title"
  "get url"
  "snapshot"
  "snapshot -i"
  "snapshot -c"
  "snapshot -d 1"
  "snapshot -s form"
  "get text h1"
  "get html h1"
  "get attr a href"
  "get count li"
  "is visible h1"
  "is checked #agree"
  "fill #email a@b.test"
  "get value #email"
  "check #agree"
  "is checked #agree"
  "select select Blue"
  "click @e4"
  "dialog status"
  "get title"
  "dialog accept"
  "dialog status"
  "eval 1+1"
  "eval document.title"
  "eval throw-new-Error"
  "find role button click --name Nope"
  "click #missing"
  "open $SITE/page1.html"
  "back"
  "forward"
  "reload"
  "tab list"
  "tab new $SITE/page2.html"
  "tab list"
  "tab t1"
  "tab close t2"
  "tab 2"
  "storage local"
  "cookies"
  "wait 10"
  "wait --text Page"
  "wait #nope --timeout 300"
  "bogus"
  "click"
  "close"
)

run_all() { # binary label
  local bin=$1 label=$2
  local home="$WORK/$label"
  mkdir -p "$home"
  for cmd in "${COMMANDS[@]}"; do
    # shellcheck disable=SC2086
    set -- $cmd
    if [ "$cmd" = "eval throw-new-Error" ]; then set -- eval "throw new Error('boom')"; fi
    out=$(HOME="$home" AGENT_BROWSER_SOCKET_DIR="$home/s" AGENT_BROWSER_SESSION=conf \
      AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium AGENT_BROWSER_NO_VERSION_CHECK=1 \
      AGENT_BROWSER_ARGS="--no-sandbox,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-quic" \
      timeout 60 "$bin" "$@" 2>&1; echo "[exit $?]")
    printf '$ %s\n%s\n' "$cmd" "$out"
  done | sed -E "s#$SITE#SITE#g; s#127\.0\.0\.1:[0-9]+#HOST#g; s#$WORK/$label#HOME#g; s#/devtools/browser/[0-9a-f-]+#/devtools/browser/ID#g"
}

run_all "$UPSTREAM" upstream > "$WORK/upstream.txt"
run_all "$OURS" abx > "$WORK/abx.txt"
mkdir -p target/conformance
cp "$WORK/upstream.txt" "$WORK/abx.txt" target/conformance/
if diff -u target/conformance/upstream.txt target/conformance/abx.txt > target/conformance/diff.txt; then
  echo "conformance: identical output for ${#COMMANDS[@]} commands"
else
  echo "conformance: differences in target/conformance/diff.txt ($(grep -c '^[-+][^-+]' target/conformance/diff.txt) lines)"
fi
