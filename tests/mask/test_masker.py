"""The masker alone: every form of a secret is masked, whole or cut between writes at any
byte, and ordinary text around it (or without it) comes out as it went in."""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import Callable
from urllib.parse import quote

import pytest

from sseconform.mask import (
    EDGE,
    KEEP,
    MAX_SECRET,
    REDACTED,
    MaskedBinary,
    Masker,
    MaskStream,
    environment_secrets,
)
from tests.hostile.masking import KEYS, LONG_KEY, escaped_gemini, forms

#: (name, how a careless writer puts the key into text)
SHAPES: dict[str, Callable[[str], str]] = {
    "whole": lambda k: f"your key is {k}.",
    "upper": lambda k: f"KEY={k.upper()}",
    "lower": lambda k: f"key={k.lower()}",
    "json-escaped": lambda k: json.dumps({"k": "".join(f"\\u{ord(c):04x}" for c in k)}),
    "json-escaped upper": lambda k: "".join(f"\\u{ord(c):04X}" for c in k),
    "half escaped": lambda k: "".join(
        f"\\u{ord(c):04x}" if i % 2 else c for i, c in enumerate(k)
    ),
    "slash": lambda k: k.replace("/", "\\/"),
    "url-encoded": lambda k: "?key=" + quote(k, safe=""),
    "percent twice": lambda k: quote(quote(k, safe=""), safe=""),
    "base64": lambda k: base64.b64encode(k.encode()).decode(),
    "base64 url": lambda k: base64.urlsafe_b64encode(k.encode()).decode(),
    "basic": lambda k: "Basic " + base64.b64encode(f"user:{k}".encode()).decode(),
    "base64 inside": lambda k: base64.b64encode(b'{"x": 1, "key": "' + k.encode() + b'"}').decode(),
    "openai masked": lambda k: f"Incorrect API key provided: {k[:8]}****{k[-4:]}.",
    "short masked": lambda k: f"{k[:3]}****{k[-4:]}",
    "prefix cut": lambda k: f"{k[:20]}…",
    "prefix dots": lambda k: f"{k[:14]}...",
    "split in three": lambda k: " | ".join([k[:16], k[16:32], k[32:]]),
    "in a report line": lambda k: f"  error W001 frame 3: content {k!r} at byte 40",
}  # fmt: skip


def shown(key: str, text: str) -> list[str]:
    low = text.lower()
    return [name for name, form in forms(key).items() if form in low]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("kind", sorted(KEYS))
def test_every_form_is_masked(kind: str, shape: str) -> None:
    key = KEYS[kind]
    text = SHAPES[shape](key)
    out = Masker([key]).mask(text)
    assert shown(key, out) == [], out
    assert REDACTED in out


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_form_is_masked_when_cut_anywhere(shape: str) -> None:
    """The writes of a stream end anywhere: mid-key, mid-escape, mid UTF-8, byte by byte."""
    key = KEYS["sk"]
    data = ("é→ " + SHAPES[shape](key) + " ✓\r\n").encode()
    masker = Masker([key])
    whole = masker.mask_bytes(data)
    rnd = random.Random(shape)
    cuts = [[1] * len(data)] + [[rnd.randint(1, 9) for _ in range(len(data))] for _ in range(20)]
    for sizes in cuts:
        stream = MaskStream(masker)
        out, at = [], 0
        for n in sizes:
            if at >= len(data):
                break
            out.append(stream.feed(data[at : at + n]))
            at += n
        out.append(stream.finish())
        got = b"".join(out)
        assert shown(key, got.decode("utf-8", "replace")) == [], got
        assert got == whole


ORDINARY = [
    "Hello! The answer is 42... or is it? ****",
    'data: {"choices":[{"delta":{"content":"caf\\u00e9 50% off"}}]}\n\n',
    "sk- and sk-proj- are how keys begin; eyJ starts a JWT",
    "a cookie, a password and a token are words",
    "9f86 and d081 are hex words; so is deadbeef",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    masker = Masker(KEYS.values())
    assert masker.mask(text) == text
    data = text.encode()
    stream = MaskStream(masker)
    assert (
        b"".join([*(stream.feed(data[i : i + 1]) for i in range(len(data))), stream.finish()])
        == data
    )


def test_a_masked_echo_keeps_at_most_four_characters() -> None:
    key = KEYS["jwt"]
    masker = Masker([key])
    for left in range(0, 12):
        for right in range(0, 8):
            echo = key[:left] + "********" + (key[-right:] if right else "")
            out = masker.mask(f"x {echo} y")
            kept = (left if out.startswith(f"x {key[:left]}") else 0) + (
                right if right and out.endswith(f"{key[-right:]} y") else 0
            )
            assert kept <= KEEP, (echo, out)


def test_words_around_the_key_are_kept() -> None:
    key = KEYS["sk"]
    third = len(key) // 3
    masker = Masker([key])
    assert masker.mask(f"key: {key[:third]}") == f"key: {REDACTED}"
    assert masker.mask(f"{key[2 * third :]}. Bye") == f"{REDACTED}. Bye"
    assert masker.mask(f"(Bearer {key})") == f"(Bearer {REDACTED})"


def test_credentials_give_their_parts() -> None:
    secret = "hunter2-but-longer"
    basic = "Basic " + base64.b64encode(f"admin:{secret}".encode()).decode()
    masker = Masker([basic])
    assert secret in masker.secrets and f"admin:{secret}" in masker.secrets
    assert "Basic" not in " ".join(masker.secrets)
    assert masker.mask(f"pw {secret}") == f"pw {REDACTED}"
    assert Masker(["short"]).secrets == frozenset()  # too short to mask safely


def test_a_masker_learns_while_writers_use_it() -> None:
    masker = Masker()
    target = io.BytesIO()
    out = MaskedBinary(target, masker, close_target=False)
    out.write(b"before ")
    masker.add(KEYS["hex"])
    out.write(f"{KEYS['hex'].upper()} after".encode())
    out.close()
    assert target.getvalue() == f"before {REDACTED} after".encode()


def test_the_environment_names_its_secrets() -> None:
    env = {
        "OPENAI_API_KEY": KEYS["sk"],
        "GITHUB_TOKEN": "ghp_0123456789abcdef",
        "DB_PASSWORD": "a-long-password",
        "HOME": "/root/some/long/path",
        "SHORT_KEY": "abc",
        "KEYBOARD": "us-international",
    }
    assert sorted(environment_secrets(env)) == sorted(
        [KEYS["sk"], "ghp_0123456789abcdef", "a-long-password"]
    )


def test_a_word_like_key_leaves_the_words_alone() -> None:
    """A dummy key made of words (as gateway configs hold) masks itself, its distinct
    pieces and its echoes, never the words it is made of where they stand alone."""
    key = "sk-sseconform-replay-upstream"
    masker = Masker([key])
    text = "/tmp/run/streams/a.jsonl: the replay upstream streamed; mode=upstream"
    assert masker.mask(text) == text
    assert masker.mask(f"key {key}!") == f"key {REDACTED}!"
    assert masker.mask(f"{key[:12]}...") == REDACTED  # the echo, its dots too


def cut_anywhere(masker: Masker, data: bytes, seed: str, sizes: tuple[int, ...]) -> list[bytes]:
    """``data`` through a stream of ``masker`` in writes of random sizes, once per size."""
    outs = []
    for most in sizes:
        rnd = random.Random(f"{seed}{most}")
        stream, out, at = MaskStream(masker), [], 0
        while at < len(data):
            n = rnd.randint(1, most)
            out.append(stream.feed(data[at : at + n]))
            at += n
        out.append(stream.finish())
        outs.append(b"".join(out))
    return outs


#: How a key stands among Gemini's escapes: plain, every character escaped, its slashes
#: escaped, an escaped ``<`` on either side of it.
AMONG_ESCAPES: dict[str, Callable[[str], str]] = {
    "plain": lambda k: f"the key {k} here",
    "escaped": lambda k: "".join(f"\\u{ord(c):04x}" for c in k),
    "slashes": lambda k: k.replace("/", "\\/"),
    "slashes quoted twice": lambda k: k.replace("/", "\\\\/"),
    "between escapes": lambda k: f"\\u003c{k}\\u003e",
    "escaped uppercase": lambda k: "".join(f"\\u{ord(c):04X}" for c in k.upper()),
}


@pytest.mark.parametrize("shape", sorted(AMONG_ESCAPES))
@pytest.mark.parametrize("kind", ["slashy", "jwt", "long"])
def test_a_key_among_geminis_escapes_is_masked_cut_anywhere(kind: str, shape: str) -> None:
    """Escape-heavy bytes (``<>&=`` as ``\\u00XX``, ``/`` as ``\\/``) with the key put
    into one event: masked whole and cut at any byte, and the same either way."""
    key = LONG_KEY if kind == "long" else KEYS[kind]
    events = escaped_gemini(3000).split(b"\r\n\r\n")
    events[3] = events[3].replace(b"plain words", AMONG_ESCAPES[shape](key).encode(), 1)
    data = b"\r\n\r\n".join(events)
    masker = Masker([key])
    whole = masker.mask_bytes(data)
    assert shown(key, whole.decode()) == [] and REDACTED.encode() in whole
    assert whole.count(b"\\u003c") >= data.count(b"\\u003c") - 1  # the others stay
    for got in cut_anywhere(masker, data, shape, (1, 7, 600)):
        assert got == whole


def test_bytes_without_a_key_pass_whatever_their_escapes() -> None:
    data = escaped_gemini(20_000)
    masker = Masker([LONG_KEY, *KEYS.values()])
    assert masker.mask_bytes(data) == data
    for got in cut_anywhere(masker, data, "none", (5, 700)):
        assert got == data


def test_a_value_too_long_to_be_a_credential_is_looked_for_by_its_ends() -> None:
    """A hostile peer's 60 KB cookie: the run looks for its first and last EDGE
    characters (an echo of it is masked at both ends), never for 60 KB forms."""
    value = base64.b64encode(random.Random(1).randbytes(45_000)).decode()
    masker = Masker([value])
    assert len(value) > MAX_SECRET and masker.secrets == {value[:EDGE], value[-EDGE:]}
    out = masker.mask(f"echo: {value} end")
    assert out.startswith(f"echo: {REDACTED}") and out.endswith(f"{REDACTED} end")
    assert value[:EDGE] not in out and value[-EDGE:] not in out
    assert Masker([LONG_KEY]).secrets == {LONG_KEY}  # a long key is no such value


def test_a_flood_of_pieces_is_masked_token_by_token() -> None:
    """Every token the peer repeats is a piece of the key: each is masked, the words
    between them are not."""
    key = KEYS["sk"]
    data = f"{key[:12]} and {key[-10:]}; ".encode() * 2000
    out = Masker([key]).mask_bytes(data)
    assert out == f"{REDACTED} and {REDACTED}; ".encode() * 2000


@pytest.mark.parametrize(
    "secret",
    ['"sess-0123456789', '{"device_id":"sess-0123456789', 'a"b"sess-0123456789"c',
     "sess\\0123456789", "sess-0123456789"],
)  # fmt: skip
def test_masked_json_stays_json(secret: str) -> None:
    """A value taken for a secret that holds a quote or a backslash (a JSON string in a
    field named like a key) never leaves a report invalid: no mask swallows a string's
    closing quote or cuts an escape in two, however the value appears (escaped inside a
    JSON string inside a JSON string, cut, beside a \\u escape)."""
    m = Masker([secret])
    inner = json.dumps({"device_id": "sess-0123456789", "note": secret})
    for doc in ({"message": f"asked {inner!r}"}, {"u": "caf\u00e9 " + secret, "v": [secret]}):
        for text in (
            json.dumps(doc),
            json.dumps(doc, ensure_ascii=False),
            json.dumps(doc, indent=2),
        ):
            masked = m.mask(text)
            json.loads(masked)
            assert "0123456789" not in masked
