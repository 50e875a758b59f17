"""OpenCode's part of the heavy matrix is current: one ``opencode serve`` per grammar it speaks
(chat, anthropic, responses and its open-responses profile, gemini), each case a session of its
own (tests/interop/heavy/opencode.py says how and why). A file of its own, so its runs go to a
test worker of their own; which cases CI runs: test_heavy_matrix.py.

Needs ``bash tests/interop/heavy/install_opencode.sh`` (pinned versions, a cache of its own
outside the clone); skipped when it is absent, unless ``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import pytest

from tests.interop.heavy.clients import heavy_clients
from tests.interop.heavy.test_heavy_matrix import assert_current
from tests.interop.matrix.clients import Client

OPENCODE = "opencode"


@pytest.mark.parametrize(
    "client",
    [c for c in heavy_clients() if c.name == OPENCODE],
    ids=lambda c: f"{c.grammar}-{c.name}",
)
def test_opencode_matrix_is_current(client: Client) -> None:
    assert_current(client)
