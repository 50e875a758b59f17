"""What replay logs of one request: the line an operator reads, and what ``gate`` and the
lateness benchmark read of it (the plan it was answered with, when each write left, which
faults took effect)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sseconform.providers import dialect_of_path
from sseconform.recording.redact import redact_target, request_secrets, scrub_text
from sseconform.replay.faults import Faults
from sseconform.replay.history import Returned, returned_of
from sseconform.replay.http11 import RequestHead
from sseconform.replay.plan import Loaded, Plan, make_plan
from sseconform.replay.routing import MAX_PARSED, RequestBody, tools_of
from sseconform.safetext import printable
from sseconform.wires import by_dialect, known_dialect
from sseconform.wires.base import Asked

__all__ = ["MAX_REQUEST", "Served"]

#: Bytes kept of a measured request's body (the report shows what the gateway forwarded).
MAX_REQUEST = 64 * 1024


def asked_of(path: str, body: RequestBody, headers: dict[str, str]) -> Asked | None:
    """What a request asks, as its path's wire reads it (None: not a provider path, or a
    body that is no JSON object or past :data:`MAX_PARSED`): read once per request, for
    the answer it gets (thinking shown or not) and for the gate's report."""
    dialect = dialect_of_path(path)[0]
    if not known_dialect(dialect) or len(body.raw) > MAX_PARSED or body.obj is None:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    return by_dialect(str(dialect)).read_request(body.obj, lower)


@dataclass
class Served:
    """One request, as logged and as the lateness benchmark and the gate read it."""

    client: str
    method: str
    path: str  # redacted: never holds a credential the request carried
    recording: str | None
    status: int
    faults: str
    sent: int = 0
    ending: str = ""
    seconds: float = 0.0
    lateness: list[float] = field(default_factory=list)
    #: the faults that took effect, in order: "status" (sent), "stall" (its wait began),
    #: "error" (the injected event written), "truncate" (the cut event written), "drop" (the
    #: reset, before the natural end). A client that left before a fault's point leaves it out.
    fired: list[str] = field(default_factory=list)
    #: "sse", "json-array" (Gemini asked without alt=sse) or "json" (a non-streaming
    #: request's one answer)
    framing: str = "sse"
    tag: str | None = None  # the request's [sseconform:TAG], if it carried one
    #: when measured (``measure=True``, the gate's upstream), for the report's timeline:
    #: the loop time (``time.monotonic``) the request arrived, the plan it was answered
    #: with, each planned write's (seconds after arrival, offset in the payload) as it left,
    #: and the seconds after arrival each ``fired`` fault took effect
    started: float = 0.0
    plan: Plan | None = None
    times: list[tuple[float, int]] = field(default_factory=list)
    fired_at: list[float] = field(default_factory=list)
    #: when measured: the names of the tools the request declared (None: not read)
    tools: list[str] | None = None
    #: when measured: the state and tool results the request's history brought back
    returned: Returned | None = None
    #: when measured: the request's body as text (its first MAX_REQUEST bytes, the request's
    #: own credentials masked), for the report's side-by-side requests
    request: str = ""
    #: when measured and answered whole: the stream its recording would have sent
    streamed: Plan | None = None
    #: when measured: what the request asks, as its path's wire reads it (None: not a JSON
    #: object, or a path no wire serves), for the gate's comparison with the client's
    asked: Asked | None = None

    @classmethod
    def refused(
        cls, client: str, req: RequestHead | bytes | None, status: int, reason: str, sent: int
    ) -> Served:
        """A request that could not be served, logged like every other answer (the reason
        in place of a recording). ``req``: the request, or the bytes of a head that could
        not be parsed (its first line is logged, escaped; a credential in it, redacted)."""
        if isinstance(req, RequestHead):
            method, target, headers = req.method, req.target, req.headers
        else:
            first = (req or b"").split(b"\n", 1)[0].rstrip(b"\r")[:200].decode("latin-1")
            method, target, headers = "-", first or "-", {}
        shown = redact_target(target, request_secrets(target, headers))[:200]
        served = cls(client, method[:16], shown, None, status, "")
        served.ending, served.sent = f"refused: {reason}", sent
        return served

    def measured(
        self, plan: Plan | None, body: RequestBody, secrets: list[str],
        whole: Loaded | None = None, speed: float = 1.0, faults: Faults | None = None,
        *, asked: Asked | None = None,
    ) -> None:  # fmt: skip
        """What the gate reads of a request it answered (or refused): its plan, the tools
        it declared, the state its history brought back, its body as sent and what it asks
        (``asked``, read once by the server: :func:`asked_of`); for a request answered
        ``whole`` (not streamed), the stream its recording would have sent, which is what
        the client's stream is timed against."""
        self.plan, self.tools, self.returned = plan, tools_of(body), returned_of(body)
        self.request = scrub_text(body.raw[:MAX_REQUEST].decode("utf-8", "replace"), secrets)
        self.asked = asked
        if whole is not None:
            self.streamed = make_plan(whole, speed=speed, faults=faults)

    def fire(self, fault: str, at: float) -> None:
        self.fired.append(fault)
        self.fired_at.append(at)

    def line(self) -> str:
        """One log line; request text is escaped, so a client cannot write to the terminal."""
        rec = self.recording or "-"
        if self.recording and self.framing == "json":
            rec += " as json (not streamed)"
        elif self.recording and self.framing != "sse":
            rec += f" as {self.framing}"
        fault = ""
        if self.faults:
            fault = f" faults={self.faults} fired={','.join(self.fired) or 'none'}"
        return printable(
            f"{self.client} {self.method} {self.path} -> {rec} {self.status}{fault} "
            f"{self.sent} bytes in {self.seconds:.3f} s ({self.ending})"
        )
