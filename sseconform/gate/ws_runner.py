"""A suite through a gateway's WebSocket mode (``gate --transport websocket``, the Responses
endpoint): each scenario one WebSocket session, graded as its SSE answer is.

The upstream stays the SSE replay upstream of each dialect (the gateway bridges WebSocket to
it, as it bridges HTTP). For each scenario the gateway's ``/v1/responses`` is upgraded as
Codex CLI upgrades it, the scenario's request goes as one ``response.create`` and the session
is recorded byte-exact and timed (:func:`sseconform.record.websocket.record_websocket`: the
gateway's evidence). A conversation's later turns go on the same socket, each once the turn
before has ended, with only the new input items (a tool result per call the client got) and
``previous_response_id`` naming the turn before's response, as Codex sends them.

Each turn is then read as the SSE answer it stands for (:mod:`.ws_turns`, written beside the
session as ``NAME.turnK.as-sse.jsonl``) and graded by the same code as an SSE answer
(:func:`~.grading.grade_recording`: check's Responses rules, the content against the
upstream's, the expectation, timing against the upstream's log on one clock), plus what
WebSocket adds; every finding is located by the session's message number.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.findings import Finding
from sseconform.gate import rules
from sseconform.gate.bounds import deadline_for
from sseconform.gate.evidence import collect, requests_of
from sseconform.gate.expectations import STREAM_CUT
from sseconform.gate.grading import grade_recording
from sseconform.gate.prepared import Later, Prepared, asked_of
from sseconform.gate.result import ScenarioResult
from sseconform.gate.rules.transport import WEBSOCKET_REFUSED, websocket_cost
from sseconform.gate.runner import LOG_WAIT, SuiteRun
from sseconform.gate.scenario import Scenario
from sseconform.gate.turns import next_body, upstream_history
from sseconform.gate.upstream import rules_for
from sseconform.gate.websocket_probe import BETA
from sseconform.gate.ws_turns import (
    AsSse,
    SessionTurn,
    SessionTurns,
    as_sse,
    closed_between,
    located,
    read_session,
    websocket_findings,
    write_as_sse,
)
from sseconform.record.websocket import WsOutcome, record_websocket
from sseconform.recording.format import RecordingError
from sseconform.replay.plan import Loaded
from sseconform.replay.served import Served
from sseconform.rules.catalog import Severity
from sseconform.version import __version__
from sseconform.websocket.frames import Closed
from sseconform.wires import assistant_turn

__all__ = ["WsSuiteRun", "as_sse_path"]

#: A bound the recorder stopped the session at -> the SSE grading's (``grading.BOUNDS``);
#: a stall is no bound there (the answer is cut: its reason says "stalled").
_BOUNDS = {
    "deadline": "deadline",
    "turn-deadline": "deadline",
    "max-bytes": "max-bytes",
    "message": "max-bytes",
}


def as_sse_path(session: str, k: int) -> str:
    """Where turn ``k`` of the session recorded at ``session`` is written as SSE."""
    return session.removesuffix(".jsonl") + (f".turn{k}" if k > 1 else "") + ".as-sse.jsonl"


@dataclass
class _Sent:
    """One turn as the client sent it: its tag, body, and what the upstream answers it by.
    ``full``: the same turn with the whole history, as an SSE client sends it: what the
    gateway must bring its upstream (the state the turns before issued, every result)."""

    k: int
    tag: str
    body: dict[str, Any]
    scenario: Scenario
    later: Later | None = None
    full: dict[str, Any] = field(default_factory=dict)
    #: the state the upstream issued on the turn before, which this turn carries back
    issued: set[str] = field(default_factory=set)


@dataclass
class _Plan:
    """A scenario's turns, the later ones made as the session goes."""

    sent: list[_Sent] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


class WsSuiteRun(SuiteRun):
    """One suite's scenarios through one gateway's WebSocket mode, against one running SSE
    upstream (a scenario's result as :meth:`SuiteRun.one` makes it for SSE)."""

    def one(self, sc: Scenario, rec: Loaded) -> ScenarioResult:
        base, ready = self.begin(sc, rec)
        if ready is None:
            return base
        suite, server = self.suite, self.server
        tag = self.tagged(sc, ready.fresh_rules())
        out = self.out_path(sc)
        first = orjson.loads(ready.body(tag))
        plan = _Plan([_Sent(1, tag, first, sc, full=first)])
        turns: list[Any] = [dict(plan.sent[0].body)]
        for k, (turn, later) in enumerate(zip(sc.turns, ready.later, strict=True), start=2):
            turns.append(self._next_turn(k, sc, ready, plan, turn.result, later))
        before = len(server.served)
        deadline = ready.deadline + sum(deadline_for(x.ref.seconds) for x in ready.later)
        t0 = time.monotonic()
        outcome = record_websocket(
            ready.url, turns, out,
            headers=[*ready.headers, ("OpenAI-Beta", BETA)],
            force=True,
            connect_timeout=30.0,
            stall_timeout=suite.timeout,
            deadline=deadline,
            max_bytes=ready.max_bytes * len(turns),
        )  # fmt: skip
        base.seconds = time.monotonic() - t0
        base.recording = out
        base.expect = ready.ref.expect
        served = self._served(before, plan)
        for s in served.values():
            base.upstream_log += [x.line() for x in s]
            base.upstream_requests += len(s)
        try:
            session = read_session(out)
        except (OSError, RecordingError) as exc:
            base.findings.append(
                Finding.of(rules.transport.NO_RESPONSE, f"the session's recording: {exc}")
            )
            return base
        if session.status != 101:
            self._not_upgraded(base, outcome)
            return base
        ws = websocket_findings(out, session)
        base.findings += ws.get(0, [])  # before any turn: a turn's own go with it
        self._grade(base, ready, plan, session, outcome, served, ws)
        return base

    def _next_turn(
        self, k: int, sc: Scenario, ready: Prepared, plan: _Plan, result: str, later: Later
    ) -> Any:
        """Turn ``k``'s body, made from what the client got on turn ``k - 1`` (the recorder
        calls it then): a tool result per call, only the new items, and
        ``previous_response_id`` naming the turn before's response; None (and
        ``history:not-sent``) when the client got no call."""
        endpoint = self.suite.endpoint
        ready_ref = ready.ref

        def make(texts: list[str]) -> dict[str, Any] | None:
            if len(plan.sent) != k - 1:
                return None  # an earlier turn was not sent
            answer = assistant_turn(endpoint, _as_events(texts))
            if not answer.calls:
                plan.findings.append(
                    Finding.of(
                        rules.history.NOT_SENT,
                        f"turn {k}: not sent: the gateway's client got no tool call on "
                        f"turn {k - 1}, so it had no result to send back",
                        turn=k,
                    )
                )
                return None
            tag = self.tagged(sc, rules_for(later.scenario, later.recording), f".t{k}")
            before = plan.sent[-1]
            body = next_body(endpoint, before.body, answer, result, tag, "previous-response")
            full = next_body(endpoint, before.full, answer, result, tag, "full")
            ref = before.later.ref if before.later is not None else ready_ref
            issued = set(ref.clean.state.values())
            plan.sent.append(_Sent(k, tag, body, later.scenario, later, full, issued))
            return body

        return make

    def _served(self, before: int, plan: _Plan) -> dict[int, list[Served]]:
        """What the upstream logged of each turn (by its tag; an untagged request is the
        first turn's when one scenario runs at a time), once it has logged every turn
        sent or :data:`LOG_WAIT` has passed."""
        server = self.server

        def seen() -> dict[int, list[Served]]:
            out: dict[int, list[Served]] = {}
            for s in plan.sent:
                if self.shared:
                    ok = (s.tag, None) if s.k == 1 else (s.tag,)
                    out[s.k] = [x for x in server.served[before:] if x.tag in ok]
                else:
                    out[s.k] = server.served_for(s.tag)
            return out

        got = seen()
        wait_until = time.monotonic() + LOG_WAIT
        while not all(got.values()) and time.monotonic() < wait_until:
            time.sleep(0.02)
            got = seen()
        time.sleep(0.05)  # a retry's second request, logged just after the first
        return seen()

    def _not_upgraded(self, base: ScenarioResult, outcome: WsOutcome) -> None:
        """The gateway did not take this scenario's upgrade (the run's probe was)."""
        base.status = outcome.status
        if outcome.status is None:
            base.findings.append(
                Finding.of(
                    rules.transport.NO_RESPONSE, f"no answer from the gateway: {outcome.reason}"
                )
            )
            return
        cost = websocket_cost("refused", outcome.status)
        severity, what = cost if cost is not None else (WEBSOCKET_REFUSED.severity, "")
        base.findings.append(
            Finding.of(
                WEBSOCKET_REFUSED,
                f"the gateway refused this scenario's WebSocket upgrade ({outcome.reason})"
                + (f": {what}" if what else ""),
                severity=severity,
            )
        )

    def _grade(
        self,
        base: ScenarioResult,
        ready: Prepared,
        plan: _Plan,
        session: SessionTurns,
        outcome: WsOutcome,
        served: dict[int, list[Served]],
        ws: dict[int, list[Finding]],
    ) -> None:
        """Every turn sent, graded as its SSE answer, with what check found WebSocket add
        to it (``ws``, by turn); then why a due turn was not sent."""
        sent = {s.k: s for s in plan.sent}
        for turn in session.turns:
            s = sent.get(turn.number)
            if s is None:  # the client sends no turn it did not plan
                continue
            cut = turn.number == len(session.turns) and turn.terminal is None
            reason = outcome.reason if cut else ""
            bound = _bound(outcome, turn) if cut else None
            if cut and outcome.bound is not None:
                turn.end = None  # the client stopped the session (a bound): no close of its
            own = ws.get(turn.number, [])
            got = served.get(turn.number, [])
            self._turn(base, ready, s, turn, got, outcome, reason, bound, own)
        base.findings += plan.findings
        due = len(ready.later) + 1
        k = len(session.turns) + 1
        if k <= due and not any(f.turn == k for f in plan.findings):
            gone = closed_between(session, k)
            if gone is not None:
                base.findings.append(gone)

    def _turn(
        self,
        base: ScenarioResult,
        ready: Prepared,
        s: _Sent,
        turn: SessionTurn,
        served: list[Served],
        outcome: WsOutcome,
        reason: str,
        bound: str | None,
        ws: list[Finding],
    ) -> None:
        """Turn ``s.k`` graded: as an SSE answer (its findings located by message), what
        WebSocket adds (``ws``: check's findings in the turn), and for a later turn what
        the upstream made of its history."""
        suite, k = self.suite, s.k
        conv = as_sse(turn, reason)
        path = as_sse_path(base.recording, k)
        request = {"method": "POST", "url": ready.url, "headers": [], "body": s.body}
        extra = {"tool": f"sseconform {__version__}", "session": base.recording, "turn": k}
        write_as_sse(conv, path, request, extra=extra)
        found: list[Finding] = []
        if k > 1:
            base.turns.append(path)
            # the history the turn stands for (what an SSE client sends whole) against what
            # the upstream got: a gateway that forwards only the new items loses the rest
            # (unless it passed previous_response_id on to an upstream that keeps responses)
            continued = any(
                '"previous_response_id":"' in x.request.replace(" ", "") for x in served
            )
            found += upstream_history(k, s.full, served, set() if continued else s.issued)
            if any(f.code == "refused" for f in found):
                base.findings += _in_turn(found + ws, k)
                return
        ref = ready.ref if s.later is None else s.later.ref
        status = _status(conv, turn)
        if status is None and bound is None and isinstance(turn.end, Closed):
            # no message at all, then a close: the close is the whole answer (no status, no
            # body an SSE reading could grade)
            found += ws
            base.findings += _in_turn(found, k) if k > 1 else found
            return
        g = grade_recording(
            s.scenario, ref, path, status, served, complete=conv.complete,
            reason=_hinted(conv.reason), allow=suite.allow, endpoint=suite.endpoint,
            t0=outcome.started + turn.t0, budgets=suite.budgets if k == 1 else None,
            bound=bound, grammar=suite.grammar, tools=ready.tools,
            asked=asked_of(suite.endpoint, s.body, ready.headers) if k > 1 else ready.asked,
            streaming=True,
        )  # fmt: skip
        found += located(g.findings, conv)
        if any(f.rule is rules.transport.ABORTED and f.severity is Severity.WARNING
               for f in g.findings):  # fmt: skip
            # the gateway mirrored its upstream's drop (a pass-through's socket closes as the
            # upstream's did): what only says the answer was cut is a warning, as over SSE
            cut = STREAM_CUT["responses"]
            ws = [dataclasses.replace(f, severity=Severity.WARNING) if f.code in cut else f
                  for f in ws]  # fmt: skip
        found += ws
        if k == 1:
            base.status = status
            base.findings += found
            base.note = g.note
            base.timing = g.timing
        else:
            base.findings += _in_turn(found, k)
        if self.evidence:
            upstream = ref.clean if ref.first is None or ref.expect == "rejected" else ref.first
            ev = collect(
                findings=g.findings, upstream=upstream, gateway=g.content, body=g.body,
                reads=g.reads, served=served, t0=outcome.started + turn.t0,
                pairs=g.timing.pairs if g.timing is not None else None, grammar=g.grammar,
            )  # fmt: skip
            ev.requests = requests_of(orjson.dumps(s.body), served)
            if k == 1:
                base.evidence = ev
            else:
                ev.turn = k
                base.later_evidence.append(ev)


def _bound(outcome: WsOutcome, turn: SessionTurn) -> str | None:
    """The SSE grading's bound for a turn the recorder stopped at one: past its deadline, a
    turn whose last message came well before it went silent (no terminal event a client
    reads ever came), else it was still sending."""
    bound = _BOUNDS.get(outcome.bound or "")
    if bound == "deadline":
        last = turn.messages[-1].t if turn.messages else turn.t0
        if outcome.elapsed - last > _QUIET:
            return "silent"
    return bound


#: Seconds without a message before a turn stopped at its deadline counts as silent.
_QUIET = 1.0


def _status(conv: AsSse, turn: SessionTurn) -> int | None:
    """The status an SSE client would have read: None when the turn got no message at all
    (nothing answered it)."""
    return conv.status if turn.messages else None


def _hinted(reason: str) -> str:
    return reason + " (see --timeout)" if reason.startswith("stalled") else reason


def _in_turn(found: list[Finding], k: int) -> list[Finding]:
    """Turn ``k``'s findings, each saying so (``turn 2: ...``) once."""
    out = []
    for f in found:
        said = f.message if f.message.startswith(f"turn {k}:") else f"turn {k}: {f.message}"
        out.append(dataclasses.replace(f, message=said, turn=k))
    return out


def _as_events(texts: list[str]) -> bytes:
    """A turn's text messages as the SSE stream a wire reads a turn from (what is not one
    JSON object is passed over: no client reads it)."""
    out = bytearray()
    for text in texts:
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out += b"data: " + orjson.dumps(obj) + b"\n\n"
    return bytes(out)
