"""Gemini CLI's part of the heavy matrix is current (the gemini grammar, beside google-genai):
a file of its own, so its run (one CLI run per case, a minute and a half for every case) goes
to a test worker of its own, as Claude Code's and Codex's do; which cases CI runs:
test_heavy_matrix.py.

Needs ``bash tests/interop/heavy/install_gemini.sh`` (pinned versions, a cache of its own
outside the clone); skipped when it is absent, unless ``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import pytest

from tests.interop.heavy.clients import (
    heavy_clients,
)
from tests.interop.heavy.test_heavy_matrix import assert_current
from tests.interop.matrix.clients import Client

GEMINI_CLI = "gemini-cli"


@pytest.mark.parametrize(
    "client",
    [c for c in heavy_clients() if c.name == GEMINI_CLI],
    ids=lambda c: f"{c.grammar}-{c.name}",
)
def test_gemini_cli_matrix_is_current(client: Client) -> None:
    assert_current(client)
