"""The gateway's answer to the WebSocket upgrade Codex CLI opens on the Responses path
(``GET /v1/responses``, ``Upgrade: websocket``, when its provider sets
``supports_websockets = true``), read and classified: what the answer costs a Codex user
depends only on its kind (``transport:websocket-refused`` says how much).

One TCP connection, the upgrade as Codex sends it, the answer's head read with h11 (bounded:
a head cap, one deadline for the whole probe), the accept token checked with wsproto's; after
a 101, a short wait for the close that makes it a refusal after all. No message is sent:
the probe asks only how the upgrade is answered.
"""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import ssl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import h11
from wsproto.utilities import generate_accept_token

from sseconform.errors import SseconformError, UsageError
from sseconform.findings import Finding
from sseconform.gate.prepared import not_applicable
from sseconform.gate.request import GatewayRequests
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.rules.transport import NO_RESPONSE, WEBSOCKET_REFUSED, websocket_cost
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite
from sseconform.safetext import printable

__all__ = [
    "BETA",
    "BUDGET",
    "KINDS",
    "MAX_HEAD",
    "SCENARIO",
    "SETTLE",
    "Answer",
    "probe",
    "probe_gateway",
    "probe_result",
]

#: Seconds the whole probe may take (connect, answer, the wait after a 101): a gateway
#: silent that long "hangs" (Codex CLI waits 15 s per attempt).
BUDGET = 10.0
#: Seconds after a 101 in which a close of the connection makes the upgrade a refusal.
SETTLE = 0.3
#: The largest answer head read (h11's own default cap is 16 KiB too).
MAX_HEAD = 16 * 1024
#: The beta header Codex CLI 0.169.0 sends with the upgrade.
BETA = "responses_websockets=2026-02-06"
#: The kinds of answer, each a ``kind`` of :class:`Answer`.
KINDS = ("accepted", "refused", "closed", "hang", "not-websocket", "unreachable")
#: The report's name for the probe (a scenario of its own in every format).
SCENARIO = "responses/websocket-upgrade"
_READ = 4096


class _Make(Protocol):
    """``probe``'s ``answer``: an :class:`Answer` timed from the probe's start."""

    def __call__(self, kind: str, detail: str, status: int | None = None) -> Answer: ...


@dataclass(frozen=True)
class Answer:
    """How the gateway answered the upgrade: its ``kind`` (one of :data:`KINDS`), the HTTP
    status when there was one, what was seen (``detail``), and how long it took."""

    kind: str
    url: str
    status: int | None = None
    detail: str = ""
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """The answer's name in reports: ``refused-405``, ``hang``, ``accepted``."""
        return f"refused-{self.status}" if self.kind == "refused" else self.kind


def _websocket_headers(
    url: str, headers: list[tuple[str, str]], key: str
) -> tuple[str, int, bool, str, list[tuple[str, str]]]:
    """Host, port, TLS, target and the upgrade's headers in Codex CLI's order: the upgrade's
    own, then the gateway's (its key, the profile's headers), then the beta header."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    tls = parts.scheme in ("https", "wss")
    port = parts.port or (443 if tls else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    own = {"host", "connection", "upgrade", "content-type", "content-length"}
    own |= {"sec-websocket-version", "sec-websocket-key", "openai-beta", "transfer-encoding"}
    out = [
        ("Host", parts.netloc.rpartition("@")[2]),
        ("Connection", "Upgrade"),
        ("Upgrade", "websocket"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", key),
    ]
    out += [(n, v) for n, v in headers if n.lower() not in own]
    out.append(("OpenAI-Beta", BETA))
    return parts.hostname, port, tls, target, out


def probe(
    url: str,
    headers: list[tuple[str, str]] | None = None,
    *,
    budget: float = BUDGET,
    settle: float = SETTLE,
) -> Answer:
    """Send the upgrade to ``url`` (the gateway's Responses URL) with ``headers`` (its key
    and the profile's) and classify the answer within ``budget`` seconds."""
    key = base64.b64encode(os.urandom(16)).decode()
    host, port, tls, target, sent = _websocket_headers(url, headers or [], key)
    start = time.monotonic()
    deadline = start + budget

    def answer(kind: str, detail: str, status: int | None = None) -> Answer:
        return Answer(kind, url, status, detail, time.monotonic() - start)

    try:
        sock = socket.create_connection((host, port), timeout=budget)
    except TimeoutError:
        return answer("unreachable", f"no TCP connection in {budget:g} s")
    except OSError as exc:
        return answer("unreachable", f"the connection failed: {exc.strerror or exc}")
    try:
        if tls:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        return _converse(sock, target, sent, key, deadline, budget, settle, answer)
    except OSError as exc:  # a reset, or TLS refused
        return answer("closed", f"the connection failed: {exc.strerror or exc}")
    finally:
        sock.close()


def _recv(sock: socket.socket, deadline: float) -> bytes | None:
    """At most :data:`_READ` bytes before ``deadline``: None when it passed, b"" at EOF."""
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    sock.settimeout(left)
    try:
        return sock.recv(_READ)
    except TimeoutError:
        return None
    except ConnectionResetError:
        return b""


def _converse(
    sock: socket.socket,
    target: str,
    sent: list[tuple[str, str]],
    key: str,
    deadline: float,
    budget: float,
    settle: float,
    answer: _Make,
) -> Answer:
    """The upgrade written, the answer's head read and judged."""
    conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
    request = h11.Request(method="GET", target=target, headers=sent)
    sock.settimeout(max(0.001, deadline - time.monotonic()))
    sock.sendall(conn.send(request) + (conn.send(h11.EndOfMessage()) or b""))
    got = 0
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as exc:
            if got > MAX_HEAD:
                return answer("not-websocket", f"an answer head over {MAX_HEAD} bytes")
            return answer("not-websocket", f"not an HTTP/1.1 answer ({exc})")
        if event is h11.NEED_DATA:
            chunk = _recv(sock, deadline)
            if chunk is None:
                said = " (part of a head)" if got else ""
                return answer("hang", f"no answer{said} within the probe's {budget:g} s")
            if not chunk:
                mid = " in the middle of its answer head" if got else " without an answer"
                return answer("closed", f"the gateway closed the connection{mid}")
            got += len(chunk)
            conn.receive_data(chunk)
            continue
        if isinstance(event, h11.InformationalResponse) and event.status_code != 101:
            continue  # 100 Continue, 103 Early Hints: the answer is still to come
        if isinstance(event, h11.InformationalResponse):
            return _switched(sock, conn, event, key, deadline, settle, answer)
        if isinstance(event, h11.Response):
            status = event.status_code
            said = _reason(event)
            if status >= 400:
                return answer("refused", f"HTTP {status}{said}", status)
            return answer("not-websocket", f"HTTP {status}{said}, not 101", status)
        return answer("not-websocket", f"an unexpected answer ({type(event).__name__})")


def _reason(event: h11.Response) -> str:
    reason = event.reason.decode("latin-1")
    return f" {printable(reason[:60])}" if reason else ""


def _switched(
    sock: socket.socket,
    conn: h11.Connection,
    event: h11.InformationalResponse,
    key: str,
    deadline: float,
    settle: float,
    answer: _Make,
) -> Answer:
    """A 101: a WebSocket only with ``Upgrade: websocket`` and the right accept token, and
    only when the gateway does not close it (or send a Close frame) at once."""
    head = {name.lower(): value for name, value in event.headers}
    if head.get(b"upgrade", b"").lower() != b"websocket":
        return answer("not-websocket", "HTTP 101 without Upgrade: websocket", 101)
    accept = head.get(b"sec-websocket-accept")
    if accept is None or accept.strip() != generate_accept_token(key.encode()):
        shown = "no Sec-WebSocket-Accept" if accept is None else "a wrong Sec-WebSocket-Accept"
        return answer("not-websocket", f"HTTP 101 with {shown}: no client takes it", 101)
    rest: bytes | None = conn.trailing_data[0]
    if not rest:
        rest = _recv(sock, min(deadline, time.monotonic() + settle))
        if rest == b"":
            return answer("closed", "HTTP 101, then the gateway closed the connection at once", 101)
    if rest and rest[0] & 0x0F == 0x8:
        code = int.from_bytes(rest[2:4]) if len(rest) >= 4 and rest[1] & 0x7F >= 2 else None
        said = f" (code {code})" if code is not None and not rest[1] & 0x80 else ""
        return answer("closed", f"HTTP 101, then a Close frame{said} at once", 101)
    return answer("accepted", "HTTP 101 with a correct Sec-WebSocket-Accept", 101)


def probe_result(answer: Answer, suite: str = "", profile_note: str = "") -> ScenarioResult:
    """The probe as a scenario of the report (``responses/websocket-upgrade``): passed when
    the answer costs a Codex user nothing, else its ``transport:websocket-refused`` finding
    at the severity of what it costs (``transport:no-response`` when nothing listens)."""
    findings: list[Finding] = []
    if answer.kind == "unreachable":
        findings.append(
            Finding.of(NO_RESPONSE, f"the WebSocket upgrade to {answer.url}: {answer.detail}")
        )
    else:
        cost = websocket_cost(answer.kind, answer.status)
        if cost is not None:
            severity, what = cost
            message = f"the gateway answers the WebSocket upgrade with {answer.detail}: {what}"
            findings.append(Finding.of(WEBSOCKET_REFUSED, message, severity=severity))
    note = f"{answer.label}: {answer.detail}" + (f"; {profile_note}" if profile_note else "")
    return ScenarioResult(
        name=SCENARIO,
        expect="websocket",
        status=answer.status,
        recording="",
        upstream_requests=0,
        seconds=answer.seconds,
        findings=findings,
        note=note,
        suite=suite,
        dialect="responses",
        endpoint="responses",
    )


@contextlib.contextmanager
def _upstream_listening(upstream_url: str, recording: str) -> Iterator[None]:
    """The replay upstream listening while the upgrade is asked (serving the scenario's
    recording; no turn is sent): a gateway that passes the WebSocket through opens its own to
    the upstream before it answers, and would find nothing there. Where the port is taken
    (the user runs an upstream of their own there), the probe goes on without one."""
    from sseconform.replay.plan import load
    from sseconform.replay.server import ReplayServer

    parts = urlsplit(upstream_url)
    with contextlib.ExitStack() as stack:
        try:
            server = ReplayServer(
                [load(recording)], host=parts.hostname or "127.0.0.1", port=parts.port or 0,
                speed=0,
            )  # fmt: skip
            stack.enter_context(server.running())
        except (OSError, SseconformError, ValueError):
            pass  # the port is taken, or the recording cannot be served: no upstream, as before
        yield


def probe_gateway(
    suites: list[Suite],
    gateway: str,
    upstream_url: str,
    *,
    key: str | None = None,
    headers: list[tuple[str, str]] | None = None,
    chosen: Callable[[Scenario], bool] | None = None,
    budget: float = BUDGET,
) -> tuple[Answer, SuiteResult]:
    """``gate --transport websocket``: the upgrade sent once for the run, to the Responses
    URL of the first suite with a scenario the gateway can route, with that scenario's
    headers (the key, the profile's; ``{upstream}`` as ``upstream_url``, though no turn is
    ever sent), and its answer as the run's one report scenario."""
    for suite in suites:
        if suite.endpoint != "responses":
            raise UsageError(
                f"--transport websocket: the {suite.endpoint} endpoint has no WebSocket mode "
                "(only responses: give --endpoint responses)"
            )
    for suite in suites:
        runs = [
            sc
            for sc in suite.scenarios
            if (chosen is None or chosen(sc)) and not_applicable(suite, sc) is None
        ]
        if not runs:
            continue
        sc, requests = runs[0], GatewayRequests(suite, gateway, upstream_url, key, headers)
        dialect = sc.served_dialect
        assert dialect is not None
        with _upstream_listening(upstream_url, sc.recording):
            found = probe(requests.url(dialect), requests.headers(dialect, sc), budget=budget)
        profile = suite.profile.name if suite.profile is not None else None
        result = probe_result(found, suite.name)
        down = "" if found.kind == "unreachable" else None  # nothing listens: say so
        return found, SuiteResult(suite.name, gateway.rstrip("/"), "", [result], profile, down)
    raise UsageError("--transport websocket: no scenario the gateway can route on responses")
