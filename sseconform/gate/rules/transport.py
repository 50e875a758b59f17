"""transport:*: how the gateway's answer travelled: whether it came, ended, and stayed within
the scenario's bounds."""

from __future__ import annotations

from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

_TIMEOUT = (
    "Every client waits on it until its own timeout: openai-python and anthropic-python "
    "after 600 s by default, the AI SDK and the agents at theirs; a CI job hangs as long."
)

NO_RESPONSE = define_gate(
    "transport:no-response",
    Severity.ERROR,
    "The gateway never answered the request.",
    RuleDoc(
        what="The gateway refused the connection, reset it, or timed out before sending a "
        "status line: the client got no answer at all.",
        why="Nothing was streamed, so nothing the scenario is about could be tested; usually "
        "the gateway is down, listening elsewhere, or crashed on the request.",
        clients="Every client raises a connection error (openai-python `APIConnectionError`, "
        "the AI SDK's `APICallError`) and retries it as a transient failure.",
        fix="Check that the gateway is up on the `--gateway` URL and that its log shows the "
        "request; a crash on one scenario's request is a bug of its own.",
    ),
)
INCOMPLETE = define_gate(
    "transport:incomplete",
    Severity.ERROR,
    "The gateway's stream did not end cleanly.",
    RuleDoc(
        what="The connection was reset, the chunked body was cut before its last chunk, or "
        "the stream stalled past the suite's timeout.",
        why="A cut body is an answer the client cannot trust: it may end mid-word or "
        "mid-call, and only the transport says so.",
        clients="openai-python and anthropic-python raise on a cut chunked body "
        "(`httpx.RemoteProtocolError`); the AI SDK reports a stream error; a client that "
        "ignores the transport shows a truncated answer.",
        fix="End every stream with the terminating chunk of the chunked body after the "
        "grammar's last event, and do not close the connection under a stream in flight.",
    ),
)
ABORTED = define_gate(
    "transport:aborted",
    Severity.WARNING,
    "The upstream dropped mid-stream and the gateway dropped its client's connection too.",
    RuleDoc(
        what="The upstream dropped mid-stream and the gateway dropped its client's "
        "connection too, without a terminal event.",
        why="Every client raises on the cut, so the failure is not hidden (a warning, not an "
        "error); an error event before the end would tell the client why. A gateway that "
        "ends the stream cleanly instead fails: no client can tell that answer from a whole "
        "one.",
        clients="openai-python, anthropic-python and the AI SDK raise a transport error; "
        "none can tell the user the upstream failed rather than the gateway.",
        fix="Send the grammar's error event (a chat error frame then `[DONE]`, an Anthropic "
        "`error` event, a Responses `response.failed`) before closing.",
    ),
)


def aborted(reason: str, *, answered: bool) -> str:
    """What :data:`ABORTED` says of a drop the gateway mirrored: a stream cut where its
    upstream's was (``answered``), or a connection closed with no answer at all (a
    non-streaming call, or a stream held back until its end)."""
    if answered:
        return (
            "the upstream dropped mid-stream and the gateway dropped its client's connection "
            f"({reason}): every client raises, so the failure is not hidden, but an error "
            "event before the end would tell the client why"
        )
    return (
        "the upstream dropped and the gateway closed its client's connection with no answer "
        f"({reason}): every client raises a connection error, as it would from the provider, "
        "so the failure is not hidden, but an HTTP error (502) would tell the client why"
    )


DEADLINE = define_gate(
    "transport:deadline",
    Severity.ERROR,
    "The gateway was still sending when the scenario's deadline passed.",
    RuleDoc(
        what="The gateway was still sending when the scenario's deadline passed (twice the "
        "time the upstream took, plus a margin, unless `--deadline` sets it).",
        why="It drips its answer, or streams past the upstream's end (a loop, a keep-alive "
        "that never stops).",
        clients=_TIMEOUT,
        fix="Pass the upstream's deltas on as they come and end the stream when the "
        "upstream's ends.",
    ),
)
SILENT = define_gate(
    "transport:silent",
    Severity.ERROR,
    "The gateway sent its head, then nothing until the deadline.",
    RuleDoc(
        what="The gateway sent its response head (or part of its answer) and then nothing "
        "until the scenario's deadline. The message says for how long it was silent and "
        "after what.",
        why="It holds the stream open without streaming: waiting on an upstream it never "
        "calls, or buffering what it got.",
        clients=_TIMEOUT,
        fix="Stream what the upstream sends as it arrives; if the upstream call fails, end "
        "the stream with an error event rather than holding it open.",
    ),
)
HEAD_TOO_LARGE = define_gate(
    "transport:head-too-large",
    Severity.ERROR,
    "The gateway's response head was larger than an HTTP client takes.",
    RuleDoc(
        what="The response head was over 100 KiB: a hundred thousand headers, or one header "
        "line of megabytes.",
        why="No client can read the answer that follows such a head.",
        clients="httpx and h11 (openai-python, anthropic-python) refuse a head over 100 KiB; "
        "Node's HTTP parser refuses one over 16 KiB by default.",
        fix="Do not copy unbounded data (an upstream's headers in a loop, a debug dump) into "
        "response headers.",
    ),
)
TOO_LARGE = define_gate(
    "transport:too-large",
    Severity.ERROR,
    "The gateway sent far more than the upstream's answer could become.",
    RuleDoc(
        what="The gateway sent more than the scenario's byte cap (16 MiB plus 16 times the "
        "upstream's body, unless `--max-bytes` sets it). The recording stops at the cap.",
        why="A loop that re-sends content, or an answer that never ends.",
        clients="Every client reads on until its memory or its timeout gives out; the user "
        "sees the answer repeat.",
        fix="Look for a retry or re-emit loop in the stream path.",
    ),
)
DECOMPRESSION_BOMB = define_gate(
    "transport:decompression-bomb",
    Severity.ERROR,
    "The gateway's compressed answer inflates a hundred times or more.",
    RuleDoc(
        what="The gateway compressed its answer (though identity was asked for) into "
        "something that inflates a hundred times or more; sseconform stopped decoding it.",
        why="A client that decodes it runs out of memory.",
        clients="httpx (openai-python, anthropic-python) and Node's fetch decode gzip and "
        "deflate as they read, with no bound of their own.",
        fix="Answer a request that asks for `identity` without a content-encoding.",
    ),
)
ENCODING = define_gate(
    "transport:encoding",
    Severity.ERROR,
    "The gateway answered with a content-encoding it was not asked for.",
    RuleDoc(
        what="The gateway answered with a content-encoding it was not asked for and that "
        "sseconform does not decode. The bytes are kept as sent.",
        why="A client that did not ask for the encoding cannot read the stream.",
        clients="httpx decodes only gzip, deflate (and br, zstd with their extras); any other "
        "encoding reaches the SSE parser as bytes it cannot read.",
        fix="Honour the request's `accept-encoding`; stream SSE without compression.",
    ),
)

#: How the figures below were measured (issue 53: `codex exec` against a mock on 127.0.0.1
#: answering the upgrade each way, 2-3 runs each). Rule prose names no client version
#: (tests/test_rule_docs.py): the versions are on the guide's WebSocket mode page.
_MEASURED = (
    "Codex CLI (`supports_websockets = true`, default retries; the version measured is on "
    "the guide's WebSocket mode page)"
)

WEBSOCKET_REFUSED = define_gate(
    "transport:websocket-refused",
    Severity.WARNING,
    "The gateway answered the Responses WebSocket upgrade in a way that costs Codex CLI time.",
    RuleDoc(
        what="`gate --endpoint responses --transport websocket` opens `GET /v1/responses` with "
        "`Upgrade: websocket` (and `OpenAI-Beta: responses_websockets=2026-02-06`, the "
        "gateway's key) as Codex CLI does, and the gateway neither accepted it (101 with a "
        "correct `Sec-WebSocket-Accept`) nor refused it with 426. The message names the "
        "answer: a status (403, 404, 405, 500, 501, any 4xx or 5xx; 400 apart), a "
        "connection closed without an answer or right after a 101, no answer within the "
        "probe's 10 s (a hang), or something that is not a WebSocket answer (a 200, a 101 "
        "with a wrong accept token). "
        "The severity is what the answer costs: a warning for the answers Codex retries, an "
        "error for a hang and for 400.",
        why="Codex CLI tries WebSocket mode first when its provider sets "
        "`supports_websockets = true`, and falls back to HTTP + SSE only after the upgrade "
        "fails. How long the fallback takes depends only on how the gateway answers: 426 "
        "(Upgrade Required) is taken as final, every other refusal is retried with backoff "
        "first, a silent gateway is waited on, and 400 is read as the turn's own error.",
        clients=f"Measured with {_MEASURED}, against a server on 127.0.0.1 (wall time of "
        "one `codex exec` turn; 0.65 s when no upgrade is tried): **426**, with or without "
        "`Upgrade: websocket`, costs nothing (one attempt, 0.69 s, no warning). **403, 404, "
        "405, 500, 501, a TCP close right after the request, or a 101 then an immediate "
        "close** cost about 6.2 s per session: 7 upgrade attempts with backoff, the first "
        "POST after 6.5-7.2 s, stderr showing `Reconnecting... 2/5` to `5/5` and `Falling "
        "back from WebSockets to HTTPS transport` (a warning; the session then stays on "
        "HTTP). **A "
        "hang** (the connection accepted, no answer) costs about 111 s: each attempt waits "
        "15 s, the first POST comes after 111.7 s (`websocket_connect_timeout_ms` in the "
        "provider table shortens it). **400** fails the turn: 2 attempts, no fallback, exit "
        "1 (an error). openai-python's `client.responses.connect()` has no fallback "
        "at all: any refusal, 426 included, raises `InvalidStatus`. A 200, a 101 with a "
        "wrong accept token and the 4xx/5xx statuses other than 400, 403, 404, 405, 500 and "
        "501 were not measured (a warning here, as for 404).",
        fix="A gateway without WebSocket mode answers the upgrade on its Responses path with "
        "`426 Upgrade Required` (an `Upgrade: websocket` header is optional): Codex CLI then "
        "falls back to HTTP + SSE at once. Never 400 (Codex fails the turn) and never "
        "silence. Or serve WebSocket mode itself (one JSON event per text message, "
        "`previous_response_id` kept per connection).",
        example="GET /v1/responses HTTP/1.1\nConnection: Upgrade\nUpgrade: websocket\n"
        "Sec-WebSocket-Version: 13\nOpenAI-Beta: responses_websockets=2026-02-06\n\n"
        "HTTP/1.1 405 Method Not Allowed          <- Codex retries 5 times: ~6.2 s lost\n"
        "HTTP/1.1 426 Upgrade Required            <- Codex falls back at once",
    ),
)

#: The statuses whose retries were measured (with a TCP close and a 101 then a close).
_MEASURED_RETRIED = frozenset({403, 404, 405, 500, 501})
#: What a retried refusal costs a Codex CLI user (measured on those and on closes).
_RETRIED = (
    "Codex CLI retries the upgrade 5 times with backoff, then falls back to HTTP + SSE: "
    "about 6.2 s lost per session"
)


def websocket_cost(kind: str, status: int | None) -> tuple[Severity, str] | None:
    """What an answer to the WebSocket upgrade costs a Codex CLI user, and at what severity
    it is reported (None: nothing, as for 426 or an accepted upgrade). ``kind`` is the
    probe's: accepted, refused, closed, hang or not-websocket."""
    if kind == "accepted" or (kind == "refused" and status == 426):
        return None
    if kind == "hang":
        return (
            Severity.ERROR,
            "Codex CLI waits 15 s on each of 7 attempts, then falls back to HTTP + SSE: about "
            "111 s lost per session (answer 426 instead)",
        )
    if kind == "refused" and status == 400:
        return (
            Severity.ERROR,
            "Codex CLI takes it for the turn's own error and fails the turn (exit 1, no "
            "fallback to HTTP + SSE; answer 426 instead)",
        )
    if kind == "closed" or status in _MEASURED_RETRIED:
        return Severity.WARNING, f"{_RETRIED} (answer 426 instead: no cost)"
    return (
        Severity.WARNING,
        f"not measured for this answer; on 403, 404, 405, 500, 501 and a close {_RETRIED} "
        "(answer 426 instead: no cost)",
    )


#: What a client of WebSocket mode does with a turn it cannot read to its end (measured: the
#: guide's WebSocket mode page, issue 53).
_WS_FAILED_TURN = (
    "Codex CLI waits for the turn's terminal event; when the connection ends first it "
    "retries the whole turn 5 times on new connections, each unchained (the full history "
    "again, `previous_response_id` state lost), then falls back to HTTP + SSE: about 6.2 s "
    "lost per turn. openai-python's `client.responses.connect()` raises "
    "`ConnectionClosedError` (for 1011: `received 1011 (internal error)`) and the socket's "
    "state is gone with it."
)

WEBSOCKET_BARE_CLOSE = define_gate(
    "transport:websocket-bare-close",
    Severity.ERROR,
    "The gateway closed the WebSocket between two turns of a conversation.",
    RuleDoc(
        what="In WebSocket mode the connection stays open for the next `response.create`: "
        "a conversation's later turn goes on the same socket, naming the turn before's "
        "response in `previous_response_id`. This finding names a connection the gateway "
        "closed (its Close code and reason are quoted) or ended after a turn's terminal "
        "event, while the conversation had a turn still to send. (A close in the middle "
        "of a turn is check's S082, `ws-closed-mid-response`, reported in the turn.)",
        why="A gateway that ends each connection after one response (a bridge that opens "
        "one upstream call per socket) drops the state `previous_response_id` continues "
        "from: only that connection keeps it.",
        clients=_WS_FAILED_TURN,
        fix="Keep the connection open after a turn's terminal event, for the next "
        "`response.create`, until the client closes it (or an idle timeout, with 1001).",
    ),
)
