#!/usr/bin/env bash
# Fill and submit a form, then check the result. Usage: form-automation.sh <url>
set -euo pipefail
url=${1:?usage: form-automation.sh <url>}
ab() { agent-browser --session "$SESSION" "$@"; }
SESSION=$(agent-browser session id --scope worktree --prefix form)
trap 'ab close >/dev/null 2>&1 || true' EXIT

ab open "$url"
ab snapshot -i                         # read the refs, then adapt the lines below

ab find label "Name" fill "Ada Lovelace"
ab find label "Email" fill "ada@example.com"
ab find role checkbox check --name "I agree"
ab find role button click --name "Submit"

ab wait --text "Thank you"             # the page's own success signal
ab screenshot ./form-result.png
