#!/usr/bin/env bash
# Installs LLM Proxy Server (PyPI llm-proxy-server) at a pinned version, with the extras for its
# Anthropic and Google providers, into a venv of its own, from PyPI only: into the folder given
# (new, empty, or a venv, which is replaced), else into a cache outside the clone. Idempotent: a
# venv whose proxy imports is left as it is. Prints the venv folder (absolute) on its last line.
#
#   export SSECONFORM_LPS="$(bash tests/gate/lps/install.sh | tail -n 1)"   # CI's cache
#   bash tests/gate/lps/install.sh lps-venv                                  # ./lps-venv
#
# Pinned with it: the libraries that make its upstream calls (ai-microcore, and the provider
# SDKs it drives), whose versions decide most of what the gate measures; llm-proxy-server's
# own requirements admit newer ones.
set -euo pipefail

LPS_VERSION=3.3.2
PINS=(
  "llm-proxy-server[anthropic,google]==$LPS_VERSION"
  "ai-microcore==6.9.0"
  "openai==2.54.0"
  "anthropic==1.17.0"
  "google-genai==2.34.0"
)
VENV="${1:-${TMPDIR:-/tmp}/sseconform-ci-lps-$LPS_VERSION}"

installed() {
  [ -x "$VENV/bin/llm-proxy-server" ] && "$VENV/bin/python" -c "import lm_proxy" 2>/dev/null
}

if ! installed; then
  # a folder given must be new, empty or a venv: --clear empties it, whatever it holds
  if [ $# -gt 0 ] && [ -n "$(ls -A "$VENV" 2>/dev/null)" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
    echo "llm-proxy-server: $VENV holds files and is not a venv: give a new folder" >&2
    exit 1
  fi
  python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --quiet "${PINS[@]}" >&2
fi
installed || { echo "llm-proxy-server: $VENV does not import it" >&2; exit 1; }
cd "$VENV" && pwd
