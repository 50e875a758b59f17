"""Benchmark: memory and time of `check` on hostile shapes, each in a fresh process.

Run:  python tests/benchmarks/bench_limits.py [--quick] [--json]

Each shape is generated on the fly (never stored) and fed to ``StreamChecker`` in 1 MiB
pieces inside a child process, which reports its peak memory (VmHWM) and time:

- one line of 1 GiB (``data: xxxx...`` with no newline; 128 MiB with --quick): W017, the
  line skipped as it arrives;
- 10 million tiny events (``data: {}``; 1 million with --quick): one finding per code up to
  the cap, the rest counted;
- one event of 10 million ``data:`` lines (1 million with --quick): W019, dropped unread;
- 64 MiB of tool-call arguments in one call, past the 64 MiB limit (8 MiB with --quick and a
  smaller limit): F011, not kept.

A baseline child that only imports sseconform gives the memory every process starts with.
``--json`` prints one JSON object per shape. Run by hand (CI leaves it out for its time).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Iterator

MIB = 1024 * 1024
PIECE = MIB


def _hwm_mib() -> float:
    with open("/proc/self/status") as fp:
        for line in fp:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one_line(total: int) -> Iterator[bytes]:
    yield b"data: "
    block = b"x" * PIECE
    for _ in range(total // PIECE):
        yield block


def tiny_events(count: int) -> Iterator[bytes]:
    per = PIECE // 10
    block = b"data: {}\n\n" * per
    for _ in range(count // per):
        yield block
    yield b"data: {}\n\n" * (count % per)


def long_event(lines: int) -> Iterator[bytes]:
    per = PIECE // 8
    block = b"data: x\n" * per
    for _ in range(lines // per):
        yield block
    yield b"data: x\n" * (lines % per) + b"\n"


def big_arguments(total: int) -> Iterator[bytes]:
    """One call whose arguments arrive in 4000-character fragments, then the finish."""
    head = (
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        '"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
    )
    tail = '}]},"finish_reason":null}]}\n\n'
    yield (
        head + '"id":"call_1","type":"function","function":{"name":"f","arguments":""}' + tail
    ).encode()
    event = (head + '"function":{"arguments":"' + "x" * 4000 + '"}' + tail).encode()
    for _ in range(total // 4000):
        yield event
    yield (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )


def child(shape: str, size: int, max_arguments: int | None) -> None:
    """Runs in the child: feed the shape, print a JSON line with the figures."""
    from sseconform.rules.base import Settings
    from sseconform.rules.chat.checker import StreamChecker

    base = _hwm_mib()
    gen = {
        "one-line": one_line,
        "tiny-events": tiny_events,
        "long-event": long_event,
        "big-arguments": big_arguments,
    }[shape](size)
    settings = Settings()
    if max_arguments is not None:
        settings.max_arguments = max_arguments
    checker = StreamChecker(settings)
    t = time.perf_counter()
    fed = 0
    for piece in gen:
        fed += len(piece)
        checker.feed(piece)
    diags = checker.finish()
    took = time.perf_counter() - t
    codes = sorted({d.code for d in diags})
    print(
        json.dumps(
            {
                "shape": shape,
                "bytes": fed,
                "seconds": round(took, 2),
                "peak_mib": round(_hwm_mib(), 1),
                "start_mib": round(base, 1),
                "codes": codes,
                "shown": len(diags),
                "suppressed": sum(checker.suppressed.values()),
            }
        )
    )


def run(shape: str, size: int, max_arguments: int | None = None) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--child", shape, str(size)]
    if max_arguments is not None:
        cmd += ["--max-arguments", str(max_arguments)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", nargs=2, metavar=("SHAPE", "SIZE"))
    ap.add_argument("--max-arguments", type=int)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.max_arguments)
        return
    q = args.quick
    shapes = [
        ("one-line", (128 if q else 1024) * MIB, None),
        ("tiny-events", 1_000_000 if q else 10_000_000, None),
        ("long-event", 1_000_000 if q else 10_000_000, None),
        ("big-arguments", (8 if q else 72) * MIB, (4 if q else 64) * MIB),
    ]
    results = [run(*s) for s in shapes]
    if args.json:
        for r in results:
            print(json.dumps(r))
        return
    print("check on hostile shapes (each in a fresh process, fed in 1 MiB pieces)")
    print("| shape | bytes | time | peak memory | at start | findings |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['shape']} | {int(r['bytes']) / MIB:.0f} MiB | {r['seconds']} s "  # type: ignore[call-overload]
            f"| {r['peak_mib']} MiB | {r['start_mib']} MiB | {', '.join(r['codes'])} "  # type: ignore[arg-type]
            f"({r['shown']} shown, {r['suppressed']} more counted) |"
        )


if __name__ == "__main__":
    main()
