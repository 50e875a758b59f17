"""``translate --to``'s fast lane writes the very bytes the slow path writes (every event
through the SSE decoder, the translator and the encoder): over every bundled recording and
every real stream of a dialect it serves, split anywhere, and over streams made to trip it
(escapes, raw UTF-8 and invalid bytes in literals, empty deltas, numbers out of order, ``id:``
lines, comments, a carriage return halfway, a byte-order mark, a malformed event after many
fast ones, a bare JSON error body at the end, an unterminated last event, a literal over
the line limit). And it does take most events of a usual stream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform.recording.format import RecordingReader
from sseconform.translate import anthropic as anthropic_mod
from sseconform.translate import translate_body
from tests.conftest import REAL_STREAMS, ROOT
from tests.translate.test_corpus import DIALECT, ROWS

PAIRS = [("anthropic", "responses"), ("responses", "anthropic")]


def _out(body: bytes, dialect: str, to: str, fast: bool, step: int = 0) -> bytes:
    pieces = [body] if not step else [body[i : i + step] for i in range(0, len(body), step)]
    return b"".join(translate_body(pieces, dialect, to=to, fast=fast))


def _same(body: bytes, dialect: str, to: str, steps: tuple[int, ...]) -> None:
    want = _out(body, dialect, to, False)
    for step in steps:
        got = _out(body, dialect, to, True, step)
        assert got == want, (dialect, to, step, _first_difference(want, got))


def _first_difference(a: bytes, b: bytes) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at byte {n}: {a[max(0, n - 80) : n + 80]!r} vs {b[max(0, n - 80) : n + 80]!r}"


def _body(path: Path) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(data for _, data in RecordingReader(fp, str(path)).reads())


RECORDINGS = sorted(p for p in (ROOT / "recordings").glob("*/*.jsonl"))


@pytest.mark.parametrize(("dialect", "to"), PAIRS)
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recording_any_split(path: Path, dialect: str, to: str) -> None:
    """Whatever the recording's own dialect: read as this one, the output is the same."""
    _same(_body(path), dialect, to, (0, 1, 7, 4096))


@pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")
@pytest.mark.parametrize(("dialect", "to"), PAIRS)
def test_every_real_stream(dialect: str, to: str) -> None:
    tried = 0
    for row in ROWS:
        if DIALECT[row["api"]] != dialect:
            continue
        tried += 1
        _same((REAL_STREAMS / row["path"]).read_bytes(), dialect, to, (0, 13, 65536))
    assert tried


# -- streams made to trip it ------------------------------------------------------------------


def _a(kind: str, obj: dict[str, object], *, name: bool = True) -> bytes:
    head = f"event: {kind}\n".encode() if name else b""
    return head + b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _anthropic(tokens: list[str], *, args: list[str] | None = None, name: bool = True) -> bytes:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
           "usage": {"input_tokens": 3, "output_tokens": 0}}  # fmt: skip
    out = [_a("message_start", {"type": "message_start", "message": msg}, name=name)]
    out.append(_a("content_block_start", {"type": "content_block_start", "index": 0,
                  "content_block": {"type": "text", "text": ""}}, name=name))  # fmt: skip
    for t in tokens:
        out.append(_a("content_block_delta", {"type": "content_block_delta", "index": 0,
                      "delta": {"type": "text_delta", "text": t}}, name=name))  # fmt: skip
    out.append(_a("content_block_stop", {"type": "content_block_stop", "index": 0}, name=name))
    if args is not None:
        out.append(_a("content_block_start", {"type": "content_block_start", "index": 1,
                      "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f",
                                        "input": {}}}, name=name))  # fmt: skip
        for a in args:
            out.append(_a("content_block_delta", {"type": "content_block_delta", "index": 1,
                          "delta": {"type": "input_json_delta", "partial_json": a}},
                          name=name))  # fmt: skip
        out.append(_a("content_block_stop", {"type": "content_block_stop", "index": 1}, name=name))
    out.append(_a("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                  "usage": {"output_tokens": 9}}, name=name))  # fmt: skip
    out.append(_a("message_stop", {"type": "message_stop"}, name=name))
    return b"".join(out)


TOKENS = ["Hello", " world", "\n", ' "q"', " caf\u00e9", "\t", " \u2014", "", " \\path", "x" * 50,
          "\u2028", "\x7f", " end"] * 20  # fmt: skip
ARGS = ["", '{"a"', ': "b', '\u00e9"', ', "n": 1', "}"]


def _responses(body: bytes) -> bytes:
    """The same answer as Responses events (the slow path's translation, a fixed point)."""
    return _out(body, "anthropic", "responses", False)


CASES: dict[str, tuple[str, bytes]] = {
    "anthropic": ("anthropic", _anthropic(TOKENS, args=ARGS)),
    "anthropic-no-event-lines": ("anthropic", _anthropic(TOKENS, args=ARGS, name=False)),
    "responses": ("responses", _responses(_anthropic(TOKENS, args=ARGS))),
}


def _variants() -> list[tuple[str, str, bytes]]:
    out = []
    for name, (dialect, body) in CASES.items():
        events = body.split(b"\n\n")[:-1]
        mid = len(events) // 2
        out += [
            (f"{name}/plain", dialect, body),
            (f"{name}/bom", dialect, b"\xef\xbb\xbf" + body),
            (f"{name}/crlf-halfway", dialect,
             b"\n\n".join(events[:mid]) + b"\n\n" + b"\r\n\r\n".join(events[mid:]) + b"\r\n\r\n"),
            (f"{name}/comments", dialect,
             b"\n\n".join(e if i % 5 else b": keep-alive\n" + e for i, e in enumerate(events))
             + b"\n\n"),
            (f"{name}/id-lines", dialect,
             b"\n\n".join(e if i % 3 else b"id: %d\n" % i + e for i, e in enumerate(events))
             + b"\n\n"),
            (f"{name}/extra-blank-lines", dialect, b"\n\n\n".join(events) + b"\n\n"),
            (f"{name}/malformed-halfway", dialect,
             b"\n\n".join(events[:mid]) + b"\n\nevent: content_block_delta\ndata: {oops\n\n"
             + b"\n\n".join(events[mid:]) + b"\n\n"),
            (f"{name}/invalid-utf8-in-a-literal", dialect,
             body.replace(b" caf\xc3\xa9", b" caf\xc3(", 3)),
            (f"{name}/cut-after-deltas", dialect, b"\n\n".join(events[:mid]) + b"\n\n"),
            (f"{name}/unterminated-last", dialect, b"\n\n".join(events[:mid]) + b"\n\ndata: {"),
            (f"{name}/error-body-at-the-end", dialect,
             b"\n\n".join(events[:mid]) + b'\n\n{"error": {"message": "overloaded", "type": "x"}}'),
            (f"{name}/huge-literal", dialect,
             body.replace(b"x" * 50, b"y" * (2 * 1024 * 1024), 1)),
        ]  # fmt: skip
    body = CASES["responses"][1]
    seqs = body.split(b"\n\n")[:-1]
    swapped = [*seqs[:6], seqs[7], seqs[6], *seqs[8:]]  # two numbers out of order
    out.append(("responses/out-of-order", "responses", b"\n\n".join(swapped) + b"\n\n"))
    gap = seqs[:6] + seqs[7:]  # a number that never comes
    out.append(("responses/gap", "responses", b"\n\n".join(gap) + b"\n\n"))
    return out


@pytest.mark.parametrize(("dialect", "body"), [pytest.param(d, b, id=n) for n, d, b in _variants()])
def test_streams_made_to_trip_it(dialect: str, body: bytes) -> None:
    to = "responses" if dialect == "anthropic" else "anthropic"
    big = len(body) > 1 << 20  # the huge literal: not a byte at a time
    _same(body, dialect, to, (0, 64 * 1024, 1 << 20) if big else (0, 1, 5, 64, 4096))


def test_it_takes_most_events_of_a_usual_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted by the translator's slow-path feeds: the first piece (no template yet), each
    block's first deltas, the starts and stops; not one per delta."""
    fed = {"n": 0}
    real = anthropic_mod.AnthropicTranslator.feed

    def counting(self: anthropic_mod.AnthropicTranslator, ev: object) -> object:
        fed["n"] += 1
        return real(self, ev)  # type: ignore[arg-type]

    monkeypatch.setattr(anthropic_mod.AnthropicTranslator, "feed", counting)
    body = _anthropic(["tok"] * 500, args=['{"a":', ' "b"', "}"])
    _out(body, "anthropic", "responses", True, 4096)
    assert fed["n"] < 50, fed  # of 510 events
    fed["n"] = 0
    _out(body, "anthropic", "responses", False, 4096)
    assert fed["n"] > 500
