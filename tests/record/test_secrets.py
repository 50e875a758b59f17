"""No secret value appears anywhere in a recording, its --raw file, or what ``record`` prints.

Every secret is a distinctive string, searched for in the whole file's bytes (and in its JSON
and URL escapings), after checking that the server really received it: the request went out
with the secret and the file kept "[REDACTED]" in its place, and says what it redacted.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from sseconform.record import Request, record
from sseconform.recording.redact import REDACTED, Redactor
from sseconform.replay.plan import Loaded
from sseconform.replay.server import ReplayServer
from tests.cli.helpers import Run
from tests.record import (
    CHAT,
    HOST,
    SELECT,
    SSE_BODY,
    TEXT,
    Capture,
    cli_env,
    header_line,
    joined,
    read_recording,
    replaying,
    sseconform,
    workdir,
)

AUTH = "sk-test-SECRET-auth-1234567890"
XAPI = "sk-test-SECRET-xapi-1234567890"
GOOG = "sk-test-SECRET-goog-1234567890"
APIKEY = "sk-test-SECRET-apikey-1234567890"
COOKIE = "sk-test-SECRET-cookie-1234567890"
SETCOOKIE = "sk-test-SECRET-setcookie-1234567890"
QUERY = "sk-test-SECRET-query-1234567890"
FIELD = "sk-test-SECRET-field-1234567890"
NESTED = "sk-test-SECRET-nested-1234567890"
ALL = (AUTH, XAPI, GOOG, APIKEY, COOKIE, SETCOOKIE, QUERY, FIELD, NESTED)

HEADERS = [
    ("Authorization", f"Bearer {AUTH}"),
    ("x-api-key", XAPI),
    ("x-goog-api-key", GOOG),
    ("api-key", APIKEY),
    ("Cookie", f"session={COOKIE}; theme=dark"),
]
BODY = {
    "model": "gpt-4o-mini",
    "stream": True,
    "api_key": FIELD,
    "messages": [{"role": "user", "content": "hi"}],
    "metadata": {"owner": {"API_KEY": NESTED}},
}
GEMINI_PATH = "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
AUTH_HEADER = {
    "openai": "authorization",
    "responses": "authorization",
    "anthropic": "x-api-key",
    "gemini": "x-goog-api-key",
}
EXPECT_REDACTED = {
    "request.headers.authorization",
    "request.headers.x-api-key",
    "request.headers.x-goog-api-key",
    "request.headers.api-key",
    "request.headers.cookie",
    "request.url.query.key",
    "request.body.api_key",
    "request.body.metadata.owner.API_KEY",
}


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if "proxy" in name.lower():
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def replay() -> Iterator[tuple[ReplayServer, Loaded]]:
    with replaying(TEXT, speed=0.0) as (server, loaded):
        yield server, loaded[0]


@pytest.fixture
def wd(tmp_path: Path) -> Path:
    return workdir(tmp_path)


def _forms(secret: str) -> list[bytes]:
    """The ways a secret could be spelled in a file: as is, URL-quoted, JSON-escaped."""
    return [
        secret.encode(),
        quote(secret, safe="").encode(),
        json.dumps(secret).strip('"').encode(),
        secret.encode("utf-16-le"),
    ]


def _assert_nowhere(secrets: tuple[str, ...] | list[str], *blobs: bytes) -> None:
    for secret in secrets:
        for blob in blobs:
            for form in _forms(secret):
                assert form not in blob, f"{secret!r} leaked: {blob[:3000]!r}"


def _cli_args(url: str, *more: str) -> list[str]:
    args = ["record", url, "-d", json.dumps(BODY)]
    for k, v in HEADERS:
        args += ["-H", f"{k}: {v}"]
    return [*args, *more]


def _assert_stored_redacted(out: Path) -> dict[str, Any]:
    """The request as stored: "[REDACTED]" where each secret was; the rest as sent."""
    header = header_line(out)
    req = header["request"]
    stored = {k.lower(): v for k, v in req["headers"]}
    for name, _ in HEADERS:
        assert stored[name.lower()] == REDACTED
    assert "key=[REDACTED]" in req["url"] and "alt=sse" in req["url"]
    assert req["body"]["api_key"] == REDACTED
    assert req["body"]["metadata"]["owner"]["API_KEY"] == REDACTED
    assert req["body"]["messages"] == BODY["messages"]
    assert set(header["redacted"]) >= EXPECT_REDACTED
    assert isinstance(header["redacted"], list)
    return header


def _assert_sent(got_headers: list[tuple[str, str]], body: bytes) -> None:
    """The secrets did go out: redaction is of the recording, not of the request."""
    sent = {k.lower(): v for k, v in got_headers}
    for name, value in HEADERS:
        assert sent[name.lower()] == value
    assert json.loads(body) == BODY


def _summary_lists(run: Run, names: set[str]) -> None:
    line = next(x for x in run.err.splitlines() if x.startswith("redacted: "))
    assert names <= set(line.removeprefix("redacted: ").split(", "))


# -- the command line ---------------------------------------------------------------------------


def test_cli_against_a_server_that_sets_cookies(wd: Path) -> None:
    set_cookies = [
        ("Set-Cookie", f"sid={SETCOOKIE}; Path=/; HttpOnly"),
        ("Set-Cookie", f"other={SETCOOKIE}x; Path=/"),
    ]
    out, raw = wd / "r.jsonl", wd / "r.sse"
    with Capture(headers=set_cookies) as cap:
        url = f"{cap.url}{CHAT}?alt=sse&key={QUERY}"
        run = sseconform(*_cli_args(url, "-o", str(out), "--raw", str(raw), "--check"), cwd=wd)
    assert run.code == 0, run.both
    got = cap.only
    assert got.path == f"{CHAT}?alt=sse&key={QUERY}"
    _assert_sent(got.headers, got.body)
    _assert_nowhere(ALL, out.read_bytes(), raw.read_bytes(), run.out.encode(), run.err.encode())
    header = _assert_stored_redacted(out)
    reader, reads = read_recording(out)
    assert joined(reads) == SSE_BODY == raw.read_bytes()
    assert reader.response is not None
    cookies = [v for k, v in reader.response.headers if k.lower() == "set-cookie"]
    assert cookies == [REDACTED, REDACTED]
    # the header line is written before the response exists; the end line lists it all
    assert reader.end is not None
    end = json.loads(out.read_bytes().splitlines()[-1])["end"]
    assert set(end["redacted"]) == set(header["redacted"]) | {"response.headers.set-cookie"}
    _summary_lists(run, EXPECT_REDACTED | {"response.headers.set-cookie"})


def test_cli_against_replay_which_echoes_nothing(
    replay: tuple[ReplayServer, Loaded], wd: Path
) -> None:
    server, served = replay
    out, raw = wd / "r.jsonl", wd / "r.sse"
    url = f"{server.url}{CHAT}?alt=sse&key={QUERY}"
    run = sseconform(
        *_cli_args(url, "-H", f"{SELECT}: {TEXT.name}", "-o", str(out), "--raw", str(raw)),
        cwd=wd,
    )
    assert run.code == 0, run.both
    _assert_nowhere(ALL, out.read_bytes(), raw.read_bytes(), run.out.encode(), run.err.encode())
    _assert_stored_redacted(out)
    assert joined(read_recording(out)[1]) == served.body == raw.read_bytes()
    _summary_lists(run, EXPECT_REDACTED)


def test_cli_when_nothing_answers(wd: Path) -> None:
    """Connection refused: no response at all, no file, and no secret in what is said."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    out = wd / "r.jsonl"
    url = f"http://{HOST}:{port}{CHAT}?alt=sse&key={QUERY}"
    run = sseconform(*_cli_args(url, "-o", str(out)), cwd=wd)
    assert run.code == 1, run.both
    assert "nothing recorded: could not connect" in run.err
    assert not out.exists()  # nothing came back: no file left behind
    _assert_nowhere(ALL, run.out.encode(), run.err.encode())


@pytest.mark.parametrize(
    ("provider", "path", "var"),
    [
        ("openai", CHAT, "OPENAI_API_KEY"),
        ("responses", "/v1/responses", "OPENAI_API_KEY"),
        ("anthropic", "/v1/messages", "ANTHROPIC_API_KEY"),
        ("gemini", GEMINI_PATH, "GEMINI_API_KEY"),
        ("gemini", GEMINI_PATH, "GOOGLE_API_KEY"),
    ],
)
def test_provider_keys_from_the_environment(provider: str, path: str, var: str, wd: Path) -> None:
    secret = f"sk-test-SECRET-env-{var}-1234567890"
    out, raw = wd / "p.jsonl", wd / "p.sse"
    with Capture() as cap:
        run = sseconform(
            "record", cap.url + path, "--provider", provider, "-d", '{"model": "m"}',
            "-o", out, "--raw", raw,
            cwd=wd, env=cli_env(**{var: secret}),
        )  # fmt: skip
    assert run.code == 0, run.both
    sent = " ".join(v for _, v in cap.only.headers)
    assert secret in sent
    blobs = (out.read_bytes(), raw.read_bytes(), run.out.encode(), run.err.encode())
    _assert_nowhere([secret], *blobs)
    header = header_line(out)
    auth = AUTH_HEADER[provider]
    assert [auth, REDACTED] in header["request"]["headers"]
    assert f"request.headers.{auth}" in header["redacted"]
    _summary_lists(run, {f"request.headers.{auth}"})


def test_redact_adds_names(wd: Path) -> None:
    custom = "sk-test-SECRET-custom-1234567890"
    session = "sk-test-SECRET-session-1234567890"
    password = "sk-test-SECRET-password-1234567890"
    out = wd / "r.jsonl"
    body = {"model": "m", "password": password, "list": [{"Password": password}]}
    with Capture() as cap:
        url = f"{cap.url}{CHAT}?session={session}&page=2"
        run = sseconform(
            "record", url, "-d", json.dumps(body), "-H", f"X-Custom-Token: {custom}",
            "--redact", "x-custom-token", "--redact", "SESSION", "--redact", "password",
            "-o", out,
            cwd=wd,
        )  # fmt: skip
    assert run.code == 0, run.both
    assert cap.only.header("x-custom-token") == custom
    secrets = [custom, session, password]
    _assert_nowhere(secrets, out.read_bytes(), run.out.encode(), run.err.encode())
    header = header_line(out)
    req = header["request"]
    assert ["X-Custom-Token", REDACTED] in req["headers"]
    assert "session=[REDACTED]" in req["url"] and "page=2" in req["url"]
    assert req["body"] == {"model": "m", "password": REDACTED, "list": [{"Password": REDACTED}]}
    names = {
        "request.headers.x-custom-token",
        "request.url.query.session",
        "request.body.password",
        "request.body.list[0].Password",
    }
    assert names <= set(header["redacted"])
    _summary_lists(run, names)


def test_keep_keeps_one_name(wd: Path) -> None:
    public = "public-client-id-42"
    out = wd / "r.jsonl"
    with Capture() as cap:
        url = f"{cap.url}{CHAT}?key={public}"
        run = sseconform(
            "record", url, "-d", '{"model": "m"}',
            "-H", f"x-api-key: {public}", "-H", f"Authorization: Bearer {AUTH}",
            "--keep", "X-API-KEY", "--keep", "key",
            "-o", out,
            cwd=wd,
        )  # fmt: skip
    assert run.code == 0, run.both
    _assert_nowhere([AUTH], out.read_bytes(), run.out.encode(), run.err.encode())
    header = header_line(out)
    req = header["request"]
    assert ["x-api-key", public] in req["headers"]
    assert ["Authorization", REDACTED] in req["headers"]
    assert req["url"].endswith(f"?key={public}")
    assert header["redacted"] == ["request.headers.authorization"]
    assert "redacted: request.headers.authorization\n" in run.err


def test_nothing_redacted_says_so(wd: Path) -> None:
    out = wd / "r.jsonl"
    with Capture() as cap:
        run = sseconform("record", cap.url + CHAT, "-d", '{"model": "m"}', "-o", out, cwd=wd)
    assert run.code == 0, run.both
    assert header_line(out)["redacted"] == []
    assert not [x for x in run.err.splitlines() if x.startswith("redacted")], run.err
    assert REDACTED.encode() not in out.read_bytes()


# -- the library --------------------------------------------------------------------------------


def test_library_redacts_by_default(replay: tuple[ReplayServer, Loaded], tmp_path: Path) -> None:
    server, served = replay
    out = tmp_path / "r.jsonl"
    req = Request(
        "POST",
        f"{server.url}{CHAT}?alt=sse&key={QUERY}",
        [*HEADERS, (SELECT, TEXT.name), ("content-type", "application/json")],
        json.dumps(BODY).encode(),
    )
    outcome = record(req, str(out))
    assert outcome.complete
    _assert_nowhere(ALL, out.read_bytes())
    header = _assert_stored_redacted(out)
    assert set(outcome.redacted) == set(header["redacted"]) >= EXPECT_REDACTED
    assert joined(read_recording(out)[1]) == served.body


def test_library_configured_redactor(replay: tuple[ReplayServer, Loaded], tmp_path: Path) -> None:
    server, _ = replay
    out = tmp_path / "kept-secret.jsonl"  # the one artefact that keeps a secret, on request
    req = Request(
        "POST",
        f"{server.url}{CHAT}?token={QUERY}&sig={FIELD}",
        [(SELECT, TEXT.name), ("Authorization", f"Bearer {AUTH}")],
    )
    outcome = record(req, str(out), redactor=Redactor.configured(["sig"], ["token"]))
    data = out.read_bytes()
    _assert_nowhere([AUTH, FIELD], data)
    assert QUERY.encode() in data  # kept on request
    assert outcome.redacted == ["request.url.query.sig", "request.headers.authorization"]


# -- leaks ----------------------------------------------------------------------------------------


def test_url_userinfo_is_redacted(wd: Path) -> None:
    secret = "sk-test-SECRET-userinfo-1234567890"
    out = wd / "r.jsonl"
    with Capture() as cap:
        url = cap.url.replace("http://", f"http://user:{secret}@") + CHAT
        run = sseconform("record", url, "-d", '{"model": "m"}', "-o", out, cwd=wd)
    assert run.code == 0, run.both
    assert cap.only.header("authorization") is not None  # httpx sent it as Basic auth
    _assert_nowhere([secret], out.read_bytes(), run.out.encode(), run.err.encode())


def test_form_body_field_is_redacted(wd: Path) -> None:
    out = wd / "r.jsonl"
    with Capture() as cap:
        run = sseconform(
            "record", cap.url + CHAT, "-d", f"api_key={FIELD}&model=m",
            "-H", "content-type: application/x-www-form-urlencoded", "-o", out,
            cwd=wd,
        )  # fmt: skip
    assert run.code == 0, run.both
    assert cap.only.body == f"api_key={FIELD}&model=m".encode()
    _assert_nowhere([FIELD], out.read_bytes(), run.out.encode(), run.err.encode())


def test_secret_named_field_with_a_non_string_value(tmp_path: Path) -> None:
    with Capture() as cap:
        body = {"model": "m", "api_key": [FIELD], "token": {"value": NESTED}}
        record(Request("POST", cap.url + CHAT, [], json.dumps(body).encode()), str(tmp_path / "r"))
    _assert_nowhere([FIELD, NESTED], (tmp_path / "r").read_bytes())


@pytest.mark.parametrize(
    "query",
    [
        "key[]=SECRETVALUE123",
        "key%00=SECRETVALUE123",
        "alt=sse;key=SECRETVALUE123",
        "password=SECRETVALUE123",
        "sig=SECRETVALUE123",
        "X-Amz-Signature=SECRETVALUE123",
        "refresh_token=SECRETVALUE123",
        "KEY=SECRETVALUE123",
    ],
)
def test_redaction_is_not_fooled_by_the_spelling(query: str) -> None:
    from sseconform.recording.redact import Redactor

    r = Redactor()
    url = r.url(f"https://api.example.com/v1/x?{query}")
    assert "SECRETVALUE123" not in url
    assert REDACTED in url or quote(REDACTED) in url
    form = r.form(query)
    assert form is not None and "SECRETVALUE123" not in form
    name = query.rsplit("=", 1)[0].split(";")[-1].replace("%00", "\x00")
    assert "SECRETVALUE123" not in json.dumps(r.body({name: "SECRETVALUE123"}))


def test_a_remembered_secret_is_scrubbed_across_reads() -> None:
    from sseconform.recording.redact import Redactor

    r = Redactor()
    r.header_list([("Authorization", "Bearer abcdefgh12345678")], "request")
    s = r.stream()
    body = b'data: {"error": "bad key abcdefgh12345678!"}\n\n'
    for cut in range(1, len(body)):
        s = r.stream()
        out = s.feed(body[:cut]) + s.feed(body[cut:]) + s.finish()
        assert b"abcdefgh12345678" not in out, cut
        assert out == body.replace(b"abcdefgh12345678", REDACTED.encode())
    one = r.stream()
    out = b"".join(one.feed(body[i : i + 1]) for i in range(len(body))) + one.finish()
    assert out == body.replace(b"abcdefgh12345678", REDACTED.encode())
