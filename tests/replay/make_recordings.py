"""Write the native-dialect recordings that the replay tests serve (re-runnable).

    python tests/replay/make_recordings.py [ROOT]

writes, under ``ROOT`` (default: the repository's ``recordings/``)::

    anthropic/messages-tool-use.jsonl   text block, ping, tool_use block with input_json_delta
    anthropic/messages-text.jsonl       a plain text answer (end_turn)
    responses/responses-text.jsonl      OpenAI Responses API: a message with output_text deltas
    gemini/gemini-text.jsonl            Gemini streamGenerateContent?alt=sse, CRLF framing

The streams follow each provider's event grammar (see ../shared/GUIDE.md, section 2); their
content, ids and timings are made up here. Each stream is cut into reads the way a network
delivers it: mostly one event per read, sometimes two together, sometimes an event split
across reads, with a time per read. The ``created`` stamp is fixed, so a re-run rewrites the
same bytes (``test_plan.py`` checks the committed files against a fresh run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from sseconform.recording.format import Response, write_recording

ROOT = Path(__file__).resolve().parents[2] / "recordings"
CREATED = "2026-11-21T06:09:31+00:00"

# A read: the times and how the events are grouped. ``Step`` = (t, number of events to take,
# or a negative number -k meaning "the first k bytes of the next event only").
Step = tuple[float, int]


def _json(obj: Any, pad: int = 0) -> str:
    """Compact JSON, as Anthropic sends it, with the trailing padding some captures show."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text[:-1] + " " * pad + "}" if pad else text


def _event(name: str | None, data: str, nl: str = "\n") -> bytes:
    head = f"event: {name}{nl}" if name else ""
    return f"{head}data: {data}{nl}{nl}".encode()


def _reads(events: list[bytes], steps: list[Step]) -> list[tuple[float, bytes]]:
    """Cut the events into reads: each step takes whole events, or a prefix of the next one."""
    body = b"".join(events)
    ends = []
    pos = 0
    for ev in events:
        pos += len(ev)
        ends.append(pos)
    reads: list[tuple[float, bytes]] = []
    at = 0  # byte offset reached
    done = 0  # events fully sent
    for t, n in steps:
        if n > 0:
            done += n
            stop = ends[done - 1]
        else:
            stop = (ends[done - 1] if done else 0) + (-n)
            stop = max(stop, at + 1)
        reads.append((t, body[at:stop]))
        at = stop
    if at != len(body) or done != len(events):
        raise AssertionError(f"steps cover {at} of {len(body)} bytes, {done} of {len(events)}")
    return reads


def _write(path: Path, reads: list[tuple[float, bytes]], resp: Response, req: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_recording(path, reads, response=resp, request=req, force=True)
    lines = path.read_bytes().split(b"\n", 1)
    header = json.loads(lines[0])
    header["created"] = CREATED
    path.write_bytes(json.dumps(header, ensure_ascii=False).encode() + b"\n" + lines[1])


# -- Anthropic Messages ------------------------------------------------------------------------

ANTHROPIC_REQUEST_HEADERS = [
    ["x-api-key", "[REDACTED]"],
    ["anthropic-version", "2023-06-01"],
    ["content-type", "application/json"],
    ["accept", "application/json"],
]


def _anthropic_response(request_id: str, t: float) -> Response:
    return Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("date", "Sat, 21 Nov 2026 06:09:31 GMT"),
            ("content-type", "text/event-stream; charset=utf-8"),
            ("transfer-encoding", "chunked"),
            ("connection", "keep-alive"),
            ("cache-control", "no-cache"),
            ("anthropic-ratelimit-requests-limit", "4000"),
            ("anthropic-ratelimit-requests-remaining", "3999"),
            ("request-id", request_id),
            ("anthropic-organization-id", "00000000-0000-4000-8000-000000000000"),
            ("via", "1.1 google"),
            ("server", "cloudflare"),
            ("x-robots-tag", "none"),
        ],
        t,
    )


def _message_start(msg_id: str, model: str, input_tokens: int) -> bytes:
    message: dict[str, Any] = {
        "model": model,
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 1,
            "service_tier": "standard",
        },
    }
    return _event("message_start", _json({"type": "message_start", "message": message}, 4))


def _ping() -> bytes:
    return _event("ping", '{"type": "ping"}')


def _block_start(index: int, block: dict[str, Any], pad: int) -> bytes:
    obj = {"type": "content_block_start", "index": index, "content_block": block}
    return _event("content_block_start", _json(obj, pad))


def _delta(index: int, delta: dict[str, Any], pad: int) -> bytes:
    obj = {"type": "content_block_delta", "index": index, "delta": delta}
    return _event("content_block_delta", _json(obj, pad))


def _block_stop(index: int, pad: int) -> bytes:
    return _event("content_block_stop", _json({"type": "content_block_stop", "index": index}, pad))


def _message_delta(stop_reason: str, input_tokens: int, output_tokens: int) -> bytes:
    obj = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
        },
    }
    return _event("message_delta", _json(obj, 7))


def _message_stop() -> bytes:
    return _event("message_stop", _json({"type": "message_stop"}, 9))


def anthropic_tool_use(root: Path) -> Path:
    model = "claude-sonnet-4-6"
    texts = ["I'll check", " the current weather in Lisbon", " for you."]
    fragments = ["", '{"city', '": "Lis', "bon, Por", 'tugal", "unit": ', '"celsius"}']
    events = [
        _message_start("msg_01SseconformToolUse0001", "claude-sonnet-4-6", 486),
        _block_start(0, {"type": "text", "text": ""}, 3),
        _ping(),
        *(_delta(0, {"type": "text_delta", "text": t}, 5) for t in texts),
        _block_stop(0, 2),
        _block_start(
            1,
            {
                "type": "tool_use",
                "id": "toolu_01SseconformWeather001",
                "name": "get_weather",
                "input": {},
            },
            6,
        ),
        *(_delta(1, {"type": "input_json_delta", "partial_json": f}, 4) for f in fragments),
        _block_stop(1, 3),
        _message_delta("tool_use", 486, 71),
        _message_stop(),
    ]
    # 17 events: start, block 0 start, ping, 3 text deltas, stop, block 1 start, 6 fragments,
    # stop, message_delta, message_stop.
    steps: list[Step] = [
        (0.6215, 2),  # message_start and the first block arrive together
        (0.6219, 1),  # ping
        (0.7032, 1),
        (0.7417, 1),
        (0.7868, -60),  # the third text delta, split across two reads
        (0.7871, 2),  # ... its rest, and content_block_stop
        (0.9154, 1),  # tool_use block start
        (0.9158, 1),  # empty partial_json
        (1.0023, 1),
        (1.0281, 1),
        (1.0612, 2),  # two fragments in one read
        (1.0945, 1),
        (1.0951, 3),  # block stop, message_delta, message_stop
    ]
    req = {
        "method": "POST",
        "url": "https://api.anthropic.com/v1/messages",
        "headers": ANTHROPIC_REQUEST_HEADERS,
        "body": {
            "model": model,
            "max_tokens": 1024,
            "stream": True,
            "messages": [{"role": "user", "content": "What's the weather in Lisbon right now?"}],
            "tools": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "city": {"type": "string"},
                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                        },
                        "required": ["city"],
                    },
                }
            ],
        },
    }
    path = root / "anthropic" / "messages-tool-use.jsonl"
    resp = _anthropic_response("req_011SseconformToolUse0001", 0.6203)
    _write(path, _reads(events, steps), resp, req)
    return path


def anthropic_text(root: Path) -> Path:
    model = "claude-haiku-4-5"
    texts = [
        "Server",
        "-Sent Events let a server push",
        " a stream of text events over one",
        " long-lived HTTP response,",
        " which is how LLM APIs stream tokens.",
    ]
    events = [
        _message_start("msg_01SseconformText000002", "claude-haiku-4-5-20251001", 19),
        _block_start(0, {"type": "text", "text": ""}, 1),
        _ping(),
        *(_delta(0, {"type": "text_delta", "text": t}, 3) for t in texts),
        _block_stop(0, 2),
        _message_delta("end_turn", 19, 31),
        _message_stop(),
    ]
    # 11 events
    steps: list[Step] = [
        (0.3862, 1),
        (0.3866, 2),  # block start and ping
        (0.4419, 1),
        (0.4903, 1),
        (0.5388, 1),
        (0.5911, -25),  # a delta split mid-JSON
        (0.5915, 1),
        (0.6402, 1),
        (0.6811, 3),  # block stop, message_delta, message_stop
    ]
    req = {
        "method": "POST",
        "url": "https://api.anthropic.com/v1/messages",
        "headers": ANTHROPIC_REQUEST_HEADERS,
        "body": {
            "model": model,
            "max_tokens": 256,
            "stream": True,
            "messages": [{"role": "user", "content": "What is SSE, in one sentence?"}],
        },
    }
    path = root / "anthropic" / "messages-text.jsonl"
    resp = _anthropic_response("req_011SseconformText000002", 0.3851)
    _write(path, _reads(events, steps), resp, req)
    return path


# -- OpenAI Responses ----------------------------------------------------------------------------


def responses_text(root: Path) -> Path:
    resp_id = "resp_0sseconform0000000000000000000000000000000000000001"
    item_id = "msg_0sseconform0000000000000000000000000000000000000001"
    model = "gpt-4.1-mini-2025-04-14"
    pieces = ["Server", "-Sent", " Events", " stream", " text", " over", " HTTP", "."]
    text = "".join(pieces)

    def response(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
        return {
            "id": resp_id,
            "object": "response",
            "created_at": 1763705371,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "model": model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None},
            "service_tier": "default",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    part_empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    part_full = {**part_empty, "text": text}
    item_open = {
        "id": item_id,
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    item_done = {**item_open, "status": "completed", "content": [part_full]}
    usage = {
        "input_tokens": 14,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 8,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 22,
    }
    objs: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress", [], None)},
        {"type": "response.in_progress", "response": response("in_progress", [], None)},
        {"type": "response.output_item.added", "item": item_open, "output_index": 0},
        {
            "type": "response.content_part.added",
            "content_index": 0,
            "item_id": item_id,
            "output_index": 0,
            "part": part_empty,
        },
    ]
    obfuscation = [
        "k2Xq0hTbYvAa",
        "Pq7LmZ0rT3n",
        "w8S",
        "dF4kQ",
        "zZ1yUe",
        "R5",
        "Hj0n",
        "aQwE3rTyU",
    ]
    for piece, obf in zip(pieces, obfuscation, strict=True):
        objs.append(
            {
                "type": "response.output_text.delta",
                "content_index": 0,
                "delta": piece,
                "item_id": item_id,
                "logprobs": [],
                "obfuscation": obf,
                "output_index": 0,
            }
        )
    objs += [
        {
            "type": "response.output_text.done",
            "content_index": 0,
            "item_id": item_id,
            "logprobs": [],
            "output_index": 0,
            "text": text,
        },
        {
            "type": "response.content_part.done",
            "content_index": 0,
            "item_id": item_id,
            "output_index": 0,
            "part": part_full,
        },
        {"type": "response.output_item.done", "item": item_done, "output_index": 0},
        {"type": "response.completed", "response": response("completed", [item_done], usage)},
    ]
    events = []
    for seq, obj in enumerate(objs):
        obj["sequence_number"] = seq
        events.append(_event(obj["type"], _json(obj)))
    # 16 events
    steps: list[Step] = [
        (0.5124, 2),  # created and in_progress together
        (0.6048, 2),  # output_item.added, content_part.added
        (0.6051, 1),
        (0.6277, 1),
        (0.6513, 1),
        (0.6769, -40),
        (0.6772, 1),
        (0.7015, 1),
        (0.7268, 1),
        (0.7499, 1),
        (0.7712, 1),
        (0.7935, 4),  # the closing events together
    ]
    req = {
        "method": "POST",
        "url": "https://api.openai.com/v1/responses",
        "headers": [["authorization", "[REDACTED]"], ["content-type", "application/json"]],
        "body": {"model": "gpt-4.1-mini", "stream": True, "input": "What is SSE, briefly?"},
    }
    resp = Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("date", "Sat, 21 Nov 2026 06:09:31 GMT"),
            ("content-type", "text/event-stream; charset=utf-8"),
            ("transfer-encoding", "chunked"),
            ("connection", "keep-alive"),
            ("x-request-id", "req_0sseconformresponses0001"),
            ("openai-processing-ms", "88"),
            ("openai-version", "2020-10-01"),
        ],
        0.5109,
    )
    path = root / "responses" / "responses-text.jsonl"
    _write(path, _reads(events, steps), resp, req)
    return path


# -- Gemini --------------------------------------------------------------------------------------


def gemini_text(root: Path) -> Path:
    model = "gemini-2.5-flash"
    pieces = [
        "Server-Sent Events",
        " are a one-way stream of text events from a server",
        " over a single HTTP response.\n",
    ]
    events = []
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        candidate: dict[str, Any] = {"content": {"parts": [{"text": piece}], "role": "model"}}
        if last:
            candidate["finishReason"] = "STOP"
        out = 8 * (i + 1)  # the counts so far, adding up (rule V009)
        usage: dict[str, Any] = {
            "promptTokenCount": 9,
            "candidatesTokenCount": out,
            "totalTokenCount": 9 + out,
        }
        if last:
            usage = {
                "promptTokenCount": 9,
                "candidatesTokenCount": 24,
                "totalTokenCount": 33,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}],
            }
        obj = {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": "sseconformGeminiText0001",
        }
        events.append(_event(None, json.dumps(obj, separators=(",", ": ")), "\r\n"))
    steps: list[Step] = [(0.7342, 1), (0.9017, -30), (0.9021, 1), (1.0566, 1)]
    req = {
        "method": "POST",
        "url": f"https://generativelanguage.googleapis.com/v1beta/models/{model}"
        ":streamGenerateContent?alt=sse",
        "headers": [["x-goog-api-key", "[REDACTED]"], ["content-type", "application/json"]],
        "body": {"contents": [{"role": "user", "parts": [{"text": "What is SSE?"}]}]},
    }
    resp = Response(
        200,
        "OK",
        "HTTP/1.1",
        [
            ("content-type", "text/event-stream"),
            ("content-disposition", "attachment"),
            ("vary", "Origin"),
            ("date", "Sat, 21 Nov 2026 06:09:31 GMT"),
            ("server", "scaffolding on HTTPServer2"),
            ("server-timing", "gfet4t7; dur=702"),
            ("transfer-encoding", "chunked"),
        ],
        0.7331,
    )
    path = root / "gemini" / "gemini-text.jsonl"
    _write(path, _reads(events, steps), resp, req)
    return path


GENERATORS = (anthropic_tool_use, anthropic_text, responses_text, gemini_text)


def main(root: Path = ROOT) -> list[Path]:
    return [gen(root) for gen in GENERATORS]


if __name__ == "__main__":
    for written in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT):
        print(written)
