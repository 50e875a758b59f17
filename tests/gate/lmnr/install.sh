#!/usr/bin/env bash
# Installs lmnr-claude-code-proxy (PyPI lmnr-claude-code-proxy, Laminar's tracing proxy for
# Claude Code: a Rust server with Python bindings) at a pinned version into a venv of its own,
# from PyPI only: into the folder given (new, empty, or a venv, which is replaced), else into a
# cache outside the clone. Its one dependency, httpx (its Python side polls the server's health
# with it), is pinned at the version it installed when measured, so that a new release does not
# move the grades. Idempotent: a venv holding these versions is left as it is. Prints the venv
# folder (absolute) on its last line.
#
#   export SSECONFORM_LMNR="$(bash tests/gate/lmnr/install.sh | tail -n 1)"   # CI's cache
#   bash tests/gate/lmnr/install.sh lmnr-venv                                  # ./lmnr-venv
set -euo pipefail

LMNR_VERSION=0.2.0
VENV="${1:-${TMPDIR:-/tmp}/sseconform-ci-lmnr-$LMNR_VERSION}"
PINS=("lmnr-claude-code-proxy==$LMNR_VERSION" "httpx==0.28.1")

installed() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "${PINS[@]}" 2>/dev/null <<'PY'
import importlib.metadata, sys
for pin in sys.argv[1:]:
    name, _, version = pin.partition("==")
    assert importlib.metadata.version(name) == version, pin
from lmnr_claude_code_proxy import ProxyServer  # the compiled server loads
PY
}

if ! installed; then
  # a folder given must be new, empty or a venv: --clear empties it, whatever it holds
  if [ $# -gt 0 ] && [ -n "$(ls -A "$VENV" 2>/dev/null)" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
    echo "lmnr-claude-code-proxy: $VENV holds files and is not a venv: give a new folder" >&2
    exit 1
  fi
  python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" >&2
fi
installed || { echo "lmnr-claude-code-proxy: $VENV does not hold ${PINS[*]}" >&2; exit 1; }
cd "$VENV" && pwd
