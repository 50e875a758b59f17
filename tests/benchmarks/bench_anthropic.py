"""Benchmark: `check --grammar anthropic` against the Anthropic SDK reading the same bytes.

Run:  python tests/benchmarks/bench_anthropic.py [--quick] [--no-memory]

Prints, measured in the same run on the same bytes (a generated Messages stream of thinking,
text and tool_use blocks, ~100 MB; ~10 MB with --quick):
- `check_chunks(..., grammar="anthropic")` with every rule and schema check on;
- anthropic-python's own path: its SSE decoder, each event built as the SDK builds it
  (``construct_type`` into ``RawMessageStreamEvent``), then ``accumulate_event`` and
  ``build_events``, which is what ``MessageStream`` does for ``get_final_message()``;
- the floor: split on blank lines plus `orjson.loads`;
and the ratio the target is stated in (check >= 3x the SDK). Then peak memory (max RSS, in
fresh subprocesses) checking a ~10 MB and a ~1 GB generated stream: it must stay flat.
Streams are generated here, never stored. Figures are medians of several runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if TYPE_CHECKING:  # mypy reads this folder as the package tests.benchmarks
    from tests.benchmarks.cputime import paired, timed
else:
    from cputime import paired, timed

READ = 64 * 1024
WORDS = ["Hello", " world", ",", " this", " is", " a", " token", " stream", ".", " caf\u00e9"]


def _event(obj: dict[str, Any]) -> bytes:
    kind: str = obj["type"]
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def head() -> bytes:
    message: dict[str, Any] = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1},
    }
    return _event({"type": "message_start", "message": message}) + _event({"type": "ping"})


def round_(first: int, n: int) -> bytes:
    """Blocks ``first``..``first + 2``: a thinking block (20 deltas and its signature), a text
    block (200 deltas) and a tool_use block whose input streams in 40 pieces."""
    out = [
        _event(
            {
                "type": "content_block_start",
                "index": first,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            }
        )
    ]
    for i in range(20):
        d = {"type": "thinking_delta", "thinking": WORDS[(n + i) % len(WORDS)]}
        out.append(_event({"type": "content_block_delta", "index": first, "delta": d}))
    sig = {"type": "signature_delta", "signature": "c2lnbmF0dXJl" * 8}
    out.append(_event({"type": "content_block_delta", "index": first, "delta": sig}))
    out.append(_event({"type": "content_block_stop", "index": first}))
    t = first + 1
    out.append(
        _event(
            {
                "type": "content_block_start",
                "index": t,
                "content_block": {"type": "text", "text": ""},
            }
        )
    )
    for i in range(200):
        d = {"type": "text_delta", "text": WORDS[(n + i) % len(WORDS)]}
        out.append(_event({"type": "content_block_delta", "index": t, "delta": d}))
    out.append(_event({"type": "content_block_stop", "index": t}))
    u = first + 2
    block = {"type": "tool_use", "id": f"toolu_bench{n:08d}", "name": "write_file", "input": {}}
    out.append(_event({"type": "content_block_start", "index": u, "content_block": block}))
    args = json.dumps({"path": f"f{n}.txt", "body": "x" * 560})
    step = -(-len(args) // 40)
    for i in range(0, len(args), step):
        d = {"type": "input_json_delta", "partial_json": args[i : i + step]}
        out.append(_event({"type": "content_block_delta", "index": u, "delta": d}))
    out.append(_event({"type": "content_block_stop", "index": u}))
    return b"".join(out)


def tail(output_tokens: int) -> bytes:
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": output_tokens},
    }
    return _event(delta) + _event({"type": "message_stop"})


def generated(total_bytes: int) -> Iterator[bytes]:
    """A Messages stream of about ``total_bytes``, produced on the fly (never held whole)."""
    yield head()
    sent = 0
    n = 0
    while sent < total_bytes:
        block = round_(3 * n, n)
        yield block
        sent += len(block)
        n += 1
    yield tail(1 + 260 * n)


def stream(total_bytes: int) -> bytes:
    return b"".join(generated(total_bytes))


def pieces(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


def run_check(chunks: list[bytes]) -> int:
    from sseconform import check_chunks

    result = check_chunks(chunks, grammar="anthropic")
    if result.findings:
        raise SystemExit(f"benchmark stream has findings: {result.findings[:3]}")
    return result.frames


def run_sdk(chunks: list[bytes]) -> int:
    """anthropic-python's parse-and-accumulate, as ``MessageStream.__stream__`` runs it."""
    from anthropic._models import construct_type
    from anthropic._streaming import SSEDecoder
    from anthropic.lib.streaming._messages import accumulate_event, build_events
    from anthropic.types import RawMessageStreamEvent

    snapshot = None
    json_bufs: dict[int, bytes] = {}
    n = 0
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.event == "ping" or sse.event is None or not sse.data:
            continue
        event: Any = construct_type(type_=RawMessageStreamEvent, value=sse.json())
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
        build_events(event=event, message_snapshot=snapshot)
        n += 1
    assert snapshot is not None and snapshot.stop_reason == "tool_use"
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
            loads(ev[ev.index(b"data: ") + 6 :])
            n += 1
    return n


#: check and the floor run in turns this many times: the ratio is the median of the pairs'.
PAIRS = 9


def throughput(total_bytes: int, repeat: int) -> None:
    body = stream(total_bytes)
    chunks = pieces(body)
    mb = len(body) / 1e6
    t_check, t_floor, ratio = paired(run_check, run_floor, chunks, PAIRS)
    t_sdk = timed(run_sdk, chunks, max(1, repeat - 2))
    print(
        f"\nMessages stream (thinking, text, tool_use blocks): {mb:.1f} MB, "
        f"{body.count(b'data: ')} events (CPU time; check and floor: medians of {PAIRS} runs "
        "in turns)"
    )
    for label, t in (
        ("sseconform check --grammar anthropic", t_check),
        ("anthropic-python decoder + accumulate_event", t_sdk),
        ("floor: split on blank lines + orjson", t_floor),
    ):
        print(f"  {label:<46} {t:7.3f} s  {mb / t:7.1f} MB/s")
    print(f"  check vs anthropic-python: {t_sdk / t_check:5.2f}x   (target >= 3x)")
    print(f"  check vs floor:            {ratio:5.2f}x   (target >= 1x; median of the pairs)")


def peak_rss_kb() -> int:
    """This process's peak resident memory (VmHWM; ru_maxrss as the fallback)."""
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
    from sseconform.rules.grammars import checker_for

    checker = checker_for("anthropic")
    for block in generated(total_bytes):
        for i in range(0, len(block), READ):
            checker.feed(block[i : i + READ])
    diags = checker.finish()
    print(
        json.dumps(
            {
                "bytes": checker.bytes,
                "frames": checker.frames,
                "rss_kb": peak_rss_kb(),
                "findings": len(diags),
            }
        )
    )


def memory(sizes: list[int]) -> None:
    print("\npeak memory (max RSS of a fresh process checking a generated Messages stream)")
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
            f"  {r['bytes'] / 1e6:9.1f} MB  {r['frames']:>10} events  "
            f"{r['rss_kb'] / 1024:7.1f} MiB  ({r['rss_kb'] / base:.2f}x the first; "
            f"findings {r['findings']})"
        )
    print("  target: flat (the largest within 1.2x of the 10 MB run)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a ~10 MB stream, fewer repeats")
    ap.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    args = ap.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    throughput(10_000_000 if args.quick else 100_000_000, 3 if args.quick else 5)
    if not args.no_memory:
        memory([10_000_000, 100_000_000 if args.quick else 1_000_000_000])


if __name__ == "__main__":
    main()
