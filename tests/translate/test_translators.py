"""The reference translators on hand-made native streams, one behaviour per test.

Each stream is built here from small helpers that follow the real event shapes (GUIDE §2).
Every translation goes through :func:`translate`, which also checks that feeding the same
bytes one byte at a time gives the same output, that dialect detection picks the same
translator, and (via :func:`run`) that ``sseconform.check_bytes`` finds no error in it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sseconform import Severity, check_bytes
from sseconform.sse.events import Event as SSEEvent
from sseconform.translate import translate_body, translator_for
from sseconform.translate.jsonpath import ArgsBuilder, parse_path

Obj = dict[str, Any]
Event = tuple[str | None, Obj | str]

# database=None: keep the run from writing a .hypothesis/ folder into the checkout.
SETTINGS = settings(max_examples=150, deadline=None, database=None)


# -- running a translation ------------------------------------------------------------------


def _data(obj: Obj | str) -> str:
    return obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":"))


def sse(*events: Event, nl: str = "\n") -> bytes:
    """Native events as an SSE body: ``event:`` (when named) and ``data:`` lines."""
    out = []
    for name, obj in events:
        head = f"event: {name}{nl}" if name else ""
        out.append(f"{head}data: {_data(obj)}{nl}{nl}")
    return "".join(out).encode()


def translate(
    body: bytes,
    dialect: str,
    *,
    include_usage: bool = False,
    model: str | None = None,
    auto: bool = True,
) -> bytes:
    """The translation of ``body``; the same whole, one byte at a time, and auto-detected."""
    whole = b"".join(translate_body([body], dialect, include_usage=include_usage, model=model))
    bytewise = b"".join(
        translate_body(
            (body[i : i + 1] for i in range(len(body))),
            dialect,
            include_usage=include_usage,
            model=model,
        )
    )
    assert bytewise == whole, "one byte at a time gives another translation"
    if auto:
        detected = b"".join(translate_body([body], None, include_usage=include_usage, model=model))
        assert detected == whole, "the detected dialect gives another translation"
    return whole


def parse(out: bytes) -> list[Obj | str]:
    """The frames of a translated body, which must be ``data: <json>`` blocks only."""
    assert out.endswith(b"\n\n")
    frames: list[Obj | str] = []
    for block in out[:-2].split(b"\n\n"):
        assert block.startswith(b"data: ") and b"\n" not in block, block
        payload = block[len(b"data: ") :]
        frames.append("[DONE]" if payload == b"[DONE]" else json.loads(payload))
    return frames


def assert_clean(out: bytes, allowed: frozenset[str] = frozenset()) -> set[str]:
    """``check`` finds no error, and no other diagnostic than those ``allowed``."""
    result = check_bytes(out)
    assert result.error is None, result.error
    errors = [str(d) for d in result.findings if d.severity is Severity.ERROR]
    assert not errors, errors
    assert result.codes <= allowed, [str(d) for d in result.findings]
    return result.codes


def run(
    body: bytes,
    dialect: str,
    *,
    include_usage: bool = False,
    model: str | None = None,
    auto: bool = True,
    allowed: frozenset[str] = frozenset(),
) -> list[Obj | str]:
    out = translate(body, dialect, include_usage=include_usage, model=model, auto=auto)
    assert_clean(out, allowed)
    frames = parse(out)
    _assert_one_head(frames)
    return frames


def _assert_one_head(frames: list[Obj | str]) -> None:
    """Every chunk carries the same id, model and created; [DONE] ends the stream."""
    chunks = [f for f in frames if isinstance(f, dict) and "error" not in f]
    assert len({(c["id"], c["model"], c["created"]) for c in chunks}) <= 1
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert frames[-1] == "[DONE]" and frames.count("[DONE]") == 1


# -- reading the frames ---------------------------------------------------------------------


def outline(frames: list[Obj | str]) -> list[Any]:
    """Each frame as ``(delta, finish_reason)``, ``("usage", usage)``, ``("error", error)`` or
    ``"[DONE]"``; choice 0 only (asserted)."""
    out: list[Any] = []
    for f in frames:
        if isinstance(f, str):
            out.append(f)
        elif "error" in f:
            out.append(("error", f["error"]))
        elif f["choices"] == []:
            out.append(("usage", f["usage"]))
        else:
            [choice] = f["choices"]
            assert choice["index"] == 0 and choice["logprobs"] is None
            assert "usage" not in f
            out.append((choice["delta"], choice["finish_reason"]))
    return out


def deltas(frames: list[Obj | str]) -> list[Obj]:
    return [f["choices"][0]["delta"] for f in frames if isinstance(f, dict) and f.get("choices")]


def joined(frames: list[Obj | str], key: str) -> str:
    return "".join(d.get(key) or "" for d in deltas(frames))


def finishes(frames: list[Obj | str]) -> list[str]:
    return [
        f["choices"][0]["finish_reason"]
        for f in frames
        if isinstance(f, dict) and f.get("choices") and f["choices"][0]["finish_reason"]
    ]


def calls(frames: list[Obj | str]) -> list[Obj]:
    """The tool calls, by index: id, name and the arguments' concatenated fragments."""
    out: dict[int, Obj] = {}
    for d in deltas(frames):
        for tc in d.get("tool_calls") or []:
            call = out.setdefault(tc["index"], {"id": None, "name": None, "arguments": ""})
            if "id" in tc:
                assert call["id"] is None, "a call's head was sent twice"
                assert tc["type"] == "function"
                call["id"], call["name"] = tc["id"], tc["function"]["name"]
            else:
                assert set(tc) == {"index", "function"} and set(tc["function"]) == {"arguments"}
            call["arguments"] += tc["function"].get("arguments", "")
    assert sorted(out) == list(range(len(out))), "call indexes are not dense from 0"
    return [out[i] for i in range(len(out))]


def usage_of(frames: list[Obj | str]) -> Obj | None:
    found = [f for f in frames if isinstance(f, dict) and f.get("choices") == []]
    assert len(found) <= 1
    return found[0]["usage"] if found else None


def error_of(frames: list[Obj | str]) -> Obj | None:
    found = [f["error"] for f in frames if isinstance(f, dict) and "error" in f]
    assert len(found) <= 1
    if found:
        assert frames[-2:] == [{"error": found[0]}, "[DONE]"], "the error frame is not last"
    return found[0] if found else None


ROLE = ({"role": "assistant", "content": ""}, None)


def head(index: int, id: str, name: str) -> Obj:
    return {
        "tool_calls": [
            {
                "index": index,
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
    }


def frag(index: int, arguments: str) -> Obj:
    return {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}


# == Anthropic Messages ======================================================================

A_ID = "msg_01XFDUDYJgAACzvnptvVoYEL"
A_MODEL = "claude-sonnet-4-5-20250929"


def a_start(
    id: str = A_ID, *, input_tokens: int = 25, cache_read: int = 0, cache_creation: int = 0
) -> Event:
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "output_tokens": 1,
    }
    message: Obj = {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": A_MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return ("message_start", {"type": "message_start", "message": message})


def a_block(index: int, block: Obj) -> Event:
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def a_text_block(index: int) -> Event:
    return a_block(index, {"type": "text", "text": ""})


def a_tool_block(index: int, id: str, name: str) -> Event:
    return a_block(index, {"type": "tool_use", "id": id, "name": name, "input": {}})


def a_delta(index: int, delta: Obj) -> Event:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def a_text(index: int, text: str) -> Event:
    return a_delta(index, {"type": "text_delta", "text": text})


def a_json(index: int, partial: str) -> Event:
    return a_delta(index, {"type": "input_json_delta", "partial_json": partial})


def a_stop(index: int) -> Event:
    return ("content_block_stop", {"type": "content_block_stop", "index": index})


def a_end(reason: str, output_tokens: int = 12) -> Event:
    return (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
    )


A_DONE: Event = ("message_stop", {"type": "message_stop"})
A_PING: Event = ("ping", {"type": "ping"})


def a_error(kind: str = "overloaded_error", message: str = "Overloaded") -> Event:
    return ("error", {"type": "error", "error": {"type": kind, "message": message}})


def a_text_message(*pieces: str, reason: str = "end_turn") -> list[Event]:
    return [
        a_start(),
        a_text_block(0),
        *(a_text(0, p) for p in pieces),
        a_stop(0),
        a_end(reason),
        A_DONE,
    ]


def test_anthropic_text() -> None:
    body = sse(*a_text_message("Hello", ", world"))
    frames = run(body, "anthropic")
    assert outline(frames) == [
        ROLE,
        ({"content": "Hello"}, None),
        ({"content": ", world"}, None),
        ({}, "stop"),
        "[DONE]",
    ]
    first = frames[0]
    assert isinstance(first, dict)
    assert (first["id"], first["model"], first["created"]) == (A_ID, A_MODEL, 0)


def test_anthropic_created_and_model_override() -> None:
    t = translator_for("anthropic", model="gateway-model", created=1_760_000_000)
    from sseconform.sse import SSEDecoder

    dec = SSEDecoder()
    frames = [f for ev in dec.feed(sse(*a_text_message("Hi"))) for f in t.feed(ev)] + t.finish()
    chunks = [f for f in frames if isinstance(f, dict)]
    assert {(c["model"], c["created"]) for c in chunks} == {("gateway-model", 1_760_000_000)}


def test_anthropic_thinking_and_signature() -> None:
    signature = "EqQBCkYIBxgCKkBsyb2pTP6v0mOQ4o1NJrj+Lb1Q=="
    body = sse(
        a_start(),
        a_block(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}),
        a_stop(0),
        a_block(1, {"type": "thinking", "thinking": "", "signature": ""}),
        a_delta(1, {"type": "thinking_delta", "thinking": "The user wants"}),
        a_delta(1, {"type": "thinking_delta", "thinking": " a short answer."}),
        a_delta(1, {"type": "thinking_delta", "thinking": ""}),
        a_delta(1, {"type": "signature_delta", "signature": signature}),
        a_stop(1),
        a_text_block(2),
        a_text(2, "Paris."),
        a_stop(2),
        a_end("end_turn"),
        A_DONE,
    )
    frames = run(body, "anthropic")
    redacted = {"type": "reasoning.encrypted", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a",
                "format": "anthropic-claude-v1", "index": 0}  # fmt: skip
    signed = {"type": "reasoning.text", "signature": signature, "format": "anthropic-claude-v1",
              "index": 1}  # fmt: skip
    assert outline(frames) == [
        ROLE,
        ({"reasoning_details": [redacted]}, None),  # state the client must send back
        ({"reasoning_content": "The user wants"}, None),
        ({"reasoning_content": " a short answer."}, None),
        ({"reasoning_details": [signed]}, None),
        ({"content": "Paris."}, None),
        ({}, "stop"),
        "[DONE]",
    ]


def test_anthropic_signature_in_pieces_is_one_entry() -> None:
    """A signature sent in two deltas: two entries of one index, which a client joins."""
    body = sse(
        a_start(),
        a_block(0, {"type": "thinking", "thinking": "", "signature": ""}),
        a_delta(0, {"type": "thinking_delta", "thinking": "Hm."}),
        a_delta(0, {"type": "signature_delta", "signature": "c2ln"}),
        a_delta(0, {"type": "signature_delta", "signature": "LW9uZQ=="}),
        a_stop(0),
        a_end("end_turn"),
        A_DONE,
    )
    entries = [
        d["reasoning_details"][0] for d, _ in outline(run(body, "anthropic"))[1:-1]
        if isinstance(d, dict) and "reasoning_details" in d
    ]  # fmt: skip
    assert [(e["index"], e["signature"]) for e in entries] == [(0, "c2ln"), (0, "LW9uZQ==")]


def test_anthropic_tool_use_with_json_fragments() -> None:
    body = sse(
        a_start(),
        a_tool_block(0, "toolu_01A09q90qw90lq917835lq9", "get_weather"),
        a_json(0, ""),
        a_json(0, '{"location": "San'),
        a_json(0, ' Francisco, CA"'),
        a_json(0, ', "unit": "celsius"}'),
        a_stop(0),
        a_end("tool_use"),
        A_DONE,
    )
    frames = run(body, "anthropic")
    assert outline(frames) == [
        ROLE,
        (head(0, "toolu_01A09q90qw90lq917835lq9", "get_weather"), None),
        (frag(0, '{"location": "San'), None),
        (frag(0, ' Francisco, CA"'), None),
        (frag(0, ', "unit": "celsius"}'), None),
        ({}, "tool_calls"),
        "[DONE]",
    ]
    [call] = calls(frames)
    assert json.loads(call["arguments"]) == {"location": "San Francisco, CA", "unit": "celsius"}


def test_anthropic_two_calls_after_text_take_dense_indexes() -> None:
    body = sse(
        a_start(),
        a_text_block(0),
        a_text(0, "I'll check both."),
        a_stop(0),
        a_tool_block(1, "toolu_01", "get_weather"),
        a_json(1, '{"city":'),
        a_json(1, ' "Oslo"}'),
        a_stop(1),
        a_tool_block(2, "toolu_02", "get_time"),
        a_json(2, '{"tz": "Europe/Oslo"}'),
        a_stop(2),
        a_end("tool_use"),
        A_DONE,
    )
    frames = run(body, "anthropic")
    assert joined(frames, "content") == "I'll check both."
    assert calls(frames) == [
        {"id": "toolu_01", "name": "get_weather", "arguments": '{"city": "Oslo"}'},
        {"id": "toolu_02", "name": "get_time", "arguments": '{"tz": "Europe/Oslo"}'},
    ]
    indexes = {tc["index"] for d in deltas(frames) for tc in d.get("tool_calls", [])}
    assert indexes == {0, 1}
    assert finishes(frames) == ["tool_calls"]


def test_anthropic_server_tools_and_citations_are_dropped() -> None:
    body = sse(
        a_start(),
        a_block(0, {"type": "server_tool_use", "id": "srvtoolu_014", "name": "web_search"}),
        a_json(0, '{"query": "weather in Oslo"}'),
        a_stop(0),
        a_block(
            1,
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_014",
                "content": [
                    {
                        "type": "web_search_result",
                        "title": "Oslo weather",
                        "url": "https://example.com/oslo",
                        "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                    }
                ],
            },
        ),
        a_stop(1),
        a_text_block(2),
        a_delta(
            2,
            {
                "type": "citations_delta",
                "citation": {
                    "type": "web_search_result_location",
                    "url": "https://example.com/oslo",
                    "title": "Oslo weather",
                    "cited_text": "Light rain, 7 °C",
                    "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0",
                },
            },
        ),
        a_text(2, "It is raining in Oslo."),
        a_stop(2),
        a_end("end_turn"),
        A_DONE,
    )
    frames = run(body, "anthropic")
    assert outline(frames) == [
        ROLE,
        ({"content": "It is raining in Oslo."}, None),
        ({}, "stop"),
        "[DONE]",
    ]
    out = translate(body, "anthropic")
    for native in (b"srvtoolu", b"web_search", b"citation", b"encrypted", b"cited_text", b"query"):
        assert native not in out


def test_anthropic_ping_anywhere_changes_nothing() -> None:
    events = [
        a_start(),
        a_text_block(0),
        a_text(0, "Hi"),
        a_stop(0),
        a_tool_block(1, "toolu_9", "lookup"),
        a_json(1, '{"q": 1}'),
        a_stop(1),
        a_end("tool_use"),
        A_DONE,
    ]
    pinged: list[Event] = [A_PING]
    for ev in events:
        pinged += [ev, A_PING]
    plain = translate(sse(*events), "anthropic")
    assert translate(sse(*pinged), "anthropic") == plain
    assert b"ping" not in plain
    assert_clean(plain)


def test_anthropic_error_mid_stream() -> None:
    events = [a_start(), A_PING, a_text_block(0), a_text(0, "Partial"), a_error()]
    frames = run(sse(*events), "anthropic")
    assert outline(frames) == [
        ROLE,
        ({"content": "Partial"}, None),
        ("error", {"message": "Overloaded", "type": "overloaded_error"}),
        "[DONE]",
    ]
    # anything after the error is not translated
    later = [a_text(0, " more"), a_stop(0), a_end("end_turn"), A_DONE]
    assert translate(sse(*events, *later), "anthropic") == translate(sse(*events), "anthropic")


def test_anthropic_error_before_anything() -> None:
    frames = run(sse(a_error("api_error", "Internal server error")), "anthropic")
    assert outline(frames) == [
        ("error", {"message": "Internal server error", "type": "api_error"}),
        "[DONE]",
    ]


def test_anthropic_max_tokens_cuts_partial_json() -> None:
    body = sse(
        a_start(),
        a_tool_block(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "write_file"),
        a_json(0, '{"path": "notes.md", '),
        a_json(0, '"content": "# Notes\\n\\nFirst'),
        a_stop(0),
        a_end("max_tokens", 64),
        A_DONE,
    )
    out = translate(body, "anthropic")
    codes = assert_clean(out, allowed=frozenset({"F010"}))
    assert codes <= {"F010"}
    frames = parse(out)
    [call] = calls(frames)
    assert call["arguments"] == '{"path": "notes.md", "content": "# Notes\\n\\nFirst'
    assert finishes(frames) == ["length"]
    assert frames[-2:] == [frames[-2], "[DONE]"] and outline(frames)[-2] == ({}, "length")


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("tool_use", "tool_calls"),
    ],
)
def test_anthropic_stop_reasons(reason: str, expected: str) -> None:
    if reason == "tool_use":
        events = [
            a_start(),
            a_tool_block(0, "toolu_1", "f"),
            a_json(0, "{}"),
            a_stop(0),
            a_end(reason),
            A_DONE,
        ]
    else:
        events = a_text_message("Some text", reason=reason)
    frames = run(sse(*events), "anthropic")
    assert finishes(frames) == [expected]
    assert outline(frames)[-2:] == [({}, expected), "[DONE]"]


def test_anthropic_usage_only_when_asked() -> None:
    events = [
        a_start(input_tokens=25, cache_read=2048, cache_creation=512),
        a_text_block(0),
        a_text(0, "Cached."),
        a_stop(0),
        a_end("end_turn", output_tokens=87),
        A_DONE,
    ]
    frames = run(sse(*events), "anthropic", include_usage=True)
    assert outline(frames)[-3:] == [
        ({}, "stop"),
        (
            "usage",
            {
                "prompt_tokens": 2585,
                "completion_tokens": 87,
                "total_tokens": 2672,
                "prompt_tokens_details": {"cached_tokens": 2048},
            },
        ),
        "[DONE]",
    ]
    plain = translate(sse(*events), "anthropic")
    assert b"usage" not in plain
    assert usage_of(parse(plain)) is None


@pytest.mark.parametrize("cut", [0, 1, 2, 4, 5])
def test_anthropic_cut_before_message_stop(cut: int) -> None:
    """The body ends early (after ``cut`` events of a whole message): an error frame."""
    events = a_text_message("Half")[:cut]
    frames = run(sse(*events), "anthropic", auto=cut > 0)
    error = error_of(frames)
    assert error == {
        "message": "the upstream stream ended before message_stop",
        "type": "upstream_truncated",
    }
    assert "stop" not in finishes(frames)


def test_anthropic_second_message_start_is_an_error() -> None:
    events = [
        a_start(),
        a_text_block(0),
        a_text(0, "First try"),
        a_start("msg_02SecondAttempt"),
        a_text_block(0),
        a_text(0, "Second try"),
        a_stop(0),
        a_end("end_turn"),
        A_DONE,
    ]
    frames = run(sse(*events), "anthropic")
    assert joined(frames, "content") == "First try"
    assert error_of(frames) == {
        "message": "the upstream started a new message before the previous one ended",
        "type": "upstream_restart",
    }
    assert b"msg_02" not in translate(sse(*events), "anthropic")


# == Gemini ==================================================================================

G_ID = "kPHyaN2iO4OhxN8P8ZybsQ4"
G_MODEL = "gemini-2.5-pro"


def g_event(
    parts: list[Obj] | None = None,
    *,
    finish: str | None = None,
    usage: Obj | None = None,
    response_id: str = G_ID,
) -> Event:
    candidate: Obj = {"content": {"parts": parts or [], "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    obj: Obj = {
        "candidates": [candidate],
        "usageMetadata": usage or {"promptTokenCount": 12, "totalTokenCount": 12},
        "modelVersion": G_MODEL,
        "responseId": response_id,
    }
    return (None, obj)


def gemini(*events: Event) -> bytes:
    """Gemini frames with CRLF, as the real API sends them."""
    return sse(*events, nl="\r\n")


def g_call(name: str, args: Obj, **extra: Any) -> Obj:
    return {"functionCall": {"name": name, "args": args, **extra}}


def g_partial(*records: Obj, will_continue: bool = True) -> Obj:
    fc: Obj = {"partialArgs": list(records)}
    if will_continue:
        fc["willContinue"] = True
    return {"functionCall": fc}


def test_gemini_text_with_crlf_framing() -> None:
    events = [
        g_event([{"text": "The capital"}]),
        g_event([{"text": " of France is Paris."}], finish="STOP"),
    ]
    frames = run(gemini(*events), "gemini")
    assert outline(frames) == [
        ROLE,
        ({"content": "The capital"}, None),
        ({"content": " of France is Paris."}, None),
        ({}, "stop"),
        "[DONE]",
    ]
    first = frames[0]
    assert isinstance(first, dict)
    assert (first["id"], first["model"]) == (f"chatcmpl-{G_ID}", G_MODEL)
    assert translate(sse(*events), "gemini") == translate(gemini(*events), "gemini")


def test_gemini_thoughts_are_reasoning() -> None:
    signature = "CiQBjz1rX25KieIB4d4AwFn8/WbsHTRNHBXso88P"
    events = [
        g_event([{"text": "**Weighing the question**\n\nThe user asks", "thought": True}]),
        g_event([{"text": " for a number.", "thought": True}]),
        g_event([{"text": "42", "thoughtSignature": signature}], finish="STOP"),
    ]
    frames = run(gemini(*events), "gemini")
    state = {"type": "reasoning.encrypted", "data": signature, "format": "google-gemini-v1",
             "index": 0}  # fmt: skip
    assert outline(frames) == [
        ROLE,
        ({"reasoning_content": "**Weighing the question**\n\nThe user asks"}, None),
        ({"reasoning_content": " for a number."}, None),
        ({"reasoning_details": [state]}, None),  # the part's signature, just before it
        ({"content": "42"}, None),
        ({}, "stop"),
        "[DONE]",
    ]


def test_gemini_whole_function_calls_get_stable_unique_ids() -> None:
    def body(response_id: str) -> bytes:
        return gemini(
            g_event(
                [
                    g_call("get_weather", {"city": "Paris", "days": 3}, thoughtSignature="Cl0B"),
                    g_call("get_time", {"tz": "Europe/Paris"}),
                ],
                finish="STOP",
                response_id=response_id,
            )
        )

    frames = run(body(G_ID), "gemini")
    first, second = calls(frames)
    assert (first["name"], json.loads(first["arguments"])) == (
        "get_weather",
        {"city": "Paris", "days": 3},
    )
    assert (second["name"], json.loads(second["arguments"])) == ("get_time", {"tz": "Europe/Paris"})
    assert first["id"].startswith("call_") and second["id"].startswith("call_")
    assert first["id"] != second["id"]
    assert finishes(frames) == ["tool_calls"]
    # the same input gives the same ids; another response gives others
    assert translate(body(G_ID), "gemini") == translate(body(G_ID), "gemini")
    again = calls(parse(translate(body(G_ID), "gemini")))
    assert [c["id"] for c in again] == [first["id"], second["id"]]
    other = calls(parse(translate(body("anotherResponse01"), "gemini")))
    assert {c["id"] for c in other}.isdisjoint({first["id"], second["id"]})


def test_gemini_call_id_kept_when_given() -> None:
    body = gemini(g_event([g_call("lookup", {}, id="fc_upstream_7")], finish="STOP"))
    [call] = calls(run(body, "gemini"))
    assert call == {"id": "fc_upstream_7", "name": "lookup", "arguments": "{}"}


def test_gemini_whole_calls_in_separate_events_and_text() -> None:
    body = gemini(
        g_event([{"text": "Let me look."}]),
        g_event([g_call("a", {"x": [1, 2]})]),
        g_event([g_call("b", {"y": {"z": None}})], finish="STOP"),
    )
    frames = run(body, "gemini")
    assert joined(frames, "content") == "Let me look."
    assert [(c["name"], json.loads(c["arguments"])) for c in calls(frames)] == [
        ("a", {"x": [1, 2]}),
        ("b", {"y": {"z": None}}),
    ]
    assert len({c["id"] for c in calls(frames)}) == 2


STREAMED_ARGS = {
    "recipe": {
        "title": "Pancakes",
        "servings": 4,
        "vegan": False,
        "notes": None,
        "steps": [{"text": "Mix", "minutes": 5}, {"text": 'Fry "gently"', "minutes": 2.5}],
        "tags": ["breakfast", "sweet"],
    },
    "a": {"b": [{"c": "deep"}]},
    "done": True,
}


def _streamed_call_events() -> list[Event]:
    return [
        g_event(
            [{"functionCall": {"name": "cook", "willContinue": True}, "thoughtSignature": "Cm"}]
        ),
        g_event(
            [
                g_partial(
                    {"jsonPath": "$.recipe.title", "stringValue": "Pan", "willContinue": True},
                )
            ]
        ),
        g_event(
            [
                g_partial(
                    {"jsonPath": "$.recipe.title", "stringValue": "cakes", "willContinue": True}
                )
            ]
        ),
        g_event([g_partial({"jsonPath": "$.recipe.title", "stringValue": ""})]),
        g_event(
            [
                g_partial(
                    {"jsonPath": "$.recipe.servings", "numberValue": 4},
                    {"jsonPath": "$.recipe.vegan", "boolValue": False},
                    {"jsonPath": "$.recipe.notes", "nullValue": None},
                )
            ]
        ),
        g_event(
            [
                g_partial(
                    {"jsonPath": "$.recipe.steps[0].text", "stringValue": "Mix"},
                    {"jsonPath": "$.recipe.steps[0].minutes", "numberValue": 5},
                    {
                        "jsonPath": "$.recipe.steps[1].text",
                        "stringValue": 'Fry "gen',
                        "willContinue": True,
                    },
                )
            ]
        ),
        g_event([g_partial({"jsonPath": "$.recipe.steps[1].text", "stringValue": 'tly"'})]),
        g_event(
            [
                g_partial(
                    {"jsonPath": "$.recipe.steps[1].minutes", "numberValue": 2.5},
                    {"jsonPath": "$.recipe.tags[0]", "stringValue": "breakfast"},
                    {"jsonPath": "$.recipe.tags[1]", "stringValue": "sweet"},
                    {"jsonPath": "$.a.b[0].c", "stringValue": "deep"},
                    {"jsonPath": "$.done", "boolValue": True},
                )
            ]
        ),
        g_event([{"functionCall": {}}]),
    ]


def test_gemini_streamed_call_arguments() -> None:
    body = gemini(*_streamed_call_events(), g_event([], finish="STOP"))
    frames = run(body, "gemini")
    [call] = calls(frames)
    assert call["name"] == "cook" and call["id"].startswith("call_")
    assert json.loads(call["arguments"]) == STREAMED_ARGS
    # the head goes out with the name, before any argument arrives, just after the part's
    # thought signature (with the call's id: the client sends it back with the call)
    [state] = deltas(frames)[1]["reasoning_details"]
    assert state["id"] == call["id"] and state["format"] == "google-gemini-v1"
    assert deltas(frames)[2] == head(0, call["id"], "cook")
    assert finishes(frames) == ["tool_calls"]
    assert b"partialArgs" not in translate(body, "gemini")


def test_gemini_two_streamed_calls_last_without_terminal_part() -> None:
    body = gemini(
        g_event([{"functionCall": {"name": "get_weather", "willContinue": True}}]),
        g_event(
            [g_partial({"jsonPath": "$.location", "stringValue": "Boston", "willContinue": True})]
        ),
        g_event([g_partial({"jsonPath": "$.location", "stringValue": ""})]),
        g_event([{"functionCall": {}}]),
        g_event([{"functionCall": {"name": "get_weather", "willContinue": True}}]),
        g_event([g_partial({"jsonPath": "$.location", "stringValue": "San Francisco"})]),
        g_event([], finish="STOP"),
    )
    frames = run(body, "gemini")
    got = calls(frames)
    assert [json.loads(c["arguments"]) for c in got] == [
        {"location": "Boston"},
        {"location": "San Francisco"},
    ]
    assert got[0]["id"] != got[1]["id"]
    assert finishes(frames) == ["tool_calls"]


def test_gemini_streamed_call_without_arguments() -> None:
    body = gemini(
        g_event([{"functionCall": {"name": "list_files", "willContinue": True}}]),
        g_event([{"functionCall": {}}], finish="STOP"),
    )
    [call] = calls(run(body, "gemini"))
    assert (call["name"], call["arguments"]) == ("list_files", "{}")


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
    ],
)
def test_gemini_finish_reasons(reason: str, expected: str) -> None:
    body = gemini(g_event([{"text": "Once upon"}]), g_event([{"text": " a time"}], finish=reason))
    frames = run(body, "gemini")
    assert finishes(frames) == [expected]
    assert outline(frames)[-2:] == [({}, expected), "[DONE]"]


PROMPT_BLOCKED = gemini(
    (
        None,
        {
            "promptFeedback": {
                "blockReason": "SAFETY",
                "safetyRatings": [
                    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}
                ],
            },
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": G_MODEL,
            "responseId": G_ID,
        },
    )
)


def test_gemini_prompt_blocked_is_content_filter() -> None:
    frames = run(PROMPT_BLOCKED, "gemini")
    assert finishes(frames) == ["content_filter"]
    assert outline(frames)[:2] == [ROLE, ({}, "content_filter")]


def test_gemini_prompt_blocked_ends_cleanly() -> None:
    frames = parse(translate(PROMPT_BLOCKED, "gemini", include_usage=True))
    assert outline(frames) == [
        ROLE,
        ({}, "content_filter"),
        ("usage", {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}),
        "[DONE]",
    ]


def test_gemini_error_event() -> None:
    body = gemini(
        g_event([{"text": "Partial"}]),
        (
            None,
            {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded. Please try again later.",
                    "status": "UNAVAILABLE",
                }
            },
        ),
    )
    frames = run(body, "gemini")
    assert outline(frames) == [
        ROLE,
        ({"content": "Partial"}, None),
        (
            "error",
            {
                "message": "The model is overloaded. Please try again later.",
                "type": "UNAVAILABLE",
                "code": 503,
            },
        ),
        "[DONE]",
    ]


def test_gemini_body_ends_without_finish_reason() -> None:
    frames = run(gemini(g_event([{"text": "Cut"}]), g_event([{"text": " off"}])), "gemini")
    assert joined(frames, "content") == "Cut off"
    assert error_of(frames) == {
        "message": "the upstream stream ended without a finish reason",
        "type": "upstream_truncated",
    }
    assert finishes(frames) == []


def test_gemini_malformed_function_call_is_an_error() -> None:
    body = gemini(g_event([], finish="MALFORMED_FUNCTION_CALL"))
    error = error_of(run(body, "gemini"))
    assert error is not None and error["code"] == "MALFORMED_FUNCTION_CALL"


def test_gemini_usage_with_thoughts_and_cache() -> None:
    usage = {
        "promptTokenCount": 1200,
        "candidatesTokenCount": 30,
        "thoughtsTokenCount": 100,
        "cachedContentTokenCount": 1024,
        "totalTokenCount": 1330,
    }
    body = gemini(g_event([{"text": "Hi"}]), g_event([{"text": "!"}], finish="STOP", usage=usage))
    frames = run(body, "gemini", include_usage=True)
    assert usage_of(frames) == {
        "prompt_tokens": 1200,
        "completion_tokens": 130,
        "total_tokens": 1330,
        "prompt_tokens_details": {"cached_tokens": 1024},
        "completion_tokens_details": {"reasoning_tokens": 100},
    }
    assert outline(frames)[-3][1] == "stop"


# == OpenAI Responses ========================================================================

R_ID = "resp_68c1f0a2b3d4819ea1b2c3d4e5f60718"
R_MODEL = "gpt-5-mini-2025-08-07"
R_CREATED = 1760000000
RESPONSE: Obj = {
    "id": R_ID,
    "object": "response",
    "created_at": R_CREATED,
    "status": "in_progress",
    "model": R_MODEL,
    "output": [],
    "usage": None,
}


def numbered(*groups: list[tuple[str, Obj]]) -> list[Event]:
    """Responses events with their ``sequence_number``, in the order given."""
    out: list[Event] = []
    for group in groups:
        for kind, fields in group:
            out.append((kind, {"type": kind, **fields, "sequence_number": len(out)}))
    return out


def r_begin() -> list[tuple[str, Obj]]:
    return [
        ("response.created", {"response": RESPONSE}),
        ("response.in_progress", {"response": RESPONSE}),
    ]


def r_message(
    index: int, *pieces: str, item: str = "msg_68c1", refusal: bool = False
) -> list[tuple[str, Obj]]:
    part = "refusal" if refusal else "output_text"
    kind = "response.refusal" if refusal else "response.output_text"
    base = {"item_id": item, "output_index": index, "content_index": 0}
    text = "".join(pieces)
    return [
        (
            "response.output_item.added",
            {
                "output_index": index,
                "item": {
                    "id": item,
                    "type": "message",
                    "status": "in_progress",
                    "role": "assistant",
                    "content": [],
                },
            },
        ),
        ("response.content_part.added", {**base, "part": {"type": part, part: ""}}),
        *((f"{kind}.delta", {**base, "delta": p}) for p in pieces),
        (f"{kind}.done", {**base, part: text}),
        ("response.content_part.done", {**base, "part": {"type": part, part: text}}),
        (
            "response.output_item.done",
            {"output_index": index, "item": {"id": item, "type": "message", "status": "completed"}},
        ),
    ]


def r_reasoning(index: int, *pieces: str, item: str = "rs_68c1") -> list[tuple[str, Obj]]:
    base = {"item_id": item, "output_index": index, "summary_index": 0}
    return [
        (
            "response.output_item.added",
            {"output_index": index, "item": {"id": item, "type": "reasoning", "summary": []}},
        ),
        (
            "response.reasoning_summary_part.added",
            {**base, "part": {"type": "summary_text", "text": ""}},
        ),
        *(("response.reasoning_summary_text.delta", {**base, "delta": p}) for p in pieces),
        ("response.reasoning_summary_text.done", {**base, "text": "".join(pieces)}),
        (
            "response.output_item.done",
            {"output_index": index, "item": {"id": item, "type": "reasoning", "summary": []}},
        ),
    ]


def r_call(
    index: int, call_id: str, name: str, *fragments: str, whole: str | None = None
) -> list[tuple[str, Obj]]:
    item_id = f"fc_{call_id[5:]}"
    item = {
        "id": item_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": call_id,
        "name": name,
    }
    args = whole if whole is not None else "".join(fragments)
    base = {"item_id": item_id, "output_index": index}
    return [
        ("response.output_item.added", {"output_index": index, "item": item}),
        *(("response.function_call_arguments.delta", {**base, "delta": f}) for f in fragments),
        ("response.function_call_arguments.done", {**base, "arguments": args}),
        (
            "response.output_item.done",
            {"output_index": index, "item": {**item, "status": "completed", "arguments": args}},
        ),
    ]


R_USAGE = {
    "input_tokens": 320,
    "input_tokens_details": {"cached_tokens": 256},
    "output_tokens": 140,
    "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 460,
}


def r_end(
    status: str = "completed", *, usage: Obj | None = None, reason: str | None = None
) -> list[tuple[str, Obj]]:
    response = {**RESPONSE, "status": status, "usage": usage or R_USAGE}
    if reason is not None:
        response["incomplete_details"] = {"reason": reason}
    return [(f"response.{status}", {"response": response})]


def test_responses_text() -> None:
    body = sse(*numbered(r_begin(), r_message(0, "Server-Sent", " Events", " stream."), r_end()))
    frames = run(body, "responses")
    assert outline(frames) == [
        ROLE,
        ({"content": "Server-Sent"}, None),
        ({"content": " Events"}, None),
        ({"content": " stream."}, None),
        ({}, "stop"),
        "[DONE]",
    ]
    first = frames[0]
    assert isinstance(first, dict)
    assert (first["id"], first["model"], first["created"]) == (R_ID, R_MODEL, R_CREATED)


def test_responses_events_out_of_order_are_reordered() -> None:
    events = numbered(
        r_begin(),
        r_message(0, "a", "b", "c", "d"),
        r_call(1, "call_Q1", "f", '{"x"', ": 1}"),
        r_end(),
    )
    ordered = translate(sse(*events), "responses")
    shuffled = list(events)
    for i, j in [(3, 5), (4, 7), (10, 12), (14, 15)]:
        shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
    assert shuffled != events
    assert translate(sse(*shuffled), "responses") == ordered
    reversed_tail = events[:2] + events[2:][::-1]
    assert translate(sse(*reversed_tail), "responses") == ordered
    assert joined(parse(ordered), "content") == "abcd"


def test_responses_first_event_late() -> None:
    events = numbered(r_begin(), r_message(0, "Hi"), r_end())
    late = [events[2], events[0], events[1], *events[3:]]
    frames = parse(translate(sse(*late), "responses", auto=False))
    first = frames[0]
    assert isinstance(first, dict)
    assert (first["id"], first["model"], first["created"]) == (R_ID, R_MODEL, R_CREATED)


def test_responses_numbered_from_1_are_handed_over_as_they_come() -> None:
    """A stream whose ``response.created`` is number 1 is not held back for a 0: each delta
    is translated when it is fed (a gateway's stream graded on arrival, not at its end)."""
    events = numbered(r_begin(), r_message(0, "a", "b", "c"), r_end())
    from_one: list[tuple[str | None, Obj]] = []
    for kind, obj in events:
        assert isinstance(obj, dict)
        from_one.append((kind, {**obj, "sequence_number": obj["sequence_number"] + 1}))
    assert translate(sse(*from_one), "responses") == translate(sse(*events), "responses")
    translator = translator_for("responses")
    texts: list[str] = []
    for n, (kind, obj) in enumerate(from_one):
        frames = translator.feed(SSEEvent(json.dumps(obj), kind, None, None, n, 0, 0, 1))
        texts += [f["choices"][0]["delta"].get("content") for f in frames if isinstance(f, dict)
                  and f.get("choices") and f["choices"][0]["delta"].get("content")]  # fmt: skip
        if obj["type"] == "response.output_text.delta":
            assert texts and texts[-1] == obj["delta"], "handed over when fed"
    assert "".join(texts) == "abc"


def test_responses_calls_reasoning_and_text_dense_indexes() -> None:
    events = numbered(
        r_begin(),
        r_reasoning(0, "**Planning**\n\n", "Two lookups needed."),
        r_message(1, "Checking now."),
        r_call(2, "call_8HgFZ", "get_weather", '{"city":', '"Rome"}'),
        r_call(3, "call_2Kx0p", "get_time", whole='{"tz":"Europe/Rome"}'),
        r_end(),
    )
    frames = run(sse(*events), "responses")
    assert joined(frames, "reasoning_content") == "**Planning**\n\nTwo lookups needed."
    assert joined(frames, "content") == "Checking now."
    assert calls(frames) == [
        {"id": "call_8HgFZ", "name": "get_weather", "arguments": '{"city":"Rome"}'},
        {"id": "call_2Kx0p", "name": "get_time", "arguments": '{"tz":"Europe/Rome"}'},
    ]
    indexes = {tc["index"] for d in deltas(frames) for tc in d.get("tool_calls", [])}
    assert indexes == {0, 1}
    assert finishes(frames) == ["tool_calls"]
    # the streamed call keeps its fragments; the other is sent whole after its head
    assert outline(frames)[4:8] == [
        (head(0, "call_8HgFZ", "get_weather"), None),
        (frag(0, '{"city":'), None),
        (frag(0, '"Rome"}'), None),
        (head(1, "call_2Kx0p", "get_time"), None),
    ]


def test_responses_refusal() -> None:
    body = sse(
        *numbered(r_begin(), r_message(0, "I can't", " help with that.", refusal=True), r_end())
    )
    frames = run(body, "responses")
    assert outline(frames) == [
        ROLE,
        ({"refusal": "I can't"}, None),
        ({"refusal": " help with that."}, None),
        ({}, "stop"),
        "[DONE]",
    ]


@pytest.mark.parametrize(
    ("reason", "expected"), [("max_output_tokens", "length"), ("content_filter", "content_filter")]
)
def test_responses_incomplete(reason: str, expected: str) -> None:
    body = sse(*numbered(r_begin(), r_message(0, "Partial an"), r_end("incomplete", reason=reason)))
    frames = run(body, "responses")
    assert outline(frames)[-3:] == [({"content": "Partial an"}, None), ({}, expected), "[DONE]"]


def test_responses_failed() -> None:
    failed = {
        **RESPONSE,
        "status": "failed",
        "error": {"code": "server_error", "message": "The model failed to generate a response."},
    }
    body = sse(
        *numbered(r_begin(), r_message(0, "Star")[:3], [("response.failed", {"response": failed})])
    )
    frames = run(body, "responses")
    assert outline(frames) == [
        ROLE,
        ({"content": "Star"}, None),
        (
            "error",
            {
                "message": "The model failed to generate a response.",
                "type": "upstream_error",
                "code": "server_error",
            },
        ),
        "[DONE]",
    ]


@pytest.mark.parametrize("nested", [True, False])
def test_responses_error_event(nested: bool) -> None:
    message = "You exceeded your current quota, please check your plan and billing details."
    fields: Obj = (
        {
            "error": {
                "type": "insufficient_quota",
                "code": "insufficient_quota",
                "message": message,
                "param": None,
            }
        }
        if nested
        else {"code": "insufficient_quota", "message": message, "param": None}
    )
    failed = {
        **RESPONSE,
        "status": "failed",
        "error": {"code": "insufficient_quota", "message": message},
    }
    body = sse(*numbered(r_begin(), [("error", fields), ("response.failed", {"response": failed})]))
    frames = run(body, "responses")
    error = error_of(frames)
    assert error is not None and error["message"] == message
    assert outline(frames)[0] == ROLE and len(frames) == 3


def test_responses_usage() -> None:
    body = sse(*numbered(r_begin(), r_message(0, "Ok"), r_end()))
    frames = run(body, "responses", include_usage=True)
    assert outline(frames)[-2:] == [
        (
            "usage",
            {
                "prompt_tokens": 320,
                "completion_tokens": 140,
                "total_tokens": 460,
                "prompt_tokens_details": {"cached_tokens": 256},
                "completion_tokens_details": {"reasoning_tokens": 64},
            },
        ),
        "[DONE]",
    ]
    assert usage_of(parse(translate(body, "responses"))) is None


def test_responses_body_ends_before_completed() -> None:
    body = sse(*numbered(r_begin(), r_message(0, "Cut")[:3]))
    assert error_of(run(body, "responses")) == {
        "message": "the upstream stream ended before response.completed",
        "type": "upstream_truncated",
    }


# == Off-grammar OpenAI-compatible chat streams (GUIDE §2) ===================================

C_ID = "chatcmpl-CJ1b2c3d4e5f6a7b8c9d0"
C_MODEL = "gpt-4o-mini-2024-07-18"


def cc(
    delta: Obj | None,
    finish: str | None = None,
    *,
    id: str = C_ID,
    model: str = C_MODEL,
    obj: str = "chat.completion.chunk",
    choice: Obj | None = None,
    **extra: Any,
) -> tuple[None, Obj]:  # an Event whose data is always an object
    ch: Obj = {"index": 0, "delta": delta, "finish_reason": finish, **(choice or {})}
    if delta is None:
        del ch["delta"]
    return (
        None,
        {"id": id, "object": obj, "created": 1760000001, "model": model, "choices": [ch], **extra},
    )


C_DONE: Event = (None, "[DONE]")


def native_codes(body: bytes) -> set[str]:
    return check_bytes(body).codes


def test_openai_azure_empty_first_chunk_is_dropped() -> None:
    filters = {"hate": {"filtered": False, "severity": "safe"}}
    body = sse(
        (
            None,
            {
                "choices": [],
                "created": 0,
                "id": "",
                "model": "",
                "object": "",
                "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": filters}],
            },
        ),
        cc(
            {"content": "", "refusal": None, "role": "assistant"},
            choice={"content_filter_results": {}},
        ),
        cc({"content": "Hi"}, choice={"content_filter_results": filters}),
        cc({}, "stop", choice={"content_filter_results": {}}),
        C_DONE,
    )
    assert native_codes(body) == {"G010"}  # info: the prompt-filter chunk, not an error
    frames = run(body, "openai")
    assert outline(frames) == [ROLE, ({"content": "Hi"}, None), ({}, "stop"), "[DONE]"]
    first = frames[0]
    assert isinstance(first, dict) and first["id"] == C_ID and first["model"] == C_MODEL
    assert b"prompt_filter_results" not in translate(body, "openai")


def test_openai_chat_completion_done_object() -> None:
    """Perplexity: role in every delta, cumulative usage in every chunk, a last chunk whose
    object is ``chat.completion.done``, no [DONE]."""

    def usage(n: int) -> Obj:
        return {"prompt_tokens": 11, "completion_tokens": n, "total_tokens": 11 + n}

    body = sse(
        cc({"role": "assistant", "content": "**Mo"}, usage=usage(1), model="sonar"),
        cc({"role": "assistant", "content": "dern**"}, usage=usage(2), model="sonar"),
        cc(
            {"role": "assistant", "content": ""},
            "stop",
            usage=usage(3),
            model="sonar",
            obj="chat.completion.done",
        ),
    )
    assert "G001" in native_codes(body)
    frames = run(body, "openai", include_usage=True)
    assert outline(frames) == [
        ROLE,
        ({"content": "**Mo"}, None),
        ({"content": "dern**"}, None),
        ({}, "stop"),
        ("usage", usage(3)),
        "[DONE]",
    ]


def test_openai_repeated_role_sent_once() -> None:
    body = sse(
        cc({"role": "assistant", "content": ""}),
        cc({"role": "assistant", "content": "Hello"}),
        cc({"role": "assistant", "content": " there"}),
        cc({"role": "assistant"}, "stop"),
        C_DONE,
    )
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        ({"content": "Hello"}, None),
        ({"content": " there"}, None),
        ({}, "stop"),
        "[DONE]",
    ]


def test_openai_finish_reason_twice_and_comments() -> None:
    """OpenRouter: ``: OPENROUTER PROCESSING`` comments, a finish chunk that carries content,
    then the finish again with the usage."""
    usage = {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    body = (
        b": OPENROUTER PROCESSING\n\n"
        + sse(
            cc({"role": "assistant", "content": "Done"}),
            cc({"role": "assistant", "content": "."}, "stop"),
        )
        + b": OPENROUTER PROCESSING\n\n"
        + sse(cc({"role": "assistant", "content": ""}, "stop", usage=usage), C_DONE)
    )
    assert {"F004", "W006"} <= native_codes(body)
    frames = run(body, "openai", include_usage=True)
    assert outline(frames) == [
        ROLE,
        ({"content": "Done"}, None),
        ({"content": "."}, None),
        ({}, "stop"),
        ("usage", usage),
        "[DONE]",
    ]


def test_openai_calls_without_index() -> None:
    """Mistral: whole calls with an id and no ``index``, two in one delta."""
    body = sse(
        cc({"role": "assistant", "content": ""}, model="mistral-small-latest"),
        cc(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "gSIMJiOkT",
                        "function": {"name": "weather", "arguments": '{"location": "Paris"}'},
                    },
                    {
                        "id": "u2kW9pLqA",
                        "function": {"name": "weather", "arguments": '{"location": "Rome"}'},
                    },
                ],
            },
            "tool_calls",
            model="mistral-small-latest",
        ),
        C_DONE,
    )
    assert "I001" in native_codes(body)
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        (head(0, "gSIMJiOkT", "weather"), None),
        (frag(0, '{"location": "Paris"}'), None),
        (head(1, "u2kW9pLqA", "weather"), None),
        (frag(1, '{"location": "Rome"}'), None),
        ({}, "tool_calls"),
        "[DONE]",
    ]


def test_openai_whole_arguments_in_one_delta() -> None:
    """Groq and others: the call's head and its whole arguments in one delta."""
    tc = {
        "index": 0,
        "id": "call_w1",
        "type": "function",
        "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
    }
    body = sse(
        cc({"role": "assistant", "content": None}),
        cc({"tool_calls": [tc]}),
        cc({}, "tool_calls"),
        C_DONE,
    )
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        (head(0, "call_w1", "add"), None),
        (frag(0, '{"a":2,"b":3}'), None),
        ({}, "tool_calls"),
        "[DONE]",
    ]


def test_openai_missing_finish_reason_with_done() -> None:
    """Snowflake: no finish_reason anywhere, but a [DONE]."""
    body = sse(cc({"role": "assistant", "content": "Hi"}), cc({"content": "!"}), C_DONE)
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        ({"content": "Hi"}, None),
        ({"content": "!"}, None),
        ({}, "stop"),
        "[DONE]",
    ]


def test_openai_missing_finish_reason_and_done_is_truncated() -> None:
    body = sse(cc({"role": "assistant", "content": "Hi"}), cc({"content": "!"}))
    assert error_of(run(body, "openai")) == {
        "message": "the upstream stream ended without a finish reason",
        "type": "upstream_truncated",
    }


@pytest.mark.parametrize(
    "payload",
    [
        {"error": {"message": "Internal Server Error", "type": "internal_server_error"}},
        {"message": "Internal Server Error", "type": "internal_server_error"},
    ],
    ids=["error-object", "bare"],
)
def test_openai_groq_event_error_without_done(payload: Obj) -> None:
    body = sse(cc({"role": "assistant", "content": "Part"}), ("error", payload))
    frames = run(body, "openai")
    assert outline(frames)[:2] == [ROLE, ({"content": "Part"}, None)]
    error = error_of(frames)
    assert error is not None and error["message"] == "Internal Server Error"
    assert b"event:" not in translate(body, "openai")


def test_openai_data_error_frame_kept() -> None:
    body = sse(
        cc({"role": "assistant", "content": "Part"}),
        (None, {"error": {"message": "upstream timeout", "type": "timeout", "code": 504}}),
    )
    frames = run(body, "openai")
    assert outline(frames)[-2:] == [
        ("error", {"message": "upstream timeout", "type": "timeout", "code": 504}),
        "[DONE]",
    ]


@pytest.mark.parametrize(
    ("key", "make"),
    [
        ("reasoning_content", lambda s: {"reasoning_content": s}),
        ("reasoning", lambda s: {"reasoning": s}),
        (
            "reasoning_details",
            lambda s: {
                "reasoning_details": [
                    {"type": "reasoning.text", "text": s, "format": "unknown", "index": 0}
                ]
            },
        ),
        (
            "reasoning+details",
            lambda s: {
                "reasoning": s,
                "reasoning_details": [{"type": "reasoning.summary", "summary": s, "index": 0}],
            },
        ),
    ],
)
def test_openai_reasoning_fields(key: str, make: Any) -> None:
    body = sse(
        cc({"role": "assistant", "content": "", **make("Okay")}),
        cc({**make(", the user")}),
        cc({"content": "Hi"}),
        cc({}, "stop"),
        C_DONE,
    )
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        ({"reasoning_content": "Okay"}, None),
        ({"reasoning_content": ", the user"}, None),
        ({"content": "Hi"}, None),
        ({}, "stop"),
        "[DONE]",
    ]
    out = translate(body, "openai")
    assert b'"reasoning"' not in out and b"reasoning_details" not in out


def test_openai_missing_done() -> None:
    body = sse(cc({"role": "assistant", "content": "Hi"}), cc({}, "stop"))
    assert "D001" in native_codes(body)
    frames = run(body, "openai")
    assert outline(frames) == [ROLE, ({"content": "Hi"}, None), ({}, "stop"), "[DONE]"]


def test_openai_id_and_name_repeated_on_later_deltas() -> None:
    def tc(args: str) -> Obj:
        return {
            "index": 0,
            "id": "call_rep",
            "type": "function",
            "function": {"name": "search", "arguments": args},
        }

    body = sse(
        cc({"role": "assistant", "content": None, "tool_calls": [tc("")]}),
        cc({"tool_calls": [tc('{"q": ')]}),
        cc({"tool_calls": [tc('"sse"}')]}),
        cc({}, "tool_calls"),
        C_DONE,
    )
    assert "T006" in native_codes(body)
    frames = run(body, "openai")
    assert outline(frames) == [
        ROLE,
        (head(0, "call_rep", "search"), None),
        (frag(0, '{"q": '), None),
        (frag(0, '"sse"}'), None),
        ({}, "tool_calls"),
        "[DONE]",
    ]


def test_openai_interleaved_fragments_without_index_or_id_follow_the_last_call() -> None:
    body = sse(
        cc({"role": "assistant", "content": None}),
        cc(
            {
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": ""}}
                ]
            }
        ),
        cc({"tool_calls": [{"function": {"arguments": '{"n": 1}'}}]}),
        cc({}, "tool_calls"),
        C_DONE,
    )
    [call] = calls(run(body, "openai"))
    assert call == {"id": "call_a", "name": "f", "arguments": '{"n": 1}'}


def test_openai_upstream_index_not_from_zero() -> None:
    body = sse(
        cc({"role": "assistant"}),
        cc(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "g", "arguments": "{}"},
                    }
                ]
            }
        ),
        cc({}, "tool_calls"),
        C_DONE,
    )
    assert "I003" in native_codes(body)
    [call] = calls(run(body, "openai"))
    assert call["id"] == "call_b"


USAGE = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}


def test_openai_conforming_stream_is_kept() -> None:
    body = sse(
        cc({"role": "assistant", "content": ""}),
        cc({"content": "Hello"}),
        cc({}, "stop"),
        (None, {**cc(None)[1], "choices": [], "usage": USAGE}),
        C_DONE,
    )
    assert check_bytes(body).codes == set()
    frames = run(body, "openai", include_usage=True)
    assert outline(frames) == [
        ROLE,
        ({"content": "Hello"}, None),
        ({}, "stop"),
        ("usage", USAGE),
        "[DONE]",
    ]


# == ArgsBuilder (Gemini partialArgs -> JSON text) ===========================================


def build(*records: Obj) -> str:
    b = ArgsBuilder()
    return "".join(b.feed(r) for r in records) + b.close()


def test_parse_path() -> None:
    assert parse_path("$") == []
    assert parse_path("$.a.b[0].c") == ["a", "b", 0, "c"]
    assert parse_path("$['c d'][12][\"x.y\"]") == ["c d", 12, "x.y"]
    assert parse_path("$.a-b.$c._d") == ["a-b", "$c", "_d"]
    for bad in ("a.b", "$.", "$[x]", "$..a", "$.a[", "$.0"):
        with pytest.raises(ValueError):
            parse_path(bad)


def test_parse_path_unescapes_quoted_keys() -> None:
    assert parse_path("$['it\\'s']") == ["it's"]


def test_args_builder_scalars_and_nesting() -> None:
    assert build() == "{}"
    assert build({"jsonPath": "$.a", "numberValue": 1}) == '{"a":1}'
    assert (
        build(
            {"jsonPath": "$.a.b[0].c", "stringValue": "x"},
            {"jsonPath": "$.a.b[1].c", "boolValue": False},
            {"jsonPath": "$.a.d", "nullValue": None},
            {"jsonPath": "$.e[0]", "numberValue": 2.5},
            {"jsonPath": "$.e[1]", "boolValue": True},
        )
        == '{"a":{"b":[{"c":"x"},{"c":false}],"d":null},"e":[2.5,true]}'
    )


def test_args_builder_string_pieces() -> None:
    records: list[Obj] = [
        {"jsonPath": "$.s", "stringValue": 'he said "', "willContinue": True},
        {"jsonPath": "$.s", "stringValue": 'hi"\n', "willContinue": True},
        {"jsonPath": "$.s", "stringValue": "é😀"},
        {"jsonPath": "$.t", "stringValue": ""},
    ]
    assert json.loads(build(*records)) == {"s": 'he said "hi"\né😀', "t": ""}


def test_args_builder_text_comes_as_records_arrive() -> None:
    b = ArgsBuilder()
    assert b.feed({"jsonPath": "$.a", "stringValue": "Bos", "willContinue": True}) == '{"a":"Bos'
    assert b.feed({"jsonPath": "$.a", "stringValue": "ton", "willContinue": True}) == "ton"
    assert b.feed({"jsonPath": "$.a", "stringValue": ""}) == '"'
    assert b.feed({"jsonPath": "$.b[0][0]", "numberValue": 1}) == ',"b":[[1'
    assert b.close() == "]]}"
    assert b.close() == ""


def test_args_builder_string_left_open_at_close() -> None:
    assert build({"jsonPath": "$.a", "stringValue": "cut", "willContinue": True}) == '{"a":"cut"}'


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        (
            [
                {"jsonPath": "$.a", "stringValue": "x", "willContinue": True},
                {"jsonPath": "$.b", "numberValue": 1},
            ],
            {"a": "x", "b": 1},
        ),
        (
            [
                {"jsonPath": "$.a.b", "stringValue": "x", "willContinue": True},
                {"jsonPath": "$.a.c", "stringValue": "y"},
            ],
            {"a": {"b": "x", "c": "y"}},
        ),
        (
            [
                {"jsonPath": "$.t[0]", "stringValue": "x", "willContinue": True},
                {"jsonPath": "$.t[1]", "stringValue": "y"},
            ],
            {"t": ["x", "y"]},
        ),
    ],
    ids=["sibling", "nested-sibling", "array"],
)
def test_args_builder_string_left_open_before_next_path(records: list[Obj], expected: Obj) -> None:
    assert json.loads(build(*records)) == expected


# Random arguments: every key and leaf a partialArgs record can name (no empty containers
# below the root: a partialArgs stream has no record for one).
_IDENT = re.compile(r"[A-Za-z_$][\w$-]*")
keys = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.text(alphabet='ab .[]-"é0', min_size=1, max_size=5),
)
scalars = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, min_size=1, max_size=3)
        | st.dictionaries(keys, children, min_size=1, max_size=3)
    ),
    max_leaves=12,
)
arguments = st.dictionaries(keys, values, max_size=4)


def _path(parts: list[str | int]) -> str:
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.fullmatch(p):
            out += f".{p}"
        else:
            out += f"['{p}']"
    return out


def _leaves(value: Any, parts: list[str | int]) -> list[tuple[list[str | int], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, [*parts, k])]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, [*parts, i])]
    return [(parts, value)]


@st.composite
def partial_args(draw: st.DrawFn) -> tuple[Obj, list[Obj]]:
    """Arguments and the partialArgs records that stream them, strings in random pieces."""
    args = draw(arguments)
    records: list[Obj] = []
    for parts, value in _leaves(args, []):
        path = _path(parts)
        if isinstance(value, str):
            cuts = sorted(draw(st.sets(st.integers(0, len(value)), max_size=3)))
            pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
            if draw(st.booleans()):
                pieces.append("")  # the real API ends a streamed string with an empty piece
            for i, piece in enumerate(pieces):
                record: Obj = {"jsonPath": path, "stringValue": piece}
                if i < len(pieces) - 1:
                    record["willContinue"] = True
                records.append(record)
        elif isinstance(value, bool):
            records.append({"jsonPath": path, "boolValue": value})
        elif value is None:
            records.append({"jsonPath": path, "nullValue": None})
        else:
            records.append({"jsonPath": path, "numberValue": value})
    return args, records


@SETTINGS
@given(partial_args())
def test_args_builder_rebuilds_random_arguments(case: tuple[Obj, list[Obj]]) -> None:
    args, records = case
    assert json.loads(build(*records)) == args


@SETTINGS
@given(partial_args(), st.integers(1, 4))
def test_gemini_streamed_random_arguments(case: tuple[Obj, list[Obj]], per_event: int) -> None:
    """The same records through the Gemini translator, ``per_event`` records per event."""
    args, records = case
    events = [g_event([{"functionCall": {"name": "tool", "willContinue": True}}])]
    for i in range(0, len(records), per_event):
        events.append(g_event([g_partial(*records[i : i + per_event])]))
    events.append(g_event([{"functionCall": {}}], finish="STOP"))
    out = b"".join(translate_body([gemini(*events)], "gemini"))
    assert check_bytes(out).ok()
    [call] = calls(parse(out))
    assert json.loads(call["arguments"]) == args
