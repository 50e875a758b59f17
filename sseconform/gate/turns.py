"""A conversation through the gateway: after the first turn, each next request is built
from what the gateway's client got (:mod:`.conversation`), sent, recorded and graded like
the first, and what came back is compared with what the client sent back.

A later turn fails when:

- the upstream refused the history the gateway forwarded (``history:refused``: replay
  checks it as the provider does, :mod:`sseconform.replay.history`), quoting its reason;
- a piece of state the client sent back never reached the upstream (``history:lost``);
- the gateway's upstream request holds fewer tool results than the client sent
  (``history:lost-result``);
- the turn's own answer fails as a one-turn scenario would (the same findings).

Each finding names its turn (``turn: 2``; its message starts ``turn 2:``), and each turn's
answer is recorded beside the first's (``NAME.turn2.jsonl``).
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from sseconform.findings import Finding
from sseconform.gate import rules
from sseconform.gate.evidence import MAX_EVENT, Evidence, collect, requests_of
from sseconform.gate.grading import grade_recording
from sseconform.gate.prepared import asked_of
from sseconform.gate.references import References
from sseconform.gate.result import ScenarioResult
from sseconform.gate.scenario import Scenario
from sseconform.gate.upstream import rules_for
from sseconform.recording.format import RecordingError, RecordingReader
from sseconform.replay.history import returned
from sseconform.replay.plan import Loaded
from sseconform.wires import assistant_turn, by_endpoint
from sseconform.wires.base import Assistant

if TYPE_CHECKING:
    from sseconform.gate.prepared import Prepared
    from sseconform.gate.suite import Suite
    from sseconform.record import Outcome
    from sseconform.replay.served import Served
    from sseconform.replay.server import ReplayServer

__all__ = ["Conversation", "Exchanges", "next_body", "upstream_history"]


def _dumped(body: dict[str, object]) -> bytes:
    """The next request's bytes: a number the accumulation summed past 64 bits (two chunks'
    unknown field at 2**64-1, added as openai-python adds them) is written as Python writes
    it, where orjson refuses it."""
    try:
        return orjson.dumps(body)
    except TypeError:
        return json.dumps(body, ensure_ascii=False).encode()


def next_body(
    endpoint: str,
    previous: dict[str, Any],
    answer: Assistant,
    result: str,
    tag: str,
    history: str = "full",
) -> dict[str, Any]:
    """The next request: ``previous`` (the request of the turn ``answer`` answered) with the
    assistant turn and a tool result per call (``result``, then ``[sseconform:TAG]``: the
    replay upstream routes the turn by the last tag a request holds, the earlier turns'
    prompts holding theirs), as the endpoint's reference agent sends it."""
    text = f"{result} [sseconform:{tag}]"
    return by_endpoint(endpoint).next_body(previous, answer, text, history)


class Exchanges(Protocol):
    """What a conversation needs of the run it is part of (``runner.SuiteRun``)."""

    suite: Suite
    server: ReplayServer
    shared: bool
    evidence: bool

    def exchange(
        self, ready: Prepared, body: bytes, tag: str, out: str
    ) -> tuple[Outcome, list[Served], float]: ...


class Conversation:
    """One scenario's later turns, after its first was sent and graded."""

    def __init__(self, run: Exchanges, sc: Scenario, ready: Prepared, tag: str) -> None:
        self.run = run
        self.sc = sc
        self.ready = ready
        self.tag = tag

    def run_turns(self, base: ScenarioResult, answered: bytes) -> None:
        """Send every later turn in order, each built on the gateway's recorded answer
        before it (``answered``: the first turn's); their findings, log lines and
        recordings go into ``base``."""
        sc, ready, endpoint = self.sc, self.ready, self.run.suite.endpoint
        body = orjson.loads(ready.body(self.tag))
        issued = ready.ref.clean.state.values()
        for k, (turn, later) in enumerate(zip(sc.turns, ready.later, strict=True), start=2):
            answer = assistant_turn(endpoint, answered, whole=not self.run.suite.streaming)
            if not answer.calls:
                base.findings.append(
                    Finding.of(
                        rules.history.NOT_SENT,
                        f"turn {k}: not sent: the gateway's client got no tool call on "
                        f"turn {k - 1}, so it had no result to send back",
                        turn=k,
                    )
                )
                return
            tag = f"{self.tag}.t{k}"
            body = next_body(endpoint, body, answer, turn.result, tag, sc.history)
            out = base.recording.removesuffix(".jsonl") + f".turn{k}.jsonl"
            ref = later.ref
            findings, served, answered = self._turn(
                k, later.scenario, ref, later.recording, body, tag, out, issued, base
            )
            base.findings += findings
            base.upstream_log += [x.line() for x in served]
            base.upstream_requests += len(served)
            base.turns.append(out)
            issued = ref.clean.state.values()  # what the next turn must bring back

    def _turn(
        self, k: int, sc: Scenario, ref: References, rec: Loaded, body: dict[str, object],
        tag: str, out: str, issued: set[str], base: ScenarioResult,
    ) -> tuple[list[Finding], list[Served], bytes]:  # fmt: skip
        """Turn ``k`` sent and graded: its findings, what the upstream logged of it, and the
        gateway's recorded answer (empty when the upstream refused the history); its
        evidence goes into ``base`` when the run keeps evidence."""
        run, ready = self.run, self.ready
        run.server.route_tag(tag, rules_for(sc, rec))
        if run.shared:  # one at a time: an untagged request is this turn's too
            run.server.rules = rules_for(sc, rec)
        sent = _dumped(body)
        outcome, served, _ = run.exchange(ready, sent, tag, out)
        found = upstream_history(k, body, served, issued)
        if any(f.code == "refused" for f in found):
            if run.evidence:  # what the client got is the refusal, as the gateway passed it
                ev = Evidence(turn=k, requests=requests_of(sent, served))
                ev.gateway_extra["body"] = _answer(out)
                ev.upstream_extra["body"] = "\n".join(
                    x.ending for x in served if x.ending.startswith("refused: ")
                )
                base.later_evidence.append(ev)
            return found, served, b""  # the answer is the refusal: nothing else to grade
        g = grade_recording(
            sc, ref, out, outcome.progress.status, served, complete=outcome.complete,
            reason=outcome.reason, allow=run.suite.allow, endpoint=run.suite.endpoint,
            bound=outcome.bound, grammar=run.suite.grammar, tools=ready.tools,
            asked=asked_of(run.suite.endpoint, body, ready.headers),
            streaming=run.suite.streaming,
        )  # fmt: skip
        for f in g.findings:
            found.append(dataclasses.replace(f, message=f"turn {k}: {f.message}", turn=k))
        if run.evidence:
            upstream = ref.clean if ref.first is None else ref.first
            ev = collect(
                findings=g.findings, upstream=upstream, gateway=g.content, body=g.body,
                reads=g.reads, served=served, t0=outcome.started, grammar=g.grammar,
            )  # fmt: skip
            ev.turn, ev.requests = k, requests_of(sent, served)
            base.later_evidence.append(ev)
        return found, served, g.body


def upstream_history(
    k: int, sent: dict[str, object], served: list[Served], issued: set[str]
) -> list[Finding]:
    """What the upstream made of the history the gateway forwarded on turn ``k``."""
    out: list[Finding] = []
    for x in served:
        if x.ending.startswith("refused: "):
            out.append(
                Finding.of(
                    rules.history.REFUSED,
                    f"turn {k}: the upstream refused the history the gateway forwarded "
                    f"(HTTP {x.status}): {x.ending.removeprefix('refused: ')}",
                    turn=k,
                )
            )
    client = returned(sent)
    got = [x.returned for x in served if x.returned is not None]
    if not got:
        return out
    upstream = got[-1]
    lost = sorted(v for v in client.values & issued if v not in upstream.values)
    if lost:
        out.append(
            Finding.of(
                rules.history.LOST,
                f"turn {k}: {len(lost)} piece(s) of state the upstream issued and the "
                f"gateway's client sent back never reached the upstream "
                f"({', '.join(_shown(v) for v in lost[:3])}): the gateway dropped them from "
                "the history it forwarded, and a provider that verifies them refuses it",
                turn=k,
            )
        )
    if upstream.results < client.results:
        out.append(
            Finding.of(
                rules.history.LOST_RESULT,
                f"turn {k}: the gateway's client sent {client.results} tool result(s); the "
                f"upstream's request holds {upstream.results}",
                turn=k,
            )
        )
    return out


def _answer(recording: str) -> str:
    """The start of what the gateway's client got (a refused turn's error body)."""
    body = b""
    try:
        with open(recording, "rb") as fp:
            for _, data in RecordingReader(fp, recording, by="gate").reads():
                body += data
                if len(body) >= MAX_EVENT:
                    break
    except (OSError, RecordingError):
        pass  # the recording's own check reports it
    return body[:MAX_EVENT].decode("utf-8", "replace")


def _shown(value: str) -> str:
    return f"{len(value)} bytes starting {value[:12]!r}"
