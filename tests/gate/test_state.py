"""The opaque state a client must send back on its next turn, read from a stream in each
dialect (and from the carriers chat clients read), at any split, bounded; and compared
between the upstream's stream and the gateway's: byte for byte through the same dialect (an
error when lost or changed), named as a warning through another."""

from __future__ import annotations

import json
import re

import pytest

from sseconform.gate.content import Content, content_of
from sseconform.gate.diff import compare
from sseconform.gate.suite import recordings_dir
from sseconform.replay.plan import load
from sseconform.wires import base as state_mod
from sseconform.wires.state import StateFolder
from tests.translate.test_corpus import DIALECT, ROWS, needs_corpus

THINKING = recordings_dir() / "anthropic" / "thinking-anthropic.jsonl"
GEMINI_CALL = recordings_dir() / "gemini" / "tool-call-gemini.jsonl"


def _ev(obj: dict[str, object], name: str | None = None) -> bytes:
    head = f"event: {name}\n" if name else ""
    return (head + "data: " + json.dumps(obj) + "\n\n").encode()


def _start(i: int, block: dict[str, object]) -> bytes:
    return _ev({"type": "content_block_start", "index": i, "content_block": block})


def _delta(i: int, delta: dict[str, object]) -> bytes:
    return _ev({"type": "content_block_delta", "index": i, "delta": delta})


def _stop(i: int) -> bytes:
    return _ev({"type": "content_block_stop", "index": i})


def _anthropic_two_blocks(call: bool = False) -> bytes:
    """Two thinking blocks (each signature in two deltas), a redacted one, maybe a call."""
    message = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "c",
               "usage": {"input_tokens": 1, "output_tokens": 0}}  # fmt: skip
    out = [_ev({"type": "message_start", "message": message})]
    for i, sig in enumerate(("c2lnLW9uZQ==", "c2lnLXR3bw==")):
        out.append(_start(i, {"type": "thinking", "thinking": "", "signature": ""}))
        out.append(_delta(i, {"type": "thinking_delta", "thinking": "hmm"}))
        for piece in (sig[:5], sig[5:]):  # a signature may come in more than one delta
            out.append(_delta(i, {"type": "signature_delta", "signature": piece}))
        out.append(_stop(i))
    out += [_start(2, {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}), _stop(2)]
    if call:
        out.append(_start(3, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}))
        out.append(_delta(3, {"type": "input_json_delta", "partial_json": "{}"}))
        out.append(_stop(3))
    out.append(_ev({"type": "message_stop"}))
    return b"".join(out)


def _anthropic_text_only() -> bytes:
    """The same answer with its thinking dropped whole: a text block alone."""
    message = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "c",
               "usage": {"input_tokens": 1, "output_tokens": 0}}  # fmt: skip
    return b"".join([
        _ev({"type": "message_start", "message": message}),
        _start(0, {"type": "text", "text": ""}),
        _delta(0, {"type": "text_delta", "text": "hi"}),
        _stop(0),
        _ev({"type": "message_stop"}),
    ])  # fmt: skip


def _tokens(body: bytes, dialect: str, step: int = 0) -> list[tuple[str, str, str]]:
    reads = [body] if not step else [body[i : i + step] for i in range(0, len(body), step)]
    return [(t.kind, t.owner, t.value) for t in content_of(reads, dialect).state.tokens]


def test_anthropic_signatures_and_redacted_data_at_any_split() -> None:
    body = _anthropic_two_blocks()
    want = [
        ("signature", "thinking block 0", "c2lnLW9uZQ=="),
        ("signature", "thinking block 1", "c2lnLXR3bw=="),
        ("redacted-thinking", "redacted thinking block 0", "ZW5jcnlwdGVk"),
    ]
    for step in (0, 1, 7, 64):
        assert sorted(_tokens(body, "anthropic", step)) == sorted(want), step


def test_a_signature_begun_in_a_block_that_never_stopped_is_kept() -> None:
    body = _anthropic_two_blocks()
    cut = body[: body.index(b'data: {"type": "content_block_stop", "index": 0')]
    assert _tokens(cut, "anthropic") == [("signature", "thinking block 0", "c2lnLW9uZQ==")]


def test_the_recorded_anthropic_signature() -> None:
    body = load(str(THINKING)).body
    [(kind, owner, value)] = _tokens(body, "anthropic")
    assert (kind, owner, len(value)) == ("signature", "thinking block 0", 184)
    assert value.encode() in body


def test_responses_encrypted_content_the_done_item_wins() -> None:
    def item(kind: str, content: str) -> bytes:
        return _ev({"type": kind, "output_index": 0, "sequence_number": 1,
                    "item": {"id": "rs_1", "type": "reasoning", "summary": [],
                             "encrypted_content": content}}, kind)  # fmt: skip

    whole = item("response.output_item.added", "gAAAAold") + item(
        "response.output_item.done", "gAAAAnew"
    )
    assert _tokens(whole, "responses") == [("encrypted-content", "reasoning item 0", "gAAAAnew")]
    cut = item("response.output_item.added", "gAAAAold")
    assert _tokens(cut, "responses") == [("encrypted-content", "reasoning item 0", "gAAAAold")]


def test_gemini_thought_signatures_name_their_part() -> None:
    [(kind, owner, _)] = _tokens(load(str(GEMINI_CALL)).body, "gemini")
    assert (kind, owner) == (
        "thought-signature",
        "the get_weather function call part (frame 1, part 0)",
    )
    two = b"".join(
        _ev({"candidates": [{"content": {"role": "model", "parts": parts}}]})
        for parts in (
            [{"text": "thinking", "thought": True}],
            [{"text": "hi", "thoughtSignature": "dGV4dA=="},
             {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "Y2FsbA=="}],
        )
    )  # fmt: skip
    assert _tokens(two, "gemini") == [
        ("thought-signature", "a text part (frame 2, part 0)", "dGV4dA=="),
        ("thought-signature", "the f function call part (frame 2, part 1)", "Y2FsbA=="),
    ]


def _chunk(delta: dict[str, object]) -> bytes:
    return _ev({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})  # fmt: skip


def test_the_carriers_chat_clients_read() -> None:
    details = [
        {"type": "reasoning.text", "text": "a", "index": 0},
        {"type": "reasoning.text", "signature": "c2ln", "index": 0},  # in two pieces
        {"type": "reasoning.text", "signature": "LW9uZQ==", "index": 0},
        {"type": "reasoning.encrypted", "data": "ZW5j", "index": 1},
    ]
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
        "provider_specific_fields": {"thought_signature": "Z2Vt"},
    }
    deltas: list[dict[str, object]] = [{"reasoning_details": [d]} for d in details]
    deltas.append({"thinking_blocks": [{"type": "thinking", "signature": "bGl0ZWxsbQ=="}]})
    deltas.append({"tool_calls": [call]})
    body = b"".join(_chunk(d) for d in deltas) + b"data: [DONE]\n\n"
    got = _tokens(body, "openai")
    assert sorted(got) == sorted(
        [
            ("signature", "reasoning_details[0]", "c2lnLW9uZQ=="),
            ("encrypted-content", "reasoning_details[1]", "ZW5j"),
            ("signature", "thinking_blocks[0]", "bGl0ZWxsbQ=="),
            ("thought-signature", "tool call 0", "Z2Vt"),
        ]
    )
    assert sorted(_tokens(body, "openai", 3)) == sorted(got)


def test_a_signature_inside_a_tool_call_id_or_its_function() -> None:
    function = {"name": "f", "arguments": "{}",
                "provider_specific_fields": {"thought_signature": "ZnVuYw=="}}  # fmt: skip
    embedded = "call_1__thought__c2ln/LWlk"
    call = {"index": 0, "id": embedded, "type": "function", "function": function}
    body = _chunk({"tool_calls": [call]}).replace(b"/", b"\\/") + b"data: [DONE]\n\n"
    assert sorted(_tokens(body, "openai")) == [
        ("thought-signature", "a tool call's id", "c2ln/LWlk"),
        ("thought-signature", "tool call 0", "ZnVuYw=="),
    ]


def test_litellm_s_carrier_on_a_tool_use_block() -> None:
    block = {"type": "tool_use", "id": "call_1", "name": "f", "input": {},
             "provider_specific_fields": {"signature": "c2ln/LWlk"}}  # fmt: skip
    body = _ev({"type": "content_block_start", "index": 0, "content_block": block})
    assert _tokens(body.replace(b"/", b"\\/"), "anthropic") == [
        ("thought-signature", "a block's provider_specific_fields", "c2ln/LWlk")
    ]


def test_a_thought_signature_on_a_responses_call_item() -> None:
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f",
            "arguments": "", "thought_signature": "c2ln"}  # fmt: skip
    kind = "response.output_item.added"
    body = _ev({"type": kind, "output_index": 0, "item": item}, kind)
    assert _tokens(body, "responses") == [
        ("thought-signature", "a call's thought_signature", "c2ln")
    ]


def test_what_is_kept_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_mod, "MAX_TOKENS", 3)
    folder = StateFolder("anthropic")
    frame = 0
    for i in range(10):
        for obj in (
            {"type": "content_block_start", "index": i,
             "content_block": {"type": "redacted_thinking", "data": f"d{i}"}},
            {"type": "content_block_stop", "index": i},
        ):  # fmt: skip
            frame += 1
            folder.feed(json.dumps(obj), frame, 0)
    got = folder.finish()
    assert [t.value for t in got.tokens] == ["d0", "d1", "d2"] and got.truncated


def _state_diffs(up: Content, gw: Content) -> list[tuple[str, str, str]]:
    return [(d.kind, d.field, d.severity) for d in compare(up, gw) if d.field.startswith("state.")]


def test_same_dialect_lost_and_changed_are_errors() -> None:
    body = _anthropic_two_blocks()
    up = content_of([body], "anthropic")
    assert _state_diffs(up, content_of([body], "anthropic")) == []
    dropped = re.sub(rb"event: [^\n]*\n?data: [^\n]*signature_delta[^\n]*\n\n", b"", body)
    dropped = re.sub(rb"data: [^\n]*signature_delta[^\n]*\n\n", b"", dropped)
    assert _state_diffs(up, content_of([dropped], "anthropic")) == [
        ("lost", "state.signature", "error"),
        ("lost", "state.signature", "error"),
    ]
    changed = body.replace(b'"W9uZQ=="', b'"W9uZQ"')
    diffs = [
        d for d in compare(up, content_of([changed], "anthropic")) if d.field.startswith("state")
    ]
    assert [(d.kind, d.severity) for d in diffs] == [("changed", "error")]
    assert diffs[0].message.startswith(
        "thinking block 0's signature: the upstream sent 12 bytes, the gateway's client got 10"
    )


def test_a_thinking_block_dropped_whole_without_a_call_is_the_reasoning_s_loss_alone() -> None:
    """The client never got the thinking at all: it sends none back, which the provider
    accepts without a tool call, so the lost reasoning is the one finding; beside a call the
    next turn is refused, and the lost signature stays an error."""
    body = _anthropic_two_blocks()
    no_thinking = content_of([_anthropic_text_only()], "anthropic")
    assert _state_diffs(content_of([body], "anthropic"), no_thinking) == []
    with_call = content_of([_anthropic_two_blocks(call=True)], "anthropic")
    assert {sev for _, _, sev in _state_diffs(with_call, no_thinking)} == {"error"}


def test_through_another_dialect_a_loss_beside_a_tool_call_is_a_warning() -> None:
    """A client of another dialect sends back only what its dialect holds, and the provider
    needs the state only beside a tool call: a text answer's state is not asked for."""
    chat = b"".join([_chunk({"content": "hi"}), b"data: [DONE]\n\n"])
    text_only = content_of([_anthropic_two_blocks()], "anthropic")
    assert _state_diffs(text_only, content_of([chat], "openai")) == []
    up = content_of([_anthropic_two_blocks(call=True)], "anthropic")
    assert _state_diffs(up, content_of([chat], "openai")) == [
        ("lost", "state.signature", "warning"),
        ("lost", "state.signature", "warning"),
        ("lost", "state.redacted-thinking", "warning"),
    ]
    carried = b"".join(
        [_chunk({"thinking_blocks": [{"type": "thinking", "signature": s}]})
         for s in ("c2lnLW9uZQ==", "c2lnLXR3bw==")]
        + [_chunk({"thinking_blocks": [{"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}]}),
           b"data: [DONE]\n\n"]
    )  # fmt: skip
    assert _state_diffs(up, content_of([carried], "openai")) == []


STATEFUL = [
    r for r in ROWS
    if DIALECT[r["api"]] in ("anthropic", "responses", "gemini")
]  # fmt: skip


@needs_corpus
def test_every_real_stream_with_state_keeps_it_through_itself() -> None:
    """Every real stream's state, read from it, is found again in itself (a faithful
    pass-through has no state finding), and each piece is in the bytes as sent."""
    from tests.conftest import REAL_STREAMS

    with_state = 0
    for row in STATEFUL:
        body = (REAL_STREAMS / row["path"]).read_bytes()
        dialect = DIALECT[row["api"]]
        c = content_of([body], dialect)
        if not c.state.tokens:
            continue
        with_state += 1
        assert _state_diffs(c, content_of([body], dialect)) == [], row["path"]
        for t in c.state.tokens:
            assert t.value.encode() in body or json.dumps(t.value)[1:-1].encode() in body, (
                row["path"], t.owner,
            )  # fmt: skip
    assert with_state >= 5, with_state
