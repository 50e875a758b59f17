"""Benchmark: `check` throughput and memory against the references named in the check issue.

Run:  python tests/benchmarks/bench_check.py [--quick]

Prints, measured in the same run on the same bytes:
- `check` with every rule and schema check on;
- openai-python's own SSE decoder plus `json.loads` (what a client pays);
- the floor: split on blank lines plus `orjson.loads`;
and the ratios the targets are stated in (check >= 3x openai, >= 1x floor). Then peak
memory (max RSS, in fresh subprocesses) checking a ~10 MB and a ~1 GB generated stream.
Streams are generated here, never stored. Figures are medians of several runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import orjson

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if TYPE_CHECKING:  # mypy reads this folder as the package tests.benchmarks
    from tests.benchmarks.cputime import paired, timed
else:
    from cputime import paired, timed

READ = 64 * 1024


def text_stream(n_chunks: int, obfuscation: bool = False) -> bytes:
    """Stream (a): OpenAI-shaped text chunks, ~180 bytes a frame (36 MB for 200 000).

    With ``obfuscation``, each chunk also carries OpenAI's per-chunk random padding field,
    as current OpenAI streams do: a second literal that changes on every frame.
    """
    import random

    rng = random.Random(7)
    head = (
        '{"id":"chatcmpl-bench00000000000000000000","object":"chat.completion.chunk",'
        '"created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":'
    )
    parts = [
        f'data: {head}{{"role":"assistant","content":""}},"logprobs":null,'
        '"finish_reason":null}]}\n\n'
    ]
    words = ["Hello", " world", ",", " this", " is", " a", " token", " stream", "."]
    for i in range(n_chunks):
        w = json.dumps(words[i % len(words)])
        pad = ""
        if obfuscation:
            pad = ',"obfuscation":"' + "".join(rng.choices("abcdefXYZ0123", k=rng.randint(2, 12)))
            pad += '"'
        parts.append(
            f'data: {head}{{"content":{w}}},"logprobs":null,"finish_reason":null}}]{pad}}}\n\n'
        )
    parts.append(f'data: {head}{{}},"logprobs":null,"finish_reason":"stop"}}]}}\n\n')
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def tool_stream(total_args: int, calls: int = 5, frag: int = 4) -> bytes:
    """Stream (b): parallel tool calls, arguments in `frag`-character fragments."""
    head = (
        '{"id":"chatcmpl-bench1","object":"chat.completion.chunk","created":1700000000,'
        '"model":"gpt-4o","choices":[{"index":0,"delta":'
    )
    out = [f'data: {head}{{"role":"assistant","content":null}},"finish_reason":null}}]}}\n\n']
    per_call = total_args // calls
    for c in range(calls):
        tc = {
            "index": c,
            "id": f"call_{c:04d}",
            "type": "function",
            "function": {"name": "write_file", "arguments": ""},
        }
        out.append(f'data: {head}{{"tool_calls":[{json.dumps(tc)}]}},"finish_reason":null}}]}}\n\n')
        body = "x" * max(0, per_call - 20)
        args = json.dumps({"path": f"f{c}.txt", "body": body})
        for i in range(0, len(args), frag):
            piece = json.dumps(args[i : i + frag])
            delta = f'{{"tool_calls":[{{"index":{c},"function":{{"arguments":{piece}}}}}]}}'
            out.append(f'data: {head}{delta},"finish_reason":null}}]}}\n\n')
    out.append(f'data: {head}{{}},"finish_reason":"tool_calls"}}]}}\n\n')
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def pieces(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


def run_check(chunks: list[bytes], memo: bool = True) -> int:
    from sseconform import Settings, StreamChecker

    checker = StreamChecker(Settings(memo=memo))
    for c in chunks:
        checker.feed(c)
    diags = checker.finish()
    if any(d.severity.value == "error" for d in diags):
        raise SystemExit(f"benchmark stream has errors: {diags[:3]}")
    return checker.frames


def run_openai(chunks: list[bytes]) -> int:
    from openai._streaming import SSEDecoder

    n = 0
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.data.startswith("[DONE]"):
            break
        json.loads(sse.data)
        n += 1
    return n


def run_floor(chunks: list[bytes]) -> int:
    n = 0
    buf = b""
    loads = orjson.loads
    for c in chunks:
        buf += c
        events = buf.split(b"\n\n")
        buf = events.pop()
        for ev in events:
            if ev.startswith(b"data: ") and ev != b"data: [DONE]":
                loads(ev[6:])
                n += 1
    return n


#: check and the floor run in turns this many times: the ratio is the median of the pairs'.
PAIRS = 9


def throughput(name: str, body: bytes, repeat: int) -> None:
    chunks = pieces(body)
    mb = len(body) / 1e6
    t_check, t_floor, ratio = paired(run_check, run_floor, chunks, PAIRS)
    t_plain = timed(lambda c: run_check(c, memo=False), chunks, repeat)
    t_openai = timed(run_openai, chunks, repeat)
    print(
        f"\n{name}: {mb:.1f} MB, {body.count(b'data: ')} frames (CPU time: check and floor "
        f"medians of {PAIRS} runs in turns, the rest of {repeat})"
    )
    for label, t in (
        ("sseconform check (all rules + schemas)", t_check),
        ("  the same without the template memo", t_plain),
        ("openai-python SSEDecoder + json.loads", t_openai),
        ("floor: split on blank lines + orjson", t_floor),
    ):
        print(f"  {label:<42} {t:7.3f} s  {mb / t:7.1f} MB/s")
    print(f"  check vs openai-python: {t_openai / t_check:5.2f}x   (target >= 3x)")
    print(f"  check vs floor:         {ratio:5.2f}x   (target >= 1x; median of the pairs)")


def _generated(total_bytes: int) -> Iterator[bytes]:
    """A text stream of about `total_bytes`, produced on the fly (never held whole)."""
    block = text_stream(2000)
    body = block[: block.rindex(b"data: {", 0, len(block) - 200)]  # drop finish + [DONE]
    tail = text_stream(0)
    tail = tail[tail.index(b"\n\n") + 2 :]  # finish chunk + [DONE]
    yield body
    sent = len(body)
    first = body.index(b"\n\n") + 2
    middle = body[first:]
    while sent < total_bytes:
        yield middle
        sent += len(middle)
    yield tail


def peak_rss_kb() -> int:
    """This process's peak resident memory. VmHWM is reset by exec; ru_maxrss on Linux
    carries over the parent's peak across fork+exec, so it is only the fallback."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def memory_child(total_bytes: int) -> None:
    from sseconform import StreamChecker

    checker = StreamChecker()
    for block in _generated(total_bytes):
        for i in range(0, len(block), READ):
            checker.feed(block[i : i + READ])
    diags = checker.finish()
    rss_kb = peak_rss_kb()
    print(
        json.dumps(
            {
                "bytes": checker.bytes,
                "frames": checker.frames,
                "rss_kb": rss_kb,
                "errors": sum(d.severity.value == "error" for d in diags),
            }
        )
    )


def memory(sizes: list[int]) -> None:
    print("\npeak memory (max RSS of a fresh process checking a generated text stream)")
    base = None
    for size in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", str(size)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out)
        base = base or r["rss_kb"]
        print(
            f"  {r['bytes'] / 1e6:9.1f} MB  {r['frames']:>10} frames  "
            f"{r['rss_kb'] / 1024:7.1f} MiB  ({r['rss_kb'] / base:.2f}x the first; "
            f"errors {r['errors']})"
        )
    print("  target: the largest within 1.2x of the 10 MB run")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller streams, fewer repeats")
    ap.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-memory", action="store_true", help="skip the 1 GB memory run")
    args = ap.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    repeat = 3 if args.quick else 5
    n_text = 20_000 if args.quick else 200_000
    args_bytes = 200_000 if args.quick else 2_000_000
    throughput("stream (a) text chunks", text_stream(n_text), repeat)
    throughput(
        "stream (a') the same with OpenAI's per-chunk obfuscation field",
        text_stream(n_text, obfuscation=True),
        repeat,
    )
    throughput(
        "stream (b) 5 parallel tool calls, 4-char fragments", tool_stream(args_bytes), repeat
    )
    if not args.no_memory:
        memory([10_000_000, 100_000_000 if args.quick else 1_000_000_000])


if __name__ == "__main__":
    main()
