"""Gateway profiles: how one gateway is wired, shipped (``litellm``, ``portkey``) or a file.

A profile is the routing part of a suite on its own (``path``, ``headers``, ``[dialect.*]``),
plus ``upstream-port`` for a gateway whose own config names the upstream's port and
``gateway-config``, that config's text. ``endpoints = ["messages"]`` names the endpoints
graded when ``--endpoint`` is not given (default: chat). It also says which (endpoint,
dialect) pairs its gateway serves::

    [endpoint.messages]
    path = "/v1/messages"            # default
    dialects = ["anthropic"]         # the upstream dialects it serves there (default: all;
                                     # one named here is served there, on any endpoint,
                                     # even if its [dialect.*] table says supported = false)
    reason = "why not the others"
    # supported = false              # the endpoint itself is not served

An *endpoint* is the grammar the gateway serves its clients: ``chat`` (chunks at
``/v1/chat/completions``), ``messages`` (Anthropic Messages events at ``/v1/messages``),
``responses`` (Responses events at ``/v1/responses``) or ``gemini`` (Gemini's chunks at
``/v1beta/models/{model}:streamGenerateContent?alt=sse``; ``{model}`` is the dialect's
model). The TOML helpers here (paths, header
tables, ``[dialect.*]`` routes) read suites too, so both say the same thing the same way.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sseconform import providers
from sseconform.errors import InputError, UsageError
from sseconform.gate.timing import parse_budget
from sseconform.providers import ENDPOINT_GRAMMARS, ENDPOINTS

__all__ = [
    "PROFILES",
    "UPSTREAM",
    "EndpointRoute",
    "Profile",
    "Route",
    "load_profile",
    "parse_header",
    "profiles_dir",
]

ROUTE_KEYS = frozenset({"headers", "model", "request", "path", "supported", "reason"})
PROFILE_KEYS = frozenset(
    {
        "name",
        "description",
        "path",
        "headers",
        "dialect",
        "endpoint",
        "endpoints",
        "upstream-port",
        "gateway-config",
        "timing",
        "key",
    }
)
ENDPOINT_KEYS = frozenset({"path", "dialects", "supported", "reason", "grammar"})
DEFAULT_PATH = "/v1/chat/completions"
PROFILES = (
    "litellm",
    "portkey",
    "claude-code-router",
    "claude-code-proxy",
    "llm-proxy-server",
    "lmnr-claude-code-proxy",
    "nullplatform-llm-gateway",
)
#: What ``{upstream}`` stands for in a suite's or profile's strings.
UPSTREAM = "{upstream}"
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


@dataclass
class Route:
    """How the gateway is asked for the scenarios whose upstream speaks one dialect."""

    headers: dict[str, str] = field(default_factory=dict)
    model: str | None = None
    request: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    supported: bool | None = None  # None: not said (supported)
    reason: str = ""

    def over(self, base: Route) -> Route:
        """These settings on top of ``base``'s (a suite's over its profile's)."""
        return Route(
            {**base.headers, **self.headers},
            self.model or base.model,
            {**base.request, **self.request},
            self.path or base.path,
            self.supported if self.supported is not None else base.supported,
            self.reason or base.reason,
        )


@dataclass
class EndpointRoute:
    """Where a gateway serves one endpoint, and for which upstream dialects."""

    path: str | None = None
    dialects: list[str] | None = None  # None: every dialect
    supported: bool | None = None
    reason: str = ""
    grammar: str | None = None  # None: the endpoint's own (ENDPOINT_GRAMMAR)


@dataclass
class Profile:
    """How one gateway is wired: the routing part of a suite, shipped or the user's own."""

    name: str
    source: str
    description: str = ""
    path: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    routes: dict[str, Route] = field(default_factory=dict)
    upstream_port: int | None = None
    gateway_config: str | None = None
    #: the client key the gateway's config (``gateway-config``) makes it require: gate sends
    #: it when no ``--key`` is given, so the printed config and the run agree
    key: str | None = None
    endpoints: dict[str, EndpointRoute] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)  # budget name -> seconds
    #: the endpoints gate grades when no ``--endpoint`` is given (``endpoints = [...]``; a
    #: gateway that serves ``/v1/messages`` alone names it, so a run never grades nothing)
    default_endpoints: list[str] = field(default_factory=list)

    def config_text(self, upstream: str) -> str | None:
        """The gateway's own configuration, pointed at ``upstream``."""
        if self.gateway_config is None:
            return None
        return self.gateway_config.replace(UPSTREAM, upstream)


def fail(source: str, where: str, message: str) -> UsageError:
    return UsageError(f"{source}: {where}: {message}")


def parse_path(source: str, where: str, value: object) -> str:
    if not isinstance(value, str) or not value.startswith(("/", UPSTREAM)):
        raise fail(source, where, "a path that starts with /")
    if any(c in value for c in "\r\n ") or any(ord(c) < 32 for c in value):
        raise fail(source, where, "a path has no spaces or control characters")
    return value


def parse_headers(source: str, where: str, raw: object) -> dict[str, str]:
    """A table of header name = value; names are HTTP tokens, values one line."""
    if not isinstance(raw, dict):
        raise fail(source, where, 'a table of "Header-Name" = "value"')
    out: dict[str, str] = {}
    for k, v in raw.items():
        if not _TOKEN.fullmatch(k):
            raise fail(source, where, f"{k!r} is not a header name")
        if not isinstance(v, str) or any(ord(c) < 32 and c != "\t" for c in v):
            raise fail(source, where, f"{k}: a header value is one line of text")
        out[k] = v
    return out


def parse_header(item: str) -> tuple[str, str]:
    """``"Name: value"`` (as ``--header`` and ``record -H`` take it)."""
    name, sep, value = item.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _TOKEN.fullmatch(name) or any(ord(c) < 32 and c != "\t" for c in value):
        raise UsageError(f"--header {item!r}: give 'Name: value'")
    return name, value


def parse_routes(source: str, raw: object) -> dict[str, Route]:
    if not isinstance(raw, dict):
        raise fail(source, "[dialect]", "tables [dialect.NAME], one per upstream dialect")
    bad = set(raw) - set(providers.DIALECTS)
    if bad:
        raise fail(
            source,
            "[dialect]",
            f"unknown dialect(s) {', '.join(sorted(bad))}; dialects: "
            + ", ".join(providers.DIALECTS),
        )
    return {d: _route(source, f"[dialect.{d}]", t) for d, t in raw.items()}


def _route(source: str, where: str, raw: object) -> Route:
    if not isinstance(raw, dict):
        raise fail(source, where, "not a table")
    unknown = set(raw) - ROUTE_KEYS
    if unknown:
        raise fail(source, where, f"unknown key(s) {', '.join(sorted(unknown))}")
    request = raw.get("request", {})
    if not isinstance(request, dict):
        raise fail(source, where, "request must be a table")
    for key in ("model", "reason"):
        if key in raw and not isinstance(raw[key], str):
            raise fail(source, where, f"{key} must be a string")
    if "supported" in raw and not isinstance(raw["supported"], bool):
        raise fail(source, where, "supported must be true or false")
    return Route(
        headers=parse_headers(source, f"{where} headers", raw.get("headers", {})),
        model=raw.get("model"),
        request=request,
        path=parse_path(source, f"{where} path", raw["path"]) if "path" in raw else None,
        supported=raw.get("supported"),
        reason=str(raw.get("reason", "")),
    )


def parse_timing(source: str, raw: object) -> dict[str, float]:
    """A ``[timing]`` table of budgets in seconds (``first-token = 1.0``)."""
    if not isinstance(raw, dict):
        raise fail(source, "[timing]", "a table of budget = seconds")
    out: dict[str, float] = {}
    for name, value in raw.items():
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        out.update([parse_budget(f"{name}={value if ok else 'x'}", f"{source}: [timing]")])
    return out


def read_toml(path: str | Path, name: str, what: str) -> dict[str, Any]:
    """A suite's or profile's TOML; any failure is one line naming the file (as ``name``)."""
    try:
        with open(path, "rb") as fp:
            return tomllib.load(fp)
    except FileNotFoundError:
        raise InputError("no such file", name) from None
    except IsADirectoryError:
        raise InputError("is a directory", name) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", name) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start}): {what} is TOML text", name) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), name) from None


def profiles_dir() -> Path:
    """The gateway profiles shipped inside the package."""
    return Path(__file__).resolve().parent / "profiles"


def load_profile(ref: str) -> Profile:
    """A shipped profile by name (``litellm``, ``portkey``) or a profile file."""
    path = profiles_dir() / f"{ref}.toml" if ref in PROFILES else Path(ref)
    if ref not in PROFILES and not path.suffix and not path.exists():
        raise UsageError(f"no gateway profile {ref!r}; shipped: {', '.join(PROFILES)}, or a file")
    data = read_toml(path, ref, "a profile")
    source = ref if ref not in PROFILES else f"profile {ref}"
    unknown = set(data) - PROFILE_KEYS
    if unknown:
        raise fail(source, "top level", f"unknown key(s) {', '.join(sorted(unknown))}")
    port = data.get("upstream-port")
    if port is not None and (type(port) is not int or not 0 <= port <= 65535):
        raise fail(source, "upstream-port", "a port number")
    config = data.get("gateway-config")
    if config is not None and not isinstance(config, str):
        raise fail(source, "gateway-config", "the gateway's configuration, as text")
    key = data.get("key")
    if key is not None and (not isinstance(key, str) or not _TOKEN.fullmatch(key)):
        raise fail(source, "key", "the client key, as a string of token characters")
    return Profile(
        name=str(data.get("name", path.stem)),
        source=str(path),
        description=str(data.get("description", "")),
        path=parse_path(source, "path", data["path"]) if "path" in data else None,
        headers=parse_headers(source, "headers", data.get("headers", {})),
        routes=parse_routes(source, data.get("dialect", {})),
        upstream_port=port,
        gateway_config=config,
        key=key,
        endpoints=_endpoints(source, data.get("endpoint", {})),
        timing=parse_timing(source, data.get("timing", {})),
        default_endpoints=_default_endpoints(source, data.get("endpoints", [])),
    )


def _default_endpoints(source: str, raw: object) -> list[str]:
    """A profile's ``endpoints = [...]``: the endpoints graded by default."""
    if not isinstance(raw, list) or not all(isinstance(e, str) and e in ENDPOINTS for e in raw):
        raise fail(source, "endpoints", f"a list of {', '.join(ENDPOINTS)}")
    return list(dict.fromkeys(raw))


def _endpoints(source: str, raw: object) -> dict[str, EndpointRoute]:
    """A profile's ``[endpoint.NAME]`` tables."""
    if not isinstance(raw, dict):
        raise fail(source, "[endpoint]", "tables [endpoint.NAME], one per endpoint")
    out: dict[str, EndpointRoute] = {}
    for name, t in raw.items():
        where = f"[endpoint.{name}]"
        if name not in ENDPOINTS:
            raise fail(source, where, f"unknown endpoint; endpoints: {', '.join(ENDPOINTS)}")
        if not isinstance(t, dict):
            raise fail(source, where, "not a table")
        unknown = set(t) - ENDPOINT_KEYS
        if unknown:
            raise fail(source, where, f"unknown key(s) {', '.join(sorted(unknown))}")
        dialects = t.get("dialects")
        if dialects is not None and (
            not isinstance(dialects, list) or not set(dialects) <= set(providers.DIALECTS)
        ):
            raise fail(source, where, f"dialects: a list of {', '.join(providers.DIALECTS)}")
        if "supported" in t and not isinstance(t["supported"], bool):
            raise fail(source, where, "supported must be true or false")
        grammar = t.get("grammar")
        if grammar is not None and grammar not in ENDPOINT_GRAMMARS[name]:
            raise fail(
                source, where, f"grammar: one of {', '.join(ENDPOINT_GRAMMARS[name])} for {name}"
            )
        out[name] = EndpointRoute(
            path=parse_path(source, f"{where} path", t["path"]) if "path" in t else None,
            dialects=dialects,
            supported=t.get("supported"),
            reason=str(t.get("reason", "")),
            grammar=grammar,
        )
    return out
