#!/usr/bin/env bash
# Log in once with the vault, keep the login across runs with --restore.
# Usage: APP_PASSWORD=… authenticated-session.sh <login-url> <username> <after-login-url-glob>
set -euo pipefail
login_url=${1:?login url}
user=${2:?username}
landing=${3:?url glob after login, e.g. '**/dashboard'}
: "${APP_PASSWORD:?set APP_PASSWORD}"
SESSION=$(agent-browser session id --scope worktree --prefix app)
ab() { agent-browser --session "$SESSION" "$@"; }

ab --restore open "$login_url"
if ab wait --url "$landing" --timeout 3000 >/dev/null 2>&1; then
  echo "restored login"
else
  printf '%s' "$APP_PASSWORD" | ab auth save app --url "$login_url" --username "$user" --password-stdin
  ab auth login app
  ab wait --url "$landing"
fi
ab get url
ab close                               # saves the state for the next run
