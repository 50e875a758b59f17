"""compare() on hand-made stream pairs, and the ``sseconform diff`` command.

Every stream here is built event by event by :class:`Stream`, which remembers the byte offset
at which it wrote each event: the locations a difference must name are computed from the
bytes the test made, never read back from sseconform.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from sseconform.gate.content import Content, Loc, content_of
from sseconform.gate.diff import Difference, compare
from sseconform.gate.rules import diff as diff_rules
from sseconform.gate.suite import recordings_dir
from sseconform.replay.plan import load
from tests.cli.helpers import run_cli

# -- building streams -------------------------------------------------------------------------


class Stream:
    """An SSE body written event by event; ``at(frame)`` is where that event starts."""

    dialect: str | None = "openai"

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._offsets: list[int] = []
        self._size = 0

    def _write(self, block: str) -> None:
        data = block.encode()
        self._parts.append(data)
        self._size += len(data)

    def comment(self, text: str) -> None:
        """A comment block: bytes on the wire, not an event (no frame number)."""
        self._write(f": {text}\n\n")

    def event(self, data: Any, name: str | None = None) -> int:
        """Write one event (``data`` a str, or an object serialised as JSON); its frame."""
        text = data if isinstance(data, str) else orjson.dumps(data).decode()
        self._offsets.append(self._size)
        self._write((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        return len(self._offsets)

    @property
    def body(self) -> bytes:
        return b"".join(self._parts)

    def at(self, frame: int) -> Loc:
        return Loc(frame, self._offsets[frame - 1])

    @property
    def last(self) -> Loc:
        return self.at(len(self._offsets))

    def event_bytes(self, loc: Loc | None) -> bytes:
        """The whole event found at ``loc`` in the bytes (checks it starts an event)."""
        assert loc is not None
        body = self.body
        assert loc.offset == 0 or body[: loc.offset].endswith(b"\n\n"), loc
        end = body.index(b"\n\n", loc.offset)
        return body[loc.offset : end]

    def content(self, *, usage: bool = True) -> Content:
        return content_of([self.body], self.dialect, include_usage=usage)


class Chunks(Stream):
    """A chat.completion.chunk stream, as a gateway (or an OpenAI upstream) sends it."""

    def __init__(self, id: str = "chatcmpl-1") -> None:
        super().__init__()
        self.id = id

    def chunk(self, choices: list[dict[str, Any]], **extra: Any) -> int:
        obj = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": choices,
            **extra,
        }
        return self.event(obj)

    def delta(self, delta: dict[str, Any], index: int = 0, finish: str | None = None) -> int:
        return self.chunk([{"index": index, "delta": delta, "finish_reason": finish}])

    def role(self, index: int = 0) -> int:
        return self.delta({"role": "assistant", "content": ""}, index)

    def text(self, s: str, index: int = 0) -> int:
        return self.delta({"content": s}, index)

    def reasoning(self, s: str, index: int = 0) -> int:
        return self.delta({"reasoning_content": s}, index)

    def call(
        self, i: int, args: str = "", *, name: str | None = None, id: str | None = None
    ) -> int:
        tc: dict[str, Any] = {"index": i, "function": {"arguments": args}}
        if name is not None:
            tc["id"] = id or f"call_{i}"
            tc["type"] = "function"
            tc["function"]["name"] = name
        return self.delta({"tool_calls": [tc]})

    def finish(self, reason: str, index: int = 0) -> int:
        return self.delta({}, index, reason)

    def usage(self, prompt: int, completion: int, total: int | None = None) -> int:
        u = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion if total is None else total,
        }
        return self.chunk([], usage=u)

    def error(self, message: str) -> int:
        return self.event({"error": {"message": message, "type": "upstream_error"}})

    def done(self) -> int:
        return self.event("[DONE]")

    def texts(self, pieces: list[str], finish: str | None = "stop", done: bool = True) -> list[int]:
        """Role, one chunk per piece (their frames are returned), finish, [DONE]."""
        self.role()
        frames = [self.text(p) for p in pieces]
        if finish is not None:
            self.finish(finish)
        if done:
            self.done()
        return frames


class Anthropic(Stream):
    """A native Anthropic Messages stream."""

    dialect = "anthropic"

    def ev(self, obj: dict[str, Any]) -> int:
        return self.event(obj, obj["type"])

    def start(self, input_tokens: int = 10) -> int:
        msg = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [],
            "usage": {"input_tokens": input_tokens, "output_tokens": 1},
        }
        return self.ev({"type": "message_start", "message": msg})

    def block(self, index: int, kind: str = "text", **extra: Any) -> int:
        block: dict[str, Any] = {"type": kind, **extra}
        if kind == "text":
            block.setdefault("text", "")
        if kind == "thinking":
            block.setdefault("thinking", "")
        if kind == "tool_use":
            block.setdefault("input", {})
        return self.ev({"type": "content_block_start", "index": index, "content_block": block})

    def text(self, s: str, index: int = 0) -> int:
        delta = {"type": "text_delta", "text": s}
        return self.ev({"type": "content_block_delta", "index": index, "delta": delta})

    def thinking(self, s: str, index: int = 0) -> int:
        delta = {"type": "thinking_delta", "thinking": s}
        return self.ev({"type": "content_block_delta", "index": index, "delta": delta})

    def args(self, s: str, index: int) -> int:
        delta = {"type": "input_json_delta", "partial_json": s}
        return self.ev({"type": "content_block_delta", "index": index, "delta": delta})

    def block_stop(self, index: int) -> int:
        return self.ev({"type": "content_block_stop", "index": index})

    def message_delta(self, stop_reason: str, output_tokens: int = 7) -> int:
        return self.ev(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason},
                "usage": {"output_tokens": output_tokens},
            }
        )

    def stop(self) -> int:
        return self.ev({"type": "message_stop"})

    def error(self, message: str = "Overloaded") -> int:
        return self.ev({"type": "error", "error": {"type": "overloaded_error", "message": message}})

    def texts(self, pieces: list[str], stop_reason: str = "end_turn") -> list[int]:
        """A whole one-block text answer; the frames of the text deltas are returned."""
        self.start()
        self.ev({"type": "ping"})
        self.block(0)
        frames = [self.text(p) for p in pieces]
        self.block_stop(0)
        self.message_delta(stop_reason)
        self.stop()
        return frames


class Gemini(Stream):
    """A native Gemini streamGenerateContent?alt=sse stream."""

    dialect = "gemini"

    def chunk(self, parts: list[dict[str, Any]], finish: str | None = None, **extra: Any) -> int:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        obj = {"candidates": [cand], "modelVersion": "gemini-x", "responseId": "r1", **extra}
        return self.event(obj)


def only(diffs: list[Difference]) -> Difference:
    assert len(diffs) == 1, diffs
    return diffs[0]


HELLO = ["Hel", "lo ", "wor", "ld"]  # "Hello world", in four deltas


def pair(up_pieces: list[str], gw_pieces: list[str]) -> tuple[Chunks, list[int], Chunks, list[int]]:
    up, gw = Chunks("up"), Chunks("gw")
    return up, up.texts(up_pieces), gw, gw.texts(gw_pieces)


# -- the same content -------------------------------------------------------------------------


def test_identical_streams_have_no_difference() -> None:
    up, _, gw, _ = pair(HELLO, HELLO)
    assert compare(up.content(), gw.content(), usage=True) == []


@pytest.mark.parametrize("dialect", [None, "gemini"])
def test_a_finish_no_grammar_knows_passed_through_as_it_came_is_no_difference(
    dialect: str | None,
) -> None:
    """A Gemini finishReason the provider never sends, passed through unchanged, is the
    upstream's own: the stream compares equal to itself (found by the property test)."""
    body = (
        b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0,'
        b'"finishReason":"}STOP"}],"responseId":"r1","modelVersion":"gemini-x"}\n\n'
    )
    content = content_of([body], dialect)
    assert compare(content, content) == []
    assert compare(content, content, grammar="gemini") == []


def test_a_different_split_into_chunks_is_the_same_content() -> None:
    up, _, gw, _ = pair(HELLO, ["H", "ello w", "orld"])
    assert compare(up.content(), gw.content()) == []


def test_native_anthropic_and_its_chunks_are_the_same_content() -> None:
    up = Anthropic()
    up.texts(HELLO)
    gw = Chunks()
    gw.texts(["Hello ", "world"])
    assert up.content().dialect == "anthropic"
    assert compare(up.content(), gw.content()) == []


@pytest.mark.parametrize(
    "golden",
    sorted((recordings_dir() / "golden").glob("*/*.sse")),
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_each_golden_means_what_its_recording_means(golden: Path) -> None:
    rec = recordings_dir() / golden.parent.name / f"{golden.stem}.jsonl"
    up = content_of([b for _, b in load(str(rec)).reads])
    gw = content_of([golden.read_bytes()], "openai")
    diffs = compare(up, gw, usage=True)
    assert diffs == []
    # the reference translation carries every piece of state the next turn needs (in
    # reasoning_details, translate/state.py), byte for byte
    assert up.state.values() <= gw.state.values()


# -- text -------------------------------------------------------------------------------------


def test_lost_token_in_the_middle() -> None:
    up, uf, gw, gf = pair(HELLO, ["Hel", "wor", "ld"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "lost")
    assert d.message == "3 chars the upstream sent are missing at char 3: 'lo '"
    assert d.upstream == up.at(uf[1])  # the upstream's event that carried "lo "
    assert d.gateway == gw.at(gf[1])  # the gateway's event where it should have been
    assert b'"lo "' in up.event_bytes(d.upstream)
    assert b'"wor"' in gw.event_bytes(d.gateway)


def test_lost_token_at_the_end() -> None:
    up, uf, gw, gf = pair(HELLO, ["Hel", "lo ", "wor"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "lost")
    assert d.message == "2 chars the upstream sent are missing at char 9: 'ld'"
    assert d.upstream == up.at(uf[3])
    assert d.gateway == gw.at(gf[2])  # past the end: the gateway's last text event


def test_lost_token_located_past_comments_and_pings() -> None:
    """Offsets count every byte: comments and native pings before the event move it."""
    up = Anthropic()
    up.comment("keep-alive")
    uf = up.texts(HELLO)
    gw = Chunks()
    gw.comment("gateway keep-alive " + "x" * 50)
    gw.role()
    gf = [gw.text("Hello ")]
    gw.comment("x")
    gf.append(gw.text("ld"))
    gw.finish("stop")
    gw.done()
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "lost")
    assert "3 chars the upstream sent are missing at char 6: 'wor'" in d.message
    assert d.upstream == up.at(uf[2])
    assert up.at(uf[2]).offset > 0
    assert d.gateway == gw.at(gf[1])
    assert up.event_bytes(d.upstream).startswith(b"event: content_block_delta\ndata: ")
    assert b'"wor"' in up.event_bytes(d.upstream)
    assert b'"ld"' in gw.event_bytes(d.gateway)


def test_duplicated_prefix_after_failover() -> None:
    """The gateway restarts the stream on another upstream after the first deltas."""
    up = Chunks("up")
    uf = up.texts(HELLO)
    gw = Chunks("gw")
    gw.role()
    gw.text("Hel")
    gw.text("lo ")
    gw.role()  # the second upstream's stream, from its start
    again = [gw.text(p) for p in HELLO]
    gw.finish("stop")
    gw.done()
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "duplicated")
    assert d.message.startswith("6 chars sent twice at char 6: 'Hello '")
    assert "restarted" in d.message
    assert d.upstream == up.at(uf[2])  # where the upstream went on with "wor"
    assert d.gateway == gw.at(again[0])  # the repeated "Hel"
    assert b'"Hel"' in gw.event_bytes(d.gateway)


def test_extra_text() -> None:
    up, uf, gw, gf = pair(HELLO, ["Hel", "lo ", "big ", "wor", "ld"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "extra")
    assert d.message == "4 chars the upstream never sent at char 6: 'big '"
    assert d.upstream == up.at(uf[2])
    assert d.gateway == gw.at(gf[2])


def test_reordered_text() -> None:
    up, uf, gw, gf = pair(HELLO, ["Hel", "wor", "lo ", "ld"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "reordered")
    assert d.message == "from char 3: the upstream sent 'lo wor', the gateway 'worlo '"
    assert d.upstream == up.at(uf[1])
    assert d.gateway == gw.at(gf[1])


def test_changed_text() -> None:
    up, uf, gw, gf = pair(HELLO, ["Hel", "lo ", "WOR", "ld"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("text", "changed")
    assert d.message == "from char 6: the upstream sent 'wor', the gateway 'WOR'"
    assert d.upstream == up.at(uf[2])
    assert d.gateway == gw.at(gf[2])


def test_native_gemini_lost_token_and_finish() -> None:
    up = Gemini()
    f1 = up.chunk([{"text": "Photosynthesis "}])
    f2 = up.chunk([{"text": "turns light "}])
    up.chunk([{"text": "into sugar."}], finish="STOP")
    gw = Chunks()
    gw.role()
    gw.text("Photosynthesis ")
    g = gw.text("into sugar.")
    gw.finish("stop")
    gw.done()
    c = up.content()
    assert c.dialect == "gemini"
    d = only(compare(c, gw.content()))
    assert (d.field, d.kind) == ("text", "lost")
    assert d.message == "12 chars the upstream sent are missing at char 15: 'turns light '"
    assert d.upstream == up.at(f2)
    assert d.upstream != up.at(f1)
    assert d.gateway == gw.at(g)


def test_native_gemini_max_tokens_maps_to_length() -> None:
    up = Gemini()
    up.chunk([{"text": "Photosynthesis "}])
    last = up.chunk([{"text": "turns"}], finish="MAX_TOKENS")
    gw = Chunks()
    gw.texts(["Photosynthesis turns"], finish="stop")
    fin = 3  # role, text, finish
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("finish_reason", "changed")
    assert d.message == "finish_reason 'stop', the upstream's maps to 'length'"
    assert d.upstream == up.at(last)  # Gemini finishes when its body ends: the last event
    assert d.gateway == gw.at(fin)


# -- reasoning, second choice -----------------------------------------------------------------


def test_reasoning_lost_from_native_anthropic_thinking() -> None:
    up = Anthropic()
    up.start()
    up.block(0, "thinking")
    t1 = up.thinking("First, ")
    t2 = up.thinking("list the primes. ")
    up.thinking("Then add.")
    up.block_stop(0)
    up.block(1)
    up.text("17", 1)
    up.block_stop(1)
    up.message_delta("end_turn")
    up.stop()
    gw = Chunks()
    gw.role()
    gw.reasoning("First, ")
    g = gw.reasoning("Then add.")
    gw.text("17")
    gw.finish("stop")
    gw.done()
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("reasoning", "lost")
    assert d.message == "17 chars the upstream sent are missing at char 7: 'list the primes. '"
    assert d.upstream == up.at(t2)
    assert d.upstream != up.at(t1)
    assert d.gateway == gw.at(g)


def test_reasoning_changed() -> None:
    up, gw = Chunks(), Chunks()
    up.role()
    u = up.reasoning("think")
    up.text("answer")
    up.finish("stop")
    gw.role()
    g = gw.reasoning("thunk")
    gw.text("answer")
    gw.finish("stop")
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("reasoning", "changed")
    assert (d.upstream, d.gateway) == (up.at(u), gw.at(g))


def two_choices(second: list[str] | None) -> Chunks:
    s = Chunks()
    s.role(0)
    s.role(1)
    s.text("zero", 0)
    for p in second or []:
        s.text(p, 1)
    s.finish("stop", 0)
    if second is not None:
        s.finish("stop", 1)
    s.done()
    return s


def test_second_choice_lost_token() -> None:
    up, gw = two_choices(["one", " two", " six"]), two_choices(["one", " six"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("choices[1].text", "lost")
    # "one two six" vs "one six": the first place they part is after "one "
    assert d.message == "4 chars the upstream sent are missing at char 4: 'two '"
    assert d.upstream == up.at(5)  # roles 1-2, "zero" 3, "one" 4, " two" 5
    assert d.gateway == gw.at(5)  # roles 1-2, "zero" 3, "one" 4, " six" 5
    assert b'" two"' in up.event_bytes(d.upstream)
    assert b'" six"' in gw.event_bytes(d.gateway)


def test_second_choice_opened_but_empty() -> None:
    up, gw = two_choices(["one"]), two_choices(None)
    gw_content = gw.content()
    assert set(gw_content.model.choices) == {0, 1}  # its role chunk opened choice 1
    diffs = compare(up.content(), gw_content)
    assert [(d.field, d.kind) for d in diffs] == [
        ("choices[1].text", "lost"),
        ("choices[1].finish_reason", "missing"),
    ]
    assert diffs[0].upstream == up.at(4)  # "one"
    assert diffs[0].gateway == gw.last
    assert diffs[1].upstream == up.at(6)  # choice 1's finish
    assert diffs[1].gateway == gw.last


def test_second_choice_missing_entirely() -> None:
    up = two_choices(["one"])
    gw = Chunks()
    gw.texts(["zero"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("choices[1].choice", "missing")
    assert d.upstream == up.at(6)
    assert d.gateway == gw.last


def test_second_choice_extra() -> None:
    up = Chunks()
    up.texts(["zero"])
    gw = two_choices(["one"])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("choices[1].choice", "extra")
    assert d.message == "the gateway sent choice 1, the upstream did not"
    assert d.upstream == up.last
    assert d.gateway == gw.at(6)


# -- tool calls -------------------------------------------------------------------------------


def calls_stream(
    calls: list[tuple[str, list[str]]], finish: str = "tool_calls"
) -> tuple[Chunks, list[int], list[list[int]]]:
    """One chunk stream of calls: (name, argument fragments); first frames, fragment frames."""
    s = Chunks()
    s.role()
    firsts, frags = [], []
    for i, (name, parts) in enumerate(calls):
        firsts.append(s.call(i, name=name))
        frags.append([s.call(i, p) for p in parts])
    s.finish(finish)
    s.done()
    return s, firsts, frags


def anthropic_calls(calls: list[tuple[str, list[str]]]) -> tuple[Anthropic, list[int]]:
    s = Anthropic()
    s.start()
    firsts = []
    for i, (name, parts) in enumerate(calls):
        firsts.append(s.block(i, "tool_use", id=f"toolu_{i}", name=name))
        for p in parts:
            s.args(p, i)
        s.block_stop(i)
    s.message_delta("tool_use")
    s.stop()
    return s, firsts


WEATHER = ("get_weather", ['{"city": "Par', 'is", "days": 3', "}"])
TIME = ("get_time", ['{"tz": "UTC"}'])


def test_the_same_calls_have_no_difference() -> None:
    up, _ = anthropic_calls([WEATHER, TIME])
    gw, _, _ = calls_stream([WEATHER, TIME])
    assert compare(up.content(), gw.content()) == []


def test_changed_argument_names_the_json_pointer() -> None:
    up, _ = anthropic_calls([WEATHER])
    gw, _, frags = calls_stream([("get_weather", ['{"city": "Par', 'is", "days": 4', "}"])])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[0].arguments", "changed")
    assert d.message.endswith("(first change at /days)")
    at = len('{"city": "Paris", "days": ')
    assert f"from char {at}: the upstream sent '3', the gateway '4'" in d.message
    assert b'"is\\", \\"days\\": 3"' in up.event_bytes(d.upstream)
    assert d.upstream == up.at(4)  # message_start, block start, '{"city": "Par', fragment 2
    assert d.gateway == gw.at(frags[0][1])


def test_changed_nested_argument_reserialised() -> None:
    up, _, _ = calls_stream([("f", ['{"a": {"b": [1, 2, 3]}, "c": "x"}'])])
    gw, _, frags = calls_stream([("f", ['{"c":"x","a":{"b":[1,2,4]}}'])])
    d = only(compare(up.content(), gw.content()))
    assert d.field == "tool_calls[0].arguments"
    assert d.message.endswith("(first change at /a/b/2)")
    assert d.gateway == gw.at(frags[0][0])


def test_added_argument_key_names_it() -> None:
    up, _, _ = calls_stream([("f", ['{"a": 1}'])])
    gw, _, _ = calls_stream([("f", ['{"a": 1, "b": 2}'])])
    d = only(compare(up.content(), gw.content()))
    assert d.message.endswith("(first change at /b)")


@pytest.mark.parametrize(
    ("upstream", "gateway"),
    [
        ('{"city": "Paris", "days": 3}', '{"city":"Paris","days":3}'),
        ('{"b": 1, "a": [1, 2]}', '{"a":[1,2],"b":1}'),
        ('{"s": "caf\\u00e9"}', '{"s":"café"}'),
        ('{"n": 1.5e2}', '{"n":150.0}'),
    ],
    ids=["spaces", "key-order", "escapes", "number-form"],
)
def test_arguments_reserialised_but_equal_are_the_same(upstream: str, gateway: str) -> None:
    up, _, _ = calls_stream([("f", [upstream[:5], upstream[5:]])])
    gw, _, _ = calls_stream([("f", [gateway])])
    assert compare(up.content(), gw.content()) == []


@pytest.mark.parametrize(
    ("upstream", "gateway"),
    [('{"flag": true}', '{"flag": 1}'), ('{"n": 0}', '{"n": false}'), ("[1]", "[true]")],
    ids=["true-to-1", "0-to-false", "1-to-true"],
)
def test_a_boolean_turned_number_is_a_change(upstream: str, gateway: str) -> None:
    up, _, _ = calls_stream([("f", [upstream])])
    gw, _, _ = calls_stream([("f", [gateway])])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[0].arguments", "changed")


def test_json_pointer_escapes_slash_and_tilde() -> None:
    up, _, _ = calls_stream([("f", ['{"a/b": {"m~n": 1}}'])])
    gw, _, _ = calls_stream([("f", ['{"a/b": {"m~n": 2}}'])])
    d = only(compare(up.content(), gw.content()))
    assert d.message.endswith("(first change at /a~1b/m~0n)")


def test_lost_argument_fragment_is_located() -> None:
    up, _, ufr = calls_stream([WEATHER])
    gw, _, gfr = calls_stream([("get_weather", ['{"city": "Par', "}"])])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[0].arguments", "lost")
    assert "first change" not in d.message  # the gateway's arguments do not parse
    assert d.upstream == up.at(ufr[0][1])
    assert d.gateway == gw.at(gfr[0][1])


def test_missing_tool_call() -> None:
    up, ufirst, _ = calls_stream([WEATHER, TIME])
    gw, _, _ = calls_stream([WEATHER])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[1]", "missing")
    assert d.message == "the upstream's call 1 ('get_time') never reached the client"
    assert d.upstream == up.at(ufirst[1])
    assert d.gateway == gw.last


def test_extra_tool_call() -> None:
    up, _, _ = calls_stream([WEATHER])
    gw, gfirst, _ = calls_stream([WEATHER, TIME])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[1]", "extra")
    assert d.message == "call 1 ('get_time') was not in the upstream's answer"
    assert d.upstream == up.last
    assert d.gateway == gw.at(gfirst[1])


def test_changed_tool_name() -> None:
    up, ufirst = anthropic_calls([WEATHER])
    gw, gfirst, _ = calls_stream([("getWeather", WEATHER[1])])
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("tool_calls[0].name", "changed")
    assert d.message == "name 'getWeather', the upstream's is 'get_weather'"
    assert d.upstream == up.at(ufirst[0])  # the tool_use block start
    assert d.gateway == gw.at(gfirst[0])


def test_call_ids_are_not_compared() -> None:
    up, _, _ = calls_stream([WEATHER])
    gw = Chunks()
    gw.role()
    gw.call(0, name="get_weather", id="call_rewritten_by_gateway")
    gw.call(0, "".join(WEATHER[1]))
    gw.finish("tool_calls")
    assert compare(up.content(), gw.content()) == []


# -- finish reasons ---------------------------------------------------------------------------


def test_anthropic_max_tokens_reported_as_stop() -> None:
    up = Anthropic()
    up.texts(HELLO, stop_reason="max_tokens")
    gw = Chunks()
    gw.role()
    gw.text("Hello world")
    fin = gw.finish("stop")
    gw.done()
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("finish_reason", "changed")
    assert d.message == "finish_reason 'stop', the upstream's maps to 'length'"
    assert d.upstream == up.last  # message_stop: where the translated finish comes out
    assert up.event_bytes(d.upstream).startswith(b"event: message_stop\n")
    assert d.gateway == gw.at(fin)


def test_anthropic_max_tokens_reported_as_length_is_right() -> None:
    up = Anthropic()
    up.texts(HELLO, stop_reason="max_tokens")
    gw = Chunks()
    gw.texts(["Hello world"], finish="length")
    assert compare(up.content(), gw.content()) == []


def test_finish_reason_missing() -> None:
    up, _, _, _ = pair(HELLO, HELLO)
    gw = Chunks()
    gw.texts(HELLO, finish=None)
    d = only(compare(up.content(), gw.content()))
    assert (d.field, d.kind) == ("finish_reason", "missing")
    assert d.upstream == up.at(6)  # role, four pieces, finish
    assert d.gateway == gw.last  # [DONE]


# -- usage ------------------------------------------------------------------------------------


def anthropic_with_usage() -> Anthropic:
    up = Anthropic()
    up.texts(HELLO)  # input_tokens 10, output_tokens 7
    return up


def test_usage_missing() -> None:
    up = anthropic_with_usage()
    gw = Chunks()
    gw.texts(["Hello world"])
    assert up.content().model.usage == {
        "prompt_tokens": 10,
        "completion_tokens": 7,
        "total_tokens": 17,
    }
    d = only(compare(up.content(), gw.content(), usage=True))
    assert (d.field, d.kind) == ("usage", "missing")
    # the counts came on message_delta: the finding is there, not at message_stop
    assert d.upstream == up.at(up.last.frame - 1)
    assert b'"type":"message_delta"' in up.event_bytes(d.upstream)
    assert d.gateway == gw.last
    assert compare(up.content(), gw.content(), usage=False) == []


def test_usage_same_counts() -> None:
    up = anthropic_with_usage()
    gw = Chunks()
    gw.role()
    gw.text("Hello world")
    gw.finish("stop")
    gw.usage(10, 7)
    gw.done()
    assert compare(up.content(), gw.content(), usage=True) == []


def test_usage_different_counts() -> None:
    up = anthropic_with_usage()
    gw = Chunks()
    gw.role()
    gw.text("Hello world")
    gw.finish("stop")
    u = gw.usage(10, 6)
    gw.done()
    diffs = compare(up.content(), gw.content(), usage=True)
    assert [(d.field, d.kind) for d in diffs] == [
        ("usage.completion_tokens", "changed"),
        ("usage.total_tokens", "changed"),
    ]
    assert diffs[0].message == "completion_tokens 6, the upstream reported 7"
    assert diffs[1].message == "total_tokens 16, the upstream reported 17"
    for d in diffs:
        assert d.upstream == up.at(up.last.frame - 1)  # message_delta, which has the counts
        assert d.gateway == gw.at(u)
    assert compare(up.content(), gw.content(), usage=False) == []


def test_usage_not_compared_when_the_stream_failed() -> None:
    up = anthropic_with_usage()
    gw = Chunks()
    gw.texts(["Hello world"])
    assert compare(up.content(), gw.content(), usage=True, prefix_only=True) == []


def usage_stream(usage: dict[str, Any], id: str = "chatcmpl-1") -> tuple[Chunks, int]:
    """A short answer, then a usage chunk with ``usage`` as given (its frame returned)."""
    s = Chunks(id)
    s.role()
    s.reasoning("Think.")
    s.text("Hello world")
    s.finish("stop")
    at = s.chunk([], usage=usage)
    s.done()
    return s, at


def reasoning_usage(p: int, c: int, t: int, r: int) -> dict[str, Any]:
    return {
        "prompt_tokens": p,
        "completion_tokens": c,
        "total_tokens": t,
        "completion_tokens_details": {"reasoning_tokens": r},
    }


XAI = reasoning_usage(12, 1, 303, 290)  # reasoning outside completion_tokens, inside the total
OPENAI = reasoning_usage(12, 291, 303, 290)  # the same tokens as OpenAI counts them


@pytest.mark.parametrize(("upstream", "gateway"), [(XAI, OPENAI), (OPENAI, XAI), (XAI, XAI)])
def test_usage_spelled_as_xai_or_openai_is_the_same(
    upstream: dict[str, Any], gateway: dict[str, Any]
) -> None:
    """U006's spelling means what OpenAI's does: passing it on or normalising it is no change
    (check accepts both; diff must agree)."""
    up, _ = usage_stream(upstream, "up")
    gw, _ = usage_stream(gateway, "gw")
    assert compare(up.content(), gw.content(), usage=True) == []


def test_usage_reasoning_dropped_from_completion_and_total_is_a_change() -> None:
    """What U004 flags (reasoning above the completion, a total without it) diff reports as
    changed counts against an upstream that counted the reasoning."""
    up, _ = usage_stream(OPENAI, "up")
    gw, at = usage_stream(reasoning_usage(12, 1, 13, 290), "gw")
    diffs = compare(up.content(), gw.content(), usage=True)
    assert [(d.field, d.kind) for d in diffs] == [
        ("usage.completion_tokens", "changed"),
        ("usage.total_tokens", "changed"),
    ]
    assert diffs[0].message == "completion_tokens 1, the upstream reported 291"
    assert all(d.gateway == gw.at(at) for d in diffs)


def test_usage_message_spells_out_the_xai_reading() -> None:
    up, _ = usage_stream(XAI, "up")
    gw, _ = usage_stream(reasoning_usage(12, 290, 302, 290), "gw")
    diffs = compare(up.content(), gw.content(), usage=True)
    assert [d.field for d in diffs] == ["usage.completion_tokens", "usage.total_tokens"]
    assert diffs[0].message == (
        "completion_tokens 290, the upstream reported 291 "
        "(completion_tokens 1 + the 290 reasoning_tokens it leaves out)"
    )


def test_gemini_thoughts_are_part_of_the_completion() -> None:
    """Gemini's candidates + thoughts are the completion (the translator's mapping): a gateway
    that leaves the thoughts out changes the completion and the total."""
    meta = {
        "promptTokenCount": 9,
        "candidatesTokenCount": 2,
        "thoughtsTokenCount": 25,
        "totalTokenCount": 36,
    }
    up = Gemini()
    up.chunk(
        [{"text": "Think.", "thought": True}, {"text": "Hello world"}], "STOP", usageMetadata=meta
    )
    right, _ = usage_stream(reasoning_usage(9, 27, 36, 25))
    assert compare(up.content(), right.content(), usage=True) == []
    wrong, _ = usage_stream(reasoning_usage(9, 2, 11, 25))
    diffs = compare(up.content(), wrong.content(), usage=True)
    assert [d.field for d in diffs] == ["usage.completion_tokens", "usage.total_tokens"]


# -- errors -----------------------------------------------------------------------------------


def anthropic_failing() -> tuple[Anthropic, list[int], int]:
    """Hello world in four deltas, then an error event (no message_stop)."""
    up = Anthropic()
    up.start()
    up.block(0)
    frames = [up.text(p) for p in HELLO]
    err = up.error("Overloaded")
    return up, frames, err


def test_upstream_error_but_no_error_frame() -> None:
    up, _, err = anthropic_failing()
    gw = Chunks()
    gw.texts(HELLO, finish=None, done=False)  # a silent close
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert (d.field, d.kind) == ("error", "missing")
    assert d.message == (
        "the upstream failed ('Overloaded'); the gateway's client never got an error frame"
    )
    assert d.upstream == up.at(err)
    assert d.gateway == gw.last


def test_upstream_error_passed_on() -> None:
    up, _, _ = anthropic_failing()
    gw = Chunks()
    gw.texts(HELLO, finish=None, done=False)
    gw.error("Overloaded")
    gw.done()
    assert compare(up.content(), gw.content(), prefix_only=True) == []
    assert compare(up.content(), gw.content()) == []


def test_gateway_error_frame_when_the_upstream_was_fine() -> None:
    up = Anthropic()
    up.texts(HELLO)
    gw = Chunks()
    gw.texts(HELLO, finish=None, done=False)
    err = gw.error("upstream timeout")
    gw.done()
    diffs = compare(up.content(), gw.content())
    assert [(d.field, d.kind) for d in diffs] == [("finish_reason", "missing"), ("error", "extra")]
    d = diffs[1]
    assert d.message == (
        "the gateway sent an error frame ('upstream timeout'); the upstream did not fail"
    )
    assert d.upstream == up.last
    assert d.gateway == gw.at(err)
    assert gw.event_bytes(d.gateway).startswith(b'data: {"error"')


# -- prefix_only: the upstream failed mid-stream ----------------------------------------------


def test_prefix_gateway_stopping_short_is_fine() -> None:
    up, _, _ = anthropic_failing()
    gw = Chunks()
    gw.texts(["Hel", "lo wo"], finish=None, done=False)
    gw.error("upstream failed")
    gw.done()
    assert compare(up.content(), gw.content(), prefix_only=True) == []
    d = only(compare(up.content(), gw.content()))  # without prefix_only: text is lost
    assert (d.field, d.kind) == ("text", "lost")
    assert "at char 8: 'rld'" in d.message


def test_prefix_gateway_stopping_short_of_a_call_is_fine() -> None:
    up = Anthropic()
    up.start()
    up.block(0)
    up.text("Let me look.")
    up.block_stop(0)
    up.block(1, "tool_use", id="toolu_1", name="lookup")
    up.args('{"q": "x"}', 1)
    up.error()
    gw = Chunks()
    gw.texts(["Let me"], finish=None, done=False)
    gw.error("upstream failed")
    assert compare(up.content(), gw.content(), prefix_only=True) == []


def test_prefix_lost_token_before_the_cut() -> None:
    up, uf, _ = anthropic_failing()
    gw = Chunks()
    gf = gw.texts(["Hel", "wor", "ld"], finish=None, done=False)
    gw.error("upstream failed")
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert (d.field, d.kind) == ("text", "lost")
    assert d.upstream == up.at(uf[1])
    assert d.gateway == gw.at(gf[1])


def test_prefix_lost_token_then_stopping_short_is_still_a_difference() -> None:
    up, uf, _ = anthropic_failing()
    gw = Chunks()
    gf = gw.texts(["Hel", "wo"], finish=None, done=False)  # "lo " lost, then cut short
    gw.error("upstream failed")
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert d.field == "text"
    assert d.upstream == up.at(uf[1])
    assert d.gateway == gw.at(gf[1])


def test_prefix_lost_token_then_stopping_short_is_lost() -> None:
    up, _, _ = anthropic_failing()
    gw = Chunks()
    gw.texts(["Hel", "wo"], finish=None, done=False)
    gw.error("upstream failed")
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert d.kind == "lost"


def test_prefix_extra_and_duplicated_text_still_count() -> None:
    up, _, _ = anthropic_failing()
    gw = Chunks()
    gw.texts(["Hel", "lo ", "big ", "wor", "ld"], finish=None, done=False)
    gw.error("upstream failed")
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert (d.field, d.kind) == ("text", "extra")
    gw = Chunks()
    gw.texts(["Hel", "lo ", "Hel", "lo ", "wor", "ld"], finish=None, done=False)
    gw.error("upstream failed")
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert (d.field, d.kind) == ("text", "duplicated")


def test_prefix_finish_reasons_are_not_compared() -> None:
    up, _, _ = anthropic_failing()
    gw = Chunks()
    gw.texts(HELLO, finish="stop")
    # the error is missing, but the finish reason the gateway made up is not a difference
    d = only(compare(up.content(), gw.content(), prefix_only=True))
    assert d.field == "error"


# -- to_dict ----------------------------------------------------------------------------------


def test_difference_to_dict() -> None:
    d = Difference("text", diff_rules.LOST, "m", Loc(2, 10), None)
    assert d.to_dict() == {
        "field": "text",
        "kind": "lost",
        "message": "m",
        "upstream": {"frame": 2, "offset": 10},
        "gateway": None,
        "severity": "error",
    }


# -- the diff command -------------------------------------------------------------------------


def write_pair(tmp_path: Path, gw_pieces: list[str]) -> tuple[Anthropic, list[int], Chunks]:
    up = Anthropic()
    uf = up.texts(HELLO)
    gw = Chunks()
    gw.texts(gw_pieces)
    (tmp_path / "upstream.sse").write_bytes(up.body)
    (tmp_path / "gateway.sse").write_bytes(gw.body)
    return up, uf, gw


def test_cli_diff_same_content(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello", " world"])
    r = run_cli("diff", "upstream.sse", "gateway.sse", cwd=tmp_path)
    assert r.code == 0, r.both
    assert r.out == "same content: upstream.sse and gateway.sse\n"


def test_cli_diff_bundled_recording_and_golden(tmp_path: Path) -> None:
    root = recordings_dir()
    r = run_cli(
        "diff",
        root / "anthropic" / "tool-call-anthropic.jsonl",
        root / "golden" / "anthropic" / "tool-call-anthropic.sse",
        "--usage",
        cwd=tmp_path,
    )
    assert r.code == 0, r.both
    assert r.out.startswith("same content: ")


def test_cli_diff_text_report(tmp_path: Path) -> None:
    up, uf, gw = write_pair(tmp_path, ["Hel", "wor", "ld"])
    r = run_cli("diff", "upstream.sse", "gateway.sse", cwd=tmp_path)
    assert r.code == 1, r.both
    u, g = up.at(uf[1]), gw.at(3)  # gateway: role, "Hel", "wor"
    assert r.out.splitlines() == [
        "text: lost: 3 chars the upstream sent are missing at char 3: 'lo '",
        f"    upstream frame {u.frame} (byte {u.offset}); gateway frame {g.frame} "
        f"(byte {g.offset})",
        "1 difference(s) between upstream.sse and gateway.sse",
    ]


def test_cli_diff_json_report(tmp_path: Path) -> None:
    up, uf, gw = write_pair(tmp_path, ["Hel", "wor", "ld"])
    r = run_cli(
        "diff",
        "upstream.sse",
        "gateway.sse",
        "--from",
        "anthropic",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert r.code == 1, r.both
    doc = json.loads(r.out)
    u, g = up.at(uf[1]), gw.at(3)
    assert doc == {
        "upstream": "upstream.sse",
        "gateway": "gateway.sse",
        "differences": [
            {
                "field": "text",
                "kind": "lost",
                "message": "3 chars the upstream sent are missing at char 3: 'lo '",
                "upstream": {"frame": u.frame, "offset": u.offset},
                "gateway": {"frame": g.frame, "offset": g.offset},
                "severity": "error",
            }
        ],
    }


def test_cli_diff_json_same_content(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello world"])
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--format", "json", cwd=tmp_path)
    assert r.code == 0, r.both
    assert json.loads(r.out)["differences"] == []


def test_cli_diff_usage_and_prefix_options(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello world"])  # no usage chunk
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--usage", cwd=tmp_path)
    assert r.code == 1, r.both
    assert r.out.startswith("usage: missing: ")
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--usage", "--prefix", cwd=tmp_path)
    assert r.code == 0, r.both


def test_cli_diff_missing_file(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello world"])
    r = run_cli("diff", "upstream.sse", "nope.sse", cwd=tmp_path)
    assert r.code == 2
    assert r.out == ""
    assert r.err.strip() == "sseconform: error: nope.sse: no such file"


def test_cli_diff_unknown_dialect(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello world"])
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--from", "cohere", cwd=tmp_path)
    assert r.code == 2
    assert "unknown dialect 'cohere'" in r.err
    assert "anthropic" in r.err  # the valid ones are listed


def test_cli_diff_unknown_format(tmp_path: Path) -> None:
    write_pair(tmp_path, ["Hello world"])
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--format", "junit", cwd=tmp_path)
    assert r.code == 2
    assert "unknown format 'junit'" in r.err


# -- streams of any grammar on the gateway's side -----------------------------------------------


def test_cli_diff_a_messages_gateway_by_meaning(tmp_path: Path) -> None:
    """A /v1/messages gateway's stream is read as Anthropic events and compared by meaning."""
    rec = recordings_dir() / "anthropic" / "tool-call-anthropic.jsonl"
    r = run_cli("diff", rec, rec, "--gateway-from", "anthropic", "--usage", cwd=tmp_path)
    assert (r.code, r.out.startswith("same content: ")) == (0, True), r.both
    r = run_cli("diff", rec, rec, "--gateway-from", "auto", cwd=tmp_path)
    assert r.code == 0, r.both
    # read as chunks (the default), an Anthropic stream means nothing a chat client can use
    r = run_cli("diff", rec, rec, cwd=tmp_path)
    assert r.code == 1 and "the gateway never sent choice 0" in r.out, r.both


def test_cli_diff_a_messages_gateway_that_changed_the_arguments(tmp_path: Path) -> None:
    up = Anthropic()
    up.texts(HELLO)
    gw = Anthropic()
    gw.texts(["Hello", " there"])
    (tmp_path / "upstream.sse").write_bytes(up.body)
    (tmp_path / "gateway.sse").write_bytes(gw.body)
    r = run_cli("diff", "upstream.sse", "gateway.sse", "--gateway-from", "anthropic", cwd=tmp_path)
    assert r.code == 1, r.both
    assert r.out.startswith("text: "), r.out
    assert "gateway frame" in r.out


def test_cli_diff_responses_gateway_against_the_same_meaning_in_chunks(tmp_path: Path) -> None:
    """Across grammars: a Responses upstream and the chunks it means compare as the same."""
    root = recordings_dir()
    rec = root / "responses" / "tool-call-responses.jsonl"
    golden = root / "golden" / "responses" / "tool-call-responses.sse"
    r = run_cli("diff", golden, rec, "--gateway-from", "responses", cwd=tmp_path)
    assert r.code == 0, r.both


def test_cli_diff_unknown_gateway_grammar(tmp_path: Path) -> None:
    rec = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
    r = run_cli("diff", rec, rec, "--gateway-from", "klingon", cwd=tmp_path)
    assert r.code == 2 and "unknown dialect 'klingon'" in r.err and "Traceback" not in r.err


def test_every_delta_sent_twice_is_duplicated_not_changed() -> None:
    """A gateway that passes each reasoning delta on twice (it converts two fields of one
    upstream event): the diff says what happened."""
    pieces = ["Let me ", "think about ", "this ", "carefully."]
    up, gw = Chunks(), Chunks()
    for s in (up, gw):
        s.role()
    for p in pieces:
        up.reasoning(p)
        gw.reasoning(p)
        gw.reasoning(p)
    for s in (up, gw):
        s.text("ok")
        s.finish("stop")
        s.done()
    [d] = compare(up.content(), gw.content())
    assert (d.field, d.kind) == ("reasoning", "duplicated"), d
    assert f"{sum(map(len, pieces))} chars sent twice from char 7" in d.message, d.message


@pytest.mark.parametrize("grammar", ["anthropic", "chat"])
def test_a_lost_cache_read_is_named_not_input_tokens(grammar: str) -> None:
    """On ``/v1/messages`` a gateway that drops ``cache_read_input_tokens`` sends the same
    ``input_tokens`` (Anthropic's leave the cache out): the finding names the cached count it
    lost, not ``input_tokens 14, the upstream reported 2062``."""
    body = b"".join(
        b for _, b in load(str(recordings_dir() / "anthropic" / "usage-anthropic.jsonl")).reads
    )
    lost = body.replace(b'\\"cache_read_input_tokens\\":2048', b'\\"cache_read_input_tokens\\":0')
    lost = lost.replace(b'"cache_read_input_tokens":2048', b'"cache_read_input_tokens":0')
    assert lost != body
    up, gw = content_of([body], "anthropic"), content_of([lost], "anthropic")
    diffs = compare(up, gw, usage=True, grammar=grammar)
    name = {"anthropic": "cache_read_input_tokens", "chat": "prompt_tokens_details.cached_tokens"}
    assert [(d.field, d.kind) for d in diffs][:1] == [(f"usage.{name[grammar]}", "changed")]
    assert diffs[0].message.startswith(f"{name[grammar]} 0, the upstream reported 2048"), diffs
    assert "input_tokens 14" not in diffs[0].message


@pytest.mark.parametrize(
    ("asked", "said"),
    [(2, "the upstream was asked 2 times: a failover after the first delta"),
     (1, "the upstream was asked once: the gateway repeated it")],
)  # fmt: skip
def test_content_sent_twice_says_what_the_upstream_log_shows(asked: int, said: str) -> None:
    """A restart is a failover only when the upstream was asked again: with one request the
    gateway itself sent the text twice, and the finding does not guess at a failover."""
    from sseconform.gate.expectations import _why_twice

    d = Difference("text", diff_rules.DUPLICATED, "6 chars sent twice at char 6", None, None)
    assert _why_twice(d, asked) == f" ({said})"
    other = Difference("text", diff_rules.LOST, "6 chars missing", None, None)
    assert _why_twice(other, asked) == ""
