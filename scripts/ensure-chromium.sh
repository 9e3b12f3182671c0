#!/usr/bin/env bash
# Installs Debian's Chromium (and Xvfb for headed runs) when missing. Needs root (or sudo).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || [ -n "${AGENT_BROWSER_EXECUTABLE_PATH:-}" ] || need+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
