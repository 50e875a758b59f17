"""Qwen Code's part of the heavy matrix is current, on the three grammars it speaks (chat,
anthropic, gemini: tests/interop/heavy/qwen.py): a file of its own, so its runs go to a test
worker of their own, as Gemini CLI's do.

On chat Qwen Code is run over ``QWEN_CASES`` only (one fail case per chat rule that is an error,
and three valid streams; qwen.py says which and why: a run costs about 2 s of CPU), on anthropic
and gemini over every case; its rows are those cases, and CI runs the ones that changed and a
sample of the rest (test_heavy_matrix.py says how).

Needs ``bash tests/interop/heavy/install_qwen.sh`` (pinned versions, a cache of its own outside
the clone); skipped when it is absent, unless ``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import pytest

from sseconform.rules.catalog import RULES, Severity
from tests.interop.heavy.clients import heavy_clients
from tests.interop.heavy.qwen import QWEN_CASES
from tests.interop.heavy.test_heavy_matrix import assert_current
from tests.interop.matrix.cases import discover
from tests.interop.matrix.clients import Client
from tests.interop.matrix.run import load

QWEN_CODE = "qwen-code"
#: An error rule left out of the subset, with the reason (qwen.py's QWEN_CASES says it too).
LEFT_OUT = {"N003": "an unknown finish string, as F006's, and Qwen Code reports no finish"}


def test_the_subset_is_one_case_per_error_rule() -> None:
    """Every case of the subset exists, and its fail cases are one per chat rule that is an
    error (but ``LEFT_OUT``): a renamed case, or a new error rule, shows here."""
    cases = {case.id for case in discover("chat")}
    assert set(QWEN_CASES) <= cases, sorted(set(QWEN_CASES) - cases)
    assert len(set(QWEN_CASES)) == len(QWEN_CASES)
    codes = [c.split("/", 1)[1].split("-", 1)[0] for c in QWEN_CASES if c.startswith("fail/")]
    assert len(codes) == len(set(codes)), "one fail case per rule"
    errors = {
        code
        for code, rule in RULES.items()
        if rule.grammar == "chat" and rule.severity is Severity.ERROR
    }
    with_cases = {c.split("/", 1)[1].split("-", 1)[0] for c in cases if c.startswith("fail/")}
    assert set(codes) == (errors & with_cases) - set(LEFT_OUT)


def test_the_matrix_rows_are_the_subset() -> None:
    committed = load("chat")["clients"].get(QWEN_CODE)
    assert committed is not None, (
        "run python -m tests.interop.matrix.run --grammar chat --clients qwen-code --heavy"
    )
    assert set(committed["cases"]) == set(QWEN_CASES)


@pytest.mark.parametrize(
    "client",
    [c for c in heavy_clients() if c.name == QWEN_CODE],
    ids=lambda c: f"{c.grammar}-{c.name}",
)
def test_qwen_code_matrix_is_current(client: Client) -> None:
    assert_current(client)
