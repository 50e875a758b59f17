"""The shape of a rule's docs: what it checks, why, which real clients break, an example, the
fix. Each rule's module fills one in, beside its code (``catalog.define``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """The prose behind a rule, printed by `sseconform rule CODE`."""

    what: str
    why: str
    clients: str
    example: str
    fix: str
