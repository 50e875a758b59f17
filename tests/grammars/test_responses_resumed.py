"""Provider truth on Responses streams: a resumed stream (``starting_after``), a hosted MCP
listing finished only in the terminal output, a reasoning id the terminal output changes.

The case folders (``fail/S013-*``, ``pass/mcp-list-tools-terminal-only``, ``fail/S074-*``)
hold the shapes; these tests hold how a resumed stream is recognised (its first sequence
number, a recording's URL, ``--resumed``/``--starting-after``) and where its leniency stops.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from sseconform import Settings, check_bytes, check_file
from sseconform.recording.format import Response, write_recording
from tests import forked
from tests.conftest import CASES

RESUMED = CASES / "responses" / "fail" / "S013-resumed-after-queued" / "stream.sse"


def _events(*objs: dict[str, Any], start: int = 0) -> bytes:
    out = []
    for n, obj in enumerate(objs):
        obj = {**obj, "sequence_number": start + n}
        out.append(b"event: " + obj["type"].encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n")
    return b"".join(out)


def _codes(body: bytes, settings: Settings | None = None) -> set[str]:
    return check_bytes(body, settings, grammar="responses").codes


def _delta(idx: int, text: str, part: int = 0) -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "item_id": f"msg_case218_{idx}",
        "output_index": idx,
        "content_index": part,
        "delta": text,
    }


def test_a_stream_that_starts_at_zero_is_not_resumed() -> None:
    """The leniency needs a reason: from 0, a delta first is S001 and its item S020."""
    assert {"S001", "S020"} <= _codes(_events(_delta(0, "Hi")))


def test_a_first_sequence_number_past_zero_reads_as_resumed() -> None:
    result = check_bytes(_events(_delta(0, "Hi"), start=9), grammar="responses")
    assert result.codes == {"S013", "S040"}  # resumed, then cut: the end is still checked
    [note] = [d for d in result.findings if d.code == "S013"]
    assert "sequence_number 9: read as resumed after 8" in note.message


def test_an_item_added_in_the_resumed_stream_is_checked_in_full() -> None:
    """Only output indices below the first one the stream added may predate it."""
    added = {
        "type": "response.output_item.added",
        "output_index": 2,
        "item": {"id": "msg_case218_2", "type": "message", "status": "in_progress", "content": []},
    }
    body = _events(_delta(1, "lo"), added, _delta(2, "x"), _delta(3, "y"), start=4)
    codes = _codes(body)
    assert "S024" in codes  # a delta for a part output_index 2 never added in this stream
    assert "S020" in codes  # output_index 3, past the first one added here: never added
    assert "S023" not in codes  # the first item added after the resume point may be any


def test_an_absurd_part_index_in_a_resumed_item_is_not_padded() -> None:
    """Parts before the resume point are assumed only up to a bound (memory stays small)."""
    body = _events(_delta(0, "a", part=10**9), start=3)
    assert "S024" in _codes(body)


def test_a_resumed_item_is_compared_with_its_done_and_the_terminal_output() -> None:
    body = RESUMED.read_bytes().replace(
        b'"output":[{"id":"msg_case215","type":"message","status":"completed","role":"assistant",'
        b'"content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Hello, world!"}',
        b'"output":[{"id":"msg_case215","type":"message","status":"completed","role":"assistant",'
        b'"content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Hello, there!"}',
    )
    assert b"Hello, there!" in body
    assert _codes(body) == {"S013", "S043"}


def test_declared_starting_after_checks_the_first_number() -> None:
    body = RESUMED.read_bytes()  # its first event is number 6
    assert _codes(body, Settings(resumed=True, starting_after=5)) == {"S013"}
    assert _codes(body, Settings(resumed=True, starting_after=7)) == {"S011", "S013"}


def test_a_recording_of_a_resumed_stream_says_so_in_its_url(tmp_path: Path) -> None:
    rec = tmp_path / "resumed.jsonl"
    url = "http://127.0.0.1:9/v1/responses/resp_case215?stream=true&starting_after=2"
    head = Response(200, "OK", headers=[("content-type", "text/event-stream")], t=0.01)
    write_recording(rec, [(0.02, RESUMED.read_bytes())], response=head, request={"url": url})
    result = check_file(rec, grammar="responses")
    said = {d.code: d.message for d in result.findings}
    assert set(said) == {"S013", "S010"}
    assert said["S013"].startswith("declared resumed after 2")
    assert said["S010"] == "sequence_number 6 after 2: 3 missing"


def test_cli_resumed_and_starting_after() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "sseconform", "check", "-g", "responses", *args]
        return forked.completed(cmd, text=True)

    plain = run(str(RESUMED))
    assert plain.returncode == 0 and "read as resumed after 5" in plain.stdout
    gap = run("--starting-after", "3", str(RESUMED))
    assert gap.returncode == 1 and "S010" in gap.stdout and "declared resumed after 3" in gap.stdout
    declared = run("--resumed", str(RESUMED))
    assert declared.returncode == 0 and "declared resumed;" in declared.stdout
    bad = run("--starting-after", "-1", str(RESUMED))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_only_a_listing_the_terminal_output_finishes_is_excused() -> None:
    """mcp_list_tools finished in the terminal output passes; one missing from it is S028,
    as is the listing whose terminal entry has another id."""
    case = CASES / "responses" / "pass" / "mcp-list-tools-terminal-only" / "stream.sse"
    body = case.read_bytes()
    assert _codes(body) == set()
    other_id = body.replace(b'"output":[{"id":"mcpl_case216"', b'"output":[{"id":"mcpl_other"')
    assert other_id != body
    assert "S028" in _codes(other_id)


# -- hostile input on the resumed path (each found in review, each once a crash or a miss) ----


def test_assumed_items_and_parts_are_bounded() -> None:
    """Deltas for ever new output indices and a high content_index: at most MAX_UNSEEN items
    and parts are assumed to predate the stream; the rest are reported as in any stream."""
    from sseconform.rules.responses.checker import MAX_UNSEEN, ResponsesChecker

    body = _events(*(_delta(i, "x", part=255) for i in range(400)), start=5)
    checker = ResponsesChecker(Settings())
    checker.feed(body)
    codes = {d.code for d in checker.finish()}
    assumed = sum(1 + len(it.parts) for it in checker._items.values() if it.partial)
    assert assumed <= MAX_UNSEEN
    assert {"S013", "S020"} <= codes


def test_negative_indices_never_crash() -> None:
    completed = {"type": "response.completed", "response": {"id": "r", "output": []}}
    for body in (
        _events(_delta(-1, "x"), completed, start=3),
        _events(_delta(0, "x", part=-1), completed, start=3),
        _events(
            {
                "type": "response.output_item.added",
                "output_index": -1,
                "item": {"id": "mcpl_1", "type": "mcp_list_tools"},
            },
            completed,
        ),
    ):
        check_bytes(body, grammar="responses")  # findings, never an exception


def test_a_part_of_a_resumed_item_is_added_and_done_without_false_findings() -> None:
    part = {"type": "output_text", "text": ""}
    body = _events(
        {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0,
         "content_index": 1, "part": part},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
         "content_index": 1, "delta": "Hi"},
        {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0,
         "content_index": 1, "text": "Hi"},
        {"type": "response.content_part.done", "item_id": "msg_1", "output_index": 0,
         "content_index": 0, "part": {"type": "output_text", "text": "Hello."}},
        start=7,
    )  # fmt: skip
    assert _codes(body) == {"S013", "S040"}


def test_only_parts_below_the_first_one_named_may_predate_the_stream() -> None:
    body = _events(_delta(0, "a", part=1), _delta(0, "b", part=5), start=4)
    assert "S024" in _codes(body)


def test_an_odd_starting_after_in_a_url_is_ignored(tmp_path: Path) -> None:
    head = Response(200, "OK", headers=[("content-type", "text/event-stream")], t=0.01)
    for url in (
        "http://127.0.0.1:9/v1/responses/r?stream=true&starting_after=%C2%B2",
        "http://[x/v1/responses/r?starting_after=2",
        "http://127.0.0.1:9/v1/responses/r?starting_after=" + "9" * 40,
    ):
        rec = tmp_path / "r.jsonl"
        rec.unlink(missing_ok=True)
        write_recording(rec, [(0.02, RESUMED.read_bytes())], response=head, request={"url": url})
        result = check_file(rec, grammar="responses")
        assert "read as resumed after 5" in str(result.findings)  # told by the numbers
