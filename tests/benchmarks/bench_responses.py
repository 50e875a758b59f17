"""Benchmark: `check --grammar responses` against openai-python reading the same bytes.

Run:  python tests/benchmarks/bench_responses.py [--quick] [--no-memory]

Prints, measured in the same run on the same bytes (a generated Responses stream of reasoning
summaries, text and function calls, ~100 MB; ~10 MB with --quick):
- `check_chunks(..., grammar="responses")` with every rule and schema check on;
- openai-python's own path: its SSE decoder, each event built as the SDK builds it
  (``construct_type`` into ``ResponseStreamEvent``), then ``ResponseStreamState.handle_event``
  (the snapshot accumulation ``responses.stream()`` runs for ``get_final_response()``);
- the floor: split on blank lines plus `orjson.loads`;
and the ratio the target is stated in (check >= 3x the SDK). Then peak memory (max RSS, in
fresh subprocesses) checking a ~10 MB and a ~1 GB generated stream: it must stay flat.

A completed response repeats its whole output in ``response.completed``: for the throughput
stream that one event is a few MB. At 1 GB it would pass the 16 MiB event limit, so the
memory runs end with ``response.failed`` (whose empty output is not compared): the same
deltas and ``.done`` events, a bounded last event. Streams are generated here, never stored.
Figures are medians of several runs.
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
RID = "resp_bench0000000000000000"
USAGE = {
    "input_tokens": 100,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 50,
    "output_tokens_details": {"reasoning_tokens": 20},
    "total_tokens": 150,
}


class Gen:
    """Numbers the events as it writes them."""

    def __init__(self) -> None:
        self.seq = 0

    def ev(self, obj: dict[str, Any]) -> bytes:
        obj["sequence_number"] = self.seq
        self.seq += 1
        kind: str = obj["type"]
        return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
    r = {
        "id": RID,
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None,
    }
    r.update(extra)
    return r


def head(g: Gen) -> bytes:
    return g.ev({"type": "response.created", "response": response("in_progress", [])}) + g.ev(
        {"type": "response.in_progress", "response": response("in_progress", [])}
    )


def round_(g: Gen, first: int, n: int, out: list[Any]) -> bytes:
    """Items ``first``..``first + 2``: a reasoning item whose summary streams in 100 deltas, a
    message of 2000 text deltas, and a function call whose arguments stream in 200 pieces;
    each with every ``.done`` OpenAI sends. The done items are added to ``out``."""
    b: list[bytes] = []
    rid, mid, fid = f"rs_bench{n:08d}", f"msg_bench{n:08d}", f"fc_bench{n:08d}"
    ref = {"item_id": rid, "output_index": first}
    b.append(
        g.ev(
            {
                "type": "response.output_item.added",
                "output_index": first,
                "item": {"id": rid, "type": "reasoning", "summary": []},
            }
        )
    )
    part = {"type": "summary_text", "text": ""}
    b.append(
        g.ev(
            {
                "type": "response.reasoning_summary_part.added",
                **ref,
                "summary_index": 0,
                "part": part,
            }
        )
    )
    pieces = [WORDS[(n + i) % len(WORDS)] for i in range(100)]
    for p in pieces:
        b.append(
            g.ev(
                {
                    "type": "response.reasoning_summary_text.delta",
                    **ref,
                    "summary_index": 0,
                    "delta": p,
                    "obfuscation": "aBcDeFgHiJ",
                }
            )
        )
    text = "".join(pieces)
    b.append(
        g.ev(
            {
                "type": "response.reasoning_summary_text.done",
                **ref,
                "summary_index": 0,
                "text": text,
            }
        )
    )
    done_part = {"type": "summary_text", "text": text}
    b.append(
        g.ev(
            {
                "type": "response.reasoning_summary_part.done",
                **ref,
                "summary_index": 0,
                "part": done_part,
            }
        )
    )
    item = {"id": rid, "type": "reasoning", "summary": [done_part]}
    b.append(g.ev({"type": "response.output_item.done", "output_index": first, "item": item}))
    out.append(item)

    t = first + 1
    ref = {"item_id": mid, "output_index": t, "content_index": 0}
    added = {
        "id": mid,
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    b.append(g.ev({"type": "response.output_item.added", "output_index": t, "item": added}))
    empty: dict[str, Any] = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    b.append(g.ev({"type": "response.content_part.added", **ref, "part": empty}))
    pieces = [WORDS[(n + i) % len(WORDS)] for i in range(2000)]
    for p in pieces:
        b.append(
            g.ev(
                {
                    "type": "response.output_text.delta",
                    **ref,
                    "delta": p,
                    "logprobs": [],
                    "obfuscation": "aBcDeFgHiJ",
                }
            )
        )
    text = "".join(pieces)
    b.append(g.ev({"type": "response.output_text.done", **ref, "text": text, "logprobs": []}))
    done_part = dict(empty, text=text)
    b.append(g.ev({"type": "response.content_part.done", **ref, "part": done_part}))
    item = dict(added, status="completed", content=[done_part])
    b.append(g.ev({"type": "response.output_item.done", "output_index": t, "item": item}))
    out.append(item)

    u = first + 2
    ref = {"item_id": fid, "output_index": u}
    call = {
        "id": fid,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": f"call_bench{n:08d}",
        "name": "write_file",
    }
    b.append(g.ev({"type": "response.output_item.added", "output_index": u, "item": call}))
    args = json.dumps({"path": f"f{n}.txt", "body": "x" * 2800})
    step = -(-len(args) // 200)
    for i in range(0, len(args), step):
        b.append(
            g.ev(
                {
                    "type": "response.function_call_arguments.delta",
                    **ref,
                    "delta": args[i : i + step],
                    "obfuscation": "aBcDeF",
                }
            )
        )
    b.append(g.ev({"type": "response.function_call_arguments.done", **ref, "arguments": args}))
    item = dict(call, status="completed", arguments=args)
    b.append(g.ev({"type": "response.output_item.done", "output_index": u, "item": item}))
    out.append(item)
    return b"".join(b)


def generated(total_bytes: int, *, completed: bool = True) -> Iterator[bytes]:
    """A Responses stream of about ``total_bytes``, produced on the fly. With ``completed``
    it ends as OpenAI ends one, repeating every item in ``response.completed`` (so the
    items are kept until then); else with ``response.failed`` and an empty output."""
    g = Gen()
    yield head(g)
    sent = 0
    n = 0
    out: list[Any] = []
    while sent < total_bytes:
        block = round_(g, 3 * n, n, out)
        if not completed:
            out.clear()
        yield block
        sent += len(block)
        n += 1
    if completed:
        yield g.ev(
            {"type": "response.completed", "response": response("completed", out, usage=USAGE)}
        )
    else:
        error = {"code": "server_error", "message": "The server had an error."}
        yield g.ev({"type": "response.failed", "response": response("failed", [], error=error)})


def stream(total_bytes: int) -> bytes:
    return b"".join(generated(total_bytes))


def pieces(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


def run_check(chunks: list[bytes]) -> int:
    from sseconform import check_chunks

    result = check_chunks(chunks, grammar="responses")
    if result.findings:
        raise SystemExit(f"benchmark stream has findings: {result.findings[:3]}")
    return result.frames


def run_sdk(chunks: list[bytes]) -> int:
    """openai-python's parse-and-accumulate, as ``ResponseStream.__stream__`` runs it."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai._types import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state: Any = ResponseStreamState(text_format=omit, input_tools=omit)
    n = 0
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.data.startswith("[DONE]"):
            break
        event: Any = construct_type(type_=ResponseStreamEvent, value=sse.json())
        state.handle_event(event)
        n += 1
    assert state._completed_response is not None
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
        f"\nResponses stream (reasoning summaries, text, function calls): {mb:.1f} MB, "
        f"{body.count(b'data: ')} events (CPU time; check and floor: medians of {PAIRS} runs "
        "in turns)"
    )
    for label, t in (
        ("sseconform check --grammar responses", t_check),
        ("openai-python decoder + ResponseStreamState", t_sdk),
        ("floor: split on blank lines + orjson", t_floor),
    ):
        print(f"  {label:<46} {t:7.3f} s  {mb / t:7.1f} MB/s")
    print(f"  check vs openai-python: {t_sdk / t_check:5.2f}x   (target >= 3x)")
    print(f"  check vs floor:         {ratio:5.2f}x   (target >= 1x; median of the pairs)")


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

    checker = checker_for("responses")
    for block in generated(total_bytes, completed=False):
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
    print("\npeak memory (max RSS of a fresh process checking a generated Responses stream)")
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
