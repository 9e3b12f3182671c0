#!/usr/bin/env bash
# Capture a page for a report: text, interactive map, screenshots, PDF, console errors.
# Usage: capture-workflow.sh <url> [out-dir]
set -euo pipefail
url=${1:?usage: capture-workflow.sh <url> [out-dir]}
out=${2:-./capture}
mkdir -p "$out"
SESSION=$(agent-browser session id --scope worktree --prefix capture)
ab() { agent-browser --session "$SESSION" "$@"; }
trap 'ab close >/dev/null 2>&1 || true' EXIT

ab open "$url"
ab wait --load load
ab get title > "$out/title.txt"
ab read > "$out/page.md"
ab snapshot -i > "$out/snapshot.txt"
ab screenshot --annotate "$out/annotated.png"
ab screenshot --full "$out/full.png"
ab pdf "$out/page.pdf"
ab errors > "$out/errors.txt" || true
echo "saved to $out"
