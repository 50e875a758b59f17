#!/usr/bin/env bash
# langchain-openai for the chat client matrix, pinned, in its own venv outside the clone
# (its dependencies stay out of the project's venv). Idempotent. Prints the venv on its last line.
#
#   export SSECONFORM_LANGCHAIN_VENV="$(bash tests/interop/matrix/install_langchain.sh | tail -n 1)"
set -euo pipefail

LANGCHAIN_OPENAI_VERSION=1.7.3
# Pinned with it: langchain-core 1.7.5 and later ask for a certifi newer than the registry had.
PINS=("langchain-openai==$LANGCHAIN_OPENAI_VERSION" "langchain-core==1.7.2" "openai==3.54.0")
VENV="${SSECONFORM_LANGCHAIN_VENV:-${TMPDIR:-/tmp}/sseconform-ci-langchain-openai-$LANGCHAIN_OPENAI_VERSION}"

if ! "$VENV/bin/python" -c "import langchain_openai" >/dev/null 2>&1; then
  python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --quiet "${PINS[@]}" >&2
fi
echo "$VENV"
