"""CPU time for the speed benchmarks (``bench_check``, ``bench_anthropic``, ``bench_responses``).

On a shared two-core machine the wall clock of the same run swings twice over with what else
runs; the CPU time one process is given swings far less. What is left (another tenant's
load, the CPU's clock) drifts over seconds, so a ratio is measured in pairs: ``check`` and
the floor run in turns on the same bytes, and the ratio reported is the median of the pairs'.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

Run = Callable[[list[bytes]], object]


def cpu(fn: Run, chunks: list[bytes]) -> float:
    t0 = time.process_time()
    fn(chunks)
    return time.process_time() - t0


def timed(fn: Run, chunks: list[bytes], repeat: int) -> float:
    """Median CPU time of ``repeat`` runs."""
    return statistics.median(cpu(fn, chunks) for _ in range(repeat))


def paired(check: Run, floor: Run, chunks: list[bytes], repeat: int) -> tuple[float, float, float]:
    """``check`` and ``floor`` in turns, ``repeat`` pairs: the median CPU time of each, and
    the median of the pairs' ratios (floor / check: the figure the targets are stated in)."""
    checks: list[float] = []
    floors: list[float] = []
    for _ in range(repeat):
        checks.append(cpu(check, chunks))
        floors.append(cpu(floor, chunks))
    ratio = statistics.median(f / c for c, f in zip(checks, floors, strict=True))
    return statistics.median(checks), statistics.median(floors), ratio
