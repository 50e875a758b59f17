"""Secrets never reach a recording: headers, query values and body fields are redacted first.

Recordings are meant to be committed as test fixtures, so redaction happens before anything
is written, is on by default, and says what it did. What counts as a secret is configurable
(add names, or keep a name the user vouches for), never silently.

A peer can echo a secret back ("Incorrect API key provided: sk-..."), in a header or in the
body. So every value redacted by name is remembered by the run's masker
(:data:`sseconform.mask.RUN`, which every writer goes through last), and :meth:`Redactor.scrub`
removes it in every form the masker knows, and anything shaped like a provider's key (whole
or masked as OpenAI masks it), wherever it appears: a response header, a read of the body
(:class:`StreamScrubber`, which also catches a secret split across two reads), a message or
a report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus, urlencode, urlsplit, urlunsplit

from sseconform.mask import MIN_SECRET, REDACTED, RUN, Masker, MaskStream

__all__ = [
    "KEY_SHAPES",
    "MIN_SECRET",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "Redactor",
    "StreamScrubber",
    "redact_target",
    "request_secrets",
    "scrub_text",
    "secret_name",
]
#: Provider keys by their shape: OpenAI's and Anthropic's ``sk-...`` (and OpenAI's masked
#: echo of one, ``sk-abc*****wxyz``), OpenRouter's ``sk-or-...``, Google's ``AIza...``.
KEY_SHAPES = re.compile(
    rb"sk-[A-Za-z0-9_-]{0,16}\*{4,}[A-Za-z0-9_-]{2,8}"
    rb"|sk-[A-Za-z0-9_-]{16,}"
    rb"|AIza[0-9A-Za-z_-]{30,}"
)

#: Header names (lower case) whose values are credentials or session state.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "x-goog-api-key",
        "api-key",
        "cookie",
        "set-cookie",
        "x-amz-security-token",
        "openai-api-key",
        "anthropic-api-key",
    }
)
#: Query parameters and JSON body fields (lower case) that carry credentials.
SECRET_PARAMS = frozenset(
    {
        "key", "api_key", "apikey", "api-key", "access_token", "token", "secret",
        "client_secret", "password", "passwd", "pwd", "sig", "signature",
        "x-api-key", "subscription-key",
    }
)  # fmt: skip
#: Name endings that mark a credential too (``refresh_token``, ``x-amz-signature``).
SECRET_SUFFIXES = ("_api_key", "-api-key", "apikey", "_token", "_secret", "password", "signature")
#: Entries of a conversation's history whose ``signature`` is the provider's own opaque
#: state, not a credential (a thinking block, a reasoning entry), and names that are always
#: state (Gemini's thought signature, as the API and LiteLLM spell it). The state must reach
#: the recording unchanged, or the turn cannot be replayed or checked (``model.state`` knows
#: where state lives in a stream; this layer sits below it).
STATE_TYPES = frozenset({"thinking", "reasoning.text", "reasoning.encrypted"})
STATE_NAMES = frozenset({"thoughtsignature", "thought_signature"})


def provider_state(name: str, node: dict[str, Any]) -> bool:
    """Is ``node[name]`` a provider's opaque state, though its name reads like a secret's?"""
    low = name.lower()
    return low in STATE_NAMES or (low == "signature" and node.get("type") in STATE_TYPES)


_NOISE = re.compile(r"[\x00-\x20\x7f]+|\[[^\]]*\]$")


def secret_name(name: str, names: frozenset[str]) -> bool:
    """Is ``name`` (a query parameter or body field) a credential's? Read as a server reads
    it: case, control characters and a PHP-style ``[]`` suffix do not hide it."""
    low = _NOISE.sub("", name.lower())
    return low in names or low.endswith(SECRET_SUFFIXES)


@dataclass
class Redactor:
    """Redacts by name; ``found`` lists what was redacted, for the report and the header."""

    headers: frozenset[str] = SECRET_HEADERS
    params: frozenset[str] = SECRET_PARAMS
    found: list[str] = field(default_factory=list)
    #: every secret value redacted so far (and any the caller adds): scrubbed everywhere
    values: set[str] = field(default_factory=set)
    #: what knows every form of those values; the run's own by default, so every writer
    #: (reports, logs, other recordings) masks what this redactor learned
    masker: Masker = field(default_factory=lambda: RUN)

    @classmethod
    def configured(cls, extra: Iterable[str] = (), keep: Iterable[str] = ()) -> Redactor:
        """Defaults plus ``extra`` names, minus ``keep`` names (each a header or a parameter)."""
        add = {n.lower() for n in extra}
        drop = {n.lower() for n in keep}
        return cls((SECRET_HEADERS | add) - drop, (SECRET_PARAMS | add) - drop)

    def header_list(self, headers: Iterable[tuple[str, str]], where: str) -> list[list[str]]:
        """Headers with the secret-named ones redacted (their values remembered), and any
        remembered secret scrubbed from the others (a peer that echoes a key back)."""
        out = []
        for name, value in headers:
            if name.lower() in self.headers:
                self._note(f"{where}.headers.{name.lower()}")
                self.remember(value)
                value = REDACTED
            else:
                clean = self.scrub(value)
                if clean != value:
                    self._note(f"{where}.headers.{name.lower()}")
                value = clean
            out.append([name, value])
        return out

    def remember(self, value: Any) -> None:
        """A secret value to scrub wherever it appears; ``Bearer TOKEN`` remembers both."""
        if not isinstance(value, str):
            return
        new = [v.strip() for v in (value, value.partition(" ")[2])]
        new = [v for v in new if len(v) >= MIN_SECRET]
        self.values.update(new)
        self.masker.add_all(new)

    def scrub(self, text: str) -> str:
        """``text`` with every remembered secret and every key-shaped string redacted."""
        return self.scrub_bytes(text.encode("utf-8", "surrogatepass")).decode(
            "utf-8", "surrogatepass"
        )

    def scrub_bytes(self, data: bytes) -> bytes:
        return self.scrubbed(data)[0]

    def scrubbed(self, data: bytes) -> tuple[bytes, int]:
        """``data`` scrubbed, and how many secrets it held (a read with none is returned as
        it came: the hot path of ``record`` pays one scan, not a copy and a comparison)."""
        masked = self.masker.mask_bytes(data)
        found = int(masked is not data and masked != data)
        data, n = KEY_SHAPES.subn(REDACTED.encode(), masked)
        return data, found + n

    def stream(self) -> StreamScrubber:
        """A scrubber for a body that arrives in reads."""
        return StreamScrubber(self)

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        if parts.password is not None:  # http://user:password@host: keep the user only
            self._note("request.url.password")
            host = parts.netloc.rpartition("@")[2]
            user = parts.username or ""
            parts = parts._replace(netloc=f"{user}:{REDACTED}@{host}")
            url = urlunsplit(parts)
        if not parts.query:
            return url
        clean, changed = self._pairs(parts.query, "request.url.query")
        if not changed:
            return url
        return urlunsplit(parts._replace(query=urlencode(clean, safe="[]:/")))

    def _pairs(self, query: str, where: str) -> tuple[list[tuple[str, str]], bool]:
        """A query string's pairs, split on ``&`` and ``;`` (servers differ: a secret after
        a ``;`` is one to some), the secret-named ones redacted."""
        out, changed = [], False
        for item in re.split(r"[&;]", query):
            if not item:
                continue
            k, _, v = item.partition("=")
            k, v = unquote_plus(k), unquote_plus(v)
            if secret_name(k, self.params) and v:
                self._note(f"{where}.{_NOISE.sub('', k)}")
                self.remember(v)
                v, changed = REDACTED, True
            out.append((k, v))
        return out, changed

    def body(self, obj: Any, path: str = "request.body") -> Any:
        """A JSON body with secret-named fields redacted, at any depth."""
        if isinstance(obj, dict):
            out = {}
            for k, v in obj.items():
                if isinstance(k, str) and provider_state(k, obj):
                    out[k] = v
                elif isinstance(k, str) and secret_name(k, self.params) and v not in (None, ""):
                    self._note(f"{path}.{k}")
                    self.remember(v)
                    out[k] = REDACTED  # the whole value, whatever its shape
                else:
                    out[k] = self.body(v, f"{path}.{k}")
            return out
        if isinstance(obj, list):
            return [self.body(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        return obj

    def form(self, text: str, path: str = "request.body") -> str | None:
        """A form-encoded body with secret-named fields redacted; None if it is not one."""
        if not re.fullmatch(r"[^=&;\s]+=[^&;\s]*(?:[&;][^=&;\s]+=[^&;\s]*)*", text.strip()):
            return None
        out, _ = self._pairs(text.strip(), path)
        return urlencode(out, safe="[]")

    def _note(self, what: str) -> None:
        if what not in self.found:
            self.found.append(what)


class StreamScrubber:
    """Scrubs a body read by read. The end of a read that could be the start of a secret is
    held back until the next read shows whether it is (so a key split across two reads is
    still caught); held bytes go out with the next read's time. Event ends are never held:
    a secret holds no newline."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._stream = MaskStream(redactor.masker)
        self.scrubbed = 0

    def feed(self, data: bytes) -> bytes:
        """What of the held bytes and ``data`` can be written now, scrubbed."""
        return self._clean(self._stream.feed(data))

    def finish(self) -> bytes:
        return self._clean(self._stream.finish())

    def _clean(self, data: bytes) -> bytes:
        if not data:
            return data
        clean, found = KEY_SHAPES.subn(REDACTED.encode(), data)  # the masker's work is done
        if found or self._stream.masked:
            self._stream.masked = 0
            self.scrubbed += 1
            self.redactor._note("response.body")
        return clean


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)[^/?#@]*@")


def request_secrets(target: str, headers: dict[str, str]) -> list[str]:
    """The credentials a request that arrived carries (auth header values and their tokens,
    secret-named query values, a URL's password), longest first: to be scrubbed from
    anything said about it (``replay``'s log and answers)."""
    found: list[str] = []
    for name in SECRET_HEADERS:
        value = headers.get(name, "").strip()
        if value:
            found += [value, value.partition(" ")[2].strip()]  # "Bearer KEY", "Basic ..."
    for item in re.split(r"[&;]", target.partition("?")[2]):
        name, eq, value = item.partition("=")
        if eq and value and secret_name(unquote_plus(name, errors="replace"), SECRET_PARAMS):
            found += [value, unquote_plus(value, errors="replace")]
    m = _USERINFO.match(target)
    if m:
        found.append(target[m.end(1) : m.end() - 1])
    return sorted({s for s in found if len(s) >= MIN_SECRET}, key=len, reverse=True)


def redact_target(target: str, secrets: list[str]) -> str:
    """A request target as it may be shown: secret-named query values and a URL's password
    replaced with [REDACTED] (as ``record`` redacts them), then any credential the request
    carried scrubbed wherever else it appears; everything else byte for byte."""
    path, sep, query = target.partition("?")
    m = _USERINFO.match(path)
    if m:
        path = m.group(1) + REDACTED + path[m.end() - 1 :]
    if sep:
        items = []
        for item in re.split(r"([&;])", query):
            name, eq, _ = item.partition("=")
            if eq and secret_name(unquote_plus(name, errors="replace"), SECRET_PARAMS):
                item = f"{name}={REDACTED}"
            items.append(item)
        query = "".join(items)
    return scrub_text(path + sep + query, secrets)


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """Free text (error messages) with ``secrets`` masked in every form the masker knows
    (a server's per-request secrets stay its own: they do not join the run's masker)."""
    secrets = list(secrets)
    for s in secrets:
        if s and len(s) >= 4 and s in text:
            text = text.replace(s, REDACTED)
    return Masker(secrets).mask(text)
