"""Secrets never reach a recording: headers, query values and body fields are redacted first.

Recordings are meant to be committed as test fixtures, so redaction happens before anything
is written, is on by default, and says what it did. A credential is found by what its name
says (:func:`credential_name`: a header, query parameter or body field whose name holds the
word key, token, auth, secret, cookie, password and the like, in any case and behind any
vendor's prefix: ``x-portkey-api-key``, ``cf-aig-authorization``, ``helicone-auth``,
``accessToken``), not from a list of the names known today. What counts as a secret is
configurable (add names, or keep a name the user vouches for), never silently.

A peer can echo a secret back ("Incorrect API key provided: sk-..."), in a header or in the
body. So every value redacted by name is remembered by the run's masker
(:data:`sseconform.mask.RUN`, which every writer goes through last), and :meth:`Redactor.scrub`
removes it in every form the masker knows, and anything shaped like a provider's key (whole
or masked as OpenAI masks it), wherever it appears: a response header, a read of the body
(:class:`StreamScrubber`, which also catches a secret split across two reads), a message or
a report.
"""

from __future__ import annotations

import functools
import json
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
    "credential_name",
    "credential_values",
    "redact_target",
    "request_secrets",
    "scrub_text",
    "secret_header",
    "secret_name",
]
#: Provider keys by their shape: OpenAI's and Anthropic's ``sk-...`` (and OpenAI's masked
#: echo of one, ``sk-abc*****wxyz``), OpenRouter's ``sk-or-...``, Google's ``AIza...``.
KEY_SHAPES = re.compile(
    rb"sk-[A-Za-z0-9_-]{0,16}\*{4,}[A-Za-z0-9_-]{2,8}"
    rb"|sk-[A-Za-z0-9_-]{16,}"
    rb"|AIza[0-9A-Za-z_-]{30,}"
)

#: Header names (lower case) whose values are credentials or session state, besides every
#: name :func:`credential_name` takes: those whose words do not say so (Portkey's config
#: header can carry a provider's key inline).
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
        "x-portkey-config",
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
#: The words of a name that say it holds a credential: a key, a token, a secret, a
#: cookie, a password, credentials, a signature, alone or closing a compound
#: (``apikey``, ``accesstoken``, ``xapikey``), or an auth word (``authorization``,
#: ``xauth``). Not a count of tokens (``max_tokens``, ``x-ratelimit-remaining-tokens``),
#: ``author`` or ``authority``, nor a vendor's name that ends like one (``portkey``).
_CREDENTIAL_WORD = re.compile(
    r"(?:api|access|app|auth|bearer|client|csrf|id|master|pass|private|refresh|secret"
    r"|security|service|session|sub|subscription|user|virtual|x|xsrf){0,2}"
    r"(?:key|token|secrets?|cookies?|password|passwd|passphrase|pwd|credentials?"
    r"|signature|sig)"
    r"|auth(?:orization|entication|key|token)?|(?:x|o|basic|digest|proxy)auth"
)
#: Names that end like a credential's but hold none: OpenAI's prompt cache key routes a
#: request to a cache (Codex sends its session's id), an idempotency key names a retry.
NOT_CREDENTIALS = frozenset({"prompt_cache_key", "cache_key", "idempotency_key"})
#: A name's words: split at anything not a letter or digit and at camelCase humps
#: (``accessToken``, ``APIKey``).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
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


@functools.lru_cache(maxsize=4096)
def credential_name(name: str) -> bool:
    """Does ``name`` (a header's, a query parameter's or a body field's) say it holds a
    credential? One of its words does (see :data:`_CREDENTIAL_WORD`), in any case, behind
    any vendor's prefix, however the words are joined (``x-portkey-api-key``,
    ``cf-aig-authorization``, ``helicone-auth``, ``metadata.user_token``, ``accessToken``).
    Read as a server reads it: control characters and a PHP-style ``[]`` suffix do not
    hide it."""
    clean = _NOISE.sub("", name)
    if clean.lower().replace("-", "_").rsplit(".", 1)[-1] in NOT_CREDENTIALS:
        return False
    words = _WORDS.findall(clean)
    return any(_CREDENTIAL_WORD.fullmatch(w.lower()) for w in words)


def secret_name(
    name: str, names: frozenset[str] = frozenset(), keep: frozenset[str] = frozenset()
) -> bool:
    """Is ``name`` (a query parameter or body field) a credential's: one of ``names`` (lower
    case) or one :func:`credential_name` takes, and not one of ``keep``?"""
    low = _NOISE.sub("", name.lower())
    return low not in keep and (low in names or credential_name(name))


def secret_header(
    name: str, names: frozenset[str] = SECRET_HEADERS, keep: frozenset[str] = frozenset()
) -> bool:
    """Is ``name`` a header whose value is a credential: one of ``names`` (lower case) or
    one :func:`credential_name` takes, and not one of ``keep``?"""
    low = name.strip().lower()
    return low not in keep and (low in names or credential_name(low))


def credential_values(headers: Iterable[tuple[str, str]]) -> list[str]:
    """The credentials among ``headers`` (secret-named ones' values; each cookie's value,
    not the attributes around it): the secrets a command that sends them keeps out of
    everything it writes."""
    out: list[str] = []
    for name, value in headers:
        if secret_header(name):
            low = name.strip().lower()
            out += _cookie_values(value, low == "set-cookie") if "cookie" in low else [value]
    return [v for v in out if v]


def _cookie_values(value: str, set_cookie: bool = False) -> list[str]:
    """The secrets of a ``Cookie`` value (each cookie's value: ``a=1; b=2`` is two) or a
    ``Set-Cookie`` one (its one cookie's value; ``Path``, ``Expires``, ``HttpOnly`` and the
    like that follow are no secret, and would mask dates and words everywhere)."""
    items = value.split(";")[:1] if set_cookie else value.split(";")
    out = []
    for item in items:
        _, eq, val = item.strip().partition("=")
        if eq:
            out.append(val.strip().strip('"'))
    return [v for v in out if len(v) >= MIN_SECRET]


@dataclass
class Redactor:
    """Redacts by name; ``found`` lists what was redacted, for the report and the header."""

    headers: frozenset[str] = SECRET_HEADERS
    params: frozenset[str] = SECRET_PARAMS
    #: names (lower case) never redacted, though their words say credential: the user
    #: vouches for them (``--keep``)
    keep: frozenset[str] = frozenset()
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
        drop = frozenset(n.lower() for n in keep)
        return cls((SECRET_HEADERS | add) - drop, (SECRET_PARAMS | add) - drop, drop)

    def header_list(self, headers: Iterable[tuple[str, str]], where: str) -> list[list[str]]:
        """Headers with the secret-named ones redacted (their values remembered), and any
        remembered secret scrubbed from the others (a peer that echoes a key back)."""
        out = []
        for name, value in headers:
            if secret_header(name, self.headers, self.keep):
                self._note(f"{where}.headers.{name.lower()}")
                low = name.strip().lower()
                if "cookie" in low:  # each cookie's value, not its attributes
                    for v in _cookie_values(value, low == "set-cookie"):
                        self.remember(v)
                else:
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
            if secret_name(k, self.params, self.keep) and v:
                self._note(f"{where}.{_NOISE.sub('', k)}")
                self.remember(v)
                v, changed = REDACTED, True
            out.append((k, v))
        return out, changed

    def body(self, obj: Any, path: str = "request.body", *, names: bool = True) -> Any:
        """A JSON body with secret-named fields redacted, at any depth. A JSON Schema's
        ``properties`` (a tool's parameters) are named by the tool's author and hold no
        value: their names are not read (``names``), what is under them is."""
        if isinstance(obj, dict):
            out = {}
            for k, v in obj.items():
                if not isinstance(k, str) or not names or provider_state(k, obj):
                    out[k] = self.body(v, f"{path}.{k}") if isinstance(k, str) else v
                elif secret_name(k, self.params, self.keep) and v not in (None, ""):
                    self._note(f"{path}.{k}")
                    self.remember(v)
                    out[k] = REDACTED  # the whole value, whatever its shape
                else:
                    schema = k == "properties" and isinstance(v, dict)
                    out[k] = self.body(v, f"{path}.{k}", names=not schema)
            return out
        if isinstance(obj, list):
            return [self.body(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        return obj

    def text(self, text: str, path: str = "request.body") -> str:
        """A request body as text, secret-named fields redacted: JSON (as it came when it
        held none), a form, or neither (cut short, or not a body at all): then every
        ``"name": value`` pair whose name is a credential's loses its value."""
        try:
            obj = json.loads(text)
        except ValueError:
            form = self.form(text, path) if "=" in text else None
            if form is not None:
                return form
            return _PAIR.sub(lambda m: self._pair(m, path), text)
        clean = self.body(obj, path)
        return text if clean == obj else json.dumps(clean, ensure_ascii=False)

    def _pair(self, m: re.Match[str], path: str) -> str:
        name = m.group("name")
        if not secret_name(name, self.params, self.keep):
            return m.group(0)
        self._note(f"{path}.{name}")
        value = m.group("value")
        try:
            self.remember(str(json.loads(value)))
        except ValueError:  # a string cut short: its characters so far
            self.remember(value.lstrip('"'))
        return m.group(0)[: m.start("value") - m.start()] + f'"{REDACTED}"'

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

    @property
    def held(self) -> bytes:
        """The bytes kept back until the next read shows whether they begin a secret."""
        return self._stream.held

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


#: A ``"name": value`` pair in JSON text that may be cut short: a string value (its end
#: quote may be missing; read once, never backtracked into) or a bare one.
_PAIR = re.compile(
    r'"(?P<name>(?:[^"\\\n]|\\.){1,200})"\s*:\s*(?P<value>"(?:[^"\\]|\\.)*+(?:"|$)|[^\s,}\]{\[]+)'
)

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)[^/?#@]*@")


def request_secrets(target: str, headers: dict[str, str]) -> list[str]:
    """The credentials a request that arrived carries (auth header values and their tokens,
    secret-named query values, a URL's password), longest first: to be scrubbed from
    anything said about it (``replay``'s log and answers)."""
    found: list[str] = []
    for value in credential_values(headers.items()):
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
