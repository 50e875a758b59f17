"""Rules that hold their own checks, subscribed to the moments of their grammar's checker.

A rule module defines its rule (``catalog.define``) and, beside it, the function that finds
it, subscribed to a moment of the stream it is about (``@END.on(RULE)``). A moment is an
object that carries its arguments' types (a :class:`Moment` declared in the grammar's
``hooks.py``), so strict mypy checks every check against the checker that fires it
(``END.fire(table, checker)``). The grammar's checker keeps the state (what the stream has
said so far) and, at each moment, calls the checks of the enabled rules, in the order their
modules were imported. A check reads the checker's public state and reports through
``checker.report(RULE, ...)``: rules are objects, not strings, and a rule that is not
selected costs nothing (it is not in the table).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

from sseconform.rules.catalog import Rule

if TYPE_CHECKING:
    from sseconform.rules.schema import SchemaViolation

__all__ = ["Check", "Hooks", "Moment", "Table"]

#: A rule's check as the table holds it (each moment types its own: :class:`Moment`).
Check = Callable[..., None]
#: The enabled rules' checks at each moment, built once per checker (:meth:`Hooks.table`).
Table = dict[str, tuple[Check, ...]]
#: A rule's claim on a schema violation: (the event's type or the schema's name, the
#: violation, the event's object) -> the finding's message when the rule owns that place,
#: else None.
Claim = Callable[[str, "SchemaViolation", dict[str, Any]], "str | None"]

C = TypeVar("C")
P = ParamSpec("P")


class Moment(Generic[C, P]):
    """One moment of a grammar's stream: ``C`` the checker that fires it, ``P`` what it is
    called with after the checker. Its checks must take exactly that (mypy checks them)."""

    __slots__ = ("doc", "hooks", "name")

    def __init__(self, hooks: Hooks, name: str, doc: str) -> None:
        self.hooks = hooks
        self.name = name
        self.doc = doc

    def on(
        self, rule: Rule
    ) -> Callable[[Callable[Concatenate[C, P], None]], Callable[Concatenate[C, P], None]]:
        """Subscribe the decorated function to this moment, as ``rule``'s check."""

        def subscribe(fn: Callable[Concatenate[C, P], None]) -> Callable[Concatenate[C, P], None]:
            self.hooks.subscribe(self.name, rule, fn)
            return fn

        return subscribe

    def fire(self, table: Table, checker: C, /, *args: P.args, **kwargs: P.kwargs) -> None:
        """Call the enabled rules' checks of this moment."""
        for fn in table[self.name]:
            fn(checker, *args, **kwargs)

    def wanted(self, table: Table) -> bool:
        """Does any enabled rule check this moment? (to skip work only its checks need)"""
        return bool(table[self.name])


class Hooks:
    """One grammar's moments, and the rules' checks subscribed to each."""

    def __init__(self, grammar: str) -> None:
        self.grammar = grammar
        #: moment name -> the moment (what it is and what its checks are called with)
        self.moments: dict[str, Moment[Any, ...]] = {}
        self._subscribed: dict[str, list[tuple[Rule, Check]]] = {}
        self._claims: list[tuple[Rule, Claim]] = []

    def moment(self, name: str, doc: str) -> Moment[Any, ...]:
        """Declare a moment (its type is given where it is assigned)."""
        if name in self.moments:
            raise ValueError(f"moment {name!r} is already declared in the {self.grammar} grammar")
        m: Moment[Any, ...] = Moment(self, name, doc)
        self.moments[name] = m
        self._subscribed[name] = []
        return m

    def subscribe(self, name: str, rule: Rule, fn: Check) -> None:
        if name not in self.moments:
            raise ValueError(f"{rule.code}: no moment {name!r} in the {self.grammar} grammar")
        self._subscribed[name].append((rule, fn))

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

    def table(self, enabled: frozenset[str]) -> Table:
        """The checks to call at each moment, for the enabled rules (built once per checker)."""
        return {
            m: tuple(fn for rule, fn in subs if rule.code in enabled)
            for m, subs in self._subscribed.items()
        }
