"""Benchmark: live partial JSON for streamed tool arguments, and `inspect` on a big stream.

Run:  python tests/benchmarks/bench_inspect.py [--quick]

1. Tool-call arguments of 10 KB, 50 KB and 200 KB arrive in 4-character fragments. After
   every fragment the live value must be available. Measured in the same run:
   - ``PartialJSON``: ``feed(fragment)``, then the live state (``status`` and the
     ``pending`` closers that mark the unfinished tail), fastest of 7 runs; and, as the
     worst case a screen never asks for, a 20-line x 80-column window of the pretty print
     rendered after *every* fragment;
   - jiter re-parsing the whole buffer per fragment (``partial_mode="trailing-strings"``),
     what partial-JSON libraries do.
   Two shapes: structured (an object of records: keys, numbers, literals, short strings) and
   one huge string (``{"content": "..."}``). Targets: 200 KB at least 400x faster than
   re-parsing, and cost(200 KB) / cost(50 KB) <= 5 (linear). ``--quick`` stops at 50 KB
   (re-parsing 200 KB alone takes ~25 s).
2. ``inspect --speed 0`` on a ~35 MB Anthropic stream (3.5 MB with --quick): the view fed in
   64 KiB reads, without a screen (``--no-live``) and with the live screen redrawing at its
   20/s cap into a terminal-sized buffer; figures in MB/s, redraws counted, peak memory.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import sys
import threading
import time
from typing import TYPE_CHECKING

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if TYPE_CHECKING:  # mypy reads this folder as the package tests.benchmarks
    from tests.benchmarks.bench_translate import anthropic_stream
else:
    from bench_translate import anthropic_stream

from sseconform.model import PartialJSON

FRAGMENT = 4


def structured(size: int) -> str:
    items = []
    n = 0
    i = 0
    while n < size:
        item = {
            "id": i,
            "name": f"item {i}",
            "tags": ["alpha", "b\u00eata"],
            "price": round(i * 1.25, 2),
            "in_stock": i % 3 != 0,
            "note": None if i % 2 else 'fragile, "handle" with care\n',
        }
        s = json.dumps(item, ensure_ascii=False)
        items.append(item)
        n += len(s) + 2
        i += 1
    return json.dumps({"items": items}, ensure_ascii=False)


def huge_string(size: int) -> str:
    words = ["lorem", "ipsum", "dolor", "sit", "amet,", "\u00e9t\u00e9", '"quoted"', "\\path\n"]
    out: list[str] = []
    n = 0
    i = 0
    while n < size - 20:  # n counts the JSON text, escapes included
        w = words[i % len(words)] + " "
        out.append(w)
        n += len(json.dumps(w, ensure_ascii=False)) - 2
        i += 1
    return json.dumps({"content": "".join(out)}, ensure_ascii=False)


def frags(text: str) -> list[str]:
    return [text[i : i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]


def run_partial(pieces: list[str], window: bool) -> float:
    t = time.perf_counter()
    p = PartialJSON()
    feed = p.feed
    if window:
        for f in pieces:
            feed(f)
            p.tail(20, 80)
            _ = p.pending
    else:
        for f in pieces:
            feed(f)
            _ = (p.status, p.pending)  # the live state: status column, closers marking the tail
    return time.perf_counter() - t


def run_jiter(pieces: list[str]) -> float:
    import jiter

    buf = "".join(pieces).encode()
    ends: list[int] = []
    pos = 0
    for f in pieces:
        pos += len(f.encode())
        ends.append(pos)
    t = time.perf_counter()
    for end in ends:
        jiter.from_json(buf[:end], partial_mode="trailing-strings")
    return time.perf_counter() - t


def check_correct(text: str) -> None:
    p = PartialJSON()
    for f in frags(text):
        p.feed(f)
    p.finish()
    assert p.status == "complete" and p.value() == json.loads(text), "partial JSON is wrong"


def partial_json(quick: bool) -> None:
    sizes = [10_000, 50_000] if quick else [10_000, 50_000, 200_000]
    print(f"## Partial JSON: arguments in {FRAGMENT}-character fragments, live value each time")
    print(
        "| shape | size | fragments | PartialJSON | + 20x80 window per fragment "
        "| jiter re-parse | speed-up |"
    )
    print("|---|---|---|---|---|---|---|")
    costs: dict[tuple[str, int], float] = {}
    for shape, make in (("structured", structured), ("one string", huge_string)):
        for size in sizes:
            text = make(size)
            check_correct(text)
            pieces = frags(text)
            # the fastest of several runs: noise only ever adds time to a run this short
            ours = min(run_partial(pieces, False) for _ in range(7))
            win = min(run_partial(pieces, True) for _ in range(5))
            theirs = run_jiter(pieces)
            costs[(shape, size)] = ours
            print(
                f"| {shape} | {len(text) / 1000:.0f} KB | {len(pieces)} | {ours * 1000:.1f} ms "
                f"| {win * 1000:.1f} ms | {theirs * 1000:.0f} ms | {theirs / ours:.0f}x |"
            )
    big = sizes[-1]
    for shape in ("structured", "one string"):
        ratio = costs[(shape, big)] / costs[(shape, 50_000)]
        if big != 50_000:
            print(f"- {shape}: cost({big // 1000} KB) / cost(50 KB) = {ratio:.2f} (target <= 5)")


def inspect_big(quick: bool) -> None:
    from rich.console import Console

    from sseconform.inspect.render import Budget, render
    from sseconform.inspect.state import StreamView

    size = 3_500_000 if quick else 35_000_000
    body, _text, _tool = anthropic_stream(size)
    reads = [body[i : i + 64 * 1024] for i in range(0, len(body), 64 * 1024)]
    mb = len(body) / 1e6
    print(f"\n## inspect --speed 0 on an Anthropic stream of {mb:.1f} MB ({len(reads)} reads)")

    def plain() -> tuple[float, StreamView]:
        view = StreamView("bench")
        t = time.perf_counter()
        for r in reads:
            view.feed(0.0, r)
        view.finish()
        return time.perf_counter() - t, view

    took, view = plain()
    print(
        f"- no screen: {took:.2f} s, {mb / took:.1f} MB/s; {view.events} native events -> "
        f"{view.chunks} chunks"
    )

    # live: a refresh thread at 20/s renders into a 100x50 terminal buffer while feeding
    view = StreamView("bench")
    console = Console(file=io.StringIO(), width=100, height=50, force_terminal=True)
    budget = Budget.for_height(50)
    stop = threading.Event()
    redraws = 0
    render_time = 0.0

    def refresher() -> None:
        nonlocal redraws, render_time
        while not stop.wait(1 / 20):
            t0 = time.perf_counter()
            console.print(render(view, 100, budget))
            console.file.seek(0)
            console.file.truncate()
            render_time += time.perf_counter() - t0
            redraws += 1

    th = threading.Thread(target=refresher)
    th.start()
    t = time.perf_counter()
    for r in reads:
        view.feed(0.0, r)
    view.finish()
    live = time.perf_counter() - t
    stop.set()
    th.join()
    print(
        f"- live screen: {live:.2f} s, {mb / live:.1f} MB/s ({live / took:.2f}x the time without "
        f"a screen); {redraws} redraws = {redraws / live:.1f}/s, "
        f"{render_time / max(redraws, 1) * 1000:.1f} ms each"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"- peak RSS of this process: {peak:.0f} MiB (includes the {mb:.0f} MB body in memory)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller inputs, for CI")
    args = ap.parse_args()
    partial_json(args.quick)
    inspect_big(args.quick)


if __name__ == "__main__":
    main()
