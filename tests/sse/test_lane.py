"""The byte lane's primitives (``sse/template.py``, ``sse/lane.py``) on their own: the cut and
its proof, a run matched on the bytes and checked in bulk, and the lane's contract with the
decoder (what it takes is counted, so every later event sits where the decoder alone puts
it). The consumers' tests (tests/test_check_lane.py, tests/translate/test_lane.py,
tests/test_lane_properties.py) compare whole streams."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.sse import Event, SSEDecoder
from sseconform.sse.lane import Lane, Waste
from sseconform.sse.template import NUM, PAD, SEQ, VALUE, Cut, Json, Run, Template, cut

JSON = Json(orjson.loads, JSON_STRING, find_literal)


def _cut(data: str, path: tuple[str | int, ...], **kw: Any) -> Cut | None:
    return cut(data, orjson.loads(data), path, JSON, **kw)


# -- the cut --------------------------------------------------------------------------------


def test_a_delta_is_cut_around_its_value() -> None:
    data = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}'
    got = _cut(data, ("delta", "text"), event="content_block_delta")
    assert got == Cut("content_block_delta", (data[: data.index('"hi"')], "}}"), (VALUE,))


def test_the_number_and_the_padding_are_holes_too() -> None:
    data = '{"type":"d","sequence_number": 7,"delta":"x\\"y","obfuscation":"Ab"}'
    got = _cut(data, ("delta",), seq=True)
    assert got is not None
    assert got.holes == (SEQ, VALUE, PAD)
    assert got.segments == ('{"type":"d","sequence_number": ', ',"delta":', ',"obfuscation":', "}")


@pytest.mark.parametrize("digits", [20, 300])
def test_a_number_past_19_digits_is_left_to_the_slow_path(digits: int) -> None:
    """A number orjson reads as a float is no sequence number (one of 4300 digits or more,
    which int() refuses, it does not read at all: the match below must not take it)."""
    data = '{"sequence_number":' + "9" * digits + ',"delta":"x"}'
    assert _cut(data, ("delta",), seq=True) is None
    assert _cut('{"sequence_number":' + "9" * 19 + ',"delta":"x"}', ("delta",), seq=True)


@pytest.mark.parametrize(
    "data",
    [
        '{"delta":"sseconform-lane-probe-value"}',  # a probe in the text itself
        '{"delta":"a","n":987654321987}',  # a probe number in it
        '{"delta":"a","x":{"delta":"b"}}',  # two candidates: not worth proving which
        '{"delta":"a","delta":"b"}',  # the same key twice
        '{"delta":["a"]}',  # not a string
    ],
)
def test_a_cut_that_cannot_be_shown_is_none(data: str) -> None:
    assert _cut(data, ("delta",)) is None


def test_a_non_string_key_or_a_second_line_is_none() -> None:
    assert _cut('["a"]', (0,)) is None
    assert cut('{"delta":"a"}', {"delta": "a"}, ("delta",), JSON) is not None
    assert cut('{"delta":"a",\n"b":1}', {"delta": "a", "b": 1}, ("delta",), JSON) is None


def test_a_second_sequence_number_is_none() -> None:
    data = '{"sequence_number":1,"x":{"sequence_number":2},"delta":"a"}'
    assert _cut(data, ("delta",), seq=True) is None


def test_counts_that_grow_are_holes() -> None:
    data = '{"candidates":[{"text":"a"}],"usage":{"p":9,"c":[1, 2],"t":{"n":0}},"m":3}'
    got = _cut(data, ("candidates", 0, "text"), numbers="usage")
    assert got is not None
    assert got.holes == (VALUE, NUM, NUM, NUM, NUM)
    assert got.segments[-1] == '}},"m":3}'  # the number outside it stays


def test_nesting_past_the_stack_is_none_not_a_crash() -> None:
    deep = "[" * 1000 + "]" * 1000
    data = '{"x":' + deep + ',"delta":"a"}'
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        pytest.skip("orjson refuses this depth")
    cut(data, obj, ("delta",), JSON)  # None or a cut: never an exception


# -- a run matched on the bytes -------------------------------------------------------------


def _template(event: str | None = "d") -> Template:
    data = '{"type":"d","index":0,"text":"x"}'
    found = _cut(data, ("text",), event=event)
    assert found is not None
    return Template(found, JSON)


def _take(t: Template, blocks: list[bytes], i: int, limit: int) -> Run:
    """``t.take`` over the events ``blocks`` (each without its blank line), from the ``i``th."""
    at = sum(len(b) + 2 for b in blocks[:i])
    return t.take(b"".join(b + b"\n\n" for b in blocks), at, limit)


def _block(lit: bytes, event: str | None = "d") -> bytes:
    head = b"" if event is None else b"event: " + event.encode() + b"\n"
    return head + b'data: {"type":"d","index":0,"text":' + lit + b"}"


def test_a_run_of_plain_values_is_checked_in_bulk() -> None:
    blocks = [_block(json.dumps(t, ensure_ascii=False).encode()) for t in ["a", " \u00e9", "!"]]
    run = _take(_template(), [b"other", *blocks], 1, 1 << 20)
    assert (run.n, run.plain, run.text(3)) == (3, True, "a \u00e9!")
    assert run.texts() == ["a", " \u00e9", "!"]


def test_escapes_are_valid_and_decoded() -> None:
    blocks = [_block(b'"a\\nb"'), _block(b'"\\u00e9\\""')]
    run = _take(_template(), blocks, 0, 1 << 20)
    assert (run.n, run.plain, run.text(2)) == (2, False, 'a\nb\u00e9"')
    assert run.texts() == ["a\nb", '\u00e9"']


@pytest.mark.parametrize(
    "bad", [b'"caf\xc3"', b'"a\x01b"', b'"\\ud800"', b'"a"b"', b'"\\x"', b'"a" ', b"1"]
)
def test_a_run_ends_before_the_first_value_the_parser_would_not_take(bad: bytes) -> None:
    blocks = [_block(b'"a"'), _block(b'"b"'), _block(bad), _block(b'"c"')]
    run = _take(_template(), blocks, 0, 1 << 20)
    assert run.n == 2 and run.literals == [b'"a"', b'"b"']


def test_a_run_ends_at_an_event_over_the_limit_or_of_another_name() -> None:
    blocks = [_block(b'"a"'), _block(b'"' + b"y" * 100 + b'"'), _block(b'"c"')]
    assert _take(_template(), blocks, 0, 60).n == 1
    assert _take(_template(), [_block(b'"a"', "e")], 0, 1 << 20).n == 0
    assert _take(_template(None), [_block(b'"a"', None)], 0, 1 << 20).n == 1


def test_a_run_ends_at_an_event_of_the_same_lengths_that_differs() -> None:
    """The matcher reads events by their lengths; the bytes written again prove the rest:
    an event whose head or tail differs in a byte, not in length, ends the run there."""
    other_index = _block(b'"b"').replace(b'"index":0', b'"index":7')
    other_tail = _block(b'"b"')[:-1] + b"]"
    for odd in (other_index, other_tail):
        blocks = [_block(b'"a"'), _block(b'"\\u00e9"'), odd, _block(b'"c"')]
        run = _take(_template(), blocks, 0, 1 << 20)
        assert (run.n, run.texts()) == (2, ["a", "\u00e9"])
        assert run.size == len(blocks[0]) + len(blocks[1]) + 4  # their blank lines too


def test_several_holes_numbers_and_a_long_piece_compared() -> None:
    item = "msg_" + "6" * 90  # a long piece, proven with the rest
    data = f'{{"sequence_number":3,"item_id":"{item}","delta":"x","obfuscation":"p"}}'
    found = _cut(data, ("delta",), seq=True, event="t")
    assert found is not None
    t = Template(found, JSON)

    def block(seq: int, lit: bytes, pad: bytes = b'"q"', it: str = item) -> bytes:
        data = b'{"sequence_number":%d,"item_id":"%s","delta":%s,"obfuscation":%s}'
        return b"event: t\ndata: " + data % (seq, it.encode(), lit, pad)

    blocks = [block(4, b'"a"'), block(6, b'"b\\n"', b'"\\u00e9"'), block(7, b'"c"')]
    run = _take(t, [*blocks, block(8, b'"d"', it="msg_" + "7" * 90)], 0, 1 << 20)
    assert (run.n, run.seqs, run.texts()) == (3, [4, 6, 7], ["a", "b\n", "c"])
    assert _take(t, [block(4, b'"a"', b'"\xff"')], 0, 1 << 20).n == 0  # the padding is UTF-8 too
    assert _take(t, [block(123456789012345678901, b'"a"')], 0, 1 << 20).n == 0
    huge = block(4, b'"a"').replace(b":4,", b":" + b"9" * 5000 + b",")  # int() refuses it
    assert _take(t, [block(4, b'"a"'), huge], 0, 1 << 20).n == 1


def test_a_run_of_one_decoded_delta() -> None:
    assert Run.one("hi", 5).texts() == ["hi"] and Run.one("hi", 5).seqs == [5]


def test_waste_tries_one_candidate_in_every_few_once_templates_go_unused() -> None:
    w = Waste(2, 4)
    assert w.worth()
    w.dropped(False)
    w.dropped(False)
    assert [w.worth() for _ in range(8)] == [False, False, False, True] * 2
    w.dropped(True)
    assert w.worth()


# -- the lane and the decoder ---------------------------------------------------------------


class Taker:
    """A lane user that takes every run, after the first event the slow path read."""

    def __init__(self, dec: SSEDecoder, eol: bytes = b"\n") -> None:
        self.dec = dec
        self.eol = eol
        self.tmpl: Template | None = None
        self.events: list[Event] = []  # what the slow path read
        self.taken: list[bytes] = []

    def lane_template(self) -> Template | None:
        return self.tmpl

    def lane_take(self, run: Run) -> int:
        self.taken += run.literals
        return run.n

    def lane_took(self, n: int, last: bytes) -> None:
        pass

    def lane_slow(self, data: bytes) -> None:
        evs = self.dec.feed(data)
        self.events += evs
        if evs and self.tmpl is None and evs[-1].event == "d":
            found = _cut(evs[-1].data, ("text",), event="d")
            assert found is not None
            self.tmpl = Template(found, JSON, self.eol)


def _stream(eol: bytes) -> bytes:
    deltas = [_block(json.dumps(t).encode()) + b"\n\n" for t in ["a", "b", "\u00e9", "c"] * 30]
    nospace = _block(b'"x"').replace(b"data: ", b"data:") + b"\n\n"
    odd = [b": c\n\n", nospace, b"event: z\ndata: {}\n\n"]
    body = b"".join(deltas[:50] + odd + deltas[50:] + odd)
    return body.replace(b"\n", eol)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("step", [1, 7, 100, 1 << 20])
@pytest.mark.parametrize("carry", [40, 1 << 16])
def test_what_the_lane_takes_is_counted(eol: bytes, step: int, carry: int) -> None:
    """The events the slow path reads after the lane took some sit where the decoder alone
    puts them: frame, line, byte offset. In small windows, with a carry shorter than an
    event (the decoder then takes the partial event, and reads on to its end)."""
    body = _stream(eol)
    alone = SSEDecoder()
    want = alone.feed(body) + alone.finish()
    dec = SSEDecoder()
    user = Taker(dec, eol)
    lane = Lane(dec, user, limit=1 << 20, crlf=True, window=64, carry_max=carry)
    for i in range(0, len(body), step):
        lane.feed(body[i : i + step])
    user.events += dec.feed(lane.close()) + dec.finish()
    assert len(user.taken) >= (100 if carry > 40 else 0 if step < 64 else 10)
    by_frame = {ev.frame: ev for ev in want}
    assert user.events and all(ev == by_frame[ev.frame] for ev in user.events)
    assert dec.frame == alone.frame and dec.position() == alone.position()


def test_crlf_is_read_only_when_allowed_and_a_stray_cr_stops_the_lane() -> None:
    for crlf in (False, True):
        dec = SSEDecoder()
        lane = Lane(dec, Taker(dec), limit=1 << 20, crlf=crlf)
        lane.feed(b"data: 1\r\n\r\n")
        assert lane.off is not crlf and lane.eol == (b"\r\n" if crlf else b"\n")
    dec = SSEDecoder()
    user = Taker(dec)
    lane = Lane(dec, user, limit=1 << 20, crlf=True)
    body = _stream(b"\n")
    lane.feed(body[:3000])
    assert not lane.off and user.taken
    lane.feed(b"\r" + body[3000:])
    assert lane.off and lane.close() == b""
