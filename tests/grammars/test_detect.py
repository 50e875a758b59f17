"""``--grammar auto``: the first event with data decides, also when it is an error."""

from __future__ import annotations

import pytest

from sseconform.rules.grammars import detect

ANTHROPIC_ERROR = (
    b"event: error\n"
    b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
)
RESPONSES_ERROR = (
    b"event: error\n"
    b'data: {"type":"error","code":"server_error","message":"boom","param":null,'
    b'"sequence_number":0}\n\n'
)


@pytest.mark.parametrize(
    ("head", "grammar"),
    [
        (ANTHROPIC_ERROR, "anthropic"),
        (RESPONSES_ERROR, "responses"),
        (b'data: {"error":{"message":"boom","type":"server_error"}}\n\ndata: [DONE]\n\n', "chat"),
        (b'data: {"type":"error"}\n\n', "chat"),
        (b": ping\n\nevent: message_start\ndata: {}\n\n", "anthropic"),
        (b'data: {"type":"response.created","sequence_number":0}\n\n', "responses"),
        (b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n', "chat"),
        (b"", "chat"),
        (b"data: not json\n\n", "chat"),
    ],
)
def test_detect(head: bytes, grammar: str) -> None:
    assert detect(head) == grammar


@pytest.mark.parametrize("split", [1, 7, 40])
def test_detect_with_crlf(split: int) -> None:
    head = ANTHROPIC_ERROR.replace(b"\n", b"\r\n")
    assert detect(head) == "anthropic"
    assert detect(head[:split]) == "chat"  # no whole event yet: the default
