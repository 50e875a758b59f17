"""What the tests against real gateways (LiteLLM, Portkey) share: starting the gateway on
loopback, running ``sseconform gate`` with its profile and baseline, and the assertions every
such run must meet (each finding at real bytes, nothing but known deviations, an exact
baseline), plus the scorecard CI prints."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from sseconform.errors import UsageError
from sseconform.gate.aimed import NON_STREAMING
from sseconform.gate.options import GateOptions, prepare_suites
from sseconform.gate.websocket_probe import Answer, probe, probe_gateway
from sseconform.recording.format import RecordingReader
from sseconform.sse import SSEDecoder
from sseconform.sse.jsonarray import ElementDecoder
from tests.cli.helpers import run_cli
from tests.conftest import ROOT, TESTS_FULL

T = TypeVar("T")
NO_PROXY = {"NO_PROXY": "127.0.0.1,localhost"}


def pinned(script: Path, name: str) -> str:
    """The version an install script pins (its ``NAME=VERSION`` line)."""
    prefix = f"{name}="
    return next(
        ln[len(prefix) :] for ln in script.read_text().splitlines() if ln.startswith(prefix)
    )


#: The version of each gateway whose whole built-in suites its committed baselines
#: (``tests/gate/*-known.json``) were measured at, by the whole run.
WHOLE_RUNS: dict[str, str] = json.loads(Path(__file__).with_name("whole-runs.json").read_text())
#: What a gateway's suites grade in a run that is not whole: these scenarios of every
#: dialect (and endpoint), one of each kind of thing a gateway gets wrong - a text, calls in
#: parallel, reasoning, an error in the stream, one before it and a cut stream, the first
#: event's timing, a conversation's next turn (and a stored response's). The real gateways'
#: tests wait on the upstream's recorded pace most of their time: their whole suites held
#: CI's test workers for some 700 of its 3,800 worker-seconds (and 150 s of CPU).
CROSS_SECTION = frozenset({
    "text", "parallel-calls", "reasoning", "error-mid-stream", "rate-limited",
    "dropped-mid-stream", "slow-stream", "agent-loop", "previous-response",
})  # fmt: skip


def whole(gateway: str, version: str) -> bool:
    """Whether ``gateway``'s built-in suites run whole: with ``SSECONFORM_TESTS_FULL=1``, or
    when ``version`` (the pinned one) is not the one :data:`WHOLE_RUNS` names - a new pin
    is measured whole until its baselines and that file say what it does. Otherwise the
    :data:`CROSS_SECTION` of them, as the heavy clients' matrices run a sample of their
    cases at the version their rows were measured at."""
    return TESTS_FULL or WHOLE_RUNS.get(gateway) != version


def chosen(everything: Iterable[str], gateway: str, version: str) -> tuple[set[str], list[str]]:
    """The scenario names (``ENDPOINT/DIALECT/NAME``) a run grades (see :func:`whole`), and
    the ``gate`` arguments that select them (none for every scenario)."""
    names = set(everything)
    if whole(gateway, version):
        return names, []
    picked = {n for n in names if n.rsplit("/", 1)[-1] in CROSS_SECTION}
    return picked, [arg for n in sorted(picked) for arg in ("--only", n)]


def extent(graded: int, everything: int) -> str:
    """A scorecard's words for how much of the suites a run graded."""
    if graded >= everything:
        return "every scenario"
    return (
        f"a cross-section, {graded} of {everything} scenarios (all of them with "
        f"SSECONFORM_TESTS_FULL=1 or a new pinned version: tests/gate/whole-runs.json)"
    )


def need(found: T | None, require: str, what: str) -> T:
    """``found``; else the test skips, or fails when ``$require`` is 1 (as in CI, where
    ``.ci/run`` installs every gateway)."""
    if found is None:
        if os.environ.get(require) == "1":
            pytest.fail(f"{require}=1 but {what} was not found")
        pytest.skip(f"{what} is not installed (.ci/run installs it)")
    return found


def printed_config(profile: str, upstream: int) -> str:
    """What ``gate --gateway-profile PROFILE --print-gateway-config`` prints for a replay
    upstream on ``upstream`` (what a user runs the gateway with)."""
    printed = run_cli(
        "gate", "--gateway-profile", profile, "--print-gateway-config",
        "--upstream-port", str(upstream), cwd=ROOT,
    )  # fmt: skip
    assert printed.code == 0, printed.both
    return printed.out


def venv_python(variable: str, holds: str) -> Path | None:
    """The python of the venv ``$variable`` names, when its site-packages hold ``holds``
    (a path glob, ``server/fastapi.py``)."""
    where = os.environ.get(variable)
    if not where or not Path(where, "bin", "python").is_file():
        return None
    found = Path(where).glob(f"lib/python*/site-packages/{holds}")
    return Path(where, "bin", "python") if any(found) else None


class Served:
    """A gateway started for a test: its URL, the replay upstream port its config names, its
    log, and the route that says it still serves."""

    def __init__(self, url: str, upstream_port: int, log: Path, health: str = "/") -> None:
        self.url = url
        self.upstream_port = upstream_port
        self.log = log
        self.health = health

    def serving(self) -> bool:
        try:
            return httpx.get(self.url + self.health, timeout=10).status_code == 200
        except httpx.HTTPError:
            return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> list[str]:
    """The local addresses of the LISTEN sockets on ``port`` (Linux /proc; [] elsewhere)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:
                found.append(addr)
    return found


def loopback(addr: str) -> bool:
    """A /proc/net address on loopback: 127.x.x.x (little-endian hex) or ::1."""
    if len(addr) == 8:
        return addr[-2:] == "7F"
    return addr == "00000000000000000000000001000000"


@contextmanager
def running(
    name: str,
    argv: Sequence[str],
    cwd: Path,
    health: str,
    port: int,
    wait: float,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Start a gateway, wait until ``health`` answers 200, check it listens on loopback only,
    and stop it at the end; its log is in ``cwd``, quoted when it dies."""
    log_path = cwd / f"{name}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env={**os.environ, **NO_PROXY, **(env or {})},
            stdout=log,
            stderr=log,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + wait
            while True:
                if proc.poll() is not None:
                    logged = log_path.read_text(errors="replace")
                    pytest.fail(f"{name} exited ({proc.returncode}): {logged}")
                try:
                    if httpx.get(url + health, timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} did not come up in {wait:.0f} s")
                time.sleep(0.25)
            addrs = listening(port)
            if Path("/proc/net/tcp").is_file():
                assert addrs and all(loopback(a) for a in addrs), f"not loopback only: {addrs}"
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


#: Scenarios in flight at once through a real gateway: most of a scenario's time is the
#: upstream's recorded schedule (the timing scenarios wait 4 to 7 s), so four at once take a
#: quarter of the time; the verdicts and timing figures are those of one at a time (checked
#: by hand on LiteLLM and Portkey: the same baselines, added first token within 10 ms).
CONCURRENCY = 4


def gate(out: Path, *args: str) -> tuple[dict[str, Any], str]:
    """``sseconform gate ARGS``, its JSON report parsed, and what it printed; the HTML page
    (``--html``) is written beside it, as ``report.html``, and checked against the JSON."""
    report = out / "report.json"
    run = run_cli(
        "gate", *args, "--concurrency", str(CONCURRENCY), "--out", str(out / "streams"),
        "--format", "json",
        "--output", str(report), "--html", str(out / "report.html"), cwd=ROOT, timeout=900,
    )  # fmt: skip
    assert run.code in (0, 1), run.both  # graded, whatever the grades
    assert "Traceback" not in run.both
    data = json.loads(report.read_text())
    assert_page(out / "report.html", data)
    return data, run.both


def assert_page(page: Path, data: dict[str, Any]) -> None:
    """The HTML page shows the JSON report's verdicts, each scenario once, under 2 MB."""
    from tests.html.dom import parse

    text = page.read_text(encoding="utf-8")
    assert len(text.encode()) < 2_000_000, len(text)
    dom = parse(text)
    cells = {n.attrs["data-scenario"]: n.attrs["data-verdict"] for n in dom.find_all("td", "v")}
    assert cells == {s["name"]: s["verdict"] for s in data["scenarios"]}
    assert len(dom.find_all("section", "scenario")) == len(data["scenarios"])


def body(path: str) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(b for _, b in RecordingReader(fp, path).reads())


def event_starts(data: bytes, whole: bool = False) -> list[int]:
    """Where each event starts (``whole``: the one object of a non-streaming answer)."""
    dec = ElementDecoder(single=True) if whole else SSEDecoder()
    return [ev.offset for ev in dec.feed(data) + dec.finish()]


def assert_located(scenarios: dict[str, dict[str, Any]]) -> None:
    """Every located finding points at the start of a real event holding the quoted bytes
    (of its own turn's recording), or, about the answer as a whole (an HTTP error body), at
    its first byte."""
    for s in scenarios.values():
        paths = [s["recording"], *s["turn_recordings"]] if s["status"] is not None else []
        bodies = [body(p) for p in paths]
        for f in s["findings"]:
            if f["offset"] is None:
                continue
            data = bodies[f["turn"] - 1]
            if f["frame"] is None:  # the answer as a whole (an HTTP error): its first bytes
                assert f["offset"] == 0 and data.startswith(f["excerpt"].encode()), f
                continue
            starts = event_starts(data, s["name"].startswith(NON_STREAMING))
            assert f["offset"] in starts, (s["name"], f)
            assert f["frame"] is not None and starts[f["frame"] - 1] == f["offset"], (s["name"], f)
            assert f["excerpt"] and data[f["offset"] :].startswith(f["excerpt"].encode()), f


def assert_located_in_sessions(scenarios: dict[str, dict[str, Any]]) -> None:
    """Over WebSocket: every located finding points at the start of one of the session's
    server messages, or of its Close frame (``message N:`` leads its text when a message)."""
    from sseconform.recording.session import session_items
    from sseconform.websocket.frames import Closed, Message

    for s in scenarios.values():
        if not s["recording"] or s["status"] is None:
            continue
        with open(s["recording"], "rb") as fp:
            items = list(session_items(RecordingReader(fp, s["recording"], websocket=True)))
        messages = {i.offset: i.number for i in items if isinstance(i, Message) and i.number}
        closes = {i.offset for i in items if isinstance(i, Closed) and i.offset >= 0}
        for f in s["findings"]:
            if f["offset"] is None:
                continue
            if f["offset"] in messages:
                said = f"message {messages[f['offset']]}: "
                assert f["message"].startswith(said) or said in f["message"], (s["name"], f)
            else:
                assert f["offset"] in closes, (s["name"], f)


def assert_only_known(
    scenarios: dict[str, dict[str, Any]], racy: frozenset[str] = frozenset()
) -> None:
    """No false alarm and no surprise: each graded scenario passes or fails only for the
    baseline's deviations, and each of those still happens (the baseline is exact), but in
    ``racy``: scenarios whose deviation depends on a race inside the gateway, which may pass
    (each named, with why, in the baseline's note)."""
    for name, s in sorted(scenarios.items()):
        if s["verdict"] == "not-applicable":
            continue
        assert s["verdict"] in ("pass", "known"), (name, s["verdict"], s["findings"])
        if name not in racy:
            assert s["baseline_fixed"] == [], (name, s["baseline_fixed"])


def scorecard(scenarios: dict[str, dict[str, Any]], what: str) -> str:
    """One line per scenario (verdict, the accepted deviations' keys), then the totals."""
    lines = []
    said: set[str] = set()  # a dialect's not-applicable note is given once
    for name, s in sorted(scenarios.items()):
        if s["verdict"] == "not-applicable":
            note = s["note"] if s["note"] not in said else "(as above)"
            said.add(s["note"])
            lines.append(f"N/A       {name:<32} {note}")
            continue
        keys = sorted({f["key"] for f in s["findings"] if f["severity"] == "error"})
        warned = sorted({f["key"] for f in s["findings"] if f["severity"] == "warning"})
        also = f" (warnings: {' '.join(warned)})" if warned else ""
        lines.append(f"{s['verdict'].upper():<9} {name:<32} {' '.join(keys)}{also}".rstrip())
    graded = [s for s in scenarios.values() if s["verdict"] != "not-applicable"]
    n = {v: sum(s["verdict"] == v for s in graded) for v in ("pass", "known")}
    lines.append(
        f"{what}: {n['pass']}/{len(graded)} scenarios pass; {n['known']} fail only for their "
        f"known deviations; {len(scenarios) - len(graded)} not applicable"
    )
    return "\n".join(lines) + "\n"


def write_scorecard(env: str, text: str) -> None:
    """Add a scorecard to the file CI prints (one per endpoint, in the order they ran)."""
    where = os.environ.get(env)
    if where:
        with open(where, "a", encoding="utf-8") as fp:
            fp.write(text + "\n")


def upgrade_answer(url: str, profile: str, key: str | None = None, upstream: int = 9) -> Answer:
    """The gateway's answer to Codex CLI's WebSocket upgrade, sent as ``gate --transport
    websocket`` sends it (its profile's Responses URL and headers, the key), or on
    ``/v1/responses`` with the key where the profile serves no responses endpoint (where a
    Codex user would point it). ``upstream``: the replay port ``{upstream}`` names (no turn
    is sent, so nothing need listen there)."""
    options = GateOptions(gateway=url, profile=profile, key=key, transport="websocket")
    loaded = options.load_profile()
    key = key or (loaded.key if loaded else None)
    try:
        suites = prepare_suites(options, loaded)
        answer, _ = probe_gateway(suites, url, f"http://127.0.0.1:{upstream}", key=key)
    except UsageError:  # no responses endpoint in the profile
        headers = [("Authorization", f"Bearer {key}")] if key else []
        answer = probe(f"{url}/v1/responses", headers)
    return answer
