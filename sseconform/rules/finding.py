"""The one finding every command reports: ``check``'s rules, the gate's grader (differences,
expectations, transport, upstream, the conversation's history), the timing judge and
``load``'s stream grader all make a :class:`Finding`, and every reporter reads it.

It lives beside the rule catalog so the rules need nothing above them
(:mod:`sseconform.findings` names it for the layers above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sseconform.rules.catalog import RULES, Rule, Severity, lookup
from sseconform.safetext import printable

__all__ = ["SOURCES", "Finding", "KeyParts", "printable", "split_key"]

#: Who found it: a grammar rule (``check``), or one of the gate's families.
SOURCES = ("check", "diff", "expect", "transport", "upstream", "timing", "history")


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding: which rule, how bad, what happened, and where.

    ``source`` and ``code`` name the rule: a grammar rule is ``check`` and its code
    (``E002``); the gate's are a family and a kind (``diff``/``changed``,
    ``timing``/``first-token``), named together as ``diff:changed`` (:attr:`rule_id`).

    One rule for where: a location is where an event starts, so ``check``, ``gate`` and an
    editor jump all land on the same line. ``frame`` (1-based), ``line`` (1-based) and
    ``offset`` (bytes into the body) are those of the first line of the event the finding is
    about; ``pointer`` then says where inside its JSON. A wire finding (W) about a line inside
    an event points at that event too, and its message gives the line and byte when they
    differ. A finding about the end of the stream (no ``[DONE]``, no finish, a silent close,
    an error frame not followed by ``[DONE]``, no event at all) points at the last event of
    the stream, or at line 1, offset 0, no frame when there is no event. A line that belongs
    to no event (a comment between events, an ``id:``-only block, the unterminated tail, the
    byte-order mark) is located at itself, with no frame: it starts a block of its own.
    Findings about the HTTP response or the recording file (H) have no place in the body:
    line 0 (H004's offset is how many body bytes were read before the damage). A gate
    finding may know only a frame, or nothing (``offset`` None), and carries the bytes found
    at its offset (``excerpt``), the content field it compares (``field``), whether the
    baseline accepts it (``known``) and the conversation's turn it was found in.
    """

    code: str
    message: str
    severity: Severity = Severity.ERROR
    source: str = "check"
    frame: int | None = None
    line: int = 0
    offset: int | None = None
    pointer: str = ""
    excerpt: str | None = None  # the stream's bytes at ``offset`` (their first line)
    field: str | None = None  # the content field a difference is about
    known: bool = False  # accepted by the baseline: reported, does not fail
    turn: int = 1  # the conversation's turn (1: the first request, or the only one)

    @classmethod
    def of_rule(
        cls,
        code: str,
        message: str,
        frame: int | None,
        line: int,
        offset: int,
        pointer: str = "",
        severity: Severity | None = None,
    ) -> Finding:
        """A grammar rule's finding, at the rule's severity unless the rule's check says
        another (what it cannot judge without the request, say)."""
        sev = RULES[code].severity if severity is None else severity
        return cls(code, message, sev, "check", frame, line, offset, pointer)

    @classmethod
    def of(cls, rule: Rule, message: str, **where: Any) -> Finding:
        """A finding of any rule (a grammar's or the gate's ``transport:silent``), at the
        rule's severity unless ``severity`` is given; ``where`` holds the other fields."""
        family, _, kind = rule.code.rpartition(":")
        where.setdefault("severity", rule.severity)
        return cls(kind, message, source=family or "check", **where)

    @property
    def rule_id(self) -> str:
        """The rule's name in every catalog: ``E002``, ``diff:changed``, ``timing:silence``."""
        return self.code if self.source == "check" else f"{self.source}:{self.code}"

    @property
    def key(self) -> str:
        """What a baseline names: the rule, a difference with its field
        (``diff:changed:usage.prompt_tokens``, ``request:lost:max_output_tokens``), a later
        turn's after ``turnN:``."""
        key = self.rule_id
        if self.source in ("diff", "request") and self.field:
            key = f"{key}:{self.field}"
        return key if self.turn == 1 else f"turn{self.turn}:{key}"

    @property
    def rule(self) -> Rule:
        """The rule behind the finding: a grammar's (``E002``) or the gate's
        (``transport:aborted``, once the gate's rules are imported)."""
        return lookup(self.rule_id)

    @property
    def name(self) -> str:
        return RULES[self.code].name if self.source == "check" else self.rule_id

    @property
    def invariant(self) -> str | None:
        return RULES[self.code].invariant if self.source == "check" else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of a finding, the same in every command's report (see README,
        "JSON output")."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "invariant": self.invariant,
            "message": self.message,
            "frame": self.frame,
            "line": self.line,
            "offset": self.offset,
            "pointer": self.pointer,
            "key": self.key,
            "source": self.source,
            "excerpt": self.excerpt,
            "field": self.field,
            "known": self.known,
            "turn": self.turn,
        }


@dataclass(frozen=True, slots=True)
class KeyParts:
    """A key as the reports print it (:attr:`Finding.key`), read back into its parts, so
    ``sseconform rule`` finds the rule behind any key a user copies from a report."""

    rule_id: str  # ``E002``, a grammar rule's name, or ``diff:lost`` (lower case)
    detail: str | None = None  # the field a difference or a request parameter is about
    turn: int = 1  # the conversation's turn (``turn2:``)


_TURN = re.compile(r"turn([0-9]{1,6}):(?=.)", re.IGNORECASE)


def split_key(key: str) -> KeyParts:
    """:attr:`Finding.key` read back: ``turn2:diff:lost:reasoning`` is ``diff:lost`` about
    ``reasoning`` in turn 2; a key without a colon is a grammar rule's code or name. The
    parts are not looked up: any string splits, and the caller says when no rule has them."""
    text = key.strip()
    turn = 1
    m = _TURN.match(text)
    if m is not None:
        turn, text = int(m.group(1)), text[m.end() :]
    family, colon, rest = text.partition(":")
    if not colon:
        return KeyParts(text, None, turn)
    kind, colon, detail = rest.partition(":")
    return KeyParts(f"{family.lower()}:{kind.lower()}", detail if colon and detail else None, turn)
