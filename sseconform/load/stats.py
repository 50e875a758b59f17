"""A load run's figures: conformance counts, finding codes, time to first token, gaps and
throughput, in memory that does not grow with the number of streams (histograms with fixed
relative precision), mergeable across Locust workers (``to_dict`` / ``merge``)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from sseconform.load.plan import StreamOutcome
from sseconform.report.text import counted
from sseconform.safetext import printable

__all__ = ["Histogram", "LoadStats", "level_broken", "text_report"]


class Histogram:
    """Durations in seconds, bucketed at ~2% relative precision: percentiles within that."""

    STEP = math.log(1.02)

    def __init__(self) -> None:
        self.buckets: Counter[int] = Counter()
        self.count = 0

    def add(self, seconds: float) -> None:
        ms = max(seconds * 1000.0, 0.001)
        self.buckets[round(math.log(ms) / self.STEP)] += 1
        self.count += 1

    def percentile(self, q: float) -> float | None:
        """The value at quantile ``q`` (0..1), in milliseconds."""
        if not self.count:
            return None
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for b in sorted(self.buckets):
            seen += self.buckets[b]
            if seen >= rank:
                return round(math.exp(b * self.STEP), 3)
        return None

    def to_dict(self) -> dict[str, int]:
        return {str(k): v for k, v in self.buckets.items()}

    def merge(self, data: dict[str, int]) -> None:
        for k, v in data.items():
            self.buckets[int(k)] += v
            self.count += v


class LoadStats:
    """Counts over every graded stream; a timeline per second of the run."""

    def __init__(self) -> None:
        self.requests = 0
        self.conforming = 0
        self.no_response = 0
        self.codes: Counter[str] = Counter()  # failing finding keys, once per stream
        self.examples: dict[str, str] = {}  # a failing key -> the first message seen for it
        self.warnings: Counter[str] = Counter()
        self.scenarios: dict[str, list[int]] = {}  # name -> [requests, nonconforming]
        self.ttft = Histogram()
        self.overhead = Histogram()  # added to the first content, per stream
        self.added = Histogram()  # the most added to any piece, per stream
        #: second -> the overhead of the streams that ended in it (grouped by level later)
        self.overhead_by_second: dict[int, Histogram] = {}
        self.gaps = Histogram()
        self.duration = Histogram()
        self.bytes = 0
        self.first: float | None = None  # wall-clock seconds of the first and last stream end
        self.last: float | None = None
        #: second -> [streams, nonconforming, ttft sum, ttft n, users]; users: the most
        #: simulated users running in that second (Locust's count; the master's total when
        #: distributed), so conformance and TTFT can be read per concurrency level
        self.timeline: dict[int, list[float]] = {}

    def add(self, o: StreamOutcome, at: float, users: int = 0) -> None:
        self.requests += 1
        self.conforming += o.conforming
        if o.status is None:
            self.no_response += 1
        for key in set(o.errors):
            self.codes[key] += 1
        if o.errors and o.errors[0] not in self.examples and len(self.examples) < 200:
            self.examples[o.errors[0]] = f"{o.name}: {o.message}"
        for key in set(o.warnings):
            self.warnings[key] += 1
        row = self.scenarios.setdefault(o.name, [0, 0])
        row[0] += 1
        row[1] += not o.conforming
        if o.ttft is not None:
            self.ttft.add(o.ttft)
        if o.overhead is not None:
            self.overhead.add(o.overhead)
            self.overhead_by_second.setdefault(int(at), Histogram()).add(o.overhead)
        if o.added_max is not None:
            self.added.add(o.added_max)
        for g in o.gaps:
            self.gaps.add(g)
        self.duration.add(o.seconds)
        self.bytes += o.bytes
        self.first = at if self.first is None else min(self.first, at)
        self.last = at if self.last is None else max(self.last, at)
        sec = self.timeline.setdefault(int(at), [0, 0, 0.0, 0, 0])
        sec[4] = max(sec[4], users)
        sec[0] += 1
        sec[1] += not o.conforming
        if o.ttft is not None:
            sec[2] += o.ttft
            sec[3] += 1

    @property
    def nonconforming(self) -> int:
        return self.requests - self.conforming

    def to_dict(self) -> dict[str, Any]:
        """What a worker sends its master (and what ``merge`` takes)."""
        return {
            "requests": self.requests,
            "conforming": self.conforming,
            "no_response": self.no_response,
            "codes": dict(self.codes),
            "examples": self.examples,
            "warnings": dict(self.warnings),
            "scenarios": self.scenarios,
            "ttft": self.ttft.to_dict(),
            "overhead": self.overhead.to_dict(),
            "added": self.added.to_dict(),
            "overhead_by_second": {str(k): h.to_dict() for k, h in self.overhead_by_second.items()},
            "gaps": self.gaps.to_dict(),
            "duration": self.duration.to_dict(),
            "bytes": self.bytes,
            "first": self.first,
            "last": self.last,
            "timeline": {str(k): v for k, v in self.timeline.items()},
        }

    def merge(self, d: dict[str, Any]) -> None:
        self.requests += d["requests"]
        self.conforming += d["conforming"]
        self.no_response += d["no_response"]
        self.codes.update(d["codes"])
        for k, v in d.get("examples", {}).items():
            if k not in self.examples and len(self.examples) < 200:
                self.examples[k] = v
        self.warnings.update(d["warnings"])
        for name, (n, bad) in d["scenarios"].items():
            row = self.scenarios.setdefault(name, [0, 0])
            row[0] += n
            row[1] += bad
        self.ttft.merge(d["ttft"])
        self.overhead.merge(d.get("overhead", {}))
        self.added.merge(d.get("added", {}))
        for k, h in d.get("overhead_by_second", {}).items():
            self.overhead_by_second.setdefault(int(k), Histogram()).merge(h)
        self.gaps.merge(d["gaps"])
        self.duration.merge(d["duration"])
        self.bytes += d["bytes"]
        for which, pick in (("first", min), ("last", max)):
            if d[which] is not None:
                mine = getattr(self, which)
                setattr(self, which, d[which] if mine is None else pick(mine, d[which]))
        for k, v in d["timeline"].items():
            sec = self.timeline.setdefault(int(k), [0, 0, 0.0, 0, 0])
            for i in range(4):
                sec[i] += v[i]
            sec[4] = max(sec[4], v[4] if len(v) > 4 else 0)

    def users_at(self, seconds: list[int], users: int) -> None:
        """The run's user count, as the master knows it, for seconds its workers reported
        (each worker only knows its own users)."""
        for k in seconds:
            if k in self.timeline:
                self.timeline[k][4] = max(self.timeline[k][4], users)

    def report(self, **extra: Any) -> dict[str, Any]:
        """The JSON report: counts, codes, percentiles (ms), throughput, and ``extra``
        (the run's settings, the upstream's own figures)."""
        span = (self.last - self.first) if self.first is not None and self.last else 0.0
        pct = {"p50": 0.5, "p95": 0.95, "p99": 0.99}
        diff_kinds: Counter[str] = Counter()
        for key, n in self.codes.items():
            if key.startswith("diff:"):
                diff_kinds[key.split(":")[1]] += n
        start = min(self.timeline) if self.timeline else 0
        return {
            "requests": self.requests,
            "conforming": self.conforming,
            "nonconforming": self.nonconforming,
            "no_response": self.no_response,
            "nonconforming_rate": round(self.nonconforming / self.requests, 4)
            if self.requests
            else 0.0,
            "codes": dict(self.codes.most_common()),
            "diff_kinds": dict(diff_kinds.most_common()),
            "examples": self.examples,
            "warnings": dict(self.warnings.most_common()),
            "scenarios": {
                n: {"requests": r, "nonconforming": b}
                for n, (r, b) in sorted(self.scenarios.items())
            },
            "ttft_ms": {k: self.ttft.percentile(q) for k, q in pct.items()},
            "overhead_ms": {k: self.overhead.percentile(q) for k, q in pct.items()},
            "added_delay_ms": {k: self.added.percentile(q) for k, q in pct.items()},
            "gap_ms": {k: self.gaps.percentile(q) for k, q in pct.items()},
            "duration_ms": {k: self.duration.percentile(q) for k, q in pct.items()},
            "throughput": {
                "streams_per_s": round(self.requests / span, 2) if span > 0 else None,
                "mb_per_s": round(self.bytes / span / 1e6, 3) if span > 0 else None,
                "seconds": round(span, 2),
            },
            "timeline": [
                {
                    "second": k - start,
                    "users": int(v[4]),
                    "streams": v[0],
                    "nonconforming": v[1],
                    "ttft_ms_mean": round(v[2] / v[3] * 1000, 2) if v[3] else None,
                }
                for k, v in sorted(self.timeline.items())
            ],
            "levels": self.levels(),
            **extra,
        }

    def levels(self) -> list[dict[str, Any]]:
        """Conformance, TTFT and overhead per concurrency level: the seconds grouped by how
        many users ran in them (a ramp-up passes through several levels)."""
        by: dict[int, list[float]] = {}
        overhead: dict[int, Histogram] = {}
        for sec, v in self.timeline.items():
            row = by.setdefault(int(v[4]), [0, 0, 0, 0.0, 0])
            row[0] += 1
            for i in range(4):
                row[i + 1] += v[i]
            if sec in self.overhead_by_second:
                h = overhead.setdefault(int(v[4]), Histogram())
                h.merge(self.overhead_by_second[sec].to_dict())
        pct = {"p50": 0.5, "p95": 0.95, "p99": 0.99}
        return [
            {
                "users": users,
                "seconds": int(r[0]),
                "streams": int(r[1]),
                "nonconforming": int(r[2]),
                "conforming_rate": round(1 - r[2] / r[1], 4) if r[1] else None,
                "ttft_ms_mean": round(r[3] / r[4] * 1000, 2) if r[4] else None,
                "streams_per_s": round(r[1] / r[0], 2) if r[0] else None,
                "overhead_ms": {
                    k: overhead[users].percentile(q) if users in overhead else None
                    for k, q in pct.items()
                },
            }
            for users, r in sorted(by.items())
        ]


def level_broken(lv: dict[str, Any], budget: float | None) -> str | None:
    """Why a concurrency level (``LoadStats.levels``) broke: a stream that did not conform,
    or the overhead's p99 over ``budget`` (seconds); None when it held."""
    rate = lv["conforming_rate"]
    if rate is not None and rate < 1:
        return f"{lv['nonconforming']} of {lv['streams']} streams did not conform"
    p99 = (lv.get("overhead_ms") or {}).get("p99")
    if budget is not None and p99 is not None and p99 > budget * 1000:
        return f"the overhead's p99 was {p99:.0f} ms, over the {budget * 1000:g} ms budget"
    return None


def text_report(r: dict[str, Any]) -> str:
    """The table a person reads at a glance."""
    rate = f"{r['nonconforming_rate'] * 100:.1f}%"
    lines = [
        f"streams        {r['requests']:>8}   conforming {r['conforming']}   "
        f"nonconforming {r['nonconforming']} ({rate})"
        + (f"   no response {r['no_response']}" if r["no_response"] else ""),
        f"{'':15}{'p50':>10}{'p95':>10}{'p99':>10}",
    ]
    rows = (
        ("ttft ms", "ttft_ms"),
        ("overhead ms", "overhead_ms"),  # added to the first content
        ("added max ms", "added_delay_ms"),  # the most added to any piece of a stream
        ("gap ms", "gap_ms"),
        ("stream ms", "duration_ms"),
    )
    for label, key in rows:
        if key not in r:  # a report saved before the figure existed
            continue
        vals = [r[key][p] for p in ("p50", "p95", "p99")]
        lines.append(
            f"{label:15}" + "".join(f"{v:>10.1f}" if v is not None else f"{'-':>10}" for v in vals)
        )
    t = r["throughput"]
    if t["streams_per_s"] is not None:
        lines.append(
            f"throughput     {t['streams_per_s']} streams/s, {t['mb_per_s']} MB/s "
            f"over {t['seconds']} s"
        )
    if r["codes"]:
        lines.append("findings (streams):")
        lines += [f"  {line}" for line in counted(r["codes"], r.get("examples", {}))]
    bad = {n: s for n, s in r["scenarios"].items() if s["nonconforming"]}
    if bad:
        lines.append("nonconforming by scenario:")
        lines += [
            f"  {s['nonconforming']:>7}/{s['requests']:<7} {printable(n)}" for n, s in bad.items()
        ]
    levels = r.get("levels") or []
    if len(levels) > 1:
        lines.append(
            "by concurrency:  users  streams  conforming  mean ttft ms  overhead ms p50/p95/p99"
        )
        for lv in levels:
            rate = "-" if lv["conforming_rate"] is None else f"{lv['conforming_rate']:.1%}"
            ttft = "-" if lv["ttft_ms_mean"] is None else f"{lv['ttft_ms_mean']:.0f}"
            o = lv.get("overhead_ms") or {}
            over = "/".join(_whole(o.get(p)) for p in ("p50", "p95", "p99"))
            lines.append(
                f"{'':16}{lv['users']:>6}{lv['streams']:>9}{rate:>12}{ttft:>14}  {over:>25}"
            )
    budget = r.get("budget")
    if budget:
        verdict = "within" if budget["passed"] else "OVER"
        lines.append(
            f"overhead budget: p99 {_num(budget['overhead_p99_ms'])} ms, {verdict} "
            f"{budget['budget_ms']:g} ms"
        )
    capacity = r.get("capacity")
    if capacity:
        lines.append(f"capacity: {capacity['summary']}")
    up = r.get("upstream")
    if up:
        lines.append(
            f"upstream: {up['requests']} requests; {up['late_writes']} of {up['writes']} writes "
            f"later than {up['late_ms']} ms (worst {up['max_late_ms']} ms)"
            + (f": {up['limited']}" if up.get("limited") else "")
        )
    cpu = r.get("cpu")
    if cpu:
        gw = f", gateway {cpu['gateway']:.0%}" if "gateway" in cpu else ""
        lines.append(
            f"cpu (share of one core): upstream {cpu['upstream']:.0%}, "
            f"load generator {cpu['load_generator']:.0%}{gw}"
        )
    mem = r.get("memory")
    if mem:
        lines.append(
            f"memory (peak RSS): load generator {mem['load_generator_max_rss_mb']} MB, "
            f"upstream and sseconform {mem['upstream_max_rss_mb']} MB"
        )
    if r.get("limited_by"):
        lines.append(f"limited by: {'; '.join(r['limited_by'])}")
    # a saved report (--render) may come from anywhere: no control character gets through
    return "\n".join(printable(line) for line in lines) + "\n"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def _whole(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"
