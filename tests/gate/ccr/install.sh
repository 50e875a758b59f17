#!/usr/bin/env bash
# Installs claude-code-router (npm @musistudio/claude-code-router) at a pinned version, from the
# npm registry only: into the folder given (new, empty, or one this script installed into, which
# is replaced), else into a cache outside the clone. Idempotent: a folder whose entry point and
# native sqlite binding are in place is left as it is. Prints the folder (absolute) on its last
# line.
#
#   export SSECONFORM_CCR="$(bash tests/gate/ccr/install.sh | tail -n 1)"   # CI's cache
#   bash tests/gate/ccr/install.sh ccr                                       # ./ccr
#
# Why by hand: the package depends on two packages of its own organisation that the registry
# answers 404 for, so `npm install @musistudio/claude-code-router` fails. The gateway they would
# provide is bundled in its dist files already. So its runtime dependencies are installed first
# (better-sqlite3 builds its native binding against this machine's Node.js headers, since its
# prebuilt binaries live outside the registry), then the package's tarball is unpacked beside
# them, where Node's module resolution finds them.
set -euo pipefail

CCR_VERSION=3.1.1
CACHE="${1:-${TMPDIR:-/tmp}/sseconform-ci-ccr-$CCR_VERSION}"
ENTRY="$CACHE/node_modules/@musistudio/claude-code-router/dist/main/cli.js"
BINDING="$CACHE/node_modules/better-sqlite3/build/Release/better_sqlite3.node"

installed() { [ -f "$ENTRY" ] && [ -f "$BINDING" ]; }

if ! installed; then
  # a folder given must be new, empty or one of this script's: it is removed, whatever it holds
  if [ $# -gt 0 ] && [ -n "$(ls -A "$CACHE" 2>/dev/null)" ] \
    && ! grep -qs '"name": "sseconform-ccr"' "$CACHE/package.json"; then
    echo "claude-code-router: $CACHE holds files of its own: give a new folder" >&2
    exit 1
  fi
  rm -rf "$CACHE"
  mkdir -p "$CACHE"
  # the runtime dependencies, at the versions 3.1.1's package.json admits that run on Node 20
  cat >"$CACHE/package.json" <<JSON
{
  "name": "sseconform-ccr",
  "version": "0.0.0",
  "private": true,
  "dependencies": {
    "better-sqlite3": "12.11.1",
    "node-forge": "1.4.0",
    "undici": "7.29.0"
  }
}
JSON
  (cd "$CACHE" && npm_config_build_from_source=true npm install --no-audit --no-fund \
    --no-update-notifier --no-package-lock >&2)
  (
    cd "$CACHE"
    npm pack --silent "@musistudio/claude-code-router@$CCR_VERSION" >/dev/null
    mkdir -p node_modules/@musistudio/claude-code-router
    tar xzf "musistudio-claude-code-router-$CCR_VERSION.tgz" \
      -C node_modules/@musistudio/claude-code-router --strip-components=1
    rm -f "musistudio-claude-code-router-$CCR_VERSION.tgz"
  )
fi
installed || { echo "claude-code-router: $ENTRY or the sqlite binding is missing" >&2; exit 1; }
cd "$CACHE" && pwd
