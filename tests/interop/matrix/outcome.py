"""What a client ended with, and its outcome against the reference reading.

``ok``: the client surfaced what the stream meant: the same text, tool calls (id, name, and
arguments as JSON values) and finish, or, for a stream that carries an error, an error with that
message. A chat refusal counts when the client keeps it as a refusal, or as the text with finish
``content_filter`` (the AI SDK's way).

``wrong-content``: the client finished without an error, but with something a correct stream
would not have given (including a finish or call that the stream left unknowable, see
``reading.py``).

``error``: the client raised (or reported an error part, or exited non-zero)
where the stream meant an answer, or with another message than the stream's error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.interop.matrix.reading import Call, Reading
from tools.measured import ERROR as ERROR  # the generator of measured.json reads them too
from tools.measured import OK as OK
from tools.measured import WRONG as WRONG

OUTCOMES = (OK, WRONG, ERROR)


@dataclass
class Answer:
    """One choice as the client assembled it; ``finish`` is one of reading.FINISHES, or the
    client's own word for it prefixed with ``other:``, or None."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    finish: str | None = None
    refusal: str | None = None  # None: the client has no place for a refusal


@dataclass
class Got:
    """What a client ended with on one case."""

    answers: dict[int, Answer] = field(default_factory=dict)
    raised: str | None = None  # "Type: message", as the client reported it
    notes: list[str] = field(default_factory=list)


def first_line(text: str, limit: int = 160) -> str:
    """A message's first line, shortened, with loopback ports and temp paths made stable."""
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    line = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)
    line = re.sub(r"/k/[\w.-]+", "/k/CASE", line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def raised(kind: str, message: str) -> str:
    """An exception as ``Type: first line of its message``."""
    line = first_line(message)
    return f"{kind}: {line}" if line else f"{kind} (no message)"


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def value(arguments: Any) -> tuple[Any, bool]:
    """A client's arguments as a JSON value (True) or the text it kept (False)."""
    if isinstance(arguments, str):
        if arguments.strip() == "":
            return {}, True
        try:
            return json.loads(arguments), True
        except ValueError:
            return arguments, False
    return arguments, True


def _calls(
    meant: tuple[Call, ...], got: tuple[Call, ...], ids: bool, arguments: bool = True
) -> list[str]:
    diffs = []
    if len(got) != len(meant):
        names = [c.name for c in got]
        diffs.append(f"{len(got)} calls {names} (meant {len(meant)})")
    for i, (m, g) in enumerate(zip(meant, got, strict=False)):
        if m.name is None:
            diffs.append(f"call {i} named {g.name!r} (the stream gave no name)")
        elif g.name != m.name:
            diffs.append(f"call {i} named {g.name!r} (meant {m.name!r})")
        known = {c.id for c in meant}
        # An id the client made up is random: name it as such, so details stay stable.
        shown = repr(g.id) if not g.id or g.id in known else "of the client's own making"
        if ids and m.id is None:
            diffs.append(f"call {i} id {shown} (the stream gave no id)")
        elif ids and g.id != m.id:
            diffs.append(f"call {i} id {shown} (meant {m.id!r})")
        got_args, _ = value(g.arguments)
        if m.cut or not arguments:
            continue  # the finish says the call was cut; how a client keeps the rest is its own
        if not m.parsed:
            diffs.append(
                f"call {i} arguments {_short(got_args)} (the stream's {_short(m.arguments)} "
                "are not JSON)"
            )
        elif got_args != m.arguments:
            diffs.append(f"call {i} arguments {_short(got_args)} (meant {_short(m.arguments)})")
    return diffs


def _finish(meant: Reading, got: str | None) -> list[str]:
    if meant.finish is None:
        said = (
            "the stream never said how it ended"
            if meant.raw_finish is None
            else f"the stream's {meant.raw_finish!r} is no finish of its grammar"
        )
        return [f"finish {got!r} ({said})"]
    if got != meant.finish:
        return [f"finish {got!r} (meant {meant.finish!r})"]
    return []


def summary(answer: Answer) -> str:
    """A finished answer in a few words."""
    calls = ", ".join(f"{c.name}({_short(value(c.arguments)[0], 30)})" for c in answer.calls)
    parts = [f"text {_short(answer.text)}"]
    if answer.calls:
        parts.append(f"calls {calls}")
    parts.append(f"finish {answer.finish}")
    return "; ".join(parts)


def classify(
    meant: dict[int, Reading],
    got: Got,
    *,
    choices: str = "first",
    fields: frozenset[str] = frozenset({"text", "calls", "ids", "arguments", "finish"}),
) -> tuple[str, str]:
    """The outcome and its detail: ``choices`` is ``all`` for a client that reports every
    choice, ``first`` for one that reads a single answer; ``fields`` are what it reports."""
    notes = "".join(f" [{n}]" for n in got.notes)
    error = next((r.error for r in meant.values() if r.error is not None), None)
    if got.raised is not None:
        if error is not None and first_line(error, 80).rstrip("…") in got.raised:
            return OK, f"raised {got.raised} (the stream's error){notes}"
        return ERROR, f"{got.raised}{notes}"
    indexes = sorted(set(meant) | set(got.answers)) if choices == "all" else [0]
    diffs: list[str] = []
    if error is not None:
        diffs.append(f"no error raised for the stream's error {first_line(error, 60)!r}")
    for index in indexes:
        m = meant.get(index, Reading(finish="stop"))
        g = got.answers.get(index)
        where = f"choice {index}: " if len(indexes) > 1 else ""
        if g is None:
            diffs.append(f"{where}missing")
            continue
        if error is not None:
            continue
        found = []
        if m.refusal and g.text == m.text + m.refusal and g.finish == "content_filter":
            pass  # a refusal surfaced as text flagged content_filter: what the stream meant
        elif m.refusal and g.refusal != m.refusal:
            found.append(f"refusal {_short(g.refusal)} (meant {_short(m.refusal)})")
        else:
            if "text" in fields and g.text != m.text:
                found.append(f"text {_short(g.text)} (meant {_short(m.text)})")
            if "finish" in fields:
                found += _finish(m, g.finish)
        if "calls" in fields:
            found += _calls(m.calls, g.calls, "ids" in fields, "arguments" in fields)
        diffs += [where + d for d in found]
    if diffs:
        return WRONG, "; ".join(diffs) + notes
    shown = got.answers.get(0) or Answer()
    more = f" (+{len(got.answers) - 1} choices)" if len(got.answers) > 1 else ""
    return OK, summary(shown) + more + notes
