"""Rules that hold their own checks, subscribed to the moments of their grammar's checker.

A rule module defines its rule (``catalog.define``) and, beside it, the function that finds
it, subscribed to the moments of a stream it is about (``HOOKS.on(RULE, "end")``). The
grammar's checker keeps the state (what the stream has said so far) and, at each moment,
calls the checks of the enabled rules, in the order their modules were imported. A check
reads the checker's public state and reports through ``checker.report(RULE, ...)``: rules are
objects, not strings, and a rule that is not selected costs nothing (it is not in the table).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Rule

if TYPE_CHECKING:
    from sseconform.rules.schema import SchemaViolation

__all__ = ["Check", "Hooks"]

#: A rule's check: called with the checker, then the moment's arguments (each moment's
#: signature is documented where its hooks are declared).
Check = Callable[..., None]
#: A rule's claim on a schema violation: (the event's type or the schema's name, the
#: violation, the event's object) -> the finding's message when the rule owns that place,
#: else None.
Claim = Callable[[str, "SchemaViolation", dict[str, Any]], "str | None"]


class Hooks:
    """One grammar's moments, and the rules' checks subscribed to each."""

    def __init__(self, grammar: str, moments: dict[str, str]) -> None:
        self.grammar = grammar
        #: moment -> what it is and what its checks are called with
        self.moments = moments
        self._subscribed: dict[str, list[tuple[Rule, Check]]] = {m: [] for m in moments}
        self._claims: list[tuple[Rule, Claim]] = []

    def on(self, rule: Rule, *moments: str) -> Callable[[Check], Check]:
        """Subscribe the decorated function to ``moments``, as ``rule``'s check."""
        for m in moments:
            if m not in self.moments:
                raise ValueError(f"{rule.code}: no moment {m!r} in the {self.grammar} grammar")

        def subscribe(fn: Check) -> Check:
            for m in moments:
                self._subscribed[m].append((rule, fn))
            return fn

        return subscribe

    def claims(self, rule: Rule) -> Callable[[Claim], Claim]:
        """Make the decorated function ``rule``'s claim on schema violations: a violation at a
        place a rule owns is that rule's finding (or nothing, when the rule is not enabled),
        never the generic schema finding (J003)."""

        def register(fn: Claim) -> Claim:
            self._claims.append((rule, fn))
            return fn

        return register

    def owner(self, kind: str, v: SchemaViolation, obj: dict[str, Any]) -> tuple[Rule, str] | None:
        """The rule that owns a schema violation, and its message (None: no rule does)."""
        for rule, fn in self._claims:
            said = fn(kind, v, obj)
            if said is not None:
                return rule, said
        return None

    def rules(self) -> list[Rule]:
        """Every rule with a check or a claim here, once, in subscription order."""
        seen: dict[str, Rule] = {}
        for subs in self._subscribed.values():
            for rule, _ in subs:
                seen.setdefault(rule.code, rule)
        for rule, _ in self._claims:
            seen.setdefault(rule.code, rule)
        return list(seen.values())

    def table(self, enabled: frozenset[str]) -> dict[str, tuple[Check, ...]]:
        """The checks to call at each moment, for the enabled rules (built once per checker)."""
        return {
            m: tuple(fn for rule, fn in subs if rule.code in enabled)
            for m, subs in self._subscribed.items()
        }

    @staticmethod
    def call(checks: tuple[Check, ...], *args: Any) -> None:
        for fn in checks:
            fn(*args)
