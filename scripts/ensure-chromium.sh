#!/usr/bin/env bash
# Installs Debian's Chromium, its headless shell (abx's default for headless sessions; see
# docs/adr/0007-headless-shell.md), Xvfb (for headed runs), ffmpeg (for `record`), npm (for the
# build) and binutils (for the tests) when missing. Needs root (or sudo). The tests that need one
# of these fail, saying which, when it is missing: none of them passes without checking.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || [ -n "${AGENT_BROWSER_EXECUTABLE_PATH:-}" ] || need+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || command -v chrome-headless-shell >/dev/null 2>&1 \
  || [ -n "${AGENT_BROWSER_EXECUTABLE_PATH:-}" ] || need+=(chromium-headless-shell)
# Xvfb: headed Chrome without a display (tests/lifecycle.rs checks the private display).
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
# ffmpeg (with ffprobe): `record` encodes WebM with it, and its tests check the file.
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
# certutil (NSS tools): `--ca-cert` puts its CA in a private NSS database for Chrome.
command -v certutil >/dev/null 2>&1 || need+=(libnss3-tools)
# npm: the build fetches axe-core, which `a11y` runs, from the npm registry (crates/engine/build.rs).
command -v npm >/dev/null 2>&1 || need+=(npm)
# readelf (binutils): tests/startup.rs reads which shared libraries the CLI loads at start.
command -v readelf >/dev/null 2>&1 || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
