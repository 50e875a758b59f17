#!/usr/bin/env bash
# Installs the heavy interop clients (Claude Code, Codex CLI) at pinned versions into a cache
# outside the clone, from the npm registry only, without install scripts. Idempotent: a cache
# whose binaries are in place is left as it is. Prints the cache folder on its last line.
#
#   bash tests/interop/heavy/install.sh            # prints the folder
#   export SSECONFORM_HEAVY_CLIENTS="$(bash tests/interop/heavy/install.sh | tail -n 1)"
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.330
CODEX_VERSION=0.169.0
CACHE="${TMPDIR:-/tmp}/sseconform-ci-heavy-clients-claude-code-$CLAUDE_CODE_VERSION-codex-$CODEX_VERSION"

# The native binaries ship inside per-platform packages, which npm picks as optional
# dependencies; the packages' postinstall scripts only copy or link them, so they are skipped
# and the binaries are run from the platform packages directly.
CLAUDE_BIN="$CACHE/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
CODEX_BIN_DIR="$CACHE/node_modules/@openai/codex-linux-x64/vendor"

installed() {
  [ -x "$CLAUDE_BIN" ] && [ -n "$(find "$CODEX_BIN_DIR" -type f -name codex -perm -u+x 2>/dev/null | head -n 1)" ]
}

if ! installed; then
  mkdir -p "$CACHE"
  cat >"$CACHE/package.json" <<JSON
{
  "name": "sseconform-heavy-clients",
  "version": "0.0.0",
  "private": true,
  "dependencies": {
    "@anthropic-ai/claude-code": "$CLAUDE_CODE_VERSION",
    "@openai/codex": "$CODEX_VERSION"
  }
}
JSON
  (cd "$CACHE" && npm install --ignore-scripts --no-audit --no-fund --no-update-notifier \
    --no-package-lock >&2)
fi
installed || { echo "heavy clients: binaries missing under $CACHE" >&2; exit 1; }
echo "$CACHE"
