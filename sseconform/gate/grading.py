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

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sseconform.api import check_file
from sseconform.diagnostics import Diagnostic
from sseconform.gate.content import Content, content_of
from sseconform.gate.diff import compare
from sseconform.gate.finding import Finding
from sseconform.gate.scenario import Scenario
from sseconform.gate.timing import Budgets, Timing, measure
from sseconform.gate.timing_rules import judge
from sseconform.providers import ENDPOINT_DIALECT, ENDPOINT_GRAMMAR
from sseconform.recording.format import RecordingReader
from sseconform.replay.faults import Faults, parse_faults
from sseconform.replay.plan import ABORT, Loaded, make_plan
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable

if TYPE_CHECKING:  # what the upstream logged: only read here
    from sseconform.replay.served import Served

__all__ = [
    "BOUNDS",
    "Graded",
    "References",
    "grade_recording",
    "grade_stream",
    "references",
    "retried",
]

#: A bound the gateway's answer broke (:attr:`sseconform.record.Outcome.bound`): its
#: finding's code, and what the gateway did. Nothing else is graded of such an answer.
BOUNDS = {
    "deadline": ("deadline", "was still sending at the scenario's deadline (see --deadline)"),
    "silent": ("silent", "went silent"),
    "head-too-large": ("head-too-large", "sent a response head no client takes"),
    "max-bytes": ("too-large", "sent more than the bytes kept (see --max-bytes)"),
    "bomb": ("decompression-bomb", "sent a compressed body that inflates without bound"),
    "encoding": ("encoding", "sent a content-encoding it was not asked for"),
}


@dataclass
class References:
    """What a scenario's upstream sends, read once: the expectation, and the content of the
    first answer (with its fault) and of a clean one (after a retry)."""

    faults: Faults
    expect: str
    first: Content | None  # None: a JSON error body, no stream
    clean: Content
    dropped: bool  # the first answer ends in a dropped connection
    #: seconds the upstream takes to send the longer of its two answers (at the speed asked)
    seconds: float = 0.0


def references(sc: Scenario, rec: Loaded, dialect: str, speed: float = 0.0) -> References:
    """The two answers the upstream may send (its first, with the fault, and a clean one
    after a retry), planned once each: their content, and how long the longer one takes at
    ``speed`` (a scenario's deadline counts from it)."""
    faults = parse_faults(sc.fault)
    first = make_plan(rec, speed=speed, faults=faults)
    clean = make_plan(rec, speed=speed)
    seconds = max(p.spans[-1][0] if p.spans else p.t_head for p in (first, clean))
    ref_first = content_of([first.body], dialect) if not first.json_body else None
    if ref_first is not None and first.ending == ABORT and ref_first.model.error is None:
        # A chunk or Gemini stream cannot say it was cut: the dropped connection does.
        ref_first.model.error = {"message": "the upstream connection dropped"}
        ref_first.error_at = ref_first.last
    ref_clean = content_of([clean.body], dialect)
    expect = sc.expectation(ref_clean.model.error is not None)
    return References(faults, expect, ref_first, ref_clean, first.ending == ABORT, seconds)


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
) -> Graded:
    """The findings (and note) for the gateway's answer recorded at ``path``, given what the
    upstream logged of the scenario's requests (``served``). With ``budgets``, its timing
    too: ``t0`` is when the request was sent (the recording's times count from it).
    ``bound``: the bound the answer broke (the recording stopped there), a finding alone.
    ``grammar``: what ``check`` reads the answer as, when not the endpoint's own."""
    g = Graded(path, status, allow, endpoint)
    g.check_grammar = grammar or g.grammar
    if bound is not None:
        _bound(g, bound, reason)
    elif status is None:
        g.add("transport", "no-response", f"no answer from the gateway: {reason}")
    elif _reached(g, sc, served, bool(ref.faults)):
        _grade(g, sc, ref, complete, reason, len(served), _whole_answer(served))
        if not g.ok_status:
            _error_path(g, served)
        if g.ok_status and budgets is not None:
            _timed(g, sc, served, t0, budgets)
    return g


def _bound(g: Graded, bound: str, reason: str) -> None:
    """The one finding of an answer that broke a bound (nothing else of it is graded)."""
    code, what = BOUNDS.get(bound, (bound, "broke a bound"))
    g.add("transport", code, f"the gateway {what}: {reason}")
    g.note = "stopped: " + what.split(" (")[0]


def _timed(g: Graded, sc: Scenario, served: list[Served], t0: float, budgets: Budgets) -> None:
    """What the gateway added to the time of the upstream's answer it passed on (the last
    request's: after a retry, the clean one), and the findings over ``budgets``."""
    answered = [x for x in served if x.plan is not None and not x.plan.json_body]
    if not answered or sc.served_dialect is None:
        return
    g.timing = measure(answered[-1], t0, sc.served_dialect, g.content, g.reads, len(g.body))
    if g.timing is None:
        return
    for v in judge(g.timing, budgets):
        at = v.at
        g.add(
            "timing",
            v.code,
            v.message,
            severity=v.severity,
            frame=at.frame if at else None,
            offset=at.offset if at else None,
        )


def grade_stream(
    sc: Scenario,
    ref: References,
    status: int | None,
    content: Content | None,
    diagnostics: list[Diagnostic],
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
    g = Graded.streamed(status, content, diagnostics, allow, endpoint)
    if bound is not None:
        _bound(g, bound, reason)
    elif status is None:
        g.add("transport", "no-response", f"no answer from the gateway: {reason}")
    else:
        _grade(g, sc, ref, complete, reason, upstream_requests)
    return g.findings, g.note


def _reached(g: Graded, sc: Scenario, served: list[Served], faulted: bool) -> bool:
    """Did the scenario test what it is for? The upstream must have served the gateway's
    request, and its fault must have fired; if not, say so (grading the gateway's answer
    against an upstream stream it never got would pass or fail on nothing)."""
    answer = f"the gateway answered HTTP {g.status}"
    if g.status is not None and not g.ok_status and g.body:
        answer += ": " + printable(g.body[:300].decode("utf-8", "replace"))
    if not served:
        hint = (
            "is the gateway's key right? give it with --key or $SSECONFORM_GATEWAY_KEY"
            if g.status in (401, 403)
            else "is the gateway routed to the upstream for this dialect? see "
            "--gateway-profile and [dialect.*] in the suite"
        )
        g.add("upstream", "not-reached", f"the upstream never saw a request; {answer} ({hint})")
        return False
    if not any(x.recording is not None for x in served):
        g.add(
            "upstream",
            "refused",
            f"the upstream could not serve the gateway's request ({served[0].line()}): the "
            f"gateway called a path or dialect this scenario does not serve; {answer}",
        )
        return False
    if faulted and not any(x.fired for x in served):
        _checked(g)
        g.add(
            "upstream",
            "fault-not-fired",
            f"the upstream was reached but its fault ({sc.fault}) never took effect "
            f"({served[-1].line()}); {answer}",
        )
        return False
    return True


class Graded:
    """Findings for one scenario, each located in the gateway's recorded body."""

    def __init__(
        self, path: str, status: int | None, allow: list[str], endpoint: str = "chat"
    ) -> None:
        self.path = path
        self.status = status
        self.allow = set(allow)
        self.grammar = ENDPOINT_GRAMMAR[endpoint]
        #: the grammar ``check`` reads the answer in (a specification the profile claims)
        self.check_grammar = self.grammar
        self.findings: list[Finding] = []
        self.note = ""
        self.body = b""
        #: each read's (seconds after the request was sent, offset in the body)
        self.reads: list[tuple[float, int]] = []
        self.timing: Timing | None = None
        #: the gateway's response header names, lower-cased
        self.headers: set[str] = set()
        if status is not None:
            parts: list[bytes] = []
            size = 0
            with open(path, "rb") as fp:
                reader = RecordingReader(fp, path)
                for t, data in reader.reads():
                    self.reads.append((t, size))
                    parts.append(data)
                    size += len(data)
                if reader.response is not None:
                    self.headers = {k.lower() for k, _ in reader.response.headers}
            self.body = b"".join(parts)
        # read as the endpoint's clients read it: chunks, or Anthropic / Responses events
        # through the reference translation, so it compares with the upstream by meaning
        dialect = ENDPOINT_DIALECT[endpoint]
        self.content = content_of([self.body], dialect) if self.ok_status else None
        self.starts = self.content.starts if self.content is not None else []
        #: check's diagnostics when the stream was checked as it arrived (``load``): None,
        #: check the recording at ``path``
        self.diagnostics: list[Diagnostic] | None = None

    @classmethod
    def streamed(
        cls,
        status: int | None,
        content: Content | None,
        diagnostics: list[Diagnostic],
        allow: list[str],
        endpoint: str,
    ) -> Graded:
        """A stream that was checked and folded as it arrived, never kept: findings are
        located by frame and offset, with no excerpt."""
        g = cls.__new__(cls)
        g.path, g.status, g.allow, g.headers = "", status, set(allow), set()
        g.grammar = g.check_grammar = ENDPOINT_GRAMMAR[endpoint]
        g.findings, g.note, g.body, g.reads, g.timing = [], "", b"", [], None
        g.content = content if g.ok_status else None
        g.starts = content.starts if content is not None else []
        g.diagnostics = diagnostics
        return g

    def event_start(self, frame: int | None, offset: int | None) -> int | None:
        """Where a finding is: the event start its source gives (check and the content fold
        both locate at event starts), or, for a frame alone, that frame's start."""
        if offset is not None and (offset < len(self.body) or self.diagnostics is not None):
            return offset
        if frame is not None and 1 <= frame <= len(self.starts):
            return self.starts[frame - 1]
        return None

    @property
    def ok_status(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def excerpt(self, offset: int | None) -> str | None:
        if offset is None or offset >= len(self.body):
            return None
        line = self.body[offset : offset + 120].split(b"\n", 1)[0]
        return line.decode("utf-8", "replace")

    def add(
        self,
        source: str,
        code: str,
        message: str,
        *,
        severity: str = "error",
        frame: int | None = None,
        offset: int | None = None,
        field: str | None = None,
    ) -> None:
        offset = self.event_start(frame, offset)
        self.findings.append(
            Finding(source, code, message, severity, frame, offset, self.excerpt(offset), field)
        )


def _whole_answer(served: list[Served]) -> bool:
    """Did the gateway call its upstream without streaming (replay answered it in one JSON
    answer, or refused it, as the provider does a non-streaming request)?"""
    return any(x.framing == "json" for x in served)


#: statuses a client backs off and retries on (the SDKs' rule: 408, 409, 429 and 5xx)
RETRIED = frozenset({408, 409, 429})


def retried(status: int) -> bool:
    """Does a client back off and retry on this status? (tests/test_error_bodies.py)"""
    return status in RETRIED or status >= 500


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
            "diff",
            "changed",
            f"status: HTTP {g.status}, the upstream answered HTTP {up.status}"
            + (
                ": a client retries the upstream's, and gives up on this one"
                if lost
                else " (clients still retry it, but read another failure)"
            ),
            severity="error" if lost else "warning",
            field="status",
        )
    sent = {k.lower() for k, _ in up.plan.headers}
    if "retry-after" in sent and "retry-after" not in g.headers:
        g.add(
            "diff",
            "lost",
            "retry-after: the upstream said when to retry; the gateway's answer does not, so "
            "its clients back off on their own schedule",
            severity="warning",
            field="retry-after",
        )
    if g.diagnostics is None:
        _checked(g)


def _grade(
    g: Graded,
    sc: Scenario,
    ref: References,
    complete: bool,
    reason: str,
    upstream_requests: int,
    whole: bool = False,
) -> None:
    """The expectation, check and the content comparison, for a gateway that answered.
    ``whole``: the gateway called its upstream without streaming, so an upstream failure
    reached it as an HTTP error (or a dropped connection) before any output."""
    expect, dropped, ref_first, ref_clean = ref.expect, ref.dropped, ref.first, ref.clean
    if expect == "rejected":
        if not g.ok_status:
            g.note = f"rejected with HTTP {g.status}"
            return
        if upstream_requests < 2:
            said_error = g.content is not None and g.content.model.error is not None
            why = (
                "and then an error event: clients that back off and retry on the status "
                "(the SDKs do) take it for a failed stream instead"
                if said_error
                else "without retrying: a client cannot tell it from success"
            )
            g.add(
                "expect",
                "rejected",
                f"the upstream failed before the stream ({sc.fault}) and the gateway answered "
                f"HTTP {g.status} {why}",
                frame=1 if g.body else None,
                offset=0 if g.body else None,
            )
            _checked(g)
            return
        g.note = f"retried ({upstream_requests} upstream requests)"
        expect, want = "content", ref_clean
    else:
        want = ref_first if ref_first is not None else ref_clean
    if not g.ok_status:
        if expect in ("error", "content-or-error") and whole:
            g.note = f"rejected with HTTP {g.status} (its non-streaming upstream call failed)"
            return
        if expect in ("error", "content-or-error") and not _said_anything(want):
            g.note = f"rejected with HTTP {g.status} (the upstream failed before any output)"
            return
        if expect in ("error", "content-or-error") and g.status is not None and retried(g.status):
            # The upstream failed mid-stream before the gateway's own stream began: a
            # retryable error status hides nothing (a client would have raised on the cut
            # stream anyway, and retries this)
            g.note = f"rejected with HTTP {g.status} (the upstream failed before the stream began)"
            return
        g.add("expect", expect, f"HTTP {g.status}: the upstream answered 200 and streamed")
        return
    _checked(g)
    assert g.content is not None
    gw = g.content
    errored = gw.model.error is not None
    if expect == "content-or-error":
        expect = "error" if errored else "content"
        g.note = g.note or ("ended with an error frame" if errored else "whole content")
    # The upstream dropped and so did the gateway: every client raises on the cut, so the
    # failure reaches it (degraded but honest). A clean end instead hides it: no client can
    # tell that answer from a whole one, and that stays an error.
    mirrored = dropped and not complete
    if mirrored:
        _mirrored(g, reason)
    elif not complete:
        g.add("transport", "incomplete", f"the gateway's stream did not end cleanly: {reason}")
    upstream_failed = expect == "error"
    diffs = compare(want, gw, usage=sc.usage, prefix_only=upstream_failed, grammar=g.grammar)
    if mirrored:  # the reset tells the client the stream failed: no error frame is missing
        diffs = [d for d in diffs if d.field != "error"]
    for d in diffs:
        loc = d.gateway
        where = f"; upstream {d.upstream}" if d.upstream is not None else ""
        g.add(
            "diff",
            d.kind,
            f"{d.field}: {d.message}{where}",
            frame=loc.frame if loc else None,
            offset=loc.offset if loc else None,
            field=d.field,
        )
    if (
        upstream_failed
        and not errored
        and not mirrored
        and not any(d.field == "error" for d in diffs)
    ):
        last = gw.last
        how = "dropped the connection" if dropped else "sent an error"
        g.add(
            "expect",
            "error-then-done",
            f"the upstream {how} mid-stream; the gateway's stream has no error frame, so a "
            "client takes the partial answer for a whole one",
            frame=last.frame if last else None,
            offset=last.offset if last else None,
        )
    if upstream_requests > 1 and expect == "error":
        g.add(
            "expect",
            "failover",
            f"the gateway sent {upstream_requests} upstream requests after the stream had "
            "started (a retry after the first delta can duplicate or splice content)",
            severity="warning",
        )


#: The check codes that only say a stream stopped before its end (no terminal event, no
#: ``[DONE]``, a cut last event): what a gateway that mirrors its upstream's drop must show.
STREAM_CUT = {
    "chat": frozenset({"H003", "W011", "D001", "E003", "F001"}),
    "anthropic": frozenset({"H003", "W011", "A020"}),
    "responses": frozenset({"H003", "W011", "S040", "S028"}),
}


def _mirrored(g: Graded, reason: str) -> None:
    """The gateway aborted its client's connection where the upstream dropped: a warning, and
    the check findings that only say the stream was cut are warnings too."""
    cut = STREAM_CUT.get(g.grammar, frozenset())
    g.findings = [
        replace(f, severity="warning") if f.source == "check" and f.code in cut else f
        for f in g.findings
    ]
    g.add(
        "transport",
        "aborted",
        "the upstream dropped mid-stream and the gateway dropped its client's connection "
        f"({reason}): every client raises, so the failure is not hidden, but an error event "
        "before the end would tell the client why",
        severity="warning",
    )
    g.note = g.note or "aborted, as the upstream did"


def _said_anything(c: Content) -> bool:
    """Did the upstream send any output (text, reasoning, a call) before it failed?"""
    return any(
        ch.text or ch.reasoning or ch.refusal or ch.tool_calls for ch in c.model.choices.values()
    )


def _checked(g: Graded) -> None:
    """``check`` on the gateway's recording: errors fail, warnings are listed."""
    diagnostics = g.diagnostics
    if diagnostics is None:
        diagnostics = check_file(g.path, grammar=g.check_grammar).diagnostics
    for d in diagnostics:
        if d.code in g.allow:
            continue
        sev = d.severity
        if sev == Severity.INFO:
            continue
        g.add(
            "check",
            d.code,
            f"{d.name}: {d.message}",
            severity="error" if sev == Severity.ERROR else "warning",
            frame=d.frame,
            offset=d.offset if d.frame is not None else None,
        )
