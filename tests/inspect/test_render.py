"""Snapshots of the inspect view at chosen points of a stream, at 100 columns, colour off.

After an intended change to the view, rewrite and review::

    SSECONFORM_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/inspect/test_render.py
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from sseconform.inspect.render import SUMMARY, Budget, render, sparkline
from sseconform.inspect.state import StreamView, summarize
from sseconform.recording.format import RecordingReader
from tests.conftest import CASES, ROOT
from tests.snapshot import compare

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
WIDTH = 100


def screen(view: StreamView, budget: Budget = SUMMARY, width: int = WIDTH) -> str:
    out = io.StringIO()
    console = Console(
        file=out, width=width, color_system=None, force_terminal=False, legacy_windows=False
    )
    console.print(render(view, width, budget))
    return out.getvalue()


def chunk(delta: dict[str, Any], finish: str | None = None, **top: Any) -> str:
    obj = {
        "id": "chatcmpl-snap1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-snap",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **top,
    }
    return "data: " + json.dumps(obj) + "\n\n"


def args(index: int, text: str, head: bool = False) -> dict[str, Any]:
    tc: dict[str, Any] = {"index": index, "function": {"arguments": text}}
    if head:
        tc.update(id=f"call_{index}", type="function")
        tc["function"]["name"] = "search_docs"
    return {"tool_calls": [tc]}


ARGUMENTS = json.dumps(
    {"query": "partial json", "filters": {"lang": ["en", "fr"], "year": 2026}, "limit": 5},
    indent=None,
)


def tool_stream() -> list[str]:
    """Text, then one call whose arguments arrive in 6-character fragments, then the end."""
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me search "}),
        chunk({"content": "the docs."}),
        chunk(args(0, "", head=True)),
    ]
    events += [chunk(args(0, ARGUMENTS[i : i + 6])) for i in range(0, len(ARGUMENTS), 6)]
    events += [chunk({}, "tool_calls"), "data: [DONE]\n\n"]
    return events


def feed(view: StreamView, events: list[str], step: float = 0.05, start: float = 0.2) -> None:
    for i, ev in enumerate(events):
        view.feed(start + i * step, ev.encode())


def test_mid_arguments() -> None:
    events = tool_stream()
    view = StreamView("mid.sse")
    feed(view, events[: 4 + 9])  # the call's head and 9 fragments: inside the "filters" object
    text = screen(view)
    assert "streaming" in text and "\u258c" in text  # the unfinished tail is marked
    compare(SNAPSHOTS / "mid-arguments.txt", text)


def test_end_of_tool_stream() -> None:
    view = StreamView("end.sse")
    feed(view, tool_stream())
    view.finish()
    text = screen(view)
    assert "complete" in text and "finish tool_calls, [DONE]" in text
    compare(SNAPSHOTS / "end-tool-call.txt", text)


def test_after_an_error_frame() -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Half an ans"}),
        'data: {"error": {"message": "upstream overloaded", "type": "overloaded_error"}}\n\n',
    ]
    view = StreamView("error.sse")
    feed(view, events)
    text = screen(view)
    assert "upstream overloaded" in text
    compare(SNAPSHOTS / "after-error-frame.txt", text)
    view.feed(0.5, b"data: [DONE]\n\n")
    view.finish()
    assert "error frame, [DONE]" in screen(view)


def test_invalid_arguments_and_diagnostics() -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk(args(0, '{"a": 1,', head=True)),
        chunk(args(0, ' "b": tru')),
        chunk(args(0, "e, }")),  # a trailing comma: invalid at the closing brace
        chunk({"content": ""}, "tool_calls"),  # not an empty final delta
    ]
    view = StreamView("invalid.sse")
    feed(view, events)
    view.finish(complete=True)
    text = screen(view)
    assert "invalid JSON" in text and "F003" in text and "D001" in text
    compare(SNAPSHOTS / "invalid-arguments.txt", text)


def test_stalls_on_the_timeline() -> None:
    view = StreamView("stall.sse", stall=1.0)
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": f"w{i} "}) for i in range(12)]
    times = [0.1 + 0.02 * i for i in range(len(events))]
    times[5:] = [t + 2.5 for t in times[5:]]  # one 2.5 s stall before the sixth event
    times[10:] = [t + 1.2 for t in times[10:]]
    for t, ev in zip(times, events, strict=True):
        view.feed(t, ev.encode())
    view.tick(times[-1] + 3.0)  # and waiting for the next one right now
    text = screen(view)
    assert "stalls (\u2265 1 s) 2" in text and "waiting 3.0 s" in text
    compare(SNAPSHOTS / "stalls.txt", text)


def test_native_recording_translated_at_the_end() -> None:
    path = ROOT / "recordings" / "anthropic" / "parallel-calls-anthropic.jsonl"
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path))
        view = StreamView("parallel-calls-anthropic.jsonl", status=200)
        for t, data in reader.reads():
            view.feed(t, data)
    view.finish()
    text = screen(view)
    assert "anthropic \u2192 chunks" in text and "content_block_delta" in text
    compare(SNAPSHOTS / "native-parallel-calls.txt", text)


def test_http_error_body() -> None:
    view = StreamView("429.json", status=429)
    view.feed(0.1, b'{"error": {"type": "rate_limit_error", "message": "slow down"}}')
    view.finish()
    text = screen(view)
    assert "HTTP 429: the response body" in text and "slow down" in text
    compare(SNAPSHOTS / "http-429.txt", text)


def test_live_layout_fits_a_small_terminal() -> None:
    view = StreamView("live.sse")
    feed(view, tool_stream()[:10])
    text = screen(view, Budget.for_height(40), width=80)
    assert len(text.splitlines()) <= 40
    compare(SNAPSHOTS / "live-80x40.txt", text)


def test_terminal_escapes_from_the_stream_are_shown_not_obeyed() -> None:
    view = StreamView("hostile.sse")
    evil = "\x1b[2J\x1b]0;pwned\x07 hi"
    feed(
        view,
        [
            chunk({"role": "assistant", "content": evil}),
            chunk(args(0, '{"x": "\x1b[31m"}', head=True)),
        ],
    )
    text = screen(view)
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J" in text


def test_text_is_kept_bounded_on_a_long_stream() -> None:
    view = StreamView("long.sse")
    piece = chunk({"content": "0123456789" * 10}).encode()
    for i in range(3000):  # 300 000 characters of text
        view.feed(i * 0.001, piece)
    text_parts = view.model.choices[0].parts[0]
    assert text_parts.total == 300_000 and text_parts.cut
    assert len(text_parts.value) <= 2 * 64 * 1024
    assert len(view.log) <= 256 and len(view.gaps) <= 1024


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}, "finish stop"),
        ({"choices": [{"index": 0, "delta": {}, "finish_reason": None}]}, "empty delta"),
        ({"error": {"message": "boom"}}, "error 'boom'"),
        ({"type": "content_block_stop", "index": 0}, "(no delta; keys: type, index)"),
        ({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}, "usage 3+4"),
    ],
)
def test_summaries(obj: dict[str, Any], expected: str) -> None:
    assert summarize(obj) == expected


def test_sparkline_marks_stalls() -> None:
    line = sparkline([0.001, 0.01, 2.0], stall=1.0)
    assert len(line.plain) == 3 and line.plain[-1] == "\u2588"
    assert any("red" in str(span.style) for span in line.spans)


def test_a_non_streaming_gemini_answer_is_one_event() -> None:
    """Gemini's generateContent answer (one object): read as one chunk, checked in the
    gemini grammar as ``check --non-streaming`` checks it, fed a byte at a time."""
    body = (CASES / "gemini" / "pass" / "non-streaming-answer" / "stream.sse").read_bytes()
    view = StreamView("answer.json", whole=True)
    for i in range(len(body)):
        view.feed(0.5, body[i : i + 1])
    view.finish()
    text = screen(view)
    assert "gemini \u2192 chunks" in text and "events 1" in text and "lookup" in text
    assert "diagnostics (0, gemini grammar)" in text
    compare(SNAPSHOTS / "non-streaming-gemini.txt", text)
