"""Benchmark: every wire's fold, next-turn builder, state reader and history check, grown 10x.

Run:  python tests/benchmarks/bench_wires.py [--quick]

Each input is generated on the fly at size N and 10N (many small deltas, many calls, a
signature in many pieces, a history of many tool messages) and timed at both; the ratio of the
two times is printed. Linear code prints about 10; the bar is 15 (a quadratic path prints about
100). Figures only, never a pass/fail.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable

from sseconform.wires import assistant_turn, by_dialect, fold
from sseconform.wires.base import Issued
from sseconform.wires.state import StateFolder


def _sse(objs: list[object]) -> bytes:
    return b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)


def chat_deltas(n: int) -> bytes:
    """One call's arguments in n deltas, and n text deltas."""
    head = {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}
    objs: list[object] = [{"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}]
    piece = {"index": 0, "function": {"arguments": "0123456789" * 25}}
    objs += [{"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}] * n
    objs += [{"choices": [{"index": 0, "delta": {"content": "x" * 250}}]}] * n
    objs += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    return _sse(objs)


def chat_calls(n: int) -> bytes:
    """n calls, each in its own chunk (found by index)."""
    objs: list[object] = []
    for i in range(n):
        call = {"index": i, "id": f"c{i}", "type": "function",
                "function": {"name": "f", "arguments": "{}"}}  # fmt: skip
        objs.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    return _sse(objs)


def anthropic_thinking(n: int) -> bytes:
    """A thinking block of n deltas and a signature in n pieces."""
    objs: list[object] = [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    ]  # fmt: skip
    objs += [{"type": "content_block_delta", "index": 0,
              "delta": {"type": "thinking_delta", "thinking": "t" * 100}}] * n  # fmt: skip
    objs += [{"type": "content_block_delta", "index": 0,
              "delta": {"type": "signature_delta", "signature": "s" * 100}}] * n  # fmt: skip
    objs += [{"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    return _sse(objs)


def chat_history(n: int) -> dict[str, object]:
    """An assistant message with n calls, then n tool messages."""
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": "f"}} for i in range(n)]
    tools = [{"role": "tool", "tool_call_id": f"c{i}", "content": "r"} for i in range(n)]
    return {"messages": [{"role": "assistant", "tool_calls": calls}, *tools]}


def _state(dialect: str, body: bytes) -> None:
    folder = StateFolder(dialect)
    for n, chunk in enumerate(body.split(b"\n\n")[:-1], 1):
        folder.feed(chunk[6:].decode(), n, 0)
    folder.finish()


CASES: list[tuple[str, Callable[[int], object], Callable[[object], object]]] = [
    ("chat fold (deltas)", chat_deltas, lambda b: fold("openai", b)),  # type: ignore[arg-type]
    ("chat next turn (deltas)", chat_deltas, lambda b: assistant_turn("chat", b)),  # type: ignore[arg-type]
    ("chat next turn (calls)", chat_calls, lambda b: assistant_turn("chat", b)),  # type: ignore[arg-type]
    ("messages fold (thinking)", anthropic_thinking, lambda b: fold("anthropic", b)),  # type: ignore[arg-type]
    ("messages next turn", anthropic_thinking, lambda b: assistant_turn("messages", b)),  # type: ignore[arg-type]
    ("messages state (signature)", anthropic_thinking, lambda b: _state("anthropic", b)),  # type: ignore[arg-type]
    ("chat history check", chat_history,
     lambda h: by_dialect("openai").check_history(h, Issued())),  # type: ignore[arg-type]
]  # fmt: skip


def _time(run: Callable[[object], object], arg: object, repeat: int) -> float:
    """The best of ``repeat`` runs, each after a full collection (so one run does not pay for
    the garbage of the one before)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        run(arg)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (CI)")
    args = parser.parse_args()
    n = 400 if args.quick else 2000
    print(f"{'case':<30} {'N':>7} {'time N':>9} {'time 10N':>9} {'ratio':>6}")
    for name, make, run in CASES:
        small, large = make(n), make(10 * n)
        t1, t10 = _time(run, small, 5), _time(run, large, 3)
        print(f"{name:<30} {n:>7} {t1 * 1e3:>7.1f}ms {t10 * 1e3:>7.1f}ms {t10 / t1:>6.1f}")


if __name__ == "__main__":
    main()
