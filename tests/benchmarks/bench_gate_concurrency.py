"""Benchmark: ``gate --concurrency N`` against one scenario at a time, same suites, same
gateway (the project's test gateway on 127.0.0.1), recorded timing (speed 1).

Run:  python tests/benchmarks/bench_gate_concurrency.py [--suite builtin:all] [--levels 1,8]
      [--speed 1] [--endpoint chat]

Prints each level's wall time, the speed-up over the first level, and whether the verdicts
(and each scenario's finding keys) are the same as the first level's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.demo.gateway import Gateway
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite
from tests.gate.test_gate import free_port


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="all", help="a built-in suite name")
    ap.add_argument("--levels", default="1,8")
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--endpoint", default="chat")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    first: dict[str, tuple[str, list[str]]] | None = None
    base = 0.0
    for n in levels:
        suite = for_endpoint(builtin_suite(args.suite.removeprefix("builtin:")), args.endpoint)
        suite.speed = args.speed
        port = free_port()
        with (
            tempfile.TemporaryDirectory() as tmp,
            Gateway(f"http://127.0.0.1:{port}").running() as gw,
        ):
            t0 = time.monotonic()
            result = run_suite(suite, gw.url, tmp, upstream_port=port, concurrency=n)
            took = time.monotonic() - t0
        verdicts = {
            s.name: (s.verdict, sorted(f.key for f in s.findings)) for s in result.scenarios
        }
        if first is None:
            first, base = verdicts, took
        same = "identical verdicts" if verdicts == first else "VERDICTS DIFFER"
        passed = sum(v == "pass" for v, _ in verdicts.values())
        print(
            f"concurrency {n:>3}: {len(verdicts)} scenarios ({passed} pass) in {took:6.2f} s  "
            f"{base / took:5.2f}x  {same}"
        )


if __name__ == "__main__":
    main()
