"""Provider truth: shapes a provider's own stream has are not a gateway's errors.

OpenAI ends a tool call with ``finish_reason: "stop"`` when the request forced a named
function (``tool_choice: {"type": "function", ...}``): a recording that holds such a request
gets no F007; the same stream with any other request, or none, still does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform.api import check_file
from sseconform.recording.format import Response, write_recording

CALL = [
    {"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}}]}, "finish_reason": None},
    {"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": "{\"city\":\"Paris\"}"}}]},
     "finish_reason": None},
    {"index": 0, "delta": {}, "finish_reason": "stop"},
]  # fmt: skip


def body() -> bytes:
    out = b""
    for choice in CALL:
        chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                 "model": "gpt-4o", "choices": [choice]}  # fmt: skip
        out += b"data: " + json.dumps(chunk).encode() + b"\n\n"
    return out + b"data: [DONE]\n\n"


def recorded(tmp_path: Path, tool_choice: object) -> Path:
    path = tmp_path / "r.jsonl"
    request: dict[str, object] = {"model": "gpt-4o", "stream": True, "messages": []}
    if tool_choice is not None:
        request["tool_choice"] = tool_choice
    write_recording(
        path,
        [(0.01, body())],
        response=Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")]),
        request={"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                 "headers": [], "body": request},
    )  # fmt: skip
    return path


@pytest.mark.parametrize(
    ("tool_choice", "flagged"),
    [
        ({"type": "function", "function": {"name": "get_weather"}}, False),  # chat's form
        ({"type": "function", "name": "get_weather"}, False),  # Responses' form
        ("required", True),
        ("auto", True),
        (None, True),
    ],
)
def test_a_forced_function_may_finish_with_stop(
    tmp_path: Path, tool_choice: object, flagged: bool
) -> None:
    codes = [d.code for d in check_file(recorded(tmp_path, tool_choice)).findings]
    assert ("F007" in codes) == flagged, codes


def test_a_bare_stream_has_no_request_to_tell_by(tmp_path: Path) -> None:
    """Without the request F007 cannot be judged: a warning that says what decides it."""
    path = tmp_path / "s.sse"
    path.write_bytes(body())
    [f007] = [d for d in check_file(path).findings if d.code == "F007"]
    assert f007.severity == "warning"
    assert "check --request FILE" in f007.message


@pytest.mark.parametrize(
    ("tool_choice", "severity"),
    [({"type": "function", "function": {"name": "get_weather"}}, None), ("auto", "error")],
)
def test_check_request_decides_f007_for_a_bare_stream(
    tmp_path: Path, tool_choice: object, severity: str | None
) -> None:
    from tests.cli.helpers import run_cli

    path = tmp_path / "s.sse"
    path.write_bytes(body())
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"model": "gpt-4o", "tool_choice": tool_choice}))
    run = run_cli("check", path, "--request", req, "--format", "json", cwd=tmp_path)
    found = [d for f in json.loads(run.out)["files"] for d in f["findings"]]
    got = [d["severity"] for d in found if d["code"] == "F007"]
    assert got == ([severity] if severity else []), run.both
