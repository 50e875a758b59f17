#!/usr/bin/env bash
# Installs the heavy agent OpenCode (npm `opencode-ai`) at a pinned version into a cache of its
# own outside the clone, with Debian's ripgrep beside it. `opencode-ai` is only a launcher: the
# CLI is one self-contained binary in the platform package `opencode-linux-x64`, fetched here
# with `npm pack` (the registry's integrity check, no install scripts) and unpacked. OpenCode
# looks for `rg` on PATH and, when there is none, downloads one from GitHub: the tests put
# Debian's (`apt-get download`, unpacked, no root) on its PATH so it stays on the loopback.
# Idempotent; prints the cache folder on its last line.
#
#   export SSECONFORM_HEAVY_OPENCODE="$(bash tests/interop/heavy/install_opencode.sh | tail -n 1)"
set -euo pipefail

OPENCODE_VERSION=1.18.33
RIPGREP_VERSION=13.0.0-4+b2
CACHE="${TMPDIR:-/tmp}/sseconform-ci-heavy-opencode-$OPENCODE_VERSION-ripgrep-$RIPGREP_VERSION"
BIN="$CACHE/opencode-linux-x64/bin/opencode"
RG="$CACHE/ripgrep/usr/bin/rg"

if ! { [ -x "$BIN" ] && [ -x "$RG" ]; }; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent --no-update-notifier "opencode-linux-x64@$OPENCODE_VERSION" >&2)
  (cd "$work" && apt-get download -qq "ripgrep=$RIPGREP_VERSION" >&2 2>/dev/null) || {
    # an image whose package lists are stale: refresh them once
    apt-get update -qq >&2 && (cd "$work" && apt-get download -qq "ripgrep=$RIPGREP_VERSION" >&2)
  }
  rm -rf "$CACHE" && mkdir -p "$CACHE/opencode-linux-x64" "$CACHE/ripgrep"
  tar -xzf "$work/opencode-linux-x64-$OPENCODE_VERSION.tgz" -C "$CACHE/opencode-linux-x64" \
    --strip-components=1
  dpkg -x "$work"/ripgrep_*.deb "$CACHE/ripgrep"
fi
{ [ -x "$BIN" ] && [ -x "$RG" ]; } || { echo "heavy opencode: $BIN or $RG missing" >&2; exit 1; }
check_home="$(mktemp -d)"
HOME="$check_home" "$BIN" --version >/dev/null || {
  rm -rf "$check_home"
  echo "heavy opencode: $BIN does not run" >&2
  exit 1
}
rm -rf "$check_home"
"$RG" --version >/dev/null
echo "$CACHE"
