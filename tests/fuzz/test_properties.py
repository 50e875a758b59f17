"""Property-based fuzz tests across the pipeline: check, translate, fold, compare, view, replay.

For every component: hostile input raises nothing but the project's documented errors, and the
result does not depend on how the bytes were cut (whole, one byte at a time, between CR and LF,
inside UTF-8 sequences, at random places, with empty reads).

Every product bug found here is pinned by its minimal input in ``test_regressions.py`` (a plain
test once fixed, a strict xfail while open); the properties step over open ones through
:mod:`tests.fuzz.known_bugs` (and only over them), so they keep looking for new ones.

``SSECONFORM_FUZZ_SCALE=20`` multiplies the example counts for a longer hunt (half of them
are drawn unless ``SSECONFORM_TESTS_FULL=1``).
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from rich.console import Console

from sseconform.api import FileResult, check_bytes, check_chunks, check_file
from sseconform.errors import InputError
from sseconform.gate.content import content_of
from sseconform.gate.diff import compare
from sseconform.inspect.render import Budget, render
from sseconform.inspect.state import StreamView
from sseconform.recording.format import (
    MAGIC,
    RecordingError,
    RecordingReader,
    Response,
    write_recording,
)
from sseconform.replay.plan import load
from sseconform.rules.base import Settings
from sseconform.rules.catalog import Severity
from sseconform.sse import SSEDecoder
from sseconform.translate import (
    auto_translator,
    error_body_message,
    serialize,
    translate_body,
    translate_reads,
    translator_for,
)
from sseconform.wires.reassemble import Reassembler
from tests.conftest import TESTS_FULL
from tests.fuzz import strategies as S
from tests.fuzz.known_bugs import known_crash, known_output

#: Multiplies every test's example count, for a longer hunt: SSECONFORM_FUZZ_SCALE=20 pytest ...
#: A run without ``SSECONFORM_TESTS_FULL=1`` draws half the examples (these tests were 80 s
#: of CPU of CI's 1,500): the examples differ from run to run (not derandomized), so runs
#: together still search the whole space, and CI's atheris fuzzers run beside them.
SCALE = float(os.environ.get("SSECONFORM_FUZZ_SCALE", "1" if TESTS_FULL else "0.5"))


def fuzz(n: int) -> settings:
    # database=None: no .hypothesis/ folder in the checkout.
    return settings(
        max_examples=max(1, int(n * SCALE)),
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


def tolerate(exc: BaseException) -> None:
    """Step over a known bug (see known_bugs.py); re-raise anything else."""
    bug = known_crash(exc)
    if bug is None:
        raise exc
    event(f"known bug {bug.bug}")


arbitrary_bodies = st.one_of(st.binary(max_size=400), S.sse_tokens())


@st.composite
def chunk_bodies(draw: st.DrawFn) -> bytes:
    return draw(S.sse_body(draw(S.chunk_events())))


@st.composite
def native_bodies(draw: st.DrawFn, dialect: str, *, types: bool) -> bytes:
    return draw(S.sse_body(draw(S.native_events(dialect, types=types))))


@st.composite
def any_bodies(draw: st.DrawFn, *, types: bool = True) -> tuple[str, bytes]:
    """(what it is, body): a chunk stream, a native stream of some dialect, or bytes."""
    kind = draw(st.sampled_from(["chunks", "chunks", *S.DIALECTS, "bytes"]))
    if kind == "chunks":
        return kind, draw(chunk_bodies())
    if kind == "bytes":
        return kind, draw(arbitrary_bodies)
    return kind, draw(native_bodies(kind, types=types))


# -- 1. the checker ----------------------------------------------------------------------------


def result_key(r: FileResult) -> tuple[Any, ...]:
    diags = [(d.code, d.frame, d.line, d.offset, d.message, d.pointer) for d in r.findings]
    return diags, r.suppressed, r.bytes, r.frames, r.error


def assert_check_properties(body: bytes, drawn: list[bytes], settings: dict[str, Any]) -> None:
    try:
        whole = check_bytes(body, Settings(**settings))
    except Exception as exc:
        tolerate(exc)
        return
    key = result_key(whole)
    for d in whole.findings:
        assert d.offset is not None and 0 <= d.offset <= len(body), d
        assert d.line >= 0, d
    for name, parts in S.all_splits(body, drawn):
        assert result_key(check_chunks(parts, Settings(**settings))) == key, f"split {name}"
    unmemo = check_chunks(drawn, Settings(**{**settings, "memo": False}))
    assert result_key(unmemo) == key, "memo=False differs"


checker_settings = st.fixed_dictionaries(
    {},
    optional={
        "max_line": st.sampled_from([8, 64, 300]),
        "max_event": st.sampled_from([16, 100, 400]),
        "max_arguments": st.sampled_from([1, 8]),
        "max_per_code": st.sampled_from([1, 3]),
        "select": st.sampled_from([["W"], ["J", "G"], ["no-native-leak"]]),
    },
)


@fuzz(250)
@given(st.data())
def test_check_arbitrary_bytes(data: st.DataObject) -> None:
    body = data.draw(arbitrary_bodies)
    assert_check_properties(body, data.draw(S.splits(body)), data.draw(checker_settings))


@fuzz(250)
@given(st.data())
def test_check_grammar_streams(data: st.DataObject) -> None:
    body = data.draw(chunk_bodies())
    assert_check_properties(body, data.draw(S.splits(body)), data.draw(checker_settings))


# -- 2. the translators ------------------------------------------------------------------------

#: Codes that say a frame is not a grammar chunk: native leaks, bad JSON, schema violations
#: (some schema violations carry their own code: object, role, finish_reason, index, ...).
GRAMMAR_CODES = frozenset({"G001", "G008", "F006", "I001", "I002", "U002", "E001"})


#: The error frame a translator sends for an exception that is not a MalformedUpstream.
MASKED_CRASH = re.compile(
    rb"malformed upstream [^\"]*: (TypeError|ValueError|AttributeError|KeyError|IndexError|"
    rb"RecursionError|OverflowError)\""
)


def translated(parts: list[bytes], dialect: str | None) -> bytes:
    return b"".join(translate_body(parts, dialect))


def assert_translation_properties(
    body: bytes, drawn: list[bytes], dialect: str | None, *, strict: bool
) -> None:
    try:
        out = translated([body], dialect)
    except Exception as exc:
        if strict:
            raise
        tolerate(exc)
        return
    for name, parts in S.all_splits(body, drawn):
        assert translated(parts, dialect) == out, f"split {name} translates differently"
    diags = check_bytes(out).findings
    assert out.endswith(b"data: [DONE]\n\n"), out[-300:]
    masked = MASKED_CRASH.search(out)
    if masked is not None:
        # A translator turns any exception into a "malformed upstream" error frame. On events
        # of the right types (strict) that is a crash hidden, not a malformed upstream.
        assert not strict, f"a translator crashed on well-typed events: {masked.group()!r}"
        event("malformed upstream (a Python exception turned into an error frame)")
    for d in diags:
        if not (d.code[0] in "NJ" or d.code in GRAMMAR_CODES):
            continue
        bug = None if strict else known_output(d)
        assert bug is not None, f"the translation is not grammar chunks: {d}"
        event(f"known bug {bug}")


@pytest.mark.parametrize("dialect", S.DIALECTS)
@fuzz(60)
@given(data=st.data())
def test_translate_reordered_native_streams(dialect: str, data: st.DataObject) -> None:
    """Recorded streams with events moved, dropped or repeated: all strict."""
    body = data.draw(native_bodies(dialect, types=False))
    assert_translation_properties(body, data.draw(S.splits(body)), dialect, strict=True)


@pytest.mark.parametrize("dialect", S.DIALECTS)
@fuzz(100)
@given(data=st.data())
def test_translate_hostile_native_streams(dialect: str, data: st.DataObject) -> None:
    """Values of the wrong type, deep nesting, odd paths, garbled JSON."""
    body = data.draw(native_bodies(dialect, types=True))
    assert_translation_properties(body, data.draw(S.splits(body)), dialect, strict=False)


@pytest.mark.parametrize("dialect", [*S.DIALECTS, None])
@fuzz(40)
@given(data=st.data())
def test_translate_arbitrary_bytes(dialect: str | None, data: st.DataObject) -> None:
    body = data.draw(st.one_of(arbitrary_bodies, chunk_bodies()))
    assert_translation_properties(body, data.draw(S.splits(body)), dialect, strict=False)


@fuzz(120)
@given(data=st.data())
def test_auto_translator_any_stream(data: st.DataObject) -> None:
    _, body = data.draw(any_bodies())
    assert_translation_properties(body, data.draw(S.splits(body)), None, strict=False)


@pytest.mark.parametrize("to", ["chat", "anthropic", "responses"])
@fuzz(60)
@given(data=st.data())
def test_the_fast_lane_writes_what_the_slow_path_writes(to: str, data: st.DataObject) -> None:
    """``translate_body``'s fast lane (plain deltas bytes to bytes) against every event
    through the decoder, translator and encoder: the same bytes, however the input is cut."""
    kind, body = data.draw(any_bodies())
    dialect = data.draw(st.sampled_from([kind if kind in S.DIALECTS else "openai", None]))
    parts = data.draw(S.splits(body))
    try:
        slow = b"".join(translate_body(parts, dialect, to=to, fast=False))
    except Exception as exc:
        tolerate(exc)
        return
    assert b"".join(translate_body(parts, dialect, to=to)) == slow


def _trailing_error(body: bytes) -> bool:
    """translate_body turns a JSON error body after the last event into an error frame."""
    dec = SSEDecoder()
    evs = dec.feed(body) + dec.finish()
    tail = body[evs[-1].end :] if evs else body
    return error_body_message(tail) is not None


@fuzz(120)
@given(data=st.data())
def test_frame_api_matches_byte_api(data: st.DataObject) -> None:
    """translator_for / auto_translator (frames as dicts) and translate_reads give the very
    bytes translate_body writes through its byte-mode shortcuts."""
    kind, body = data.draw(any_bodies())
    dialect = data.draw(st.sampled_from([kind if kind in S.DIALECTS else "openai", None]))
    parts = data.draw(S.splits(body))
    try:
        expected = translated(parts, dialect)
        dec = SSEDecoder()
        t = translator_for(dialect) if dialect else auto_translator()
        frames = [f for p in parts for ev in dec.feed(p) for f in t.feed(ev)]
        frames += [f for ev in dec.finish() for f in t.feed(ev)]
        frames += t.finish()
        reads = [(i * 0.25, p) for i, p in enumerate(parts)]
        timed = translate_reads(reads, dialect) if dialect else None
    except Exception as exc:
        tolerate(exc)
        return
    if _trailing_error(body):
        return
    assert b"".join(serialize(f) for f in frames) == expected
    if timed is not None:
        assert b"".join(b for _, b in timed) == expected
        times = [t for t, _ in timed]
        assert times == sorted(times)
        assert set(times) <= {t for t, _ in reads}


@fuzz(60)
@given(body=st.one_of(arbitrary_bodies, chunk_bodies()), status=st.sampled_from([400, 429, 503]))
def test_translate_reads_error_status(body: bytes, status: int) -> None:
    """A non-2xx response's body (whatever it is) becomes one error frame then [DONE]."""
    for dialect in S.DIALECTS:
        out = translate_reads([(0.1, body[:7]), (0.2, body[7:])], dialect, status=status)
        assert len(out) == 1 and out[0][0] == 0.0
        result = check_bytes(out[0][1])
        assert result.frames == 2 and not [
            d for d in result.findings if d.severity is not Severity.INFO
        ], result.findings


# -- 3. model, gate, inspect -------------------------------------------------------------------


def folded(parts: list[bytes], *, keep: int | None = None, parse: bool = False) -> Reassembler:
    r = Reassembler(keep=keep, parse_arguments=parse)
    for p in parts:
        r.feed(p)
    r.finish()
    return r


def model_key(r: Reassembler) -> tuple[Any, ...]:
    choices = {i: c.to_dict() for i, c in r.choices.items()}
    return choices, r.id, r.model, r.usage, r.error, r.done


@fuzz(200)
@given(data=st.data())
def test_reassembler(data: st.DataObject) -> None:
    """Split-invariant; with ``keep`` the text is the whole text's tail; parsed arguments
    see every character."""
    _, body = data.draw(any_bodies())
    drawn = data.draw(S.splits(body))
    ref = folded([body])
    key = model_key(ref)
    for name, parts in S.all_splits(body, drawn):
        assert model_key(folded(parts)) == key, f"split {name}"
    keep = data.draw(st.integers(1, 12))
    small = folded(drawn, keep=keep, parse=True)
    assert small.choices.keys() == ref.choices.keys()
    for i, full in ref.choices.items():
        c = small.choices[i]
        for a, b in zip(full.parts, c.parts, strict=True):
            assert a.value.endswith(b.value)
            assert len(b.value) >= min(keep, len(a.value))
            assert b.total == a.total
            assert b.cut == (len(b.value) < len(a.value))
        assert (c.role, c.finish_reason) == (full.role, full.finish_reason)
        assert c.tool_calls.keys() == full.tool_calls.keys()
        for k, call in c.tool_calls.items():
            whole = full.tool_calls[k]
            assert (call.id, call.name, call.type) == (whole.id, whole.name, whole.type)
            assert whole.arguments.endswith(call.arguments)
            assert call.json is not None and call.json.size == call.size == len(whole.arguments)
            call.json.value()
            call.json.tail(3, 20)


@fuzz(150)
@given(data=st.data())
def test_content_compares_equal_to_itself(data: st.DataObject) -> None:
    """compare(x, x) == [] for any body, and for the same body cut another way."""
    kind, body = data.draw(any_bodies())
    dialect = data.draw(st.sampled_from([None, kind])) if kind in S.DIALECTS else None
    drawn = data.draw(S.splits(body))
    try:
        a = content_of([body], dialect)
        b = content_of(drawn, dialect)
    except Exception as exc:
        tolerate(exc)
        return
    for x, y in ((a, a), (a, b), (b, a)):
        assert compare(x, y) == []
        assert compare(x, y, usage=True) == []
        assert compare(x, y, prefix_only=True) == []
    assert model_key(a.model) == model_key(b.model)
    assert (a.dialect, a.frames, a.finish_at, a.done_at, a.error_at) == (
        b.dialect,
        b.frames,
        b.finish_at,
        b.done_at,
        b.error_at,
    )


#: What must never reach the screen: C0 controls but newline, DEL and C1 controls.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def screen(view: StreamView, budget: Budget) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None)
    console.print(render(view, 100, budget))
    out = buf.getvalue()
    assert isinstance(out, str)
    return out


@fuzz(200)
@given(data=st.data())
def test_stream_view_renders_printable(data: st.DataObject) -> None:
    kind, body = data.draw(any_bodies())
    parts = data.draw(S.splits(body))
    gaps = data.draw(st.lists(st.floats(0, 3), min_size=len(parts), max_size=len(parts)))
    status = data.draw(st.sampled_from([None, None, 200, 429, 500]))
    dialect = data.draw(st.sampled_from([None, kind])) if kind in S.DIALECTS else None
    try:
        view = StreamView("fuzz", dialect=dialect, status=status, stall=0.5)
        t = 0.0
        for gap, p in zip(gaps, parts, strict=True):
            t += gap
            view.feed(t, p)
            view.tick(t + 0.1)
        view.finish(
            complete=data.draw(st.booleans()),
            reason=data.draw(st.sampled_from([None, "eof", "interrupted (ctrl-c)"])),
        )
    except Exception as exc:
        tolerate(exc)
        return
    budget = data.draw(st.sampled_from([Budget(), Budget.for_height(20), Budget.for_height(60)]))
    out = screen(view, budget)
    m = CONTROL.search(out)
    assert m is None, f"{m.group()!r} reached the screen"
    model = view.model.model
    if model and model.isprintable() and "[" in model and len(model) < 20:
        assert model in out, f"model {model!r} not shown as it is (read as markup?)"


# -- 4. recordings -----------------------------------------------------------------------------

RECORDING_FILES = sorted(S.RECORDINGS.rglob("*.jsonl"))
TIMES = [b"1e400", b"1" + b"0" * 400, b"NaN", b"-Infinity", b"-1", b'"0.5"', b"true", b"null"]


@st.composite
def corrupted_recordings(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(st.sampled_from(RECORDING_FILES)).read_bytes())
    for _ in range(draw(st.integers(1, 3))):
        if not raw:
            break
        lines = bytes(raw).split(b"\n")
        op = draw(
            st.sampled_from(["truncate", "flip", "delete", "duplicate", "byte", "value", "time"])
        )
        if op == "truncate":
            raw = raw[: draw(st.integers(0, len(raw)))]
        elif op == "flip":
            i = draw(st.integers(0, len(raw) - 1))
            raw[i] ^= draw(st.integers(1, 255))
        elif op == "byte":
            i = draw(st.integers(0, len(raw) - 1))
            raw[i] = draw(st.sampled_from(b'{}[]",:0\n\\\r\x00\xff'))
        elif op in ("delete", "duplicate"):
            i = draw(st.integers(0, len(lines) - 1))
            if op == "delete":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            raw = bytearray(b"\n".join(lines))
        elif op == "time":  # a read's (or the response's) time: huge, negative, not a number
            i = draw(st.integers(0, len(lines) - 1))
            stamp = draw(st.sampled_from(TIMES))
            lines[i] = re.sub(rb'"t": [^,}]*', b'"t": ' + stamp, lines[i], count=1)
            raw = bytearray(b"\n".join(lines))
        else:  # a value of a line changed: "t", "status", "headers", "end", "text", ...
            i = draw(st.integers(0, max(0, len(lines) - 2)))
            try:
                obj = json.loads(lines[i])
            except ValueError:
                continue
            lines[i] = S.dumps(S.mutate(draw, obj, draw(st.integers(1, 2)))).encode()
            raw = bytearray(b"\n".join(lines))
    return bytes(raw)


recording_files = st.one_of(
    st.binary(max_size=300),
    st.binary(max_size=200).map(lambda b: MAGIC + b),
    corrupted_recordings(),
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "input.jsonl"


@fuzz(250)
@given(raw=recording_files)
def test_recordings_raise_only_documented_errors(scratch: Path, raw: bytes) -> None:
    """RecordingReader raises RecordingError; load and check_file raise InputError."""
    scratch.write_bytes(raw)
    try:
        with open(scratch, "rb") as fp:
            reader = RecordingReader(fp, str(scratch))
            for t, data in reader.reads():
                assert type(t) is float and type(data) is bytes
            reader.incomplete_reason()
            _ = reader.request, reader.complete
            if reader.response is not None:
                reader.response.header("content-type")
    except RecordingError:
        pass
    except Exception as exc:
        tolerate(exc)
    for call in (load, check_file):
        try:
            call(str(scratch))
        except InputError:
            pass
        except Exception as exc:
            tolerate(exc)


@fuzz(100)
@given(data=st.data())
def test_recording_round_trip(scratch: Path, data: st.DataObject) -> None:
    """Reads written as a recording read back as they were (times to the microsecond), and
    check_file on it finds what check_chunks finds in the reads, plus H codes only."""
    _, body = data.draw(any_bodies())
    parts = data.draw(S.splits(body))
    times = sorted(data.draw(st.lists(st.floats(0, 1e6), min_size=len(parts), max_size=len(parts))))
    reads = list(zip(times, parts, strict=True))
    ctype = data.draw(st.sampled_from(["text/event-stream", "text/event-stream; charset=utf-8"]))
    write_recording(scratch, reads, response=Response(200, "OK", headers=[("Content-Type", ctype)]),
                    force=True)  # fmt: skip
    with open(scratch, "rb") as fp:
        reader = RecordingReader(fp, str(scratch))
        back = list(reader.reads())
        assert reader.complete and reader.incomplete_reason() is None
    assert back == [(round(t, 6), p) for t, p in reads]
    try:
        expected = check_chunks(parts)
    except Exception as exc:
        tolerate(exc)
        return
    got = check_file(scratch)
    assert got.kind == "recording" and got.error is None
    assert [d for d in got.findings if not d.code.startswith("H")] == expected.findings
    assert not got.codes & {"H001", "H002", "H003", "H004"}
