"""The keys of the masking tests and every form of each that must never reach an output.

Four shapes, as the hostile-peers issue asks: an ``sk-`` key (it holds the session's secret
mark, so the session-wide grep looks for it too), a JWT, a hex key (upper-casing a hex key
gives the key itself), and a key with ``/+=`` (its URL-encoded form differs from it).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from urllib.parse import quote

KEYS = {
    "sk": "sk-test-SECRET-Zq8tHk2LmN4pR6sT8vW0xY2zA4bC6dE8fG0h",
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnYXRld2F5LXRlc3QiLCJuIjo3fQ"
        ".Zk3pQ9xVb2Lw8Tn4Rm6Yc1Ud5Ha7Je0Kf2Gs9Bq"
    ),
    "hex": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "slashy": "Ab7d/Ef+Gh12=Ij34/Kl56+Mn78Op90Qr",
}
#: A long key (164 characters, as some gateways' virtual keys are): every form the masker
#: looks for grows with it.
LONG_KEY = (
    "gw-"
    + base64.urlsafe_b64encode(
        hashlib.sha512(b"one").digest() + hashlib.sha512(b"two").digest()
    ).decode()[:161]
)

#: Text Gemini writes with ``<>&=`` escaped (Google's JSON writes them as ``\u003c`` and a
#: slash as ``\/``, as Go's does): HTML, code and URLs give an escape every few bytes.
_ESCAPED = [
    '<div class="note">', "if (a < b && c > d) { x = y; }", "</div>", " plain words here, ",
    "https://example.com/a/b?x=1&y=2", "<p>", " a <= b", " and so on.",
]  # fmt: skip


def escaped_gemini(size: int) -> bytes:
    """A Gemini stream (CRLF framing, one text part a chunk) of about ``size`` bytes, its
    JSON written as Google writes it: ``<>&=`` as ``\\u00XX``, ``/`` as ``\\/``."""
    out: list[bytes] = []
    n = 0
    while n < size:
        i = len(out)
        text = _ESCAPED[i % len(_ESCAPED)] + _ESCAPED[(i * 3 + 1) % len(_ESCAPED)]
        obj = {
            "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": i + 1},
            "modelVersion": "gemini-2.5-flash",
        }
        data = json.dumps(obj, separators=(",", ":"))
        for char in "<>&=":
            data = data.replace(char, f"\\u{ord(char):04x}")
        line = f"data: {data.replace('/', chr(92) + '/')}\r\n\r\n".encode()
        out.append(line)
        n += len(line)
    return b"".join(out)


def forms(key: str) -> dict[str, str]:
    """Every form of ``key`` that would give it away, lower-cased (outputs are searched
    lower-cased, so an upper- or mixed-case echo is found too)."""
    out = {
        "whole": key,
        "json-escaped": "".join(f"\\u{ord(c):04x}" for c in key),
        "url-encoded": quote(key, safe=""),
        "slash-escaped": key.replace("/", "\\/"),
        "first 8": key[:8],
        "last 8": key[-8:],
    }
    raw = key.encode()
    for pad in (b"", b"u", b"us"):  # base64 at each alignment, the edges that depend on
        enc = base64.b64encode(pad + raw).decode()  # the neighbours trimmed
        core = enc[4 if pad else 0 : -4]
        out[f"base64+{len(pad)}"] = core
        out[f"base64url+{len(pad)}"] = core.replace("+", "-").replace("/", "_")
    for i in range(0, len(key) - 11, 3):  # any 12 characters: a piece of a split key
        out[f"piece {i}"] = key[i : i + 12]
    return {name: value.lower() for name, value in out.items()}


def leaks(key: str, root: Path | None, *texts: str) -> list[str]:
    """Where a form of ``key`` shows up: in any file under ``root`` or in ``texts``."""
    found = []
    needles = forms(key)
    named: list[tuple[str, str]] = []
    if root is not None:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                named.append((str(path.relative_to(root)), path.read_bytes().decode("latin-1")))
    named += [(f"output {i}", t) for i, t in enumerate(texts)]
    for where, text in named:
        low = text.lower()
        found += [f"{where}: {name}" for name, n in needles.items() if n in low]
    return found


def load_outputs(
    peer: str, folder: Path, key: str, path: str, formats: tuple[str, ...]
) -> tuple[Path, list[str]]:
    """``load`` through the hostile peer's ``path`` with ``key``, once per format: the work
    folder its reports are in, and what it said on stderr each time."""
    from sseconform.gate.suite import recordings_dir
    from tests.hostile.peers import suite_at
    from tests.hostile.test_record_bounds import run
    from tests.load.test_load import needs_locust

    if needs_locust.args[0]:
        import pytest

        pytest.skip("Locust is not installed (sseconform[load])")
    suite = suite_at(folder, path, recordings_dir() / "anthropic" / "text-anthropic.jsonl")
    work = folder / "work"
    work.mkdir()
    outs = []
    for fmt in formats:
        code, err, _, _ = run(
            "load", "--gateway", peer, "--suite", str(suite), "--key", key, "--users", "1",
            "--spawn-rate", "1", "--run-time", "2s", "--format", fmt,
            "-o", str(work / f"r.{fmt}"), cwd=folder, timeout=120,
        )  # fmt: skip
        assert code == 1, err
        outs.append(err)
    return work, outs
