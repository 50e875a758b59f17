"""Benchmark: how many streams one ``load`` worker core can grade, so a user knows how many
Locust workers a gateway's capacity needs before the grader, not the gateway, is the limit.

Run:  python tests/benchmarks/bench_load_grader.py [--seconds 5] [--endpoint messages ...]

For each endpoint, the built-in scenarios whose upstream speaks the endpoint's own dialect
(a pass-through: what the upstream sends is what the client gets, nothing in between) are
prepared as ``sseconform load`` prepares them; each one's upstream answer (the replay plan's
bytes) is fed to the stream grader in 4 KiB reads, as a worker reads a socket, and graded to
its outcome. Printed: streams graded per second of one core's CPU time, and MB/s, per
endpoint. The HTTP client's own reading (urllib3 in Locust) comes on top of this.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.gate.prepared import Prepared
from sseconform.load.plan import LoadSettings, StreamGrader, prepare
from sseconform.providers import ENDPOINT_DIALECT
from sseconform.replay.plan import make_plan

READ = 4096


def _streams(endpoint: str) -> list[tuple[Prepared, bytes]]:
    settings = LoadSettings("http://127.0.0.1:1", "http://127.0.0.1:2", endpoints=[endpoint])
    own = ENDPOINT_DIALECT[endpoint]
    out = []
    for sc in prepare(settings, "k"):
        if sc.dialect != own or sc.scenario.fault is not None:
            continue
        out.append((sc, make_plan(sc.recording, speed=0).body))
    return out


def _grade(sc: Prepared, body: bytes) -> bool:
    grader = StreamGrader(sc, 200, time.perf_counter(), speed=0)
    for i in range(0, len(body), READ):
        grader.feed(body[i : i + READ])
    return grader.finish(True).conforming


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--endpoint", action="append", choices=sorted(ENDPOINT_DIALECT))
    args = ap.parse_args()
    for endpoint in args.endpoint or ["chat", "messages", "responses"]:
        streams = _streams(endpoint)
        if not streams:
            print(f"{endpoint}: no pass-through scenario")
            continue
        bad = [sc.name for sc, body in streams if not _grade(sc, body)]
        n = size = 0
        t0 = time.process_time()
        while time.process_time() - t0 < args.seconds:
            for sc, body in streams:
                _grade(sc, body)
                n += 1
                size += len(body)
        cpu = time.process_time() - t0
        print(
            f"{endpoint:<10} {len(streams):>2} scenarios  {n / cpu:8.0f} streams/s per core  "
            f"{size / cpu / 1e6:6.1f} MB/s  ({n} streams in {cpu:.1f} s CPU"
            + (f"; not conforming as served: {', '.join(bad)})" if bad else ")")
        )


if __name__ == "__main__":
    main()
