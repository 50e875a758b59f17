"""A scenario made ready to run, once: what its upstream serves and how (recording, rules,
the references its answer is graded against), its bounds, and the request the gateway gets
with a slot for the tag. ``gate`` (each run and the timing confirmation), ``load`` (every
stream) and multi-turn scenarios take it as it is, so each of them sends and grades the
same thing, and no plan is made or recording read twice for one scenario.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.gate.bounds import deadline_for, max_bytes_for
from sseconform.gate.content import ContentFolder
from sseconform.gate.references import References, references
from sseconform.gate.request import GatewayRequests
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite
from sseconform.gate.upstream import rules_for
from sseconform.recording.redact import Redactor
from sseconform.replay.answered import uncached
from sseconform.replay.plan import Loaded
from sseconform.replay.routing import RequestBody, tools_of
from sseconform.replay.scenario import ReplayRule
from sseconform.wires import by_dialect, by_endpoint
from sseconform.wires.base import Asked

__all__ = ["Later", "Prepared", "Schedule", "asked_of", "not_applicable", "prepare"]

#: Where the tag goes in a prepared request body (each send fills in its own).
SLOT = "@@sseconform-tag@@"


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


@dataclass(frozen=True)
class Later:
    """One later turn of a conversation, ready: the turn as a scenario of its own (named
    ``<scenario> turn <k>``, no fault, nothing spread), its recording and its references."""

    scenario: Scenario
    recording: Loaded
    ref: References


@dataclass
class Prepared:
    """One applicable scenario, ready to send any number of times."""

    scenario: Scenario
    endpoint: str
    dialect: str  # what its upstream speaks
    recording: Loaded  # what the upstream serves for it
    ref: References
    rules: list[ReplayRule]  # the upstream's rules for one tag (copy them per tag: ``fresh_rules``)
    #: the seconds one answer may take in all and the bytes kept of it (:mod:`.bounds`)
    deadline: float
    max_bytes: int
    url: str
    headers: list[tuple[str, str]]
    body_head: bytes
    body_tail: bytes
    allow: list[str]
    #: the grammar its answers are checked in (the suite's: a profile may name a spec's)
    grammar: str
    #: its place in a load plan (the ``L<index>.`` of a load tag)
    index: int = 0
    #: whether the body has the tag's slot (a ``request`` that replaced the prompt has not)
    tagged: bool = True
    #: the tools the request declares: the upstream's request must declare each of them
    tools: list[str] = field(default_factory=list)
    #: what the request asks, as the endpoint's wire reads it: the upstream's request must
    #: ask the same (``gate.rules.request``)
    asked: Asked = field(default_factory=dict)
    #: a conversation's later turns, in order: each as a scenario of its own, what its
    #: upstream serves and the references its answer is graded against
    later: list[Later] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.scenario.name

    def body(self, tag: str) -> bytes:
        """The request body with ``tag`` in its slot (a scenario whose ``request`` replaced
        the prompt has none: its body goes as it is, routed untagged)."""
        if not self.tagged:
            return self.body_head
        return self.body_head + tag.encode("ascii") + self.body_tail

    def fresh_rules(self) -> list[ReplayRule]:
        """The upstream's rules, each counting its own faulted attempts from zero."""
        return [dataclasses.replace(r, used=0) for r in self.rules]

    @functools.cached_property
    def schedule(self) -> Schedule | None:
        """When the upstream sends its content; None where a fault moves it (a stall) or
        there is none (an HTTP error): no overhead is measured on those. Made when first
        asked (``load`` asks; ``gate`` measures against the upstream's own log)."""
        timed = self.scenario.fault is None and self.ref.expect == "content"
        return Schedule.of(self.recording, self.dialect) if timed else None

    @functools.cached_property
    def redactor(self) -> Redactor:
        """Knows the secret header values of this scenario's requests (a gateway may echo
        them into what a report says of a stream)."""
        r = Redactor()
        r.header_list(self.headers, "request")
        return r


def not_applicable(suite: Suite, sc: Scenario) -> str | None:
    """Why ``sc`` cannot run through the suite's gateway and endpoint (None: it can)."""
    dialect = sc.served_dialect
    assert dialect is not None
    refusal = suite.endpoint_refusal(dialect)
    if refusal is not None:
        return refusal
    if sc.history == "previous-response" and suite.endpoint != "responses":
        return "a stored response is continued (previous_response_id) on the responses endpoint"
    if sc.streamed_calls and not by_endpoint(suite.endpoint).streams_arguments:
        return f"the {suite.endpoint} grammar sends a call's arguments whole: none can stream"
    if not suite.supports(dialect):
        why = suite.route(dialect).reason
        return f"the gateway cannot route {dialect} upstreams" + (f": {why}" if why else "")
    return None


def prepare(
    suite: Suite,
    requests: GatewayRequests,
    sc: Scenario,
    rec: Loaded,
    *,
    index: int = 0,
    speed: float | None = None,
    later: list[Loaded] | None = None,
) -> Prepared:
    """``sc`` ready to run (it must be applicable: see :func:`not_applicable`); ``rec`` is
    what the upstream serves for it (:class:`~sseconform.gate.upstream.Upstream`), at
    ``speed`` (the suite's unless given: ``load`` runs its upstream at its own); ``later``,
    what it serves for each later turn of a conversation."""
    dialect = sc.served_dialect
    assert dialect is not None
    pace = suite.speed if speed is None else speed
    ref = references(sc, rec, dialect, pace)
    turns = []
    for k, turn_rec in enumerate(later or [], start=2):
        turn_sc = dataclasses.replace(
            sc, name=f"{sc.name} turn {k}", recording=turn_rec.path, fault=None,
            fault_times=None, turns=[], spread=None, quiet=None, expect=None,
        )  # fmt: skip
        turns.append(Later(turn_sc, turn_rec, references(turn_sc, turn_rec, dialect)))
    text = orjson.dumps(requests.body(sc, ref.clean, SLOT)).decode()
    head, slot, tail = text.partition(SLOT)
    asked = asked_of(suite.endpoint, orjson.loads(text), requests.headers(dialect, sc))
    if not by_dialect(dialect).reads_cache(asked):
        # what the client asks, forwarded, sets no breakpoint: the provider reads no cache
        whole = uncached(rec)
        if whole is not None:
            ref = references(sc, whole, dialect, pace)
    return Prepared(
        scenario=sc,
        endpoint=suite.endpoint,
        dialect=dialect,
        recording=rec,
        ref=ref,
        rules=rules_for(sc, rec),
        deadline=suite.deadline if suite.deadline is not None else deadline_for(ref.seconds),
        max_bytes=suite.max_bytes if suite.max_bytes is not None else max_bytes_for(rec),
        url=requests.url(dialect, sc.model),
        headers=requests.headers(dialect, sc),
        body_head=head.encode(),
        body_tail=tail.encode(),
        tagged=bool(slot),
        allow=list(suite.allow),
        grammar=suite.grammar,
        index=index,
        tools=tools_of(RequestBody(text.encode())) or [],
        asked=asked,
        later=turns,
    )


def asked_of(endpoint: str, body: Any, headers: list[tuple[str, str]]) -> Asked:
    """What a request to ``endpoint`` asks, as its wire reads it."""
    if not isinstance(body, dict):
        return {}
    return by_endpoint(endpoint).read_request(body, {k.lower(): v for k, v in headers})
