"""``translate --to anthropic|responses|gemini``: every dialect we read into the grammars a
gateway serves at ``/v1/messages``, ``/v1/responses`` and Google's ``streamGenerateContent``.

Each output must pass ``check --grammar`` of its target with no error, and mean what its
source means: read back by the reference readers (``gate``'s content fold, compared piece by
piece) and by the target's own SDK (anthropic-python's stream accumulator, openai-python's
Responses stream state) against the source's own SDK. Over the bundled recordings and, when
present, every stream of the real-stream corpus of a dialect we read.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import openai
import pytest

from sseconform.api import check_bytes
from sseconform.gate.content import content_of
from sseconform.gate.diff import Difference, compare
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import load
from sseconform.rules.catalog import RULES, Severity
from sseconform.translate import translate_body
from tests.cli.helpers import run_cli
from tests.conftest import REAL_STREAMS, ROOT
from tests.translate.shapes import one_per_shape
from tests.translate.test_corpus import DIALECT, ROWS
from tests.translate_diff.test_differential import (  # noqa: F401  (fixtures)
    ACCUMULATOR_REFUSES,
    LOST_DELTAS,
    NO_FINISH,
    NOT_STREAMS,
    View,
    _Server,
    anthropic_view,
    chat_view,
    gemini_view,
    oai,
    responses_view,
    server,
)

TARGETS = ("anthropic", "responses", "gemini")
RECORDINGS = ROOT / "recordings"
#: What a translation may be warned about, and why: a thinking block, or a Gemini call after
#: thinking, with no signature (none can be made up: A012, V008); a call cut by the token
#: limit (A036, S072: the source's own cut); no usage at the end when the source sent none
#: (S046).
ALLOWED = frozenset({"A012", "A036", "S072", "S046", "V008"})
#: The bundled Gemini recordings (made here, with Google's framing) pass through unchanged
#: into Gemini's grammar; their chunks' usage counts are this project's, not Google's (V009,
#: V010: warnings), so a pass-through is held to no error, not to no warning.
PASSED_THROUGH = frozenset({"V009", "V010"})
#: Gemini sends a call whole or not at all: a call cut by the token limit has no place in its
#: stream (the finish, MAX_TOKENS, says the answer was cut).
CUT_CALL_DROPPED = "gemini"
#: The targets a Gemini stream is translated into (into Gemini's grammar it passes unchanged).
NOT_GEMINI = ("anthropic", "responses")
#: Not compared by meaning: streams whose own meaning is broken on purpose.
BROKEN = {"anthropic-tool-call.jsonl": "a buggy gateway's chunks (index skipped, end_turn)"}


def _recordings() -> list[Any]:
    out = []
    for path in sorted(RECORDINGS.glob("*/*.jsonl")):
        if path.parent.name == "golden":
            continue
        rec = load(str(path))
        if rec.status == 200:
            out.append(pytest.param(path, id=f"{path.parent.name}/{path.name}"))
    return out


RECS = _recordings()


def _out(body: bytes, dialect: str | None, to: str, step: int = 0) -> bytes:
    pieces = [body] if not step else [body[i : i + step] for i in range(0, len(body), step)]
    return b"".join(translate_body(pieces, dialect, to=to))


def _errors_and_warnings(body: bytes, grammar: str) -> tuple[list[str], set[str]]:
    res = check_bytes(body, grammar=grammar)
    errors = [f"{d.code} {d.message}" for d in res.findings if _sev(d.code) == "error"]
    return errors, {d.code for d in res.findings if _sev(d.code) == "warning"}


def _sev(code: str) -> str:
    return "error" if RULES[code].severity is Severity.ERROR else RULES[code].severity.value


@pytest.mark.parametrize("to", TARGETS)
@pytest.mark.parametrize("path", RECS)
def test_every_recording_checks_clean_and_means_the_same(path: Path, to: str) -> None:
    rec = load(str(path))
    out = _out(rec.body, rec.dialect, to)
    errors, warnings = _errors_and_warnings(out, to)
    assert not errors, errors
    allowed = ALLOWED | (PASSED_THROUGH if out == rec.body and to == "gemini" else frozenset())
    assert warnings <= allowed, warnings - allowed
    if path.name in BROKEN:
        return
    diffs = meaning(compare(content_of([rec.body], rec.dialect), content_of([out], to), usage=True))
    diffs = [d for d in diffs if not _cut_call(d, to, rec.body, rec.dialect)]
    assert not diffs, [(d.field, d.kind, d.message) for d in diffs]


def _cut_call(d: Difference, to: str, body: bytes, dialect: str | None) -> bool:
    """A call the source's token limit cut, which Gemini's grammar has no place for."""
    if to != CUT_CALL_DROPPED or not d.field.startswith("tool_calls[") or d.kind != "missing":
        return False
    first = content_of([body], dialect).model.choices.get(0)
    return first is not None and first.finish_reason == "length"


def _target_view(to: str, srv: _Server, client: openai.OpenAI, out: bytes) -> View:
    """The target's own SDK on a translation."""
    if to == "anthropic":
        return anthropic_view(srv, out)
    if to == "gemini":
        return gemini_view(srv, out)
    return responses_view(client, srv, out)


def meaning(diffs: list[Difference]) -> list[Difference]:
    """The differences in meaning. The reference translation carries no opaque state into
    another dialect (a Gemini call's thoughtSignature has no place in an Anthropic or
    Responses stream it writes): that shows as warnings beside tool calls, checked to be
    warnings and left out here."""
    state = [d for d in diffs if d.field.startswith("state.")]
    assert all(d.severity == "warning" and d.kind == "lost" for d in state), state
    return [d for d in diffs if d not in state]


@pytest.mark.parametrize("to", TARGETS)
@pytest.mark.parametrize("step", [1, 7])
def test_split_anywhere_the_output_is_the_same(to: str, step: int) -> None:
    for name in ("gemini/thinking-gemini.jsonl", "chat/parallel-tool-calls.jsonl"):
        rec = load(str(RECORDINGS / name))
        assert _out(rec.body, rec.dialect, to, step) == _out(rec.body, rec.dialect, to)


def test_a_source_in_the_target_s_grammar_passes_unchanged() -> None:
    for name, to in (("anthropic/thinking-anthropic.jsonl", "anthropic"),
                     ("responses/usage-responses.jsonl", "responses")):  # fmt: skip
        rec = load(str(RECORDINGS / name))
        assert _out(rec.body, rec.dialect, to) == rec.body


def test_an_upstream_error_is_each_grammar_s_error() -> None:
    rec = load(str(RECORDINGS / "anthropic" / "error-anthropic.jsonl"))
    out = _out(rec.body, "anthropic", "responses").decode()
    assert "event: error\n" in out and out.rstrip().split("\n\n")[-1].startswith(
        "event: response.failed\n"
    )
    rec = load(str(RECORDINGS / "responses" / "error-responses.jsonl"))
    out = _out(rec.body, "responses", "anthropic").decode()
    last = out.rstrip().split("\n\n")[-1]
    assert last.startswith("event: error\n") and '"type":"error"' in last
    assert "message_stop" not in out  # an error ends a Messages stream


# -- what the SDKs read ------------------------------------------------------------------------


def _source_view(rec: Any, srv: _Server, client: openai.OpenAI) -> View:
    if rec.dialect == "anthropic":
        return anthropic_view(srv, rec.body)
    if rec.dialect == "responses":
        return responses_view(client, srv, rec.body)
    if rec.dialect == "gemini":
        return gemini_view(srv, rec.body)
    return chat_view(client, srv, rec.body, "openai")


def _comparable(v: View) -> tuple[Any, ...]:
    """Anthropic has no refusal part (a refusal is text there). A stream that failed is
    compared on that alone: what a client keeps of the partial answer is its own (the
    Anthropic SDK keeps a snapshot, openai-python's Responses stream raises at the error)."""
    if v.error is not None:
        return ("failed",)
    # a call cut by the token limit: each SDK keeps its own guess at the arguments (the
    # Anthropic SDK repairs partial JSON, openai-python keeps the text), so names only
    tools = [name for name, _ in v.tools] if v.finish == "length" else v.tools
    return (v.text + v.refusal, v.reasoning, tools, v.finish)


#: google-genai refuses the bundled Gemini recordings (their thought signatures are made up,
#: not base64): they are compared by meaning above, as every real Gemini stream is below.
SDK_SOURCES = [
    p for p in RECS if p.values[0].name not in BROKEN and p.values[0].parent.name != "gemini"
]


@pytest.mark.parametrize("to", TARGETS)
@pytest.mark.parametrize("path", SDK_SOURCES)
def test_the_target_s_sdk_reads_what_the_source_s_sdk_reads(
    path: Path,
    to: str,
    server: _Server,  # noqa: F811  (the differential tests' loopback server)
    oai: openai.OpenAI,  # noqa: F811
) -> None:
    rec = load(str(path))
    out = _out(rec.body, rec.dialect, to)
    want = _source_view(rec, server, oai)
    got = _target_view(to, server, oai, out)
    if to == CUT_CALL_DROPPED and want.finish == "length":
        want = replace(want, tools=[])  # the cut call has no place in a Gemini stream
    assert _comparable(got) == _comparable(want), (got, want)


#: OpenRouter's two ways of failing a chat stream that other chunks' readers miss: an `error`
#: on a chunk that also has choices, and such a chunk after the finish chunk. openai-python
#: raises on any truthy `error`, so both are failures, in every target.
def _chunk(choice: dict[str, Any], **extra: Any) -> str:
    head = {"id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return "data: " + json.dumps({**head, "choices": [{"index": 0, **choice}], **extra}) + "\n\n"


_FAILED = {"message": "Provider returned error", "code": 502}
_HEL = _chunk({"delta": {"role": "assistant", "content": "Hel"}})
CHAT_ERRORS = {
    "error-on-a-chunk-with-choices": _HEL
    + _chunk({"delta": {"content": ""}, "finish_reason": "error"}, error=_FAILED)
    + "data: [DONE]\n\n",
    "error-after-the-finish-chunk": _HEL
    + _chunk({"delta": {}, "finish_reason": "stop"})
    + _chunk({"delta": {}, "finish_reason": "error"}, error=_FAILED)
    + "data: [DONE]\n\n",
}


@pytest.mark.parametrize("to", ["chat", *TARGETS])
@pytest.mark.parametrize("name", sorted(CHAT_ERRORS))
def test_a_chat_error_with_choices_or_after_the_finish_is_each_grammar_s_error(
    name: str,
    to: str,
    server: _Server,  # noqa: F811
    oai: openai.OpenAI,  # noqa: F811
) -> None:
    body = CHAT_ERRORS[name].encode()
    want = chat_view(oai, server, body, "openai")
    assert want.error is not None  # the source's SDK raises: the stream failed
    out = _out(body, "openai", to)
    assert _errors_and_warnings(out, to)[0] == [], out
    if to == "chat":
        got = chat_view(oai, server, out, "openai")
    elif to == "anthropic":
        got = anthropic_view(server, out)
        assert b"message_stop" not in out  # an error ends a Messages stream
    elif to == "gemini":
        got = gemini_view(server, out)
        assert b"finishReason" not in out  # an error chunk ends a Gemini stream
    else:
        got = responses_view(oai, server, out)
        assert b"event: response.completed" not in out
    assert _comparable(got) == ("failed",), (got, out)


# -- the command line ---------------------------------------------------------------------------


def test_cli_recording_in_recording_out(tmp_path: Path) -> None:
    src = RECORDINGS / "gemini" / "tool-call-gemini.jsonl"
    r = run_cli("translate", src, "--to", "anthropic", "-o", "out.jsonl", cwd=tmp_path)
    assert r.code == 0, r.both
    with open(tmp_path / "out.jsonl", "rb") as fp:
        reader = RecordingReader(fp, "out.jsonl")
        reads = list(reader.reads())
    assert reader.header["translated_to"] == "anthropic"
    times = [t for t, _ in reads]
    assert times == sorted(times) and times[0] > 0  # the source's timing is kept
    assert run_cli("check", "--grammar", "anthropic", "out.jsonl", cwd=tmp_path).code == 0
    again = run_cli("translate", src, "--to", "anthropic", "-o", "out.jsonl", cwd=tmp_path)
    assert again.code == 2 and "exists" in again.err  # nothing is overwritten silently


def test_cli_raw_body_and_a_bad_target(tmp_path: Path) -> None:
    rec = load(str(RECORDINGS / "responses" / "tool-call-responses.jsonl"))
    (tmp_path / "in.sse").write_bytes(rec.body)
    r = run_cli("translate", "in.sse", "--to", "anthropic", cwd=tmp_path)
    assert r.code == 0 and r.out.startswith("event: message_start\n"), r.both
    r = run_cli("translate", "in.sse", "--to", "grpc", cwd=tmp_path)
    assert r.code == 2 and "--to 'grpc'" in r.err and "Traceback" not in r.err


# -- the real-stream corpus ---------------------------------------------------------------------

_VERCEL_GEMINI = (
    "the Vercel AI Gateway's Gemini usage counts reasoning outside completion_tokens; the "
    "translation reads usage under OpenAI's definition (reasoning within), as U004 does"
)
#: (target, stream) -> why its meaning differs: the choices these grammars force.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    **{
        (to, f"openai/{name}__openai-python.sse"): (
            "Anthropic and Gemini have no refusal part: a refusal is text there"
        )
        for to in ("anthropic", "gemini")
        for name in ("parse-pydantic-model-refusal", "refusal-logprobs-events")
    },
    (CUT_CALL_DROPPED, "_edited/anthropic/spliced-message-start__vercel-ai.sse"): (
        "the stream fails mid-call: Gemini sends a call whole, so a call the error cut off "
        "never reaches the client"
    ),
    **{
        (to, "openai/parse-pydantic-model-multiple-choices__openai-python.sse"): (
            "a Messages or Responses stream holds one answer: choices past the first are left out"
        )
        for to in TARGETS
    },
    **{
        (to, f"vercel-ai-gateway/vercel{name}__fantasy.sse"): _VERCEL_GEMINI
        for to in TARGETS
        for name in (
            "common-gemini-2.5-flash-multi-tool-streaming-turn1",
            "common-gemini-2.5-flash-simple-streaming",
            "common-gemini-2.5-flash-tool-streaming-turn1",
            "common-gemini-3-pro-preview-multi-tool-streaming-turn1",
            "common-gemini-3-pro-preview-multi-tool-streaming-turn2",
            "common-gemini-3-pro-preview-simple-streaming",
            "common-gemini-3-pro-preview-tool-streaming-turn1",
            "thinking-gemini-3-pro-preview-thinking-streaming-turn1",
            "thinking-gemini-3-pro-preview-thinking-streaming-turn2",
        )
    },
    **{
        (
            to,
            "_edited/vertex-gemini/firebase-vertexai-streaming-failure-error-mid-stream"
            "__firebase-vertexai-test-data.sse",
        ): (
            "an error after the last candidate: in these grammars an error ends the stream "
            "with no stop reason"
        )
        for to in NOT_GEMINI
    },
}


@pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")
@pytest.mark.parametrize("to", TARGETS)
def test_real_streams_translate_into_every_target(to: str) -> None:
    """Every real stream of a dialect we read: no check error in the output, and the same
    meaning (the figures are printed; a stream that differs is named with the reason)."""
    tried, equal, invalid, differing, failing = 0, 0, [], [], []
    for row in ROWS:
        body = (REAL_STREAMS / row["path"]).read_bytes()
        if not body.endswith(b"\n\n"):
            body = body.rstrip(b"\r\n") + b"\n\n"  # a capture's last event, terminated
        dialect = DIALECT[row["api"]]
        out = _out(body, dialect, to)
        tried += 1
        if dialect == to and _errors_and_warnings(body, to)[0]:
            # passed through as it is: a stream its own grammar refuses (an edited fixture,
            # a capture with events or ids removed) stays what it is
            invalid.append(row["path"])
            continue
        errors, _ = _errors_and_warnings(out, to)
        if errors:
            failing.append(f"{row['path']}: {errors[0]}")
            continue
        diffs = meaning(compare(content_of([body], dialect), content_of([out], to), usage=True))
        diffs = [d for d in diffs if not _cut_call(d, to, body, dialect)]
        if diffs:
            differing.append(row["path"])
            if (to, row["path"]) not in KNOWN_DIFFERENCES:
                failing.append(f"{row['path']}: {diffs[0].field} {diffs[0].kind}")
        else:
            equal += 1
    figures = {"to": to, "tried": tried, "equal": equal, "invalid source": len(invalid)}
    print(json.dumps({**figures, "differing (known)": len(differing)}))
    assert not failing, "\n".join(failing)
    stale = {p for t, p in KNOWN_DIFFERENCES if t == to} - set(differing)
    assert not stale, f"no longer differ: drop them from KNOWN_DIFFERENCES: {sorted(stale)}"


# -- the real-stream corpus, as the SDKs read it ----------------------------------------------

#: The source's SDK refuses these streams, so there is nothing to compare with.
SOURCE_SDK_REFUSES = {
    **ACCUMULATOR_REFUSES,
    "openai/parse-pydantic-model-multiple-choices__openai-python.sse": (
        "two choices: the chat view reads one answer, as a Messages or Responses stream holds"
    ),
}
_EA = "_edited/anthropic/"
_VX = "_edited/vertex-gemini/firebase-vertexai-streaming-"
_FB = "__firebase-vertexai-test-data.sse"
#: (target, stream) -> why the target's SDK reads something else than the source's SDK.
SDK_KNOWN: dict[tuple[str, str], str] = {
    **{
        (to, f"{_EA}spliced-message-start__vercel-ai.sse"): (
            "a second message starts mid-call: the anthropic SDK splices both into one message; "
            "the translation ends in an error, as after any first delta"
        )
        for to in ("responses", "gemini")
    },
    **{
        (to, "openai/phase.1__vercel-ai.sse"): f"{LOST_DELTAS} (the capture kept 4 of the deltas)"
        for to in ("anthropic", "gemini")
    },
    **{
        (to, "_edited/openai/shell-container.1__vercel-ai.sse"): (
            f"{LOST_DELTAS} (a hand-made fixture's deltas say less than its output_text.done)"
        )
        for to in ("anthropic", "gemini")
    },
    **{
        (to, f"{_VX}{name}{_FB}"): why
        for to in NOT_GEMINI
        for name, why in (
            ("failure-empty-content", NO_FINISH),
            ("success-quotes-escaped", NO_FINISH),
            *((n, NOT_STREAMS[f"{_VX}{n}{_FB}"]) for n in ("failure-invalid-json",)),
            *((n, NOT_STREAMS[f"{_VX}{n}{_FB}"]) for n in ("failure-malformed-content",)),
        )
    },
}


#: The source SDK's view of each stream, read once for both targets.
_SOURCE_VIEWS: dict[str, View] = {}


@functools.cache
def _sdk_streams() -> list[tuple[str, bytes, str]]:
    """``(path, body, dialect)`` of the real streams read through the SDKs, each body with its
    last event terminated: one per shape, and those :data:`SDK_KNOWN` names."""
    streams = []
    for row in ROWS:
        body = (REAL_STREAMS / row["path"]).read_bytes()
        if not body.endswith(b"\n\n"):
            body = body.rstrip(b"\r\n") + b"\n\n"
        streams.append((row["path"], body, DIALECT[row["api"]]))
    chosen = one_per_shape(streams, keep={path for _, path in SDK_KNOWN})
    return [stream for stream in streams if stream[0] in chosen]


@pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")
@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic chatter on unknown tool types
@pytest.mark.parametrize("to", TARGETS)
def test_real_streams_the_target_s_sdk_reads_what_the_source_s_sdk_reads(
    to: str,
    server: _Server,  # noqa: F811
    oai: openai.OpenAI,  # noqa: F811
) -> None:
    """The real streams of a dialect we read, through real SDK code over loopback HTTP: the
    source's own SDK on the source, the target's SDK (anthropic-python's accumulator,
    openai-python's Responses stream state) on the translation. Figures are printed.

    One stream of each shape (:mod:`tests.translate.shapes`: the event kinds, endings and
    content keys it exercises) and every stream :data:`SDK_KNOWN` names: a third of the corpus
    and of the minute the whole corpus costs. Every stream's translation is still checked and
    compared by meaning with the reference readers
    (:func:`test_real_streams_translate_into_every_target`); ``SSECONFORM_TESTS_FULL=1`` reads
    every stream through the SDKs too."""

    class _Rec:
        def __init__(self, body: bytes, dialect: str) -> None:
            self.body, self.dialect = body, dialect

    tried, equal, refused, differing, failing = 0, 0, 0, [], []
    for path, body, dialect in _sdk_streams():
        tried += 1
        if path in SOURCE_SDK_REFUSES:
            refused += 1
            continue
        want = _SOURCE_VIEWS.get(path) or _source_view(_Rec(body, dialect), server, oai)
        _SOURCE_VIEWS[path] = want
        out = _out(body, dialect, to)
        got = _target_view(to, server, oai, out)
        if to == CUT_CALL_DROPPED and want.finish == "length":
            want = replace(want, tools=[])  # the cut call has no place in a Gemini stream
        if _comparable(got) == _comparable(want):
            equal += 1
            continue
        differing.append(path)
        if (to, path) not in SDK_KNOWN:
            failing.append(f"{path}: {_comparable(want)!r:.200} != {_comparable(got)!r:.200}")
    print(
        json.dumps(
            {
                "to": to,
                "tried": tried,
                "equal": equal,
                "source SDK refuses": refused,
                "differing (known)": len(differing) - len(failing),
            }
        )
    )
    assert not failing, "\n".join(failing)
    stale = {p for t, p in SDK_KNOWN if t == to} - set(differing)
    assert not stale, f"no longer differ: drop them from SDK_KNOWN: {sorted(stale)}"
