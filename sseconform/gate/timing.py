"""When a gateway streams: what it added to the time of each piece of content the upstream sent.

The replay upstream logs when each of its writes left (``Served.times``) and the recorder
logs when each read of the gateway's answer arrived, both on one monotonic clock from the
moment the gateway's request was sent. Both streams are read by meaning (:mod:`.content`):
every piece of text, reasoning and call arguments knows the event that carried it, so each
upstream piece can be found again in the gateway's stream and its two times compared.

- *added first token*: the gateway's first content minus the upstream's, each counted from
  the request its side got (what a client sees through the gateway against a direct call:
  the time the gateway takes to call the upstream is part of it);
- *added first event*: the gateway's first event minus the upstream's (``message_start``,
  the role chunk, ``response.created`` held back until content arrives);
- *added delay*: for the last character of each upstream piece, when the gateway's client
  got it minus when the upstream sent it (p50, p99, max); a stream whose content all arrived
  in one burst while the upstream spread it over a second or more is *not streamed*;
- *silence*: the longest time the gateway's client got no byte while the upstream was alive,
  and whether the upstream sent keepalives (``event: ping``, SSE comments) in it.

Added delays are in real seconds, whatever ``--speed`` the upstream replays at: a budget
means the same at any speed, and at speed 0 (no recorded gaps) only overhead is left.
"""

from __future__ import annotations

import bisect
import itertools
import json
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

import orjson

from sseconform.errors import UsageError
from sseconform.findings import Finding
from sseconform.gate.content import Content, Loc, content_of
from sseconform.rules.catalog import Severity

if TYPE_CHECKING:  # what the upstream logged, and recordings: only read here
    from sseconform.replay.plan import Loaded
    from sseconform.replay.served import Served

__all__ = [
    "DEFAULT_BUDGETS",
    "Budgets",
    "Clock",
    "Timing",
    "array_as_sse",
    "measure",
    "measure_recordings",
    "parse_budget",
    "timed",
]


@dataclass(frozen=True)
class Budgets:
    """How much a gateway may add before a timing finding (seconds, real time).

    The defaults are far above what a faithful gateway adds on a loaded 2-core machine
    (``tests/benchmarks/bench_timing.py``: a pass-through adds a few milliseconds, its
    worst stream well under 100 ms) and below what users reported as regressions (1.5 s
    added to the first token; a whole answer in one burst): a false alarm costs more trust
    than a miss. ``silence``: a stream quiet that long while the upstream sent keepalives
    has dropped them, and behind the common 60 s idle timeouts (nginx, AWS ALB; Cloudflare's
    100 s) a long thinking phase is then cut.
    """

    first_token: float = 0.5
    first_event: float = 0.5
    delay: float = 1.0
    silence: float = 5.0

    def over(self, settings: Mapping[str, float]) -> Budgets:
        """These budgets with ``settings`` (``first-token = 1.0``, ...) on top."""
        return replace(self, **{k.replace("-", "_"): float(v) for k, v in settings.items()})


DEFAULT_BUDGETS = Budgets()
#: The budget names as suites, profiles and ``--budget`` spell them.
BUDGET_NAMES = tuple(f.name.replace("_", "-") for f in fields(Budgets))
#: The upstream must spread its content over at least this long (seconds) before one burst
#: at the gateway reads as "not streamed"; the burst is at most this share of that spread.
SPREAD_MIN = 1.0
BURST_SHARE = 0.1
#: At most this many (upstream, gateway) pairs are kept for the timeline.
MAX_PAIRS = 400


def parse_budget(item: str, where: str = "--budget") -> tuple[str, float]:
    """``NAME=SECONDS`` (``first-token=1.5``), checked."""
    name, sep, value = item.partition("=")
    name = name.strip()
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not sep or name not in BUDGET_NAMES or not seconds > 0:
        raise UsageError(
            f"{where} {item!r}: give NAME=SECONDS, a number above 0, with NAME one of "
            + ", ".join(BUDGET_NAMES)
        )
    return name, seconds


class Clock:
    """One side's byte offsets to times: each write (or read) starts at an offset at a time,
    and a byte is there when the write that holds it is."""

    def __init__(self, marks: list[tuple[float, int]]) -> None:
        marks = sorted(marks, key=lambda m: m[1])
        self.offsets = [o for _, o in marks]
        self.times = [t for t, _ in marks]

    def at(self, offset: int) -> float | None:
        i = bisect.bisect_right(self.offsets, offset) - 1
        return self.times[i] if i >= 0 else None

    def __bool__(self) -> bool:
        return bool(self.offsets)


@dataclass
class Timing:
    """One scenario's timing (seconds from the gateway's request; None where it does not
    apply), and where its worst moments are in the gateway's stream."""

    upstream_first_token_s: float | None = None
    gateway_first_token_s: float | None = None
    added_first_token_s: float | None = None
    added_first_event_s: float | None = None
    added_delay_p50_s: float | None = None
    added_delay_p99_s: float | None = None
    added_delay_max_s: float | None = None
    longest_silence_s: float | None = None
    #: where: the gateway's first content, the piece with the largest delay, the event
    #: that ended the longest silence
    first_token_at: Loc | None = None
    first_event_at: Loc | None = None
    max_delay_at: Loc | None = None
    max_delay_field: str | None = None
    silence_end_at: Loc | None = None
    silence_from_s: float | None = None
    #: what the upstream did during that silence: the keepalives it sent, and the longest
    #: time it sent nothing at all
    keepalives_in_silence: int = 0
    upstream_quiet_s: float = 0.0
    #: the grammar the gateway's client reads: what it can be sent before content, and
    #: while the upstream is silent (``providers.opens_before_content``, ``takes_keepalive``)
    grammar: str = "chat"
    #: the spread of content arrival on each side (first to last piece)
    upstream_spread_s: float | None = None
    gateway_spread_s: float | None = None
    pieces: int = 0
    #: when the gateway called its upstream without streaming: the time the upstream's one
    #: JSON answer was sent (no piece can be compared: the client's stream could only be
    #: built after it)
    upstream_whole_s: float | None = None
    #: (upstream time, gateway time) of each piece found on both sides, in upstream order,
    #: the first event's pair first; for the HTML timeline (at most MAX_PAIRS)
    pairs: list[tuple[float, float]] = field(default_factory=list)
    #: when the gateway retried an upstream error before the answer it passed on: how long
    #: it waited (the failed answer's end to the retry), and the Retry-After the upstream
    #: asked for (None: it named none). The first token is timed from the retry.
    retry_wait_s: float | None = None
    retry_after_s: float | None = None

    REPORTED = (
        "upstream_first_token_s",
        "gateway_first_token_s",
        "added_first_token_s",
        "added_first_event_s",
        "added_delay_p50_s",
        "added_delay_p99_s",
        "added_delay_max_s",
        "longest_silence_s",
        "upstream_whole_s",
        "retry_wait_s",
    )

    def to_dict(self) -> dict[str, float | None]:
        """The report's ``timing``: seconds, rounded to the millisecond, or null."""
        out: dict[str, float | None] = {}
        for name in self.REPORTED:
            v = getattr(self, name)
            out[name] = None if v is None else round(v, 3)
        return out

    @property
    def not_streamed(self) -> bool:
        """All the content came in one burst while the upstream spread it out."""
        up, gw = self.upstream_spread_s, self.gateway_spread_s
        return (
            self.pieces >= 3
            and up is not None
            and gw is not None
            and up >= SPREAD_MIN
            and gw <= BURST_SHARE * up
        )


def _frame_end(c: Content, body_end: int, loc: Loc) -> int:
    """The last byte of the event at ``loc``: a client has the event once it is there."""
    i = bisect.bisect_left(c.starts, loc.offset)
    end = c.ends[i] if i < len(c.ends) and c.starts[i] == loc.offset else -1
    return max(loc.offset, (end if end > 0 else body_end) - 1)


class _Side:
    def __init__(self, content: Content, clock: Clock, size: int) -> None:
        self.c, self.clock, self.size = content, clock, size

    def time(self, loc: Loc) -> float | None:
        return self.clock.at(_frame_end(self.c, self.size, loc))

    def first_content(self) -> Loc | None:
        found = self.firsts()
        return min(found.values(), key=lambda loc: loc.offset) if found else None

    def firsts(self) -> dict[tuple[int, str], Loc]:
        """Where each field's content starts (text, reasoning, refusal, a call)."""
        out = {key: p.locs[0] for key, p in self.c.pieces.items() if p.locs}
        for (choice, index), loc in self.c.call_at.items():
            key = (choice, f"call:{index}")
            if key not in out or loc.offset < out[key].offset:
                out[key] = loc
        return out

    def first_event(self) -> Loc | None:
        return Loc(1, self.c.starts[0]) if self.c.starts else None


def upstream_clock(served: Served, t0: float) -> Clock:
    """The upstream's writes on the gateway request's clock."""
    base = served.started - t0
    return Clock([(base + at, offset) for at, offset in served.times])


def _keepalive(chunk: bytes) -> bool:
    """A write that carries no content, only keeps the connection alive."""
    text = chunk.strip()
    if not text:
        return False
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if all(ln.startswith(b":") for ln in lines):
        return True
    return b"event: ping" in text or b'"type":"ping"' in text.replace(b" ", b"")


def measure(
    served: Served | None,
    t0: float,
    dialect: str,
    gateway: Content | None,
    gateway_reads: list[tuple[float, int]],
    gateway_size: int,
    before: list[Served] | None = None,
    read: Callable[[bytes, str], Content | None] | None = None,
) -> Timing | None:
    """The timing of one scenario: ``served`` is the upstream request whose answer the
    gateway passed on, ``t0`` when the gateway's request was sent, ``gateway_reads`` each
    read's (seconds after ``t0``, offset) in the gateway's body; ``before``, the upstream
    requests before it (a retry's failed ones: its wait is reported on its own, not as
    first-token time). ``read``: the upstream's content already read for these bytes, if
    any (the scenario's references), so that it is not read twice. None when either side
    has no stream to time (an HTTP error, nothing logged)."""
    before = before or []
    plan = served.plan if served is not None else None
    if served is None or plan is None or plan.json_body or gateway is None:
        return None
    if not served.times or not gateway_reads:
        return None
    up_clock = upstream_clock(served, t0)
    if served.framing == "json":  # a non-streaming upstream call: one answer, at its end
        whole_at = up_clock.at(0)
        streamed = served.streamed
        if streamed is None or streamed.json_body or not streamed.spans:
            return _whole(up_clock, gateway, gateway_reads, gateway_size)
        # what the client got is timed against the stream the upstream would have sent:
        # through a gateway that waits for the whole answer, a slow stream is buffered
        base = served.started - t0
        as_streamed = Clock([(base + t, start) for t, start, _ in streamed.spans])
        tm = _timing(streamed.payload, as_streamed, base, dialect, gateway, gateway_reads,
                     gateway_size)  # fmt: skip
        tm.upstream_whole_s = whole_at
        return tm
    payload = plan.payload
    if served.framing == "json-array":
        payload, up_clock = array_as_sse(payload, up_clock)
    waited, asked = _retried(served, before)
    known = read(payload, dialect) if read is not None else None
    tm = _timing(payload, up_clock, served.started - t0 - (waited or 0.0), dialect, gateway,
                 gateway_reads, gateway_size, known)  # fmt: skip
    tm.retry_wait_s, tm.retry_after_s = waited, asked
    return tm


def _retried(served: Served, before: list[Served]) -> tuple[float | None, float | None]:
    """The wait before a retry (the last failed answer's end to the answered request) and
    the Retry-After that failed answer named, in seconds; (None, None) with no retry."""
    failed = [x for x in before if x.status >= 400 and x.started < served.started]
    if not failed:
        return None, None
    last = failed[-1]
    waited = max(served.started - (last.started + last.seconds), 0.0)
    headers = last.plan.headers if last.plan is not None else []
    value = next((v for k, v in headers if k.lower() == "retry-after"), None)
    try:
        asked = float(value) if value is not None else None
    except ValueError:
        asked = None  # an HTTP date: not timed against
    return waited, asked


def _whole(
    up_clock: Clock, gateway: Content, gateway_reads: list[tuple[float, int]], size: int
) -> Timing:
    """The timing of a stream built from a non-streamed upstream answer: when the answer
    came, and when the client's first token did."""
    gw = _Side(gateway, Clock(gateway_reads), size)
    tm = Timing(upstream_whole_s=up_clock.at(0))
    loc = gw.first_content()
    tm.gateway_first_token_s = gw.time(loc) if loc is not None else None
    tm.first_token_at = loc
    return tm


def measure_recordings(
    upstream: Loaded,
    gateway: Loaded,
    dialect: str | None = None,
    gateway_dialect: str | None = None,
    forwarded: float = 0.0,
) -> Timing | None:
    """The same timing, offline, from two recordings: the upstream's answer and the
    gateway's, each read's time counted from the request its side got; the upstream got
    its request ``forwarded`` seconds after the gateway got the client's. ``dialect`` None:
    detected (each side)."""
    marks, size = [], 0
    for t, data in upstream.reads:
        marks.append((forwarded + t, size))
        size += len(data)
    reads, gw_size = [], 0
    for t, data in gateway.reads:
        reads.append((t, gw_size))
        gw_size += len(data)
    if not marks or not reads:
        return None
    payload = b"".join(data for _, data in upstream.reads)
    content = content_of([data for _, data in gateway.reads], gateway_dialect)
    ctype = next((v for k, v in upstream.headers if k.lower() == "content-type"), "")
    if 200 <= upstream.status < 300 and ctype.split(";")[0].strip() == "application/json":
        # a non-streamed upstream answer: whole when its last byte came
        return _whole(Clock([(marks[-1][0], 0)]), content, reads, gw_size)
    return _timing(payload, Clock(marks), forwarded, dialect, content, reads, gw_size)


def _timing(
    payload: bytes,
    up_clock: Clock,
    forwarded: float,
    dialect: str | None,
    gateway: Content,
    gateway_reads: list[tuple[float, int]],
    gateway_size: int,
    upstream: Content | None = None,
) -> Timing:
    if upstream is None:
        upstream = content_of([payload], dialect)
    up = _Side(upstream, up_clock, len(payload))
    gw = _Side(gateway, Clock(gateway_reads), gateway_size)
    tm = Timing()
    _first(tm, up, gw, forwarded)
    _delays(tm, up, gw)
    _silence(tm, forwarded, payload, up_clock, gw, gateway_reads)
    return tm


def array_as_sse(payload: bytes, clock: Clock) -> tuple[bytes, Clock]:
    """Gemini's streamed JSON array (asked without ``alt=sse``, as Portkey asks) as the SSE
    stream of the same elements, each element at the time the upstream wrote its first
    byte: the content is then read, and timed, as in any other stream. A cut element (the
    array was cut) ends it."""
    text = payload.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    out: list[bytes] = []
    marks: list[tuple[float, int]] = []
    size = i = b = 0  # SSE bytes so far; where the array is read (str index, byte offset)
    while True:
        j = i
        while j < len(text) and text[j] in " \t\r\n[,":
            j += 1
        if j >= len(text) or text[j] == "]":
            break
        try:
            element, end = decoder.raw_decode(text, j)
        except ValueError:
            break
        b += len(text[i:j].encode())
        at = clock.at(b)
        if at is not None:
            marks.append((at, size))
        event = b"data: " + orjson.dumps(element) + b"\n\n"
        out.append(event)
        size += len(event)
        b += len(text[j:end].encode())
        i = end
    if clock:  # the closing bracket's write: the upstream was alive until then
        marks.append((max(clock.times), size))
    return b"".join(out), Clock(marks)


def _first(tm: Timing, up: _Side, gw: _Side, forwarded: float) -> None:
    """First token and first event. The first token is counted from the request each side
    got, as a client sees it (direct, or through the gateway): the time the gateway took to
    call the upstream (``forwarded``) is part of what it added."""
    # the client's first content against when the upstream sent that same field's first
    # content: a gateway that dropped the reasoning is timed on the text it passed on
    g_firsts = gw.firsts()
    g_key = min(g_firsts, key=lambda k: g_firsts[k].offset) if g_firsts else None
    g_loc = g_firsts[g_key] if g_key is not None else None
    u_loc = up.firsts().get(g_key) if g_key is not None else None
    u_loc = u_loc or up.first_content()
    u = up.time(u_loc) if u_loc is not None else None
    g = gw.time(g_loc) if g_loc is not None else None
    tm.upstream_first_token_s, tm.gateway_first_token_s = u, g
    tm.first_token_at = g_loc
    if u is not None and g is not None:  # never below zero: see _delays
        tm.added_first_token_s = max(g - u + max(forwarded, 0.0), 0.0)
    ue, ge = up.first_event(), gw.first_event()
    u_ev = up.time(ue) if ue is not None else None
    g_ev = gw.time(ge) if ge is not None else None
    tm.first_event_at = ge
    if u_ev is not None and g_ev is not None:
        # a gateway that opens its stream before it calls the upstream added nothing there,
        # and its first event carried nothing of the upstream's
        tm.added_first_event_s = max(g_ev - u_ev, 0.0)
        if g_ev >= u_ev:
            tm.pairs.append((u_ev, g_ev))


def _delays(tm: Timing, up: _Side, gw: _Side) -> None:
    """Each upstream piece's last character, found in the gateway's same field."""
    delays: list[tuple[float, str, Loc]] = []
    up_times: list[float] = []
    gw_times: list[float] = []
    for key, pieces in up.c.pieces.items():
        theirs = gw.c.pieces.get(key)
        total_up, total_gw = up.c.length(key), gw.c.length(key)
        shift, limit = _aligned(_value(up.c, key), _value(gw.c, key)) if theirs else (0, 0)
        for i, (start, loc) in enumerate(zip(pieces.starts, pieces.locs, strict=True)):
            end = pieces.starts[i + 1] if i + 1 < len(pieces.starts) else total_up
            u = up.time(loc)
            if u is not None:
                up_times.append(u)
            last = end - 1
            if theirs is None or last < start or last >= limit or last + shift >= total_gw:
                continue
            g_loc = theirs.at(last + shift)
            g = gw.time(g_loc) if g_loc is not None else None
            if u is None or g is None or g_loc is None:
                continue
            gw_times.append(g)
            # the gateway cannot forward a piece before it got it: a hair below zero is the
            # two clocks' read order, not a time
            delays.append((max(g - u, 0.0), _field(key), g_loc))
            if len(tm.pairs) < MAX_PAIRS:
                tm.pairs.append((u, g))
    tm.pieces = len(delays)
    if up_times:
        tm.upstream_spread_s = max(up_times) - min(up_times)
    if gw_times:
        tm.gateway_spread_s = max(gw_times) - min(gw_times)
    if not delays:
        return
    values = sorted(d for d, _, _ in delays)
    tm.added_delay_p50_s = statistics.median(values)
    tm.added_delay_p99_s = values[min(len(values) - 1, int(0.99 * len(values)))]
    worst = max(delays, key=lambda d: d[0])
    tm.added_delay_max_s, tm.max_delay_field, tm.max_delay_at = worst


def _value(c: Content, key: tuple[int, str]) -> str:
    """One field's whole value (text, reasoning, refusal, a call's arguments)."""
    choice = c.model.choices.get(key[0])
    if choice is None:
        return ""
    name = key[1]
    if name.startswith("call:"):
        call = choice.tool_calls.get(int(name[5:]))
        return call.arguments if call is not None else ""
    return str(getattr(choice, name, ""))


def _aligned(up: str, gw: str) -> tuple[int, int]:
    """Where the upstream's characters sit in the gateway's field, by content: (shift,
    limit), the upstream's char ``p < limit`` being the gateway's ``p + shift``. The same
    text, or the gateway's with more after it: in place; the gateway's with its own text
    before (reasoning moved in front of it): shifted; else only the common prefix pairs,
    so a piece is never timed against other characters than its own."""
    if gw.startswith(up):
        return 0, len(up)
    at = gw.find(up) if up else -1
    if at > 0:
        return at, len(up)
    common = 0
    for x, y in zip(up, gw, strict=False):
        if x != y:
            break
        common += 1
    return 0, common


def _field(key: tuple[int, str]) -> str:
    choice, name = key
    if name.startswith("call:"):
        name = f"tool_calls[{name[5:]}].arguments"
    return name if choice == 0 else f"choices[{choice}].{name}"


def _silence(
    tm: Timing,
    alive_from: float,
    payload: bytes,
    up_clock: Clock,
    gw: _Side,
    reads: list[tuple[float, int]],
) -> None:
    """The longest gap between the gateway's reads (from the request on), counted while the
    upstream was alive (from when it got the request), with what it wrote in that gap."""
    if not up_clock:
        return
    alive_to = max(up_clock.times)
    writes = list(zip(up_clock.times, up_clock.offsets, strict=True))
    ends = [*up_clock.offsets[1:], len(payload)]
    points = [0.0] + [t for t, _ in reads]
    best: tuple[float, int] | None = None  # (length, index of the read that ended it)
    for i in range(1, len(points)):
        a, b = max(points[i - 1], alive_from), min(points[i], alive_to)
        if b - a > (best[0] if best else 0.0):
            best = (b - a, i)
    if best is None:
        tm.longest_silence_s = 0.0
        return
    length, i = best
    a, b = points[i - 1], points[i]
    tm.longest_silence_s = length
    tm.silence_from_s = a
    offset = reads[i - 1][1]
    frame = bisect.bisect_right(gw.c.starts, offset)
    if frame >= 1:
        tm.silence_end_at = Loc(frame, gw.c.starts[frame - 1])
    inside = [a]
    for (t, start), end in zip(writes, ends, strict=True):
        if a < t < b:
            inside.append(t)
            if _keepalive(payload[start:end]):
                tm.keepalives_in_silence += 1
    inside.append(b)
    tm.upstream_quiet_s = max(y - x for x, y in itertools.pairwise(inside))


def timed(code: str, message: str, at: Loc | None, severity: Severity = Severity.ERROR) -> Finding:
    """A timing rule's finding (``timing:CODE``) at the piece it is about, before the grader
    adds the bytes found there."""
    return Finding(
        code, message, severity, "timing",
        frame=at.frame if at else None, offset=at.offset if at else None,
    )  # fmt: skip
