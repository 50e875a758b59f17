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
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sseconform import providers
from sseconform.api import check_file
from sseconform.gate.content import Content, content_of
from sseconform.gate.diff import compare
from sseconform.gate.suite import Scenario, Suite
from sseconform.record import Request, record
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import ABORT, Loaded, load, make_plan, parse_faults
from sseconform.replay.scenario import Rule
from sseconform.replay.server import ReplayServer
from sseconform.rules.catalog import Severity
from sseconform.translate import translate_reads

__all__ = ["Finding", "ScenarioResult", "SuiteResult", "run_suite"]


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

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


@dataclass
class ScenarioResult:
    name: str
    expect: str
    passed: bool
    status: int | None
    recording: str  # the gateway's recorded stream
    upstream_requests: int
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "expect": self.expect,
            "passed": self.passed,
            "status": self.status,
            "recording": self.recording,
            "upstream_requests": self.upstream_requests,
            "seconds": round(self.seconds, 3),
            "note": self.note,
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class SuiteResult:
    suite: str
    gateway: str
    upstream: str
    scenarios: list[ScenarioResult]

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.scenarios)


def slug(name: str) -> str:
    """A file name for a scenario or suite name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "scenario"


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
                rec = self._translated(rec, sc.upstream, sc.usage)
            key = rec.name
            if key in loaded and loaded[key].path != rec.path:  # same file name, other folder
                key = f"{len(loaded)}-{rec.name}"
                rec = dataclasses.replace(rec, name=key)
            loaded.setdefault(key, rec)
            self.by_scenario[sc.name] = loaded[key]
        self.all = list(loaded.values())

    @staticmethod
    def _translated(rec: Loaded, dialect: str, usage: bool) -> Loaded:
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


def run_suite(
    suite: Suite,
    gateway: str,
    out_dir: str,
    *,
    upstream_host: str = "127.0.0.1",
    upstream_port: int = 0,
    key: str | None = None,
    select: Callable[[Scenario], bool] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> SuiteResult:
    """Run every scenario of ``suite`` through ``gateway``; recordings go to ``out_dir``."""
    upstream = _Upstream(suite)
    os.makedirs(out_dir, exist_ok=True)
    url = gateway.rstrip("/")
    if not url.endswith("/chat/completions"):
        url += suite.path
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
        for sc in suite.scenarios:
            if select is not None and not select(sc):
                continue
            result = _run_one(suite, sc, upstream.by_scenario[sc.name], server, url, out_dir, key)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return SuiteResult(suite.name, url, server.url, results)


def _request_body(suite: Suite, sc: Scenario, reference: Content) -> dict[str, Any]:
    assert sc.upstream is not None
    model = sc.model or suite.models.get(sc.served_dialect or sc.upstream) or "sseconform"
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "messages": [{"role": "user", "content": f"sseconform gate scenario {sc.name}"}],
    }
    calls = [c for ch in reference.model.choices.values() for c in ch.tool_calls.values()]
    names = sorted({c.name for c in calls if c.name is not None})
    if sc.tools if sc.tools is not None else bool(names):
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": n,
                    "description": f"a tool of the {sc.name} scenario",
                    "parameters": {"type": "object", "properties": {}},
                },
            }
            for n in names
        ]
    if sc.usage:
        body["stream_options"] = {"include_usage": True}
    body.update(sc.request)
    return body


def _run_one(
    suite: Suite,
    sc: Scenario,
    rec: Loaded,
    server: ReplayServer,
    url: str,
    out_dir: str,
    key: str | None,
) -> ScenarioResult:
    faults = parse_faults(sc.fault)
    dialect = sc.served_dialect
    assert dialect is not None
    first = make_plan(rec, speed=0, faults=faults)
    clean = make_plan(rec, speed=0)
    ref_first = content_of([first.body], dialect) if not first.json_body else None
    if ref_first is not None and first.ending == ABORT and ref_first.model.error is None:
        # A chunk or Gemini stream cannot say it was cut: the dropped connection does.
        ref_first.model.error = {"message": "the upstream connection dropped"}
        ref_first.error_at = ref_first.last
    ref_clean = content_of([clean.body], dialect)
    has_error = ref_clean.model.error is not None
    expect = sc.expectation(has_error)
    rules = [Rule(recording=rec.name, path=dialect, fault=sc.fault, times=sc.fault_times)]
    if sc.fault_times is not None:
        rules.append(Rule(recording=rec.name, path=dialect))
    server.rules = rules
    before = len(server.served)
    body = _request_body(suite, sc, ref_clean)
    headers = [("content-type", "application/json")]
    if key:
        headers.append(("authorization", f"Bearer {key}"))
    out = str(Path(out_dir) / f"{slug(sc.name)}.jsonl")
    t0 = time.monotonic()
    outcome = record(
        Request("POST", url, headers, orjson.dumps(body)),
        out,
        force=True,
        stall_timeout=suite.timeout,
    )
    seconds = time.monotonic() - t0
    time.sleep(0.05)  # let the upstream side log the request it just finished
    upstream_requests = len(server.served) - before
    g = _Graded(out, outcome.progress.status, suite.allow)
    if outcome.progress.status is None:
        g.add("transport", "no-response", f"no answer from the gateway: {outcome.reason}")
    else:
        _grade(g, sc, expect, outcome.complete, outcome.reason, first.ending == ABORT,
               ref_first, ref_clean, upstream_requests)  # fmt: skip
    return ScenarioResult(
        sc.name,
        expect,
        not any(f.severity == "error" for f in g.findings),
        outcome.progress.status,
        out,
        upstream_requests,
        seconds,
        g.findings,
        g.note,
    )


class _Graded:
    """Findings for one scenario, each located in the gateway's recorded body."""

    def __init__(self, path: str, status: int | None, allow: list[str]) -> None:
        self.path = path
        self.status = status
        self.allow = set(allow)
        self.findings: list[Finding] = []
        self.note = ""
        self.body = b""
        if status is not None:
            with open(path, "rb") as fp:
                self.body = b"".join(b for _, b in RecordingReader(fp, path).reads())
        self.content = content_of([self.body], providers.OPENAI) if self.ok_status else None
        self.starts = self.content.starts if self.content is not None else []

    def event_start(self, frame: int | None, offset: int | None) -> int | None:
        """Where frame ``frame`` starts: end-of-stream findings point at the last event,
        not past the body."""
        if frame is not None and 1 <= frame <= len(self.starts):
            return self.starts[frame - 1]
        return offset if offset is not None and offset < len(self.body) else None

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
            g.add(
                "expect",
                "rejected",
                f"the upstream failed before the stream ({sc.fault}) and the gateway answered "
                f"HTTP {g.status} without retrying: a client cannot tell it from success",
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
    result = check_file(g.path)
    for d in result.diagnostics:
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
