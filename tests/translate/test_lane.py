"""``translate --to``'s fast lane writes the very bytes the slow path writes (every event
through the SSE decoder, the translator and the encoder): over every bundled recording and
every real stream of a dialect it serves, split anywhere, and over streams made to trip it
(escapes, raw UTF-8 and invalid bytes in literals, empty deltas, numbers out of order, ``id:``
lines, comments, a carriage return halfway, a byte-order mark, a malformed event after many
fast ones, a bare JSON error body at the end, an unterminated last event, a literal over
the line limit). And it does take most events of a usual stream."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from sseconform.recording.format import RecordingReader
from sseconform.sse import Event
from sseconform.translate import Frame, Translator, translate_body
from sseconform.translate import anthropic as anthropic_mod
from sseconform.translate import gemini as gemini_mod
from sseconform.translate import openai as openai_mod
from sseconform.translate import responses as responses_mod
from tests.conftest import REAL_STREAMS, ROOT, TESTS_FULL
from tests.translate.shapes import one_per_shape
from tests.translate.test_corpus import DIALECT, ROWS

PAIRS = [
    ("anthropic", "responses"),
    ("responses", "anthropic"),
    ("openai", "anthropic"),
    ("openai", "responses"),
    ("gemini", "anthropic"),
    ("gemini", "responses"),
    *((source, "chat") for source in ("anthropic", "responses", "openai", "gemini")),
    *((source, "gemini") for source in ("anthropic", "responses", "openai")),
]


def _out(body: bytes, dialect: str | None, to: str, fast: bool, step: int = 0) -> bytes:
    pieces = [body] if not step else [body[i : i + step] for i in range(0, len(body), step)]
    return b"".join(translate_body(pieces, dialect, to=to, fast=fast))


def _same(body: bytes, dialect: str | None, to: str, steps: tuple[int, ...]) -> None:
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


@pytest.mark.parametrize("to", ["chat", "anthropic", "responses"])
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_dialect_found_as_the_auto_translator_finds_it(path: Path, to: str) -> None:
    """No dialect given: the lane reads the one the first events name, with the bytes the
    auto translator gives."""
    _same(_body(path), None, to, (0, 1, 4096))


#: Real streams are split into 13-byte pieces over their first bytes only (the longest are
#: megabytes, and small pieces cost the most); whole and in 64 KiB pieces over all of them.
SMALL_PIECES_OVER = 65536


@functools.cache
def _small_pieces() -> frozenset[str]:
    """The real streams split into 13-byte pieces: one of each shape
    (:mod:`tests.translate.shapes`; every stream under ``SSECONFORM_TESTS_FULL=1``)."""
    streams = [
        (row["path"], (REAL_STREAMS / row["path"]).read_bytes(), DIALECT[row["api"]])
        for row in ROWS
    ]
    return one_per_shape(streams)


@pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")
@pytest.mark.parametrize(("dialect", "to"), PAIRS)
def test_every_real_stream(dialect: str, to: str) -> None:
    """Every real stream whole and in 64 KiB pieces; one of each shape in 13-byte pieces too
    (:func:`_small_pieces`: the lane takes or leaves an event by its shape)."""
    tried = 0
    for row in ROWS:
        if DIALECT[row["api"]] != dialect:
            continue
        tried += 1
        body = (REAL_STREAMS / row["path"]).read_bytes()
        small = row["path"] in _small_pieces()
        if len(body) <= SMALL_PIECES_OVER:
            _same(body, dialect, to, (0, 13, 65536) if small else (0, 65536))
            continue
        _same(body, dialect, to, (0, 65536))
        if small:  # a cut last event: both alike
            _same(body[:SMALL_PIECES_OVER], dialect, to, (13,))
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


def _obfuscated(body: bytes) -> bytes:
    """Every event with an ``obfuscation`` string of its own, as OpenAI sends them."""
    out = []
    for n, ev in enumerate(body.split(b"\n\n")[:-1]):
        if ev.endswith(b"}"):
            ev = ev[:-1] + b',"obfuscation":"%s"}' % (b"pad" * (n % 7))
        out.append(ev)
    return b"\n\n".join(out) + b"\n\n"


def _chat(body: bytes) -> bytes:
    """The same answer as chat chunks (the slow path's translation)."""
    return b"".join(translate_body([body], "anthropic"))


def _gemini(tokens: list[str], *, crlf: bool = True) -> bytes:
    """Gemini's chunks: a few tokens each, usage counts that grow on every chunk, lines
    ended with CRLF as the API writes them; then a whole call and the finish."""
    out: list[dict[str, Any]]
    prompt: dict[str, Any]
    out, prompt = (
        [],
        {"promptTokenCount": 9, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}]},
    )
    for n in range(0, len(tokens), 3):
        usage = {**prompt, "candidatesTokenCount": n + 1, "totalTokenCount": n + 10}
        part = {"text": "".join(tokens[n : n + 3])}
        out.append(
            {
                "candidates": [{"content": {"parts": [part], "role": "model"}, "index": 0}],
                "usageMetadata": usage,
                "modelVersion": "gemini-3-pro",
                "responseId": "r1",
            }
        )
    call = {"functionCall": {"name": "f", "args": {"a": "b"}}}
    out.append(
        {
            "candidates": [
                {"content": {"parts": [call], "role": "model"}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                **prompt,
                "candidatesTokenCount": 99,
                "totalTokenCount": 108,
                "thoughtsTokenCount": 7,
            },
            "modelVersion": "gemini-3-pro",
        }
    )
    eol = "\r\n" if crlf else "\n"
    text = "".join(f"data: {json.dumps(o, ensure_ascii=False)}{eol}{eol}" for o in out)
    return text.encode()  # fmt: skip


CASES: dict[str, tuple[str, bytes]] = {
    "gemini": ("gemini", _gemini(TOKENS)),
    "gemini-lf": ("gemini", _gemini(TOKENS, crlf=False)),
    "anthropic": ("anthropic", _anthropic(TOKENS, args=ARGS)),
    "anthropic-no-event-lines": ("anthropic", _anthropic(TOKENS, args=ARGS, name=False)),
    "responses": ("responses", _responses(_anthropic(TOKENS, args=ARGS))),
    "responses-obfuscated": ("responses", _obfuscated(_responses(_anthropic(TOKENS, args=ARGS)))),
    "chat": ("openai", _chat(_anthropic(TOKENS, args=ARGS))),
    "chat-obfuscated": ("openai", _obfuscated(_chat(_anthropic(TOKENS, args=ARGS)))),
    "chat-crlf": ("openai", _chat(_anthropic(TOKENS, args=ARGS)).replace(b"\n", b"\r\n")),
}


def _variants() -> list[tuple[str, str, bytes]]:
    out = []
    for name, (dialect, body) in CASES.items():
        crlf = body.index(b"\n") > 0 and body[body.index(b"\n") - 1] == 13
        nl, other = (b"\r\n", b"\n") if crlf else (b"\n", b"\r\n")
        sep = nl + nl
        events = body.split(sep)[:-1]
        mid = len(events) // 2
        out += [
            (f"{name}/plain", dialect, body),
            (f"{name}/bom", dialect, b"\xef\xbb\xbf" + body),
            (f"{name}/other-line-ends-halfway", dialect,
             sep.join(events[:mid]) + sep + (other * 2).join(events[mid:]) + other * 2),
            (f"{name}/a-lone-cr-halfway", dialect,
             sep.join(events[:mid]) + sep + b"\r\r".join(events[mid:]) + b"\r\r"),
            (f"{name}/comments", dialect,
             sep.join(e if i % 5 else b": keep-alive" + nl + e for i, e in enumerate(events))
             + sep),
            (f"{name}/id-lines", dialect,
             sep.join(e if i % 3 else b"id: %d" % i + nl + e for i, e in enumerate(events))
             + sep),
            (f"{name}/extra-blank-lines", dialect, (sep + nl).join(events) + sep),
            (f"{name}/malformed-halfway", dialect,
             sep.join(events[:mid]) + sep + b"event: content_block_delta" + nl + b"data: {oops"
             + sep + sep.join(events[mid:]) + sep),
            (f"{name}/invalid-utf8-in-a-literal", dialect,
             body.replace(b" caf\xc3\xa9", b" caf\xc3(", 3)),
            (f"{name}/cut-after-deltas", dialect, sep.join(events[:mid]) + sep),
            (f"{name}/unterminated-last", dialect, sep.join(events[:mid]) + sep + b"data: {"),
            (f"{name}/error-body-at-the-end", dialect,
             sep.join(events[:mid]) + sep + b'{"error": {"message": "overloaded", "type": "x"}}'),
            (f"{name}/huge-literal", dialect,
             body.replace(b"x" * 50, b"y" * (2 * 1024 * 1024), 1)),
        ]  # fmt: skip
    body = CASES["responses"][1]
    seqs = body.split(b"\n\n")[:-1]
    swapped = [*seqs[:6], seqs[7], seqs[6], *seqs[8:]]  # two numbers out of order
    out.append(("responses/out-of-order", "responses", b"\n\n".join(swapped) + b"\n\n"))
    gap = seqs[:6] + seqs[7:]  # a number that never comes
    out.append(("responses/gap", "responses", b"\n\n".join(gap) + b"\n\n"))
    # numbers past what int() reads from text (4300 digits): on the lane's template, after it
    huge = b"9" * 5000
    for at in (8, len(seqs) // 2):
        big_seq = re.sub(rb'("sequence_number":)[0-9]+', rb"\g<1>" + huge, seqs[at])
        out.append((f"responses/huge-sequence-number-{at}", "responses",
                    b"\n\n".join([*seqs[:at], big_seq, *seqs[at + 1 :]]) + b"\n\n"))  # fmt: skip
    gem = CASES["gemini-lf"][1].split(b"\n\n")[:-1]
    for at in (0, len(gem) // 2):
        big_count = re.sub(rb'("candidatesTokenCount": )[0-9]+', rb"\g<1>" + huge, gem[at])
        out.append((f"gemini/huge-usage-count-{at}", "gemini",
                    b"\n\n".join([*gem[:at], big_count, *gem[at + 1 :]]) + b"\n\n"))  # fmt: skip
    return out


#: The cases whose every variant is also split a byte at a time: one per source dialect (each
#: its own lane). The others' framings (LF, no ``event:`` lines, ``obfuscation``, CRLF) are
#: split a byte at a time as they are (``/plain``); their variants at 5, 64 and 4096 bytes,
#: which cut each repeated event at many places of its own. ``SSECONFORM_TESTS_FULL=1``: every
#: variant a byte at a time (it doubles the byte-at-a-time splits, the file's longest part).
BYTE_AT_A_TIME = frozenset({"gemini", "anthropic", "responses", "chat"})


def _byte_at_a_time(name: str) -> bool:
    case, _, variant = name.partition("/")
    return TESTS_FULL or case in BYTE_AT_A_TIME or variant == "plain" or case not in CASES


@pytest.mark.parametrize(
    ("dialect", "body", "turn", "one"),
    [pytest.param(d, b, i, _byte_at_a_time(n), id=n) for i, (n, d, b) in enumerate(_variants())],
)
def test_streams_made_to_trip_it(dialect: str, body: bytes, turn: int, one: bool) -> None:
    """Every variant into every other dialect, split anywhere: whole, at 5, 64 and 4096
    bytes, and (see :data:`BYTE_AT_A_TIME`) a byte at a time into one of them, each in its
    turn (the lane reads its input the same way whatever it writes; a byte at a time into all
    three tripled the file's time, the suite's longest)."""
    big = len(body) > 1 << 20  # the huge literal: not a byte at a time
    targets = [to for to in ("chat", "anthropic", "responses", "gemini") if to != dialect]
    for to in targets:
        steps = (0, 5, 64, 4096) + ((1,) if one and to == targets[turn % len(targets)] else ())
        _same(body, dialect, to, (0, 64 * 1024, 1 << 20) if big else steps)


USUAL = _anthropic(["tok"] * 500, args=['{"a":', ' "b"', "}"] * 20)
SOURCES: dict[str, tuple[type[Translator], bytes]] = {
    "anthropic": (anthropic_mod.AnthropicTranslator, USUAL),
    "responses": (responses_mod.ResponsesTranslator, _obfuscated(_responses(USUAL))),
    "openai": (openai_mod.OpenAITranslator, _obfuscated(_chat(USUAL))),
    "gemini": (gemini_mod.GeminiTranslator, _gemini(["tok"] * 1700)),
}


@pytest.mark.parametrize(("dialect", "to"), PAIRS)
def test_it_takes_most_events_of_a_usual_stream(
    monkeypatch: pytest.MonkeyPatch, dialect: str, to: str
) -> None:
    """Counted by the translator's slow-path feeds: the first piece (no template yet), each
    block's first deltas, the starts and stops; not one per delta (with OpenAI's
    ``obfuscation`` strings too)."""
    cls, body = SOURCES[dialect]
    fed = {"n": 0}
    real = cls.feed

    def counting(self: Translator, ev: Event) -> list[Frame]:
        fed["n"] += 1
        return real(self, ev)

    monkeypatch.setattr(cls, "feed", counting)
    _out(body, dialect, to, True, 4096)
    # of over 560 events; Gemini's target writes a call whole, so its 60 argument pieces
    # are the slow path's (only text deltas are written on the bytes)
    assert fed["n"] < (50 + 60 if to == "gemini" else 50), fed
    fed["n"] = 0
    _out(body, dialect, to, False, 4096)
    assert fed["n"] > 560


@pytest.mark.parametrize("to", ["chat", "anthropic", "responses"])
def test_no_dialect_named_for_a_long_while(to: str) -> None:
    """A megabyte of comments before the first event: the auto translator reads on; only
    comments and pings: OpenAI's, as the auto translator's default."""
    body = CASES["anthropic"][1]
    _same(b": " + b"x" * (2 << 20) + b"\n\n" + body, None, to, (0, 64 * 1024))
    _same(b": keep-alive\n\n" * 100 + body, None, to, (0, 5, 4096))
    _same(b": keep-alive\n\n" * 3, None, to, (0, 1))
    _same(b'{"error": {"message": "overloaded", "type": "x"}}', None, to, (0, 1))
