"""``record`` against real servers on 127.0.0.1: byte-exact bodies, timing, flags, presets.

"Record live or replayed streams": recording what ``replay`` serves must give back the served
recording's body byte for byte, and at ``--speed 1`` its per-read timing.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform import providers
from sseconform.api import check_file
from sseconform.record import Progress, Request, record
from sseconform.replay.plan import Loaded, event_ends
from sseconform.replay.server import ReplayServer
from tests.record import (
    BODY,
    BUGS,
    CHAT,
    FAULT,
    HOST,
    RECORDINGS,
    SELECT,
    SSE_BODY,
    TEXT,
    TOLERANCE,
    Capture,
    cli_env,
    command,
    header_line,
    joined,
    read_recording,
    replaying,
    sseconform,
    timing_errors,
    workdir,
)

#: Recorded through the command line at their recorded timing too (one per dialect).
TIMED_CLI = [p for p in RECORDINGS if p.name in ("text-anthropic.jsonl", "text-gemini.jsonl",
             "thinking-anthropic.jsonl", "error-responses.jsonl")]  # fmt: skip
#: Through the command line, the largest recording of each folder (each dialect, the gateway
#: bugs): the library path is tested on every recording above, and the command adds only its
#: arguments and its file to it (a process each for all of them cost CI half a minute).
CLI = sorted(
    {p.parent.name: p for p in sorted(RECORDINGS, key=lambda p: p.stat().st_size)}.values()
)
SECRET = "sk-test-SECRET-1234567890"


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's httpx client reads proxy settings from the environment: none here."""
    for name in list(os.environ):
        if "proxy" in name.lower():
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def timed() -> Iterator[tuple[ReplayServer, dict[str, Loaded]]]:
    """Every bundled recording at --speed 1 (the recorded timing)."""
    with replaying(*RECORDINGS, speed=1.0) as (server, loaded):
        yield server, {r.name: r for r in loaded}


@pytest.fixture(scope="module")
def fast() -> Iterator[tuple[ReplayServer, dict[str, Loaded]]]:
    """Every bundled recording at --speed 0 (as fast as possible)."""
    with replaying(*RECORDINGS, speed=0.0) as (server, loaded):
        yield server, {r.name: r for r in loaded}


@pytest.fixture
def wd(tmp_path: Path) -> Path:
    return workdir(tmp_path)


def _assert_reproduces(path: Path, served: Loaded, *, timing: bool) -> None:
    reader, reads = read_recording(path)
    assert joined(reads) == served.body
    assert reader.complete and reader.end is not None and reader.end.reason == "eof"
    assert reader.response is not None
    assert reader.response.status == served.status
    ctype = reader.response.header("content-type")
    assert ctype == dict((k.lower(), v) for k, v in served.headers)["content-type"]
    if timing:
        errors = timing_errors(served.reads, reads)
        assert max(map(abs, errors)) <= TOLERANCE, errors


# -- byte for byte, on time ---------------------------------------------------------------------


@pytest.mark.parametrize("source", RECORDINGS, ids=lambda p: p.name)
def test_library_record_reproduces_replay(
    source: Path, timed: tuple[ReplayServer, dict[str, Loaded]], tmp_path: Path
) -> None:
    server, loaded = timed
    served = loaded[source.name]
    req = Request(
        "POST",
        server.url + CHAT,
        [(SELECT, source.name), ("content-type", "application/json")],
        BODY.encode(),
    )
    # A timing miss is confirmed by a second recording, as gate confirms its timing errors:
    # with four workers on two cores a reader can be starved once (CI saw a first read
    # 135 ms late); byte-exactness is required of both.
    for attempt in (1, 2):
        out = tmp_path / f"out-{attempt}.jsonl"
        outcome = record(req, str(out))
        assert outcome.complete and outcome.reason == "eof"
        assert outcome.progress.status == served.status
        assert outcome.progress.bytes == len(served.body)
        _assert_reproduces(out, served, timing=False)
        errors = timing_errors(served.reads, read_recording(out)[1])
        if max(map(abs, errors)) <= TOLERANCE:
            return
    raise AssertionError(f"two recordings off their schedule by more than {TOLERANCE}: {errors}")


@pytest.mark.parametrize("source", CLI, ids=lambda p: p.name)
def test_cli_record_reproduces_replay(
    source: Path, fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    """Byte for byte through the command line (the timing is the library's, tested above
    for every recording and below for a few through the command line; :data:`CLI`)."""
    server, loaded = fast
    _cli_reproduces(server, loaded[source.name], wd, timing=False)


@pytest.mark.parametrize("source", TIMED_CLI, ids=lambda p: p.name)
def test_cli_record_keeps_the_timing(
    source: Path, timed: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, loaded = timed
    _cli_reproduces(server, loaded[source.name], wd, timing=True)


def _cli_reproduces(server: ReplayServer, served: Loaded, wd: Path, *, timing: bool) -> None:
    out = wd / "out.jsonl"
    run = sseconform(
        "record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {served.name}", "-o", out,
        cwd=wd,
    )  # fmt: skip
    assert run.code == 0, run.both
    assert run.out == ""
    _assert_reproduces(out, served, timing=timing)
    # stderr is no terminal: no progress line, only the summary
    assert "\r" not in run.err
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith(f"recorded {out}: complete; HTTP 200, {len(served.body)} bytes")
    header = header_line(out)
    assert header["request"]["method"] == "POST"
    assert header["request"]["url"] == server.url + CHAT
    assert header["request"]["body"] == json.loads(BODY)


def test_progress_callback_and_reads(
    fast: tuple[ReplayServer, dict[str, Loaded]], tmp_path: Path
) -> None:
    server, loaded = fast
    served = loaded[TEXT.name]
    seen: list[tuple[int, int, int]] = []
    chunks: list[bytes] = []

    def on_progress(p: Progress) -> None:
        assert p.status == 200 and p.ttfb is not None
        seen.append((p.bytes, p.reads, p.events))

    req = Request("POST", server.url + CHAT, [(SELECT, TEXT.name)], BODY.encode())
    outcome = record(
        req,
        str(tmp_path / "r.jsonl"),
        on_progress=on_progress,
        on_read=lambda t, c: chunks.append(c),
    )
    _, reads = read_recording(tmp_path / "r.jsonl")
    assert b"".join(chunks) == served.body == joined(reads)
    assert len(seen) == len(reads) == outcome.progress.reads
    assert [r for _, r, _ in seen] == list(range(1, len(reads) + 1))
    sizes = [b for b, _, _ in seen]
    assert sizes == sorted(sizes) and sizes[-1] == len(served.body)
    assert outcome.progress.events == len(event_ends(served.body))
    assert outcome.progress.ttft is not None and outcome.progress.ttfb is not None


# -- what gets recorded -------------------------------------------------------------------------


def test_non_2xx_is_recorded(fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path) -> None:
    server, _ = fast
    out = wd / "429.jsonl"
    run = sseconform(
        "record", server.url + CHAT, "-d", BODY,
        "-H", f"{SELECT}: {TEXT.name}", "-H", f"{FAULT}: status=429", "-o", out,
        cwd=wd,
    )  # fmt: skip
    assert run.code == 1, run.both
    assert "HTTP 429" in run.err
    reader, reads = read_recording(out)
    assert reader.response is not None
    assert (reader.response.status, reader.response.reason) == (429, "Too Many Requests")
    assert reader.response.header("content-type") == "application/json"
    assert joined(reads) == providers.error_body(providers.OPENAI, 429)
    assert reader.complete
    assert "H001" in {d.code for d in check_file(out).findings}


def test_force_needed_to_replace(fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path) -> None:
    server, loaded = fast
    out = wd / "exists.jsonl"
    before = b"precious bytes\x00\xff not a recording\n"
    out.write_bytes(before)
    args = ("record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {TEXT.name}", "-o", out)
    run = sseconform(*args, cwd=wd)
    assert run.code == 2, run.both
    assert "exists" in run.err and "--force" in run.err
    assert out.read_bytes() == before
    run = sseconform(*args, "--force", cwd=wd)
    assert run.code == 0, run.both
    _, reads = read_recording(out)
    assert joined(reads) == loaded[TEXT.name].body


def test_raw_writes_the_plain_body(fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path) -> None:
    server, loaded = fast
    out, raw = wd / "r.jsonl", wd / "r.sse"
    run = sseconform(
        "record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {BUGS.name}",
        "-o", out, "--raw", raw,
        cwd=wd,
    )  # fmt: skip
    assert run.code == 0, run.both
    assert raw.read_bytes() == loaded[BUGS.name].body == joined(read_recording(out)[1])


def test_raw_refuses_to_overwrite(fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path) -> None:
    server, loaded = fast
    out, raw = wd / "r.jsonl", wd / "r.sse"
    raw.write_bytes(b"keep me\r\n")
    args = ("record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {TEXT.name}")
    run = sseconform(*args, "-o", out, "--raw", raw, cwd=wd)
    assert run.code == 2, run.both
    assert f"{raw.name}: exists" in run.err and "--force" in run.err
    assert raw.read_bytes() == b"keep me\r\n"
    assert not out.exists()
    run = sseconform(*args, "-o", out, "--raw", raw, "--force", cwd=wd)
    assert run.code == 0, run.both
    assert raw.read_bytes() == loaded[TEXT.name].body


def test_refused_output_leaves_no_raw_file(
    fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, _ = fast
    out, raw = wd / "r.jsonl", wd / "r.sse"
    out.write_bytes(b"old\n")
    run = sseconform(
        "record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {TEXT.name}",
        "-o", out, "--raw", raw,
        cwd=wd,
    )  # fmt: skip
    assert run.code == 2, run.both
    assert out.read_bytes() == b"old\n"
    assert not raw.exists()


@pytest.mark.parametrize(
    ("source", "code", "expect"),
    [
        (TEXT, 0, "ok: 1 file checked, 0 failed"),
        (BUGS, 1, "FAILED: 1 file checked, 1 failed; 4 errors, 2 warnings"),
    ],
    ids=["conforming", "gateway-bugs"],
)
def test_check_flag(
    source: Path,
    code: int,
    expect: str,
    fast: tuple[ReplayServer, dict[str, Loaded]],
    wd: Path,
) -> None:
    server, _ = fast
    out = wd / "r.jsonl"
    run = sseconform(
        "record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {source.name}",
        "-o", out, "--check",
        cwd=wd,
    )  # fmt: skip
    assert run.code == code, run.both
    assert expect in run.out
    assert read_recording(out)[0].complete
    if code:
        assert "I003" in run.out and str(out) in run.out
    check = sseconform("check", out, cwd=wd)
    assert check.code == code and check.out == run.out


#: A conforming stream of each native dialect, and the path its provider serves it at.
NATIVE = {
    "anthropic": ("text-anthropic.jsonl", "/v1/messages"),
    "responses": ("text-responses.jsonl", "/v1/responses"),
    "gemini": (
        "text-gemini.jsonl",
        "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
    ),
}
#: How ``record --check`` learns the dialect: the preset, the URL's path, or the stream alone
#: (a gateway's path that names no dialect).
TOLD_BY = ("provider", "path", "stream")


@pytest.mark.parametrize("told_by", TOLD_BY)
@pytest.mark.parametrize("dialect", list(NATIVE))
def test_check_flag_reads_the_recorded_dialect(
    dialect: str, told_by: str, fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, _ = fast
    name, path = NATIVE[dialect]
    url = server.url + (path if told_by != "stream" else "/gateway/stream")
    preset = ["--provider", dialect] if told_by == "provider" else []
    run = sseconform(
        "record", url, *preset, "-d", BODY, "-H", f"{SELECT}: {name}", "-o", "r.jsonl", "--check",
        cwd=wd, env=cli_env(ANTHROPIC_API_KEY=SECRET, OPENAI_API_KEY=SECRET, GEMINI_API_KEY=SECRET),
    )  # fmt: skip
    auto = sseconform("check", "--grammar", "auto", "r.jsonl", cwd=wd)
    assert (run.code, run.out) == (auto.code, auto.out)
    assert run.code == 0 and "ok: 1 file checked, 0 failed" in run.out, run.both


@pytest.mark.parametrize("dialect", list(NATIVE))
def test_grammar_overrides_the_recorded_dialect(
    dialect: str, fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, _ = fast
    name, path = NATIVE[dialect]
    run = sseconform(
        "record", server.url + path, "-d", BODY, "-H", f"{SELECT}: {name}", "-o", "r.jsonl",
        "--check", "--grammar", "chat",
        cwd=wd,
    )  # fmt: skip
    chat = sseconform("check", "--grammar", "chat", "r.jsonl", cwd=wd)
    assert (run.code, run.out) == (chat.code, chat.out)
    assert run.code == 1 and "N00" in run.out  # a native stream, read as chat, leaks


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--check", "--grammar", "klingon"], "--grammar: unknown grammar 'klingon'; grammars: "),
        (["--grammar", "anthropic"], "--grammar says how --check reads the recording"),
    ],
    ids=["unknown", "without-check"],
)
def test_grammar_refused_before_sending(args: list[str], message: str, wd: Path) -> None:
    with Capture() as cap:
        run = sseconform("record", cap.url + CHAT, "-d", BODY, "-o", "r.jsonl", *args, cwd=wd)
        assert cap.requests == []
    assert run.code == 2 and message in run.err, run.both
    assert not (wd / "r.jsonl").exists()


def test_data_from_file_and_stdin(wd: Path) -> None:
    payload = b'{"model": "m", "messages": [{"role": "user", "content": "caf\xc3\xa9"}]}'
    (wd / "req.json").write_bytes(payload)
    with Capture() as cap:
        url = cap.url + CHAT
        run = sseconform("record", url, "-d", "@req.json", "-o", "a.jsonl", cwd=wd)
        assert run.code == 0, run.both
        run = sseconform("record", url, "-d", "@-", "-o", "b.jsonl", cwd=wd, stdin=payload)
        assert run.code == 0, run.both
    assert [r.body for r in cap.requests] == [payload, payload]
    assert all(r.method == "POST" for r in cap.requests)
    assert all(r.header("content-type") == "application/json" for r in cap.requests)
    for name in ("a.jsonl", "b.jsonl"):
        assert header_line(wd / name)["request"]["body"] == json.loads(payload)
        assert joined(read_recording(wd / name)[1]) == SSE_BODY
    run = sseconform("record", url, "-d", "@missing.json", "-o", "c.jsonl", cwd=wd)
    assert run.code == 2 and "missing.json" in run.err
    assert not (wd / "c.jsonl").exists()


# -- provider presets ---------------------------------------------------------------------------

PRESET_CASES = {
    # provider: (path, key variable, auth header, auth value, extra headers, stream in the body)
    "openai": (CHAT, "OPENAI_API_KEY", "authorization", f"Bearer {SECRET}", {}, True),
    "responses": ("/v1/responses", "OPENAI_API_KEY", "authorization", f"Bearer {SECRET}", {}, True),
    "anthropic": (
        "/v1/messages",
        "ANTHROPIC_API_KEY",
        "x-api-key",
        SECRET,
        {"anthropic-version": "2023-06-01"},
        True,
    ),
    "gemini": (
        "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
        "GEMINI_API_KEY",
        "x-goog-api-key",
        SECRET,
        {},
        False,
    ),
}


#: a body that does not ask for a stream: the preset adds what its provider needs
ASKED = json.dumps({k: v for k, v in json.loads(BODY).items() if k != "stream"})


@pytest.mark.parametrize("provider", list(PRESET_CASES))
def test_provider_preset_sends(provider: str, wd: Path) -> None:
    path, var, auth, value, extra, stream = PRESET_CASES[provider]
    with Capture() as cap:
        run = sseconform(
            "record", cap.url + path, "--provider", provider, "-d", ASKED, "-o", "p.jsonl",
            cwd=wd, env=cli_env(**{var: SECRET}),
        )  # fmt: skip
    assert run.code == 0, run.both
    got = cap.only
    assert got.method == "POST" and got.path == path
    assert got.header(auth) == value
    for k, v in extra.items():
        assert got.header(k) == v
    assert got.header("content-type") == "application/json"
    body = got.json()
    assert {k: v for k, v in body.items() if k != "stream"} == json.loads(ASKED)
    if stream:
        assert body["stream"] is True
    else:
        assert "stream" not in body  # gemini asks for a stream in the URL (alt=sse)
    request = header_line(wd / "p.jsonl")["request"]
    assert request["body"] == body
    assert [auth, "[REDACTED]"] in request["headers"]
    assert SECRET not in (wd / "p.jsonl").read_text() + run.both


@pytest.mark.parametrize("provider", list(PRESET_CASES))
def test_provider_preset_against_replay(
    provider: str, fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, loaded = fast
    path, var, *_ = PRESET_CASES[provider]
    run = sseconform(
        "record", server.url + path, "--provider", provider, "-d", BODY,
        "-H", f"{SELECT}: {TEXT.name}", "-o", "p.jsonl",
        cwd=wd, env=cli_env(**{var: SECRET}),
    )  # fmt: skip
    assert run.code == 0, run.both
    assert joined(read_recording(wd / "p.jsonl")[1]) == loaded[TEXT.name].body


def test_gemini_key_from_google_api_key(wd: Path) -> None:
    path = PRESET_CASES["gemini"][0]
    with Capture() as cap:
        run = sseconform(
            "record", cap.url + path, "--provider", "gemini", "-d", BODY, "-o", "g.jsonl",
            cwd=wd, env=cli_env(GOOGLE_API_KEY=SECRET),
        )  # fmt: skip
    assert run.code == 0, run.both
    assert cap.only.header("x-goog-api-key") == SECRET


def test_gemini_needs_model(wd: Path) -> None:
    run = sseconform(
        "record", "--provider", "gemini", "-d", BODY, "-o", "g.jsonl",
        cwd=wd, env=cli_env(GEMINI_API_KEY=SECRET),
    )  # fmt: skip
    assert run.code == 2, run.both
    assert "--model" in run.err and run.err.startswith("sseconform: error:")
    assert not (wd / "g.jsonl").exists()


@pytest.mark.parametrize("provider", list(PRESET_CASES))
def test_provider_without_key(provider: str, wd: Path) -> None:
    path, var, *_ = PRESET_CASES[provider]
    with Capture() as cap:
        run = sseconform(
            "record", cap.url + path, "--provider", provider, "-d", BODY, "-o", "p.jsonl", cwd=wd
        )
    assert run.code == 2, run.both
    assert var in run.err and run.err.startswith("sseconform: error:")
    assert len(run.err.strip().splitlines()) == 1
    assert cap.requests == []
    assert not (wd / "p.jsonl").exists()


# -- the progress line --------------------------------------------------------------------------

PROGRESS = re.compile(rb"\r  \d+(\.\d)? K?i?B  \d+ events  \d+\.\d\d s")


def _on_terminal(wd: Path, *args: str) -> bytes:
    """Run with stderr on a pseudo-terminal; what the terminal got."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            command(*args),
            cwd=wd,
            env=cli_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=slave,
        )
        os.close(slave)
        slave = -1
        proc.wait(timeout=30)
        got = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the other side is closed and everything was read
                break
            if not chunk:
                break
            got += chunk
        return got
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)


def test_progress_line_only_on_a_terminal(
    fast: tuple[ReplayServer, dict[str, Loaded]], wd: Path
) -> None:
    server, _ = fast
    args = ("record", server.url + CHAT, "-d", BODY, "-H", f"{SELECT}: {TEXT.name}")
    shown = _on_terminal(wd, *args, "-o", "a.jsonl")
    assert PROGRESS.search(shown), shown
    assert b"recorded a.jsonl: complete" in shown
    quiet = _on_terminal(wd, *args, "-o", "b.jsonl", "--quiet")
    assert not PROGRESS.search(quiet), quiet
    assert b"recorded b.jsonl: complete" in quiet


def test_record_needs_output(wd: Path) -> None:
    run = sseconform("record", f"http://{HOST}:9/x", cwd=wd)
    assert run.code == 2 and "-o/--output" in run.err
