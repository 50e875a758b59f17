"""A scenario: one recording the upstream serves (with its fault), one request to the gateway,
and what must hold of the gateway's answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sseconform import providers
from sseconform.replay.faults import parse_faults

__all__ = ["EXPECTS", "HISTORY", "RESULT", "Scenario", "Turn"]

#: What must hold: everything arrives; an error frame then the end (the upstream failed
#: mid-stream); a non-2xx answer or a clean retry (it failed before the stream); either.
EXPECTS = ("content", "error", "rejected", "content-or-error")

#: How a conversation's next turn carries the earlier ones: the whole history, as Claude
#: Code, Codex (``store: false``) and chat clients send it, or (Responses alone) the id of
#: the stored response it continues (``store: true``, ``previous_response_id``).
HISTORY = ("full", "previous-response")
#: What the gate's client answers each tool call with, when the turn does not say.
RESULT = "18 °C and sunny"


@dataclass
class Turn:
    """A turn after the first: the client sends its next request (the history, and a tool
    result per call the gateway gave it), and the upstream answers it with ``recording``."""

    recording: str  # a path
    result: str = RESULT


@dataclass
class Scenario:
    """One ``[[scenario]]`` table of a suite (paths resolved, values checked)."""

    name: str
    recording: str  # a path
    upstream: str | None = None
    translate: bool = False
    fault: str | None = None
    fault_times: int | None = None
    usage: bool = False
    request: dict[str, Any] = field(default_factory=dict)
    expect: str | None = None
    model: str | None = None
    tools: bool | None = None  # declare the recording's tools in the request (default: if any)
    headers: dict[str, str] = field(default_factory=dict)
    #: re-time the recording's reads evenly over this many seconds (a slow stream)
    spread: float | None = None
    #: (seconds, after read N): the upstream goes quiet there, sending only its provider's
    #: own keepalives (Anthropic's ping, once a second)
    quiet: tuple[float, int] | None = None
    #: the turns after the first (a conversation): see :class:`Turn`
    turns: list[Turn] = field(default_factory=list)
    #: the request asks for thinking or reasoning as the endpoint's agent does, and for the
    #: state it must send back (Anthropic ``thinking``, Responses ``include`` of the
    #: encrypted reasoning with ``store: false``, chat ``reasoning_effort``)
    reasoning: bool = False
    history: str = "full"
    #: the scenario grades how a call's arguments stream: not applicable where the
    #: endpoint's grammar sends a call whole (Gemini's)
    streamed_calls: bool = False

    @property
    def served_dialect(self) -> str | None:
        """The dialect the upstream speaks on the wire."""
        return providers.OPENAI if self.translate else self.upstream

    def expectation(self, recording_has_error: bool) -> str:
        """What must hold, when the suite does not say: from the fault and the recording."""
        if self.expect is not None:
            return self.expect
        f = parse_faults(self.fault)
        if f.status is not None:
            return "rejected"
        if f.drop_after_events or f.drop_after_bytes or f.error_at or f.truncate_last:
            return "error"
        if recording_has_error:
            return "error"
        if f.stall is not None:
            return "content-or-error"
        return "content"
