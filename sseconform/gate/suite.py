"""Scenario suites: what to make the upstream do, what to ask the gateway, what must hold.

A suite is TOML (read with tomllib)::

    name = "my gateway"
    path = "/v1/chat/completions"    # where the gateway listens (default)
    timeout = 30                     # seconds without a byte before a scenario gives up
    deadline = 60                    # seconds a scenario may take in all (default: twice
                                     # the upstream's answer, plus 15 s)
    max-bytes = 50000000             # bytes kept of the gateway's answer (default: 16 MiB
                                     # plus 16 times the upstream's body)
    speed = 1                        # upstream timing: 1 recorded, 0 as fast as possible
    allow = ["G010"]                 # check codes that do not fail a scenario, and request
                                     # keys a gateway's policy allows (request:lost:top_k)
    timing = { first-token = 1.0 }   # timing budgets, seconds (see gate.timing.Budgets):
                                     # first-token, first-event, delay, silence

    endpoint = "chat"                # which of the gateway's endpoints: chat (default),
                                     # messages (/v1/messages) or responses (/v1/responses)
    profile = "portkey"              # how the gateway is wired (see below); --gateway-profile
    headers = { "x-team" = "qa" }    # sent with every request to the gateway

    [models]                         # the model the gateway is asked for, per upstream dialect
    anthropic = "claude-via-gateway"

    [dialect.anthropic]              # how to ask the gateway for this upstream dialect
    headers = { "x-provider" = "anthropic", "x-upstream" = "{upstream}/v1" }
    model = "claude-via-gateway"
    request = { max_tokens = 1024 }  # merged into the request body
    path = "/v1/chat/completions"    # this dialect's gateway path
    # supported = false              # the gateway cannot route it: its scenarios are n/a
    # reason = "why"

    [[scenario]]
    name = "anthropic text"
    recording = "upstream/text.jsonl"    # relative to the suite file; or builtin:anthropic/...
    upstream = "anthropic"               # optional: the dialect (default: the recording's)
    translate = false                    # serve the recording translated to chunks (an
                                         # OpenAI-compatible upstream)
    fault = "error-at=4"                 # replay faults (see `sseconform replay`)
    fault_times = 1                      # only the first N upstream requests (default: all)
    usage = true                         # ask for usage and compare the counts
    spread = 4                           # re-time the reads evenly over 4 s (slow stream)
    quiet = "6@3"                        # quiet 6 s after read 3, only the provider's
                                         # own keepalives (Anthropic's ping) meanwhile
    request = { temperature = 0 }        # merged into the body sent to the gateway
    headers = { "x-cache" = "off" }      # sent with this scenario's request
    expect = "content"                   # content | error | rejected | content-or-error
                                         # (default: from the recording and the fault)
    reasoning = true                     # ask for thinking as the endpoint's agent does
                                         # (and for the state it must send back)
    history = "full"                     # a conversation's next turns send the whole
                                         # history (default), or "previous-response"
                                         # (Responses: store, previous_response_id)

    [[scenario.turn]]                    # a conversation: the client's next request (the
    recording = "upstream/answer.jsonl"  # history and a result per tool call it got)
    result = "18 °C and sunny"           # is answered with this recording; optional: what
                                         # the client answers each tool call with

``{upstream}`` in any string (a header, the model, a request field, a path) becomes the replay
upstream's base URL (``http://127.0.0.1:PORT``), so one file describes how a gateway is wired.
A *gateway profile* (:mod:`sseconform.gate.profile`) is the same routing part on its own;
``litellm`` and ``portkey`` ship in ``sseconform/gate/profiles/``. The suite's own settings win
over its profile's. The suite's ``endpoint`` (``chat``, ``messages`` or ``responses``) says which
of the gateway's grammars its scenarios ask for: the request is that endpoint's shape, the
gateway's stream is checked with that grammar and compared by meaning with the upstream's.

``builtin:NAME`` suites (``anthropic``, ``gemini``, ``responses``, ``openai``, ``all``) are
made here from the bundled recordings: text, one call, parallel calls, text then a call,
reasoning, usage, max tokens, content filter, an error event mid-stream, 429 (and 529 for
Anthropic) before the stream, the connection dropped mid-stream, and a 2 s stall.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sseconform import providers
from sseconform.errors import UsageError
from sseconform.gate.profile import (
    DEFAULT_PATH,
    PROFILES,
    EndpointRoute,
    Profile,
    Route,
    fail,
    load_profile,
    parse_headers,
    parse_path,
    parse_routes,
    parse_timing,
    read_toml,
)
from sseconform.gate.scenario import EXPECTS, HISTORY, RESULT, Scenario, Turn
from sseconform.gate.timing import DEFAULT_BUDGETS, Budgets
from sseconform.providers import ENDPOINT_GRAMMAR, ENDPOINTS, non_streaming_path
from sseconform.replay.faults import parse_faults

__all__ = ["BUILTINS", "Suite", "builtin_suite", "load_suite", "recordings_dir"]

SUITE_KEYS = frozenset(
    {
        "name",
        "path",
        "timeout",
        "deadline",
        "max-bytes",
        "speed",
        "allow",
        "models",
        "scenario",
        "profile",
        "headers",
        "dialect",
        "endpoint",
        "timing",
    }
)
SCENARIO_KEYS = frozenset(
    {
        "name",
        "recording",
        "upstream",
        "translate",
        "fault",
        "fault_times",
        "usage",
        "request",
        "expect",
        "model",
        "tools",
        "headers",
        "spread",
        "quiet",
        "turn",
        "reasoning",
        "history",
    }
)
TURN_KEYS = frozenset({"recording", "result"})
DEFAULT_MODELS = {d: f"sseconform-{d}" for d in providers.DIALECTS}
BUILTINS = ("anthropic", "gemini", "responses", "openai", "all")


@dataclass
class Suite:
    name: str
    scenarios: list[Scenario]
    path: str | None = None  # None: the profile's, or /v1/chat/completions
    timeout: float = 30.0
    #: seconds a scenario may take in all, and bytes kept of the gateway's answer (None:
    #: from the upstream's recording, see :mod:`sseconform.gate.bounds`)
    deadline: float | None = None
    max_bytes: int | None = None
    speed: float = 1.0
    allow: list[str] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_MODELS))
    source: str = "<builtin>"
    headers: dict[str, str] = field(default_factory=dict)
    routes: dict[str, Route] = field(default_factory=dict)
    profile: Profile | None = None
    endpoint: str = "chat"
    timing: dict[str, float] = field(default_factory=dict)  # budget name -> seconds
    #: False: each scenario is asked without streaming (Gemini's ``:generateContent``), and
    #: the gateway's answer is one JSON object (:func:`non_streaming`)
    streaming: bool = True

    @property
    def budgets(self) -> Budgets:
        """The timing budgets: the defaults, under the profile's, under the suite's own."""
        base = DEFAULT_BUDGETS
        if self.profile is not None:
            base = base.over(self.profile.timing)
        return base.over(self.timing)

    @property
    def endpoint_route(self) -> EndpointRoute:
        """The profile's word on this suite's endpoint (nothing said: served as defaults)."""
        if self.profile is None:
            return EndpointRoute()
        return self.profile.endpoints.get(self.endpoint, EndpointRoute())

    @property
    def grammar(self) -> str:
        """The grammar the gateway's streams are checked in: the endpoint's, or the one the
        profile says the gateway claims (``open-responses`` for ``responses``)."""
        return self.endpoint_route.grammar or ENDPOINT_GRAMMAR[self.endpoint]

    def endpoint_refusal(self, dialect: str) -> str | None:
        """Why the gateway does not serve ``dialect`` upstreams on this endpoint, or None."""
        er = self.endpoint_route
        why = f": {er.reason}" if er.reason else ""
        if er.supported is False:
            return f"the gateway does not serve the {self.endpoint} endpoint{why}"
        if er.dialects is not None and dialect not in er.dialects:
            return f"the gateway's {self.endpoint} endpoint does not serve {dialect}{why}"
        return None

    def route(self, dialect: str) -> Route:
        """The suite's settings for ``dialect`` over its profile's."""
        own = self.routes.get(dialect, Route())
        if self.profile is not None:
            own = own.over(self.profile.routes.get(dialect, Route()))
        return own

    def supports(self, dialect: str) -> bool:
        """A dialect the endpoint names in its ``dialects`` is served there, on any
        endpoint, even when its ``[dialect.*]`` table says ``supported = false`` (a gateway
        may pass a dialect through on its own endpoint only, and the profile says so where
        it says which endpoint serves what)."""
        named = dialect in (self.endpoint_route.dialects or [])
        return named or self.route(dialect).supported is not False

    def model_for(self, dialect: str) -> str:
        return self.route(dialect).model or self.models.get(dialect) or "sseconform"

    def path_for(self, dialect: str) -> str:
        if self.endpoint != "chat":  # the dialect's and suite's paths are the chat endpoint's
            path = self.endpoint_route.path or ENDPOINTS[self.endpoint]
            return path if self.streaming else non_streaming_path(path) or path
        profile_path = self.profile.path if self.profile is not None else None
        own = self.route(dialect).path or self.path  # the suite's and its dialect's word
        return own or self.endpoint_route.path or profile_path or DEFAULT_PATH

    def headers_for(self, dialect: str, scenario: Scenario) -> dict[str, str]:
        """Profile, suite, dialect, then scenario headers: the later wins, by name."""
        out: dict[str, str] = {}
        layers = [self.profile.headers if self.profile else {}, self.headers]
        layers += [self.route(dialect).headers, scenario.headers]
        for layer in layers:
            for k, v in layer.items():
                out = {n: x for n, x in out.items() if n.lower() != k.lower()}
                out[k] = v
        return out


def recordings_dir() -> Path:
    """The bundled recordings: inside an installed wheel, or on top of a source tree."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "recordings", here.parent / "recordings"):
        if (candidate / "anthropic").is_dir():
            return candidate
    raise FileNotFoundError("the bundled recordings are missing from this installation")


def _resolve(ref: str, base: Path) -> str:
    if ref.startswith("builtin:"):
        return str(recordings_dir() / ref[len("builtin:") :])
    p = Path(ref)
    return str(p if p.is_absolute() else base / p)


def load_suite(path: str) -> Suite:
    """A suite file, or ``builtin:NAME``; errors name the file and the scenario."""
    if path.startswith("builtin:"):
        return builtin_suite(path[len("builtin:") :])
    data = read_toml(path, path, "a suite")
    return suite_from(data, Path(path).resolve().parent, path)


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def suite_from(data: dict[str, Any], base: Path, source: str) -> Suite:
    """Validate a parsed suite; every error says where (``scenario 3 ("name")``)."""
    unknown = set(data) - SUITE_KEYS
    if unknown:
        raise fail(source, "top level", f"unknown key(s) {', '.join(sorted(unknown))}")
    models = dict(DEFAULT_MODELS)
    extra = data.get("models", {})
    if not isinstance(extra, dict) or not all(isinstance(v, str) for v in extra.values()):
        raise fail(source, "[models]", "a table of dialect = model name")
    bad = set(extra) - set(providers.DIALECTS)
    if bad:
        raise fail(source, "[models]", f"unknown dialect(s) {', '.join(sorted(bad))}")
    models.update(extra)
    raw = data.get("scenario")
    if not isinstance(raw, list) or not raw:
        raise fail(source, "top level", "no [[scenario]] tables")
    scenarios = [_scenario(i + 1, s, base, source) for i, s in enumerate(raw)]
    names = [s.name for s in scenarios]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise fail(source, "scenarios", f"names used twice: {', '.join(sorted(dup))}")
    allow = data.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise fail(source, "allow", "a list of rule codes")
    timeout = data.get("timeout", 30.0)
    speed = data.get("speed", 1.0)
    if not _number(timeout) or timeout <= 0:
        raise fail(source, "timeout", "a number of seconds above 0")
    if not _number(speed) or speed < 0:
        raise fail(source, "speed", "a number, 0 or more")
    deadline = data.get("deadline")
    if deadline is not None and (not _number(deadline) or not 0 < deadline <= 86400):
        raise fail(source, "deadline", "a number of seconds above 0 (at most a day)")
    max_bytes = data.get("max-bytes")
    if max_bytes is not None and (type(max_bytes) is not int or max_bytes <= 0):
        raise fail(source, "max-bytes", "a whole number of bytes above 0")
    path = data.get("path")
    if path is not None:
        path = parse_path(source, "path", path)
    endpoint = data.get("endpoint", "chat")
    if endpoint not in ENDPOINTS:
        raise fail(source, "endpoint", f"one of {', '.join(ENDPOINTS)}")
    routes = parse_routes(source, data.get("dialect", {}))
    for d, name in extra.items():  # [models] is the older spelling of [dialect.X] model
        routes.setdefault(d, Route())
        routes[d].model = routes[d].model or name
    profile = None
    if "profile" in data:
        if not isinstance(data["profile"], str):
            raise fail(source, "profile", f"a profile name ({', '.join(PROFILES)}) or file")
        ref = data["profile"]
        local = base / ref
        profile = load_profile(str(local) if ref not in PROFILES and local.is_file() else ref)
    suite = Suite(
        name=str(data.get("name", Path(source).stem)),
        scenarios=scenarios,
        path=path,
        timeout=float(timeout),
        deadline=float(deadline) if deadline is not None else None,
        max_bytes=max_bytes,
        speed=float(speed),
        allow=allow,
        models=models,
        source=source,
        headers=parse_headers(source, "headers", data.get("headers", {})),
        routes=routes,
        profile=profile,
        endpoint=endpoint,
        timing=parse_timing(source, data.get("timing", {})),
    )
    check_faults(suite)
    return suite


def check_faults(suite: Suite) -> None:
    """Refuse a scenario whose fault cannot take effect on its recording as placed (a stall
    after the last event, a drop past the end): it would test nothing and still pass."""
    from sseconform.gate.upstream import as_served
    from sseconform.replay.plan import fault_problems, load

    for sc in suite.scenarios:
        if not sc.fault:
            continue
        rec = as_served(sc, load(sc.recording))
        problems = fault_problems(rec, parse_faults(sc.fault))
        if problems:
            where = f"scenario {sc.name!r}"
            raise fail(suite.source, where, f"fault {sc.fault!r} cannot fire: {problems[0]}")


def _scenario(n: int, raw: Any, base: Path, source: str) -> Scenario:
    if not isinstance(raw, dict):
        raise fail(source, f"scenario {n}", "not a table")
    where = f"scenario {n}" + (f" ({raw['name']!r})" if isinstance(raw.get("name"), str) else "")
    unknown = set(raw) - SCENARIO_KEYS
    if unknown:
        raise fail(source, where, f"unknown key(s) {', '.join(sorted(unknown))}")
    if not isinstance(raw.get("recording"), str):
        raise fail(source, where, "needs recording = PATH")
    upstream = raw.get("upstream")
    if upstream is not None and upstream not in providers.DIALECTS:
        raise fail(source, where, f"upstream must be one of {', '.join(providers.DIALECTS)}")
    fault = raw.get("fault")
    if fault is not None:
        try:
            parse_faults(str(fault))
        except ValueError as exc:
            raise fail(source, where, str(exc)) from None
    expect = raw.get("expect")
    if expect is not None and expect not in EXPECTS:
        raise fail(source, where, f"expect must be one of {', '.join(EXPECTS)}")
    request = raw.get("request", {})
    if not isinstance(request, dict):
        raise fail(source, where, "request must be a table")
    times = raw.get("fault_times")
    if times is not None and (type(times) is not int or times < 1):
        raise fail(source, where, "fault_times must be a positive integer")
    for key in ("translate", "usage", "tools", "reasoning"):
        if key in raw and not isinstance(raw[key], bool):
            raise fail(source, where, f"{key} must be true or false")
    for key in ("name", "model", "fault"):
        if key in raw and not isinstance(raw[key], str):
            raise fail(source, where, f"{key} must be a string")
    spread = raw.get("spread")
    if spread is not None and (not _number(spread) or not 0 < spread <= 3600):
        raise fail(source, where, "spread must be seconds, above 0 (at most 3600)")
    quiet = _quiet(source, where, raw.get("quiet"))
    path = _recording(source, where, raw, base)  # the file last: its other errors first
    history = raw.get("history", "full")
    if history not in HISTORY:
        raise fail(source, where, f"history must be one of {', '.join(HISTORY)}")
    turns = _turns(source, where, raw.get("turn", []), base)
    return Scenario(
        name=str(raw.get("name", f"scenario {n}")),
        recording=path,
        upstream=upstream,
        translate=bool(raw.get("translate", False)),
        fault=str(fault) if fault is not None else None,
        fault_times=times,
        usage=bool(raw.get("usage", False)),
        request=request,
        expect=expect,
        model=raw.get("model") if isinstance(raw.get("model"), str) else None,
        tools=raw.get("tools") if isinstance(raw.get("tools"), bool) else None,
        headers=parse_headers(source, f"{where} headers", raw.get("headers", {})),
        spread=float(spread) if spread is not None else None,
        quiet=quiet,
        turns=turns,
        reasoning=bool(raw.get("reasoning", False)),
        history=history,
    )


def _turns(source: str, where: str, raw: object, base: Path) -> list[Turn]:
    """``[[scenario.turn]]`` tables: a conversation's later turns."""
    if not isinstance(raw, list):
        raise fail(source, where, "turn must be an array of tables ([[scenario.turn]])")
    turns = []
    for i, t in enumerate(raw, start=2):
        at = f"{where} turn {i}"
        if not isinstance(t, dict):
            raise fail(source, at, "not a table")
        unknown = set(t) - TURN_KEYS
        if unknown:
            raise fail(source, at, f"unknown key(s) {', '.join(sorted(unknown))}")
        path = _recording(source, at, t, base)
        result = t.get("result", RESULT)
        if not isinstance(result, str):
            raise fail(source, at, "result must be a string")
        turns.append(Turn(path, result))
    return turns


def _recording(source: str, where: str, raw: dict[str, Any], base: Path) -> str:
    """A table's ``recording``: a path (relative to the suite) to a file that exists."""
    if not isinstance(raw.get("recording"), str):
        raise fail(source, where, "needs recording = PATH")
    path = _resolve(raw["recording"], base)
    if not Path(path).is_file():
        raise fail(source, where, f"recording {raw['recording']!r}: no such file ({path})")
    return path


def _quiet(source: str, where: str, raw: object) -> tuple[float, int] | None:
    """``quiet = "SECONDS@N"``: quiet for SECONDS after read N."""
    if raw is None:
        return None
    seconds, sep, after = str(raw).partition("@")
    try:
        value = (float(seconds), int(after))
    except ValueError:
        value = (-1.0, -1)
    if not isinstance(raw, str) or not sep or not 0 < value[0] <= 3600 or value[1] < 1:
        raise fail(source, where, 'quiet must be "SECONDS@N" (quiet after read N, N >= 1)')
    return value


# -- the built-in suites ---------------------------------------------------------------------


class _Builtin(NamedTuple):
    """One built-in scenario, made for every dialect from that dialect's recording."""

    label: str
    stem: str  # the recording: recordings/<dialect>/<stem>-<dialect>.jsonl
    fault: str | None = None
    fault_times: int | None = None
    usage: bool = False
    spread: float | None = None
    quiet: float | None = None  # seconds, just before the first token (see _first_token)
    #: a conversation: the recording of its second turn (recordings/<dialect>/<it>-<dialect>)
    then: str | None = None
    history: str = "full"
    #: the upstream dialects it is not made for (their recording has nothing to spread, or
    #: another scenario already shows what it would)
    skip: frozenset[str] = frozenset()
    streamed_calls: bool = False  # see Scenario.streamed_calls


#: Above the default silence budget (5 s), so a gateway that lets the stream go silent shows.
LONG_SILENCE = 6.0
#: At least 4 s, so a gateway that buffers the answer cannot pass for one that streams it.
SLOW_STREAM = 4.0

_BUILTIN: list[_Builtin] = [
    _Builtin("text", "text"),
    _Builtin("tool-call", "tool-call"),
    _Builtin("parallel-calls", "parallel-calls"),
    # parallel calls as Gemini sends them, each in a chunk of its own: a gateway that
    # numbers a chunk's calls from 0 merges them (the other dialects' parallel-calls already
    # send each call's pieces apart: their index shows the same bug there)
    _Builtin(
        "calls-one-per-chunk",
        "calls-one-per-chunk",
        skip=frozenset({"anthropic", "responses", "openai"}),
    ),
    _Builtin("text-then-call", "text-then-call"),
    _Builtin("reasoning", "thinking"),
    _Builtin("usage", "usage", usage=True),
    _Builtin("max-tokens", "max-tokens"),
    _Builtin("content-filter", "safety"),
    _Builtin("error-mid-stream", "error"),
    _Builtin("rate-limited", "text", "status=429", 1),
    _Builtin("overloaded", "text", "status=529", 1),  # Anthropic's own status
    _Builtin("dropped-mid-stream", "text", "drop-mid-stream"),  # see _mid_stream
    _Builtin("stall", "text", "stall=2@4"),
    _Builtin("slow-stream", "text", spread=SLOW_STREAM),
    # a call's arguments and the thinking spread over seconds, in many small deltas: a
    # gateway that assembles a call (or the thinking) before it forwards it shows; Gemini
    # sends a call's arguments whole (one piece: nothing to spread)
    _Builtin(
        "slow-call",
        "tool-call",
        spread=SLOW_STREAM,
        skip=frozenset({"gemini"}),
        streamed_calls=True,
    ),
    _Builtin("slow-reasoning", "thinking", spread=SLOW_STREAM),
    _Builtin("long-silence", "thinking", quiet=LONG_SILENCE),
    _Builtin("agent-loop", "agent-loop", then="agent-answer"),
    _Builtin("previous-response", "agent-loop", then="agent-answer", history="previous-response"),
]


def builtin_suite(name: str) -> Suite:
    """The default suite for one upstream dialect, or ``all`` of them."""
    if name not in BUILTINS:
        raise UsageError(f"no built-in suite {name!r}; built-in: {', '.join(BUILTINS)}")
    dialects = [d for d in BUILTINS[:4]] if name == "all" else [name]
    root = recordings_dir()
    scenarios: list[Scenario] = []
    for d in dialects:
        source = "anthropic" if d == "openai" else d  # an OpenAI upstream: translated Anthropic
        for b in _BUILTIN:
            if b.label == "overloaded" and d != "anthropic":
                continue
            if b.label == "previous-response" and d != "responses":
                continue  # a stored response: Responses' own
            if d in b.skip:
                continue
            path = root / source / f"{b.stem}-{source}.jsonl"
            fault = b.fault
            if fault == "drop-mid-stream":
                fault = _mid_stream(path)
            quiet = None if b.quiet is None else (b.quiet, _first_token(path))
            scenarios.append(
                Scenario(
                    name=f"{d}/{b.label}",
                    recording=str(path),
                    upstream=source,
                    translate=d == "openai",
                    fault=fault,
                    fault_times=b.fault_times,
                    usage=b.usage,
                    spread=b.spread,
                    quiet=quiet,
                    turns=[Turn(str(root / source / f"{b.then}-{source}.jsonl"))] if b.then else [],
                    reasoning=b.then is not None,
                    history=b.history,
                    streamed_calls=b.streamed_calls,
                )
            )
    return Suite(name=f"builtin:{name}", scenarios=scenarios)


def _first_token(path: Path) -> int:
    """How many reads come before the first one that carries output (at least one): the
    upstream goes quiet there, as a model does while it thinks, after its stream began."""
    from sseconform.replay.plan import load
    from sseconform.sse import SSEDecoder
    from sseconform.wires import carries_token

    dec = SSEDecoder()
    for n, (_, data) in enumerate(load(str(path)).reads):
        if any(carries_token(ev.data) for ev in dec.feed(data)):
            return max(1, n)
    return 1


#: The upstream's pause after its first token, before the drop of dropped-mid-stream: time
#: for a gateway to pass that token on, so the drop is mid-stream for its client too (on a
#: loaded machine LiteLLM was once still holding it when the drop came 25 ms later).
DROP_PAUSE = 0.2


def _mid_stream(path: Path, tokens: int = 2) -> str:
    """A drop just past the ``tokens``-th event that carries output, after a pause of
    :data:`DROP_PAUSE` past the first: mid-stream in every dialect (Responses sends four
    events before its first delta), and for the gateway's client too."""
    from sseconform.replay.plan import load
    from sseconform.sse import SSEDecoder
    from sseconform.wires import carries_token

    dec = SSEDecoder()
    events = dec.feed(load(str(path)).body) + dec.finish()
    seen, first = 0, 0
    for n, ev in enumerate(events, 1):
        if carries_token(ev.data):
            seen += 1
            first = first or n
            if seen == tokens:
                return f"stall={DROP_PAUSE:g}@{first},drop-after-events={n}"
    return f"drop-after-events={max(1, len(events) // 2)}"
