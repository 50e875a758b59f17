"""What the HTML report shows of one scenario, gathered while its streams are at hand.

Both streams' meaning side by side (text, reasoning, each call's arguments pretty-printed),
where they first part, when each upstream and gateway event arrived (and when the upstream's
fault took effect), and the gateway's bytes each finding points at. Plain data
(:meth:`Evidence.to_dict`), so the page writer stays a pure function of it.

Everything is bounded: a field's text, the marks on a timeline and an event's bytes are
capped, and a cap that cut something says so.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from sseconform.gate.content import Content
from sseconform.recording.redact import Redactor
from sseconform.replay.served import MAX_REQUEST
from sseconform.sse import Event, SSEDecoder
from sseconform.wires import by_grammar, event_label

if TYPE_CHECKING:  # the runner builds evidence; only the types are needed here
    from sseconform.findings import Finding
    from sseconform.replay.served import Served

__all__ = ["Evidence", "collect", "first_difference", "requests_of", "side_of"]

#: Characters kept of one field (text, reasoning, a call's arguments) on one side.
MAX_TEXT = 32 * 1024
#: Marks kept on one side of a timeline (a longer stream keeps its first ones).
MAX_MARKS = 1500
#: Bytes kept of the event a finding points at.
MAX_EVENT = 2048
_FIELD = re.compile(
    r"^(?:choices\[(\d+)\]\.)?(text|reasoning|refusal|tool_calls\[(\d+)\]\.arguments)$"
)


@dataclass
class Evidence:
    """One scenario's evidence (see the module docstring); ``t`` is seconds after the
    gateway's request was sent, for both sides."""

    upstream: list[dict[str, Any]] | None = None  # choices, as :func:`side_of` gives them
    gateway: list[dict[str, Any]] | None = None
    upstream_extra: dict[str, Any] = field(default_factory=dict)  # finish, usage, error
    gateway_extra: dict[str, Any] = field(default_factory=dict)
    first: dict[str, Any] | None = None  # see first_difference
    upstream_marks: list[dict[str, Any]] = field(default_factory=list)
    gateway_marks: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)  # {"t", "fault", "request"}
    #: [upstream t, gateway t] of each piece the gateway carried (the timing's pairs)
    pairs: list[list[float]] = field(default_factory=list)
    upstream_events: int = 0  # events in all (the marks may stop at MAX_MARKS)
    gateway_events: int = 0
    events: dict[int, str] = field(default_factory=dict)  # gateway byte offset -> event text
    turn: int = 1  # the conversation's turn this is of
    #: the request the gate's client sent the gateway, and the one the gateway forwarded
    #: (the upstream's last), as :func:`requests_of` gives them
    requests: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "requests": self.requests,
            "upstream": self.upstream,
            "gateway": self.gateway,
            "upstream_extra": self.upstream_extra,
            "gateway_extra": self.gateway_extra,
            "first": self.first,
            "upstream_marks": self.upstream_marks,
            "gateway_marks": self.gateway_marks,
            "faults": self.faults,
            "pairs": self.pairs,
            "upstream_events": self.upstream_events,
            "gateway_events": self.gateway_events,
            "events": {str(k): v for k, v in self.events.items()},
        }


def _cap(text: str) -> dict[str, Any]:
    return {"value": text[:MAX_TEXT], "cut": max(0, len(text) - MAX_TEXT)}


def pretty_arguments(raw: str) -> str:
    """A call's arguments as people read them: indented JSON, or the raw text when it is
    not JSON (then the raw text is the evidence)."""
    try:
        return orjson.dumps(orjson.loads(raw), option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONDecodeError:
        return raw


def side_of(
    c: Content | None, raw: frozenset[tuple[int, int]] = frozenset(), grammar: str = "chat"
) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    """One stream's meaning, per choice: text, reasoning, refusal and calls (arguments
    pretty-printed, but as sent for the calls in ``raw``: (choice, position); each field
    capped); and the stream's finish reasons, usage and error, in the words of ``grammar``
    (the gateway endpoint's: ``stop_reason`` and ``input_tokens`` on /v1/messages)."""
    if c is None:
        return None, {}
    m = c.model
    choices = []
    for idx in sorted(m.choices):
        ch = m.choices[idx]
        calls = [
            {
                "id": call.id,
                "name": call.name,
                "arguments": _cap(
                    call.arguments if (idx, k) in raw else pretty_arguments(call.arguments)
                ),
            }
            for k, (_, call) in enumerate(sorted(ch.tool_calls.items()))
        ]
        choices.append(
            {
                "index": idx,
                "text": _cap(ch.text),
                "reasoning": _cap(ch.reasoning),
                "refusal": _cap(ch.refusal),
                "calls": calls,
                "finish": by_grammar(grammar).finish_value(ch.finish_reason),
            }
        )
    extra: dict[str, Any] = {"finish_field": by_grammar(grammar).finish_field}
    if m.usage is not None:
        extra["usage"] = _usage_in(grammar, m.usage)
    if m.error is not None:
        extra["error"] = m.error
    return choices, extra


def _usage_in(grammar: str, usage: dict[str, Any]) -> dict[str, Any]:
    """The counts as the grammar names them (chat's usage as it is)."""
    if grammar == "chat":
        return usage
    out = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        name = by_grammar(grammar).usage_key(key)
        if name is not None and key in usage:
            out[name] = usage[key]
    return out


def _not_json(c: Content | None) -> frozenset[tuple[int, int]]:
    """The calls, as (choice, position), whose arguments are not JSON: the other stream's
    same call is then shown as sent too, so the two part where the bytes do, not where one
    side's indentation starts."""
    if c is None:
        return frozenset()
    out = set()
    for idx, ch in c.model.choices.items():
        for k, (_, call) in enumerate(sorted(ch.tool_calls.items())):
            try:
                orjson.loads(call.arguments)
            except orjson.JSONDecodeError:
                out.add((idx, k))
    return frozenset(out)


def _value(choices: list[dict[str, Any]] | None, idx: int, name: str, call: int | None) -> str:
    if not choices:
        return ""
    ch = next((c for c in choices if c["index"] == idx), None)
    if ch is None:
        return ""
    if call is not None:
        return ch["calls"][call]["arguments"]["value"] if call < len(ch["calls"]) else ""
    return str(ch[name]["value"])


def first_difference(
    findings: list[Finding], up: list[dict[str, Any]] | None, gw: list[dict[str, Any]] | None
) -> dict[str, Any] | None:
    """The first difference the diff found, and, for a text-like field (text, reasoning,
    refusal, a call's arguments as shown), the character where the two sides part: the
    length of their common prefix in what the page shows."""
    for f in findings:
        if f.source != "diff" or not f.field:
            continue
        out: dict[str, Any] = {"field": f.field, "kind": f.code, "message": f.message}
        m = _FIELD.match(f.field)
        if m is not None:
            idx = int(m.group(1) or 0)
            call = int(m.group(3)) if m.group(3) is not None else None
            name = "arguments" if call is not None else m.group(2)
            a, b = _value(up, idx, name, call), _value(gw, idx, name, call)
            n = 0
            for n, (x, y) in enumerate(zip(a, b, strict=False)):  # noqa: B007
                if x != y:
                    break
            else:
                n = min(len(a), len(b))
            out.update(choice=idx, name=name, call=call, char=n)
        return out
    return None


def _gateway_marks(body: bytes, reads: list[tuple[float, int]], ev: Evidence) -> None:
    """Each gateway event at the time the read that completed it arrived: the answer as the
    grader read it (its body, each read's time and offset), not read again."""
    dec = SSEDecoder()

    def take(t: float, events: list[Event]) -> None:
        for e in events:
            ev.gateway_events += 1
            if len(ev.gateway_marks) < MAX_MARKS:
                label, content = event_label(e.event, e.data)
                ev.gateway_marks.append(
                    {"t": round(t, 4), "label": label, "content": content, "frame": e.frame}
                )

    t = 0.0
    ends = [offset for _, offset in reads[1:]] + [len(body)]
    for (t, start), end in zip(reads, ends, strict=True):
        take(t, dec.feed(body[start:end]))
    take(t, dec.finish())


def _upstream_marks(served: list[Served], t0: float, ev: Evidence) -> None:
    """Each upstream event at the time its write left the replay server, per request (a
    retry is a second request); the faults at the time they took effect."""
    for n, s in enumerate(served, 1):
        base = s.started - t0
        for at, fault in zip(s.fired_at, s.fired, strict=False):
            ev.faults.append({"t": round(base + at, 4), "fault": fault, "request": n})
        plan = s.plan
        if plan is None:
            continue
        starts = {a: b for _, a, b in plan.spans}
        dec = SSEDecoder()
        for at, offset in s.times:
            end = starts.get(offset)
            if end is None:
                continue
            if s.framing != "sse":  # Gemini's JSON array: a write is an element
                found = [("JSON array element", True)]
            else:
                found = [event_label(e.event, e.data) for e in dec.feed(plan.payload[offset:end])]
            for label, content in found:
                ev.upstream_events += 1
                if len(ev.upstream_marks) < MAX_MARKS:
                    ev.upstream_marks.append(
                        {"t": round(base + at, 4), "label": label, "content": content,
                         "request": n}
                    )  # fmt: skip


def _event_bytes(body: bytes, offset: int) -> str:
    """The event that starts at ``offset``: up to its blank line, capped."""
    window = body[offset : offset + MAX_EVENT + 4]
    m = re.search(rb"\r\n\r\n|\n\n|\r\r", window)
    piece = window[: m.end()] if m is not None else window[:MAX_EVENT]
    return piece[:MAX_EVENT].decode("utf-8", "replace")


def _request_text(text: str) -> dict[str, Any]:
    """A request body shown as indented JSON (as sent when it is not JSON), capped, its
    secret-named fields redacted as ``record`` redacts them (``api_key``,
    ``metadata.user_token``: a gateway may forward them), their values masked everywhere
    from then on."""
    text = Redactor().text(text)
    with contextlib.suppress(orjson.JSONDecodeError):
        text = orjson.dumps(orjson.loads(text), option=orjson.OPT_INDENT_2).decode()
    return _cap(text)


def requests_of(client: bytes, served: list[Served]) -> dict[str, Any]:
    """Both requests of one turn: what the client sent, and what reached the upstream (the
    last request it got, as it logged it: a retry's is the one answered last); None where
    the gateway never called the upstream."""
    forwarded = next((x.request for x in reversed(served) if x.request), None)
    return {
        "client": _request_text(client[:MAX_REQUEST].decode("utf-8", "replace")),
        "upstream": None if forwarded is None else _request_text(forwarded),
        "path": next((x.path for x in reversed(served) if x.request), None),
    }


def collect(
    *,
    findings: list[Finding],
    upstream: Content | None,
    gateway: Content | None,
    body: bytes,
    reads: list[tuple[float, int]],
    served: list[Served],
    t0: float,
    pairs: list[tuple[float, float]] | None = None,
    grammar: str = "chat",
) -> Evidence:
    """Everything the page shows of one scenario (see the module docstring), in the words
    of the gateway endpoint's ``grammar``: ``body`` and ``reads`` are the gateway's answer as
    the grader read it (each read's time and offset in ``body``)."""
    ev = Evidence()
    ev.pairs = [[round(u, 4), round(g, 4)] for u, g in pairs or []]
    raw = _not_json(upstream) | _not_json(gateway)  # both sides of such a call as sent
    ev.upstream, ev.upstream_extra = side_of(upstream, raw, grammar)
    ev.gateway, ev.gateway_extra = side_of(gateway, raw, grammar)
    ev.first = first_difference(findings, ev.upstream, ev.gateway)
    if gateway is None and body:  # an HTTP error: its body is what the client got
        ev.gateway_extra["body"] = body[:MAX_EVENT].decode("utf-8", "replace")
    if body:
        _gateway_marks(body, reads, ev)
    _upstream_marks(served, t0, ev)
    for f in findings:
        if f.offset is not None and f.offset < len(body) and f.offset not in ev.events:
            ev.events[f.offset] = _event_bytes(body, f.offset)
    return ev
