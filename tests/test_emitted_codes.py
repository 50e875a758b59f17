"""Every rule holds its check, and every code a grammar names is a rule it may report.

Checks report rule objects (rules/hooks.py); a code string left in a checker would be a
finding a typo could silence. The grammars' sources are read for the codes they name (the
rule modules' own ``define``), every rule of a grammar must be subscribed to a moment of its
checker, and ``_emit`` refuses a code the catalog lacks (tested here by emitting one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import FAMILIES, GRAMMARS, RULES, package_of

RULES_DIR = Path(__file__).resolve().parents[1] / "sseconform" / "rules"
#: A code literal where a checker emits, holds or looks up a finding.
#: A rule code as a string literal, of any family the catalog has.
CODE = re.compile(r"""["']([""" + "".join(FAMILIES) + r"""]\d{3})["']""")


def _codes_named_in(path: Path) -> set[str]:
    return set(CODE.findall(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_every_code_a_checker_names_is_a_rule_it_may_report(grammar: str) -> None:
    package = RULES_DIR / package_of(grammar)
    named: set[str] = set()
    for path in [*package.glob("*.py"), *package.glob("rules/*.py")]:
        named |= _codes_named_in(path)
    assert named, grammar
    unknown = sorted(named - set(RULES))
    assert not unknown, f"{grammar}: codes with no rule: {unknown}"
    foreign = sorted(c for c in named if not RULES[c].applies_to(grammar))
    assert not foreign, f"{grammar}: codes of another grammar: {foreign}"


def test_the_shared_plumbing_names_only_rules() -> None:
    for path in (RULES_DIR / "base.py", RULES_DIR / "schema.py", RULES_DIR / "usage.py"):
        if path.is_file():
            unknown = sorted(_codes_named_in(path) - set(RULES))
            assert not unknown, (path.name, unknown)


def test_a_mistyped_code_is_an_error_not_a_silent_drop() -> None:
    checker = Checker(Settings(select=["W"]))
    checker._emit("W001", "known, enabled", None)
    checker._emit("S030", "known, not selected: dropped", None)
    with pytest.raises(ValueError, match="no rule 'Q999'"):
        checker._emit("Q999", "a typo", None)
    assert [d.code for d in checker.findings] == ["W001"]


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_every_rule_of_a_hooked_grammar_holds_its_check(grammar: str) -> None:
    """The grammar's rules hold their checks beside their docs (rules/hooks.py): each is
    subscribed to a moment of its checker, and its checker names no code by string."""
    import importlib

    package = package_of(grammar)
    module = importlib.import_module(f"sseconform.rules.{package}.hooks")
    hooks = module.HOOKS
    own = {c for c, r in RULES.items() if r.grammar == hooks.grammar}
    more = getattr(module, "WS_HOOKS", None)  # a transport's moments (responses' WebSocket)
    held = {r.code for r in hooks.rules()} | {r.code for r in (more.rules() if more else [])}
    assert held == own
    for path in (RULES_DIR / package).glob("*.py"):
        assert not _codes_named_in(path), path.name


def test_every_shared_rule_holds_its_check() -> None:
    """W, J and H hold their checks too: a shared moment's check (rules/shared/hooks.py), or
    the decoder anomaly the wire rule reports; every anomaly kind the decoder has has its
    rule, and no code is found elsewhere."""
    from sseconform.rules.shared.hooks import ANOMALIES, HOOKS
    from sseconform.sse import events as kinds

    shared = {c for c, r in RULES.items() if r.grammar == "any"}
    held = {r.code for r in HOOKS.rules()} | {a.rule.code for a in ANOMALIES.values()}
    assert len(shared) >= 25 and held == shared, sorted(shared ^ held)
    every_kind = {getattr(kinds, n) for n in kinds.__all__ if n.isupper()}
    assert set(ANOMALIES) == every_kind


def test_no_rule_code_outside_its_rule_module() -> None:
    """A code is named only by its rule module and the catalog: every other module reports
    and looks rules up by object (docstrings may cite codes as examples)."""
    import ast

    code = re.compile(r"[A-Z]\d{3}")
    CATALOG = Path("rules/catalog.py")
    found: list[str] = []
    for path in (RULES_DIR.parent).rglob("*.py"):
        rel = path.relative_to(RULES_DIR.parent)
        if (len(rel.parts) == 4 and rel.parts[0] == rel.parts[2] == "rules") or rel == CATALOG:
            continue  # a rule module (rules/<grammar>/rules/*.py) names its own code
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        for n in ast.walk(tree):
            if not isinstance(n, ast.Constant) or not isinstance(n.value, str):
                continue
            if id(n) not in docs and code.fullmatch(n.value):
                found.append(f"{rel}:{n.lineno}: {n.value}")
    assert not found, found
    assert len(list(RULES_DIR.parent.rglob("*.py"))) > 300  # the walk read the package


def test_the_catalog_loads_one_grammar_and_lists_every_rule_in_one_order() -> None:
    """A checker loads its grammar's rules alone; asking for the whole table then lists
    every rule in the same order, whichever grammar a process checked first."""
    import subprocess
    import sys

    show = (
        "from sseconform.rules.grammars import checker_for\n"
        "from sseconform.rules.catalog import RULES\n"
        "checker_for({g!r})\n"
        "print(','.join(sorted({{r.grammar for r in dict.values(RULES)}})))\n"
        "print(' '.join(RULES))\n"
    )
    runs = {}
    for g in ("gemini", "chat", "anthropic"):
        out = subprocess.run(
            [sys.executable, "-c", show.format(g=g)], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        loaded, listed = out
        assert set(loaded.split(",")) == {"any", g}, (g, loaded)  # nothing else loaded
        runs[g] = listed
    assert runs["gemini"] == runs["chat"] == runs["anthropic"]
