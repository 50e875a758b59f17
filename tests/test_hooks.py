"""rules/hooks.py: a rule's check subscribed to its grammar's moments, and only the enabled
rules' checks in a checker's table (a rule left out by --select costs nothing)."""

from __future__ import annotations

import pytest

from sseconform import Settings, check_bytes
from sseconform.rules.catalog import RULES
from sseconform.rules.hooks import Hooks, Moment
from tests.conftest import CASES


def test_a_check_is_called_only_for_an_enabled_rule() -> None:
    hooks = Hooks("open-responses")
    end: Moment[object, [int]] = hooks.moment("end", "(n): the end")
    calls: list[str] = []
    end.on(RULES["O005"])(lambda c, n: calls.append(f"O005 {n}"))
    end.on(RULES["O011"])(lambda c, n: calls.append(f"O011 {n}"))
    assert [r.code for r in hooks.rules()] == ["O005", "O011"]
    table = hooks.table(frozenset({"O011"}))
    assert end.wanted(table) and not end.wanted(hooks.table(frozenset()))
    end.fire(table, None, 7)
    assert calls == ["O011 7"]


def test_an_unknown_or_repeated_moment_is_refused_at_import() -> None:
    hooks = Hooks("open-responses")
    hooks.moment("end", "(): the end")
    with pytest.raises(ValueError, match="O005: no moment 'ending'"):
        hooks.subscribe("ending", RULES["O005"], lambda c: None)
    with pytest.raises(ValueError, match="moment 'end' is already declared"):
        hooks.moment("end", "(): again")


def test_every_moment_is_typed_and_fired() -> None:
    """Each grammar's moments are Moment objects named in its hooks module, and its checker
    fires each one by that object (no moment is named by a string outside its hooks)."""
    import importlib
    from pathlib import Path

    from sseconform.rules.catalog import GRAMMARS, package_of

    for grammar in GRAMMARS:
        mod = importlib.import_module(f"sseconform.rules.{package_of(grammar)}.hooks")
        declared = {n for n, v in vars(mod).items() if isinstance(v, Moment)}
        tables = [mod.HOOKS, *([mod.WS_HOOKS] if hasattr(mod, "WS_HOOKS") else [])]
        assert declared and len(declared) == sum(len(t.moments) for t in tables), grammar
        folder = Path(mod.__file__ or "").parent
        source = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.py"))
        unfired = sorted(n for n in declared if f"{n}.fire(" not in source)
        assert not unfired, (grammar, unfired)
        assert "HOOKS.call" not in source and '_at["' not in source, grammar


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
