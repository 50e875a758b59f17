"""The scenario recordings under ``recordings/`` and their golden translations.

``make_recordings.py`` writes ``recordings/<dialect>/<scenario>-<dialect>.jsonl`` and
``recordings/golden/<dialect>/<scenario>-<dialect>.sse`` (``sseconform translate
--include-usage``). Here: a re-run writes the same recordings; translating each recording (the
command line, and the library fed read by read or one byte at a time) gives exactly its golden
file; each golden passes ``check`` and means what its scenario says; and a recording translated
to a recording keeps, per chunk, the arrival time of the native event it came from.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sseconform import Severity, check_bytes, check_file, providers
from sseconform.cli.main import app
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import load
from sseconform.sse import SSEDecoder
from sseconform.translate import serialize, translator_for
from sseconform.wires.reassemble import reassemble
from tests.conftest import ROOT
from tests.translate import make_recordings

RECORDINGS = ROOT / "recordings"
GOLDEN = RECORDINGS / "golden"
PAIRS = sorted((RECORDINGS / g.parent.name / f"{g.stem}.jsonl", g) for g in GOLDEN.glob("*/*.sse"))
IDS = [f"{r.parent.name}/{r.stem}" for r, _ in PAIRS]


def _load(path: Path) -> tuple[RecordingReader, list[tuple[float, bytes]]]:
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path))
        return reader, list(reader.reads())


def _cli(*args: str | Path) -> bytes:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def test_make_recordings_is_reproducible(tmp_path: Path) -> None:
    """A re-run of the generator writes exactly the committed recordings, and every recording
    has its golden translation."""
    written = make_recordings.main(tmp_path, golden=False)
    assert len(written) == 40
    for path in written:
        committed = RECORDINGS / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), f"regenerate {committed}"
    assert sorted(RECORDINGS / p.relative_to(tmp_path) for p in written) == [r for r, _ in PAIRS]


def test_names_are_unique_across_folders() -> None:
    """``replay`` serves recordings by file name: two with one name cannot be served."""
    names = [p.name for p in RECORDINGS.glob("*/*.jsonl")]
    assert len(names) == len(set(names))


# -- golden files ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("recording", "golden"), PAIRS, ids=IDS)
def test_cli_translation_is_the_golden(recording: Path, golden: Path) -> None:
    assert _cli("translate", "--include-usage", recording) == golden.read_bytes()


@pytest.mark.parametrize(("recording", "golden"), PAIRS, ids=IDS)
def test_library_translation_is_the_golden(recording: Path, golden: Path) -> None:
    """The translator fed the recorded reads as they arrived, then one byte at a time."""
    reader, reads = _load(recording)
    body = b"".join(data for _, data in reads)
    req = reader.request or {}
    dialect = providers.detect(body, req.get("url"))
    assert dialect == recording.parent.name
    stamp = int(datetime.fromisoformat(str(reader.header["created"])).timestamp())
    for pieces in ([data for _, data in reads], [body[i : i + 1] for i in range(len(body))]):
        t = translator_for(dialect, include_usage=True, created=stamp)
        dec = SSEDecoder()
        frames = [f for piece in pieces for ev in dec.feed(piece) for f in t.feed(ev)]
        frames += [f for ev in dec.finish() for f in t.feed(ev)] + t.finish()
        assert b"".join(serialize(f) for f in frames) == golden.read_bytes()


def _scenario(golden: Path) -> str:
    return golden.stem.rsplit("-", 1)[0]


# What each scenario's translation must mean: finish reason (None: an error frame ends it),
# number of tool calls, and what else it carries.
EXPECTED: dict[str, tuple[str | None, int]] = {
    "text": ("stop", 0),
    "tool-call": ("tool_calls", 1),
    "parallel-calls": ("tool_calls", 2),
    "calls-one-per-chunk": ("tool_calls", 2),
    "text-then-call": ("tool_calls", 1),
    "thinking": ("stop", 0),
    "usage": ("stop", 0),
    "max-tokens": ("length", 0),
    "max-tokens-call": ("length", 1),
    "safety": ("content_filter", 0),
    "error": (None, 0),
    "streamed-args": ("tool_calls", 1),
    "azure-tool-call": ("tool_calls", 1),
    "openrouter-reasoning": ("stop", 0),
    "mistral-parallel-calls": ("tool_calls", 2),
    "groq-error": (None, 0),
    "agent-loop": ("tool_calls", 1),
    "agent-answer": ("stop", 0),
}


@pytest.mark.parametrize(("recording", "golden"), PAIRS, ids=IDS)
def test_golden_checks_and_means_its_scenario(recording: Path, golden: Path) -> None:
    body = golden.read_bytes()
    result = check_bytes(body, path=str(golden))
    assert result.error is None
    assert not [str(d) for d in result.findings if d.severity is Severity.ERROR]
    scenario = _scenario(golden)
    # the only warning: the call cut by max_tokens has arguments that are not JSON
    assert result.codes == ({"F010"} if scenario == "max-tokens-call" else set()), [
        str(d) for d in result.findings
    ]
    model = reassemble(body)
    assert model.done
    finish, n_calls = EXPECTED[scenario]
    [choice] = model.choices.values()
    assert choice.finish_reason == finish
    assert len(choice.tool_calls) == n_calls
    assert all(tc.id and tc.name and tc.type == "function" for tc in choice.tool_calls.values())
    if finish is None:
        assert model.error is not None and model.error["message"]
        assert model.usage is None
    else:
        assert model.error is None
        assert model.usage is not None and model.usage["total_tokens"] > 0
    if finish == "tool_calls":
        for tc in choice.tool_calls.values():
            assert isinstance(json.loads(tc.arguments), dict)
    if scenario in ("thinking", "openrouter-reasoning"):
        assert choice.reasoning and choice.text
    if scenario in ("text", "text-then-call", "usage", "max-tokens", "error", "groq-error"):
        assert choice.text
    if scenario == "usage":
        assert model.usage is not None
        assert model.usage["prompt_tokens_details"]["cached_tokens"] > 0


# -- recording in, recording out --------------------------------------------------------------


def _expected_reads(
    reads: list[tuple[float, bytes]], dialect: str, stamp: int
) -> list[tuple[float, bytes]]:
    """Each native event's frames, at the time of the read in which that event ended."""
    t = translator_for(dialect, include_usage=True, created=stamp)
    dec = SSEDecoder()
    out: list[tuple[float, bytes]] = []
    for when, data in reads:
        for ev in dec.feed(data):
            piece = b"".join(serialize(f) for f in t.feed(ev))
            if piece:
                out.append((when, piece))
    tail = [f for ev in dec.finish() for f in t.feed(ev)] + t.finish()
    if tail:
        out.append((reads[-1][0], b"".join(serialize(f) for f in tail)))
    return out


@pytest.mark.parametrize(("recording", "golden"), PAIRS, ids=IDS)
def test_recording_to_recording_keeps_arrival_times(
    recording: Path, golden: Path, tmp_path: Path
) -> None:
    out = tmp_path / "translated.jsonl"
    assert _cli("translate", "--include-usage", recording, "-o", out) == b""
    native_reader, native = _load(recording)
    reader, translated = _load(out)
    assert reader.complete
    origin = reader.header["translated_from"]
    assert {k: origin[k] for k in ("dialect", "recording")} == {
        "dialect": recording.parent.name,
        "recording": recording.name,
    }
    # the recording says where it is served now: replay labels it chat, at the chat path
    url = reader.request["url"] if reader.request else ""
    assert url.endswith("/v1/chat/completions"), url
    assert load(str(out)).dialect == "openai"
    assert reader.response is not None and reader.response.status == 200
    assert reader.response.header("content-type") == "text/event-stream"
    assert b"".join(data for _, data in translated) == golden.read_bytes()
    # every chunk leaves at a time some native read arrived, in order ...
    native_times = {t for t, _ in native}
    times = [t for t, _ in translated]
    assert set(times) <= native_times and times == sorted(times)
    # ... exactly the arrival of the native event it came from
    stamp = int(datetime.fromisoformat(str(native_reader.header["created"])).timestamp())
    assert translated == _expected_reads(native, recording.parent.name, stamp)
    # time to first token survives: the first content the client sees leaves when the
    # native event that carried it arrived
    first_native = _first_content_time(native, recording.parent.name)
    first_out = next(t for t, data in translated if _has_content(data))
    assert first_out == first_native
    assert check_file(out).ok()


def _has_content(frames: bytes) -> bool:
    """Some chunk carries text, reasoning, a refusal or a call (not the role chunk)."""
    for block in frames.split(b"\n\n"):
        if block.startswith(b"data: {") and b'"choices":[{' in block:
            delta = json.loads(block[6:])["choices"][0]["delta"]
            if any(delta.get(k) for k in ("content", "reasoning_content", "refusal", "tool_calls")):
                return True
    return False


def _first_content_time(reads: list[tuple[float, bytes]], dialect: str) -> float:
    """When the first native event with text, reasoning, a refusal or a call ended."""
    dec = SSEDecoder()
    for when, data in reads:
        for ev in dec.feed(data):
            if _native_content(json.loads(ev.data) if ev.data.startswith("{") else {}, dialect):
                return when
    raise AssertionError("no content in the recording")


def _native_content(obj: dict[str, Any], dialect: str) -> bool:
    kind = obj.get("type", "")
    if dialect == "anthropic":
        delta = obj.get("delta") or {}
        block = obj.get("content_block") or {}
        return bool(delta.get("text") or delta.get("thinking") or block.get("type") == "tool_use")
    if dialect == "gemini":
        parts = [p for c in obj.get("candidates", []) for p in c["content"].get("parts", [])]
        return any(p.get("text") or "functionCall" in p for p in parts)
    if dialect == "responses":
        if kind == "response.output_item.added":
            return bool(obj["item"]["type"] == "function_call")
        return kind.endswith(".delta") and bool(obj.get("delta"))
    delta = (obj.get("choices") or [{}])[0].get("delta") or {}
    return any(delta.get(k) for k in ("content", "reasoning", "reasoning_content", "tool_calls"))


def test_recordings_are_native_streams() -> None:
    """``check`` sees each native recording as what it is: native events (N codes), CRLF for
    Gemini; the off-grammar chat ones show the quirk they were made for."""
    quirks = {
        "azure-tool-call": {"G010"},  # the prompt-filter chunk, empty choices before the answer
        "openrouter-reasoning": {"F004", "G007", "G012", "W006"},  # finish twice, role, ...
        "mistral-parallel-calls": {"I001"},  # calls without index
        "groq-error": {"E002", "W014"},  # event: error, no [DONE]
    }
    for recording, _ in PAIRS:
        reader, reads = _load(recording)
        assert reader.complete and reader.response is not None
        assert reader.response.status == 200
        codes = check_bytes(b"".join(d for _, d in reads)).codes
        dialect = recording.parent.name
        if dialect == "openai":
            assert quirks[_scenario(recording)] <= codes, (recording, codes)
        elif dialect == "gemini":
            assert {"N002", "W003"} <= codes, (recording, codes)
        else:
            assert {"N001", "N002"} <= codes, (recording, codes)


def test_golden_files_only_hold_chunks() -> None:
    assert len(PAIRS) == 40
    for _, golden in PAIRS:
        body = golden.read_bytes()
        assert body.startswith(b"data: {") and body.endswith(b"data: [DONE]\n\n")
        assert b"\r" not in body and b"event:" not in body
        native_only = (b"content_block", b"candidates", b"response.", b"signature_delta",
                       b"thoughtSignature", b"partialArgs")  # fmt: skip
        for native in native_only:
            assert native not in body, (golden, native)
