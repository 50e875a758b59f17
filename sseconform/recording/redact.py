"""Secrets never reach a recording: headers, query values and body fields are redacted first.

Recordings are meant to be committed as test fixtures, so redaction happens before anything
is written, is on by default, and says what it did. What counts as a secret is configurable
(add names, or keep a name the user vouches for), never silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"

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
    {"key", "api_key", "apikey", "api-key", "access_token", "token", "secret", "client_secret"}
)


@dataclass
class Redactor:
    """Redacts by name; ``found`` lists what was redacted, for the report and the header."""

    headers: frozenset[str] = SECRET_HEADERS
    params: frozenset[str] = SECRET_PARAMS
    found: list[str] = field(default_factory=list)

    @classmethod
    def configured(cls, extra: Iterable[str] = (), keep: Iterable[str] = ()) -> Redactor:
        """Defaults plus ``extra`` names, minus ``keep`` names (each a header or a parameter)."""
        add = {n.lower() for n in extra}
        drop = {n.lower() for n in keep}
        return cls((SECRET_HEADERS | add) - drop, (SECRET_PARAMS | add) - drop)

    def header_list(self, headers: Iterable[tuple[str, str]], where: str) -> list[list[str]]:
        out = []
        for name, value in headers:
            if name.lower() in self.headers:
                self._note(f"{where}.headers.{name.lower()}")
                value = REDACTED
            out.append([name, value])
        return out

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
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        clean = []
        for k, v in pairs:
            if k.lower() in self.params:
                self._note(f"request.url.query.{k}")
                v = REDACTED
            clean.append((k, v))
        return urlunsplit(parts._replace(query=urlencode(clean, safe="[]:/")))

    def body(self, obj: Any, path: str = "request.body") -> Any:
        """A JSON body with secret-named fields redacted, at any depth."""
        if isinstance(obj, dict):
            out = {}
            for k, v in obj.items():
                if isinstance(k, str) and k.lower() in self.params and v not in (None, ""):
                    self._note(f"{path}.{k}")
                    out[k] = REDACTED  # the whole value, whatever its shape
                else:
                    out[k] = self.body(v, f"{path}.{k}")
            return out
        if isinstance(obj, list):
            return [self.body(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        return obj

    def form(self, text: str, path: str = "request.body") -> str | None:
        """A form-encoded body with secret-named fields redacted; None if it is not one."""
        try:
            pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            return None
        if not pairs:
            return None
        out = []
        for k, v in pairs:
            if k.lower() in self.params:
                self._note(f"{path}.{k}")
                v = REDACTED
            out.append((k, v))
        return urlencode(out, safe="[]")

    def _note(self, what: str) -> None:
        if what not in self.found:
            self.found.append(what)


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """Last line of defence for free text (error messages): known secret values removed."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, REDACTED)
    return text
