"""Grading one gateway answer against what its upstream sent.

- ``check``: every error-severity diagnostic fails the scenario (codes in ``allow`` aside);
- content: compared with sseconform's own reading of what the upstream sent (the same
  fault applied), with :func:`sseconform.gate.diff.compare`;
- the expectation: ``content`` (2xx, everything arrives), ``error`` (the upstream failed
  mid-stream: an error frame then ``[DONE]``, and nothing invented, lost or repeated before
  it), ``rejected`` (the upstream failed before the stream: a non-2xx answer, or a clean
  retry whose content is whole), ``content-or-error`` (a stall: either is fine).

Every finding carries the gateway stream's frame number and byte offset, with the bytes
found there. A recorded answer (``gate``) is read back from its recording; a stream checked
and folded as it arrived (``load``) is graded from what was kept of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.findings import Finding
from sseconform.gate import rules
from sseconform.gate.content import Content, content_of, describe
from sseconform.gate.expectations import grade, grade_whole
from sseconform.gate.graded import Graded, checked, retried
from sseconform.gate.references import References
from sseconform.gate.scenario import Scenario
from sseconform.gate.timing import Budgets, measure
from sseconform.gate.timing_rules import judge
from sseconform.providers import GRAMMAR_DIALECT, dialect_of_path
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable
from sseconform.wires import by_dialect, by_grammar
from sseconform.wires.base import Asked

if TYPE_CHECKING:  # what the upstream logged: only read here
    from sseconform.replay.served import Served

__all__ = ["BOUNDS", "grade_recording", "grade_stream"]

#: A bound the gateway's answer broke (:attr:`sseconform.record.Outcome.bound`): its
#: finding's code, and what the gateway did. Nothing else is graded of such an answer.
T = rules.transport
#: A bound the recorder stopped at -> its rule, and what the gateway did.
BOUNDS = {
    "deadline": (T.DEADLINE, "was still sending at the scenario's deadline (see --deadline)"),
    "silent": (T.SILENT, "went silent"),
    "head-too-large": (T.HEAD_TOO_LARGE, "sent a response head no client takes"),
    "max-bytes": (T.TOO_LARGE, "sent more than the bytes kept (see --max-bytes)"),
    "bomb": (T.DECOMPRESSION_BOMB, "sent a compressed body that inflates without bound"),
    "encoding": (T.ENCODING, "sent a content-encoding it was not asked for"),
}


def grade_recording(
    sc: Scenario,
    ref: References,
    path: str,
    status: int | None,
    served: list[Served],
    *,
    complete: bool,
    reason: str,
    allow: list[str],
    endpoint: str,
    t0: float = 0.0,
    budgets: Budgets | None = None,
    bound: str | None = None,
    grammar: str | None = None,
    tools: list[str] | None = None,
    asked: Asked | None = None,
    streaming: bool = True,
) -> Graded:
    """The findings (and note) for the gateway's answer recorded at ``path``, given what the
    upstream logged of the scenario's requests (``served``). With ``budgets``, its timing
    too: ``t0`` is when the request was sent (the recording's times count from it).
    ``bound``: the bound the answer broke (the recording stopped there), a finding alone.
    ``grammar``: what ``check`` reads the answer as, when not the endpoint's own.
    ``tools``: the tools the client's request declared, each of which the upstream's
    request must declare too. ``asked``: what the client's request asked (its endpoint's
    wire's reading), which the upstream's request must ask too. ``streaming`` False: the
    client asked without streaming (Gemini's ``:generateContent``): its answer is one
    object, graded by :func:`~.expectations.grade_whole`, and has no timing."""
    g = Graded(path, status, allow, endpoint, whole=not streaming)
    g.check_grammar = grammar or g.grammar
    if bound is not None:
        _bound(g, bound, reason)
    elif status is None and served and ref.dropped:
        _no_answer_mirrored(g, reason)
    elif status is None:
        g.add(rules.transport.NO_RESPONSE, f"no answer from the gateway: {reason}")
    elif _reached(g, sc, served, bool(ref.faults)):
        _forwarded(g, tools or [], served)
        if asked is not None:
            _asked(g, asked, served)
        if streaming:
            grade(g, sc, ref, complete, reason, len(served), _whole_answer(served))
        else:
            grade_whole(g, sc, ref, complete, reason, len(served))
        if not g.ok_status:
            _error_path(g, served)
        if g.ok_status and budgets is not None and streaming:
            _timed(g, sc, served, t0, budgets, ref)
    return g


def _no_answer_mirrored(g: Graded, reason: str) -> None:
    """The upstream dropped and the gateway closed its client's connection with no status
    at all (a non-streaming call, or a stream held back until the end): the drop mirrored,
    a warning as a stream cut where its upstream's was (not "no response": the gateway is
    up, and answered as its upstream did)."""
    g.add(
        rules.transport.ABORTED,
        rules.transport.aborted(reason, answered=False),
        severity=Severity.WARNING,
    )
    g.note = "no answer, as the upstream dropped"


def _bound(g: Graded, bound: str, reason: str) -> None:
    """The one finding of an answer that broke a bound (nothing else of it is graded)."""
    rule, what = BOUNDS[bound]
    g.add(rule, f"the gateway {what}: {reason}")
    g.note = "stopped: " + what.split(" (")[0]


def _timed(
    g: Graded, sc: Scenario, served: list[Served], t0: float, budgets: Budgets, ref: References
) -> None:
    """What the gateway added to the time of the upstream's answer it passed on (the last
    request's: after a retry, the clean one), and the findings over ``budgets``; the
    upstream's content is the one ``ref`` read, when the answer is that one."""
    answered = [x for x in served if x.plan is not None and not x.plan.json_body]
    if not answered or sc.served_dialect is None:
        return
    last = answered[-1]
    before = [x for x in served if x is not last]
    g.timing = measure(
        last, t0, sc.served_dialect, g.content, g.reads, len(g.body), before, ref.content_of
    )
    if g.timing is None:
        return
    g.timing.grammar = g.grammar
    for f in judge(g.timing, budgets):
        g.locate(f)


def grade_stream(
    sc: Scenario,
    ref: References,
    status: int | None,
    content: Content | None,
    checked: list[Finding],
    *,
    complete: bool,
    reason: str,
    allow: list[str],
    endpoint: str,
    upstream_requests: int = 1,
    bound: str | None = None,
) -> tuple[list[Finding], str]:
    """The findings (and note) for one gateway stream that was checked and folded as it
    arrived (``load``): the gate's own grading, without a recording. ``bound``: as for
    :func:`grade_recording`."""
    g = Graded.streamed(status, content, checked, allow, endpoint)
    if bound is not None:
        _bound(g, bound, reason)
    elif status is None:
        g.add(rules.transport.NO_RESPONSE, f"no answer from the gateway: {reason}")
    else:
        grade(g, sc, ref, complete, reason, upstream_requests)
    return g.findings, g.note


def _forwarded(g: Graded, tools: list[str], served: list[Served]) -> None:
    """What the gateway forwarded of the client's request: every tool the client declared
    must reach the upstream (the upstream answers from its recording either way, so a tool
    the gateway dropped shows nowhere else; a real model could never call it)."""
    if not tools:
        return
    asked = [x for x in served if x.recording is not None and x.tools is not None]
    if not asked:
        return
    seen = set(asked[-1].tools or [])
    lost = [t for t in tools if t not in seen]
    if lost:
        names = ", ".join(repr(t) for t in lost)
        g.add(
            rules.diff.LOST,
            f"request.tools: the client declared {names}; the upstream's request did not "
            f"(it declared {len(seen)} tool(s)): the model could never call "
            + ("it" if len(lost) == 1 else "them"),
            field="request.tools",
        )


def _asked(g: Graded, asked: Asked, served: list[Served]) -> None:
    """What reached the upstream of the client's request, parameter by parameter
    (``gate.rules.request``): the last request the upstream answered from a recording (a
    retried request's last try) is what the answer came from."""
    reached = [x for x in served if x.recording is not None and x.asked is not None]
    if not reached:
        return
    last = reached[-1]
    upstream = by_dialect(dialect_of_path(last.path)[0])
    client = by_grammar(g.grammar)
    for d in rules.request.compare(asked, client, last.asked or {}, upstream):
        if d.rule.code in g.allow or f"{d.rule.code}:{d.param}" in g.allow:
            continue
        g.add(d.rule, d.message, severity=d.severity, field=d.param)


def _own_answer(g: Graded) -> str:
    """What a gateway streamed without calling the upstream: its error frame's message
    quoted, else the start of its stream."""
    content = content_of([g.body], GRAMMAR_DIALECT.get(g.grammar))
    error = content.model.error
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else None
        return f"an error of its own ({describe(message if message else error)})"
    return f"an answer of its own ({describe(g.body[:300].decode('utf-8', 'replace'))})"


def _unreached_hint(g: Graded, own: str | None) -> str:
    """What to look at when the upstream got nothing: the key, the request the gateway
    could not pass on, or its routing."""
    if g.status in (401, 403):
        return "is the gateway's key right? give it with --key or $SSECONFORM_GATEWAY_KEY"
    if own is not None and own.startswith("an error"):
        return "the gateway could not translate or route the request itself: its stream says why"
    if g.status is not None and 400 <= g.status < 500 and g.status != 404 and g.body:
        return (
            "the gateway refused the request itself: its answer says why (a parameter it "
            "cannot pass on is not a routing problem)"
        )
    if g.status is not None and not g.ok_status and g.status != 404:
        return (
            f"the gateway failed with HTTP {g.status} before calling any upstream, which is no "
            "routing problem: does it want a key (--key), was it started right? its answer and "
            "its log say why"
        )
    return (
        "is the gateway routed to the upstream for this dialect? see --gateway-profile and "
        "[dialect.*] in the suite"
    )


def _reached(g: Graded, sc: Scenario, served: list[Served], faulted: bool) -> bool:
    """Did the scenario test what it is for? The upstream must have served the gateway's
    request, and its fault must have fired; if not, say so (grading the gateway's answer
    against an upstream stream it never got would pass or fail on nothing)."""
    answer = f"the gateway answered HTTP {g.status}"
    if g.status is not None and not g.ok_status and g.body:
        answer += ": " + printable(g.body[:300].decode("utf-8", "replace"))
    own = _own_answer(g) if not served and g.ok_status and g.body else None
    if own is not None:  # it answered, without the upstream: it could not pass it on
        answer += f" and streamed {own} without calling the upstream"
    if not served:
        hint = _unreached_hint(g, own)
        at = 0 if not g.ok_status and g.body else None  # the error's first bytes, shown
        g.add(
            rules.upstream.NOT_REACHED,
            f"the upstream never saw a request; {answer} ({hint})",
            offset=at,
        )
        return False
    if not any(x.recording is not None for x in served):
        g.add(
            rules.upstream.REFUSED,
            f"the upstream could not serve the gateway's request ({served[0].line()}): the "
            f"gateway called a path or dialect this scenario does not serve; {answer}",
        )
        return False
    if faulted and not any(x.fired for x in served):
        checked(g)
        g.add(
            rules.upstream.FAULT_NOT_FIRED,
            f"the upstream was reached but its fault ({sc.fault}) never took effect "
            f"({served[-1].line()}); {answer}",
        )
        return False
    return True


def _whole_answer(served: list[Served]) -> bool:
    """Did the gateway call its upstream without streaming (replay answered it in one JSON
    answer, or refused it, as the provider does a non-streaming request)?"""
    return any(x.framing == "json" for x in served)


def _error_path(g: Graded, served: list[Served]) -> None:
    """The gateway answered an HTTP error: is it the upstream's, as its clients need it? The
    status keeps what the clients decide by (a retryable failure stays retryable), a
    ``retry-after`` the upstream sent is passed on, and the body is in the endpoint's error
    shape (H005, from check)."""
    failed = [x for x in served if x.plan is not None and x.plan.json_body]
    if g.status is None or not failed:
        return
    up = failed[-1]
    assert up.plan is not None
    if up.status != g.status:
        lost = retried(up.status) and not retried(g.status)
        g.add(
            rules.diff.CHANGED,
            f"status: HTTP {g.status}, the upstream answered HTTP {up.status}"
            + (
                ": a client retries the upstream's, and gives up on this one"
                if lost
                else " (clients still retry it, but read another failure)"
            ),
            severity=Severity.ERROR if lost else Severity.WARNING,
            field="status",
        )
    sent = {k.lower() for k, _ in up.plan.headers}
    if "retry-after" in sent and "retry-after" not in g.headers:
        g.add(
            rules.diff.LOST,
            "retry-after: the upstream said when to retry; the gateway's answer does not, so "
            "its clients back off on their own schedule",
            severity=Severity.WARNING,
            field="retry-after",
        )
    if g.checked is None:
        checked(g)
