#!/usr/bin/env bash
# Installs claude-code-proxy (PyPI claude-code-proxy) at a pinned version into a venv of its own,
# from PyPI only: into the folder given (new, empty, or a venv, which is replaced), else into a
# cache outside the clone. The venv is its own because the package pins LiteLLM 1.71.1 and
# installs a top-level package named `server`. uvicorn, which serves its ASGI app on 127.0.0.1
# (its own command binds 0.0.0.0:8082), comes with it as a dependency.
# The package pins LiteLLM, httpx and uvicorn but leaves FastAPI (and so Starlette, which
# streams its answers) and the OpenAI client LiteLLM calls chat upstreams with open: those are
# pinned here at the versions measured, so that a new release of one does not move the grades.
# Idempotent: a venv holding these versions is left as it is. Prints the venv folder (absolute)
# on its last line.
#
#   export SSECONFORM_CCP="$(bash tests/gate/ccp/install.sh | tail -n 1)"   # CI's cache
#   bash tests/gate/ccp/install.sh ccp-venv                                  # ./ccp-venv
set -euo pipefail

CCP_VERSION=0.1.5
VENV="${1:-${TMPDIR:-/tmp}/sseconform-ci-ccp-$CCP_VERSION}"
PINS=("claude-code-proxy==$CCP_VERSION" "openai==3.57.0" "fastapi==0.165.0" "starlette==1.10.0")

# by the installed versions: importing the proxy's module imports LiteLLM, seconds of work
installed() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "${PINS[@]}" 2>/dev/null <<'PY'
import importlib.metadata, importlib.util, sys
for pin in sys.argv[1:]:
    name, _, version = pin.partition("==")
    assert importlib.metadata.version(name) == version, pin
assert importlib.util.find_spec("uvicorn") is not None
PY
}

if ! installed; then
  # a folder given must be new, empty or a venv: --clear empties it, whatever it holds
  if [ $# -gt 0 ] && [ -n "$(ls -A "$VENV" 2>/dev/null)" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
    echo "claude-code-proxy: $VENV holds files and is not a venv: give a new folder" >&2
    exit 1
  fi
  python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}" >&2
fi
installed || { echo "claude-code-proxy: $VENV does not hold ${PINS[*]}" >&2; exit 1; }
cd "$VENV" && pwd
