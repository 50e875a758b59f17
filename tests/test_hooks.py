"""rules/hooks.py: a rule's check subscribed to its grammar's moments, and only the enabled
rules' checks in a checker's table (a rule left out by --select costs nothing)."""

from __future__ import annotations

import pytest

from sseconform import Settings, check_bytes
from sseconform.rules.catalog import RULES
from sseconform.rules.hooks import Hooks
from tests.conftest import CASES


def test_a_check_is_called_only_for_an_enabled_rule() -> None:
    hooks = Hooks("open-responses", {"end": "(): the end"})
    calls: list[str] = []
    hooks.on(RULES["O005"], "end")(lambda c: calls.append("O005"))
    hooks.on(RULES["O011"], "end")(lambda c: calls.append("O011"))
    assert [r.code for r in hooks.rules()] == ["O005", "O011"]
    table = hooks.table(frozenset({"O011"}))
    Hooks.call(table["end"], None)
    assert calls == ["O011"]


def test_an_unknown_moment_is_refused_at_import() -> None:
    hooks = Hooks("open-responses", {"end": "(): the end"})
    with pytest.raises(ValueError, match="O005: no moment 'ending'"):
        hooks.on(RULES["O005"], "ending")


def test_selection_reaches_the_hooked_rules() -> None:
    body = (CASES / "open-responses" / "fail" / "O005-done-missing" / "stream.sse").read_bytes()
    assert check_bytes(body, grammar="open-responses").codes == {"O005"}
    quiet = check_bytes(body, Settings(ignore=["O005"]), grammar="open-responses")
    assert quiet.codes == set()
    only = check_bytes(body, Settings(select=["spec-framing"]), grammar="open-responses")
    assert only.codes == {"O005"}


def test_a_claimed_schema_violation_is_its_rule_s_finding_and_never_j003() -> None:
    """F006 owns a chunk's finish_reason: the violation is F006, and with F006 left out it is
    nothing (not the generic J003)."""
    chunk = (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},'
        b'"finish_reason":null}]}\n\n'
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{},"finish_reason":"done"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    assert "F006" in check_bytes(chunk).codes
    quiet = check_bytes(chunk, Settings(ignore=["F006"])).codes
    assert "F006" not in quiet and "J003" not in quiet


def test_the_owner_of_a_violation_is_found_whatever_is_enabled() -> None:
    from sseconform.rules.chat.hooks import HOOKS
    from sseconform.rules.schema import CHUNK, SchemaViolation

    obj = {"choices": [{"index": 0, "finish_reason": "end_turn"}]}
    v = SchemaViolation(("choices", 0, "finish_reason"), "/choices/0/finish_reason", "raw")
    owner = HOOKS.owner(CHUNK, v, obj)
    assert owner is not None and owner[0].code == "N003"
    assert "map it to 'stop'" in owner[1]
    elsewhere = SchemaViolation(("choices", 0, "logprobs"), "/choices/0/logprobs", "raw")
    assert HOOKS.owner(CHUNK, elsewhere, obj) is None
