"""``sseconform inspect`` as a user runs it: a subprocess with no terminal (so it prints the
final summary), ``COLUMNS=100``, on bundled recordings, recordings built here with chosen
timing, pipes written slowly, Ctrl-C, exports, broken input, and ``record --watch`` against a
replay server on 127.0.0.1.

Every run asserts there is no traceback and no internal error (see ``cli_support``).
"""

from __future__ import annotations

import array
import fcntl
import json
import os
import random
import re
import signal
import subprocess
import termios
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sseconform import providers
from sseconform.recording.format import RecordingReader, Response, write_recording
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from tests.conftest import CASES
from tests.inspect.cli_support import (
    ANTHROPIC_CALL,
    ARGS,
    ARGS_TEXT,
    CALL_ID,
    CALL_NAME,
    GATEWAY_BUGS,
    HOST,
    PARALLEL,
    RECORDINGS,
    Run,
    call_rows,
    chunk,
    diagnostic_codes,
    event_rows,
    finish,
    fragments,
    has_open,
    header,
    pretty_args,
    spawn,
    sseconform,
    tool_call_reads,
    wait_for,
)

SSE = [("content-type", "text/event-stream")]
OK = Response(200, "OK", "HTTP/1.1", SSE)


@pytest.fixture
def wd(tmp_path: Path) -> Path:
    """A current directory whose pyproject.toml has no [tool.sseconform]: no stray settings."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    return tmp_path


def inspect(wd: Path, *args: str | os.PathLike[str], stdin: bytes | None = None) -> Run:
    return sseconform("inspect", *args, cwd=wd, stdin=stdin)


def check_codes(wd: Path, path: Path) -> list[str]:
    """The codes ``sseconform check`` finds in the body (recording-level H codes left out)."""
    run = sseconform("check", "-f", "json", path, cwd=wd)
    assert run.code in (0, 1), run.err
    doc = json.loads(run.out)
    codes = [d["code"] for f in doc["files"] for d in f["findings"]]
    return [c for c in codes if not c.startswith("H")]


def one_line_error(run: Run) -> str:
    """A clean refusal: exit 2, one line on stderr saying what is wrong."""
    assert run.code == 2, (run.code, run.out, run.err)
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("sseconform: error: "), run.err
    return lines[0]


def summary(run: Run) -> str:
    assert run.code == 0, (run.code, run.err)
    assert run.out.startswith("\u256d\u2500 sseconform inspect \u2500 "), run.out[:300]
    return run.out


# -- summaries ----------------------------------------------------------------------------------


def test_native_recording(wd: Path) -> None:
    out = summary(inspect(wd, ANTHROPIC_CALL, "--no-live", "--speed", "0"))
    head = header(out)
    assert "dialect anthropic \u2192 chunks (translated)" in head
    assert "id msg_" in head  # the id (the line may end in an ellipsis at 100 columns)
    assert "events 12 \u2192 8 chunks" in head
    assert "HTTP 200" in head and "state ended finish tool_calls, [DONE]" in head
    (call,) = call_rows(out)
    assert call.index == "0"
    assert "".join(call.ident[:-1]) == "toolu_01vFykUwvo7p0k7lR8bDDwYS"
    assert call.ident[-1] == "get_weather"
    assert call.status == ["complete", "47 chars", "5 frag."]
    assert call.args == pretty_args({"city": "Lisbon, Portugal", "unit": "celsius"})
    # the stream's own blocks, and diagnostics from its own grammar
    assert "blocks (1): stop_reason tool_use, message_stop" in out
    assert re.search(r"^ 0  tool_use  get_weather +closed +2 +6 +47 *$", out, re.M), out
    assert "diagnostics (0, anthropic grammar)" in out
    rows = event_rows(out)
    assert [r.frame for r in rows] == list(range(1, 13))
    assert rows[0].rest.startswith("message_start") and "role assistant" in rows[0].rest
    assert rows[-1].rest.startswith("message_stop") and "finish tool_calls; [DONE]" in rows[-1].rest


def test_responses_recording_shows_its_items(wd: Path) -> None:
    out = summary(inspect(wd, RECORDINGS / "responses" / "max-tokens-responses.jsonl", "--no-live"))
    assert "dialect responses \u2192 chunks (translated)" in header(out)
    assert "items (2): incomplete (max_output_tokens)" in out, out
    assert re.search(r"^ 0  reasoning .* done ", out, re.M), out
    assert re.search(r"^ 1  message .* incomplete ", out, re.M), out
    assert "diagnostics (0, responses grammar)" in out


def test_native_stream_is_checked_in_its_grammar(wd: Path) -> None:
    """A block delta without its block start: inspect finds what `check --grammar auto` does."""
    case = CASES / "anthropic" / "fail" / "A003-delta-without-block-start" / "stream.sse"
    out = summary(inspect(wd, case, "--no-live"))
    run = sseconform("check", "--grammar", "auto", "-f", "json", case, cwd=wd)
    want = [d["code"] for f in json.loads(run.out)["files"] for d in f["findings"]]
    assert "A003" in want
    assert diagnostic_codes(out) == want
    assert "anthropic grammar)" in out


def test_gemini_is_checked_in_its_own_grammar(wd: Path) -> None:
    out = summary(inspect(wd, RECORDINGS / "gemini" / "text-gemini.jsonl", "--no-live"))
    assert "gemini grammar)" in out and "no grammar of its own" not in out


def test_a_non_streaming_gemini_answer_is_read_whole(wd: Path) -> None:
    """A recording of ``:generateContent`` says so in its URL; a raw body takes
    ``--non-streaming``: one object, one event, what ``check`` finds in it (V022 for a cut
    one)."""
    answer = (CASES / "gemini" / "pass" / "non-streaming-answer" / "stream.sse").read_bytes()
    rec = wd / "answer.jsonl"
    url = "http://127.0.0.1:9/v1beta/models/gemini-test:generateContent"
    head = Response(200, "OK", headers=[("content-type", "application/json")], t=0.01)
    write_recording(rec, [(0.02, answer)], response=head, request={"url": url})
    out = summary(inspect(wd, rec, "--no-live", "--speed", "0"))
    assert "dialect gemini \u2192 chunks" in header(out) and "events 1 " in header(out)
    assert "diagnostics (0, gemini grammar)" in out
    cut = CASES / "gemini" / "fail" / "V022-object-cut" / "stream.sse"
    out = summary(inspect(wd, cut, "--no-live", "--non-streaming"))
    assert diagnostic_codes(out) == ["V022", "V006"], out
    wrong = inspect(wd, cut, "--no-live", "--non-streaming", "--from", "openai")
    assert "--from gemini" in one_line_error(wrong)


def test_chunk_recording_with_parallel_calls(wd: Path) -> None:
    out = summary(inspect(wd, PARALLEL, "--no-live", "--speed", "0"))
    head = header(out)
    assert "dialect openai " in head and "translated" not in head
    assert "HTTP 200" in head and "state ended finish tool_calls, [DONE]" in head
    calls = call_rows(out)
    assert [c.index for c in calls] == ["0", "1"]
    assert [c.ident for c in calls] == [
        ["call_sc1WeatherParis", "get_weather"],
        ["call_sc2WeatherTokyo", "get_weather"],
    ]
    assert [c.status[0] for c in calls] == ["complete", "complete"]
    assert calls[0].args == pretty_args({"city": "Paris", "unit": "celsius"})
    assert calls[1].args == pretty_args({"city": "Tokyo", "unit": "celsius"})
    assert "diagnostics (0)" in out and "none so far" in out
    assert diagnostic_codes(out) == check_codes(wd, PARALLEL) == []


def test_gateway_bugs_show_the_codes_check_finds(wd: Path) -> None:
    out = summary(inspect(wd, GATEWAY_BUGS, "--no-live", "--speed", "0"))
    head = header(out)
    assert "dialect openai " in head
    assert "finish end_turn, no [DONE]" in head
    codes = diagnostic_codes(out)
    assert codes, out
    assert codes == check_codes(wd, GATEWAY_BUGS)
    assert {"I003", "N001", "F003", "D001"} <= set(codes)
    (call,) = call_rows(out)
    assert call.index == "1"  # the gateway's bug: the first call takes index 1
    assert call.status[0] == "complete"
    assert call.args == pretty_args({"city": "Paris"})


def _sample_recordings() -> list[Path]:
    """Every dialect, error responses, parallel calls, reasoning, and the chunk streams."""
    picks = ("error-", "parallel-", "thinking-", "text-then-call-")
    paths = [p for p in sorted(RECORDINGS.glob("*/*.jsonl")) if p.name.startswith(picks)]
    return [*paths, *sorted((RECORDINGS / "openai").glob("*.jsonl"))]


def test_sample_of_bundled_recordings(wd: Path) -> None:
    """Each: exit 0, the detected dialect, the end state its end line says, and (for chunk
    streams with a 2xx status) the diagnostics ``check`` finds."""
    paths = _sample_recordings()
    assert len(paths) >= 12
    check = sseconform("check", "-f", "json", *paths, cwd=wd)
    assert check.code in (0, 1), check.err
    found = {
        f["path"]: [d["code"] for d in f["findings"] if not d["code"].startswith("H")]
        for f in json.loads(check.out)["files"]
    }
    by_path = {Path(k).resolve(): v for k, v in found.items()}

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(lambda p: inspect(wd, p, "--no-live", "--speed", "0"), paths))
    for path, run in zip(paths, runs, strict=True):
        out = summary(run)
        loaded = load(str(path))
        head = header(out)
        with open(path, "rb") as fp:
            reader = RecordingReader(fp, str(path))
            list(reader.reads())
        state = "state ended" if reader.complete else "state incomplete"
        assert state in head, (path, head)
        assert f"HTTP {loaded.status}" in head, (path, head)
        if loaded.status != 200:
            assert f"HTTP {loaded.status}: the response body" in out, path
            continue
        assert f"dialect {loaded.dialect or providers.OPENAI}" in head, (path, head)
        if loaded.dialect in (None, providers.OPENAI):
            assert diagnostic_codes(out) == by_path[path.resolve()], path
        for call in call_rows(out):
            if call.status[0] == "complete" and call.args[0] == "{":
                json.loads("\n".join(call.args))  # a whole pretty print is the whole JSON


# -- timing -------------------------------------------------------------------------------------


def _timed(wd: Path, name: str, reads: list[tuple[float, bytes]]) -> Path:
    path = wd / name
    write_recording(path, reads, response=OK)
    return path


def _after_open(wd: Path, path: Path, *args: str) -> tuple[Run, float]:
    """Run inspect; how long it ran after it opened ``path`` (its startup does not count)."""
    proc = spawn("inspect", path, "--no-live", *args, cwd=wd)
    try:
        wait_for(lambda: proc.poll() is not None or has_open(proc.pid, path), "the file opened")
        opened = time.monotonic()
        proc.wait(timeout=60)
        took = time.monotonic() - opened
    finally:
        run = finish(proc)
    return run, took


def test_speed_1_keeps_the_recorded_timing(wd: Path) -> None:
    frames = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "one "}),
        chunk({"content": "two "}),
        chunk({}, "stop") + b"data: [DONE]\n\n",
    ]
    path = _timed(
        wd, "timed.jsonl", [(0.0, frames[0]), (0.1, frames[1]), (0.2, frames[2]), (0.3, frames[3])]
    )
    run, took = _after_open(wd, path, "--speed", "1")
    assert took >= 0.28, took
    out = summary(run)
    assert "elapsed 0.300 s" in header(out)
    assert [r.t for r in event_rows(out)] == [0.0, 0.1, 0.2, 0.3, 0.3]


def test_speed_0_does_not_wait(wd: Path) -> None:
    """30 s of recorded time, shown at once; the figures are still the recorded ones."""
    reads = [
        (0.0, chunk({"role": "assistant", "content": ""})),
        (15.0, chunk({"content": "late"})),
        (30.0, chunk({}, "stop") + b"data: [DONE]\n\n"),
    ]
    path = _timed(wd, "slow.jsonl", reads)
    run, took = _after_open(wd, path, "--speed", "0")
    assert took < 5.0, took
    head = header(summary(run))
    assert "elapsed 30.000 s" in head
    assert "state ended finish stop, [DONE]" in head


def test_speed_scales(wd: Path) -> None:
    reads = [(0.0, chunk({"role": "assistant", "content": "x"})), (3.2, chunk({}, "stop"))]
    path = _timed(wd, "scaled.jsonl", reads)
    run, took = _after_open(wd, path, "--speed", "4")
    assert 0.75 <= took < 2.5, took  # 3.2 s / 4
    assert "elapsed 3.200 s" in header(summary(run))


# -- pipes --------------------------------------------------------------------------------------


def _drained(proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Wait until the process has read everything written to its stdin so far (Linux)."""
    assert proc.stdin is not None
    buf = array.array("i", [0])

    def empty() -> bool:
        try:
            fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, buf)  # type: ignore[union-attr]
        except OSError:
            return True
        return buf[0] == 0 or proc.poll() is not None

    wait_for(empty, "the pipe to be read", timeout)


def _crlf_body() -> tuple[bytes, list[int]]:
    """A chunk stream with CRLF line ends, one chunk's JSON spread over two ``data:`` lines;
    and where to cut it: between a CR and its LF inside an event, in the middle of a UTF-8
    character, and between CR and LF at an event's end."""
    text = "Ol\u00e1 \u2014 caf\u00e9 \u2615 \U0001f389"
    second = chunk({"content": text})[len(b"data: ") : -2]
    k = second.index(b'"choices"')
    body = b"data: " + chunk({"role": "assistant", "content": ""})[6:-2] + b"\r\n\r\n"
    body += b"data: " + second[:k] + b"\r\ndata: " + second[k:] + b"\r\n\r\n"
    body += b"data: " + chunk({}, "stop")[6:-2] + b"\r\n\r\ndata: [DONE]\r\n\r\n"
    first_end = body.index(b"\r\n\r\n") + 4
    inside = body.index(b"\r\ndata: ", first_end) + 1  # CR | LF, inside event 2
    mid_char = body.index("\u2615".encode()) + 1  # the first byte of a 3-byte character
    event_end = body.index(b"\r\n\r\n", mid_char) + 3  # CR LF CR | LF
    return body, [inside, mid_char, event_end]


def test_pipe_written_slowly(wd: Path) -> None:
    body, cuts = _crlf_body()
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert pieces[0].endswith(b"\r") and pieces[1].startswith(b"\n")
    proc = spawn("inspect", "-", "--no-live", cwd=wd, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    try:
        for piece in pieces:
            proc.stdin.write(piece)
            proc.stdin.flush()
            _drained(proc)
            time.sleep(0.2)
        proc.stdin.close()
    finally:
        proc.stdin = None  # closed: communicate() must not flush it again
        run = finish(proc)
    out = summary(run)
    head = header(out)
    assert "dialect openai " in head and "state ended finish stop, [DONE]" in head
    assert "HTTP" not in head  # a pipe has no response line
    assert "text (14 chars) \u2500 finish stop" in out
    assert "Ol\u00e1 \u2014 caf\u00e9 \u2615 \U0001f389" in out
    rows = event_rows(out)
    assert [r.frame for r in rows] == [1, 2, 3, 4]
    assert rows[1].rest.startswith("content 'Ol\u00e1")
    assert rows[2].rest == "finish stop" and rows[3].rest == "[DONE]"
    # timed on arrival: event 2 ended with the third piece, a sleep after event 1 ended
    assert rows[1].t - rows[0].t >= 0.15, rows
    crlf = wd / "crlf.sse"
    crlf.write_bytes(body)
    assert diagnostic_codes(out) == check_codes(wd, crlf) == ["W003", "W016"]


def test_recording_piped_in_is_played(wd: Path) -> None:
    piped = inspect(wd, "-", "--no-live", "--speed", "0", stdin=ANTHROPIC_CALL.read_bytes())
    direct = inspect(wd, ANTHROPIC_CALL, "--no-live", "--speed", "0")
    head = header(summary(piped))
    assert "sseconform inspect \u2500 <stdin>" in piped.out
    assert "HTTP 200" in head  # the response line was read: a recording, not a raw body
    assert "dialect anthropic" in head
    # the same screen as from the file, but for the name in the title
    assert piped.out.splitlines()[1:] == direct.out.splitlines()[1:]


def test_raw_body_from_a_file(wd: Path) -> None:
    path = wd / "body.sse"
    path.write_bytes(b"".join(b for _, b in tool_call_reads(fragments(ARGS_TEXT))))
    out = summary(inspect(wd, path, "--no-live"))  # a raw body: no timing, no waiting
    (call,) = call_rows(out)
    assert call.ident == [CALL_ID, CALL_NAME]
    assert call.status[0] == "complete"
    assert call.args[-3:] == pretty_args(ARGS)[-3:]
    assert diagnostic_codes(out) == check_codes(wd, path) == []


# -- Ctrl-C -------------------------------------------------------------------------------------


def test_ctrl_c_prints_the_summary(wd: Path) -> None:
    reads = [(0.01, chunk({"role": "assistant", "content": ""}))]
    reads += [(0.1 * (i + 1), chunk({"content": f"word{i} "})) for i in range(200)]
    reads.append((20.2, chunk({}, "stop") + b"data: [DONE]\n\n"))
    path = _timed(wd, "long.jsonl", reads)
    proc = spawn("inspect", path, "--no-live", "--speed", "1", cwd=wd)
    try:
        wait_for(lambda: has_open(proc.pid, path), "the recording opened")
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
    finally:
        run = finish(proc)
    assert run.code == 130, (run.code, run.out, run.err)
    head = header(run.out)
    assert "state interrupted" in head, head
    assert "no [DONE]" in head
    elapsed = float(head.split("elapsed ")[1].split(" s")[0])
    assert 0.5 < elapsed < 10, elapsed
    assert "word0 " in run.out and "word199" not in run.out
    assert "Traceback" not in run.err and "KeyboardInterrupt" not in run.err


# -- exports ------------------------------------------------------------------------------------


def test_exports(wd: Path) -> None:
    svg, html = wd / "view.svg", wd / "view.html"
    run = inspect(
        wd, ANTHROPIC_CALL, "--no-live", "--speed", "0", "--export-svg", svg, "--export-html", html
    )
    summary(run)
    assert f"saved {svg}" in run.err and f"saved {html}" in run.err
    s, h = svg.read_text(encoding="utf-8"), html.read_text(encoding="utf-8")
    assert s.lstrip().startswith("<svg") and "</svg>" in s
    assert "<html" in h.lower()
    for text in ("get_weather", "toolu_01vFykUwvo7p0k", "celsius", "message_start"):
        assert text in s, text
        assert text in h, text
    assert "Lisbon,&#160;Portugal" in s
    assert "Lisbon, Portugal" in h
    assert sorted(p.name for p in wd.iterdir()) == ["pyproject.toml", "view.html", "view.svg"]


@pytest.mark.parametrize("option", ["--export-svg", "--export-html"])
def test_export_refuses_an_existing_file(wd: Path, option: str) -> None:
    target = wd / "keep.out"
    target.write_text("precious")
    run = inspect(wd, ANTHROPIC_CALL, "--no-live", "--speed", "0", option, target)
    line = one_line_error(run)
    assert "keep.out" in line and "--force" in line
    assert run.out == ""  # refused before anything was shown
    assert target.read_text() == "precious"

    run = inspect(wd, ANTHROPIC_CALL, "--no-live", "--speed", "0", option, target, "--force")
    summary(run)
    assert "get_weather" in target.read_text(encoding="utf-8")
    assert sorted(p.name for p in wd.iterdir()) == ["keep.out", "pyproject.toml"]


def test_export_onto_a_directory_leaves_nothing_behind(wd: Path) -> None:
    target = wd / "view.svg"
    target.mkdir()
    run = inspect(
        wd, ANTHROPIC_CALL, "--no-live", "--speed", "0", "--export-svg", target, "--force"
    )
    line = one_line_error(run)
    assert sorted(p.name for p in wd.iterdir()) == ["pyproject.toml", "view.svg"]
    assert ".tmp-" not in line and "view.svg" in line


def test_export_into_a_missing_directory_names_the_target(wd: Path) -> None:
    run = inspect(
        wd, ANTHROPIC_CALL, "--no-live", "--speed", "0", "--export-svg", wd / "missing" / "dir.svg"
    )
    line = one_line_error(run)
    assert line.endswith("missing/dir.svg: No such file or directory"), line


# -- bad input ----------------------------------------------------------------------------------


def _corrupt(wd: Path) -> Path:
    lines = PARALLEL.read_bytes().splitlines(keepends=True)
    path = wd / "corrupt.jsonl"
    path.write_bytes(b"".join([*lines[:6], b"this is not JSON\n", *lines[6:]]))
    return path


def test_missing_file(wd: Path) -> None:
    line = one_line_error(inspect(wd, "nope.jsonl", "--no-live"))
    assert line == "sseconform: error: nope.jsonl: no such file"


def test_directory(wd: Path) -> None:
    (wd / "adir").mkdir()
    line = one_line_error(inspect(wd, "adir", "--no-live"))
    assert line == "sseconform: error: adir: is a directory"


def test_recording_corrupted_in_the_middle(wd: Path) -> None:
    path = _corrupt(wd)
    line = one_line_error(inspect(wd, path.name, "--no-live", "--speed", "0"))
    assert line.startswith("sseconform: error: corrupt.jsonl: line 7: not a JSON line"), line


def test_recording_with_a_bad_header(wd: Path) -> None:
    path = wd / "v9.jsonl"
    path.write_text('{"format": "sseconform-recording", "version": 9}\n')
    line = one_line_error(inspect(wd, path.name, "--no-live"))
    assert "v9.jsonl: line 1: unsupported recording version 9" in line


def test_unknown_dialect(wd: Path) -> None:
    line = one_line_error(inspect(wd, ANTHROPIC_CALL, "--no-live", "--from", "klingon"))
    assert "unknown dialect 'klingon'" in line and "anthropic" in line


def test_empty_file(wd: Path) -> None:
    (wd / "empty.sse").write_bytes(b"")
    run = inspect(wd, "empty.sse", "--no-live")
    out = summary(run)
    assert "events 0 bytes 0" in header(out)
    assert "(no content yet)" in out
    assert run.err == ""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_garbage(wd: Path, seed: int) -> None:
    rng = random.Random(seed)
    data = rng.randbytes(rng.randrange(1000, 100_000))
    (wd / "garbage.bin").write_bytes(data)
    run = inspect(wd, "garbage.bin", "--no-live", "--speed", "0")
    assert run.code in (0, 2), run.err
    if run.code == 2:
        one_line_error(run)
        return
    head = header(summary(run))
    assert f"bytes {len(data):,}".replace(",", " ") in head
    # nothing from the input reaches the terminal as a control character
    assert not any((ord(c) < 32 and c != "\n") or ord(c) == 0x7F for c in run.out)


def test_terminal_escapes_in_the_stream_are_shown_not_sent(wd: Path) -> None:
    path = wd / "esc.sse"
    evil = "\x1b[2J\x1b]0;pwned\x07\x9b31m"
    path.write_bytes(
        chunk({"role": "assistant", "content": evil})
        + chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c\x1b[1m",
                        "type": "function",
                        "function": {"name": "f\x1b[5m", "arguments": "{}"},
                    }
                ]
            }
        )
        + b"event: \x1b[31mred\ndata: \x1b[2Jnot json\x07\n\n"
    )
    run = inspect(wd, path.name, "--no-live")
    out = summary(run)
    assert not any(c in out for c in "\x1b\x07\x9b"), repr(out)
    assert "\\x1b[2J" in out


# -- what the stream said -----------------------------------------------------------------------


def _http_429(wd: Path) -> Path:
    path = wd / "429.jsonl"
    body = json.dumps(
        {"error": {"type": "rate_limit_error", "message": "Rate limit: 42 requests per minute"}}
    ).encode()
    head = Response(429, "Too Many Requests", "HTTP/1.1", [("content-type", "application/json")])
    write_recording(path, [(0.05, body)], response=head)
    return path


def test_http_error_shows_status_and_body(wd: Path) -> None:
    path = _http_429(wd)
    out = summary(inspect(wd, path.name, "--no-live", "--speed", "0"))
    assert "HTTP 429" in header(out)
    assert "HTTP 429: the response body" in out
    assert "rate_limit_error" in out and "Rate limit: 42 requests per minute" in out
    assert call_rows(out) == []


def test_http_error_diagnostics_agree_with_check(wd: Path) -> None:
    path = _http_429(wd)
    out = summary(inspect(wd, path.name, "--no-live", "--speed", "0"))
    assert diagnostic_codes(out) == ["H001"]  # check's info: reported the right way
    assert check_codes(wd, path) == []  # and nothing worse, in either


def _cut(source: Path, dest: Path, lines: int, partial: int = 0) -> Path:
    """The first ``lines`` lines of a recording (and ``partial`` bytes of the next): what a
    recorder killed with -9 leaves."""
    data = source.read_bytes().splitlines(keepends=True)
    dest.write_bytes(b"".join(data[:lines]) + data[lines][:partial])
    return dest


def test_truncated_chunk_recording(wd: Path) -> None:
    path = _cut(PARALLEL, wd / "cut.jsonl", 8)
    out = summary(inspect(wd, path.name, "--no-live", "--speed", "0"))
    head = header(out)
    assert "state incomplete (no end line (the recorder stopped before finishing))" in head
    assert "no [DONE]" in head
    (call,) = call_rows(out)
    assert call.status[0] == "truncated"
    assert diagnostic_codes(out) == check_codes(wd, path)


def test_recording_cut_inside_a_line(wd: Path) -> None:
    path = _cut(PARALLEL, wd / "cut.jsonl", 8, partial=30)
    head = header(summary(inspect(wd, path.name, "--no-live", "--speed", "0")))
    assert "state incomplete (the file ends inside line 9 (writer stopped))" in head


def test_truncated_native_recording(wd: Path) -> None:
    path = _cut(ANTHROPIC_CALL, wd / "cut.jsonl", 7)
    out = summary(inspect(wd, path.name, "--no-live", "--speed", "0"))
    head = header(out)
    assert "state incomplete" in head and "events 5 \u2192" in head
    (call,) = call_rows(out)
    assert call.status[0] == "truncated"
    assert "upstream_truncated" in out  # the translation's own error frame for a cut stream


def test_truncated_native_recording_event_count(wd: Path) -> None:
    path = _cut(ANTHROPIC_CALL, wd / "cut.jsonl", 7)
    out = summary(inspect(wd, path.name, "--no-live", "--speed", "0"))
    title = next(line for line in out.splitlines() if line.startswith("events ("))
    shown, total = (int(x) for x in title.split("last ")[1].split(")")[0].split(" of "))
    assert shown <= total, title


# -- record --watch -----------------------------------------------------------------------------


@pytest.fixture
def served() -> Iterator[ReplayServer]:
    server = ReplayServer([load(str(ANTHROPIC_CALL))], host=HOST, port=0, speed=0.0)
    with server.running():
        yield server


def _watch(wd: Path, server: ReplayServer) -> tuple[Run, Path]:
    out = wd / "watched.jsonl"
    run = sseconform(
        "record",
        server.url + "/v1/messages",
        "-d",
        '{"model": "m", "stream": true, "messages": []}',
        "-H",
        f"x-sseconform-recording: {ANTHROPIC_CALL.name}",
        "-o",
        out,
        "--watch",
        cwd=wd,
    )
    return run, out


def _body(path: Path) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(b for _, b in RecordingReader(fp, str(path)).reads())


def test_record_watch(wd: Path, served: ReplayServer) -> None:
    run, out = _watch(wd, served)
    assert run.code == 0, run.err
    assert _body(out) == _body(ANTHROPIC_CALL)
    assert run.out == ""
    err = run.err.lstrip("\n")
    assert err.startswith(f"\u256d\u2500 sseconform inspect \u2500 {out}"), err[:300]
    head = header(err)
    assert "dialect anthropic \u2192 chunks (translated)" in head
    assert "HTTP 200" in head and "state ended finish tool_calls, [DONE]" in head
    (call,) = call_rows(err)
    assert call.ident[-1] == "get_weather" and call.status[0] == "complete"
    assert call.args == pretty_args({"city": "Lisbon, Portugal", "unit": "celsius"})
    assert f"recorded {out}: complete; HTTP 200" in err


def test_record_watch_times_match_the_recording(wd: Path, served: ReplayServer) -> None:
    run, out = _watch(wd, served)
    assert run.code == 0, run.err
    with open(out, "rb") as fp:
        first_read = next(iter(RecordingReader(fp, str(out)).reads()))[0]
    head = header(run.err)
    first_byte = float(head.split("first byte ")[1].split(" s")[0])
    # both are taken at the same read: only the clocks' origins can set them apart
    assert abs(first_byte - first_read) < 0.01, (first_byte, first_read)
