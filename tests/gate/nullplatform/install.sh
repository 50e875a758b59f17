#!/usr/bin/env bash
# Installs nullplatform's LLM Gateway (npm @nullplatform/llm-gateway) at the version
# package.json pins, with package-lock.json's tree, from the npm registry only, no install
# scripts: into the folder given (new, empty, or one this script installed into, which is
# replaced), else into a cache outside the clone. Idempotent: a folder whose entry point is in
# place and whose lock is this folder's is left as it is. Prints the folder (absolute) on its
# last line.
#
#   export SSECONFORM_NULLPLATFORM="$(bash tests/gate/nullplatform/install.sh | tail -n 1)"
#   bash tests/gate/nullplatform/install.sh nullplatform                 # into ./nullplatform
#
# Why an `overrides` entry (package.json): the gateway depends on @nullplatform/llm-gateway-sdk
# ^2.0.0, whose only release, 2.0.2, depends on itself at ^1.0.0, a version the registry does
# not have, so a plain `npm install @nullplatform/llm-gateway` fails (ETARGET). The override
# makes that inner dependency the 2.0.2 beside it.
set -euo pipefail

NULLPLATFORM_VERSION=2.0.11
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${1:-${TMPDIR:-/tmp}/sseconform-ci-nullplatform-$NULLPLATFORM_VERSION}"
ENTRY="$CACHE/node_modules/@nullplatform/llm-gateway/dist/cli.js"

installed() { [ -f "$ENTRY" ] && cmp -s "$HERE/package-lock.json" "$CACHE/package-lock.json"; }

if ! installed; then
  # a folder given must be new, empty or one of this script's: it is removed, whatever it holds
  if [ $# -gt 0 ] && [ -n "$(ls -A "$CACHE" 2>/dev/null)" ] \
    && ! grep -qs '"name": "sseconform-gate-nullplatform"' "$CACHE/package.json"; then
    echo "nullplatform llm-gateway: $CACHE holds files of its own: give a new folder" >&2
    exit 1
  fi
  rm -rf "$CACHE"
  mkdir -p "$CACHE"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$CACHE/"
  (cd "$CACHE" && npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier >&2)
fi
installed || { echo "nullplatform llm-gateway: $ENTRY is missing" >&2; exit 1; }
cd "$CACHE" && pwd
