"""Benchmark: `check --grammar gemini` against the floor, on Gemini's own framing.

Run:  python tests/benchmarks/bench_gemini.py [--quick]

Prints, measured in the same run on the same bytes (a generated stream of one-token text
chunks whose usage counts grow, as `streamGenerateContent?alt=sse` sends them; ~12 MB, ~3 MB
with --quick), framed with CRLF as Google writes it and with LF as gateways often do:
- `check_chunks(..., grammar="gemini")` with every rule and schema check on;
- the floor: split on blank lines plus `orjson.loads` of every event;
and the ratio the target is stated in (check at least as fast as the floor). Streams are
generated here, never stored. Figures are medians of pairs run in turns (cputime.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

import orjson

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if TYPE_CHECKING:  # mypy reads this folder as the package tests.benchmarks
    from tests.benchmarks.cputime import paired
else:
    from cputime import paired

READ = 64 * 1024
WORDS = ["Hello", " world", ",", " this", " is", " a", " token", " stream", ".", " caf\u00e9"]


def stream(chunks: int, eol: str = "\r\n") -> bytes:
    """One-token text chunks, each with the usage so far; the last with its finishReason."""
    out = []
    for i in range(chunks):
        candidate: dict[str, object] = {
            "content": {"parts": [{"text": WORDS[i % len(WORDS)]}], "role": "model"},
            "index": 0,
        }
        if i == chunks - 1:
            candidate["finishReason"] = "STOP"
        obj = {
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": 9,
                "candidatesTokenCount": i + 1,
                "totalTokenCount": 10 + i,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
            },
            "modelVersion": "gemini-2.5-flash",
            "responseId": "bench-gemini-0000000000",
        }
        out.append(f"data: {json.dumps(obj, separators=(',', ':'))}{eol}{eol}")
    return "".join(out).encode()


def pieces(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


def run_check(chunks: list[bytes]) -> int:
    from sseconform import check_chunks

    result = check_chunks(chunks, grammar="gemini")
    assert not result.findings, result.findings[:3]
    return result.frames


def floor_for(sep: bytes) -> object:
    def run_floor(chunks: list[bytes]) -> int:
        n = 0
        carry = b""
        for c in chunks:
            blocks = (carry + c).split(sep)
            carry = blocks.pop()
            for b in blocks:
                if b.startswith(b"data: "):
                    orjson.loads(b[6:])
                    n += 1
        return n

    return run_floor


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a ~3 MB stream, fewer repeats")
    args = ap.parse_args()
    n, repeat = (10_000, 5) if args.quick else (40_000, 9)
    for eol, name in (("\r\n", "CRLF (as Google writes it)"), ("\n", "LF")):
        body = stream(n, eol)
        chunks = pieces(body)
        check, floor, ratio = paired(run_check, floor_for((eol * 2).encode()), chunks, repeat)  # type: ignore[arg-type]
        mb = len(body) / 1e6
        print(f"\nGemini text chunks, {name}: {mb:.1f} MB, {n} chunks (CPU time, {repeat} pairs)")
        print(f"  sseconform check --grammar gemini      {check:.3f} s  {mb / check:7.1f} MB/s")
        print(f"  floor: split on blank lines + orjson   {floor:.3f} s  {mb / floor:7.1f} MB/s")
        print(f"  check vs floor: {ratio:.2f}x   (target >= 1x; median of the pairs)")


if __name__ == "__main__":
    main()
