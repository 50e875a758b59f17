"""The demo gateway (``sseconform demo-gateway``): a small gateway to gate before any other.

It is what a home-grown proxy does - pick the upstream by model name, call it, translate its
stream to chat.completion.chunk frames as they arrive (with sseconform's own translators) -
and it can be told to make the mistakes real gateways make (:data:`BUGS`), so that a
newcomer sees ``sseconform gate`` pass and fail with nothing else installed, and the tests
show that it catches each one:

- ``lose-token``: the third content delta never reaches the client;
- ``wrong-finish``: ``length`` is reported as ``stop``;
- ``silent-close``: an upstream failure mid-stream just ends the stream;
- ``ok-on-error-status``: an upstream 4xx/5xx before the stream becomes HTTP 200 + error frame;
- ``restart``: after a mid-stream drop the upstream is called again and its stream sent again
  from the start (a failover after the first delta: a duplicated prefix);
- ``retry``: an upstream 4xx/5xx before the stream is retried once, after the
  ``Retry-After`` it names (a clean retry);
- ``wrong-path``: the upstream is called on a path no provider serves (a wiring mistake);
- ``first-event-only``: the upstream is hung up on after its first read, and the stream
  ends there (so a fault placed later never fires);
- ``strip-tag``: the prompt is rewritten on its way up, losing the ``[sseconform:TAG]``
  marker the replay upstream routes concurrent requests by;
- ``load-corrupt``: under concurrency only (another request in flight), every tenth request
  loses its first content delta (a buffer that drops a write when it is full);
- ``cross-talk``: under concurrency only, every tenth request gets, in place of its first
  content delta, the latest content delta of another stream in flight (a chunk of one
  response in another's stream).
- ``index-per-chunk``: each upstream chunk's calls numbered from 0 (a gateway that takes a
  call's place in the chunk for its index: parallel calls sent apart merge on index 0);
- ``index-from-output``: each call takes the upstream's own position for its index
  (Anthropic's block index, Responses' ``output_index``, the Gemini part's place in its
  chunk), counting the text, thinking and reasoning before it.

  Both also on ``/v1/messages`` and ``/v1/responses`` where another dialect is translated:
  the calls misnumbered before they are encoded.

Timing: the upstream's ``event: ping`` goes on (as an SSE comment on the chat path), and a
stream quiet for ``IDLE`` seconds gets a keepalive of this gateway's own (an SSE comment;
``event: ping`` on ``/v1/messages``), as a faithful gateway keeps a quiet stream alive
through an upstream's silence. On every path (chat, Messages, Responses):

- ``buffer``: every frame held until the upstream's stream ends (not streamed);
- ``hold-args`` / ``hold-reasoning``: a call's argument deltas (its thinking) held and sent
  in one burst with what comes after them (a gateway that assembles a call before it
  forwards it);
- ``hold-first``: nothing sent until the first content (the role chunk held back);
- ``hold-50ms``: each write held 50 ms (a slow hop);
- ``drop-keepalive``: the upstream's pings go nowhere, and the gateway sends none of its own;
- ``cold-start``: its first request waits 1 s before the upstream is called (a gateway that
  loads a module on first use), every later one is fast;
- ``die-at:N``: it crashes on its Nth request: that connection reset, none accepted after.

On ``/v1/messages`` and ``/v1/responses`` it passes an upstream of the same grammar through
(Anthropic Messages events, Responses events: what a gateway in front of Claude Code or Codex
does for the provider's own models) and translates any other dialect into that grammar (with
``translate --to``'s encoders); it can make these mistakes on a pass-through:

- ``drop-block-start``: the first ``content_block_start`` never reaches the client;
- ``repeat-message-start``: ``message_start`` is sent twice;
- ``skip-sequence``: the third Responses event's ``sequence_number`` is one too high, and
  every later one with it;
- ``done-differs``: the first ``response.output_text.done`` loses its last character;
- ``drop-signatures``: every ``signature_delta`` is dropped (and a thinking block's start
  carries an empty ``signature``);
- ``rewrite-signatures``: each signature is re-encoded as URL-safe base64 without padding
  (the same bytes to a decoder that accepts both, another string to the provider);
- ``strip-encrypted``: a Responses ``reasoning`` item loses its ``encrypted_content``;
- ``drop-tools``: the upstream's request declares none of the client's tools (on every
  path; tools are otherwise forwarded in the upstream's shape);
- ``drop-thinking-history``: a conversation's history is forwarded without its thinking
  (thinking and redacted thinking blocks, reasoning items, their state), on every path.

What it forwards of a request, on every path: the client's max tokens in the upstream's words
(``max_tokens``, ``max_output_tokens``, ``generationConfig.maxOutputTokens``; Anthropic's
1024 where the client named none, as Anthropic requires one), and on a pass-through the body
as it came with the provider's feature headers (``anthropic-beta``, ``OpenAI-Beta``). Its
request mistakes, as real gateways make them:

- ``request-max-tokens``: the upstream's max tokens replaced by a default of 4096;
- ``request-strip``: sampling, stop sequences, cache markers, ``tool_choice``, structured
  output and the reasoning request removed from the upstream's request;
- ``drop-beta``: ``anthropic-beta`` (and ``OpenAI-Beta``) not forwarded.

Gemini's non-streaming call (``:generateContent``) is answered as a gateway that always
streams upstream answers it: its own streaming route asked on loopback, the stream folded
into one GenerateContentResponse (an upstream failure: an HTTP error in Gemini's shape).
Its mistakes:

- ``stream-for-whole``: the stream is passed on as it came (SSE for a JSON call);
- ``failure-as-answer``: an upstream that failed mid-stream gets answered with 200 and the
  text it had sent, finished with ``STOP``.

The Responses API's WebSocket mode (``GET /v1/responses`` upgraded, :mod:`.websocket`): each
``response.create`` sent upstream as the POST the HTTP path makes of it (every bug of that
path made on it too, ``buffer`` holding every message to the end), its events one JSON text
message each as they arrive, ``generate: false`` answered at once, a response's conversation
kept on the connection for ``previous_response_id``, a failure an ``error`` event with its
status. Its mistakes:

- ``ws-forget``: ``previous_response_id`` not honoured: the chained request forwarded with
  only its new items (a gateway with no per-connection state);
- ``ws-sse-framing``: each event sent as SSE text (``event: T`` / ``data: {...}``) inside
  its message;
- ``ws-bare-close``: an upstream failure (an HTTP error, an error mid-stream, a cut stream)
  closes the socket with 1011 and no ``error`` event;
- ``ws-refuse:CODE``: the upgrade answered with that HTTP status (405, 426, ...), as a
  gateway without the mode answers it.

A conversation's history is forwarded in the upstream's shape, the state the client sends
back put where the upstream verifies it (:mod:`.history`).

A dropped upstream ends a pass-through's stream cleanly there (as Portkey does: the client
takes the cut answer for a whole one); with ``abort-on-drop`` the client's connection is
reset instead (as claude-code-router does: every client raises).

Routing: by model name (as LiteLLM's config does), or, when the request carries
``x-test-provider: DIALECT`` (and ``x-test-upstream: BASE-URL``), by those headers (as
Portkey does), whatever the model.

Serves on 127.0.0.1 only, one thread per request (two per WebSocket connection).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from sseconform.demo import history, websocket
from sseconform.sse import SSEDecoder
from sseconform.translate import encoder_for, serialize, translate_body, translator_for
from sseconform.websocket import mode as wsmode
from sseconform.wires import carries_token, fold

MODELS = {
    "sseconform-anthropic": "anthropic",
    "sseconform-gemini": "gemini",
    "sseconform-responses": "responses",
    "sseconform-openai": "openai",
}


#: The mistakes this gateway can be told to make (``--bug NAME``), each in a line; the
#: module's docstring says more of each. ``die-at:N`` takes a number.
BUGS: dict[str, str] = {
    "lose-token": "the third content delta never reaches the client",
    "wrong-finish": "`length` is reported as `stop`",
    "silent-close": "an upstream failure mid-stream just ends the stream",
    "ok-on-error-status": "an upstream 4xx/5xx before the stream becomes 200 and an error frame",
    "restart": "after a drop mid-stream the upstream is called again, its stream sent again",
    "retry": "an upstream 4xx/5xx before the stream is retried once after its Retry-After",
    "wrong-path": "the upstream is called on a path no provider serves",
    "first-event-only": "the upstream is hung up on after its first read",
    "strip-tag": "the prompt loses the [sseconform:TAG] marker concurrent runs route by",
    "load-corrupt": "under concurrency, every tenth request loses its first content delta",
    "cross-talk": "under concurrency, every tenth request gets another stream's delta",
    "index-per-chunk": "each upstream chunk's calls numbered from 0",
    "index-from-output": "each call takes the upstream's own position for its index",
    "buffer": "every frame held until the upstream's stream ends",
    "hold-args": "a call's argument deltas held and sent in one burst",
    "hold-reasoning": "the thinking held and sent in one burst",
    "hold-first": "nothing sent until the first content (the role chunk held back)",
    "hold-50ms": "each write held 50 ms",
    "drop-keepalive": "the upstream's pings dropped, and no keepalive of its own",
    "cold-start": "the first request waits 1 s before the upstream is called",
    "die-at:N": "it crashes on its Nth request (that connection reset, no more accepted)",
    "drop-block-start": "the first content_block_start never reaches the client",
    "repeat-message-start": "message_start is sent twice",
    "skip-sequence": "a Responses sequence_number skips one, from the third event on",
    "done-differs": "the first response.output_text.done loses its last character",
    "drop-signatures": "every signature_delta dropped (the block's signature empty)",
    "rewrite-signatures": "each signature re-encoded as URL-safe base64 without padding",
    "strip-encrypted": "a reasoning item loses its encrypted_content",
    "drop-tools": "the upstream's request declares none of the client's tools",
    "drop-thinking-history": "a conversation's history forwarded without its thinking",
    "request-max-tokens": "the upstream's max tokens replaced by a default of 4096",
    "request-strip": "sampling, stop, cache markers, tool_choice, structured output and "
    "reasoning removed from the request",
    "drop-beta": "anthropic-beta (and OpenAI-Beta) not forwarded",
    "stream-for-whole": "Gemini's :generateContent answered with the stream as it came",
    "failure-as-answer": "Gemini's :generateContent cut mid-stream answered 200 with STOP",
    "abort-on-drop": "an upstream drop resets the client's connection (a faithful choice)",
    "ws-forget": "WebSocket: previous_response_id not honoured (only the new items forwarded)",
    "ws-sse-framing": "WebSocket: each event sent as SSE text inside its message",
    "ws-bare-close": "WebSocket: an upstream failure closes the socket (1011), no error event",
    "ws-refuse:CODE": "WebSocket: the upgrade answered with that HTTP status (405, 426, ...)",
}


def unknown_bugs(bugs: set[str]) -> list[str]:
    """The names in ``bugs`` this gateway does not know (``die-at:N`` needs a whole N >= 1,
    ``ws-refuse:CODE`` an HTTP status from 200 to 599)."""

    def numbered(b: str, name: str, low: int, high: int) -> bool:
        n = b.removeprefix(name + ":")
        return b.startswith(name + ":") and n.isdigit() and low <= int(n) <= high

    return sorted(
        b
        for b in bugs
        if (b not in BUGS or ":" in b)
        and not numbered(b, "die-at", 1, 10**9)
        and not numbered(b, "ws-refuse", 200, 599)
    )


#: One TLS context for every upstream call: a new one per request costs about 45 ms, which
#: would read as this gateway's own overhead (the upstream is plain HTTP on loopback anyway).
TLS = ssl.create_default_context()
#: The native endpoints this gateway passes through, and the grammar each serves.
NATIVE = {"/v1/messages": "anthropic", "/v1/responses": "responses"}
#: Gemini's streaming call, the model in the path (Gemini CLI's and google-genai's).
GEMINI_CALL = re.compile(r"^/v1beta/models/([^/:]+):streamGenerateContent$")
#: Gemini's non-streaming call.
GEMINI_WHOLE = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")
#: The request headers a non-streaming call's inner streaming request keeps.
KEPT = ("x-test-provider", "x-test-upstream", "x-goog-api-key", "authorization")
#: A grammar's endpoint (the shape of the requests this gateway reads on its path).
ENDPOINT = {"anthropic": "messages", "responses": "responses", "gemini": "gemini"}
#: Where each native grammar is called upstream.
UPSTREAM_PATH = {
    "anthropic": "/v1/messages",
    "responses": "/v1/responses",
    "gemini": "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
}
#: Seconds of its own silence after which the gateway sends a keepalive: above the built-in
#: stall (2 s, which must stay a stall) and below the default silence budget (5 s).
IDLE = 3.0
COMMENT = b": keepalive\n\n"
PING = b'event: ping\ndata: {"type": "ping"}\n\n'


class _Heartbeat:
    """The response's writer, with a keepalive written whenever the stream has been idle
    ``IDLE`` seconds since its last write (each write whole, under a lock, so a keepalive
    never splits an event; none before the first, so none comes before ``message_start``)."""

    def __init__(self, raw: Any, keepalive: bytes) -> None:
        self.raw, self.keepalive = raw, keepalive
        self.lock = threading.Lock()
        self.last: float | None = None  # no keepalive before the stream's first event
        self.stopped = threading.Event()
        threading.Thread(target=self._beat, daemon=True).start()

    def write(self, data: bytes) -> int:
        with self.lock:
            self.last = time.monotonic()
            return int(self.raw.write(data))

    def flush(self) -> None:
        with self.lock:
            self.raw.flush()

    def stop(self) -> None:
        self.stopped.set()

    def _beat(self) -> None:
        while not self.stopped.wait(0.1):
            with self.lock:
                if self.last is None or time.monotonic() - self.last < IDLE:
                    continue
                try:
                    self.raw.write(self.keepalive)
                    self.raw.flush()
                except OSError:  # the client has gone
                    return
                self.last = time.monotonic()


class Gateway:
    def __init__(self, upstream: str, bugs: set[str] | None = None, port: int = 0) -> None:
        self.upstream = upstream.rstrip("/")
        self.bugs = bugs or set()
        self.requests = 0
        self.last_headers: dict[str, str] = {}
        self.in_flight = 0
        self.lock = threading.Lock()
        #: the latest content delta of each stream in flight (cross-talk takes another's)
        self.latest: dict[int, str] = {}
        #: Anthropic signatures served to Gemini clients -> their thinking text: Gemini CLI
        #: keeps no thought part in its history, and Anthropic verifies the text it signed
        self.signed: dict[str, str] = {}
        #: ``die-at:N``: the process "crashes" on its Nth request (that connection reset,
        #: no connection accepted after it)
        died = [int(b.split(":", 1)[1]) for b in self.bugs if b.startswith("die-at:")]
        self.dies_at = died[0] if died else None
        gw = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"
            disable_nagle_algorithm = True  # each write goes out at once, as real servers send

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/v1/responses" and wsmode.wants_websocket(_lower(self)):
                    gw.upgrade(self)
                else:
                    self.send_error(501, f"Unsupported method ({self.command!r})")

            def do_POST(self) -> None:
                self.heartbeat = "drop-keepalive" not in gw.bugs
                try:
                    with gw.counted(self):
                        self.post()
                finally:
                    if isinstance(self.wfile, _Heartbeat):
                        self.wfile.stop()
                        self.wfile = self.wfile.raw

            def post(self) -> None:
                if not gw.arrived(self):
                    return
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?", 1)[0]
                if GEMINI_WHOLE.match(path):
                    gw.handle_whole(self, path, body)
                    return
                native = NATIVE.get(path)
                gemini = GEMINI_CALL.match(path)
                if gemini is not None:  # the model is in the path, not the body
                    native, body = "gemini", {**body, "model": gemini.group(1)}
                    self.heartbeat = False  # a Gemini client fails on any keepalive
                if native is not None:
                    gw.handle_native(self, body, native)
                else:
                    gw.handle(self, body)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a load test's connections are not refused

        self.server = Server(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextlib.contextmanager
    def running(self) -> Iterator[Gateway]:
        t = threading.Thread(target=self.server.serve_forever, daemon=True)
        t.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()

    # -- one request -----------------------------------------------------------------------

    @contextlib.contextmanager
    def counted(self, h: Any) -> Iterator[None]:
        """One request in flight (a WebSocket turn is one too): its number, and whether it
        is one the concurrency bugs corrupt."""
        with self.lock:
            self.requests += 1
            self.in_flight += 1
            number, crowded = self.requests, self.in_flight > 1
        h.corrupt = crowded and number % 10 == 0
        h.number = number
        try:
            yield
        finally:
            with self.lock:
                self.in_flight -= 1
                self.latest.pop(number, None)

    def arrived(self, h: Any) -> bool:
        """The request-count bugs, before anything is read: ``cold-start``'s wait, and
        ``die-at``'s crash (False: the connection was reset)."""
        if "cold-start" in self.bugs and h.number == 1:
            time.sleep(1.0)
        if self.dies_at is not None and h.number >= self.dies_at:
            self.server.socket.close()  # no connection accepted from here on
            _reset(h)
            return False
        return True

    def upgrade(self, h: BaseHTTPRequestHandler) -> None:
        """``GET /v1/responses`` with ``Upgrade: websocket``: the Responses API's WebSocket
        mode (:mod:`.websocket`), or, with ``ws-refuse:CODE``, that status."""
        h.close_connection = True
        refused = websocket.refusal(self.bugs)
        problem = wsmode.handshake_problem(h.command, h.request_version, _lower(h))
        if refused is not None or problem is not None:
            status, why, headers = problem or (refused or 0, "WebSocket mode is not served", [])
            status = refused or status
            if refused == 405:
                headers = [("allow", "POST")]
            error = {"type": "invalid_request_error", "code": None, "message": why}
            body = json.dumps({"error": error}).encode()
            headers += [("content-type", "application/json"), ("content-length", str(len(body)))]
            _head(h, status, [*headers, ("connection", "close")], body)
            return
        accept = wsmode.accept_token(h.headers["sec-websocket-key"])
        upgraded = [("upgrade", "websocket"), ("connection", "Upgrade")]
        _head(h, 101, [*upgraded, ("sec-websocket-accept", accept)])
        sock = h.connection
        sock.setblocking(False)  # what the client sent after its upgrade, already read in
        try:
            ahead = h.rfile.read1(websocket.READ_SIZE) or b""
        except (BlockingIOError, OSError):
            ahead = b""
        finally:
            sock.setblocking(True)
        websocket.Upgraded(self, sock, h.headers, ahead).run()

    def ws_turn(self, h: Any, body: dict[str, Any]) -> None:
        """One WebSocket turn's POST body, answered as ``/v1/responses`` answers a POST
        (onto :class:`.websocket.BridgedTurn`), counted as a request."""
        try:
            with self.counted(h):
                if self.arrived(h):
                    self.handle_native(h, body, "responses")
        finally:
            if isinstance(h.wfile, _Heartbeat):  # its quiet-stream keepalives end with the turn
                h.wfile.stop()
                h.wfile = h.wfile.raw

    def _upstream_request(
        self, dialect: str, body: dict[str, Any], endpoint: str = "chat"
    ) -> tuple[str, dict[str, Any]]:
        """The upstream's request: the client's conversation forwarded in the upstream's
        shape, with the state it sends back where that upstream verifies it
        (:mod:`.history`), its tools, and the thinking it asked for."""
        turns = history.read(endpoint, body, "drop-thinking-history" in self.bugs, self.signed)
        if "strip-tag" in self.bugs:  # a gateway that rewrites the prompt
            for turn in turns:
                for item in turn.items:
                    item.text = re.sub(r"\[sseconform:[^\]]*\]", "", item.text)
        key, conversation = history.write(dialect, turns)
        thinking = history.thinking_config(dialect, body)
        tools = [] if "drop-tools" in self.bugs else _declared(body)
        most = _max_tokens(body)
        sampling, user, cache_key = _sampling(body), _user(body), body.get("prompt_cache_key")
        if dialect == "anthropic":
            up: dict[str, Any] = {"model": "claude", "max_tokens": most or 1024, "stream": True,
                                  key: conversation, **thinking, **sampling}  # fmt: skip
            if user is not None:
                up["metadata"] = {"user_id": user}
            if tools:
                up["tools"] = [{"name": n, "description": d, "input_schema": p}
                               for n, d, p in tools]  # fmt: skip
            return "/v1/messages", up
        if dialect == "gemini":
            up = {key: conversation, **thinking}
            words = {"temperature": "temperature", "top_p": "topP", "top_k": "topK"}
            config = {**up.get("generationConfig", {})}
            config |= {words[k]: v for k, v in sampling.items()}
            if most is not None:
                config["maxOutputTokens"] = most
            if config:
                up["generationConfig"] = config
            if tools:
                up["tools"] = [
                    {
                        "functionDeclarations": [
                            {"name": n, "description": d, "parameters": p} for n, d, p in tools
                        ]
                    }
                ]
            return "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", up
        if dialect == "responses":
            up = {"model": "gpt-x", "stream": True, key: conversation, **thinking}
            up |= {k: v for k, v in sampling.items() if k != "top_k"}
            up |= {k: v for k, v in (("safety_identifier", user), ("prompt_cache_key",
                                     cache_key)) if v is not None}  # fmt: skip
            if most is not None:
                up["max_output_tokens"] = most
            if tools:
                up["tools"] = [{"type": "function", "name": n, "description": d, "parameters": p}
                               for n, d, p in tools]  # fmt: skip
            return "/v1/responses", up
        up = {**body, "model": "gpt-x", "stream": True}
        if endpoint != "chat" or "strip-tag" in self.bugs or "drop-thinking-history" in self.bugs:
            native = ("input", "thinking", "reasoning", "contents", "generationConfig",
                      "max_output_tokens", "max_tokens")  # fmt: skip
            up = {k: v for k, v in up.items() if k not in native + _CHAT_ONLY}
            up = {**up, key: conversation, **thinking}
            up |= {k: v for k, v in sampling.items() if k != "top_k"}
            up |= {k: v for k, v in (("user", user), ("prompt_cache_key", cache_key))
                   if v is not None}  # fmt: skip
            if most is not None:
                up["max_completion_tokens"] = most
        if endpoint != "chat" and tools:
            up["tools"] = [{"type": "function",
                            "function": {"name": n, "description": d, "parameters": p}}
                           for n, d, p in tools]  # fmt: skip
        if "drop-tools" in self.bugs:
            up.pop("tools", None)
        return "/v1/chat/completions", up

    def _route(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> tuple[str, str] | None:
        """The upstream dialect and base URL a request goes to (by its headers, else by its
        model); None, answered 404, for a model it does not know."""
        self.last_headers = dict(h.headers.items())
        dialect = h.headers.get("x-test-provider") or MODELS.get(str(body.get("model")))
        if dialect is None:
            self._json(h, 404, {"error": {"message": f"unknown model {body.get('model')!r}"}})
            return None
        return dialect, h.headers.get("x-test-upstream") or self.upstream

    def handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        routed = self._route(h, body)
        if routed is None:
            return
        dialect, upstream = routed
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        path, up_body = self._upstream_request(dialect, body)
        up_body = _misforwarded(up_body, self.bugs)
        if "wrong-path" in self.bugs:
            path = "/v2/complete"
        attempts = 2 if ("retry" in self.bugs or "restart" in self.bugs) else 1
        started = False
        with httpx.Client(timeout=httpx.Timeout(30.0), verify=TLS) as client:
            for attempt in range(attempts):
                try:
                    with client.stream("POST", upstream + path, json=up_body) as resp:
                        if resp.status_code >= 400:
                            text = resp.read()
                            if attempt + 1 < attempts and "retry" in self.bugs:
                                time.sleep(_retry_after(resp.headers.get("retry-after")))
                                continue
                            if "ok-on-error-status" in self.bugs:
                                self._start(h)
                                err = {"error": {"message": text.decode("utf-8", "replace")}}
                                self._send(h, [err, "[DONE]"])
                                return
                            self._raw(h, resp.status_code, text, _passed(resp))
                            return
                        if not started:
                            self._start(h)
                            started = True
                        self._pipe(h, resp, dialect, usage)
                        return
                except (httpx.RemoteProtocolError, httpx.ReadError):
                    if "restart" in self.bugs and attempt + 1 < attempts:
                        continue  # send the whole stream again: a duplicated prefix
                    if "silent-close" in self.bugs:
                        return
                    self._send(h, [{"error": {"message": "upstream connection lost"}}, "[DONE]"])
                    return

    def handle_native(self, h: BaseHTTPRequestHandler, body: dict[str, Any], dialect: str) -> None:
        """``/v1/messages`` or ``/v1/responses``: the same grammar upstream, passed through
        event by event (a model of another dialect is refused, as a pass-through would)."""
        routed = self._route(h, body)
        if routed is None:
            return
        wanted, upstream = routed
        if wanted != dialect:
            self._translated(h, body, wanted, dialect, upstream)
            return
        path = UPSTREAM_PATH[dialect]
        body = {k: v for k, v in body.items() if dialect != "gemini" or k != "model"}
        if "drop-tools" in self.bugs:
            body = {k: v for k, v in body.items() if k != "tools"}
        if "drop-thinking-history" in self.bugs:
            body = _without_thinking(body)
        body = _misforwarded(body, self.bugs)
        features = {} if "drop-beta" in self.bugs else _features(h)
        pace = _Pacer(h, self.bugs)
        with httpx.Client(timeout=httpx.Timeout(30.0), verify=TLS) as client:
            try:
                with client.stream("POST", upstream + path, json=body, headers=features) as resp:
                    if resp.status_code >= 400:
                        self._raw(h, resp.status_code, resp.read(), _passed(resp))
                        return
                    self._start(h)
                    dec = SSEDecoder()
                    state = {"n": 0, "blocks": 0, "done": 0}
                    for chunk in resp.iter_raw():
                        for ev in dec.feed(chunk):
                            if ev.event == "ping":  # the upstream's keepalive, passed on
                                pace.keepalive(self._native_event(ev, state))
                            else:
                                pace.send(self._native_event(ev, state), carries_token(ev.data))
                    for ev in dec.finish():
                        pace.send(self._native_event(ev, state), carries_token(ev.data))
                    pace.flush()
            except (httpx.RemoteProtocolError, httpx.ReadError):
                pace.flush()  # a dropped upstream: the stream just ends (as Portkey does)
                if "abort-on-drop" in self.bugs:
                    _reset(h)

    def handle_whole(self, h: BaseHTTPRequestHandler, path: str, body: dict[str, Any]) -> None:
        """Gemini's ``:generateContent``: this gateway's own streaming route, asked on
        loopback, its stream folded into one answer (replay's fold: the providers' own); a
        failure becomes an HTTP error, the upstream's status where it had one."""
        inner = path.replace(":generateContent", ":streamGenerateContent") + "?alt=sse"
        headers = {k: v for k, v in h.headers.items() if k.lower() in KEPT}
        with httpx.Client(timeout=httpx.Timeout(30.0)) as client:
            resp = client.post(self.url + inner, json=body, headers=headers)
        if resp.status_code >= 400:
            self._raw(h, resp.status_code, resp.content, _passed(resp))
            return
        if "stream-for-whole" in self.bugs:
            self._raw(h, 200, resp.content)
            return
        whole = fold("gemini", resp.content)
        if whole.status == 200:
            self._raw(h, 200, whole.body)
        elif "failure-as-answer" in self.bugs:
            part = {"content": {"parts": [{"text": _gemini_text(resp.content)}], "role": "model"}}
            self._json(h, 200, {"candidates": [{**part, "finishReason": "STOP", "index": 0}]})
        elif whole.status:
            self._raw(h, whole.status, whole.body)
        else:  # the stream was cut: no answer
            error = {"code": 502, "message": "upstream stream cut", "status": "UNAVAILABLE"}
            self._json(h, 502, {"error": error})

    def _translated(
        self, h: BaseHTTPRequestHandler, body: dict[str, Any], source: str, grammar: str,
        upstream: str,
    ) -> None:  # fmt: skip
        """Another dialect's upstream served in this endpoint's grammar, translated as it
        arrives by sseconform's reference translation (what a correct gateway does)."""
        path, up_body = self._upstream_request(source, body, ENDPOINT[grammar])
        up_body = _misforwarded(up_body, self.bugs)
        with (
            httpx.Client(timeout=httpx.Timeout(30.0), verify=TLS) as client,
            client.stream("POST", upstream + path, json=up_body) as resp,
        ):
            if resp.status_code >= 400:
                self._raw(h, resp.status_code, resp.read(), _passed(resp))
                return
            self._start(h)

            signed = _Signed(self.signed) if grammar == "gemini" else None

            def pieces() -> Iterator[bytes]:  # a drop ends the input: the stream was cut
                try:
                    for piece in resp.iter_raw():
                        if signed is not None:
                            signed.feed(piece)
                        yield piece
                except (httpx.RemoteProtocolError, httpx.ReadError):
                    return

            pace = _Pacer(h, self.bugs)
            for piece in self._encoded(pieces(), source, grammar):
                pace.send(piece, _carries(piece))
            pace.flush()

    def _encoded(self, pieces: Iterator[bytes], source: str, grammar: str) -> Iterator[bytes]:
        """The upstream's stream in ``grammar``: the reference translation, or, with an
        index bug, the chunk frames of each upstream event misnumbered before they are
        encoded (a gateway whose own chat-shaped model numbers the calls wrong, whatever
        grammar it then writes)."""
        if not {"index-per-chunk", "index-from-output"} & self.bugs:
            yield from translate_body(pieces, source, to=grammar)
            return
        t, encoder, dec = (
            translator_for(source, include_usage=True),
            encoder_for(grammar),
            SSEDecoder(),
        )
        assert encoder is not None
        for piece in pieces:
            for ev in dec.feed(piece):
                frames = _misnumbered(t.feed(ev), ev.data, self.bugs)
                yield b"".join(b for f in frames for b in encoder.feed(f))
        frames = [f for ev in dec.finish() for f in t.feed(ev)] + t.finish()
        yield b"".join(b for f in frames for b in encoder.feed(f)) + b"".join(encoder.finish())

    def _native_event(self, ev: Any, state: dict[str, int]) -> bytes:
        """One event, re-serialised, with this gateway's mistakes made on it."""
        state["n"] += 1
        data = ev.data
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            kind = obj.get("type")
            if kind == "content_block_start":
                state["blocks"] += 1
                if state["blocks"] == 1 and "drop-block-start" in self.bugs:
                    return b""
            seq = obj.get("sequence_number")
            if "skip-sequence" in self.bugs and isinstance(seq, int) and seq >= 2:
                obj["sequence_number"] = seq + 1
            if _lose_state(obj, self.bugs):
                return b""
            if kind == "response.output_text.done" and "done-differs" in self.bugs:
                state["done"] += 1
                if state["done"] == 1:
                    obj["text"] = obj["text"][:-1]
            data = json.dumps(obj, separators=(",", ":"))
        name = f"event: {ev.event}\n" if ev.event else ""
        out = f"{name}data: {data}\n\n".encode()
        first = isinstance(obj, dict) and obj.get("type") == "message_start"
        if first and "repeat-message-start" in self.bugs:
            out += out
        return out

    def _pipe(
        self, h: BaseHTTPRequestHandler, resp: httpx.Response, dialect: str, usage: bool
    ) -> None:
        t = translator_for(dialect, include_usage=usage)
        dec = SSEDecoder()
        contents = 0
        pace = _Pacer(h, self.bugs)
        if "first-event-only" in self.bugs:
            first = next(resp.iter_raw(), b"")
            self._send(h, [f for ev in dec.feed(first) for f in t.feed(ev)])
            return
        for chunk in resp.iter_raw():
            for ev in dec.feed(chunk):
                if ev.event == "ping":  # the upstream's keepalive: passed on as a comment
                    pace.keepalive()
                frames = _misnumbered(t.feed(ev), ev.data, self.bugs)
                out = []
                for f in frames:
                    if isinstance(f, dict):
                        if "error" in f and "silent-close" in self.bugs:
                            return
                        ch = (f.get("choices") or [{}])[0]
                        if ch.get("delta", {}).get("content"):
                            contents += 1
                            if contents == 3 and "lose-token" in self.bugs:
                                continue
                            if contents == 1 and self._corrupted(h, "load-corrupt"):
                                continue
                            if contents == 1 and self._corrupted(h, "cross-talk"):
                                other = self._other(h)
                                if other is not None:
                                    ch["delta"]["content"] = other
                            with self.lock:
                                self.latest[getattr(h, "number", 0)] = ch["delta"]["content"]
                        if ch.get("finish_reason") == "length" and "wrong-finish" in self.bugs:
                            ch["finish_reason"] = "stop"
                    out.append(f)
                pace.frames(out)
        frames = [f for ev in dec.finish() for f in t.feed(ev)] + t.finish()
        if (
            any(isinstance(f, dict) and "error" in f for f in frames)
            and "silent-close" in self.bugs
        ):
            return
        pace.frames(frames)
        pace.flush()

    def _corrupted(self, h: BaseHTTPRequestHandler, bug: str) -> bool:
        return bug in self.bugs and bool(getattr(h, "corrupt", False))

    def _other(self, h: BaseHTTPRequestHandler) -> str | None:
        """The latest content delta of another stream in flight (one that differs)."""
        mine = getattr(h, "number", 0)
        with self.lock:
            own = self.latest.get(mine)
            for n, text in self.latest.items():
                if n != mine and text != own:
                    return text
        return None

    # -- writing ---------------------------------------------------------------------------

    @staticmethod
    def _start(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("cache-control", "no-cache")
        h.end_headers()
        h.wfile.flush()
        if getattr(h, "heartbeat", False):
            ping = NATIVE.get(h.path.split("?", 1)[0]) == "anthropic"
            h.wfile = _Heartbeat(h.wfile, PING if ping else COMMENT)  # type: ignore[assignment]

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, frames: list[Any]) -> None:
        data = b"".join(serialize(f) for f in frames)
        if data:
            h.wfile.write(data)
            h.wfile.flush()

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        Gateway._raw(h, status, json.dumps(obj).encode())

    @staticmethod
    def _raw(
        h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        h.send_response(status)
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)


#: What other endpoints' requests hold that a chat upstream has no words for.
_CHAT_ONLY = ("system", "metadata", "instructions", "include", "store", "systemInstruction",
              "safety_identifier", "text", "top_k")  # fmt: skip


def _sampling(body: dict[str, Any]) -> dict[str, Any]:
    """The client's temperature, top_p and top_k, in whichever endpoint's words they came."""
    config = body.get("generationConfig")
    config = config if isinstance(config, dict) else {}
    out: dict[str, Any] = {}
    for key, gemini in (("temperature", "temperature"), ("top_p", "topP"), ("top_k", "topK")):
        value = body.get(key, config.get(gemini))
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = value
    return out


def _user(body: dict[str, Any]) -> str | None:
    """The end user's id: Messages' ``metadata.user_id``, Responses' ``safety_identifier``,
    chat's ``user``."""
    metadata = body.get("metadata")
    for value in (metadata.get("user_id") if isinstance(metadata, dict) else None,
                  body.get("safety_identifier"), body.get("user")):  # fmt: skip
        if isinstance(value, str):
            return value
    return None


def _max_tokens(body: dict[str, Any]) -> int | None:
    """The client's max tokens, in whichever endpoint's words it came."""
    config = body.get("generationConfig")
    inner = config.get("maxOutputTokens") if isinstance(config, dict) else None
    for value in (body.get("max_completion_tokens"), body.get("max_tokens"),
                  body.get("max_output_tokens"), inner):  # fmt: skip
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


#: The provider feature headers a pass-through forwards.
_FEATURES = ("anthropic-beta", "openai-beta")


def _features(h: BaseHTTPRequestHandler) -> dict[str, str]:
    return {k: v for k in _FEATURES if (v := h.headers.get(k))}


#: What ``request-strip`` removes, in every wire's words.
_STRIPPED = frozenset(
    {"temperature", "top_p", "top_k", "stop", "stop_sequences", "tool_choice",
     "response_format", "output_format", "output_config", "reasoning_effort", "reasoning",
     "thinking", "topP", "topK", "stopSequences", "responseMimeType", "responseSchema",
     "responseJsonSchema", "thinkingConfig", "toolConfig"}
)  # fmt: skip


def _misforwarded(body: dict[str, Any], bugs: set[str]) -> dict[str, Any]:
    """The upstream's request as a gateway with the request bugs forwards it."""
    if "request-max-tokens" in bugs:
        body = dict(body)
        config = body.get("generationConfig")
        if isinstance(config, dict):
            body["generationConfig"] = {**config, "maxOutputTokens": 4096}
        elif "max_output_tokens" in body or "input" in body:
            body["max_output_tokens"] = 4096
        else:
            key = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
            body[key] = 4096
    if "request-strip" in bugs:
        body = {k: _uncached(v) for k, v in body.items() if k not in _STRIPPED}
        if isinstance(body.get("generationConfig"), dict):
            config = body["generationConfig"].items()
            body["generationConfig"] = {k: v for k, v in config if k not in _STRIPPED}
        if isinstance(body.get("text"), dict):
            body["text"] = {k: v for k, v in body["text"].items() if k != "format"}
    return body


def _uncached(value: Any) -> Any:
    """``value`` without any ``cache_control``, at any depth."""
    if isinstance(value, list):
        return [_uncached(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {k: _uncached(v) for k, v in value.items() if k != "cache_control"}


def _declared(body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The client's tools (name, description, JSON schema), from its endpoint's shape (chat's
    ``function``, Anthropic's ``input_schema``, Responses' flat ``function``, Gemini's
    ``functionDeclarations``)."""
    out = []
    tools = body.get("tools") or []
    for t in list(tools):  # Gemini's: one tool of function declarations
        if isinstance(t, dict) and isinstance(t.get("functionDeclarations"), list):
            tools = [d for d in tools if d is not t] + t["functionDeclarations"]
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        inner = tool.get("function")
        f: dict[str, Any] = inner if isinstance(inner, dict) else tool
        schema = f.get("parameters", f.get("input_schema", {"type": "object"}))
        out.append((str(f.get("name")), str(f.get("description", "")), schema))
    return out


def _without_thinking(body: dict[str, Any]) -> dict[str, Any]:
    """A history forwarded without its thinking: the assistant turns' thinking and redacted
    thinking blocks, the reasoning items, left out (a gateway that rebuilds the history
    from text and calls alone)."""
    out = dict(body)
    thinking = ("thinking", "redacted_thinking", "reasoning")
    if isinstance(body.get("messages"), list):
        out["messages"] = [
            {**m, "content": [b for b in m["content"] if not isinstance(b, dict)
                              or b.get("type") not in thinking]}
            if isinstance(m, dict) and isinstance(m.get("content"), list) else m
            for m in body["messages"]
        ]  # fmt: skip
    if isinstance(body.get("input"), list):
        out["input"] = [
            it for it in body["input"] if not isinstance(it, dict) or it.get("type") not in thinking
        ]
    if isinstance(body.get("contents"), list):  # Gemini: thought parts and their signatures
        out["contents"] = [
            {**c, "parts": [{k: v for k, v in p.items() if k != "thoughtSignature"}
                            for p in c["parts"] if isinstance(p, dict) and not p.get("thought")]}
            if isinstance(c, dict) and isinstance(c.get("parts"), list) else c
            for c in body["contents"]
        ]  # fmt: skip
    return out


def _lose_state(obj: dict[str, Any], bugs: set[str]) -> bool:
    """The state modes: what a gateway does to the opaque state a client must send back.
    True: leave the event out."""
    delta, block, item = obj.get("delta"), obj.get("content_block"), obj.get("item")
    if isinstance(delta, dict) and delta.get("type") == "signature_delta":
        if "drop-signatures" in bugs:
            return True
        if "rewrite-signatures" in bugs:
            delta["signature"] = _urlsafe(delta["signature"])
    if isinstance(block, dict) and block.get("type") == "thinking" and block.get("signature"):
        if "drop-signatures" in bugs:
            block["signature"] = ""
        elif "rewrite-signatures" in bugs:
            block["signature"] = _urlsafe(block["signature"])
    if isinstance(item, dict) and item.get("type") == "reasoning" and "strip-encrypted" in bugs:
        item.pop("encrypted_content", None)
    for cand in obj.get("candidates") or []:  # Gemini: a part's thoughtSignature
        for part in ((cand or {}).get("content") or {}).get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("thoughtSignature"), str):
                if "drop-signatures" in bugs:
                    del part["thoughtSignature"]
                elif "rewrite-signatures" in bugs:
                    part["thoughtSignature"] = _urlsafe(part["thoughtSignature"])
    return False


def _urlsafe(value: str) -> str:
    return value.replace("+", "-").replace("/", "_").rstrip("=")


def _passed(resp: httpx.Response) -> dict[str, str]:
    """The upstream error's headers a client needs too: when to retry."""
    return {k: v for k, v in resp.headers.items() if k.lower() == "retry-after"}


def _head(
    h: BaseHTTPRequestHandler, status: int, headers: list[tuple[str, str]], body: bytes = b""
) -> None:
    """An upgrade's answer, in HTTP/1.1 whatever the handler speaks (a WebSocket client
    takes no other), and logged nowhere (as every request here)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Status"
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{k}: {v}" for k, v in headers)]
    h.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    h.wfile.flush()


def _lower(h: BaseHTTPRequestHandler) -> dict[str, str]:
    """The request's headers by lower-case name (the last of a repeated one)."""
    return {k.lower(): v for k, v in h.headers.items()}


def _reset(h: BaseHTTPRequestHandler) -> None:
    """Drop the client's connection: a reset, not a clean close (what is written is sent)."""
    h.wfile.flush()
    sock = h.connection
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    h.close_connection = True
    h.wfile = io.BytesIO()  # what the handler flushes after this goes nowhere


class _Signed:
    """Each Anthropic thinking block's text by its signature, read off the upstream's
    stream as it passes (a gateway's signature cache)."""

    def __init__(self, into: dict[str, str]) -> None:
        self.into, self.dec = into, SSEDecoder()
        self.text: dict[int, str] = {}

    def feed(self, piece: bytes) -> None:
        for ev in self.dec.feed(piece):
            try:
                obj = json.loads(ev.data)
            except ValueError:
                continue
            delta = obj.get("delta") if isinstance(obj, dict) else None
            if not isinstance(delta, dict):
                continue
            at = obj.get("index", 0)
            if delta.get("type") == "thinking_delta":
                self.text[at] = self.text.get(at, "") + str(delta.get("thinking", ""))
            elif delta.get("type") == "signature_delta":
                self.into[str(delta.get("signature"))] = self.text.get(at, "")


class _Pacer:
    """When a stream's bytes go out: at once (a faithful gateway), or as the timing bugs hold
    them (``buffer``, ``hold-first``, ``hold-50ms``); the upstream's keepalives go on unless
    ``drop-keepalive``. Every path (chat, Messages, Responses) writes through one."""

    def __init__(self, h: BaseHTTPRequestHandler, bugs: set[str]) -> None:
        self.h, self.bugs = h, bugs
        self.held: list[bytes] = []
        self.content = False

    def frames(self, frames: list[Any]) -> None:
        """Chat frames (serialised here)."""
        self.send(b"".join(serialize(f) for f in frames), any(_has_content(f) for f in frames))

    def send(self, data: bytes, content: bool) -> None:
        """``data``: whole events; ``content``: whether they carry output."""
        if not data:
            return
        if "buffer" in self.bugs:
            self.held.append(data)
            return
        held = ("hold-args", _ARGS), ("hold-reasoning", _REASONING)
        if any(bug in self.bugs and any(m in data for m in marks) for bug, marks in held):
            self.held.append(data)  # sent with what comes after the call (or thinking)
            return
        if self.held and "hold-first" not in self.bugs:
            data, self.held = b"".join(self.held) + data, []
        if "hold-first" in self.bugs and not self.content:
            self.held.append(data)
            self.content = content
            if not content:
                return
            data, self.held = b"".join(self.held), []
        if "hold-50ms" in self.bugs:
            time.sleep(0.05)
        self.h.wfile.write(data)
        self.h.wfile.flush()

    def keepalive(self, data: bytes = COMMENT) -> None:
        if "drop-keepalive" not in self.bugs:
            self.send(data, False)

    def flush(self) -> None:
        data, self.held = b"".join(self.held), []
        if data:
            self.h.wfile.write(data)
            self.h.wfile.flush()


#: What carries a call's arguments (``hold-args``) or thinking (``hold-reasoning``), in any
#: grammar the gateway writes.
_ARGS = (b"input_json_delta", b"function_call_arguments.delta", b'"partialArgs"',
         b'"tool_calls"')  # fmt: skip
_REASONING = (b"thinking_delta", b"reasoning_summary_text.delta", b"reasoning_text.delta",
              b'"reasoning_content"', b'"thought": true', b'"thought":true')  # fmt: skip


def _misnumbered(frames: list[Any], data: str, bugs: set[str]) -> list[Any]:
    """The two call-index bugs gateways ship, made on the chat frames of one upstream event:
    ``index-per-chunk`` numbers the event's calls from 0 (their place in this chunk);
    ``index-from-output`` gives each call the upstream's own position (Anthropic's block
    index, Responses' ``output_index``, the Gemini part's place among its chunk's parts)."""
    if not {"index-per-chunk", "index-from-output"} & bugs:
        return frames
    try:
        obj = json.loads(data)
    except ValueError:
        return frames
    own: list[int] = []  # the upstream's positions of this event's calls, in order
    if isinstance(obj, dict) and "index-from-output" in bugs:
        if isinstance(obj.get("output_index"), int):
            own = [obj["output_index"]]
        elif str(obj.get("type", "")).startswith("content_block") and "index" in obj:
            own = [obj["index"]]
        elif isinstance(obj.get("candidates"), list) and obj["candidates"]:
            parts = (obj["candidates"][0].get("content") or {}).get("parts") or []
            own = [i for i, p in enumerate(parts) if isinstance(p, dict) and "functionCall" in p]
    places: dict[int, int] = {}  # each call's index -> its place among this event's calls
    out = []
    for f in frames:
        choices: list[Any] = (f.get("choices") if isinstance(f, dict) else None) or []
        calls = (choices[0].get("delta") or {}).get("tool_calls") if choices else None
        if not calls:
            out.append(f)
            continue
        moved = []
        for call in calls:
            place = places.setdefault(call.get("index", 0), len(places))
            wrong = own[place] if "index-from-output" in bugs and place < len(own) else place
            moved.append({**call, "index": wrong} if "index-per-chunk" in bugs or own else call)
        delta = {**choices[0]["delta"], "tool_calls": moved}
        out.append({**f, "choices": [{**choices[0], "delta": delta}, *choices[1:]]})
    return out


def _carries(data: bytes) -> bool:
    """Do these whole SSE events carry output (text, reasoning, arguments)?"""
    return any(carries_token(ev.data) for ev in SSEDecoder().feed(data))


def _has_content(frame: Any) -> bool:
    if not isinstance(frame, dict):
        return False
    delta = ((frame.get("choices") or [{}])[0] or {}).get("delta") or {}
    return bool(delta.get("content") or delta.get("tool_calls") or delta.get("reasoning_content"))


def _retry_after(value: str | None) -> float:
    """The seconds a Retry-After asks for (capped at 5 s; 0 when absent or a date)."""
    try:
        return min(max(float(value or 0), 0.0), 5.0)
    except ValueError:
        return 0.0


def _gemini_text(stream: bytes) -> str:
    """The text a Gemini stream had sent (its first candidate's text parts), however it ended."""
    said: list[str] = []
    for ev in SSEDecoder().feed(stream):
        try:
            chunk = json.loads(ev.data)
        except ValueError:
            continue
        candidates = chunk.get("candidates") if isinstance(chunk, dict) else None
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        content = first.get("content") if isinstance(first, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if (
                isinstance(part, dict)
                and isinstance(part.get("text"), str)
                and not part.get("thought")
            ):
                said.append(part["text"])
    return "".join(said)
