"""What a load run sends and how it grades each stream, without Locust: the scenarios of the
suites prepared once per process (request bytes with a slot for the tag, the upstream's
references), and a grader that checks and folds one gateway stream as it arrives.

The CLI process (which runs the replay upstream) and every Locust process (local, master or
worker) prepare the same plan from the same settings, so a tag ``L<index>.<user>.<n>`` names
the same scenario everywhere: the upstream resolves it to that scenario's recording and
faults, the user grades the stream against that scenario's references.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import orjson

from sseconform.findings import Finding
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.content import ContentFolder
from sseconform.gate.grading import grade_stream
from sseconform.gate.prepared import Prepared, Schedule, not_applicable
from sseconform.gate.prepared import prepare as prepare_scenario
from sseconform.gate.profile import load_profile
from sseconform.gate.request import GatewayRequests
from sseconform.gate.suite import Suite, load_suite
from sseconform.gate.upstream import Upstream
from sseconform.mask import RUN
from sseconform.providers import ENDPOINT_DIALECT, ENDPOINT_GRAMMAR
from sseconform.recording.redact import credential_values
from sseconform.replay.scenario import ReplayRule
from sseconform.rules.catalog import Severity
from sseconform.rules.grammars import checker_for

__all__ = [
    "LoadSettings",
    "StreamGrader",
    "StreamOutcome",
    "prepare",
    "rules_for_tag",
]

_TAG = re.compile(r"L([0-9]{1,6})\.")


@dataclass
class LoadSettings:
    """Everything a process needs to prepare the plan (JSON: the CLI hands it to Locust)."""

    gateway: str
    upstream: str  # the replay upstream's base URL
    suites: list[str] = field(default_factory=lambda: ["builtin:all"])
    profile: str | None = None
    endpoints: list[str] = field(default_factory=list)
    only: list[str] = field(default_factory=list)
    headers: list[tuple[str, str]] = field(default_factory=list)
    report: str | None = None  # where the master (or the local runner) writes its JSON
    speed: float = 1.0  # the upstream's: the schedule each stream's overhead is measured on

    def to_json(self) -> bytes:
        return orjson.dumps(self.__dict__)

    @classmethod
    def from_json(cls, data: bytes) -> LoadSettings:
        raw = orjson.loads(data)
        raw["headers"] = [tuple(h) for h in raw.get("headers", [])]
        return cls(**raw)


def prepare(settings: LoadSettings, key: str | None) -> list[Prepared]:
    """Every applicable scenario of the settings' suites (per endpoint), in a fixed order."""
    import fnmatch

    RUN.add_all(credential_values(settings.headers))  # --header's keys, in every process
    profile = load_profile(settings.profile) if settings.profile else None
    suites: list[Suite] = []
    for spec in settings.suites:
        su = load_suite(spec)
        if profile is not None and su.profile is None:
            su.profile = profile
        suites += [for_endpoint(su, e) for e in settings.endpoints] or [su]
    out: list[Prepared] = []
    for su in suites:
        up = Upstream(su.scenarios)
        own = su.profile.key if su.profile else None  # the key the profile's config sets
        requests = GatewayRequests(
            su, settings.gateway, settings.upstream, key or own, settings.headers
        )
        for sc in su.scenarios:
            if settings.only and not any(fnmatch.fnmatchcase(sc.name, p) for p in settings.only):
                continue
            if not_applicable(su, sc) is not None:
                continue
            rec = up.by_scenario[sc.name]
            out.append(
                prepare_scenario(su, requests, sc, rec, index=len(out), speed=settings.speed)
            )
    return out


def rules_for_tag(plan: list[Prepared], tag: str) -> list[ReplayRule] | None:
    """The upstream's rules for a load tag: fresh ones, so each request counts its own
    faulted attempts (``fault_times``)."""
    m = _TAG.match(tag)
    if m is None or int(m.group(1)) >= len(plan):
        return None
    return plan[int(m.group(1))].fresh_rules()


@dataclass
class StreamOutcome:
    """One stream, graded: what Locust reports and the load report counts."""

    name: str
    status: int | None
    conforming: bool
    errors: list[str]  # finding keys that fail (check codes, diff:KIND:FIELD, expect:NAME)
    warnings: list[str]
    message: str  # the first failing finding, for Locust's failure table
    ttft: float | None  # seconds from the request to the first content byte
    gaps: list[float]  # seconds between reads (the largest few are enough: see StreamGrader)
    seconds: float
    bytes: int
    #: what the gateway added (seconds): to the first content, and the most to any piece,
    #: against the upstream's schedule (None: not timed, see Prepared.schedule)
    overhead: float | None = None
    added_max: float | None = None


class StreamGrader:
    """One gateway stream: ``feed(piece)`` as it arrives (checked and folded, never kept),
    then ``finish(complete, reason)``. Gaps between reads are kept as their count and the
    largest ``MAX_GAPS`` (a stall is what matters), in O(1) memory."""

    MAX_GAPS = 64

    def __init__(
        self, sc: Prepared, status: int | None, started: float, speed: float = 1.0
    ) -> None:
        self.sc = sc
        self.scale = 0.0 if speed == 0 else 1.0 / speed
        self.seen: dict[tuple[int, str], int] = {}
        self.overhead: float | None = None
        self.added_max: float | None = None
        self.status = status
        self.started = started
        self.ok = status is not None and 200 <= status < 300
        grammar = sc.grammar or ENDPOINT_GRAMMAR[sc.endpoint]
        self.checker = checker_for(grammar) if self.ok else None
        self.folder = ContentFolder(ENDPOINT_DIALECT[sc.endpoint]) if self.ok else None
        self.first: float | None = None
        self.last: float | None = None
        self.gaps: list[float] = []
        self.bytes = 0

    def feed(self, piece: bytes, now: float | None = None) -> None:
        now = time.perf_counter() if now is None else now
        if not piece:
            return
        self.bytes += len(piece)
        if self.first is None:
            self.first = now
        elif self.last is not None:
            gap = now - self.last
            if len(self.gaps) < self.MAX_GAPS:
                self.gaps.append(gap)
            elif gap > min(self.gaps):
                self.gaps[self.gaps.index(min(self.gaps))] = gap
        self.last = now
        if self.checker is not None and self.folder is not None:
            self.checker.feed(piece)
            self.folder.feed(piece)
            if self.sc.schedule is not None:
                self._time(self.sc.schedule, now - self.started)

    def _time(self, schedule: Schedule, at: float) -> None:
        """What arrived in this read, against when the upstream sent it."""
        for key, n in self.folder.lengths().items() if self.folder else ():
            if n <= self.seen.get(key, 0):
                continue
            self.seen[key] = n
            if self.overhead is None:
                self.overhead = at - schedule.first * self.scale
            sent = schedule.sent(key, n)
            if sent is not None:
                added = at - sent * self.scale
                self.added_max = added if self.added_max is None else max(self.added_max, added)

    def finish(
        self, complete: bool, reason: str = "", now: float | None = None, bound: str | None = None
    ) -> StreamOutcome:
        """The stream's outcome; ``bound``: the bound it broke (``deadline``, ``max-bytes``,
        ``bomb``), which is then its one finding."""
        now = time.perf_counter() if now is None else now
        checked: list[Finding] = self.checker.finish() if self.checker else []
        content = self.folder.finish() if self.folder else None
        findings, _ = grade_stream(
            self.sc.scenario,
            self.sc.ref,
            self.status,
            content,
            checked,
            complete=complete,
            reason=reason,
            allow=self.sc.allow,
            endpoint=self.sc.endpoint,
            bound=bound,
        )
        errors = [f for f in findings if f.severity == Severity.ERROR]
        return StreamOutcome(
            name=self.sc.name,
            status=self.status,
            conforming=not errors,
            errors=[f.key for f in errors],
            warnings=[f.key for f in findings if f.severity != Severity.ERROR],
            message=self.sc.redactor.scrub(_message(errors[0])) if errors else "",
            ttft=None if self.first is None else self.first - self.started,
            gaps=self.gaps,
            seconds=now - self.started,
            bytes=self.bytes,
            overhead=self.overhead,
            added_max=self.added_max,
        )


def _message(f: Finding) -> str:
    where = f" (frame {f.frame})" if f.frame is not None else ""
    return f"{f.key}{where}: {f.message}"[:300]
