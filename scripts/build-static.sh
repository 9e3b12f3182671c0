#!/usr/bin/env bash
# Builds a statically linked `agent-browser` (glibc `crt-static`, non-PIE) for Linux x86_64 and
# prints its path. Every command an agent types is a new process; without the dynamic loader and
# its three shared libraries a warm `get url` is ~1 ms faster (ADR 0010, "Static build").
#
#   scripts/build-static.sh            → target/static/x86_64-unknown-linux-gnu/release/agent-browser
#
# Opt-in, not the default build, because:
# - `crt-static` must not reach proc-macros and build scripts, so it needs `--target` (its own
#   output folder), which a plain `cargo build --release` cannot give;
# - a static glibc still loads its NSS modules (`/etc/nsswitch.conf`: host names in `--cdp`
#   URLs, user lookups) with dlopen, from the glibc installed where it runs: run the binary on
#   the machine or image it was built for (same glibc), like any glibc-static program.
# Needs libc6-dev (libc.a), which gcc on Debian brings.
set -euo pipefail
cd "$(dirname "$0")/.."
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "build-static: only for Linux x86_64 (glibc)" >&2; exit 2 ;;
esac
if ! gcc -print-file-name=libc.a | grep -q /; then
  echo "build-static: libc.a not found; apt-get install -y libc6-dev" >&2
  exit 2
fi
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
  cargo build --release -p agent-browser --target x86_64-unknown-linux-gnu --target-dir target/static >&2
bin=target/static/x86_64-unknown-linux-gnu/release/agent-browser
# A build that silently came out dynamic would be the thing this script exists to avoid.
if readelf -l "$bin" | grep -q INTERP; then
  echo "build-static: $bin is not statically linked" >&2
  exit 1
fi
"$bin" --version >/dev/null
echo "$bin"
