"""The heavy clients' part of the matrix is current: Claude Code here, Codex CLI in
test_heavy_codex.py (a file each, so the two long runs go to two test workers), one run per
case.

A whole CLI run costs seconds of CPU, so at the version its rows were measured at a heavy
client is run over the cases that changed since (each row keeps a digest of its case's bytes
and corrections) and a sample of the rest, three per outcome (``check.heavy_subset``); every
case with ``SSECONFORM_HEAVY_FULL=1``, when the pinned version is not the committed one, and
always by the refresh command (``python -m tests.interop.matrix.run --heavy``).

Needs ``bash tests/interop/heavy/install.sh`` (pinned versions, a cache outside the clone);
skipped when they are absent, unless ``SSECONFORM_REQUIRE_HEAVY=1``. Select with
``pytest tests/interop/heavy``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.interop.heavy.clients import CLAUDE_CODE_VERSION, CODEX_VERSION, heavy_clients
from tests.interop.matrix.check import problems
from tests.interop.matrix.clients import Client

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
CLAUDE_CODE = "claude-code"
INSTALL = Path(__file__).resolve().parent / "install.sh"


def test_install_script_pins_the_same_versions() -> None:
    script = INSTALL.read_text()
    assert re.search(rf"^CLAUDE_CODE_VERSION={re.escape(CLAUDE_CODE_VERSION)}$", script, re.M)
    assert re.search(rf"^CODEX_VERSION={re.escape(CODEX_VERSION)}$", script, re.M)


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
