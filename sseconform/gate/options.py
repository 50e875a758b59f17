"""``sseconform gate`` as a library call: its options in one value, the suites they make, and
the run (baseline applied as each scenario ends), so the command line only parses.

    options = GateOptions(gateway="http://127.0.0.1:4000", suites=["builtin:anthropic"])
    results = run_gate(options)
    report.write(results, sys.stdout, "text")
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from sseconform import baseline as bl
from sseconform.errors import UsageError
from sseconform.gate.aimed import for_endpoint, non_streaming
from sseconform.gate.known import apply_baseline, apply_known, baseline_of
from sseconform.gate.profile import Profile, Route, load_profile, parse_header
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.runner import SuiteRun, run_suite, unique_slugs
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite, load_suite
from sseconform.gate.timing import parse_budget
from sseconform.gate.websocket_probe import Answer, probe_gateway
from sseconform.gate.ws_runner import WsSuiteRun
from sseconform.mask import RUN
from sseconform.providers import ENDPOINTS
from sseconform.recording.redact import credential_values

__all__ = [
    "TRANSPORTS",
    "GateOptions",
    "gateway_config",
    "prepare_suites",
    "run_gate",
    "write_baseline",
]

#: How the scenarios reach the gateway: HTTP + SSE, or the Responses API's WebSocket mode
#: (the upgrade's answer graded first; each scenario a session when it is accepted).
TRANSPORTS = ("sse", "websocket")


@dataclass
class GateOptions:
    """What ``sseconform gate`` is asked; every field is its option of the same name."""

    gateway: str = ""
    suites: list[str] = field(default_factory=lambda: ["builtin:all"])
    profile: str | None = None  # a shipped profile (PROFILES) or a profile file
    headers: list[str] = field(default_factory=list)  # "Name: value"
    endpoints: list[str] = field(default_factory=list)  # chat, messages, responses, gemini, all
    only: list[str] = field(default_factory=list)  # globs over scenario names
    upstream_host: str = "127.0.0.1"
    upstream_port: int | None = None  # None: the profile's, else any free port
    out: str = "sseconform-gate"  # the gateway's recorded streams
    key: str | None = None  # None: $SSECONFORM_GATEWAY_KEY
    models: list[str] = field(default_factory=list)  # DIALECT=NAME
    speed: float | None = None
    timeout: float | None = None
    deadline: float | None = None  # seconds per scenario (None: the suite's, or derived)
    max_bytes: int | None = None  # bytes kept per answer (None: the suite's, or derived)
    concurrency: int = 1
    confirm_timing: bool = True  # re-run a scenario with a timing error, alone (runner)
    baseline: str | None = None  # known deviations (a gate baseline file)
    budgets: list[str] = field(default_factory=list)  # timing budgets: NAME=SECONDS
    evidence: bool = False  # keep what the HTML page shows
    #: ask Gemini's generateContent, not streamGenerateContent (the gemini endpoint only)
    non_streaming: bool = False
    #: sse, or websocket: the Responses API's WebSocket mode (the upgrade's answer, then
    #: each scenario over it when the gateway accepts it)
    transport: str = "sse"

    def load_profile(self) -> Profile | None:
        return load_profile(self.profile) if self.profile else None

    def port(self, profile: Profile | None) -> int:
        """The replay upstream's port: asked for, else the profile's (a suite's own profile
        when it names one, the gateway's wiring), else any free one."""
        if self.upstream_port is not None:
            return self.upstream_port
        return profile.upstream_port if profile and profile.upstream_port is not None else 0

    def chosen(self, sc: Scenario) -> bool:
        """Does ``--only`` let this scenario run?"""
        return not self.only or any(fnmatch.fnmatchcase(sc.name, p) for p in self.only)


def gateway_config(options: GateOptions) -> str:
    """The profile's own gateway configuration, pointed at the upstream the run would start
    (``--print-gateway-config``)."""
    profile = options.load_profile()
    if profile is None:
        raise UsageError("--print-gateway-config needs --gateway-profile")
    text = profile.config_text(f"http://{options.upstream_host}:{options.port(profile)}")
    if text is None:
        raise UsageError(f"profile {profile.name!r} has no gateway configuration to print")
    return text if text.endswith("\n") else text + "\n"


def _endpoints(options: GateOptions) -> list[str]:
    asked = [e for item in options.endpoints for e in (ENDPOINTS if item == "all" else [item])]
    bad = [e for e in asked if e not in ENDPOINTS]
    if bad:
        raise UsageError(f"--endpoint {bad[0]!r}: one of {', '.join(ENDPOINTS)} or all")
    return list(dict.fromkeys(asked))


def _models(options: GateOptions) -> dict[str, str]:
    models: dict[str, str] = {}
    for item in options.models:
        name, sep, value = item.partition("=")
        if not sep or not value:
            raise UsageError(f"--model {item!r}: give DIALECT=NAME")
        models[name.strip()] = value.strip()
    return models


def prepare_suites(options: GateOptions, profile: Profile | None = None) -> list[Suite]:
    """The suites the options name, each once per endpoint asked for, with the profile,
    models, speed, timeout and timing budgets the options set over each suite's own
    (``profile``: the options' profile, when the caller has loaded it already)."""
    profile = profile or options.load_profile()
    default = ["responses"] if options.transport == "websocket" else []
    endpoints = _endpoints(options) or default or (profile.default_endpoints if profile else [])
    models = _models(options)
    budgets = dict(parse_budget(b) for b in options.budgets)
    suites = [load_suite(s) for s in options.suites]
    if endpoints:
        suites = [for_endpoint(su, e) for su in suites for e in endpoints]
    for su in suites:
        bad = set(models) - set(su.models)
        if bad:
            raise UsageError(f"--model: unknown dialect(s) {', '.join(sorted(bad))}")
        if profile is not None:
            su.profile = profile
        su.models.update(models)
        for d, name in models.items():
            su.routes.setdefault(d, Route()).model = name
        if options.speed is not None:
            su.speed = options.speed
        if options.timeout is not None:
            su.timeout = options.timeout
        if options.deadline is not None:
            su.deadline = options.deadline
        if options.max_bytes is not None:
            su.max_bytes = options.max_bytes
        su.timing = {**su.timing, **budgets}
    if options.non_streaming:
        suites = [_non_streaming(su) for su in suites]
    return suites


def _non_streaming(suite: Suite) -> Suite:
    try:
        return non_streaming(suite)
    except ValueError as exc:
        raise UsageError(f"--non-streaming: {exc} (give --endpoint gemini)") from None


def run_gate(
    options: GateOptions,
    *,
    on_start: Callable[[str], None] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[SuiteResult]:
    """Run every prepared suite through the gateway, one upstream each. ``on_result`` sees
    each scenario as it ends, with the baseline already applied (its verdict is the
    report's); ``on_start`` gets the upstream's URL."""
    if not options.gateway:
        raise UsageError("--gateway URL is required")
    if options.transport not in TRANSPORTS:
        raise UsageError(f"--transport {options.transport!r}: one of {', '.join(TRANSPORTS)}")
    headers = [parse_header(h) for h in options.headers]
    RUN.add_all(credential_values(headers))  # --header's keys: no writer of the run shows them
    known = bl.load(options.baseline, "gate") if options.baseline is not None else None
    profile = options.load_profile()
    suites = prepare_suites(options, profile)
    key = options.key or os.environ.get("SSECONFORM_GATEWAY_KEY")

    def done(result: ScenarioResult) -> None:
        if known is not None:
            apply_known(result, known)
        if on_result is not None:
            on_result(result)

    probed: ScenarioResult | None = None
    run_class: type[SuiteRun] | None = None
    if options.transport == "websocket":
        answer, result = _websocket(options, suites, key, headers)
        probed = result.scenarios[0]
        done(probed)
        if answer.kind != "accepted":
            if known is not None:
                apply_baseline([result], known)
            return [result]
        run_class = WsSuiteRun
    folders = unique_slugs([su.name for su in suites])
    results = [
        run_suite(
            su,
            options.gateway,
            _suite_folder(options.out, folder) if len(suites) > 1 else options.out,
            upstream_host=options.upstream_host,
            upstream_port=options.port(su.profile),
            key=key or (su.profile.key if su.profile else None),
            headers=headers,
            select=options.chosen,
            on_start=on_start,
            on_result=done,
            concurrency=options.concurrency,
            evidence=options.evidence,
            confirm_timing=options.confirm_timing,
            run_class=run_class,
        )
        for su, folder in zip(suites, folders, strict=True)
    ]
    if not any(r.scenarios for r in results):
        raise UsageError("no scenario matched --only")
    results = [r for r in results if r.scenarios]  # a suite --only left empty says nothing
    if probed is not None:  # the upgrade's answer first, as when it is refused
        results[0].scenarios.insert(0, probed)
    if known is not None:
        apply_baseline(results, known)
    return results


def _websocket(
    options: GateOptions, suites: list[Suite], key: str | None, headers: list[tuple[str, str]]
) -> tuple[Answer, SuiteResult]:
    """``--transport websocket``: the gateway's answer to the upgrade, graded by what it
    costs Codex CLI (a report scenario of its own; ``accepted``: the suites run over it)."""
    profile = suites[0].profile if suites else None
    upstream = f"http://{options.upstream_host}:{options.port(profile)}"
    key = key or (profile.key if profile else None)
    return probe_gateway(
        suites, options.gateway, upstream, key=key, headers=headers, chosen=options.chosen
    )


def _suite_folder(out: str, name: str) -> str:
    """A suite's folder inside ``--out``, made a folder: a symlink left at its name (a
    reused ``--out``) is replaced, never followed, as a recording's is."""
    path = os.path.join(out, name)
    if os.path.islink(path):
        os.unlink(path)
    return path


def write_baseline(results: list[SuiteResult], path: str, *, force: bool = False) -> None:
    """Write the run's errors as a baseline (``--write-baseline``); an existing one keeps its
    notes and the entries of the scenarios that did not run."""
    ran = [s.name for r in results for s in r.scenarios if s.applicable]
    bl.rewrite(baseline_of(results), path, ran, force=force)
