"""Benchmark: how precisely ``gate`` measures what a gateway adds, and its noise floor.

Run:  python tests/benchmarks/bench_timing.py [--runs 100] [--quick]

1. The project's pass-through demo gateway (``sseconform/demo/gateway.py``, no bugs) graded
   ``--runs`` times on the Anthropic text recording spread over 2 s (speed 1): the added
   first-token time (p50, p99, max), the largest added delay of any piece, and how many
   timing findings the default budgets gave (the target is none: no false alarms).
2. The same gateway holding each write 50 ms (``hold-50ms``): the measured added delay of
   each piece should be 50 ms, give or take the noise floor above.

Prints figures only; it never fails on them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.demo.gateway import Gateway
from sseconform.gate.result import ScenarioResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import load_suite, recordings_dir
from tests.gate.test_gate import free_port


def _suite(tmp: Path, runs: int) -> Path:
    text = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
    path = tmp / "suite.toml"
    body = "".join(
        f'[[scenario]]\nname = "run-{i}"\nrecording = "{text}"\nspread = 2.0\n' for i in range(runs)
    )
    path.write_text(f'name = "timing bench"\n{body}', encoding="utf-8")
    return path


def _grade(bugs: set[str], runs: int) -> list[ScenarioResult]:
    with tempfile.TemporaryDirectory() as tmp:
        suite = load_suite(str(_suite(Path(tmp), runs)))
        port = free_port()
        with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
            result = run_suite(suite, gw.url, str(Path(tmp) / "out"), upstream_port=port)
    return result.scenarios


def _ms(values: list[float]) -> str:
    v = sorted(values)
    p99 = v[min(len(v) - 1, int(0.99 * len(v)))]
    p50, top = statistics.median(v), v[-1]
    return f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {top * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="10 runs")
    args = ap.parse_args()
    runs = 10 if args.quick else args.runs

    faithful = _grade(set(), runs)
    first = [s.timing.added_first_token_s for s in faithful if s.timing]
    worst = [s.timing.added_delay_max_s for s in faithful if s.timing]
    findings = [f.key for s in faithful for f in s.findings if f.source == "timing"]
    print(f"pass-through, {runs} runs (2 s of content each, speed 1):")
    print(f"  added first token: {_ms([x for x in first if x is not None])}")
    print(f"  largest added delay per run: {_ms([x for x in worst if x is not None])}")
    print(f"  timing findings at default budgets: {len(findings)} {sorted(set(findings))}")

    held = _grade({"hold-50ms"}, max(3, runs // 10))
    delays = [s.timing.added_delay_p50_s for s in held if s.timing]
    print(
        f"hold-50ms gateway, {len(held)} runs: per-run median added delay "
        f"{_ms([x for x in delays if x is not None])}"
    )


if __name__ == "__main__":
    main()
