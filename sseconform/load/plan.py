"""What a load run sends and how it grades each stream, without Locust: the scenarios of the
suites prepared once per process (request bytes with a slot for the tag, the upstream's
references), and a grader that checks and folds one gateway stream as it arrives.

The CLI process (which runs the replay upstream) and every Locust process (local, master or
worker) prepare the same plan from the same settings, so a tag ``L<index>.<user>.<n>`` names
the same scenario everywhere: the upstream resolves it to that scenario's recording and
faults, the user grades the stream against that scenario's references.
"""

from __future__ import annotations

import bisect
import re
import time
from dataclasses import dataclass, field

import orjson

from sseconform.diagnostics import Diagnostic
from sseconform.gate.bounds import deadline_for, max_bytes_for
from sseconform.gate.content import ContentFolder
from sseconform.gate.finding import Finding
from sseconform.gate.grading import References, grade_stream, references
from sseconform.gate.profile import load_profile
from sseconform.gate.request import GatewayRequests
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite, for_endpoint, load_suite
from sseconform.gate.upstream import Upstream, rules_for
from sseconform.providers import ENDPOINT_DIALECT, ENDPOINT_GRAMMAR
from sseconform.recording.redact import Redactor
from sseconform.replay.plan import Loaded
from sseconform.replay.scenario import Rule
from sseconform.rules.grammars import checker_for

__all__ = ["LoadScenario", "Outcome", "Settings", "StreamGrader", "prepare", "rules_for_tag"]

_SLOT = "@@sseconform-tag@@"
_TAG = re.compile(r"L([0-9]{1,6})\.")


@dataclass
class Settings:
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
    def from_json(cls, data: bytes) -> Settings:
        raw = orjson.loads(data)
        raw["headers"] = [tuple(h) for h in raw.get("headers", [])]
        return cls(**raw)


@dataclass
class LoadScenario:
    """One scenario, ready to send any number of times."""

    index: int
    name: str
    endpoint: str
    url: str
    headers: dict[str, str]
    body_head: bytes
    body_tail: bytes
    scenario: Scenario
    ref: References
    allow: list[str]
    rules: list[Rule]  # the upstream's rules for one tag (copied per tag)
    recording: Loaded  # what the upstream serves for it
    #: when the upstream sends its content; None where a fault moves it (a stall) or there
    #: is none (an HTTP error): no overhead is measured on those
    schedule: Schedule | None = None
    #: the seconds one stream may take in all and the bytes read of it (gate.bounds)
    deadline: float = 60.0
    max_bytes: int = 16 * 1024 * 1024
    #: scrubs the credentials this scenario's requests carry (and anything shaped like a
    #: provider key) from what the report says of a stream: a gateway may echo its key
    redactor: Redactor = field(default_factory=Redactor)
    #: the grammar its streams are checked in (the suite's: a profile may name a spec's)
    grammar: str = ""

    def body(self, tag: str) -> bytes:
        return self.body_head + tag.encode("ascii") + self.body_tail


@dataclass
class Schedule:
    """When the upstream sends each field's content (seconds after it got the request, at
    speed 1): per field, the length each read reaches and that read's time. A stream's
    overhead is when its client got a length minus when the upstream sent it."""

    marks: dict[tuple[int, str], tuple[list[int], list[float]]]
    first: float  # the first content

    @classmethod
    def of(cls, rec: Loaded, dialect: str) -> Schedule | None:
        folder = ContentFolder(dialect)
        marks: dict[tuple[int, str], tuple[list[int], list[float]]] = {}
        for t, data in rec.reads:
            folder.feed(data)
            for key, n in folder.lengths().items():
                lens, times = marks.setdefault(key, ([], []))
                if n > (lens[-1] if lens else 0):
                    lens.append(n)
                    times.append(t)
        marks = {k: v for k, v in marks.items() if v[0]}
        if not marks:
            return None
        return cls(marks, min(times[0] for _, times in marks.values()))

    def sent(self, key: tuple[int, str], length: int) -> float | None:
        """When the upstream sent the ``length``-th unit of a field (None: it never did)."""
        m = self.marks.get(key)
        if m is None:
            return None
        i = bisect.bisect_left(m[0], length)
        return m[1][i] if i < len(m[0]) else None


def prepare(settings: Settings, key: str | None) -> list[LoadScenario]:
    """Every applicable scenario of the settings' suites (per endpoint), in a fixed order."""
    import fnmatch

    profile = load_profile(settings.profile) if settings.profile else None
    suites: list[Suite] = []
    for spec in settings.suites:
        su = load_suite(spec)
        if profile is not None and su.profile is None:
            su.profile = profile
        suites += [for_endpoint(su, e) for e in settings.endpoints] or [su]
    out: list[LoadScenario] = []
    for su in suites:
        up = Upstream(su.scenarios)
        own = su.profile.key if su.profile else None  # the key the profile's config sets
        requests = GatewayRequests(
            su, settings.gateway, settings.upstream, key or own, settings.headers
        )
        for sc in su.scenarios:
            if settings.only and not any(fnmatch.fnmatchcase(sc.name, p) for p in settings.only):
                continue
            dialect = sc.served_dialect
            assert dialect is not None
            if not su.supports(dialect) or su.endpoint_refusal(dialect) is not None:
                continue
            rec = up.by_scenario[sc.name]
            ref = references(sc, rec, dialect)
            timed = sc.fault is None and ref.expect == "content"
            text = orjson.dumps(requests.body(sc, ref.clean, _SLOT)).decode()
            head, _, tail = text.partition(_SLOT)
            out.append(
                LoadScenario(
                    index=len(out),
                    name=sc.name,
                    endpoint=su.endpoint,
                    grammar=su.grammar,
                    url=requests.url(dialect),
                    headers=dict(requests.headers(dialect, sc)),
                    body_head=head.encode(),
                    body_tail=tail.encode(),
                    scenario=sc,
                    ref=ref,
                    allow=list(su.allow),
                    rules=rules_for(sc, rec),
                    recording=rec,
                    schedule=Schedule.of(rec, dialect) if timed else None,
                    deadline=su.deadline or deadline_for(rec, ref.faults, settings.speed),
                    max_bytes=su.max_bytes or max_bytes_for(rec),
                    redactor=_redactor(requests.headers(dialect, sc)),
                )
            )
    return out


def rules_for_tag(plan: list[LoadScenario], tag: str) -> list[Rule] | None:
    """The upstream's rules for a load tag: fresh ones, so each request counts its own
    faulted attempts (``fault_times``)."""
    m = _TAG.match(tag)
    if m is None or int(m.group(1)) >= len(plan):
        return None
    own = plan[int(m.group(1))].rules
    return [Rule(r.recording, r.path, fault=r.fault, times=r.times) for r in own]


@dataclass
class Outcome:
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
    #: against the upstream's schedule (None: not timed, see LoadScenario.schedule)
    overhead: float | None = None
    added_max: float | None = None


class StreamGrader:
    """One gateway stream: ``feed(piece)`` as it arrives (checked and folded, never kept),
    then ``finish(complete, reason)``. Gaps between reads are kept as their count and the
    largest ``MAX_GAPS`` (a stall is what matters), in O(1) memory."""

    MAX_GAPS = 64

    def __init__(
        self, sc: LoadScenario, status: int | None, started: float, speed: float = 1.0
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
    ) -> Outcome:
        """The stream's outcome; ``bound``: the bound it broke (``deadline``, ``max-bytes``,
        ``bomb``), which is then its one finding."""
        now = time.perf_counter() if now is None else now
        diagnostics: list[Diagnostic] = self.checker.finish() if self.checker else []
        content = self.folder.finish() if self.folder else None
        findings, _ = grade_stream(
            self.sc.scenario,
            self.sc.ref,
            self.status,
            content,
            diagnostics,
            complete=complete,
            reason=reason,
            allow=self.sc.allow,
            endpoint=self.sc.endpoint,
            bound=bound,
        )
        errors = [f for f in findings if f.severity == "error"]
        return Outcome(
            name=self.sc.name,
            status=self.status,
            conforming=not errors,
            errors=[f.key for f in errors],
            warnings=[f.key for f in findings if f.severity != "error"],
            message=self.sc.redactor.scrub(_message(errors[0])) if errors else "",
            ttft=None if self.first is None else self.first - self.started,
            gaps=self.gaps,
            seconds=now - self.started,
            bytes=self.bytes,
            overhead=self.overhead,
            added_max=self.added_max,
        )


def _redactor(headers: list[tuple[str, str]]) -> Redactor:
    """A redactor that knows the secret header values of a scenario's requests."""
    r = Redactor()
    r.header_list(headers, "request")
    return r


def _message(f: Finding) -> str:
    where = f" (frame {f.frame})" if f.frame is not None else ""
    return f"{f.key}{where}: {f.message}"[:300]
