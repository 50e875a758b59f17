"""Scenario suites: what to make the upstream do, what to ask the gateway, what must hold.

A suite is TOML (read with tomllib)::

    name = "my gateway"
    path = "/v1/chat/completions"    # where the gateway listens (default)
    timeout = 30                     # seconds without a byte before a scenario gives up
    speed = 1                        # upstream timing: 1 recorded, 0 as fast as possible
    allow = ["G010"]                 # check codes that do not fail a scenario

    [models]                         # the model the gateway is asked for, per upstream dialect
    anthropic = "claude-via-gateway"

    [[scenario]]
    name = "anthropic text"
    recording = "upstream/text.jsonl"    # relative to the suite file; or builtin:anthropic/...
    upstream = "anthropic"               # optional: the dialect (default: the recording's)
    translate = false                    # serve the recording translated to chunks (an
                                         # OpenAI-compatible upstream)
    fault = "error-at=4"                 # replay faults (see `sseconform replay`)
    fault_times = 1                      # only the first N upstream requests (default: all)
    usage = true                         # ask for usage and compare the counts
    request = { temperature = 0 }        # merged into the body sent to the gateway
    expect = "content"                   # content | error | rejected | content-or-error
                                         # (default: from the recording and the fault)

``builtin:NAME`` suites (``anthropic``, ``gemini``, ``responses``, ``openai``, ``all``) are
made here from the bundled recordings: text, one call, parallel calls, text then a call,
reasoning, usage, max tokens, content filter, an error event mid-stream, 429 (and 529 for
Anthropic) before the stream, the connection dropped mid-stream, and a 2 s stall.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sseconform import providers
from sseconform.errors import InputError, UsageError
from sseconform.replay.plan import parse_faults

__all__ = ["EXPECTS", "Scenario", "Suite", "builtin_suite", "load_suite", "recordings_dir"]

EXPECTS = ("content", "error", "rejected", "content-or-error")
SUITE_KEYS = frozenset({"name", "path", "timeout", "speed", "allow", "models", "scenario"})
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
    }
)
DEFAULT_MODELS = {d: f"sseconform-{d}" for d in providers.DIALECTS}
BUILTINS = ("anthropic", "gemini", "responses", "openai", "all")


@dataclass
class Scenario:
    name: str
    recording: str  # a path
    upstream: str | None = None
    translate: bool = False
    fault: str | None = None
    fault_times: int | None = None
    usage: bool = False
    request: dict[str, Any] = field(default_factory=dict)
    expect: str | None = None
    model: str | None = None
    tools: bool | None = None  # declare the recording's tools in the request (default: if any)

    @property
    def served_dialect(self) -> str | None:
        """The dialect the upstream speaks on the wire."""
        return providers.OPENAI if self.translate else self.upstream

    def expectation(self, recording_has_error: bool) -> str:
        """What must hold, when the suite does not say: from the fault and the recording."""
        if self.expect is not None:
            return self.expect
        f = parse_faults(self.fault)
        if f.status is not None:
            return "rejected"
        if f.drop_after_events or f.drop_after_bytes or f.error_at or f.truncate_last:
            return "error"
        if recording_has_error:
            return "error"
        if f.stall is not None:
            return "content-or-error"
        return "content"


@dataclass
class Suite:
    name: str
    scenarios: list[Scenario]
    path: str = "/v1/chat/completions"
    timeout: float = 30.0
    speed: float = 1.0
    allow: list[str] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_MODELS))
    source: str = "<builtin>"


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
    try:
        with open(path, "rb") as fp:
            data = tomllib.load(fp)
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory", path) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start}): a suite is TOML text", path) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from None
    return suite_from(data, Path(path).resolve().parent, path)


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _fail(source: str, where: str, message: str) -> UsageError:
    return UsageError(f"{source}: {where}: {message}")


def suite_from(data: dict[str, Any], base: Path, source: str) -> Suite:
    """Validate a parsed suite; every error says where (``scenario 3 ("name")``)."""
    unknown = set(data) - SUITE_KEYS
    if unknown:
        raise _fail(source, "top level", f"unknown key(s) {', '.join(sorted(unknown))}")
    models = dict(DEFAULT_MODELS)
    extra = data.get("models", {})
    if not isinstance(extra, dict) or not all(isinstance(v, str) for v in extra.values()):
        raise _fail(source, "[models]", "a table of dialect = model name")
    bad = set(extra) - set(providers.DIALECTS)
    if bad:
        raise _fail(source, "[models]", f"unknown dialect(s) {', '.join(sorted(bad))}")
    models.update(extra)
    raw = data.get("scenario")
    if not isinstance(raw, list) or not raw:
        raise _fail(source, "top level", "no [[scenario]] tables")
    scenarios = [_scenario(i + 1, s, base, source) for i, s in enumerate(raw)]
    names = [s.name for s in scenarios]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise _fail(source, "scenarios", f"names used twice: {', '.join(sorted(dup))}")
    allow = data.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise _fail(source, "allow", "a list of rule codes")
    timeout = data.get("timeout", 30.0)
    speed = data.get("speed", 1.0)
    if not _number(timeout) or timeout <= 0:
        raise _fail(source, "timeout", "a number of seconds above 0")
    if not _number(speed) or speed < 0:
        raise _fail(source, "speed", "a number, 0 or more")
    return Suite(
        name=str(data.get("name", Path(source).stem)),
        scenarios=scenarios,
        path=str(data.get("path", "/v1/chat/completions")),
        timeout=float(timeout),
        speed=float(speed),
        allow=allow,
        models=models,
        source=source,
    )


def _scenario(n: int, raw: Any, base: Path, source: str) -> Scenario:
    if not isinstance(raw, dict):
        raise _fail(source, f"scenario {n}", "not a table")
    where = f"scenario {n}" + (f" ({raw['name']!r})" if isinstance(raw.get("name"), str) else "")
    unknown = set(raw) - SCENARIO_KEYS
    if unknown:
        raise _fail(source, where, f"unknown key(s) {', '.join(sorted(unknown))}")
    if not isinstance(raw.get("recording"), str):
        raise _fail(source, where, "needs recording = PATH")
    upstream = raw.get("upstream")
    if upstream is not None and upstream not in providers.DIALECTS:
        raise _fail(source, where, f"upstream must be one of {', '.join(providers.DIALECTS)}")
    fault = raw.get("fault")
    if fault is not None:
        try:
            parse_faults(str(fault))
        except ValueError as exc:
            raise _fail(source, where, str(exc)) from None
    expect = raw.get("expect")
    if expect is not None and expect not in EXPECTS:
        raise _fail(source, where, f"expect must be one of {', '.join(EXPECTS)}")
    request = raw.get("request", {})
    if not isinstance(request, dict):
        raise _fail(source, where, "request must be a table")
    times = raw.get("fault_times")
    if times is not None and (type(times) is not int or times < 1):
        raise _fail(source, where, "fault_times must be a positive integer")
    for key in ("translate", "usage", "tools"):
        if key in raw and not isinstance(raw[key], bool):
            raise _fail(source, where, f"{key} must be true or false")
    for key in ("name", "model", "fault"):
        if key in raw and not isinstance(raw[key], str):
            raise _fail(source, where, f"{key} must be a string")
    path = _resolve(raw["recording"], base)
    if not Path(path).is_file():
        raise _fail(source, where, f"recording {raw['recording']!r}: no such file ({path})")
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
    )


# -- the built-in suites ---------------------------------------------------------------------

#: (scenario, recording stem, fault, fault_times, usage)
_BUILTIN: list[tuple[str, str, str | None, int | None, bool]] = [
    ("text", "text", None, None, False),
    ("tool-call", "tool-call", None, None, False),
    ("parallel-calls", "parallel-calls", None, None, False),
    ("text-then-call", "text-then-call", None, None, False),
    ("reasoning", "thinking", None, None, False),
    ("usage", "usage", None, None, True),
    ("max-tokens", "max-tokens", None, None, False),
    ("content-filter", "safety", None, None, False),
    ("error-mid-stream", "error", None, None, False),
    ("rate-limited", "text", "status=429", 1, False),
    ("overloaded", "text", "status=529", 1, False),  # Anthropic's own status
    ("dropped-mid-stream", "text", "drop-mid-stream", None, False),  # see _mid_stream
    ("stall", "text", "stall=2@4", None, False),
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
        for label, stem, fault, times, usage in _BUILTIN:
            if label == "overloaded" and d != "anthropic":
                continue
            path = root / source / f"{stem}-{source}.jsonl"
            if fault == "drop-mid-stream":
                fault = f"drop-after-events={_mid_stream(path)}"
            scenarios.append(
                Scenario(
                    name=f"{d}/{label}",
                    recording=str(path),
                    upstream=source,
                    translate=d == "openai",
                    fault=fault,
                    fault_times=times,
                    usage=usage,
                )
            )
    return Suite(name=f"builtin:{name}", scenarios=scenarios)


def _mid_stream(path: Path, tokens: int = 2) -> int:
    """The event count just past the ``tokens``-th event that carries output: a drop there
    is mid-stream in every dialect (Responses sends four events before its first delta)."""
    from sseconform.record import carries_token
    from sseconform.replay.plan import load
    from sseconform.sse import SSEDecoder

    dec = SSEDecoder()
    events = dec.feed(load(str(path)).body) + dec.finish()
    seen = 0
    for n, ev in enumerate(events, 1):
        if carries_token(ev.data):
            seen += 1
            if seen == tokens:
                return n
    return max(1, len(events) // 2)
