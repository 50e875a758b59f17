"""Bugs the fuzz tests found, each pinned by its minimal input.

All of them were fixed in 75a3b20 ("Fixes from fuzzing"); each test now guards its fix, and its
``found`` note says what the bug was. A bug found later and not fixed yet goes here as a strict
xfail (:func:`open_bug`), with an entry in ``known_bugs.py`` so the properties step over it
until the fix; when the fix lands the xfail fails the run: make it a ``found`` test and drop the
``known_bugs`` entry.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from rich.console import Console

from sseconform.api import check_bytes, check_file
from sseconform.errors import InputError
from sseconform.gate.content import content_of
from sseconform.inspect.render import render
from sseconform.inspect.state import StreamView
from sseconform.recording.format import RecordingError, RecordingReader
from sseconform.replay.plan import load
from sseconform.rules.catalog import Severity
from sseconform.translate import translate_body

F = TypeVar("F", bound=Callable[..., object])


def found(note: str) -> Callable[[F], F]:
    """A bug the fuzz tests found, now fixed: ``note`` says what it was (kept as the doc)."""

    def mark(fn: F) -> F:
        fn.__doc__ = note
        return fn

    return mark


def open_bug(reason: str) -> pytest.MarkDecorator:
    """A bug found and not fixed yet: the test states what should happen."""
    return pytest.mark.xfail(strict=True, reason=f"BUG: {reason}")


def sse(*datas: bytes, names: tuple[str | None, ...] = ()) -> bytes:
    out = b""
    for i, data in enumerate(datas):
        name = names[i] if i < len(names) else None
        head = b"event: " + name.encode() + b"\n" if name else b""
        out += head + b"data: " + data + b"\n\n"
    return out


def translate(body: bytes, dialect: str | None) -> bytes:
    return b"".join(translate_body([body], dialect))


def assert_grammar(out: bytes) -> None:
    """A translation ends with [DONE] and check finds no error in it."""
    assert out.endswith(b"data: [DONE]\n\n"), out[-200:]
    assert not error_codes(out), error_codes(out)


def error_codes(out: bytes) -> set[tuple[str, str]]:
    return {(d.code, d.pointer) for d in check_bytes(out).findings if d.severity is Severity.ERROR}


def screen(body: bytes) -> str:
    view = StreamView("fuzz")
    view.feed(0.0, body)
    view.finish()
    buf = io.StringIO()
    console = Console(file=buf, width=100, color_system=None)
    console.print(render(view, 100))
    out = buf.getvalue()
    assert isinstance(out, str)
    return out


def chunk(delta: bytes, finish: bytes = b"null") -> bytes:
    return (
        b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":' + delta + b',"finish_reason":' + finish + b"}]}"
    )


# -- the checker --------------------------------------------------------------------------------


@found(
    "B1: a frame that fails its schema and holds a value nested ~255 deep makes "
    "check_bytes raise ValueError('Recursion limit reached') from jsonschema-rs iter_errors "
    "(rules/schema.py violations); is_valid copes, collecting the errors does not. Expected: "
    "a J003 diagnostic, as for a shallow one"
)
def test_b1_deep_value_in_a_schema_violation() -> None:
    body = b'data: {"choices":' + b"[" * 300 + b"]" * 300 + b"}\n\n"
    assert "J003" in check_bytes(body).codes


# -- translators: crashes -----------------------------------------------------------------------

G_CALL = b'{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true,'


@found(
    "B2: a Gemini partialArgs record whose jsonPath ArgsBuilder cannot parse ('a', '', "
    "'$..a', '$.a[x]', '$.\u00e9') or that names the root ('$') raises ValueError out of "
    "GeminiTranslator.feed and translate_body. Expected: no exception (the record skipped, "
    "or the call failed with an error frame)"
)
@pytest.mark.parametrize("path", [b"a", b"$", b"$..a", b"$.\xc3\xa9"])
def test_b2_gemini_partial_args_odd_path(path: bytes) -> None:
    body = sse(G_CALL + b'"partialArgs":[{"jsonPath":"' + path + b'","nullValue":null}]}}]}}]}')
    assert_grammar(translate(body, "gemini"))


WRONG_TYPES = [
    # (dialect, data line, what it raised before the fix)
    ("anthropic", b'{"type":"content_block_delta","index":0,"delta":[1]}', "AttributeError"),
    ("anthropic", b'{"type":"content_block_delta","index":[0],"delta":{}}', "TypeError unhashable"),
    ("anthropic", b'{"type":"content_block_start","index":[0],"content_block":{}}', "TypeError"),
    ("anthropic", b'{"type":"message_start","message":[1]}', "AttributeError"),
    ("anthropic", b'{"type":"message_delta","usage":[1]}', "AttributeError"),
    ("anthropic", b'{"type":"message_delta","delta":"x"}', "AttributeError"),
    ("anthropic", b'{"type":"error","error":"boom"}', "AttributeError"),
    ("gemini", b'{"candidates":[{"content":[1]}]}', "AttributeError"),
    ("gemini", b'{"candidates":[{"index":null}]}', "TypeError int(None)"),
    ("gemini", b'{"candidates":5}', "TypeError not iterable"),
    ("gemini", b'{"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":"2"}}', "TypeError"),
    ("gemini", b'{"usageMetadata":{"promptTokenCount":"1"}}', "TypeError in Emitter.set_usage"),
    ("responses", b'{"type":"response.created","response":[1]}', "AttributeError"),
    ("responses", b'{"type":"response.output_item.added","item":[1]}', "AttributeError"),
    ("responses", b'{"type":"response.incomplete","response":{"incomplete_details":"x"}}', "AE"),
    ("responses", b'{"type":"response.completed","response":{"usage":{"input_tokens":"1"}}}', "TE"),
    ("openai", b'{"choices":[{"index":0,"delta":{"tool_calls":5}}]}', "TypeError not iterable"),
    ("openai", b'{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":"2"}}', "TypeError"),
    ("openai", b'{"created":"x","choices":[{"index":0,"delta":{"content":"a"}}]}', "ValueError"),
    ("responses", b'{"type":"response.created","response":{"created_at":[1]}}', "TypeError"),
]


@found(
    "B3-B7: the translators assume every field has the JSON type a provider documents; a "
    "field of another type (an object that is a list or string, an index that is a list or "
    "null, token counts or created that are strings) raises AttributeError/TypeError/"
    "ValueError out of translate_body (anthropic.py, gemini.py, responses.py, openai.py, and "
    "Emitter.head/set_usage in base.py). Expected: the value ignored, no exception"
)
@pytest.mark.parametrize(("dialect", "data", "raises"), WRONG_TYPES)
def test_b3_b7_translators_and_wrong_types(dialect: str, data: bytes, raises: str) -> None:
    assert_grammar(translate(sse(data), dialect))


DEEP = b"[" * 1000 + b"]" * 1000


@found(
    "B3/B4: a tool input or args nested 1000 deep (orjson parses up to 1024) makes "
    "json.dumps raise RecursionError (anthropic.py _block_start, gemini.py _part). Expected: "
    "no exception"
)
@pytest.mark.parametrize(
    ("dialect", "data"),
    [
        (
            "anthropic",
            b'{"type":"content_block_start","index":0,"content_block":'
            b'{"type":"tool_use","id":"t","name":"f","input":' + DEEP + b"}}",
        ),
        ("gemini", b'{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":'
         + DEEP + b"}}]}}]}"),
    ],
)  # fmt: skip
def test_b3_b4_deep_arguments(dialect: str, data: bytes) -> None:
    assert_grammar(translate(sse(data), dialect))


@found(
    "B7: an upstream error code nested 300 deep is copied into the error frame, and "
    "serialize (orjson.dumps, depth limit 254) raises TypeError('Recursion limit reached') "
    "out of translate_body. Expected: no exception (and a string/integer code, see B11)"
)
def test_b7_deep_error_code() -> None:
    data = b'{"error":{"message":"m","code":' + b"[" * 300 + b"]" * 300 + b"}}"
    assert_grammar(translate(sse(data), "openai"))


@found(
    "B8: detect_event calls obj.get('object', '').startswith(...) on whatever `object` is: "
    'data {"object":5} raises AttributeError out of auto-detection (translate_body with no '
    "dialect, content_of, StreamView). Expected: not detected, no exception"
)
@pytest.mark.parametrize("where", ["translate_body", "content_of", "StreamView"])
def test_b8_detect_object_not_a_string(where: str) -> None:
    body = sse(b'{"object":5}')
    if where == "translate_body":
        assert_grammar(translate(body, None))
    elif where == "content_of":
        content_of([body])
    else:
        view = StreamView("fuzz")
        view.feed(0.0, body)
        view.finish()


# -- translators: output that is not grammar chunks ---------------------------------------------


@found(
    "B9: Emitter.head copies the upstream's id, model and created unchecked, so a model 5, "
    "an id 5 or a created -5 go into every translated chunk: check reports J003 at /model, "
    "/id, /created. Expected: translated chunks always pass the schema"
)
@pytest.mark.parametrize(
    ("dialect", "data"),
    [
        ("openai", b'{"model":5,"choices":[{"index":0,"delta":{"content":"a"},'
         b'"finish_reason":"stop"}]}'),
        ("openai", b'{"created":-5,"choices":[{"index":0,"delta":{"content":"a"},'
         b'"finish_reason":"stop"}]}'),
        ("anthropic", b'{"type":"message_start","message":{"id":5,"model":"m"}}'),
        ("gemini", b'{"modelVersion":[1],"candidates":[{"content":{"parts":[{"text":"a"}]},'
         b'"finishReason":"STOP"}]}'),
    ],
)  # fmt: skip
def test_b9_head_values_copied_unchecked(dialect: str, data: bytes) -> None:
    body = sse(data) + (sse(b'{"type":"message_stop"}') if dialect == "anthropic" else b"")
    codes = {code for code, _ in error_codes(translate(body, dialect))}
    assert not {c for c in codes if c.startswith("J")}, codes


@found(
    "B10: a negative choice index (OpenAI translator) is used as is: the translation has "
    "chunks with choices[0].index -1 (J003 at /choices/0/index). Expected: grammar chunks"
)
def test_b10_negative_choice_index() -> None:
    body = sse(b'{"choices":[{"index":-1,"delta":{"content":"a"},"finish_reason":"stop"}]}')
    body += sse(b"[DONE]")
    assert not error_codes(translate(body, "openai"))


@found(
    "B11: an upstream error's type and code are copied as they are: an error type 5 "
    "(OpenAI's error.type, Gemini's error.status, Anthropic's error.type) makes an error "
    "frame check rejects (E001 at /error/type). Expected: a string or null type"
)
@pytest.mark.parametrize(
    ("dialect", "data"),
    [
        ("openai", b'{"error":{"message":"m","type":5}}'),
        ("gemini", b'{"error":{"message":"m","status":5}}'),
        ("anthropic", b'{"type":"error","error":{"message":"m","type":5}}'),
    ],
)
def test_b11_error_type_copied(dialect: str, data: bytes) -> None:
    assert not error_codes(translate(sse(data), dialect))


@found(
    "B13: the Emitter fills every choice below a new choice index with a role chunk, so a "
    "90-byte chunk with choices[0].index 5000 translates to 5000+ chunks (index 10**12 "
    "hangs translate_body and any view of it; Gemini's candidate index likewise). Expected: "
    "output that does not grow with the index value"
)
def test_b13_choice_index_amplification() -> None:
    body = sse(b'{"choices":[{"index":5000,"delta":{"content":"a"},"finish_reason":"stop"}]}')
    out = translate(body + sse(b"[DONE]"), "openai")
    assert out.count(b"\n\n") < 50


@found(
    "B14: the Responses translator handles events held for ordering after "
    "response.completed: a function_call item numbered after it is sent after [DONE] "
    "(check: D002). Expected: nothing after [DONE]"
)
def test_b14_responses_chunk_after_done() -> None:
    body = sse(
        b'{"type":"response.output_item.added","sequence_number":1,"output_index":0,'
        b'"item":{"type":"function_call","call_id":"c","name":"f"}}',
        b'{"type":"response.completed","sequence_number":0,"response":{}}',
    )
    out = translate(body, "responses")
    assert out.endswith(b"data: [DONE]\n\n")
    assert not error_codes(out)


@found(
    "B15: the Emitter's model is only 'first wins' once non-empty: chunks sent before the "
    "upstream names its model carry model '' and later ones the name (check: R003, model "
    "changed after content) -- an OpenAI chunk without model then one with, or Anthropic "
    "content before message_start. Expected: one model for the whole translation"
)
@pytest.mark.parametrize(
    ("dialect", "body"),
    [
        (
            "openai",
            sse(
                b'{"choices":[{"index":0,"delta":{"content":"a"}}]}',
                b'{"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
                b"[DONE]",
            ),
        ),
        (
            "anthropic",
            sse(
                b'{"type":"content_block_start","index":0,"content_block":{"type":"text",'
                b'"text":"hi"}}',
                b'{"type":"message_start","message":{"id":"msg_1","model":"claude"}}',
                b'{"type":"message_stop"}',
            ),
        ),
    ],
)
def test_b15_model_changes_mid_translation(dialect: str, body: bytes) -> None:
    assert not error_codes(translate(body, dialect))


@found(
    "B16: finish_reason tool_calls is sent for a choice that made no call (Anthropic "
    "stop_reason tool_use with no tool_use block; an OpenAI finish_reason tool_calls with no "
    "call): check reports F008. The Emitter turns stop into tool_calls when calls were made, "
    "but not the reverse. Expected: 'stop'"
)
@pytest.mark.parametrize(
    ("dialect", "body"),
    [
        (
            "anthropic",
            sse(
                b'{"type":"message_start","message":{"id":"msg_1","model":"claude"}}',
                b'{"type":"message_delta","delta":{"stop_reason":"tool_use"}}',
                b'{"type":"message_stop"}',
            ),
        ),
        (
            "openai",
            sse(
                b'{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"tool_calls"}]}',
                b"[DONE]",
            ),
        ),
    ],
)
def test_b16_tool_calls_finish_without_calls(dialect: str, body: bytes) -> None:
    assert not error_codes(translate(body, dialect))


@found(
    "B17: a call head is sent with an empty id or name when the upstream gave none "
    "(Anthropic tool_use without id: T001; OpenAI arguments whose head never came: T002); "
    "Gemini gets a stable_id for the same case. Expected: heads that pass check"
)
@pytest.mark.parametrize(
    ("dialect", "body"),
    [
        (
            "anthropic",
            sse(
                b'{"type":"message_start","message":{"id":"msg_1","model":"claude"}}',
                b'{"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
                b'"name":"f","input":{}}}',
                b'{"type":"content_block_stop","index":0}',
                b'{"type":"message_stop"}',
            ),
        ),
        (
            "openai",
            sse(
                b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
                b'{"arguments":"{}"}}]}}]}',
                b'{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
                b"[DONE]",
            ),
        ),
    ],
)
def test_b17_call_head_without_id_or_name(dialect: str, body: bytes) -> None:
    assert not error_codes(translate(body, dialect))


@found(
    "B18: a repeated Anthropic content_block_start for the same tool_use block opens a "
    "second call with the same id at the next index (check: I004, call moved index). "
    "Expected: one call"
)
def test_b18_repeated_tool_use_block() -> None:
    start = (
        b'{"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
        b'"id":"t1","name":"f","input":{}}}'
    )
    body = sse(
        b'{"type":"message_start","message":{"id":"msg_1","model":"claude"}}',
        start,
        start,
        b'{"type":"content_block_stop","index":0}',
        b'{"type":"message_stop"}',
    )
    assert not error_codes(translate(body, "anthropic"))


# -- recordings ---------------------------------------------------------------------------------


@found(
    'B12: a read line (or the response line) whose "t" is an integer of 400 digits made '
    "float(t) raise OverflowError out of RecordingReader.reads, replay's load and check_file, "
    "which document RecordingError / InputError only. Now: RecordingError, InputError, and "
    "check_file reports the damaged line as H004"
)
@pytest.mark.parametrize("where", ["reader", "load", "check_file"])
def test_b12_recording_time_overflows(tmp_path: Path, where: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"format": "sseconform-recording", "version": 1}\n'
        b'{"t": 1' + b"0" * 400 + b', "text": "data: x\\n\\n"}\n'
    )
    if where == "reader":
        with open(path, "rb") as fp, pytest.raises(RecordingError):
            list(RecordingReader(fp, str(path)).reads())
    elif where == "load":
        with pytest.raises(InputError):
            load(str(path))
    else:
        assert "H004" in check_file(path).codes


# -- the inspect view ---------------------------------------------------------------------------


@found(
    "B19: StreamView (the inspect live view) raises TypeError on a chunk whose `choices` is "
    "a number: _carries_token iterates `obj.get('choices') or ()` (check and the Reassembler "
    "cope). Expected: the chunk shown, no exception"
)
def test_b19_stream_view_choices_not_a_list() -> None:
    view = StreamView("fuzz")
    view.feed(0.0, sse(b'{"choices":1}'))
    view.finish()


@found(
    "R1: text from the wire reaches rich as markup: content '[/x]' puts \"content '[/x]'\" "
    "in the event log's str cell (also diagnostic messages, native event names, finish "
    "reasons in pane titles), and printing the view raises rich.errors.MarkupError -- "
    "`sseconform inspect` dies on any stream whose text has a closing tag like [/INST]. "
    "Expected: the text shown literally"
)
def test_r1_markup_closing_tag_in_content() -> None:
    out = screen(sse(chunk(b'{"role":"assistant","content":"[/INST]"}')))
    assert "[/INST]" in out


@found(
    "R2: the same markup path lets stream text style the screen or add hyperlinks: content "
    "'[link=http://evil.example]x[/link]' is consumed as markup (on a terminal, an OSC 8 "
    "escape sequence is written). Expected: the text shown literally"
)
def test_r2_markup_injection_in_content() -> None:
    out = screen(sse(chunk(b'{"role":"assistant","content":"[link=http://evil.example]x"}')))
    log = [line for line in out.splitlines() if "role assistant" in line]
    assert log and "content '[link=http://evil.example]x'" in log[0], log  # was: content 'x'


@found(
    "R3: finish_reason is drawn without printable(): in the header (finish_state), the text "
    "pane's title and the event log, so an ESC from the wire reaches the terminal. Expected: "
    "no C0 control but newline on the screen"
)
def test_r3_finish_reason_escape_reaches_screen() -> None:
    out = screen(sse(chunk(b"{}", b'"\\u001b[2J\\u0007"')))
    assert "\x1b" not in out and "\x07" not in out


@found(
    "R4: summarize() writes a delta's role (and usage values, and a choice's index) "
    "without printable(): a role '\\u001b[31m' reaches the terminal in the event log. "
    "Expected: no C0 control but newline on the screen"
)
def test_r4_role_escape_reaches_screen() -> None:
    out = screen(sse(chunk(b'{"role":"\\u001b[31m","content":"a"}')))
    assert "\x1b" not in out
