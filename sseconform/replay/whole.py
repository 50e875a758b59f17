"""A recorded stream's meaning as its dialect's non-streaming answer.

A provider asked without ``stream`` (OpenAI chat, Anthropic Messages, Responses) or at
Gemini's ``:generateContent`` answers with one JSON object once it has finished generating.
replay builds that object from the same recording a streaming client would get, folded the way
the providers' own SDKs fold a stream into the final answer (each wire's ``fold``, in
``sseconform.wires``). So a gateway that calls its upstream without streaming is graded on
the same meaning as one that streams.

A stream that failed (an in-band error event, ``response.failed``) becomes the HTTP error the
provider would have answered with instead; one that never reached its terminal event has no
answer at all (the connection is dropped).
"""

from __future__ import annotations

from sseconform import providers
from sseconform.replay.faults import Faults
from sseconform.replay.plan import ABORT, END, WHOLE, Loaded, Plan, make_plan, reason_phrase
from sseconform.wires import fold

__all__ = ["whole_plan"]


def whole_plan(rec: Loaded, *, speed: float = 1.0, faults: Faults | None = None) -> Plan:
    """The answer to a non-streaming request: the recording's meaning as one JSON object,
    sent when its stream would have ended (with a stall's wait added), under the same faults.

    A status fault refuses at once, as with a stream; a drop is the connection reset when
    the stream would have been cut, with nothing sent; an injected error event is the HTTP
    error the provider answers with when generation fails; ``truncate-last`` cuts the answer
    short (its length says more is coming) and drops the connection.
    """
    faults = faults or Faults()
    stream = make_plan(rec, speed=speed, faults=faults)
    if stream.json_body:
        return stream
    at = max((t for t, _, _ in stream.spans), default=stream.t_head)
    fires = ("stall",) if stream.stall_at is not None else ()
    headers = [(k, v) for k, v in stream.headers if k.lower() not in _STREAM_ONLY]
    headers.insert(0, ("content-type", "application/json"))

    def plan(status: int, reason: str, body: bytes, end: int, ending: str) -> Plan:
        spans = [(at, 0, end)] if end else []
        return Plan(status, reason, headers, at, body, spans, ending, form=WHOLE, fires=fires)

    if stream.ending == ABORT:
        dropped = plan(rec.status, rec.reason, b"", 0, ABORT)
        dropped.cut = stream.cut
        return dropped
    truncated = any(name == "truncate" for _, name in stream.marks)
    answer = fold(rec.dialect, rec.body if truncated else stream.body)
    if not answer.answered:  # the recording itself never finished: the provider dropped
        return plan(rec.status, rec.reason, b"", 0, ABORT)
    if answer.status != 200:
        failed = plan(
            answer.status, reason_phrase(answer.status), answer.body, len(answer.body), END
        )
        failed.headers = [("content-type", "application/json")]
        failed.headers += providers.error_headers(rec.dialect, answer.status)
        failed.json_body = True
        injected = any(name == "error" for _, name in stream.marks)
        failed.fires = (*fires, "error") if injected else fires
        return failed
    if truncated:
        cut = plan(rec.status, rec.reason, answer.body, max(1, len(answer.body) // 2), ABORT)
        cut.fires = (*fires, "truncate")
        return cut
    return plan(rec.status, rec.reason, answer.body, len(answer.body), END)


#: what describes a stream and not a JSON answer
_STREAM_ONLY = frozenset({"content-type", "content-length", "content-encoding", "cache-control"})
