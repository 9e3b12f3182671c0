#!/usr/bin/env bash
# The abx demo on the bundled fixture site, through the drop-in `agent-browser` binary:
# an anchor Chrome with a profile, two pinned stage sessions working in parallel over CDP, a login
# whose cookie both see, a live view that counts frames and clicks through input, a confirm dialog
# answered from the live view, graceful close, and the persistent cookie after reopening. Prints
# each step and ends with nothing left running. ABX_DEMO_BIN runs another build of the binary
# (e.g. the one scripts/build-static.sh prints) through the same steps.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-chromium.sh
cargo build --quiet --bin agent-browser --bin abx-fixtures
cargo build --quiet -p abx-relay --example viewer
AB="${ABX_DEMO_BIN:-$PWD/target/debug/agent-browser}"
FIXTURES="$PWD/target/debug/abx-fixtures"
VIEWER="$PWD/target/debug/examples/viewer"

WORK=$(mktemp -d)
FIXTURE_PID=""
cleanup() {
  # Close anything still open (by session, never by process name), then remove the temp dir.
  for s in sf-demo-a sf-demo-b sf-demo; do
    AGENT_BROWSER_SESSION=$s "$AB" close >/dev/null 2>&1 || true
  done
  [ -n "$FIXTURE_PID" ] && kill "$FIXTURE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export HOME="$WORK/home" AGENT_BROWSER_SOCKET_DIR="$WORK/sock"
mkdir -p "$HOME"
echo '{}' > "$WORK/empty.json"
ARGS="--disable-quic,--disable-gpu"

step() { printf '\n== %s\n' "$*"; }
run() { printf '$ agent-browser %s\n' "$*"; "$AB" "$@"; }

"$FIXTURES" > "$WORK/url" & FIXTURE_PID=$!
for _ in $(seq 100); do [ -s "$WORK/url" ] && break; sleep 0.05; done
SITE=$(head -1 "$WORK/url")
echo "fixture site: $SITE"

anchor() { AGENT_BROWSER_SESSION=sf-demo AGENT_BROWSER_PROFILE="$WORK/profile" AGENT_BROWSER_IDLE_TIMEOUT_MS=0 \
  AGENT_BROWSER_CONFIG="$WORK/empty.json" AGENT_BROWSER_ARGS="$ARGS" run "$@"; }
stage() { local s=$1; shift; AGENT_BROWSER_SESSION=$s AGENT_BROWSER_CDP="$CDP" AGENT_BROWSER_PIN_TAB=1 \
  AGENT_BROWSER_IDLE_TIMEOUT_MS=0 AGENT_BROWSER_CONFIG="$WORK/empty.json" run "$@"; }

step "1. The anchor launches Chrome with a persistent profile"
anchor open about:blank
CDP=$(AGENT_BROWSER_SESSION=sf-demo "$AB" get cdp-url)
echo "anchor CDP address: $CDP"
CHROME_PORT=$(echo "$CDP" | sed -E 's#ws://127.0.0.1:([0-9]+)/.*#\1#')

step "2. Two stage sessions attach over CDP, each with its own pinned tab, in parallel"
stage sf-demo-a open "$SITE/login.html" & A=$!
stage sf-demo-b open "$SITE/page1.html" & B=$!
wait "$A" "$B"
stage sf-demo-a get url
stage sf-demo-b get url

step "3. Stage A logs in; stage B sees the cookie (same browser, same profile)"
stage sf-demo-a snapshot -i
stage sf-demo-a fill @e2 demo
stage sf-demo-a fill @e3 pw
stage sf-demo-a click @e4
stage sf-demo-a get url
stage sf-demo-a get text '#persist'
stage sf-demo-b open "$SITE/account"
stage sf-demo-b get text '#persist'

step "4. A live view of stage B: frames streamed to a viewer, a click sent back as input"
stage sf-demo-b open "$SITE/animated.html"
PORT_B=$(cat "$AGENT_BROWSER_SOCKET_DIR/sf-demo-b.stream")
echo "stage B streams on ws://127.0.0.1:$PORT_B"
"$VIEWER" "$PORT_B" --seconds 2 --click 300,200
printf 'clicks the page received: '; AGENT_BROWSER_SESSION=sf-demo-b AGENT_BROWSER_CDP="$CDP" AGENT_BROWSER_PIN_TAB=1 "$AB" eval 'window.__clicks.length'

step "5. A confirm dialog on stage B, answered from the live view"
stage sf-demo-b open "$SITE/dialogs.html"
"$VIEWER" "$PORT_B" --seconds 0.5 --answer-dialog & V=$!
sleep 0.3
stage sf-demo-b click '#confirm'
wait "$V"
stage sf-demo-b get text '#result'

step "6. Stage teardown: tab close, then close (the anchor keeps running)"
anchor tab list
stage sf-demo-a tab close
stage sf-demo-a close
stage sf-demo-b tab close
stage sf-demo-b close
anchor tab list

step "7. Graceful close of the anchor (Browser.close, verified exit)"
anchor --json close | sed -E 's/.*"cleanup":(\{[^}]*\}).*/cleanup receipt: \1/'

step "8. Reopen on the same profile: the persistent cookie survived, the session cookie did not"
anchor open "$SITE/account"
printf 'persistent cookie: %s\n' "$(AGENT_BROWSER_SESSION=sf-demo "$AB" get text '#persist')"
printf 'session cookie:    %s\n' "$(AGENT_BROWSER_SESSION=sf-demo "$AB" get text '#session')"
anchor close

step "9. Nothing left running"
left=$(ls "$AGENT_BROWSER_SOCKET_DIR" | grep -E '\.(sock|pid)$' || true)
if [ -n "$left" ]; then echo "leftover daemon files: $left"; exit 1; fi
if ss -ltn 2>/dev/null | grep -q ":$CHROME_PORT "; then echo "Chrome still listening on $CHROME_PORT"; exit 1; fi
echo "no daemon, no Chrome, no socket files left. Demo done."
