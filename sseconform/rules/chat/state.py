"""What the chat checker keeps about a stream: per choice and per tool call, never the text
(tool-call arguments are the one thing kept whole, bounded by ``max_arguments``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from sseconform.sse.decoder import Event

__all__ = [
    "ARGUMENTS",
    "CONTENT",
    "Call",
    "CallHead",
    "Choice",
    "changed",
    "has_payload",
    "short",
    "unparsed",
]

#: Where a delta template's value is: a content delta's text, a call's next arguments fragment.
CONTENT = ("choices", 0, "delta", "content")
ARGUMENTS = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")


class Call:
    """One tool call of a choice: its head and its arguments so far (bounded)."""

    __slots__ = (
        "frame",
        "id",
        "index",
        "line",
        "name",
        "offset",
        "parts",
        "repeat_reported",
        "resent",
        "size",
    )

    def __init__(self, index: int, id: str | None, name: str | None, ev: Event) -> None:
        self.index = index
        self.id = id
        self.name = name
        self.parts: list[str] = []
        self.size = 0
        self.repeat_reported = False
        self.resent = False  # T007 found: the doubled arguments need no F009 as well
        self.frame = ev.frame
        self.line = ev.line
        self.offset = ev.offset


class Choice:
    """One choice of the stream: how far it got, and its calls."""

    __slots__ = (
        "alias",
        "calls",
        "content_started",
        "finish",
        "finish_event",
        "finish_frame",
        "finish_pos",
        "ids",
        "index",
        "interleave_reported",
        "last_call",
        "max_call",
        "role_repeat_reported",
        "started",
        "untracked_calls",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.started = False
        self.content_started = False
        self.role_repeat_reported = False
        self.finish: str | None = None
        self.finish_frame = 0
        self.finish_event: Event | None = None
        self.finish_pos = 0
        self.calls: dict[int, Call] = {}
        self.ids: dict[str, int] = {}
        self.alias: dict[int, int] = {}
        self.max_call = -1
        self.last_call = -1
        self.interleave_reported = False
        self.untracked_calls = False  # deltas whose index was unusable (I002)


class CallHead(NamedTuple):
    """A new call's first delta, as the rules about a call's head read it."""

    choice: Choice
    idx: int  # the index the call takes
    tid: str | None  # its id (None: none, or empty)
    name: str | None  # its function name (None: none, or empty)
    tc: dict[str, Any]  # the tool-call delta as sent
    fn: dict[str, Any]  # its function object ({} when there is none)
    where: str  # the delta's JSON pointer


def has_payload(delta: dict[str, Any]) -> bool:
    """Whether a delta carries anything but its role."""
    for k, v in delta.items():
        if k == "role":
            continue
        if v not in (None, "", [], {}):
            return True
    return False


def short(obj: Any) -> str:
    """A JSON value as a finding quotes it: at most 60 characters."""
    s = orjson.dumps(obj).decode()
    return s if len(s) <= 60 else s[:57] + "..."


def changed(what: str, new: Any, first: Any, previous: Any) -> str:
    """A head field's change, against the first chunk's (and the last one, when it differs)."""
    before = "" if previous == first else f", then {previous!r}"
    return f"{what} {new!r}; the first chunk had {first!r}{before}"


def unparsed(call: Call, text: str, exc: orjson.JSONDecodeError) -> str:
    """What a finished call's arguments that do not parse look like."""
    what = f"call {call.index} ({call.name!r}, first delta in frame {call.frame})"
    return (
        f"{what}: arguments are not JSON ({exc.msg} at character {exc.pos} "
        f"of {len(text)}); they end {text[-40:]!r}"
    )
