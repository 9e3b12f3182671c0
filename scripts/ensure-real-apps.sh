#!/usr/bin/env bash
# Installs the real web applications that tests/real_apps.rs drives, when missing (idempotent):
#   - a Python venv with Django, JupyterLab and ipykernel from PyPI (pinned in
#     tests/real_apps/requirements.txt), at $ABX_REAL_APPS_VENV or ~/.cache/abx-real-apps/venv;
#   - Debian's python3-doc (the Python documentation as HTML, /usr/share/doc/python3/html).
# Needs root (or sudo) for apt-get; the venv is built with Debian's /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${ABX_REAL_APPS_VENV:-$HOME/.cache/abx-real-apps/venv}"
requirements="tests/real_apps/requirements.txt"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt_updated=""
apt_install() {
  echo "installing: $*" >&2
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

need=()
[ -f /usr/share/doc/python3/html/search.html ] || need+=(python3-doc)
[ -x /usr/bin/python3 ] || need+=(python3)
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}"
fi

# The venv is current when it was built from this very requirements file.
stamp="$venv/.abx-requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp" \
  && "$venv/bin/python" -c 'import importlib.util as u, sys
sys.exit(not all(u.find_spec(m) for m in ("django", "jupyterlab", "ipykernel")))' >/dev/null 2>&1; then
  exit 0
fi
echo "building the real-apps venv at $venv" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check \
  -r "$requirements"
cp "$requirements" "$stamp"
