"""Benchmark: ``check`` (every rule on) against the floor, in every grammar at once.

Run:  python tests/benchmarks/bench_floor.py [--quick]

The floor is what any reader of a stream must at least do: split the body on blank lines and
``orjson.loads`` every event. The target (the architecture issue's) is ``check`` at least as
fast as the floor in every grammar, on streams of one-token deltas as each provider sends
them: chat chunks with OpenAI's ``obfuscation`` padding, an Anthropic Messages stream of
thinking, text and tool_use blocks, a Responses stream of reasoning, text and calls, and
Gemini text chunks (CRLF, as Google writes them). Each ratio is the median of pairs of runs
in turns (CPU time: ``cputime.py``); the streams are the grammar benchmarks' own generators,
made here, never stored.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if TYPE_CHECKING:  # mypy reads this folder as the package tests.benchmarks
    from tests.benchmarks import bench_anthropic, bench_check, bench_gemini, bench_responses
    from tests.benchmarks.cputime import paired
else:
    import bench_anthropic
    import bench_check
    import bench_gemini
    import bench_responses
    from cputime import paired

Run = Callable[[list[bytes]], object]


def grammars(quick: bool) -> list[tuple[str, bytes, Run, Run]]:
    """Each grammar's stream (about 10 MB; 3 MB with ``quick``), its check and its floor."""
    size = 3_000_000 if quick else 10_000_000
    chat = bench_check.text_stream(size // 200, obfuscation=True)
    gemini = bench_gemini.stream(size // 300)
    return [
        ("chat", chat, bench_check.run_check, bench_check.run_floor),
        ("anthropic", bench_anthropic.stream(size), bench_anthropic.run_check,
         bench_anthropic.run_floor),
        ("responses", bench_responses.stream(size), bench_responses.run_check,
         bench_responses.run_floor),
        ("gemini", gemini, bench_gemini.run_check, bench_gemini.floor_for(b"\r\n\r\n")),  # type: ignore[list-item]
    ]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="~3 MB streams, 5 pairs")
    args = ap.parse_args()
    pairs = 5 if args.quick else 9
    print(f"check vs the floor (split on blank lines + orjson.loads), CPU time, {pairs} pairs")
    print(f"  {'grammar':<10} {'MB':>6} {'check s':>8} {'floor s':>8} {'ratio':>6}  target >= 1x")
    for name, body, check, floor in grammars(args.quick):
        chunks = bench_check.pieces(body)
        t_check, t_floor, ratio = paired(check, floor, chunks, pairs)
        mark = "" if ratio >= 1 else "  below"
        mb = len(body) / 1e6
        print(f"  {name:<10} {mb:6.1f} {t_check:8.3f} {t_floor:8.3f} {ratio:5.2f}x{mark}")


if __name__ == "__main__":
    main()
