"""What masking at output time costs: figures only, never a pass/fail.

A 10 MB chat stream of one-token deltas (20 MB without ``--quick``) goes through the run's
masker as a whole buffer and as a stream of 64 KiB and of 512-byte writes, with no secret,
one, and four; the floor is writing the same bytes unmasked (``bytes.lower`` and a search
for one string, the least a case-blind look at every byte costs). CPU time, medians of
paired runs (``cputime``).

Then the masker against escapes: a Gemini stream of 3.4 MB (1 MB with ``--quick``) as
Google's JSON writes it, ``<>&=`` as ``\\u00XX`` and ``/`` as ``\\/`` (an escape every
dozen bytes), with one 164-character secret: MB/s, and the time for ten times the bytes
over the time for the bytes (linear: about 10; the target is at most 15). Before the
masker decoded escapes in one pass, each escape cost a window of six times the longest
form: 0.13 MB/s on these bytes (3.4 MB took 26 s); ``record`` took 48 s for them.

    python tests/benchmarks/bench_mask.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.mask import Masker, MaskStream
from tests.benchmarks.cputime import paired, timed
from tests.hostile.masking import KEYS, LONG_KEY, escaped_gemini


def stream(size: int) -> bytes:
    words = [
        "The",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "the",
        "lazy",
        "dog,",
        "42",
        "times...",
        "café",
        "✓",
    ]
    out: list[bytes] = []
    n = 0
    while n < size:
        obj = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {"content": " " + words[len(out) % len(words)]},
                            "finish_reason": None}]}  # fmt: skip
        line = b"data: " + json.dumps(obj).encode() + b"\n\n"
        out.append(line)
        n += len(line)
    return b"".join(out)


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    data = stream(10_000_000 if args.quick else 20_000_000)
    repeat = 3 if args.quick else 7
    mb = len(data) / 1e6

    def floor(chunks: list[bytes]) -> None:
        for c in chunks:
            _ = b"needle" in c.lower()

    print(f"bench_mask: {mb:.1f} MB chat stream, CPU time, medians of {repeat} pairs")
    for n in (0, 1, 4):
        masker = Masker(list(KEYS.values())[:n])
        for size in (len(data), 65536, 512):
            chunks = pieces(data, size)

            def masked(chunks: list[bytes], masker: Masker = masker) -> None:
                s = MaskStream(masker)
                for c in chunks:
                    s.feed(c)
                s.finish()

            t, f, ratio = paired(masked, floor, chunks, repeat)
            what = "whole" if size == len(data) else f"{size} B writes"
            print(
                f"  {n} secret(s), {what:>15}: {mb / t:8.1f} MB/s  "
                f"(floor {mb / f:8.1f} MB/s, {ratio:.2f}x the floor)"
            )
    escapes(args.quick, repeat, floor)


def escapes(quick: bool, repeat: int, floor: Callable[[list[bytes]], None]) -> None:
    """Escape-heavy Gemini bytes with one long secret: MB/s, and the 10x time ratio."""
    size = 1_000_000 if quick else 3_400_000
    masker = Masker([LONG_KEY])

    def masked(chunks: list[bytes]) -> None:
        s = MaskStream(masker)
        for c in chunks:
            s.feed(c)
        s.finish()

    small = escaped_gemini(size // 10)
    data = escaped_gemini(size)
    n = data.count(b"\\u00") + data.count(b"\\/")
    mb = len(data) / 1e6
    print(
        f"bench_mask: {mb:.1f} MB Gemini stream with {n:,} escapes, one "
        f"{len(LONG_KEY)}-character secret, CPU time, medians of {repeat} pairs"
    )
    for write in (len(data), 65536, 512):
        t, f, ratio = paired(masked, floor, pieces(data, write), repeat)
        what = "whole" if write == len(data) else f"{write} B writes"
        print(
            f"  {what:>15}: {mb / t:8.1f} MB/s  (floor {mb / f:8.1f} MB/s, {ratio:.2f}x the floor)"
        )
    for write in (65536, 512):
        t_small = timed(masked, pieces(small, write), repeat)
        t_big = timed(masked, pieces(data, write), repeat)
        print(
            f"  10x the bytes ({len(small) / 1e6:.2f} -> {mb:.1f} MB, {write} B writes): "
            f"{t_big / t_small:.1f}x the time (target <= 15)"
        )


if __name__ == "__main__":
    main()
