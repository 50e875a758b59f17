"""Which recording answers a request (``Router``), and what a request says about it, read
without trusting it: its body parsed as JSON once for every reader (``RequestBody``), its
``[sseconform:TAG]``, its model (a bounded read: never a crash, never a copy the size of the
body in Python objects), and whether a Gemini request wants a JSON array."""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl

import orjson

from sseconform import providers
from sseconform.replay.faults import Faults, parse_faults
from sseconform.replay.plan import Loaded
from sseconform.replay.scenario import ReplayRule

__all__ = [
    "FAULT_HEADER",
    "MAX_PARSED",
    "SELECT_HEADER",
    "TAG",
    "RequestBody",
    "Router",
    "model_of",
    "streams",
    "tag_of",
    "tools_of",
    "wants_array",
]

SELECT_HEADER = "x-sseconform-recording"
FAULT_HEADER = "x-sseconform-fault"
#: Tags whose rules are kept (a retry of the same request finds them): bounded.
MAX_RESOLVED = 65536

#: A request's tag, anywhere in its body (JSON keeps these characters as they are).
TAG = re.compile(rb"\[sseconform:([A-Za-z0-9_.:/-]{1,200})\]")
#: A request body larger than this is not parsed as JSON to find its model (a 16 MB array
#: of empty objects costs half a gigabyte as Python objects): a bounded scan finds it.
MAX_PARSED = 1024 * 1024


@dataclass(frozen=True)
class RequestBody:
    """A request's body and what it says as JSON, parsed at most once per request, as
    routing, the history check and the gate's measure all read it. Parsed when a reader
    first asks, not before: a body no reader parses (past :data:`MAX_PARSED`, with no
    history to check) never costs more than its bytes."""

    raw: bytes

    @cached_property
    def _parsed(self) -> tuple[dict[str, Any] | None, str | None]:
        """(the object, None), (None, None) for JSON that is not an object, (None, why) for
        a body that is not JSON (orjson refuses nesting past 1024 levels: an error too)."""
        try:
            obj = orjson.loads(self.raw)
        except orjson.JSONDecodeError as exc:
            return None, str(exc)
        return (obj, None) if isinstance(obj, dict) else (None, None)

    @property
    def obj(self) -> dict[str, Any] | None:
        """The body as a JSON object; None when it is not one (not JSON, or another value),
        as every reader takes such a body alike."""
        return self._parsed[0]

    @property
    def error(self) -> str | None:
        """Why the body is not JSON (an empty body is not), or None."""
        return self._parsed[1]

    @cached_property
    def tag(self) -> str | None:
        """:func:`tag_of` the body, scanned once: the server logs it, the router routes by it."""
        return tag_of(self.raw)


def wants_array(target: str) -> bool:
    """A Gemini stream request without ``alt=sse``: Google answers it with a JSON array."""
    dialect, _ = providers.dialect_of_path(target)
    if dialect != providers.GEMINI:
        return False
    query = target.partition("?")[2]
    return not any(k == "alt" and v == "sse" for k, v in parse_qsl(query, keep_blank_values=True))


_STREAM = re.compile(rb'"stream"\s*:\s*true')


def streams(target: str, body: RequestBody) -> bool:
    """Whether the request asks for a stream, as the provider reads it: Gemini by its path
    (``:streamGenerateContent``, not ``:generateContent``), the others by ``"stream": true``
    in the body (absent or false: one JSON answer). A body that is not a JSON object is
    answered with the stream, as before this was asked (a provider would refuse it)."""
    dialect, _ = providers.dialect_of_path(target)
    if dialect == providers.GEMINI:
        return ":streamGenerateContent" in target.partition("?")[0]
    if len(body.raw) > MAX_PARSED:
        return _STREAM.search(body.raw) is not None
    obj = body.obj
    return obj is None or obj.get("stream") is True


def tag_of(body: bytes) -> str | None:
    """The ``[sseconform:TAG]`` a request carries in its body, or None: the last one, since
    a conversation's next turn repeats the earlier turns' (with their tags) before its own
    (in the tool result it sends back)."""
    last = None
    for last in TAG.finditer(body):  # noqa: B007 - the last match is the one kept
        pass
    return last.group(1).decode("ascii") if last else None


_MODEL = re.compile(rb'"model"\s*:\s*"((?:[^"\\\\]|\\\\.){1,256})"')


def tools_of(body: RequestBody) -> list[str] | None:
    """The names of the tools a request declares, in any dialect's shape (chat's
    ``function.name``, Anthropic's and Responses' ``name``, Gemini's
    ``functionDeclarations``), in order; None when the body is not read (not a JSON object,
    or over :data:`MAX_PARSED`)."""
    obj = body.obj if len(body.raw) <= MAX_PARSED else None
    if obj is None:
        return None
    tools = obj.get("tools")
    names: list[object] = []
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        declared = tool.get("functionDeclarations", tool.get("function_declarations"))
        if isinstance(function, dict):
            names.append(function.get("name"))
        elif isinstance(declared, list):
            names += [d.get("name") for d in declared if isinstance(d, dict)]
        else:
            names.append(tool.get("name"))
    return [n for n in names if isinstance(n, str)]


def model_of(body: RequestBody) -> str | None:
    """The request's ``model``: parsed as JSON up to MAX_PARSED bytes (orjson refuses
    nesting past 1024 levels, as an error, not a crash), found by a bounded scan past it."""
    if len(body.raw) > MAX_PARSED:
        m = _MODEL.search(body.raw)
        try:
            return json.loads(b'"%b"' % m.group(1)) if m else None
        except ValueError:
            return None
    obj = body.obj
    model = obj.get("model") if obj is not None else None
    return model if isinstance(model, str) else None


class Router:
    """Which recording answers a request, with which faults and at which speed, in order:
    the selection header (a file name), the rules of the request's tag, the scenario rules,
    then the path (its dialect) and the model, rotating among equal candidates so
    multi-turn runs get turn 1, then turn 2. Thread-safe: the server's loop and the tools
    that route tags share it."""

    def __init__(
        self,
        recordings: dict[str, Loaded],
        fault: Faults,
        speed: float,
        rules: list[ReplayRule],
        strict: bool,
    ) -> None:
        self.recordings = recordings
        self.fault = fault
        self.speed = speed
        self.rules = rules
        self.strict = strict  # only rules (or the selection header) choose: no fallback
        self.tagged: dict[str, list[ReplayRule]] = {}  # a tag's own rules (see tag_of)
        #: rules for a tag not routed yet (``load``: the tag names its scenario), kept for
        #: the tag's later requests (retries) in a bounded cache
        self.resolve_tag: Callable[[str], list[ReplayRule] | None] | None = None
        self._resolved: OrderedDict[str, list[ReplayRule]] = OrderedDict()
        self._rotation: dict[tuple[str | None, str | None], int] = {}
        self.requests_seen = 0
        self._lock = threading.Lock()

    def route_tag(self, tag: str, rules: list[ReplayRule]) -> None:
        """Requests carrying ``[sseconform:TAG]`` are answered by these rules alone."""
        with self._lock:
            self.tagged[tag] = rules

    def _tag_rules(self, tag: str | None) -> list[ReplayRule] | None:
        """The rules a tag routes to (under the lock): its own, or resolved and kept."""
        tagged = self.tagged.get(tag) if tag is not None else None
        if tagged is None and tag is not None and self.resolve_tag is not None:
            tagged = self._resolved.get(tag)
            if tagged is None:
                tagged = self.resolve_tag(tag)
                if tagged is not None:
                    self._resolved[tag] = tagged
                    if len(self._resolved) > MAX_RESOLVED:
                        self._resolved.popitem(last=False)
        return tagged

    def upgrade_faults(self, path: str, headers: dict[str, str]) -> Faults:
        """The faults for a WebSocket upgrade (before any message, so with no model or tag):
        the fault header, else the first scenario rule that matches the path and headers
        and holds a ``ws-refuse`` (its use counted, so ``times = 1`` refuses the first
        upgrade alone), else ``--fault``."""
        if FAULT_HEADER in headers:
            return parse_faults(headers[FAULT_HEADER])
        dialect, _ = providers.dialect_of_path(path)
        with self._lock:
            for rule in self.rules:
                if rule.fault is None or rule.model is not None:
                    continue
                faults = parse_faults(rule.fault)
                if faults.ws_refuse is not None and rule.matches(path, dialect, None, headers):
                    rule.used += 1
                    return faults
        return self.fault

    def session_for(self, path: str, headers: dict[str, str]) -> Loaded | None:
        """The recorded WebSocket session an upgrade on ``path`` is answered with: the one
        the selection header names, else each loaded session in turn (None: there is none,
        and the upgrade gets the live WebSocket mode over the SSE recordings)."""
        named = headers.get(SELECT_HEADER)
        if named is not None:
            rec = self.recordings.get(named.strip())
            return rec if rec is not None and rec.session is not None else None
        if providers.dialect_of_path(path)[0] != providers.RESPONSES:
            return None
        sessions = [r for r in self.recordings.values() if r.session is not None]
        if not sessions:
            return None
        with self._lock:
            n = self._rotation.get(("websocket", None), 0)
            self._rotation[("websocket", None)] = n + 1
        return sessions[n % len(sessions)]

    def choose(
        self, path: str, headers: dict[str, str], body: RequestBody
    ) -> tuple[Loaded | None, Faults, float]:
        """The recording, the faults and the speed for one request."""
        faults = self.fault
        speed = self.speed
        model = model_of(body)
        named = headers.get(SELECT_HEADER)
        if FAULT_HEADER in headers:
            faults = parse_faults(headers[FAULT_HEADER])
        if named is not None:
            return self._answer(self.recordings.get(named.strip()), body), faults, speed
        dialect, path_model = providers.dialect_of_path(path)
        model = model or path_model
        ruled: Loaded | None = None
        with self._lock:
            self.requests_seen += 1
            tagged = self._tag_rules(body.tag)
            for rule in tagged if tagged is not None else self.rules:
                if rule.matches(path, dialect, model, headers):
                    rule.used += 1
                    if rule.fault is not None and FAULT_HEADER not in headers:
                        faults = parse_faults(rule.fault)
                    if rule.speed is not None:
                        speed = rule.speed
                    ruled = self.recordings[rule.recording]
                    break
        if ruled is not None:  # a session's turn is chosen outside the lock (_next takes it)
            return self._answer(ruled, body), faults, speed
        if dialect is None or self.strict or tagged is not None:
            return None, faults, speed
        candidates = [
            r for r in self.recordings.values() if r.dialect == dialect and r.session is None
        ]
        if not candidates:  # sessions answer POSTs when no SSE recording of theirs is loaded
            sessions = [r for r in self.recordings.values() if r.dialect == dialect and r.turns]
            if sessions:
                return self._answer(self._next(sessions, ("sessions", None)), body), faults, speed
        exact = [r for r in candidates if model is not None and r.model == model]
        pool = exact or candidates
        if not pool:
            return None, faults, speed
        return self._next(pool, (dialect, model if exact else None)), faults, speed

    def _next(self, pool: list[Loaded], key: tuple[str | None, str | None]) -> Loaded:
        """The next of ``pool`` in its rotation (``key``)."""
        with self._lock:
            n = self._rotation.get(key, 0)
            self._rotation[key] = n + 1
        return pool[n % len(pool)]

    def _answer(self, rec: Loaded | None, body: RequestBody) -> Loaded | None:
        """What a POST is answered with from ``rec``: an SSE recording as it is; a session,
        one of its turns as an SSE stream - the turn after the one whose response the
        request's ``previous_response_id`` names (as the provider chains them), else its
        turns in rotation (turn 1, then turn 2, as a conversation asks them). None for a
        session with no turn (a refused upgrade)."""
        if rec is None or rec.session is None:
            return rec
        if not rec.turns:
            return None
        obj = body.obj
        previous = obj.get("previous_response_id") if obj is not None else None
        after = rec.answered.get(previous) if isinstance(previous, str) else None
        if after is not None and after + 1 < len(rec.turns):
            return rec.turns[after + 1]
        return self._next(rec.turns, ("turns", rec.name))
