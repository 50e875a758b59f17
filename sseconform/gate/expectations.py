"""The expectation policy: what each expectation makes of a gateway's answer, as a table of
small functions, one per expectation and step (its opening, before the answer is read; its
reading of an HTTP error; then the stream compared with the upstream's content).

- ``content``: a 2xx answer and everything arrives;
- ``error``: the upstream failed mid-stream: an error frame then the end, and nothing
  invented, lost or repeated before it;
- ``rejected``: the upstream failed before the stream: a non-2xx answer, or a clean retry
  whose content is whole;
- ``content-or-error``: a stall: either is fine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sseconform.gate import rules
from sseconform.gate.content import Content
from sseconform.gate.diff import Difference, compare
from sseconform.gate.graded import Graded, checked, retried
from sseconform.gate.references import References
from sseconform.gate.scenario import Scenario
from sseconform.rules.anthropic.rules import a020_message_stop_missing as a020
from sseconform.rules.catalog import Severity
from sseconform.rules.chat.rules import d001_done_missing as d001
from sseconform.rules.chat.rules import e003_truncated as e003
from sseconform.rules.chat.rules import f001_finish_missing as f001
from sseconform.rules.gemini.rules import v006_finish_reason_missing as v006
from sseconform.rules.gemini.rules import v022_whole_body_malformed as v022
from sseconform.rules.responses.rules import s028_item_left_open as s028
from sseconform.rules.responses.rules import s040_terminal_missing as s040
from sseconform.rules.responses.rules import s082_ws_closed_mid_response as s082
from sseconform.rules.shared.rules import h003_recording_incomplete as h003
from sseconform.rules.shared.rules import w011_unterminated_event as w011

__all__ = ["ON_HTTP_ERROR", "OPENING", "STREAM_CUT", "grade"]


def _why_twice(d: Difference, upstream_requests: int) -> str:
    """What the upstream's log says of content sent twice: a failover (the upstream asked
    again, its answer sent from the start) or the gateway's own repeat (asked once)."""
    if d.rule is not rules.diff.DUPLICATED:
        return ""
    if upstream_requests > 1:
        return (
            f" (the upstream was asked {upstream_requests} times: a failover after the first delta)"
        )
    return " (the upstream was asked once: the gateway repeated it)"


@dataclass
class _Case:
    """One gateway answer to grade against its expectation: what the expectation policy
    below reads. ``want``: the upstream content the answer is compared with; ``expect``: the
    expectation that holds once the policy has read the answer (a retried rejection holds
    as ``content``; ``content-or-error`` becomes the one the answer chose)."""

    g: Graded
    sc: Scenario
    ref: References
    complete: bool
    reason: str
    upstream_requests: int
    #: the gateway called its upstream without streaming: an upstream failure reached it as
    #: an HTTP error (or a dropped connection) before any output
    whole: bool
    expect: str
    want: Content


def grade(
    g: Graded,
    sc: Scenario,
    ref: References,
    complete: bool,
    reason: str,
    upstream_requests: int,
    whole: bool = False,
) -> None:
    """The expectation, check and the content comparison, for a gateway that answered: the
    expectation's opening, then its reading of an HTTP error or of a stream (the tables
    below, one small function per expectation and step)."""
    want = ref.first if ref.first is not None else ref.clean
    case = _Case(g, sc, ref, complete, reason, upstream_requests, whole, ref.expect, want)
    if not OPENING.get(case.expect, _open)(case):
        return
    if not g.ok_status:
        ON_HTTP_ERROR.get(case.expect, _http_error_fails)(case)
        return
    checked(g)
    assert g.content is not None
    if case.expect == "content-or-error":
        errored = g.content.model.error is not None
        case.expect = "error" if errored else "content"
        g.note = g.note or ("ended with an error frame" if errored else "answered in full")
    mirrored, error_diff = _compared(case)
    if case.expect == "error":
        _upstream_failed(case, mirrored or error_diff)


def _open(case: _Case) -> bool:
    """Most expectations: grade on (True)."""
    return True


def _open_rejected(case: _Case) -> bool:
    """``rejected``: the upstream failed before the stream. A non-2xx answer settles it; a
    2xx one must be a clean retry (two upstream requests), then graded as ``content``
    against the clean answer; a 2xx with one upstream request is the failure hidden."""
    g, sc = case.g, case.sc
    if not g.ok_status:
        g.note = f"rejected with HTTP {g.status}"
        return False
    if case.upstream_requests < 2:
        said_error = g.content is not None and g.content.model.error is not None
        why = (
            "and then an error event: clients that back off and retry on the status "
            "(the SDKs do) take it for a failed stream instead"
            if said_error
            else "without retrying: the client gets an answer in place of the status it "
            "would back off and retry on"
        )
        g.add(
            rules.expect.REJECTED,
            f"the upstream failed before the stream ({sc.fault}) and the gateway answered "
            f"HTTP {g.status} {why}",
            frame=1 if g.body else None,
            offset=0 if g.body else None,
        )
        checked(g)
        return False
    g.note = f"retried ({case.upstream_requests} upstream requests)"
    case.expect, case.want = "content", case.ref.clean
    return True


#: Each expectation's first step, before the answer is read (False: that settled it).
OPENING: dict[str, Callable[[_Case], bool]] = {"rejected": _open_rejected}


def _http_error_fails(case: _Case) -> None:
    """``content``: the upstream answered 200 and streamed; an HTTP error hides that."""
    g = case.g
    g.add(
        rules.expect.BY_EXPECTATION[case.expect],
        f"HTTP {g.status}: the upstream answered 200 and streamed",
    )


def _http_error_if_before_output(case: _Case) -> None:
    """``error`` and ``content-or-error``: an HTTP error is fine where the upstream's
    failure came before anything a client could have read - its non-streaming call failed,
    it had sent no output, or the status is one clients retry (they would have raised on the
    cut stream anyway, and retry this)."""
    g = case.g
    if case.whole:
        g.note = f"rejected with HTTP {g.status} (its non-streaming upstream call failed)"
    elif not _said_anything(case.want):
        g.note = f"rejected with HTTP {g.status} (the upstream failed before any output)"
    elif g.status is not None and retried(g.status):
        g.note = f"rejected with HTTP {g.status} (the upstream failed before the stream began)"
    else:
        _http_error_fails(case)


#: What each expectation makes of a non-2xx answer (the default: a finding).
ON_HTTP_ERROR: dict[str, Callable[[_Case], None]] = {
    "error": _http_error_if_before_output,
    "content-or-error": _http_error_if_before_output,
}


def _compared(case: _Case) -> tuple[bool, bool]:
    """A 2xx stream against ``want``: how it ended, and every difference in meaning; then
    whether it was cut where its upstream was (mirrored: a reset tells the client the stream
    failed, so no error frame is missing) and whether a difference is in the error itself.
    The upstream dropped and so did the gateway:
    every client raises on the cut, so the failure reaches it (degraded but honest); a
    clean end instead hides it, and stays an error."""
    g, gw = case.g, case.g.content
    assert gw is not None
    mirrored = case.ref.dropped and not case.complete
    if mirrored:
        _mirrored(g, case.reason)
    elif not case.complete:
        g.add(
            rules.transport.INCOMPLETE, f"the gateway's stream did not end cleanly: {case.reason}"
        )
    failed = case.expect == "error"
    diffs = compare(case.want, gw, usage=case.sc.usage, prefix_only=failed, grammar=g.grammar)
    if mirrored:
        diffs = [d for d in diffs if d.field != "error"]
    for d in diffs:
        loc = d.gateway
        where = f"; upstream {d.upstream}" if d.upstream is not None else ""
        g.add(
            d.rule,
            f"{d.field}: {d.message}{_why_twice(d, case.upstream_requests)}{where}",
            frame=loc.frame if loc else None,
            offset=loc.offset if loc else None,
            field=d.field,
            severity=d.severity,
        )
    return mirrored, any(d.field == "error" for d in diffs)


def _upstream_failed(case: _Case, told: bool) -> None:
    """``error``: the upstream failed mid-stream. The client must be told (an error frame;
    ``told``: the connection cut where the upstream's was, or a finding on the error field
    already), and a retry after the stream started can splice content."""
    g, gw = case.g, case.g.content
    assert gw is not None
    if gw.model.error is None and not told:
        last = gw.last
        how = "dropped the connection" if case.ref.dropped else "sent an error"
        g.add(
            rules.expect.ERROR_THEN_DONE,
            f"the upstream {how} mid-stream; the gateway's stream has no error frame, so a "
            "client takes the partial answer for a whole one",
            frame=last.frame if last else None,
            offset=last.offset if last else None,
        )
    if case.upstream_requests > 1:
        g.add(
            rules.expect.FAILOVER,
            f"the gateway sent {case.upstream_requests} upstream requests after the stream had "
            "started (a retry after the first delta can duplicate or splice content)",
            severity=Severity.WARNING,
        )


#: The check codes that only say a stream stopped before its end (no terminal event, no
#: ``[DONE]``, a cut last event): what a gateway that mirrors its upstream's drop must show.
_CUT = (h003.RULE.code, w011.RULE.code)
STREAM_CUT = {
    "chat": frozenset({*_CUT, d001.RULE.code, e003.RULE.code, f001.RULE.code}),
    "anthropic": frozenset({*_CUT, a020.RULE.code}),
    # S082: over WebSocket, the socket closed mid-response (a pass-through mirrors the
    # upstream's own drop so)
    "responses": frozenset({*_CUT, s040.RULE.code, s028.RULE.code, s082.RULE.code}),
    "gemini": frozenset({*_CUT, v006.RULE.code}),
}


def _mirrored(g: Graded, reason: str) -> None:
    """The gateway aborted its client's connection where the upstream dropped: a warning, and
    the check findings that only say the stream was cut are warnings too (of a non-streaming
    answer, its object cut: V022)."""
    cut = STREAM_CUT.get(g.grammar, frozenset())
    if g.whole:
        cut |= {v022.RULE.code}
    g.findings = [
        replace(f, severity=Severity.WARNING) if f.source == "check" and f.code in cut else f
        for f in g.findings
    ]
    g.add(
        rules.transport.ABORTED,
        rules.transport.aborted(reason, answered=True),
        severity=Severity.WARNING,
    )
    g.note = g.note or "aborted, as the upstream did"


def _said_anything(c: Content) -> bool:
    """Did the upstream send any output (text, reasoning, a call) before it failed?"""
    return any(
        ch.text or ch.reasoning or ch.refusal or ch.tool_calls for ch in c.model.choices.values()
    )


# -- a non-streaming client ----------------------------------------------------------------


def grade_whole(
    g: Graded,
    sc: Scenario,
    ref: References,
    complete: bool,
    reason: str,
    upstream_requests: int,
) -> None:
    """A client that asked without streaming (Gemini's ``:generateContent``) gets one
    answer or one status: whatever failed upstream, a 2xx must hold the whole clean answer
    (the upstream's, or a retry's) and a failure must reach it as an HTTP error. No error
    frame can be sent, so none is looked for."""
    if not g.ok_status:
        if ref.expect == "content":
            g.add(rules.expect.CONTENT, f"HTTP {g.status}: the upstream answered 200")
        else:
            g.note = (
                f"rejected with HTTP {g.status} (the upstream failed; its client gets the status)"
            )
        return
    checked(g)
    if not complete:
        if ref.dropped:  # the client raises on the cut body: the failure is not hidden
            _mirrored(g, reason)
        else:
            g.add(rules.transport.INCOMPLETE, f"the gateway's answer did not end cleanly: {reason}")
        return
    failed_once = ref.expect in ("error", "rejected") and upstream_requests < 2
    if failed_once:
        rule = rules.expect.REJECTED if ref.expect == "rejected" else rules.expect.FAILURE_AS_ANSWER
        g.add(
            rule,
            f"the upstream failed ({sc.fault}) and the gateway answered the non-streaming call "
            f"with HTTP {g.status}: its client takes the body for the whole answer",
            frame=1 if g.body else None,
            offset=0 if g.body else None,
        )
        return
    if upstream_requests > 1:
        g.note = f"retried ({upstream_requests} upstream requests)"
    case = _Case(g, sc, ref, complete, reason, upstream_requests, False, "content", ref.clean)
    _compared(case)
    g.note = g.note or "answered in full"
