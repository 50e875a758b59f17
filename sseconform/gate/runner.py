"""Run a suite through a gateway: replay is the upstream, record takes the gateway's answer.

For each scenario, in order: the replay server (on loopback) is told which recording and
which fault answer the next upstream requests (:mod:`.upstream`); the scenario's request goes
to the gateway (:mod:`.request`); its stream is recorded (byte-exact, into the artefacts
folder); then it is graded (:mod:`.grading`) into a :class:`~.result.ScenarioResult`.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from sseconform.gate.evidence import collect, requests_of
from sseconform.gate.grading import grade_recording
from sseconform.gate.liveness import Liveness
from sseconform.gate.prepared import Prepared, not_applicable, prepare
from sseconform.gate.request import GatewayRequests
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite
from sseconform.gate.turns import Conversation
from sseconform.gate.upstream import Upstream
from sseconform.record import Outcome, Request, record
from sseconform.replay.plan import Loaded
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.served import Served
from sseconform.replay.server import ReplayServer
from sseconform.rules.catalog import Severity

__all__ = [
    "CONFIRMATIONS",
    "LOG_WAIT",
    "SuiteRun",
    "confirmed",
    "run_suite",
    "slug",
    "unique_slugs",
]

#: How long to wait for the upstream to log the request of a scenario whose gateway answer
#: is complete, before calling it unreached (seconds; it usually takes under a millisecond).
LOG_WAIT = 1.0


def slug(name: str) -> str:
    """A file name for a scenario or suite name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "scenario"


def unique_slugs(names: list[str]) -> list[str]:
    """A file name per name, in order, no two alike (``a-b`` and ``a b`` make ``a-b`` and
    ``a-b-2``; compared without case, as some file systems compare them)."""
    taken: set[str] = set()
    out: list[str] = []
    for name in names:
        base = candidate = slug(name)
        n = 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate.lower())
        out.append(candidate)
    return out


def run_suite(
    suite: Suite,
    gateway: str,
    out_dir: str,
    *,
    upstream_host: str = "127.0.0.1",
    upstream_port: int = 0,
    key: str | None = None,
    headers: list[tuple[str, str]] | None = None,
    select: Callable[[Scenario], bool] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
    concurrency: int = 1,
    evidence: bool = False,
    confirm_timing: bool = True,
    run_class: type[SuiteRun] | None = None,
) -> SuiteResult:
    """Run every scenario of ``suite`` through ``gateway``; recordings go to ``out_dir``.

    ``headers`` (``gate --header``) go with every request, over the suite's and profile's.
    ``concurrency`` scenarios are in flight at once (each request tagged, so the upstream
    tells them apart); results come in the suite's order whatever order they finish in.
    ``evidence``: keep what the HTML report shows of each scenario (:mod:`.evidence`).
    ``confirm_timing``: the scenarios with a timing error run again once all have run (apart
    from the rest of the suite, at most ``concurrency`` at once), up to
    :data:`CONFIRMATIONS` times, and only the timing findings every run had are reported
    (see :func:`confirmed`). ``run_class``: how each scenario reaches the gateway
    (:class:`SuiteRun`, HTTP + SSE, unless told: ``ws_runner.WsSuiteRun``).
    """
    upstream = Upstream(suite.scenarios)
    os.makedirs(out_dir, exist_ok=True)
    server = ReplayServer(
        upstream.all,
        host=upstream_host,
        port=upstream_port,
        speed=suite.speed,
        measure=True,
        strict=True,
    )
    results: list[ScenarioResult] = []
    with server.running():
        if on_start is not None:
            on_start(server.url)
        run = (run_class or SuiteRun)(
            suite, GatewayRequests(suite, gateway, server.url, key, headers), server, out_dir,
            upstream.turns,
        )  # fmt: skip
        run.shared = concurrency <= 1
        run.evidence = evidence
        live = run.live = Liveness(gateway)
        chosen = [sc for sc in suite.scenarios if select is None or select(sc)]
        if concurrency <= 1:
            for sc in chosen:
                result = run.one(sc, upstream.by_scenario[sc.name])
                live.after(result)
                results.append(result)
                if on_result is not None:
                    on_result(result)
        else:
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                futures = {
                    pool.submit(run.one, sc, upstream.by_scenario[sc.name]): n
                    for n, sc in enumerate(chosen)
                }
                done: dict[int, ScenarioResult] = {}
                for future in as_completed(futures):
                    done[futures[future]] = result = future.result()
                    live.after(result)
                    if on_result is not None:
                        on_result(result)
            results = [done[n] for n in range(len(chosen))]
        again = [n for n, r in enumerate(results) if confirm_timing and _timing_errors(r)]
        for _ in range(CONFIRMATIONS):
            if not again or live.down is not None:  # nothing to measure it against now
                break
            run.shared = concurrency <= 1 or len(again) == 1
            run.attempt += 1  # its recordings beside the first run's, never over them
            with ThreadPoolExecutor(max_workers=1 if run.shared else concurrency) as pool:
                later = pool.map(
                    lambda n: run.one(chosen[n], upstream.by_scenario[chosen[n].name]), again
                )
                for n, r in zip(again, later, strict=True):
                    results[n] = confirmed(results[n], r)
                    if on_result is not None:
                        on_result(results[n])
            again = [n for n in again if _timing_errors(results[n])]
    profile = suite.profile.name if suite.profile is not None else None
    return SuiteResult(
        suite.name, gateway.rstrip("/"), server.url, results, profile, down=live.down
    )


#: How many more times a scenario with a timing error runs: a finding is reported only when
#: every run had it. One late run in three on a loaded 2-core CI machine is the noise this
#: absorbs (a faithful gateway, starved of CPU by the tests beside it, was late twice).
CONFIRMATIONS = 2


def _hinted(reason: str) -> str:
    """A recorder's reason, with the gate option that sets its bound."""
    return reason + " (see --timeout)" if reason.startswith("stalled") else reason


def _timing_errors(r: ScenarioResult) -> set[str]:
    return {f.code for f in r.findings if f.source == "timing" and f.severity == Severity.ERROR}


def confirmed(first: ScenarioResult, second: ScenarioResult) -> ScenarioResult:
    """A scenario measured again (apart from the rest of the suite): the first run's
    result, its evidence and recording, with only the timing findings every run had. On a
    loaded machine a run can be late by chance; a gateway that really adds the time does it
    every time (a false alarm costs more trust than a miss). The later run only confirms: a
    later run that failed otherwise (the gateway died meanwhile) replaces nothing."""
    both = {f.code for f in first.findings if f.source == "timing"} & {
        f.code for f in second.findings if f.source == "timing"
    }
    dropped = sorted(_timing_errors(first) - both)
    first.findings = [f for f in first.findings if f.source != "timing" or f.code in both]
    notes = []
    if dropped:
        names = ", ".join(f"timing:{c}" for c in dropped)
        notes.append(f"{names} not confirmed by a later run: not reported")
    had = {f.key for f in first.findings}
    other = sorted({f.key for f in second.findings if f.source != "timing"} - had)
    if other:
        notes.append(
            f"the confirming run ({second.recording}) also had {', '.join(other[:3])}"
            + (f" and {len(other) - 3} more" if len(other) > 3 else "")
            + ": not this scenario's result"
        )
    if notes:
        note = "; ".join(notes)
        first.note = f"{first.note}; {note}" if first.note else note
    return first


class SuiteRun:
    """One suite's scenarios through one gateway, against one running upstream."""

    def __init__(
        self,
        suite: Suite,
        requests: GatewayRequests,
        server: ReplayServer,
        out_dir: str,
        later_turns: dict[str, list[Loaded]] | None = None,
    ) -> None:
        self.suite = suite
        self.requests = requests
        self.server = server
        self.out_dir = out_dir
        #: one scenario at a time: untagged requests (a gateway that drops the tag) are
        #: still the running scenario's; in flight with others, only tagged ones are
        self.shared = True
        self.evidence = False
        self._tags = itertools.count(1)
        #: 0 for the suite's run, then each confirmation run's number
        self.attempt = 0
        #: the watch on the gateway: once it is down, no scenario is sent
        self.live: Liveness | None = None
        #: each scenario's recording's file name (two names may make the same slug)
        names = [sc.name for sc in suite.scenarios]
        self.files = dict(zip(names, unique_slugs(names), strict=True))
        self._nonce = uuid.uuid4().hex[:8]
        self._prepared: dict[str, Prepared] = {}
        #: each conversation's later turns' recordings (``Upstream.turns``)
        self.later_turns = later_turns or {}

    def prepared(self, sc: Scenario, rec: Loaded) -> Prepared | str:
        """``sc`` ready to run, made once for all its runs (or why it is not applicable)."""
        why = not_applicable(self.suite, sc)
        if why is not None:
            return why
        if sc.name not in self._prepared:
            later = self.later_turns.get(sc.name)
            self._prepared[sc.name] = prepare(self.suite, self.requests, sc, rec, later=later)
        return self._prepared[sc.name]

    def begin(self, sc: Scenario, rec: Loaded) -> tuple[ScenarioResult, Prepared | None]:
        """A scenario's result to fill in, and the scenario ready to send (None: the result
        is final already: not applicable, or the gateway is down)."""
        dialect = sc.served_dialect
        assert dialect is not None
        base = ScenarioResult(
            sc.name, "", None, "", 0, 0.0, suite=self.suite.name, dialect=dialect,
            endpoint=self.suite.endpoint,
        )  # fmt: skip
        ready = self.prepared(sc, rec)
        if isinstance(ready, str):
            base.applicable = False
            base.expect = sc.expect or "-"
            base.note = ready
            return base, None
        if self.live is not None and self.live.down is not None:
            return self.live.not_graded(base), None
        return base, ready

    def tagged(self, sc: Scenario, rules: list[ReplayRule], suffix: str = "") -> str:
        """A new tag for one of ``sc``'s requests (``suffix``: a later turn's), routed to
        ``rules`` (the only rules, when one scenario runs at a time)."""
        tag = f"{self._nonce}.{next(self._tags)}.{slug(sc.name)}{suffix}"
        self.route(tag, rules)
        return tag

    def route(self, tag: str, rules: list[ReplayRule]) -> None:
        """The upstream answers ``tag`` by ``rules`` (and an untagged request too, when one
        scenario runs at a time)."""
        self.server.route_tag(tag, rules)
        if self.shared:
            self.server.rules = [dataclasses.replace(r, used=0) for r in rules]

    def out_path(self, sc: Scenario) -> str:
        """Where this run of ``sc`` records the gateway's answer."""
        again = f".confirm{self.attempt}" if self.attempt else ""
        name = f"{self.files.get(sc.name) or slug(sc.name)}{again}.jsonl"
        return str(Path(self.out_dir) / name)

    def one(self, sc: Scenario, rec: Loaded) -> ScenarioResult:
        base, ready = self.begin(sc, rec)
        if ready is None:
            return base
        suite = self.suite
        ref = ready.ref
        tag = self.tagged(sc, ready.fresh_rules())
        out = self.out_path(sc)
        sent = ready.body(tag)
        outcome, served, seconds = self.exchange(ready, sent, tag, out)
        g = grade_recording(
            sc, ref, out, outcome.progress.status, served, complete=outcome.complete,
            reason=_hinted(outcome.reason), allow=suite.allow, endpoint=suite.endpoint,
            t0=outcome.started, budgets=suite.budgets, bound=outcome.bound,
            grammar=suite.grammar, tools=ready.tools, asked=ready.asked,
            streaming=suite.streaming,
        )  # fmt: skip
        base.expect = ref.expect
        base.status = outcome.progress.status
        base.recording = out
        base.upstream_requests = len(served)
        base.upstream_log = [x.line() for x in served]
        base.seconds = seconds
        base.findings = g.findings
        base.note = g.note
        base.timing = g.timing
        if self.evidence:
            first, clean = ref.first, ref.clean
            upstream = clean if first is None or ref.expect == "rejected" else first
            base.evidence = collect(
                findings=g.findings, upstream=upstream, gateway=g.content, body=g.body,
                reads=g.reads, served=served, t0=outcome.started,
                pairs=g.timing.pairs if g.timing is not None else None, grammar=g.grammar,
            )  # fmt: skip
            base.evidence.requests = requests_of(sent, served)
        if sc.turns:
            Conversation(self, sc, ready, tag).run_turns(base, g.body)
        return base

    def exchange(
        self, ready: Prepared, body: bytes, tag: str, out: str
    ) -> tuple[Outcome, list[Served], float]:
        """Send one request of a scenario (tagged ``tag``) and record the gateway's answer
        into ``out`` (within the scenario's deadline and byte cap); what the upstream logged
        of it, and the seconds it took."""
        server = self.server
        before = len(server.served)
        t0 = time.monotonic()
        outcome = record(
            Request("POST", ready.url, ready.headers, body),
            out,
            force=True,
            stall_timeout=self.suite.timeout,
            deadline=ready.deadline,
            max_bytes=ready.max_bytes,
        )
        seconds = time.monotonic() - t0

        def seen() -> list[Served]:
            if self.shared:  # the tagged ones, and any the gateway sent without the tag
                return [x for x in server.served[before:] if x.tag in (tag, None)]
            return server.served_for(tag)

        # The upstream logs a request once it has written its answer, on its own thread: on
        # a loaded machine that can come after the gateway's client has read the end.
        served = seen()
        wait_until = time.monotonic() + LOG_WAIT
        while not served and time.monotonic() < wait_until:
            time.sleep(0.02)
            served = seen()
        time.sleep(0.05)  # a retry's second request, logged just after the first
        return outcome, seen(), seconds
