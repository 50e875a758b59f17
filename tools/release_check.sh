#!/usr/bin/env bash
# The release check: what publishing would upload, built and verified, so that publishing is
# one step (`twine upload OUT/dist/*`) whenever the project publishes.
#
#   bash tools/release_check.sh [OUT]     # OUT: a folder of its own (default: a temp folder)
#
# 1. the sdist, then the wheel built from that sdist (`python -m build`: a file the sdist
#    lacks fails here, not on a user's machine);
# 2. `twine check --strict` on both (the metadata and README the package index renders);
# 3. the wheel installed alone in a fresh venv and run from outside the clone: the README's
#    first command on copies of its recordings (the gateway-bugs one must fail), then a
#    command of each kind (check's SARIF, rules, gate's help and a profile's config).
# CI (`.ci/run`) runs it on every change. The build tools are pinned and cached outside the
# clone.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
tools="${TMPDIR:-/tmp}/sseconform-release-tools-build1.6.1-twine7.0.0"
if [ ! -x "$tools/bin/twine" ]; then
  python3 -m venv --clear "$tools"
  "$tools/bin/python" -m pip install --quiet 'build==1.6.1' 'twine==7.0.0'
fi
rm -rf "$out/dist" "$out/venv" "$out/try"
"$tools/bin/python" -m build --outdir "$out/dist" . > "$out/build.log" 2>&1 || {
  cat "$out/build.log" >&2
  exit 1
}
"$tools/bin/twine" check --strict "$out"/dist/*

python3 -m venv --clear "$out/venv"
"$out/venv/bin/python" -m pip install --quiet --upgrade pip
"$out/venv/bin/python" -m pip install --quiet "$out"/dist/sseconform-*.whl
mkdir -p "$out/try/recordings"
cp -r recordings/chat recordings/gateway-bugs "$out/try/recordings/"
(
  cd "$out/try"
  sseconform=../venv/bin/sseconform
  $sseconform --version
  # the README's first command: two conforming streams, one gateway's bugs (exit 1)
  if $sseconform check recordings/chat recordings/gateway-bugs > check.txt; then
    echo "release check: the gateway-bugs recordings passed from the wheel" >&2
    exit 1
  fi
  grep -q "FAILED" check.txt || { cat check.txt >&2; exit 1; }
  $sseconform check recordings/chat
  if $sseconform check --format sarif recordings/gateway-bugs > report.sarif; then
    echo "release check: the SARIF run passed the gateway-bugs recordings" >&2
    exit 1
  fi
  $sseconform rules --format json > /dev/null
  $sseconform gate --help > /dev/null
  $sseconform gate --gateway-profile litellm --print-gateway-config > /dev/null
  $sseconform demo-gateway --list-bugs > /dev/null
)
echo "release check: ready to publish: $(cd "$out/dist" && echo *)"
