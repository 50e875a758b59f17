"""The replay server on 127.0.0.1: routing, byte-exactness, timing, robustness, the CLI.

Real sockets, real clients (httpx, raw TCP for what httpx will not send), real subprocesses for
the command line. Every server binds 127.0.0.1 on a port the OS picks.
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import logging
import os
import pathlib
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from sseconform.errors import UsageError
from sseconform.replay.plan import event_ends
from sseconform.replay.scenario import load_rules
from sseconform.replay.server import ReplayServer
from tests.cli.helpers import cli_env, run_cli
from tests.replay.conftest import (
    ANTHROPIC_TEXT,
    ANTHROPIC_TOOL,
    GATEWAY,
    GEMINI,
    HOST,
    LOADED,
    PATHS,
    RECORDINGS_DIR,
    STREAM,
    TEXT,
    TOOLS,
    body_through,
    client,
    fetch_raw,
    headers_for,
    path_for,
    raw_exchange,
    rec,
    serving,
    timed_pieces,
)

ALL = sorted(LOADED)
BY_BODY = {r.body: name for name, r in LOADED.items()}


def which(body: bytes) -> str:
    """The recording a body is, or a marker when it is none of them."""
    return BY_BODY.get(body, f"<{len(body)} bytes of no recording>")


def served(
    server: ReplayServer,
    path: str,
    *,
    model: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    body = {"model": model, "stream": True} if model else {"stream": True}
    with client() as http:
        status, got, exc = fetch_raw(http, server.url + path, body=body, headers=headers)
    assert exc is None, exc
    return status, got


# -- byte-exact --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_each_recording_is_served_byte_exact(shared_server: ReplayServer, name: str) -> None:
    r = rec(name)
    with (
        client() as http,
        http.stream(
            "POST", shared_server.url + path_for(name), json=STREAM, headers=headers_for(name)
        ) as resp,
    ):
        got = b"".join(resp.iter_raw())
        assert resp.status_code == 200
        assert resp.headers["content-type"] == dict(r.headers)["content-type"]
        assert resp.headers.get_list("transfer-encoding") == ["chunked"]
        assert "date" not in resp.headers  # hop-by-hop and per-connection headers are not replayed
    assert got == r.body


@pytest.mark.parametrize("split", ["1", "7", "event", "crlf"])
@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL, GEMINI])
def test_split_serves_the_same_bytes(name: str, split: str) -> None:
    with serving([name], split=split) as server:
        status, got = served(server, path_for(name))
    assert status == 200 and got == rec(name).body


# -- routing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "dialect"),
    [
        ("/v1/chat/completions", "openai"),
        ("/openai/v1/chat/completions/", "openai"),
        ("/v1/messages", "anthropic"),
        ("/v1/responses", "responses"),
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "gemini"),
        ("/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "gemini"),
        ("/v1beta/models/gemini-other:streamGenerateContent?alt=sse", "gemini"),
    ],
)
def test_provider_paths_route_to_their_dialect(
    shared_server: ReplayServer, path: str, dialect: str
) -> None:
    status, got = served(shared_server, path)
    assert status == 200
    assert rec(which(got)).dialect == dialect


def test_selection_by_model() -> None:
    with serving() as server:
        for _ in range(3):  # one exact candidate: always the same, no rotation
            assert which(served(server, "/v1/messages", model="claude-haiku-4-5")[1]) == (
                ANTHROPIC_TEXT
            )
            assert which(served(server, "/v1/messages", model="claude-sonnet-4-6")[1]) == (
                ANTHROPIC_TOOL
            )
            assert which(served(server, "/v1/chat/completions", model="claude-sonnet")[1]) == (
                GATEWAY
            )
        # Gemini carries the model in the path
        assert which(served(server, PATHS["gemini"])[1]) == GEMINI


def test_rotation_among_equal_candidates() -> None:
    with serving([TEXT, TOOLS, GATEWAY]) as server:
        # two recordings were made with gpt-4o-mini: turn 1, turn 2, turn 1, ...
        turns = [which(served(server, PATHS["openai"], model="gpt-4o-mini")[1]) for _ in range(4)]
        assert turns == [TEXT, TOOLS, TEXT, TOOLS]
        # no model (or an unknown one): every openai recording in turn
        turns = [which(served(server, PATHS["openai"])[1]) for _ in range(6)]
        assert sorted(turns[:3]) == sorted([TEXT, TOOLS, GATEWAY])
        assert turns[3:] == turns[:3]


def test_selection_header_wins_over_path_and_model(shared_server: ReplayServer) -> None:
    got = served(
        shared_server,
        "/v1/messages",
        model="claude-haiku-4-5",
        headers={"X-SSEConform-Recording": GEMINI},
    )
    assert got == (200, rec(GEMINI).body)
    # any path at all, once the recording is named
    assert served(shared_server, "/anything", headers=headers_for(TOOLS)) == (200, rec(TOOLS).body)


def _not_found(status: int, body: bytes) -> str:
    assert status == 404, body[:200]
    message = json.loads(body)["error"]["message"]
    assert isinstance(message, str) and message.startswith("no recording for ")
    return message


def test_unknown_path_is_404_naming_the_recordings(shared_server: ReplayServer) -> None:
    with client() as http:
        for method, path in [("POST", "/nope"), ("GET", "/"), ("POST", "/v1/embeddings")]:
            resp = http.request(method, shared_server.url + path)
            assert resp.headers["content-type"] == "application/json"
            message = _not_found(resp.status_code, resp.content)
            assert f"{method} {path}" in message
            for name in ALL:
                assert name in message


def test_a_dialect_without_recordings_is_404() -> None:
    with serving([TEXT]) as server, client() as http:
        resp = http.post(server.url + "/v1/messages", json={"model": "claude-haiku-4-5"})
        assert "text-usage.jsonl" in _not_found(resp.status_code, resp.content)


TRAVERSAL_PATHS = [
    "/../../etc/passwd",
    "/../../../../../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2fetc%2fpasswd",
    "//etc/passwd",
    "/etc/passwd",
    "/v1/../../etc/passwd",
    "/recordings/chat/text-usage.jsonl",
    "/text-usage.jsonl",
    "/C:/Windows/win.ini",
]


def _traversal_headers() -> list[str]:
    return [
        "../../etc/passwd",
        "/etc/passwd",
        str(RECORDINGS_DIR / "chat" / TEXT),  # a served file, by its path: still only names
        "chat/text-usage.jsonl",
        "recordings/chat/text-usage.jsonl",
        f"../chat/{TEXT}",
        "README.md",
        "pyproject.toml",
        ".",
        "..",
        "",
    ]


def _request(path: str, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nhost: {HOST}\r\ncontent-length: 0\r\nconnection: close\r\n"
        f"{extra}\r\n"
    ).encode()


def _split_response(raw: bytes) -> tuple[int, bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _probe_traversal(port: int) -> None:
    for path in TRAVERSAL_PATHS:
        status, body = _split_response(raw_exchange(port, _request(path)))
        _not_found(status, body)
        assert b"root:" not in body
    for value in _traversal_headers():
        raw = raw_exchange(port, _request("/v1/messages", f"x-sseconform-recording: {value}\r\n"))
        status, body = _split_response(raw)
        _not_found(status, body)


def test_request_paths_and_headers_never_reach_the_file_system(
    shared_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str, str]] = []

    def spy(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append((threading.current_thread().name, name, repr(args[:1])))
            return real(*args, **kwargs)

        return wrapper

    spied: list[tuple[ModuleType | type, str]] = [
        (builtins, "open"),
        (io, "open"),
        (os, "open"),
        (os, "stat"),
        (pathlib.Path, "read_bytes"),
        (pathlib.Path, "read_text"),
        (pathlib.Path, "open"),
    ]
    for owner, attr in spied:
        monkeypatch.setattr(owner, attr, spy(f"{owner.__name__}.{attr}", getattr(owner, attr)))
    _probe_traversal(shared_server.port)
    # and a request that is served, while the spies watch
    raw = raw_exchange(
        shared_server.port, _request("/v1/messages", f"x-sseconform-recording: {GEMINI}\r\n")
    )
    assert _split_response(raw)[0] == 200
    monkeypatch.undo()
    assert calls == []


# -- scenario files -----------------------------------------------------------------------------

SCENARIO = """
[[rule]]                        # 1: the first retry gets a 429 ...
path = "/v1/chat/completions"
header = "X-Test: retry"
recording = "parallel-tool-calls.jsonl"
fault = "status=429"
times = 1
speed = 0

[[rule]]                        # 2: ... the next ones the stream
path = "/v1/chat/completions"
header = "x-test: retry"
recording = "parallel-tool-calls.jsonl"
speed = 0

[[rule]]                        # 3: a dialect name as the path, and a model
path = "anthropic"
model = "claude-haiku-4-5"
recording = "messages-tool-use.jsonl"
speed = 0

[[rule]]                        # 4: a fault on every match
path = "openai"
model = "gpt-4o-mini"
recording = "text-usage.jsonl"
fault = "drop-after-events=2"
speed = 0
"""


def test_scenario_rules_apply_in_order(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(SCENARIO)
    rules = load_rules(str(scenario), set(LOADED))
    assert [r.recording for r in rules] == [TOOLS, TOOLS, ANTHROPIC_TOOL, TEXT]
    assert rules[0].header == ("x-test", "retry")
    with serving(rules=rules, speed=1) as server, client() as http:
        chat = server.url + PATHS["openai"]
        retry = {"x-test": "retry"}
        # rule 1, once: the provider's own 429
        resp = http.post(chat, json={"model": "gpt-4o-mini"}, headers=retry)
        assert resp.status_code == 429
        assert resp.json()["error"]["code"] == "rate_limit_exceeded"
        # rule 2 (rule 1 is used up), at the rule's speed 0
        for _ in range(2):
            t0 = time.monotonic()
            assert fetch_raw(
                http, chat, body={"model": "gpt-4o-mini", "stream": True}, headers=retry
            ) == (
                200,
                rec(TOOLS).body,
                None,
            )
            assert time.monotonic() - t0 < 0.3
        # the header value must match exactly: rule 4 then (model gpt-4o-mini), dropped after 2
        status, got, exc = fetch_raw(
            http, chat, body={"model": "gpt-4o-mini", "stream": True}, headers={"x-test": "RETRY"}
        )
        assert (status, got) == (200, body_through(TEXT, 2))
        assert isinstance(exc, httpx.ReadError)  # the reset, after every byte before it
        # a fault header wins over the rule's fault
        status, got, exc = fetch_raw(
            http,
            chat,
            body={"model": "gpt-4o-mini", "stream": True},
            headers=headers_for(fault="drop-after-events=5"),
        )
        assert got == body_through(TEXT, 5) and exc is not None
        # rule 3: a dialect name as path; the haiku request gets the tool-use recording
        t0 = time.monotonic()
        got3 = fetch_raw(
            http, server.url + "/v1/messages", body={"model": "claude-haiku-4-5", "stream": True}
        )
        assert got3 == (200, rec(ANTHROPIC_TOOL).body, None)
        assert time.monotonic() - t0 < 0.3  # the recording takes 1.1 s at speed 1
        # no rule: routed as usual, at the server's speed 1
        t0 = time.monotonic()
        got4 = fetch_raw(
            http, server.url + "/v1/messages", body={"model": "claude-sonnet-4-6", "stream": True}
        )
        assert got4 == (200, rec(ANTHROPIC_TOOL).body, None)
        assert time.monotonic() - t0 > 1.0
    assert [r.used for r in rules] == [1, 2, 1, 2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no [[rule]] tables"),
        ('[[rule]]\nrecording = "nope.jsonl"\n', "recording must be one of"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\nbogus = 1\n', "unknown key(s) ['bogus']"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\nfault = "explode"\n', "unknown fault"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\ntimes = 0\n', "times must be"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\ntimes = true\n', "times must be"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\nspeed = -1\n', "speed must be"),
        ('[[rule]]\nrecording = "text-usage.jsonl"\nheader = "x-a"\n', "header must be"),
        ("[[rule]\n", "not TOML"),
    ],
)
def test_bad_scenarios_are_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(text)
    with pytest.raises(UsageError) as info:
        load_rules(str(scenario), set(LOADED))
    assert message in str(info.value) and str(scenario) in str(info.value)


# -- faults set on the server --------------------------------------------------------------


def test_server_fault_applies_to_every_request_and_the_header_overrides_it() -> None:
    with serving([ANTHROPIC_TEXT], fault="drop-after-events=3") as server, client() as http:
        url = server.url + "/v1/messages"
        for _ in range(2):
            status, got, exc = fetch_raw(http, url)
            assert (status, got) == (200, body_through(ANTHROPIC_TEXT, 3))
            assert isinstance(exc, httpx.ReadError)
        assert fetch_raw(http, url, headers=headers_for(fault="truncate-last"))[2] is None
        resp = http.post(url, headers=headers_for(fault="status=529"))
        assert resp.status_code == 529 and resp.json()["error"]["type"] == "overloaded_error"
        assert resp.headers["content-length"] == str(len(resp.content))


def test_a_bad_fault_header_is_400_naming_the_faults(shared_server: ReplayServer) -> None:
    with client() as http:
        resp = http.post(shared_server.url + "/v1/messages", headers=headers_for(fault="explode=1"))
    assert resp.status_code == 400
    message = resp.json()["error"]["message"]
    assert "unknown fault 'explode=1'" in message and "drop-after-events=N" in message


# -- malformed requests --------------------------------------------------------------------

#: A request head's first two lines, for the raw requests below.
P = b"POST /v1/messages HTTP/1.1\r\nhost: t\r\n"
MALFORMED = {
    "garbage request line": b"HELLO\r\n\r\n",
    "binary request line": b"\x00\xff\xfe\x16\x03\x01 nonsense\r\n\r\n",
    "three words, not HTTP": b"GET / FTP/1.0\r\n\r\n",
    "HTTP/2 request line": b"POST /v1/messages HTTP/2.0\r\n\r\n",
    "header without colon": P + b"no-colon-here\r\n\r\n",
    "non-numeric content-length": P + b"content-length: ten\r\n\r\n",
    "negative content-length": P + b"content-length: -5\r\n\r\n",
    "huge content-length": P + b"content-length: 99999999999\r\n\r\n",
    "bad chunk size": P + b"transfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    "negative chunk size": P + b"transfer-encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
    "huge chunk": P + b"transfer-encoding: chunked\r\n\r\nfffffffff\r\nhello\r\n0\r\n\r\n",
}


#: What a request that cannot be served gets: bad request, too large, head too large, a
#: transfer-encoding not implemented, an HTTP version not supported.
REFUSED = {400, 413, 431, 501, 505}


def test_malformed_requests_get_400_and_the_server_keeps_serving() -> None:
    with serving([ANTHROPIC_TEXT]) as server:
        for label, data in MALFORMED.items():
            raw = raw_exchange(server.port, data)
            status = int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0
            assert status in REFUSED, (label, raw[:100])
            message = json.loads(_split_response(raw)[1])["error"]["message"]
            assert isinstance(message, str) and message, label
        # a header block over the 64 KiB limit: 400, or a reset while we are still sending
        raw = raw_exchange(server.port, P + b"x-a: " + b"a" * 70_000)
        assert raw.startswith(b"HTTP/1.1 431 ") or raw in (b"", b"<RESET>"), raw[:100]
        # a body shorter than its content-length, then the client gives up
        with socket.create_connection((HOST, server.port), timeout=5) as s:
            s.sendall(P + b"content-length: 50\r\n\r\nabc")
            s.shutdown(1)  # SHUT_WR
            assert s.recv(100).startswith(b"HTTP/1.1 400 ")
        # a client that connects and leaves at once
        socket.create_connection((HOST, server.port), timeout=5).close()
        # a well-formed chunked request body is read and answered
        one, two = b'{"model": "claude-h', b'aiku-4-5", "x": 1}'
        chunked = (
            P + b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            b"%x\r\n%b\r\n%x;ext=1\r\n%b\r\n0\r\n\r\n" % (len(one), one, len(two), two)
        )
        raw = raw_exchange(server.port, chunked)
        assert raw.startswith(b"HTTP/1.1 200 OK\r\n"), raw[:200]
        # and after all that, a normal client still gets the whole stream
        assert served(server, "/v1/messages") == (200, rec(ANTHROPIC_TEXT).body)


def test_an_http_1_0_client_gets_the_body_unchunked() -> None:
    with serving([ANTHROPIC_TEXT]) as server:
        raw = raw_exchange(server.port, b"POST /v1/messages HTTP/1.0\r\ncontent-length: 0\r\n\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.split(b" ", 2)[1] == b"200"
    assert b"transfer-encoding" not in head.lower()
    assert body == rec(ANTHROPIC_TEXT).body


def test_head_gets_no_body() -> None:
    with serving([ANTHROPIC_TEXT]) as server:
        raw = raw_exchange(
            server.port, b"HEAD /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
        )
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405 ") and body == b""  # a provider path: POST alone


# -- timing ----------------------------------------------------------------------------------

TOLERANCE = 0.03  # seconds, per read, relative to the first byte


def _timing_misses(name: str, speed: float) -> list[str]:
    """One replay of ``name`` read as it arrives: its bytes must be the recording's (asserted),
    and what arrived off its recorded time is returned (none: faithful)."""
    r = rec(name)
    scale = 1 / speed
    starts, pos = [], 0
    for t, data in r.reads:
        starts.append((pos, t))
        pos += len(data)
    with serving([name], speed=speed) as server, client() as http:
        head, pieces = timed_pieces(http, server.url + path_for(name), headers_for(name))
    assert b"".join(p for _, p in pieces) == r.body
    misses = []
    if abs(head - r.t_head * scale) >= TOLERANCE + 0.02:
        misses.append(f"head at {head:.3f} s, recorded {r.t_head * scale:.3f} s")
    first_arrival, first_t = pieces[0][0], r.reads[0][0]
    pos, checked = 0, 0
    for arrival, piece in pieces:
        inside = [t for s, t in starts if pos <= s < pos + len(piece)]
        pos += len(piece)
        if not inside:
            continue  # the tail of a read that came in two pieces
        expected = (max(inside) - first_t) * scale
        if abs((arrival - first_arrival) - expected) >= TOLERANCE:
            misses.append(f"read at {arrival - first_arrival:.3f} s, recorded {expected:.3f} s")
        checked += 1
    assert checked >= len(r.reads) // 2
    return misses


def _check_timing(name: str, speed: float) -> None:
    """A miss is confirmed by a second replay before it fails: a replay that keeps its times
    misses every time, a shared machine's scheduler only now and then (seen: a head 55 ms
    late while four test workers and a Codex CLI ran on two cores)."""
    first = _timing_misses(name, speed)
    if first:
        again = _timing_misses(name, speed)
        assert not again, (first, again)


@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL])
def test_speed_1_keeps_the_recorded_timing(name: str) -> None:
    _check_timing(name, 1.0)


def test_speed_2_halves_the_timing() -> None:
    _check_timing(ANTHROPIC_TEXT, 2.0)


def test_speed_0_is_fast() -> None:
    with serving(speed=0) as server, client() as http:
        t0 = time.monotonic()
        for name in ALL:
            _, pieces = timed_pieces(http, server.url + path_for(name), headers_for(name))
            assert b"".join(p for _, p in pieces) == rec(name).body
        assert time.monotonic() - t0 < 1.0  # the recordings last 5.6 s in all at speed 1


def test_stall_pauses_after_event_n() -> None:
    r = rec(ANTHROPIC_TOOL)
    cut = event_ends(r.body)[3]
    with serving([ANTHROPIC_TOOL], speed=0) as server, client() as http:
        t0 = time.monotonic()
        _, pieces = timed_pieces(
            http, server.url + "/v1/messages", headers_for(fault="stall=0.4@4")
        )
    assert b"".join(p for _, p in pieces) == r.body
    pos = 0
    for arrival, piece in pieces:
        if pos < cut:
            assert arrival < 0.2 and pos + len(piece) <= cut
        else:
            assert arrival >= 0.4
        pos += len(piece)
    assert time.monotonic() - t0 < 1.0


# -- many clients at once ------------------------------------------------------------------


def test_50_concurrent_clients_get_complete_byte_exact_streams() -> None:
    names = [ALL[i % len(ALL)] for i in range(50)]
    barrier = threading.Barrier(50)

    def one(name: str) -> bytes:
        with client(timeout=20) as http:
            barrier.wait(timeout=20)
            status, got, exc = fetch_raw(http, http_url + path_for(name), headers=headers_for(name))
            assert status == 200 and exc is None
            return got

    lines: list[str] = []
    with serving(speed=1, log=lines.append) as server:
        http_url = server.url
        t0 = time.monotonic()
        with ThreadPoolExecutor(max_workers=50) as pool:
            bodies = list(pool.map(one, names))
        elapsed = time.monotonic() - t0
        deadline = time.monotonic() + 2
        while len(lines) < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [which(b) for b in bodies] == names
    # concurrently: one after another would take over 40 s; the longest recording is 1.1 s
    assert elapsed < 5.0
    assert len(lines) == 50 and all(line.endswith("(complete)") for line in lines)


def test_each_request_is_logged() -> None:
    lines: list[str] = []
    with serving([ANTHROPIC_TEXT, TEXT], log=lines.append) as server, client() as http:
        fetch_raw(http, server.url + "/v1/messages")
        fetch_raw(
            http, server.url + PATHS["openai"], headers=headers_for(fault="drop-after-events=1")
        )
        http.post(server.url + "/nope")
        deadline = time.monotonic() + 2
        while len(lines) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    n = len(rec(ANTHROPIC_TEXT).body)
    assert re.fullmatch(
        rf"127\.0\.0\.1:\d+ POST /v1/messages -> {ANTHROPIC_TEXT} 200 {n} bytes in "
        r"\d+\.\d{3} s \(complete\)",
        lines[0],
    ), lines[0]
    sent = len(body_through(TEXT, 1))
    assert f"-> {TEXT} 200 faults=drop-after-events=1 fired=drop {sent} bytes" in lines[1]
    assert lines[1].endswith("(dropped)")
    assert "POST /nope -> - 404" in lines[2]


def test_a_client_that_hangs_up_is_logged_too() -> None:
    """Regression: a request whose client reset the connection mid-stream was never logged."""
    lines: list[str] = []
    with serving([ANTHROPIC_TOOL], log=lines.append) as server:
        s = socket.create_connection((HOST, server.port), timeout=5)
        s.sendall(_request("/v1/messages", "x-sseconform-fault: stall=0.3@2\r\n"))
        assert s.recv(100).startswith(b"HTTP/1.1 200 OK")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # a reset, while the server waits out the stall
        deadline = time.monotonic() + 1.5
        while not lines and time.monotonic() < deadline:
            time.sleep(0.02)
    assert len(lines) == 1 and f"-> {ANTHROPIC_TOOL} 200 faults=stall=0.3@2" in lines[0]
    assert lines[0].endswith("(client hung up)")


def test_the_log_escapes_control_characters() -> None:
    """Regression: the request path reached the operator's terminal raw (escape sequences)."""
    lines: list[str] = []
    with serving([TEXT], log=lines.append) as server:
        raw_exchange(server.port, _request("/\x1b[2J\x1b]0;title\x07"))
        deadline = time.monotonic() + 2
        while not lines and time.monotonic() < deadline:
            time.sleep(0.02)
    # control characters are not allowed in a request target: refused, and logged escaped
    assert len(lines) == 1 and " 400 " in lines[0]
    assert not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in lines[0]), repr(lines[0])
    assert "POST /\\x1b[2J\\x1b]0;title\\x07 HTTP/1.1 -> - 400" in lines[0]


# -- stopping ----------------------------------------------------------------------------------


def test_stopping_returns_promptly_with_a_stream_in_flight() -> None:
    before = set(threading.enumerate())
    with serving([ANTHROPIC_TOOL], speed=1) as server:
        with (
            client() as http,
            http.stream("POST", server.url + "/v1/messages", json=STREAM) as resp,
        ):
            first = next(resp.iter_raw())
            assert rec(ANTHROPIC_TOOL).body.startswith(first)
        t0 = time.monotonic()
    assert time.monotonic() - t0 < 1.0
    assert set(threading.enumerate()) <= before  # the server's thread has ended


def test_stopping_with_an_idle_connection_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an idle connection at shutdown made asyncio log a CancelledError in a
    callback and leaked the server's socket (ResourceWarning: unclosed transport)."""
    unraisable: list[str] = []
    errors: list[str] = []

    class Keep(logging.Handler):
        """Keeps the text only: a kept record would keep the handler's frames alive."""

        def emit(self, record: logging.LogRecord) -> None:
            errors.append(record.getMessage().split("(")[0])

    log = logging.getLogger("asyncio")
    handler = Keep(logging.ERROR)
    monkeypatch.setattr(log, "propagate", False)
    log.addHandler(handler)
    monkeypatch.setattr(sys, "unraisablehook", lambda u: unraisable.append(repr(u.exc_value)))
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with serving([TEXT]) as server:
                idle = socket.create_connection((HOST, server.port), timeout=5)
                time.sleep(0.1)  # accepted, waiting for a request line
            idle.close()
            gc.collect()
            leaks = [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)]
            seen.clear()
    finally:
        log.removeHandler(handler)
    assert (leaks, unraisable, errors) == ([], [], [])


# -- the command line ----------------------------------------------------------------------

SERVING = re.compile(r"serving (\d+) recording\(s\) on (http://([\d.]+):(\d+))")


# ``python -m sseconform``, with SIGINT back to Python's handler first: a test run started in
# the background by a non-interactive shell inherits SIGINT ignored, and Python then installs
# no KeyboardInterrupt handler at all (nor does asyncio.run), so the signal would do nothing.
MAIN = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'sseconform'; runpy.run_module('sseconform', run_name='__main__')"
)


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, "replay", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=cli_env(),
    )


def _first_line(proc: subprocess.Popen[str], timeout: float = 20) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the server printed nothing"
    return proc.stdout.readline()


def _interrupt(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGINT, wait, and the rest of the output (read past what readline buffered)."""
    assert proc.stdout is not None and proc.stderr is not None
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    return proc.stdout.read(), proc.stderr.read()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def test_cli_serves_then_exits_cleanly_on_sigint(processes: list[subprocess.Popen[str]]) -> None:
    files = [RECORDINGS_DIR / "chat" / TEXT, RECORDINGS_DIR / "anthropic" / ANTHROPIC_TEXT]
    proc = _start(*map(str, files), "--port", "0", "--speed", "0")
    processes.append(proc)
    line = _first_line(proc)
    m = SERVING.search(line)
    assert m, line
    assert m.group(1) == "2" and m.group(3) == "127.0.0.1" and int(m.group(4)) > 0
    with client() as http:
        assert fetch_raw(http, m.group(2) + "/v1/messages") == (
            200,
            rec(ANTHROPIC_TEXT).body,
            None,
        )
    time.sleep(0.1)  # let the log line out
    out, err = _interrupt(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in out + err
    assert f"{ANTHROPIC_TEXT}: anthropic, model claude-haiku-4-5, HTTP 200, 9 reads" in out
    assert f"{TEXT}: openai, model gpt-4o-mini, HTTP 200, 18 reads" in out
    assert f"POST /v1/messages -> {ANTHROPIC_TEXT} 200" in err
    assert "stopped" in err and "warning" not in err


def test_cli_warns_when_not_on_loopback(processes: list[subprocess.Popen[str]]) -> None:
    """Binds 0.0.0.0 only to read the warning; nothing is sent to it."""
    proc = _start(str(RECORDINGS_DIR / "chat" / TEXT), "--host", "0.0.0.0", "--port", "0")
    processes.append(proc)
    m = SERVING.search(_first_line(proc))
    assert m and m.group(3) == "0.0.0.0"
    out, err = _interrupt(proc)
    assert "sseconform: warning: serving on 0.0.0.0, not loopback" in err
    assert "Traceback" not in out + err


def _bad_inputs(tmp: Path) -> dict[str, list[str]]:
    text = str(RECORDINGS_DIR / "chat" / TEXT)
    broken = tmp / "broken.jsonl"
    broken.write_text('{"format": "sseconform-recording", "version": 1}\n{"t": "soon"}\n')
    (tmp / "copy").mkdir()
    twin = tmp / "copy" / TEXT
    twin.write_bytes(Path(text).read_bytes())
    scenarios = {
        "unknown-key": '[[rule]]\nrecording = "text-usage.jsonl"\nbogus = 1\n',
        "unknown-recording": '[[rule]]\nrecording = "other.jsonl"\n',
        "not-toml": "[[rule]\n",
        "bad-fault": '[[rule]]\nrecording = "text-usage.jsonl"\nfault = "explode"\n',
    }
    for key, body in scenarios.items():
        (tmp / f"{key}.toml").write_text(body)
    return {
        "no such file": [str(tmp / "missing.jsonl")],
        "is a directory": [str(tmp / "copy")],
        "line 2": [str(broken)],
        "share a file name": [text, str(twin)],
        "bad --split 'zz'": [text, "--split", "zz"],
        "bad --split '0'": [text, "--split", "0"],
        "unknown fault 'explode'": [text, "--fault", "explode"],
        "bad value in fault 'status=200'": [text, "--fault", "status=200"],
        "cannot read the scenario": [text, "--scenario", str(tmp / "missing.toml")],
        "unknown key(s) ['bogus']": [text, "--scenario", str(tmp / "unknown-key.toml")],
        "recording must be one of": [text, "--scenario", str(tmp / "unknown-recording.toml")],
        "not TOML": [text, "--scenario", str(tmp / "not-toml.toml")],
        "rule 1: unknown fault": [text, "--scenario", str(tmp / "bad-fault.toml")],
    }


def test_cli_bad_inputs_exit_2_with_one_line(tmp_path: Path) -> None:
    for expected, args in _bad_inputs(tmp_path).items():
        run = run_cli("replay", *args, "--port", "0", cwd=tmp_path, timeout=30)
        assert run.code == 2, (args, run.both)
        assert run.out == ""
        lines = run.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("sseconform: error: "), run.err
        assert expected in lines[0], (expected, lines[0])


def test_cli_port_in_use_exits_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind((HOST, 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = run_cli(
            "replay",
            str(RECORDINGS_DIR / "chat" / TEXT),
            "--port",
            str(port),
            cwd=tmp_path,
            timeout=30,
        )
    assert run.code == 2 and run.out == ""
    assert run.err.startswith(f"sseconform: error: cannot listen on 127.0.0.1:{port}: ")
    assert len(run.err.splitlines()) == 1
