"""Every finding the gate can report is a rule in the catalog with its docs: the gate reports
rule objects, so each code it can make — an expectation, a bound, a difference's kind, a
history check, a timing judgement — has a page and ``sseconform rule CODE``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sseconform.gate.grading import BOUNDS
from sseconform.gate.rules import FAMILIES, ordered
from sseconform.gate.scenario import EXPECTS
from sseconform.rules.catalog import GATE_RULES, Rule, doc, lookup
from tests.cli.helpers import run_cli

GATE = Path(__file__).resolve().parents[2] / "sseconform" / "gate"


def test_every_expectation_and_bound_has_its_rule() -> None:
    assert {f"expect:{e}" for e in EXPECTS} <= set(GATE_RULES)
    assert {rule.code for rule, _ in BOUNDS.values()} <= set(GATE_RULES)


def test_every_difference_is_made_with_its_rule() -> None:
    """``gate/diff.py`` makes each ``Difference(field, rule, ...)`` with a diff rule object
    (``diff_rules.LOST``), never a kind as a string a lookup would have to turn into one."""
    named: set[str] = set()
    calls = 0
    for node in ast.walk(ast.parse((GATE / "diff.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Difference":
            calls += 1
            arg = node.args[1]
            assert not isinstance(arg, ast.Constant), ast.unparse(node)
            named |= {
                n.attr
                for n in ast.walk(arg)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == "diff_rules"
            }  # fmt: skip
    assert calls >= 15, calls  # the walk found the calls
    diff_rules = {r.code.split(":")[1].upper() for r in ordered() if r.family == "diff"}
    assert len(named) >= 6 and named <= diff_rules, named - diff_rules


def test_no_gate_module_names_a_finding_by_string() -> None:
    """The grader adds findings by rule object (``g.add(rules.transport.SILENT, ...)``)."""
    for path in GATE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for family in FAMILIES:
            assert f'g.add("{family}"' not in text, path.name
            assert f'source="{family}"' not in text, path.name


@pytest.mark.parametrize("rule", ordered(), ids=lambda r: r.code)
def test_every_gate_rule_is_documented(rule: Rule) -> None:
    code = rule.code
    assert lookup(code) is rule
    d = doc(code)
    for part in (d.what, d.why, d.which_clients, d.fix):
        assert len(part) > 20, (code, part)
    assert lookup(code).summary.endswith(".")


def test_rule_prints_a_gate_rule_with_every_section(tmp_path: Path) -> None:
    for code in ("history:refused", "diff:lost", "timing:silence", "expect:rejected"):
        run = run_cli("rule", code, cwd=tmp_path)
        assert run.code == 0, run.both
        assert run.out.startswith(f"{code} ("), run.out[:80]
        for title in ("What it does", "Why it matters", "Which clients break", "Fix"):
            assert f"## {title}" in run.out, (code, title)
    assert "budget: silence" in run_cli("rule", "timing:silence", cwd=tmp_path).out
    assert run_cli("rule", "history:nothing", cwd=tmp_path).code == 2


def test_every_expectation_a_scenario_can_name_is_a_rule() -> None:
    """An expectation's failure is found by its value in a table, never by a code built at
    run time: every value a suite takes has its rule."""
    from sseconform.gate.rules.expect import BY_EXPECTATION
    from sseconform.gate.scenario import EXPECTS

    assert set(EXPECTS) <= set(BY_EXPECTATION)
    assert all(r.code == f"expect:{name}" for name, r in BY_EXPECTATION.items())
