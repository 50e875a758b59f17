"""Credentials found by what their names say, and files never written through a link.

A gateway's own key travels in a header of its vendor's naming (``x-portkey-api-key``,
``cf-aig-authorization``, ``helicone-auth``), a request body can carry ``api_key`` or
``metadata.user_token``: none of their values may reach a file ``record`` or ``gate``
writes, in any casing. A peer's 60 KB ``Set-Cookie`` is redacted and slows nothing, and a
symlink left in a reused ``--out`` (or named by ``record --force``) is replaced, never
written through.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sseconform.gate.suite import recordings_dir
from tests.hostile.masking import leaks
from tests.hostile.peers import COOKIE, suite_at
from tests.hostile.test_record_bounds import end_of, run

TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
BODY = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'

#: Headers a gateway or a proxy reads its key from, as users spell them.
HEADERS = [
    "x-portkey-api-key",
    "X-Portkey-Api-Key",
    "cf-aig-authorization",
    "Helicone-Auth",
    "x-litellm-api-key",
    "X-Vendor-Session-Token",
    "x-acme-secret",
    "Ocp-Apim-Subscription-Key",
    "xApiKey",
]


def value_for(name: str) -> str:
    """A distinct secret per header name (its forms are searched for in every file), not
    shaped like a provider's key (``sk-`` and 16 key characters), which every place scrubs
    whatever its name: only its name can get it redacted."""
    return f"sk-test-SECRET.{sum(map(ord, name)):05d}.Zq8tHk2LmN4pR6sT8vW0xY"


def no_leaks(root: Path, secrets: list[str], *texts: str) -> None:
    for secret in secrets:
        assert leaks(secret, root, *texts) == [], secret


def test_record_redacts_every_header_whose_name_says_credential(peer: str, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    args = ["record", peer + "/echo-stream", "-d", BODY, "-o", str(out)]
    for name in HEADERS:
        args += ["-H", f"{name}: Bearer {value_for(name)}"]
    args += ["-H", "x-ratelimit-remaining-tokens: 2026-01-01T00:00:00Z"]  # a count: kept
    code, err, _, _ = run(*args, "--raw", str(tmp_path / "raw.sse"), cwd=tmp_path)
    assert code == 0, err
    no_leaks(tmp_path, [value_for(n) for n in HEADERS], err)
    head = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    stored = dict(head["request"]["headers"])
    assert all(stored[name] == "[REDACTED]" for name in HEADERS), stored
    assert stored["x-ratelimit-remaining-tokens"] == "2026-01-01T00:00:00Z"
    assert {f"request.headers.{n.lower()}" for n in HEADERS} <= set(head["redacted"])


@pytest.mark.parametrize(
    "body",
    [
        {"api_key": "sk-test-SECRET.body.1234567890"},
        {"metadata": {"user_token": "sk-test-SECRET.body.1234567890"}},
        {"auth": {"accessToken": "sk-test-SECRET.body.1234567890"}},
        {"clientSecret": "sk-test-SECRET.body.1234567890"},
        {"X-Api-Key": "sk-test-SECRET.body.1234567890"},
    ],
    ids=lambda b: json.dumps(b),
)
def test_record_redacts_every_body_field_whose_name_says_credential(
    peer: str, tmp_path: Path, body: dict[str, object]
) -> None:
    out = tmp_path / "r.jsonl"
    data = json.dumps({**json.loads(BODY), **body})
    code, err, _, _ = run("record", peer + "/echo-stream", "-d", data, "-o", str(out),
                          cwd=tmp_path)  # fmt: skip
    assert code == 0, err
    no_leaks(tmp_path, ["sk-test-SECRET.body.1234567890"], err)
    stored = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["request"]["body"]
    assert stored["messages"] == [{"role": "user", "content": "hi"}]


def test_gate_writes_no_credential_header_value(peer: str, tmp_path: Path) -> None:
    """Every file gate leaves: the recordings in --out (their request heads), the reports
    in every format and the page; and what it prints."""
    suite = suite_at(tmp_path, "/echo-stream", TEXT)
    work = tmp_path / "work"
    work.mkdir()
    args = ["gate", "--gateway", peer, "--suite", str(suite), "--out", str(work / "out"),
            "--format", "json", "-o", str(work / "r.json"),
            "--html", str(work / "page.html")]  # fmt: skip
    for name in HEADERS:
        args += ["--header", f"{name}: {value_for(name)}"]
    code, err, _, _ = run(*args, cwd=tmp_path, timeout=120)
    assert code in (0, 1), err
    recording = work / "out" / "text.jsonl"
    head = json.loads(recording.read_text(encoding="utf-8").splitlines()[0])
    assert {f"request.headers.{n.lower()}" for n in HEADERS} <= set(head["redacted"])
    no_leaks(work, [value_for(n) for n in HEADERS], err)


def test_a_60kb_set_cookie_is_redacted_and_slows_nothing(peer: str, tmp_path: Path) -> None:
    """The cookie is no giant secret of the run: a 2 MB stream of escapes is recorded at
    once, well inside its deadline (before: every escape cost a window of six times the
    cookie, and the deadline ended a stream the peer had long finished sending)."""
    out = tmp_path / "r.jsonl"
    code, err, seconds, _ = run(
        "record", peer + "/set-cookie", "-d", BODY, "-o", str(out), "--deadline", "30",
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert code == 0, err
    assert end_of(out)["reason"] == "eof" and end_of(out)["complete"] is True
    lines = out.read_text(encoding="utf-8").splitlines()
    headers = dict(json.loads(lines[1])["response"]["headers"])
    assert headers["set-cookie"] == "[REDACTED]"
    assert COOKIE[:40] not in out.read_text(encoding="utf-8")
    assert json.loads(lines[-2])["t"] < 5 and seconds < 20, (seconds, lines[-2][:80])


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
@pytest.mark.parametrize("option", ["-o", "--raw"])
def test_record_force_replaces_a_link_never_what_it_names(
    peer: str, tmp_path: Path, option: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    target = ["-o", str(link)] if option == "-o" else ["-o", str(tmp_path / "r.jsonl"),
                                                       "--raw", str(link)]  # fmt: skip
    code, err, _, _ = run("record", peer + "/echo-stream", "-d", BODY, *target, "--force",
                          cwd=tmp_path)  # fmt: skip
    assert code == 0, err
    assert victim.read_text(encoding="utf-8") == "the user's file\n"
    assert not link.is_symlink() and link.stat().st_size > 0


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_gate_force_never_writes_through_a_link_in_out(peer: str, tmp_path: Path) -> None:
    """A link where a recording goes (``text.jsonl``, its second turn's name too) is
    replaced by the recording; the file it named is left as it was."""
    suite = suite_at(tmp_path, "/echo-stream", TEXT)
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file\n", encoding="utf-8")
    (out / "text.jsonl").symlink_to(victim)
    code, err, _, _ = run(
        "gate", "--gateway", peer, "--suite", str(suite), "--out", str(out), "--force",
        "--format", "json", "-o", str(tmp_path / "r.json"), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert code in (0, 1), err
    assert victim.read_text(encoding="utf-8") == "the user's file\n"
    recording = out / "text.jsonl"
    assert not recording.is_symlink() and recording.read_text(encoding="utf-8").startswith("{")


FIELDS = {"api_key": "sk-test-SECRET.field.1234567890", "user_token": "sk-test-SECRET.user.987654"}


def test_the_page_shows_no_secret_named_field_of_either_request(tmp_path: Path) -> None:
    """A gateway that holds the provider's key adds ``api_key`` and
    ``metadata.user_token`` to what it forwards (the client sent neither): the page's
    "the gateway forwarded" panel shows them redacted (as the request's ``?key=`` is),
    and no file of the run holds their values."""
    from sseconform.demo.gateway import Gateway
    from tests.gate.test_gate import free_port

    class Injecting(Gateway):
        def _upstream_request(
            self, dialect: str, body: dict[str, Any], endpoint: str = "chat"
        ) -> tuple[str, dict[str, Any]]:
            path, up = super()._upstream_request(dialect, body, endpoint)
            extra = {"api_key": FIELDS["api_key"], "metadata": {"user_token": FIELDS["user_token"]}}
            return path, {**up, **extra}

    suite = suite_at(
        tmp_path, "/v1/chat/completions", recordings_dir() / "chat" / "text-usage.jsonl"
    )
    work = tmp_path / "work"
    work.mkdir()
    port = free_port()
    with Injecting(f"http://127.0.0.1:{port}").running() as gw:
        code, err, _, _ = run(
            "gate", "--gateway", gw.url, "--upstream-port", str(port), "--suite", str(suite),
            "--out", str(work / "out"), "--format", "html", "-o", str(work / "page.html"),
            cwd=tmp_path, timeout=120,
        )  # fmt: skip
    assert code == 0, err
    page = (work / "page.html").read_text(encoding="utf-8")
    forwarded = page[page.index("the gateway forwarded") :]
    assert forwarded.count("[REDACTED]") >= 2, forwarded[:3000]
    no_leaks(work, list(FIELDS.values()), err)
