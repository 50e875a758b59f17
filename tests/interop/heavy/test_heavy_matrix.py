"""The heavy clients' part of the matrix is current: Claude Code here, Codex CLI in
test_heavy_codex.py (a file each, so the two long runs go to two test workers), one run per
case.

A whole CLI run costs seconds of CPU, so at the version its rows were measured at a heavy
client is run over the cases that changed since (each row keeps a digest of its case's bytes
and corrections) and a sample of the rest, two per outcome (one for Qwen Code:
``check.heavy_subset``); every case with ``SSECONFORM_HEAVY_FULL=1``, when the pinned
version is not the committed one, and always by the refresh command
(``python -m tests.interop.matrix.run --heavy``).

Needs ``bash tests/interop/heavy/install.sh`` (pinned versions, a cache outside the clone);
skipped when they are absent, unless ``SSECONFORM_REQUIRE_HEAVY=1``. Select with
``pytest tests/interop/heavy``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.interop.heavy.clients import (
    CLAUDE_CODE_VERSION,
    CODEX_VERSION,
    GEMINI_CLI_VERSION,
    GEMINI_NODE_VERSION,
    heavy_clients,
)
from tests.interop.heavy.opencode import OPENCODE_VERSION, RIPGREP_VERSION
from tests.interop.heavy.qwen import QWEN_CODE_VERSION, QWEN_NODE_VERSION
from tests.interop.matrix.check import problems
from tests.interop.matrix.clients import Client

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
CLAUDE_CODE = "claude-code"
INSTALL = Path(__file__).resolve().parent / "install.sh"


#: Each install script's pins, as the clients' modules know them.
PINS = {
    "install.sh": {"CLAUDE_CODE_VERSION": CLAUDE_CODE_VERSION, "CODEX_VERSION": CODEX_VERSION},
    "install_gemini.sh": {
        "GEMINI_CLI_VERSION": GEMINI_CLI_VERSION,
        "NODE_VERSION": GEMINI_NODE_VERSION,
    },
    "install_qwen.sh": {"QWEN_CODE_VERSION": QWEN_CODE_VERSION, "NODE_VERSION": QWEN_NODE_VERSION},
    "install_opencode.sh": {
        "OPENCODE_VERSION": OPENCODE_VERSION,
        "RIPGREP_VERSION": RIPGREP_VERSION,
    },
}


@pytest.mark.parametrize("script", sorted(PINS))
def test_install_scripts_pin_the_versions_the_tests_expect(script: str) -> None:
    """A pin changed in one place only would install one version and judge another."""
    text = (INSTALL.parent / script).read_text()
    for name, version in PINS[script].items():
        assert re.search(rf"^{name}={re.escape(version)}(\s|$)", text, re.M), (script, name)


def assert_current(client: Client) -> None:
    """The client's measured rows are the ones in the matrix (skipped, or failed under
    ``SSECONFORM_REQUIRE_HEAVY=1``, where it is not installed)."""
    if client.version() is None:
        if REQUIRE:
            pytest.fail(f"{client.name} is not installed: {client.missing}")
        pytest.skip(f"{client.name} is not installed: {client.missing}")
    found = problems(client.grammar, client)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "client",
    [c for c in heavy_clients() if c.name == CLAUDE_CODE],
    ids=lambda c: f"{c.grammar}-{c.name}",
)
def test_heavy_matrix_is_current(client: Client) -> None:
    assert_current(client)
