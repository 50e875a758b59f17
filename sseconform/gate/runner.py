"""Run a suite through a gateway: replay is the upstream, record takes the gateway's answer.

For each scenario, in order: the replay server (on loopback) is told which recording and
which fault answer the next upstream requests; the scenario's request goes to the gateway;
its stream is recorded (byte-exact, into the artefacts folder); then it is graded:

- ``check``: every error-severity diagnostic fails the scenario (codes in ``allow`` aside);
- content: compared with sseconform's own reading of what the upstream sent (the same
  fault applied), with :func:`sseconform.gate.diff.compare`;
- the expectation: ``content`` (2xx, everything arrives), ``error`` (the upstream failed
  mid-stream: an error frame then ``[DONE]``, and nothing invented, lost or repeated before
  it), ``rejected`` (the upstream failed before the stream: a non-2xx answer, or a clean
  retry whose content is whole), ``content-or-error`` (a stall: either is fine).

Every finding carries the gateway stream's frame number and byte offset, with the bytes
found there, so it can be checked against the recording.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sseconform import providers
from sseconform.api import check_file
from sseconform.baseline import Baseline, from_findings
from sseconform.diagnostics import Diagnostic
from sseconform.gate.content import Content, content_of
from sseconform.gate.diff import compare
from sseconform.gate.evidence import Evidence, collect
from sseconform.gate.suite import ENDPOINT_DIALECT, ENDPOINT_GRAMMAR, UPSTREAM, Scenario, Suite
from sseconform.record import Request, record
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import ABORT, Faults, Loaded, load, make_plan, parse_faults
from sseconform.replay.scenario import Rule
from sseconform.replay.server import ReplayServer, Served
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable
from sseconform.translate import translate_reads

__all__ = [
    "VERDICTS",
    "Finding",
    "ScenarioResult",
    "SuiteResult",
    "apply_baseline",
    "baseline_of",
    "run_suite",
    "translated",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """Why a scenario failed (or a note that did not fail it), located in the gateway stream."""

    source: str  # "check", "diff", "expect", "transport"
    code: str  # a rule code, a difference kind, or an expectation
    message: str
    severity: str = "error"
    frame: int | None = None
    offset: int | None = None
    excerpt: str | None = None  # the gateway's bytes at ``offset`` (its first line)
    field: str | None = None
    known: bool = False  # accepted by the baseline: reported, does not fail

    @property
    def key(self) -> str:
        """What a baseline names: a check code as is (``E002``), else ``source:code`` (a
        difference also names its field: ``diff:changed:usage.prompt_tokens``)."""
        if self.source == "check":
            return self.code
        if self.source == "diff" and self.field:
            return f"diff:{self.code}:{self.field}"
        return f"{self.source}:{self.code}"

    def to_dict(self) -> dict[str, Any]:
        """The fields, and the key a baseline names the finding by."""
        return {**{k: getattr(self, k) for k in self.__slots__}, "key": self.key}


#: A scenario's verdict. ``unreached``: the upstream never saw the request (or refused it, or
#: its fault never fired), so nothing was tested; ``known``: only baseline deviations.
VERDICTS = ("pass", "known", "fail", "unreached", "not-applicable")
FAILING = frozenset({"fail", "unreached"})


@dataclass
class ScenarioResult:
    name: str
    expect: str
    status: int | None
    recording: str  # the gateway's recorded stream ("" when nothing was sent)
    upstream_requests: int
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    note: str = ""
    suite: str = ""
    dialect: str = ""  # the upstream's dialect on the wire
    endpoint: str = "chat"  # the gateway's endpoint: chat, messages or responses
    applicable: bool = True  # False: the gateway's profile says it cannot route this dialect
    upstream_log: list[str] = field(default_factory=list)  # replay's log lines (redacted)
    fixed: list[str] = field(default_factory=list)  # baseline entries no longer seen
    #: what the HTML report shows (both sides' content, timelines, event bytes), when asked
    #: for (``run_suite(evidence=True)``); never in the JSON report
    evidence: Evidence | None = None

    @property
    def verdict(self) -> str:
        if not self.applicable:
            return "not-applicable"
        new = [f for f in self.findings if f.severity == "error" and not f.known]
        if new:
            return "unreached" if any(f.source == "upstream" for f in new) else "fail"
        return "known" if any(f.severity == "error" for f in self.findings) else "pass"

    @property
    def passed(self) -> bool:
        """Graded and not failed (known deviations included); n/a is neither."""
        return self.verdict in ("pass", "known")

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "suite": self.suite,
            "dialect": self.dialect,
            "endpoint": self.endpoint,
            "verdict": self.verdict,
            "expect": self.expect,
            "passed": self.passed,
            "status": self.status,
            "recording": self.recording,
            "upstream_requests": self.upstream_requests,
            "upstream_log": self.upstream_log,
            "seconds": round(self.seconds, 3),
            "note": self.note,
            "findings": [f.to_dict() for f in self.findings],
            "baseline_fixed": self.fixed,
        }


@dataclass
class SuiteResult:
    suite: str
    gateway: str
    upstream: str
    scenarios: list[ScenarioResult]
    profile: str | None = None

    @property
    def passed(self) -> bool:
        return not any(s.failed for s in self.scenarios)


def slug(name: str) -> str:
    """A file name for a scenario or suite name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "scenario"


def translated(rec: Loaded, dialect: str, usage: bool) -> Loaded:
    """A native recording served as an OpenAI-compatible upstream would: translated to chunks
    by the reference translator, at the native events' times."""
    reads = translate_reads(rec.reads, dialect, status=rec.status, include_usage=usage)
    suffix = ".chunks+usage" if usage else ".chunks"
    return Loaded(
        rec.name + suffix,
        rec.path + suffix,
        providers.OPENAI,
        rec.model,
        200,
        "OK",
        [("content-type", "text/event-stream")],
        rec.t_head,
        reads,
        rec.complete,
    )


class _Upstream:
    """The recordings a suite needs, loaded once (translated ones built in memory)."""

    def __init__(self, suite: Suite) -> None:
        self.by_scenario: dict[str, Loaded] = {}
        loaded: dict[str, Loaded] = {}
        for sc in suite.scenarios:
            rec = load(sc.recording)
            if sc.upstream is None:
                sc.upstream = rec.dialect or providers.OPENAI
            if sc.translate:
                rec = translated(rec, sc.upstream, sc.usage)
            key = rec.name
            if key in loaded and loaded[key].path != rec.path:  # same file name, other folder
                key = f"{len(loaded)}-{rec.name}"
                rec = dataclasses.replace(rec, name=key)
            loaded.setdefault(key, rec)
            self.by_scenario[sc.name] = loaded[key]
        self.all = list(loaded.values())


def run_suite(
    suite: Suite,
    gateway: str,
    out_dir: str,
    *,
    upstream_host: str = "127.0.0.1",
    upstream_port: int = 0,
    key: str | None = None,
    headers: list[tuple[str, str]] | None = None,
    select: Callable[[Scenario], bool] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
    concurrency: int = 1,
    evidence: bool = False,
) -> SuiteResult:
    """Run every scenario of ``suite`` through ``gateway``; recordings go to ``out_dir``.

    ``headers`` (``gate --header``) go with every request, over the suite's and profile's.
    ``concurrency`` scenarios are in flight at once (each request tagged, so the upstream
    tells them apart); results come in the suite's order whatever order they finish in.
    ``evidence``: keep what the HTML report shows of each scenario (:mod:`.evidence`).
    """
    upstream = _Upstream(suite)
    os.makedirs(out_dir, exist_ok=True)
    server = ReplayServer(
        upstream.all,
        host=upstream_host,
        port=upstream_port,
        speed=suite.speed,
        measure=True,
        strict=True,
    )
    results: list[ScenarioResult] = []
    with server.running():
        if on_start is not None:
            on_start(server.url)
        run = _Run(suite, gateway.rstrip("/"), server, out_dir, key, headers or [])
        run.shared = concurrency <= 1
        run.evidence = evidence
        chosen = [sc for sc in suite.scenarios if select is None or select(sc)]
        if concurrency <= 1:
            for sc in chosen:
                result = run.one(sc, upstream.by_scenario[sc.name])
                results.append(result)
                if on_result is not None:
                    on_result(result)
        else:
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                futures = {
                    pool.submit(run.one, sc, upstream.by_scenario[sc.name]): n
                    for n, sc in enumerate(chosen)
                }
                done: dict[int, ScenarioResult] = {}
                for future in as_completed(futures):
                    done[futures[future]] = result = future.result()
                    if on_result is not None:
                        on_result(result)
            results = [done[n] for n in range(len(chosen))]
    profile = suite.profile.name if suite.profile is not None else None
    return SuiteResult(suite.name, gateway.rstrip("/"), server.url, results, profile)


def _substitute(value: Any, upstream: str) -> Any:
    """``{upstream}`` in every string of a request setting, at any depth."""
    if isinstance(value, str):
        return value.replace(UPSTREAM, upstream)
    if isinstance(value, dict):
        return {k: _substitute(v, upstream) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, upstream) for v in value]
    return value


def _request_body(
    suite: Suite, sc: Scenario, reference: Content, tag: str | None = None
) -> dict[str, Any]:
    """The endpoint's own request shape: chat completions, Anthropic Messages (which needs
    ``max_tokens`` and always streams usage) or Responses (``input``, flat function tools).
    ``tag`` goes into the prompt as ``[sseconform:TAG]``: the replay upstream finds the
    scenario by it, whatever else is in flight."""
    assert sc.upstream is not None
    dialect = sc.served_dialect or sc.upstream
    prompt = f"sseconform gate scenario {sc.name}"
    if tag is not None:
        prompt += f" [sseconform:{tag}]"
    calls = [c for ch in reference.model.choices.values() for c in ch.tool_calls.values()]
    names = sorted({c.name for c in calls if c.name is not None})
    declare = sc.tools if sc.tools is not None else bool(names)
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    about = f"a tool of the {sc.name} scenario"
    body: dict[str, Any] = {"model": sc.model or suite.model_for(dialect), "stream": True}
    if suite.endpoint == "messages":
        body["max_tokens"] = 1024
        body["messages"] = [{"role": "user", "content": prompt}]
        if declare:
            body["tools"] = [
                {"name": n, "description": about, "input_schema": schema} for n in names
            ]
    elif suite.endpoint == "responses":
        body["input"] = prompt
        if declare:
            body["tools"] = [
                {"type": "function", "name": n, "description": about, "parameters": schema}
                for n in names
            ]
    else:
        body["messages"] = [{"role": "user", "content": prompt}]
        if declare:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": n, "description": about, "parameters": schema},
                }
                for n in names
            ]
        if sc.usage:
            body["stream_options"] = {"include_usage": True}
    body.update(suite.route(dialect).request)
    body.update(sc.request)
    return body


@dataclass
class References:
    """What a scenario's upstream sends, read once: the expectation, and the content of the
    first answer (with its fault) and of a clean one (after a retry)."""

    faults: Faults
    expect: str
    first: Content | None  # None: a JSON error body, no stream
    clean: Content
    dropped: bool  # the first answer ends in a dropped connection


def references(sc: Scenario, rec: Loaded, dialect: str) -> References:
    faults = parse_faults(sc.fault)
    first = make_plan(rec, speed=0, faults=faults)
    clean = make_plan(rec, speed=0)
    ref_first = content_of([first.body], dialect) if not first.json_body else None
    if ref_first is not None and first.ending == ABORT and ref_first.model.error is None:
        # A chunk or Gemini stream cannot say it was cut: the dropped connection does.
        ref_first.model.error = {"message": "the upstream connection dropped"}
        ref_first.error_at = ref_first.last
    ref_clean = content_of([clean.body], dialect)
    expect = sc.expectation(ref_clean.model.error is not None)
    return References(faults, expect, ref_first, ref_clean, first.ending == ABORT)


def grade_stream(
    sc: Scenario,
    ref: References,
    status: int | None,
    content: Content | None,
    diagnostics: list[Diagnostic],
    *,
    complete: bool,
    reason: str,
    allow: list[str],
    endpoint: str,
    upstream_requests: int = 1,
) -> tuple[list[Finding], str]:
    """The findings (and note) for one gateway stream that was checked and folded as it
    arrived (``load``): the gate's own grading, without a recording."""
    g = _Graded.streamed(status, content, diagnostics, allow, endpoint)
    if status is None:
        g.add("transport", "no-response", f"no answer from the gateway: {reason}")
    else:
        _grade(g, sc, ref.expect, complete, reason, ref.dropped, ref.first, ref.clean,
               upstream_requests)  # fmt: skip
    return g.findings, g.note


class _Run:
    """One suite's scenarios through one gateway, against one running upstream."""

    def __init__(
        self,
        suite: Suite,
        gateway: str,
        server: ReplayServer,
        out_dir: str,
        key: str | None,
        headers: list[tuple[str, str]],
    ) -> None:
        self.suite = suite
        self.gateway = gateway
        self.server = server
        self.upstream_url = server.url
        self.out_dir = out_dir
        self.key = key
        self.headers = headers
        #: one scenario at a time: untagged requests (a gateway that drops the tag) are
        #: still the running scenario's; in flight with others, only tagged ones are
        self.shared = True
        self.evidence = False
        self._tags = itertools.count(1)
        self._nonce = uuid.uuid4().hex[:8]

    @classmethod
    def requests_only(
        cls,
        suite: Suite,
        gateway: str,
        upstream_url: str,
        key: str | None,
        headers: list[tuple[str, str]],
    ) -> _Run:
        """The request side of a run (URLs, headers) for an upstream running elsewhere."""
        run = cls.__new__(cls)
        run.suite, run.gateway, run.key, run.headers = suite, gateway.rstrip("/"), key, headers
        run.upstream_url = upstream_url
        return run

    def url(self, dialect: str) -> str:
        """The gateway's URL for a dialect's scenarios: a URL given with its path is used as
        is; a base URL gets the dialect's path (profile, suite, ``[dialect.X] path``)."""
        if self.gateway.endswith("/chat/completions"):
            if self.suite.endpoint == "chat":
                return self.gateway
            base = self.gateway.removesuffix("/chat/completions").removesuffix("/v1")
            return base + self.suite.path_for(dialect)
        path = self.suite.path_for(dialect).replace(UPSTREAM, self.upstream_url)
        return path if path.startswith("http") else self.gateway + path

    def request_headers(self, dialect: str, sc: Scenario) -> list[tuple[str, str]]:
        out: dict[str, tuple[str, str]] = {"content-type": ("content-type", "application/json")}
        if self.key:
            out["authorization"] = ("authorization", f"Bearer {self.key}")
        if self.suite.endpoint == "messages":  # as the Anthropic SDKs and Claude Code send it
            out["anthropic-version"] = ("anthropic-version", "2023-06-01")
            if self.key:
                out["x-api-key"] = ("x-api-key", self.key)
        for name, value in self.suite.headers_for(dialect, sc).items():
            out[name.lower()] = (name, value.replace(UPSTREAM, self.upstream_url))
        for name, value in self.headers:
            out[name.lower()] = (name, value.replace(UPSTREAM, self.upstream_url))
        return list(out.values())

    def one(self, sc: Scenario, rec: Loaded) -> ScenarioResult:
        suite, server = self.suite, self.server
        dialect = sc.served_dialect
        assert dialect is not None
        base = ScenarioResult(
            sc.name, "", None, "", 0, 0.0, suite=suite.name, dialect=dialect,
            endpoint=suite.endpoint,
        )  # fmt: skip
        refusal = suite.endpoint_refusal(dialect)
        if not suite.supports(dialect) or refusal is not None:
            base.applicable = False
            base.expect = sc.expect or "-"
            why = suite.route(dialect).reason
            base.note = refusal or f"the gateway cannot route {dialect} upstreams" + (
                f": {why}" if why else ""
            )
            return base
        ref = references(sc, rec, dialect)
        faults, expect, ref_first, ref_clean = ref.faults, ref.expect, ref.first, ref.clean
        rules = [Rule(recording=rec.name, path=dialect, fault=sc.fault, times=sc.fault_times)]
        if sc.fault_times is not None:
            rules.append(Rule(recording=rec.name, path=dialect))
        tag = f"{self._nonce}.{next(self._tags)}.{slug(sc.name)}"
        server.route_tag(tag, rules)
        if self.shared:
            server.rules = [dataclasses.replace(r) for r in rules]
        before = len(server.served)
        body = _substitute(_request_body(suite, sc, ref_clean, tag), server.url)
        out = str(Path(self.out_dir) / f"{slug(sc.name)}.jsonl")
        t0 = time.monotonic()
        outcome = record(
            Request(
                "POST", self.url(dialect), self.request_headers(dialect, sc), orjson.dumps(body)
            ),
            out,
            force=True,
            stall_timeout=suite.timeout,
        )
        seconds = time.monotonic() - t0

        def seen() -> list[Served]:
            if self.shared:  # the tagged ones, and any the gateway sent without the tag
                return [x for x in server.served[before:] if x.tag in (tag, None)]
            return server.served_for(tag)

        # The upstream logs a request once it has written its answer, on its own thread: on
        # a loaded machine that can come after the gateway's client has read the end.
        served = seen()
        deadline = time.monotonic() + LOG_WAIT
        while not served and time.monotonic() < deadline:
            time.sleep(0.02)
            served = seen()
        time.sleep(0.05)  # a retry's second request, logged just after the first
        served = seen()
        g = _Graded(out, outcome.progress.status, suite.allow, suite.endpoint)
        if outcome.progress.status is None:
            g.add("transport", "no-response", f"no answer from the gateway: {outcome.reason}")
        elif _reached(g, sc, served, bool(faults)):
            _grade(g, sc, expect, outcome.complete, outcome.reason, ref.dropped,
                   ref_first, ref_clean, len(served))  # fmt: skip
        base.expect = expect
        base.status = outcome.progress.status
        base.recording = out
        base.upstream_requests = len(served)
        base.upstream_log = [x.line() for x in served]
        base.seconds = seconds
        base.findings = g.findings
        base.note = g.note
        if self.evidence:
            upstream = ref_clean if ref_first is None or expect == "rejected" else ref_first
            base.evidence = collect(
                findings=g.findings, upstream=upstream, gateway=g.content, recording=out,
                body=g.body, served=served, t0=outcome.started,
            )  # fmt: skip
        return base


#: How long to wait for the upstream to log the request of a scenario whose gateway answer
#: is complete, before calling it unreached (seconds; it usually takes under a millisecond).
LOG_WAIT = 1.0


def _reached(g: _Graded, sc: Scenario, served: list[Served], faulted: bool) -> bool:
    """Did the scenario test what it is for? The upstream must have served the gateway's
    request, and its fault must have fired; if not, say so (grading the gateway's answer
    against an upstream stream it never got would pass or fail on nothing)."""
    answer = f"the gateway answered HTTP {g.status}"
    if g.status is not None and not g.ok_status and g.body:
        answer += ": " + printable(g.body[:300].decode("utf-8", "replace"))
    if not served:
        g.add(
            "upstream",
            "not-reached",
            f"the upstream never saw a request; {answer} (is the gateway routed to the "
            "upstream for this dialect? see --gateway-profile and [dialect.*] in the suite)",
        )
        return False
    if not any(x.recording is not None for x in served):
        g.add(
            "upstream",
            "refused",
            f"the upstream could not serve the gateway's request ({served[0].line()}): the "
            f"gateway called a path or dialect this scenario does not serve; {answer}",
        )
        return False
    if faulted and not any(x.fired for x in served):
        _checked(g)
        g.add(
            "upstream",
            "fault-not-fired",
            f"the upstream was reached but its fault ({sc.fault}) never took effect "
            f"({served[-1].line()}); {answer}",
        )
        return False
    return True


class _Graded:
    """Findings for one scenario, each located in the gateway's recorded body."""

    def __init__(
        self, path: str, status: int | None, allow: list[str], endpoint: str = "chat"
    ) -> None:
        self.path = path
        self.status = status
        self.allow = set(allow)
        self.grammar = ENDPOINT_GRAMMAR[endpoint]
        self.findings: list[Finding] = []
        self.note = ""
        self.body = b""
        if status is not None:
            with open(path, "rb") as fp:
                self.body = b"".join(b for _, b in RecordingReader(fp, path).reads())
        # read as the endpoint's clients read it: chunks, or Anthropic / Responses events
        # through the reference translation, so it compares with the upstream by meaning
        dialect = ENDPOINT_DIALECT[endpoint]
        self.content = content_of([self.body], dialect) if self.ok_status else None
        self.starts = self.content.starts if self.content is not None else []
        #: check's diagnostics when the stream was checked as it arrived (``load``): None,
        #: check the recording at ``path``
        self.diagnostics: list[Diagnostic] | None = None

    @classmethod
    def streamed(
        cls,
        status: int | None,
        content: Content | None,
        diagnostics: list[Diagnostic],
        allow: list[str],
        endpoint: str,
    ) -> _Graded:
        """A stream that was checked and folded as it arrived, never kept: findings are
        located by frame and offset, with no excerpt."""
        g = cls.__new__(cls)
        g.path, g.status, g.allow = "", status, set(allow)
        g.grammar = ENDPOINT_GRAMMAR[endpoint]
        g.findings, g.note, g.body = [], "", b""
        g.content = content if g.ok_status else None
        g.starts = content.starts if content is not None else []
        g.diagnostics = diagnostics
        return g

    def event_start(self, frame: int | None, offset: int | None) -> int | None:
        """Where a finding is: the event start its source gives (check and the content fold
        both locate at event starts), or, for a frame alone, that frame's start."""
        if offset is not None and (offset < len(self.body) or self.diagnostics is not None):
            return offset
        if frame is not None and 1 <= frame <= len(self.starts):
            return self.starts[frame - 1]
        return None

    @property
    def ok_status(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def excerpt(self, offset: int | None) -> str | None:
        if offset is None or offset >= len(self.body):
            return None
        line = self.body[offset : offset + 120].split(b"\n", 1)[0]
        return line.decode("utf-8", "replace")

    def add(
        self,
        source: str,
        code: str,
        message: str,
        *,
        severity: str = "error",
        frame: int | None = None,
        offset: int | None = None,
        field: str | None = None,
    ) -> None:
        offset = self.event_start(frame, offset)
        self.findings.append(
            Finding(source, code, message, severity, frame, offset, self.excerpt(offset), field)
        )


def _grade(
    g: _Graded,
    sc: Scenario,
    expect: str,
    complete: bool,
    reason: str,
    dropped: bool,
    ref_first: Content | None,
    ref_clean: Content,
    upstream_requests: int,
) -> None:
    if expect == "rejected":
        if not g.ok_status:
            g.note = f"rejected with HTTP {g.status}"
            return
        if upstream_requests < 2:
            said_error = g.content is not None and g.content.model.error is not None
            why = (
                "and then an error event: clients that back off and retry on the status "
                "(the SDKs do) take it for a failed stream instead"
                if said_error
                else "without retrying: a client cannot tell it from success"
            )
            g.add(
                "expect",
                "rejected",
                f"the upstream failed before the stream ({sc.fault}) and the gateway answered "
                f"HTTP {g.status} {why}",
                frame=1 if g.body else None,
                offset=0 if g.body else None,
            )
            _checked(g)
            return
        g.note = f"retried ({upstream_requests} upstream requests)"
        expect, ref = "content", ref_clean
    else:
        ref = ref_first if ref_first is not None else ref_clean
    if not g.ok_status:
        if expect in ("error", "content-or-error") and not _said_anything(ref):
            g.note = f"rejected with HTTP {g.status} (the upstream failed before any output)"
            return
        g.add("expect", expect, f"HTTP {g.status}: the upstream answered 200 and streamed")
        return
    _checked(g)
    assert g.content is not None
    gw = g.content
    errored = gw.model.error is not None
    if expect == "content-or-error":
        expect = "error" if errored else "content"
        g.note = g.note or ("ended with an error frame" if errored else "whole content")
    if not complete:
        g.add("transport", "incomplete", f"the gateway's stream did not end cleanly: {reason}")
    upstream_failed = expect == "error"
    diffs = compare(ref, gw, usage=sc.usage, prefix_only=upstream_failed)
    for d in diffs:
        loc = d.gateway
        where = f"; upstream {d.upstream}" if d.upstream is not None else ""
        g.add(
            "diff",
            d.kind,
            f"{d.field}: {d.message}{where}",
            frame=loc.frame if loc else None,
            offset=loc.offset if loc else None,
            field=d.field,
        )
    if upstream_failed and not errored and not any(d.field == "error" for d in diffs):
        last = gw.last
        how = "dropped the connection" if dropped else "sent an error"
        g.add(
            "expect",
            "error-then-done",
            f"the upstream {how} mid-stream; the gateway's stream has no error frame, so a "
            "client takes the partial answer for a whole one",
            frame=last.frame if last else None,
            offset=last.offset if last else None,
        )
    if upstream_requests > 1 and expect == "error":
        g.add(
            "expect",
            "failover",
            f"the gateway sent {upstream_requests} upstream requests after the stream had "
            "started (a retry after the first delta can duplicate or splice content)",
            severity="warning",
        )


def _said_anything(c: Content) -> bool:
    """Did the upstream send any output (text, reasoning, a call) before it failed?"""
    return any(
        ch.text or ch.reasoning or ch.refusal or ch.tool_calls for ch in c.model.choices.values()
    )


def _checked(g: _Graded) -> None:
    """``check`` on the gateway's recording: errors fail, warnings are listed."""
    diagnostics = g.diagnostics
    if diagnostics is None:
        diagnostics = check_file(g.path, grammar=g.grammar).diagnostics
    for d in diagnostics:
        if d.code in g.allow:
            continue
        sev = d.severity
        if sev == Severity.INFO:
            continue
        g.add(
            "check",
            d.code,
            f"{d.name}: {d.message}",
            severity="error" if sev == Severity.ERROR else "warning",
            frame=d.frame,
            offset=d.offset if d.frame is not None else None,
        )


def apply_baseline(results: list[SuiteResult], baseline: Baseline) -> None:
    """Mark the errors the baseline accepts as known, and note its entries that no longer
    happen (only for scenarios that ran: a scenario left out by ``--only`` proves nothing)."""
    for s in (s for r in results for s in r.scenarios):
        apply_known(s, baseline)


def apply_known(s: ScenarioResult, baseline: Baseline) -> None:
    """:func:`apply_baseline` for one scenario, as soon as it is done (the same result
    however often it is applied)."""
    if not s.applicable:
        return
    idx = [i for i, f in enumerate(s.findings) if f.severity == "error"]
    known, s.fixed = baseline.match(s.name, [s.findings[i].key for i in idx])
    for i, k in zip(idx, known, strict=True):
        if k:
            s.findings[i] = dataclasses.replace(s.findings[i], known=True)


def baseline_of(results: list[SuiteResult]) -> Baseline:
    """A baseline that accepts every error of this run (for ``--write-baseline``)."""
    found = {
        s.name: [f.key for f in s.findings if f.severity == "error"]
        for r in results
        for s in r.scenarios
        if s.applicable
    }
    return from_findings("gate", found)
