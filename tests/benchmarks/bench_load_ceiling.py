"""Benchmark: ``load``'s own ceiling, so a user knows how many Locust workers a gateway's
capacity needs before the load generator, not the gateway, is what a run measures.

Run:  python tests/benchmarks/bench_load_ceiling.py [--seconds 10] [--endpoint chat ...]
      [--gateway-rate 1000] [--speed 0] [--faults]

The built-in load plan is prepared as ``sseconform load`` prepares it, and the replay upstream
serves it (routed by load tags, strict) in a process of its own, so its CPU is not this
process's. Then this process, in one thread, requests streams straight from the upstream:
the upstream's own URL is the "gateway", and only the scenarios whose upstream speaks the
endpoint's own dialect are sent (chat on the OpenAI upstream, Messages on the Anthropic one,
Responses on the Responses one), so what the upstream sends is what the client reads. Each
stream is read and fed to ``StreamGrader`` as load's Locust user does (``requests``, each
chunk as it arrives, decoded in bounded steps), for ``--seconds``. Faulted scenarios (a 429,
a stall, a drop) are left out unless ``--faults``: without a gateway to retry, they measure
waiting, not grading.

Printed per endpoint and overall: streams graded, streams/s (wall), the CPU of grading alone
(``time.process_time`` around the grader's making, every ``feed`` and ``finish``) per
stream, p50/p95/mean, and the streams one core could grade a second (1000 / mean ms); the
CPU of the whole client per stream (HTTP reading and grading: what a Locust worker spends
before Locust's own bookkeeping) and its streams per core; MB/s (wall, and per core of
grading). Then the guidance: how many workers a gateway serving ``--gateway-rate`` streams/s
needs. A worker's core does the HTTP reading too, so the guidance uses the client figure;
the grading-only figure is the bound no worker passes. Figures, never assertions.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import requests

from sseconform.gate.prepared import Prepared
from sseconform.load.plan import LoadSettings, StreamGrader, StreamOutcome, prepare, rules_for_tag
from sseconform.load.send import send
from sseconform.providers import ENDPOINT_DIALECT

ENDPOINTS = ["chat", "messages", "responses"]


def _upstream(settings: bytes, conn: Connection, stop: Event) -> None:
    """The replay upstream as ``load`` runs it (every scenario of the plan, routed by tag,
    strict), in its own process: the plan is prepared again here from the same settings, so
    a tag's index names the same scenario as in the client (as in load's own processes)."""
    from sseconform.replay.server import ReplayServer

    s = LoadSettings.from_json(settings)
    plan = prepare(s, None)
    recordings = list({sc.recording.name: sc.recording for sc in plan}.values())
    server = ReplayServer(recordings, host="127.0.0.1", port=0, speed=s.speed, strict=True)
    server.resolve_tag = lambda tag: rules_for_tag(plan, tag)
    with server.running():
        conn.send(server.url)
        stop.wait()


@dataclass
class Sample:
    """One stream: its grading CPU (the grader's alone) and the client's (HTTP included)."""

    endpoint: str
    grade_cpu: float
    client_cpu: float
    bytes: int
    outcome: StreamOutcome


class _TimedGrader(StreamGrader):
    """load's stream grader, with the CPU of each of its calls counted."""

    cpu = 0.0  # this stream's grading CPU (set on each grader made)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        g = time.process_time()
        super().__init__(*args, **kwargs)
        self.cpu = time.process_time() - g

    def feed(self, piece: bytes, now: float | None = None) -> None:
        g = time.process_time()
        super().feed(piece, now)
        self.cpu += time.process_time() - g

    def finish(self, *args: Any, **kwargs: Any) -> StreamOutcome:
        g = time.process_time()
        out = super().finish(*args, **kwargs)
        self.cpu += time.process_time() - g
        _TimedGrader.made = self
        return out

    made: _TimedGrader | None = None


def _send(session: requests.Session, sc: Prepared, tag: str, speed: float) -> Sample:
    """One request, read and graded by load's own ``send``; the grader's CPU timed around
    each of its calls, the client's around the whole."""
    c0 = time.process_time()
    outcome = send(session, sc, tag, speed, grader=_TimedGrader)
    g = _TimedGrader.made
    assert g is not None
    return Sample(sc.endpoint, g.cpu, time.process_time() - c0, g.bytes, outcome)


def _pct(sorted_ms: list[float], p: float) -> float:
    """Nearest-rank percentile of sorted values."""
    return sorted_ms[min(len(sorted_ms) - 1, max(0, math.ceil(p / 100 * len(sorted_ms)) - 1))]


@dataclass
class Figures:
    """What one row prints, from its samples and the wall time they shared."""

    label: str
    samples: list[Sample] = field(default_factory=list)

    def per_core(self, client: bool = False) -> float:
        """Streams one core handles a second: 1000 / the mean CPU ms per stream."""
        cpu = sum(s.client_cpu if client else s.grade_cpu for s in self.samples)
        return len(self.samples) / cpu if cpu > 0 else math.inf

    def line(self, wall: float) -> str:
        n = len(self.samples)
        if not n:
            return f"{self.label:<22} no stream"
        ms = sorted(s.grade_cpu * 1000 for s in self.samples)
        mean = sum(ms) / n
        client_ms = sum(s.client_cpu for s in self.samples) * 1000 / n
        size = sum(s.bytes for s in self.samples)
        grade_cpu = sum(s.grade_cpu for s in self.samples)
        bad = sum(not s.outcome.conforming for s in self.samples)
        return (
            f"{self.label:<22} {n:>7} {n / wall:>9.1f}  "
            f"{_pct(ms, 50):>6.3f} {_pct(ms, 95):>6.3f} {mean:>6.3f} {self.per_core():>8.0f}  "
            f"{client_ms:>6.3f} {self.per_core(client=True):>8.0f}  "
            f"{size / wall / 1e6:>6.2f} {size / grade_cpu / 1e6 if grade_cpu else 0:>7.1f}"
            + (f"  ({bad} nonconforming)" if bad else "")
        )


HEADER = (
    f"{'endpoint (upstream)':<22} {'streams':>7} {'/s wall':>9}  "
    f"{'grading CPU ms':^20} {'/s/core':>8}  {'client':>6} {'/s/core':>8}  "
    f"{'MB/s':>6} {'MB/s':>7}\n"
    f"{'':<22} {'':>7} {'':>9}  {'p50':>6} {'p95':>6} {'mean':>6} {'grading':>8}  "
    f"{'CPU ms':>6} {'client':>8}  {'wall':>6} {'/core':>7}"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--seconds", type=float, default=10.0, help="how long streams are sent")
    ap.add_argument("--endpoint", action="append", choices=ENDPOINTS)
    ap.add_argument(
        "--gateway-rate", type=float, default=1000.0, help="streams/s for the guidance line"
    )
    ap.add_argument("--speed", type=float, default=0.0, help="the upstream's (0: at once)")
    ap.add_argument("--faults", action="store_true", help="send the faulted scenarios too")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    endpoints = args.endpoint or ENDPOINTS
    settings = LoadSettings(
        gateway="http://127.0.0.1:1",  # the upstream's own URL, once it has one
        upstream="http://127.0.0.1:1",
        endpoints=endpoints,
        speed=args.speed,
    )
    ctx = multiprocessing.get_context("spawn")
    mine, theirs = ctx.Pipe()
    stop = ctx.Event()
    proc = ctx.Process(target=_upstream, args=(settings.to_json(), theirs, stop), daemon=True)
    proc.start()
    try:
        if not mine.poll(60):
            raise SystemExit("the replay upstream did not start")
        url: str = mine.recv()
        settings.gateway = settings.upstream = url
        plan = prepare(settings, None)
        own = [
            sc
            for sc in plan
            if sc.dialect == ENDPOINT_DIALECT[sc.endpoint]
            and (args.faults or sc.scenario.fault is None)
        ]
        if not own:
            raise SystemExit("no pass-through scenario for these endpoints")
        _run(args, own, endpoints)
    finally:
        stop.set()
        proc.join(timeout=10)


def _run(args: argparse.Namespace, own: list[Prepared], endpoints: list[str]) -> None:
    """Warm up (each scenario once, unmeasured: imports, caches, the first connection), then
    send for ``--seconds`` and print the figures."""
    session = requests.Session()
    rng = random.Random(args.seed)
    sent = 0
    served_bad: list[str] = []
    for sc in own:
        sent += 1
        s = _send(session, sc, f"L{sc.index}.bench.{sent}", args.speed)
        if not s.outcome.conforming:
            served_bad.append(f"{sc.name} ({' '.join(s.outcome.errors)})")
    counts = ", ".join(f"{e} {sum(sc.endpoint == e for sc in own)}" for e in endpoints)
    print(
        f"{len(own)} pass-through scenarios ({counts}); upstream at speed {args.speed:g} in its"
        f" own process; one client thread for {args.seconds:g} s"
    )
    if served_bad:
        print("not conforming as served (graded all the same): " + "; ".join(served_bad))
    rows = {e: Figures(f"{e} ({ENDPOINT_DIALECT[e]})") for e in endpoints}
    total = Figures("overall")
    wall = time.perf_counter()
    until = wall + args.seconds
    while time.perf_counter() < until:
        sc = rng.choice(own)  # as load's user picks: uniformly over the plan
        sent += 1
        s = _send(session, sc, f"L{sc.index}.bench.{sent}", args.speed)
        rows[sc.endpoint].samples.append(s)
        total.samples.append(s)
    wall = time.perf_counter() - wall
    session.close()
    print(HEADER)
    for row in rows.values():
        print(row.line(wall))
    print(total.line(wall))
    if not total.samples:
        return
    worker = total.per_core(client=True)
    grading = total.per_core()
    need = math.ceil(args.gateway_rate / worker)
    print(
        f"a Locust worker grades about {worker:,.0f} streams/s (one core: HTTP reading and"
        f" grading; grading alone: {grading:,.0f}); a gateway that serves"
        f" {args.gateway_rate:,.0f} streams/s needs ceil({args.gateway_rate:,.0f}/{worker:,.0f})"
        f" = {need} workers, more with Locust's own per-request work on top"
    )


if __name__ == "__main__":
    main()
