"""The gate's own finding families, each a module of rules registered in the catalog with
their docs (what, why, which clients break, fix), as the grammar rules keep theirs: what
``gate``, ``diff`` and ``load`` report about a gateway against its upstream, besides the
grammar. The timing family is :mod:`sseconform.gate.timing_rules` (a judgement per rule).

The grader reports a finding by its rule object (``g.add(transport.SILENT, ...)``), never by
a code string, so a typo cannot make a finding no page explains.
"""

from __future__ import annotations

from sseconform.gate import timing_rules
from sseconform.gate.rules import diff, expect, history, request, transport, upstream
from sseconform.rules.catalog import GATE_FAMILIES, GATE_RULES, Rule

__all__ = [
    "FAMILIES",
    "budget",
    "diff",
    "expect",
    "history",
    "ordered",
    "request",
    "timing_rules",
    "transport",
    "upstream",
]

#: What each family is about, in a sentence (the site's index, ``sseconform rules``).
FAMILIES = GATE_FAMILIES


def ordered() -> list[Rule]:
    """Every gate rule, family by family (timing first, in the order its findings are
    reported), as ``sseconform rules`` and the site list them."""
    order = list(FAMILIES)
    timing = [GATE_RULES[t.key] for t in timing_rules.RULES]
    rest = [r for r in GATE_RULES.values() if r.family != "timing"]
    return timing + sorted(rest, key=lambda r: order.index(r.family))


def budget(rule: Rule) -> str:
    """What a timing rule's head says of its budget (``budget: first-token``), else ``""``."""
    if rule.family != "timing":
        return ""
    t = timing_rules.find(rule.code)
    return f"budget: {t.budget}" if t is not None and t.budget else "no budget"
