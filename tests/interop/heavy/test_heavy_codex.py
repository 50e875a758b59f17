"""Codex CLI's part of the heavy matrix is current (its grammar and the open-responses
profile of it): test_heavy_matrix.py holds Claude Code's and test_heavy_gemini.py Gemini
CLI's, a file each so the long runs go to separate test workers."""

from __future__ import annotations

import pytest

from tests.interop.heavy.clients import heavy_clients
from tests.interop.heavy.test_heavy_matrix import assert_current
from tests.interop.matrix.clients import Client


@pytest.mark.parametrize(
    "client",
    [c for c in heavy_clients() if c.name == "codex"],
    ids=lambda c: f"{c.grammar}-{c.name}",
)
def test_codex_matrix_is_current(client: Client) -> None:
    assert_current(client)
