"""``record``, ``check`` and ``load`` keep every form of a key out of what they write:
``record`` of a peer that echoes the key it was sent, ``check`` of a file that holds the key
of the environment, ``load`` through a gateway that echoes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import forked
from tests.hostile.masking import KEYS, leaks, load_outputs
from tests.hostile.peers import chunk, echo_forms
from tests.hostile.test_record_bounds import run

BODY = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


@pytest.mark.parametrize("shape", sorted(KEYS))
@pytest.mark.parametrize("path", ["/echo-split", "/echo-escaped", "/echo-forms", "/echo"])
def test_record_keeps_no_form(peer: str, tmp_path: Path, shape: str, path: str) -> None:
    key = KEYS[shape]
    work = tmp_path / "work"
    work.mkdir()
    code, err, _, _ = run(
        "record", peer + path, "-d", BODY, "-H", f"Authorization: Bearer {key}",
        "-o", str(work / "r.jsonl"), "--raw", str(work / "raw.sse"), "--check",
        cwd=tmp_path,
    )  # fmt: skip
    assert code in (0, 1) and (work / "r.jsonl").exists(), err
    assert leaks(key, work, err) == []


def stream_with(key: str) -> bytes:
    """A chat stream that holds ``key`` whole, split over three deltas, escaped and in
    every transformed form."""
    third = len(key) // 3
    texts = [f"key {key}", key[:third], key[third : 2 * third], key[2 * third :]]
    texts += [f"{name}={value}" for name, value in echo_forms(key).items()]
    body = b"".join(chunk(t) for t in texts)
    escaped = "".join(f"\\u{ord(c):04x}" for c in key)
    body += chunk("E").replace(b'"E"', f'"{escaped}"'.encode())
    return body + chunk("", "stop") + b"data: [DONE]\n\n"


@pytest.mark.parametrize("shape", sorted(KEYS))
def test_check_masks_the_environments_key(tmp_path: Path, shape: str) -> None:
    key = KEYS[shape]
    (tmp_path / "in").mkdir()
    src = tmp_path / "in" / "kept-secret.sse"  # the input holds the key on purpose
    src.write_bytes(stream_with(key).replace(b'"object": "chat.completion.chunk"', b'"o": 1'))
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "NO_COLOR": "1", "PROVIDER_API_KEY": key}
    outs = []
    for fmt in ("text", "json", "junit", "github", "sarif", "html"):
        proc = forked.completed(
            [sys.executable, "-m", "sseconform", "check", str(src), "--format", fmt],
            env=env, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        outs += [proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")]
        (work / f"report.{fmt}").write_bytes(proc.stdout)
        # the report's content is still there: the findings are reported
        assert b"G001" in proc.stdout or b"object-not-chunk" in proc.stdout
    assert leaks(key, work, *outs) == []


def test_check_shows_the_key_when_the_environment_does_not_hold_it(tmp_path: Path) -> None:
    """The masker masks what the run knows: a stream's own text is not guessed at."""
    key = KEYS["hex"]
    src = tmp_path / "plain.sse"
    src.write_bytes(chunk(f"id {key}").replace(b'"object": "chat.completion.chunk"', b'"o": 1'))
    env = {k: v for k, v in os.environ.items() if key not in v}
    proc = subprocess.run(
        [sys.executable, "-m", "sseconform", "check", str(src), "--format", "html"],
        capture_output=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert key.encode() in proc.stdout


@pytest.mark.parametrize("shape", ["jwt", "slashy"])
def test_load_reports_no_form(peer: str, tmp_path: Path, shape: str) -> None:
    key = KEYS[shape]
    work, outs = load_outputs(peer, tmp_path, key, "/echo-split", ("json", "html"))
    assert json.loads((work / "r.json").read_text())  # a real report, masked
    assert leaks(key, work, *outs) == []
