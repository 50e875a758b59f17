"""Benchmark: `translate` throughput on an Anthropic Messages stream against the floor.

Run:  python tests/benchmarks/bench_translate.py [--quick] [--compact] [--profile] [--memory]

Prints, measured in the same run on the same bytes (a ~35 MB stream, ~3.5 MB with --quick):
- translation: ``translate_body(pieces, "anthropic")`` over the body in 64 KiB pieces, every
  output chunk consumed (MB/s of *input*); also with the dialect auto-detected;
- the floor: split on blank lines plus ``orjson.loads`` of each event's data;
- the ratio the target is stated in (translation >= 0.4x the floor);
- for reference, `check` on the translated output (MB/s of its own bytes).

The stream is generated here, never stored, in the real event format: ``event:`` lines,
message_start, a text block with many short ``text_delta`` tokens, a ping, a tool_use block
with ``input_json_delta`` fragments, content_block_stop, message_delta, message_stop. Its
JSON is spaced (``{"type": "content_block_delta", "index": 0, ...}``); ``--compact`` writes
it without spaces, as most captures in ../shared/real-streams do. Before timing, the output
is checked once: no `check` error, and the text and tool arguments come through whole.
Then ``--to``: the same answer in every dialect we read (the Anthropic stream; Responses
events and chat chunks made from it, with OpenAI's ``obfuscation`` padding on every event; a
Gemini stream of the same size with CRLF lines and growing usage counts) into every other
grammar, each against the floor on its own input (target >= 0.5x); ``--memory`` adds the
peak memory allocated while translating 10 and 100 MB into Anthropic and Responses events (a
Responses input's terminal event repeats the whole output, so reading it costs that event's
size). ``--profile`` adds the time of
each stage (decoder, JSON parse, translator, serialize) and a cProfile of one translation.
Figures are medians of several runs, taken in rounds (one of each run per round) so that load
from elsewhere on the machine falls on all alike.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

import orjson

READ = 64 * 1024

# Short tokens as Anthropic streams them: words, word pieces, punctuation, newlines,
# a few non-ASCII characters (sent raw, as the API does) and characters JSON must escape.
TOKENS = [
    "Hello", " world", ",", " the", " a", " of", " to", " and", " is", " in", " that",
    " it", " for", " you", " can", " this", " with", " token", " stream", "ing", "ed",
    " function", " value", " re", "turn", ".", "\n", "\n\n", " -", " 42", "°F", " café",
    ' "quoted"', " \\path", "\t", " —", "'s", " I", "'ll", " help",
]  # fmt: skip


class Spaced:
    """JSON as in the issue's example: ``", "`` and ``": "`` separators, raw UTF-8."""

    def __init__(self, compact: bool) -> None:
        self.sep = (",", ":") if compact else (", ", ": ")

    def __call__(self, obj: object) -> str:
        return json.dumps(obj, ensure_ascii=False, separators=self.sep)


def anthropic_stream(
    total_bytes: int, *, compact: bool = False, tool_share: float = 0.15, seed: int = 7
) -> tuple[bytes, str, dict[str, object]]:
    """A Messages stream of about ``total_bytes``: ``(body, text, tool input)``.

    About ``tool_share`` of the bytes are the tool_use block's ``input_json_delta``
    fragments (1-12 characters each, the first one empty, as the API sends); the rest is
    the text block, one short token per ``text_delta``.
    """
    rng = random.Random(seed)
    js = Spaced(compact)
    parts: list[str] = []

    def ev(name: str, obj: dict[str, object]) -> None:
        parts.append(f"event: {name}\ndata: {js(obj)}\n\n")

    ev(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_01Kgk6kMJLdJJC26r3uFwpRU",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-20250514",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 394,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 128,
                    "output_tokens": 1,
                    "service_tier": "standard",
                },
            },
        },
    )
    ev(
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    ev("ping", {"type": "ping"})

    # Text deltas: build them from a template, the way the API's encoder would.
    head = js({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}})
    head = head[: head.rindex("}", 0, len(head) - 1)]  # '... "type": "text_delta"'
    sep_c, sep_k = js.sep
    text_budget = int(total_bytes * (1 - tool_share))
    size = sum(map(len, parts))
    text: list[str] = []
    n_text = 0
    while size < text_budget:
        tok = rng.choice(TOKENS)
        text.append(tok)
        line = f'event: content_block_delta\ndata: {head}{sep_c}"text"{sep_k}{js(tok)}}}}}\n\n'
        parts.append(line)
        size += len(line.encode())
        n_text += 1
    ev("content_block_stop", {"type": "content_block_stop", "index": 0})

    # The tool call: arguments big enough to fill the rest of the budget.
    ev(
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_01N2eM4V43kGCDkq2Lw7ChWQ",
                "name": "write_file",
                "input": {},
            },
        },
    )
    frag_head = js({"type": "content_block_delta", "index": 1, "delta": {"type": "x"}})
    frag_head = frag_head[: frag_head.rindex('"x"')] + '"input_json_delta"'
    # The arguments' JSON text is cut into 1-12 character fragments as it is written (an
    # escape may be split across two, as the API does) until the byte budget is spent.
    words = [t.strip() or "x" for t in TOKENS]
    pending = js({"path": "notes/out.md", "append": False, "body": ""})[:-2]  # '{... "body": "'
    frags: list[str] = []
    tail = len(js({"type": "message_stop"})) + 300  # the events that close the stream
    while True:  # the first fragment is empty, as the API sends it
        while frags and len(pending) < 12:
            pending += js(rng.choice(words) + " ")[1:-1]
        k = rng.randint(1, 12) if frags else 0
        frags.append(pending[:k])
        pending = pending[k:]
        line = (
            f'event: content_block_delta\ndata: {frag_head}{sep_c}"partial_json"{sep_k}'
            f"{js(frags[-1])}}}}}\n\n"
        )
        parts.append(line)
        size += len(line.encode())
        if size >= total_bytes - tail:
            break
    for frag in (pending, '"}') if pending else ('"}',):
        frags.append(frag)
        parts.append(
            f'event: content_block_delta\ndata: {frag_head}{sep_c}"partial_json"{sep_k}'
            f"{js(frag)}}}}}\n\n"
        )
    tool_input: dict[str, object] = json.loads("".join(frags))
    ev("content_block_stop", {"type": "content_block_stop", "index": 1})
    ev(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": n_text + len(frags)},
        },
    )
    ev("message_stop", {"type": "message_stop"})
    return "".join(parts).encode(), "".join(text), tool_input


def pieces(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


def run_translate(chunks: list[bytes], dialect: str | None = "anthropic", to: str = "chat") -> int:
    from sseconform.translate import translate_body

    n = 0
    for out in translate_body(iter(chunks), dialect, to=to):
        n += len(out)
    return n


def obfuscated(body: bytes) -> bytes:
    """Every event with an ``obfuscation`` string of its own (random padding, 0-15
    characters), as OpenAI's chat and Responses streams carry."""
    rng = random.Random(11)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    out = []
    for ev in body.split(b"\n\n")[:-1]:
        if ev.endswith(b"}"):
            pad = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 15))).encode()
            ev = ev[:-1] + b',"obfuscation":"' + pad + b'"}'
        out.append(ev)
    return b"\n\n".join(out) + b"\n\n"


def gemini_stream(total_bytes: int, *, seed: int = 5) -> bytes:
    """A ``streamGenerateContent?alt=sse`` body of about ``total_bytes``: chunks of 1-12
    tokens, each with the usage counts so far (growing, as Gemini 2.5 and 3 send them), lines
    ended with CRLF as the API writes them; a whole function call and the finish at the end."""
    rng = random.Random(seed)
    prompt = {
        "promptTokenCount": 394,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 394}],
    }
    parts: list[bytes] = []
    size = n = 0
    while size < total_bytes:
        k = rng.randint(1, 12)
        n += k
        obj = {
            "candidates": [
                {
                    "content": {
                        "parts": [{"text": "".join(rng.choice(TOKENS) for _ in range(k))}],
                        "role": "model",
                    },
                    "index": 0,
                }
            ],
            "usageMetadata": {**prompt, "candidatesTokenCount": n, "totalTokenCount": 394 + n},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "dX6LadKVC7SZ28oPr9yJoQs",
        }
        parts.append(b"data: " + orjson.dumps(obj) + b"\r\n\r\n")
        size += len(parts[-1])
    call = {"functionCall": {"name": "write_file", "args": {"path": "notes/out.md"}}}
    end = {
        "candidates": [
            {"content": {"parts": [call], "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {**prompt, "candidatesTokenCount": n + 9, "totalTokenCount": 403 + n},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "dX6LadKVC7SZ28oPr9yJoQs",
    }
    parts.append(b"data: " + orjson.dumps(end) + b"\r\n\r\n")
    return b"".join(parts)


#: Each source's grammar, as ``check --grammar`` names it (a source in it passes through).
OWN = {"anthropic": "anthropic", "responses": "responses", "openai": "chat", "gemini": None}


def sources(body: bytes) -> dict[str, bytes]:
    """The same answer in every dialect we read: the Anthropic stream, and from it Responses
    events and chat chunks (each with OpenAI's ``obfuscation`` strings); a Gemini stream of
    the same size."""
    from sseconform.translate import translate_body

    return {
        "anthropic": body,
        "responses": obfuscated(b"".join(translate_body([body], "anthropic", to="responses"))),
        "openai": obfuscated(b"".join(translate_body([body], "anthropic", to="chat"))),
        "gemini": gemini_stream(len(body)),
    }


def targets(body: bytes, repeat: int) -> None:
    """Every source into every other grammar, each against the floor on its own input (the
    target: >= 0.5x); every output passes its grammar's check with no error."""
    from sseconform.api import check_bytes
    from sseconform.translate import translate_body

    print("every source into every target (translate --to), MB/s of input, ratio to its floor:")
    for source, data in sources(body).items():
        chunks = pieces(data)
        runs: dict[str, tuple[Callable[[list[bytes]], int], list[bytes]]] = {
            "floor": (run_floor, chunks)
        }
        for to in ("chat", "anthropic", "responses", "gemini"):
            if OWN[source] == to or source == to:
                continue
            out = b"".join(translate_body(iter(chunks), source, to=to))
            res = check_bytes(out, grammar=to)
            errors = [d for d in res.findings if d.severity.value == "error"]
            if errors:
                raise SystemExit(f"{source} --to {to}: check errors {errors[:3]}")

            def translating(c: list[bytes], s: str = source, x: str = to) -> int:
                return run_translate(c, s, x)

            runs[to] = (translating, chunks)
        t = timed(runs, repeat)
        mb = len(data) / 1e6
        for to in runs:
            if to != "floor":
                print(
                    f"  {source:<9} -> {to:<9} {mb:6.1f} MB  {t[to]:7.3f} s  "
                    f"{mb / t[to]:6.1f} MB/s   floor {t['floor']:6.3f} s   "
                    f"ratio {t['floor'] / t[to]:4.2f}x"
                )


_MEMORY = """
import gc, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
from tests.benchmarks.bench_translate import anthropic_stream, pieces, sources
from sseconform.translate import translate_body
size, source, to = float(sys.argv[2]), sys.argv[3], sys.argv[4]
body, _, _ = anthropic_stream(int(size * 1e6), compact=True)
body = sources(body)[source]
chunks = pieces(body)
del body
gc.collect()
tracemalloc.start()
for _ in translate_body(iter(chunks), source, to=to):
    pass
print(tracemalloc.get_traced_memory()[1])
"""


def memory(size_mb: float, source: str, to: str) -> float:
    """Peak memory (MiB) allocated while a fresh process translates a generated stream of
    ``size_mb`` (tracemalloc; the input, read before, is not counted)."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    argv = [sys.executable, "-c", _MEMORY, root, str(size_mb), source, to]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 2**20


def run_floor(chunks: list[bytes]) -> int:
    """Split on blank lines (LF, or CRLF when the stream's lines end so), then
    ``orjson.loads`` the data line of each event (not chat's ``[DONE]``)."""
    n = 0
    buf = b""
    loads = orjson.loads
    sep = b"\r\n\r\n" if chunks and chunks[0].find(b"\r\n") >= 0 else b"\n\n"
    for c in chunks:
        buf += c
        events = buf.split(sep)
        buf = events.pop()
        for ev in events:
            i = ev.find(b"data: ")
            if i >= 0 and ev[i + 6 :] != b"[DONE]":
                loads(ev[i + 6 :])
                n += 1
    return n


def run_check(chunks: list[bytes]) -> int:
    from sseconform import StreamChecker

    checker = StreamChecker()
    for c in chunks:
        checker.feed(c)
    diags = checker.finish()
    if any(d.severity.value == "error" for d in diags):
        raise SystemExit(f"translated stream has errors: {diags[:3]}")
    return checker.frames


def timed(
    runs: dict[str, tuple[Callable[[list[bytes]], int], list[bytes]]], repeat: int
) -> dict[str, float]:
    """Median seconds of each run, taken in rounds (one of each per round), so load from
    elsewhere on the machine falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, (fn, chunks) in runs.items():
            t0 = time.perf_counter()
            fn(chunks)
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) for name, t in times.items()}


def verify(out: bytes, text: str, tool_input: dict[str, object]) -> int:
    """The translation carries the whole text and the tool call; returns its frame count."""
    content: list[str] = []
    arguments: list[str] = []
    frames = 0
    finish = None
    for block in out.split(b"\n\n"):
        if not block:
            continue
        frames += 1
        data = block.removeprefix(b"data: ")
        if data == b"[DONE]":
            continue
        delta = orjson.loads(data)["choices"][0]
        finish = delta["finish_reason"] or finish
        delta = delta["delta"]
        content.append(delta.get("content") or "")
        for tc in delta.get("tool_calls") or ():
            arguments.append(tc["function"]["arguments"])
    if "".join(content) != text:
        raise SystemExit("translated text differs from the native text")
    if orjson.loads("".join(arguments)) != tool_input:
        raise SystemExit("translated tool arguments differ from the native input")
    if finish != "tool_calls":
        raise SystemExit(f"finish reason {finish!r}, expected 'tool_calls'")
    return frames


def translate_body_once(chunks: list[bytes]) -> list[bytes]:
    from sseconform.translate import translate_body

    return list(translate_body(iter(chunks), "anthropic"))


def stages(chunks: list[bytes], n_events: int, repeat: int) -> None:
    """Where translate_body's time goes, stage by stage, without a profiler's overhead."""
    from sseconform.sse import SSEDecoder
    from sseconform.translate import serialize, translator_for

    dec = SSEDecoder()
    events = [ev for c in chunks for ev in dec.feed(c)] + dec.finish()
    tr = translator_for("anthropic")
    frames = [f for ev in events for f in tr.feed(ev)] + tr.finish()

    def decode(cs: list[bytes]) -> int:
        d = SSEDecoder()
        n = 0
        for c in cs:
            n += len(d.feed(c))
            d.take_anomalies()
        return n + len(d.finish())

    def parse(_: list[bytes]) -> int:
        for ev in events:
            orjson.loads(ev.data)
        return len(events)

    def feed(_: list[bytes]) -> int:
        t = translator_for("anthropic")
        return sum(len(t.feed(ev)) for ev in events) + len(t.finish())

    def dump(_: list[bytes]) -> int:
        return sum(len(serialize(f)) for f in frames)

    t = timed(
        {
            "SSEDecoder.feed (events out, no JSON)": (decode, chunks),
            "orjson.loads of every ev.data": (parse, chunks),
            "AnthropicTranslator.feed, pre-decoded": (feed, chunks),
            "serialize of every frame": (dump, chunks),
            "translate_body, all of it": (run_translate, chunks),
        },
        repeat,
    )
    print(f"\nstages (median of {repeat}, per native event)")
    for name, secs in t.items():
        print(f"  {name:<40} {secs:7.3f} s  {secs / n_events * 1e6:6.2f} us/event")
    print("  (the translator's feed includes the orjson.loads of each event)")


def profile(chunks: list[bytes], top: int) -> None:
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    run_translate(chunks)
    prof.disable()
    print(f"\ncProfile of one translation (top {top} by own time; cProfile inflates calls)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a ~3.5 MB stream, 3 repeats")
    ap.add_argument("--compact", action="store_true", help="JSON without spaces")
    ap.add_argument("--profile", action="store_true", help="cProfile one translation too")
    ap.add_argument("--memory", action="store_true", help="peak memory per target too")
    args = ap.parse_args()
    repeat = 3 if args.quick else 5
    size = 3_500_000 if args.quick else 35_000_000

    body, text, tool_input = anthropic_stream(size, compact=args.compact)
    chunks = pieces(body)
    out = b"".join(translate_body_once(chunks))
    out_chunks = pieces(out)
    frames_out = verify(out, text, tool_input)
    run_check(out_chunks)  # the translation passes check with no error

    mb, mb_out = len(body) / 1e6, len(out) / 1e6
    n_events = body.count(b"\n\n")
    n_text = body.count(b"text_delta")
    n_json = body.count(b"input_json_delta")
    style = "compact" if args.compact else "spaced"
    print(
        f"Anthropic Messages stream ({style} JSON): {mb:.1f} MB, {n_events} events "
        f"({n_text} text_delta, {n_json} input_json_delta); translated: {mb_out:.1f} MB, "
        f"{frames_out} frames (median of {repeat})"
    )
    t = timed(
        {
            "translate": (run_translate, chunks),
            "auto": (lambda c: run_translate(c, None), chunks),
            "floor": (run_floor, chunks),
            "check": (run_check, out_chunks),
        },
        repeat,
    )
    for label, key in (
        ("translate_body(..., 'anthropic')", "translate"),
        ("  the same, dialect auto-detected", "auto"),
        ("floor: split on blank lines + orjson", "floor"),
    ):
        print(
            f"  {label:<40} {t[key]:7.3f} s  {mb / t[key]:7.1f} MB/s  "
            f"{t[key] / n_events * 1e6:6.2f} us/event"
        )
    print(f"  translate vs floor: {t['floor'] / t['translate']:5.2f}x   (target >= 0.4x)")
    print(
        f"  for reference, check on the translated output: {t['check']:7.3f} s  "
        f"{mb_out / t['check']:7.1f} MB/s of output  ({mb / t['check']:.1f} MB/s of native input)"
    )
    targets(body, repeat)
    if args.memory:
        print("peak memory allocated while translating (MiB, tracemalloc, the input not counted)")
        for source, own in OWN.items():
            for to in ("anthropic", "responses"):
                if to != own:
                    small, big = memory(10, source, to), memory(100, source, to)
                    print(f"  {source:<9} -> {to:<9} 10 MB: {small:7.1f}   100 MB: {big:7.1f}")
    if args.profile:
        stages(chunks, n_events, repeat)
        profile(chunks, 25)


if __name__ == "__main__":
    main()
