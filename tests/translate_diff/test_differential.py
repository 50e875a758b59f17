"""Differential test: the provider's own SDK on a native stream against the ``openai`` SDK on
its translation (issue 3, "Show it works").

For every native stream in ``../shared/real-streams`` whose api is ``anthropic-messages``,
``gemini`` or ``responses``, two views are built, each by real SDK code over real HTTP on
loopback (127.0.0.1, a port the OS picks):

* native: the provider's SDK consumes the native bytes -- ``anthropic``'s
  ``messages.stream().get_final_message()``; ``google-genai``'s
  ``models.generate_content_stream()``, which yields its ``GenerateContentResponse`` types;
  ``openai``'s ``responses.stream()`` accumulator (``get_final_response()``, or the
  ``response.incomplete``/``response.failed`` event's response);
* translated: ``sseconform.translate.translate_body`` turns the same bytes into a chunk
  stream, and ``openai``'s ``chat.completions.stream().get_final_completion()`` consumes it.

Each view is reduced to a :class:`View`: text, reasoning, refusal, the function calls (name
and parsed arguments, in order), the finish reason in OpenAI's names, and the error message
when the stream ended in one. The two must be equal. Where they are not, ``KNOWN`` says so
exactly (field -> SDK value, translated value) and why: either the translator is wrong (the
case is ``xfail(strict=True, raises=TranslatorBug)``, raised only when the difference is
exactly the stated one, so a fix or any other change fails the run), or the SDK's view
differs for the stated reason (the case passes only while the difference is exactly that).

Written against openai 3.52, anthropic 2.11 and google-genai 3.4 (the Gemini cases skip when
google-genai is not installed). The server is this module's own, not ``tests/interop``'s
fixture: that one answers only ``/v1/chat/completions``, and the native SDKs post to
``/v1/messages``, ``/v1/responses`` and ``/v1beta/models/...:streamGenerateContent``.
"""

from __future__ import annotations

import csv
import functools
import itertools
import json
import re
import sys
import threading
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import openai
import pytest

from sseconform.translate import translate_body
from tests.conftest import REAL_STREAMS

HOST = "127.0.0.1"
PIECE = 61  # bytes per write: small and odd, so frames and UTF-8 characters get split
MESSAGES: list[Any] = [{"role": "user", "content": "Hi"}]
APIS = {"anthropic-messages": "anthropic", "gemini": "gemini", "responses": "responses"}

# Files under _edited/ that are not meant to be valid streams. Every other file of the three
# apis is compared, _edited/ or not (the HTTP error bodies too: google-genai reads a bare JSON
# error object in a stream body as an error, and issue 3 wants one turned into an error frame).
_FIREBASE = "_edited/vertex-gemini/firebase-vertexai-streaming-failure-"
NOT_STREAMS: dict[str, str] = {
    f"{_FIREBASE}invalid-json__firebase-vertexai-test-data.sse": (
        "not meant to be a valid stream: a Firebase decode-failure fixture whose one event is "
        '{"this": [{"is": ...}]}, not a GenerateContentResponse'
    ),
    f"{_FIREBASE}malformed-content__firebase-vertexai-test-data.sse": (
        "not meant to be a valid stream: a Firebase decode-failure fixture whose candidate "
        'content is {"missing-parts": true} instead of parts'
    ),
}


# --- the corpus ----------------------------------------------------------------------------


def _corpus() -> list[tuple[str, str]]:
    """(path, dialect) of every stream of the three apis, in manifest order."""
    manifest = REAL_STREAMS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(r["path"], APIS[r["api"]]) for r in rows if r["api"] in APIS]


CORPUS = _corpus()


# --- a loopback server that serves one body to any POST --------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    body = b""
    paths: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # an early hang-up is normal
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    #: each piece goes out at once: with Nagle's algorithm a small write waits for the
    #: client's delayed ACK (40 ms a stream, half a minute over the corpus)
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        body = self.server.body
        for i in range(0, len(body), PIECE):
            piece = body[i : i + PIECE]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    with pytest.MonkeyPatch.context() as mp:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            mp.delenv(var, raising=False)  # loopback must not go through a proxy
        mp.delenv("all_proxy", raising=False)
        httpd = _Server((HOST, 0), _Handler)
        httpd.paths = []
        thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        try:
            yield httpd
        finally:
            httpd.shutdown()
            httpd.server_close()
            thread.join(timeout=5)


def _base(server: _Server) -> str:
    return f"http://{HOST}:{server.server_address[1]}"


# --- what a client ends up with ------------------------------------------------------------


@dataclass
class View:
    text: str = ""
    reasoning: str = ""
    refusal: str = ""
    tools: list[tuple[str, Any]] = field(default_factory=list)  # (name, parsed arguments)
    finish: str | None = None
    error: str | None = None


def _parsed(arguments: str) -> Any:
    """Arguments as JSON; text that is not JSON stays visibly so."""
    try:
        return json.loads(arguments)
    except ValueError:
        return ("not JSON", arguments)


def chat_view(client: openai.OpenAI, server: _Server, native: bytes, dialect: str) -> View:
    """The translated stream through openai's chat accumulator."""
    server.body = b"".join(translate_body([native], dialect))
    view = View()
    final: Any = None
    with client.chat.completions.stream(model="gpt-test", messages=MESSAGES) as stream:
        try:
            final = stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            # the helper refuses these two finish reasons; the completion rides on the error
            final = exc.completion
        except openai.APIError as exc:  # an error frame
            view.error = exc.message
            try:
                final = stream.current_completion_snapshot
            except AssertionError:  # the error came before any chunk
                final = None
    assert server.paths[-1] == "/v1/chat/completions"
    if final is None:
        return view
    assert len(final.choices) <= 1, "the native streams here have one candidate each"
    for choice in final.choices:
        msg = choice.message
        extra = msg.model_extra or {}
        view.text = msg.content or ""
        view.reasoning = extra.get("reasoning_content") or ""
        view.refusal = msg.refusal or ""
        view.tools = [
            (tc.function.name, _parsed(tc.function.arguments)) for tc in msg.tool_calls or []
        ]
        view.finish = choice.finish_reason
    return view


# Anthropic: stop_reason -> OpenAI. The first five are the brief's mapping; pause_turn (a
# server-tool turn paused by the API) and model_context_window_exceeded are the translator's
# documented choices (sseconform/translate/anthropic.py).
ANTHROPIC_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "stop",
    "model_context_window_exceeded": "length",
}


@functools.cache
def _anthropic(base: str) -> anthropic.Anthropic:
    """One client per server: making one loads the CA bundle (40 ms), a stream costs less."""
    return anthropic.Anthropic(base_url=base, api_key="test", max_retries=0)


def anthropic_view(server: _Server, native: bytes) -> View:
    server.body = native
    view = View()
    msg: Any = None
    client = _anthropic(_base(server))
    with client.messages.stream(model="claude-test", max_tokens=1024, messages=MESSAGES) as stream:
        try:
            msg = stream.get_final_message()
        except anthropic.APIStatusError as exc:  # an `event: error`
            body = exc.body if isinstance(exc.body, dict) else {}
            view.error = (body.get("error") or {}).get("message")
            try:
                msg = stream.current_message_snapshot
            except AssertionError:  # the error came before message_start
                msg = None
    assert server.paths[-1] == "/v1/messages"
    if msg is None:
        return view
    for block in msg.content:
        if block.type == "text":
            view.text += block.text
        elif block.type == "thinking":
            view.reasoning += block.thinking
        elif block.type == "tool_use":
            view.tools.append((block.name, block.input))
        # redacted_thinking, server_tool_use, *_tool_result: no chat equivalent
    if msg.stop_reason is not None:
        view.finish = ANTHROPIC_FINISH[msg.stop_reason]
    return view


def responses_view(client: openai.OpenAI, server: _Server, native: bytes) -> View:
    server.body = native
    view = View()
    resp: Any = None
    with client.responses.stream(model="gpt-test", input="Hi") as stream:
        try:
            for event in stream:
                if event.type in ("response.incomplete", "response.failed"):
                    resp = event.response
            if resp is None:
                resp = stream.get_final_response()
        except openai.APIError as exc:  # an `error` event
            view.error = exc.message
    assert server.paths[-1] == "/v1/responses"
    return _response_view(resp, view)


def _response_view(resp: Any, view: View) -> View:
    if resp is None:
        return view
    for item in resp.output or []:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    view.text += part.text
                elif part.type == "refusal":
                    view.refusal += part.refusal
        elif item.type == "reasoning":
            for summary in item.summary or []:
                view.reasoning += summary.text
            for content in item.content or []:
                view.reasoning += content.text
        elif item.type == "function_call":
            view.tools.append((item.name, _parsed(item.arguments)))
    if resp.status == "completed":
        view.finish = "tool_calls" if view.tools else "stop"
    elif resp.status == "incomplete":
        reason = resp.incomplete_details.reason if resp.incomplete_details else None
        view.finish = "content_filter" if reason == "content_filter" else "length"
    elif resp.status == "failed":
        view.error = resp.error.message if resp.error else "failed"
    return view


def responses_terminal_view(client: openai.OpenAI, server: _Server, native: bytes) -> View:
    """The response the terminal event states, as the SDK types it, without the accumulator."""
    server.body = native
    view = View()
    resp: Any = None
    try:
        for event in client.responses.create(model="gpt-test", input="Hi", stream=True):
            if event.type in ("response.completed", "response.incomplete", "response.failed"):
                resp = event.response
    except openai.APIError as exc:
        view.error = exc.message
    return _response_view(resp, view)


# --- Gemini ----------------------------------------------------------------------------------

# Gemini finishReason -> OpenAI: GUIDE §2's list, plus the image variants of the safety blocks.
# Anything else (OTHER, FINISH_REASON_UNSPECIFIED, a value google-genai does not know) has no
# chat equivalent and reads as "stop", the translator's default.
GEMINI_FILTER = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
}

_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]")


def _json_path(path: str) -> list[str | int]:
    """``$.a[0].b`` -> ``["a", 0, "b"]`` (the paths Gemini sends: names and indexes)."""
    assert path.startswith("$"), path
    tokens: list[str | int] = []
    for m in _PATH_TOKEN.finditer(path, 1):
        name, index, quoted = m.groups()
        tokens.append(int(index) if index is not None else (name if name is not None else quoted))
    return tokens


def _put(root: dict[str, Any], path: list[str | int], value: Any, append: bool) -> None:
    """Set (or, for a continued string, extend) the leaf at ``path``, making containers."""
    node: Any = root
    for key, nxt in itertools.pairwise(path):
        empty: Any = [] if isinstance(nxt, int) else {}
        if isinstance(key, int):
            while len(node) <= key:
                node.append(None)
            if node[key] is None:
                node[key] = empty
            node = node[key]
        else:
            node = node.setdefault(key, empty)
    leaf = path[-1]
    if isinstance(leaf, int):
        while len(node) <= leaf:
            node.append(None)
    node[leaf] = node[leaf] + value if append else value


class GeminiCalls:
    """Function calls from google-genai's ``FunctionCall`` parts.

    A whole call is one ``FunctionCall(name, args)``. A streamed one (``partialArgs``) is, as
    google-genai 3.4 gives it, a ``FunctionCall(name=..., will_continue=True)``, then one
    ``FunctionCall(partial_args=[PartialArg(json_path, string_value | number_value |
    bool_value | null_value, will_continue)], will_continue=True)`` per event, then an empty
    ``FunctionCall()``; ``args`` stays None throughout, and ``response.function_calls`` lists
    each of those parts as a call of its own. The SDK types every record but never puts the
    arguments together, so this does, into a dict (strings continued while ``will_continue``),
    independently of the translator's incremental JSON-text builder."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self._open: dict[str, Any] | None = None
        self._string: list[str | int] | None = None  # the string being continued

    def add(self, fc: Any) -> None:
        if fc.name:
            args: dict[str, Any] = dict(fc.args or {})
            self.calls.append((fc.name, args))
            self._open = args if (fc.will_continue or fc.partial_args) else None
            self._string = None
        if self._open is None:
            return
        for rec in fc.partial_args or []:
            path = _json_path(rec.json_path)
            if rec.string_value is not None:
                self._put_string(path, rec.string_value, bool(rec.will_continue))
                continue
            self._string = None
            if rec.number_value is not None:
                _put(self._open, path, rec.number_value, False)
            elif rec.bool_value is not None:
                _put(self._open, path, rec.bool_value, False)
            else:
                _put(self._open, path, None, False)
        if not fc.name and not fc.partial_args and not fc.will_continue:
            self._open = None  # the empty FunctionCall that ends a streamed one

    def _put_string(self, path: list[str | int], value: str, more: bool) -> None:
        assert self._open is not None
        _put(self._open, path, value, append=self._string == path)
        self._string = path if more else None


@functools.cache
def _genai(base: str) -> Any:
    """One google-genai client per server (as :func:`_anthropic`)."""
    from google import genai
    from google.genai import types

    return genai.Client(
        api_key="test", http_options=types.HttpOptions(base_url=base, timeout=30_000)
    )


def gemini_view(server: _Server, native: bytes) -> View:
    from google.genai import errors

    server.body = native
    view = View()
    calls = GeminiCalls()
    client = _genai(_base(server))
    with warnings.catch_warnings():
        # google-genai warns about enum values it does not know (HARM_CATEGORY_TOXICITY,
        # FAKE_ENUM, ...) and keeps them as they are: chatter, not a different view.
        warnings.filterwarnings("ignore", r".* is not a valid \w+$", UserWarning)
        try:
            for resp in client.models.generate_content_stream(model="gemini-test", contents="Hi"):
                fb = resp.prompt_feedback
                if fb is not None and fb.block_reason and not resp.candidates:
                    view.finish = "content_filter"
                for cand in resp.candidates or []:
                    assert cand.index in (None, 0), "one candidate per stream here"
                    for part in (cand.content.parts if cand.content else None) or []:
                        if part.text is not None:
                            if part.thought:
                                view.reasoning += part.text
                            else:
                                view.text += part.text
                        if part.function_call is not None:
                            calls.add(part.function_call)
                    if cand.finish_reason is not None:
                        view.finish = _gemini_finish(cand.finish_reason)
        except errors.APIError as exc:  # an error object in the body
            view.error = exc.message
    assert server.paths[-1].endswith("/models/gemini-test:streamGenerateContent?alt=sse")
    view.tools = calls.calls
    if view.finish == "stop" and view.tools:
        view.finish = "tool_calls"
    return view


def _gemini_finish(reason: Any) -> str:
    name = getattr(reason, "value", reason)
    if name == "STOP":
        return "stop"
    if name == "MAX_TOKENS":
        return "length"
    if name in GEMINI_FILTER:
        return "content_filter"
    return "stop"


# --- known differences -----------------------------------------------------------------------


class TranslatorBug(Exception):
    """Raised, under ``xfail(strict=True, raises=TranslatorBug)``, when a case differs exactly
    as its KNOWN entry says. Any other difference is a plain failure."""


@dataclass(frozen=True, eq=False)
class Text:
    """A long string, stated by how it starts and its length."""

    start: str
    length: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and len(other) == self.length and other.startswith(self.start)

    def __repr__(self) -> str:
        return f"{self.start!r}... ({self.length} characters)"


@dataclass(frozen=True)
class Known:
    """A difference: ``diff`` maps a View field to (SDK value, translated value), exactly."""

    why: str
    diff: dict[str, tuple[Any, Any]]
    translator_bug: bool = False

    def reason(self) -> str:
        said = "; ".join(f"{k}: SDK {a!r} vs translated {b!r}" for k, (a, b) in self.diff.items())
        return f"{self.why} [{said}]"


# Long values of the differences below.
TAXES_TEXT = (
    '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS'
    ' WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes'
)
TAXES_PARTIAL = {
    "filename": "taxes.txt",
    "lines_of_text": [
        "# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",
        "",
        "## INTRODUCTION",
        "",
    ],
}
CATS = "**Cats:**\n\n- **Physical Characteristics:**\n  - Size: Cats come"
QUANTUM = "1. **Definition:**\nQuantum mechanics is a fundamental theory in physics that provides"
AUTUMN = "秋风瑟瑟\uff0c叶落纷纷\uff0c\n西风残照\uff0c寒"  # fullwidth commas
QUOTES = ' Pineapples and "bananas" are two different types of fruit. '

# Why a stream's last event may be missing on the translated side: the WHATWG algorithm
# dispatches an event only at a blank line and drops an unterminated last one (GUIDE §1, §3;
# WPT eventsource/format-data-before-final-empty-line). sseconform's decoder follows it; the
# anthropic SDK does not need that event (stop_reason came in message_delta) and google-genai
# dispatches what is left at EOF. test_differential_terminated shows that nothing else differs.
UNTERMINATED = "the last event has no blank line after it, so the translator never sees it"
NO_MESSAGE_STOP = (
    f"{UNTERMINATED} (message_stop): it reports the stream as cut off before message_stop"
    " (GUIDE §3: not a silent close), while the anthropic SDK takes stop_reason from"
    " message_delta and never needs message_stop"
)
NO_FINISH = (
    "no chunk has a finishReason: google-genai does not look for one, the translator reports"
    " the stream as cut off (GUIDE §3: an error frame, not a silent close)"
)
EARLY_FINISH = (
    "translator bug: these (older Vertex) streams repeat finishReason on every chunk; the"
    " translator finishes the choice at the first one and drops every later chunk"
)
ERROR_BODY = (
    "translator bug: the body is a bare JSON error object (an HTTP error body), which"
    " google-genai raises with its message; the translator's SSE decoder skips the non-`data:`"
    " lines and reports a generic truncation instead of the upstream's error (issue 3: an HTTP"
    " error body becomes an error frame)"
)
BLOCKED_PROMPT = (
    "translator bug: a prompt blocked by promptFeedback.blockReason gets its content_filter"
    " finish chunk and then an error frame ('ended without a finish reason'), because the"
    " blocked choice is never counted as finished"
)
NO_ARGS = (
    "translator bug: a tool_use with no input (input {} and only partial_json '') translates"
    " to arguments '' (not JSON, under finish_reason tool_calls); the anthropic SDK gives {}"
)
TRUNCATED = "the upstream stream ended before message_stop"
NO_FINISH_ERROR = "the upstream stream ended without a finish reason"
LOST_DELTAS = (
    "the Responses SDK takes the text from response.completed's output; the stream's"
    " output_text.delta events do not add up to it, and a chat stream can only carry deltas"
)

A = "anthropic/"
EA = "_edited/anthropic/"
GA = "_edited/gemini/firebase-googleai-streaming-"
VX = "_edited/vertex-gemini/firebase-vertexai-streaming-"
FB = "__firebase-vertexai-test-data.sse"

KNOWN: dict[str, Known] = {
    # -- Anthropic
    f"{EA}spliced-message-start__vercel-ai.sse": Known(
        "a second message starts mid-call: the anthropic SDK splices both into one message"
        " (the second message's blocks reuse indexes 0 and 1, so its JSON lands in the first"
        " call: {'value': 'Spark{'}); the translator stops with an error frame, as GUIDE §3"
        " wants after the first delta (the Vercel AI SDK also refuses the second message)",
        {
            "reasoning": ("I will call the tool.Let me call the tool.", "I will call the tool."),
            "tools": (
                [("test-tool", {"value": "Spark{"}), ("test-tool", {})],
                [("test-tool", ("not JSON", '{"value":"Spark'))],
            ),
            "finish": ("tool_calls", None),
            "error": (None, "the upstream started a new message before the previous one ended"),
        },
    ),
    **{
        path: Known(NO_MESSAGE_STOP, {"finish": (finish, None), "error": (None, TRUNCATED)})
        for path, finish in [
            (f"{A}basic__anthropic-sdk-python.sse", "stop"),
            (f"{A}tool-use__anthropic-sdk-python.sse", "tool_calls"),
            (f"{EA}compaction__anthropic-sdk-python.sse", "stop"),
            (f"{EA}fallback-credit__anthropic-sdk-python.sse", "stop"),
            (f"{EA}fallback__anthropic-sdk-python.sse", "stop"),
            (f"{EA}refusal__anthropic-sdk-python.sse", "content_filter"),
        ]
    },
    f"{A}incomplete-partial-json__anthropic-sdk-python.sse": Known(
        f"{NO_MESSAGE_STOP}; and see KNOWN_TERMINATED",
        {
            "tools": (
                [("make_file", TAXES_PARTIAL)],
                [("make_file", ("not JSON", TAXES_TEXT))],
            ),
            "finish": ("length", None),
            "error": (None, TRUNCATED),
        },
    ),
    # -- Gemini
    **{
        path: Known(
            f"{UNTERMINATED} (the prompt-blocked event): an empty stream to it",
            {"finish": ("content_filter", None), "error": (None, NO_FINISH_ERROR)},
        )
        for path in [
            f"{GA}failure-prompt-blocked-safety{FB}",
            f"{VX}failure-prompt-blocked-safety-with-message{FB}",
        ]
    },
    f"{GA}success-finish-message{FB}": Known(
        f"{UNTERMINATED} (the last text and the finishReason)",
        {
            "text": ("Hello world!", "Hello"),
            "finish": ("stop", None),
            "error": (None, NO_FINISH_ERROR),
        },
    ),
    f"gemini/firebase-googleai-streaming-success-no-content-parts{FB}": Known(
        f"{UNTERMINATED} (the one with the finishReason)",
        {"finish": ("stop", None), "error": (None, NO_FINISH_ERROR)},
    ),
    f"{VX}failure-empty-content{FB}": Known(NO_FINISH, {"error": (None, NO_FINISH_ERROR)}),
    f"{VX}success-quotes-escaped{FB}": Known(
        f"{UNTERMINATED}; and {NO_FINISH}",
        {
            "text": (Text(QUOTES, 273), Text(QUOTES, 236)),
            "error": (None, NO_FINISH_ERROR),
        },
    ),
    f"{VX}failure-error-mid-stream{FB}": Known(
        "Vertex repeats finishReason STOP on every chunk, then appends a bare JSON error: the"
        " google-genai view keeps the STOP it saw and raises the error; the translation waits"
        " for the end of the body to finish (older streams send STOP early), so the error wins"
        " and no finish is claimed for a stream that failed",
        {"finish": ("stop", None)},
    ),
    # -- Responses
    "openai/phase.1__vercel-ai.sse": Known(
        f"{LOST_DELTAS}: the capture kept 4 of the deltas (sequence numbers jump 5 -> 41 and"
        " 52 -> 126); the SDK's text is the two messages' final text",
        {
            "text": (
                Text("Got it \u2014 I\u2019ll quickly check reliable, up-to-date", 1638),
                "Got itHere are a few **AI",
            )
        },
    ),
    "_edited/openai/shell-container.1__vercel-ai.sse": Known(
        f"{LOST_DELTAS}: this hand-made fixture's deltas say 'The command ran successfully.',"
        " its output_text.done and response.completed a longer text",
        {
            "text": (
                Text("The command ran successfully in the container. Here's the output", 190),
                "The command ran successfully.",
            )
        },
    ),
}

KNOWN_TERMINATED: dict[str, Known] = {
    f"{A}incomplete-partial-json__anthropic-sdk-python.sse": Known(
        "a tool call cut by max_tokens: the anthropic SDK parses the partial JSON (jiter, partial"
        " mode) into what it has so far; the chat stream carries the same bytes, which are not"
        " JSON (GUIDE §3: a call cut by `length` is reported as truncated)",
        {"tools": ([("make_file", TAXES_PARTIAL)], [("make_file", ("not JSON", TAXES_TEXT))])},
    ),
    f"{VX}success-quotes-escaped{FB}": Known(NO_FINISH, {"error": (None, NO_FINISH_ERROR)}),
}

# openai's Responses accumulator raises on these streams; see _compare.
ACCUMULATOR_REFUSES: dict[str, str] = {
    # The capture's source replaced every id with capture-id-N, so the response id changes
    # from event to event.
    "github-copilot/id-rotation.1__vercel-ai.sse": "Lifecycle response identity changed.",
    # A client-executed tool_search_call whose call_id differs between added and done.
    "openai/client-tool-search.1__vercel-ai.sse": "Completed output item identity changed.",
}

# SDK warnings that are chatter on a given stream, not a difference.
WARNINGS: dict[str, str] = {
    # xAI's `x_search` tool in response.tools is not an openai tool type: pydantic warns
    # while the accumulator copies the response (to_dict).
    "xai/responses-x-search-tool__vercel-ai.sse": "ignore:Pydantic serializer warnings:UserWarning",
}


# --- the tests -------------------------------------------------------------------------------


def _unterminated(body: bytes) -> bool:
    """Whether the body's last event has no blank line after it: a WHATWG parser (and so the
    translator's decoder) drops that event; some SDKs dispatch it at EOF."""
    lines = re.split(rb"\r\n|\r|\n", body)
    last = next((ln for ln in reversed(lines) if ln), b"")
    return not (len(lines) >= 3 and lines[-1] == b"" and lines[-2] == b"") and (
        last.startswith((b"data:", b"event:"))
    )


def _terminated(body: bytes) -> bytes:
    """The body with its last event ended, in the body's own line ending."""
    eol = b"\r\n" if body.endswith(b"\r\n") or b"\r\n" in body[:4096] else b"\n"
    return body + (eol if body.endswith((b"\n", b"\r")) else eol + eol)


def _params(table: dict[str, Known], only_unterminated: bool = False) -> list[Any]:
    if not CORPUS:
        return [pytest.param("", "", marks=pytest.mark.skip(reason="no ../shared/real-streams"))]
    params = []
    for path, dialect in CORPUS:
        if only_unterminated and not _unterminated((REAL_STREAMS / path).read_bytes()):
            continue
        marks: list[Any] = []
        if path in NOT_STREAMS:
            marks.append(pytest.mark.skip(reason=NOT_STREAMS[path]))
        known = table.get(path)
        if known is not None and known.translator_bug:
            marks.append(
                pytest.mark.xfail(strict=True, raises=TranslatorBug, reason=known.reason())
            )
        if path in WARNINGS:
            marks.append(pytest.mark.filterwarnings(WARNINGS[path]))
        params.append(pytest.param(path, dialect, id=path, marks=marks))
    return params


@pytest.fixture(scope="module")
def oai(server: _Server) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=_base(server) + "/v1", api_key="test", max_retries=0) as client:
        yield client


def _diff(sdk: View, translated: View) -> dict[str, tuple[Any, Any]]:
    a, b = asdict(sdk), asdict(translated)
    return {k: (a[k], b[k]) for k in a if a[k] != b[k]}


def _compare(
    path: str, dialect: str, body: bytes, known: Known | None, server: _Server, oai: openai.OpenAI
) -> None:
    if dialect == "gemini":
        pytest.importorskip("google.genai", reason="google-genai is not installed")
    if dialect == "anthropic":
        sdk = anthropic_view(server, body)
    elif dialect == "gemini":
        sdk = gemini_view(server, body)
    else:
        try:
            sdk = responses_view(oai, server, body)
        except RuntimeError as exc:
            # openai's accumulator insists that ids stay put (the response id across
            # lifecycle events, an item's id and call_id from added to done) and raises
            # otherwise. Its view is then the response the terminal event states.
            if path not in ACCUMULATOR_REFUSES:
                raise
            assert str(exc) == ACCUMULATOR_REFUSES[path]
            sdk = responses_terminal_view(oai, server, body)
    translated = chat_view(oai, server, body, dialect)
    diff = _diff(sdk, translated)
    if known is None:
        assert diff == {}, f"the SDK's view (left) and the translation's (right) differ: {diff}"
        return
    assert diff == known.diff, f"not the known difference ({known.why}): {diff}"
    if known.translator_bug:
        raise TranslatorBug(known.reason())


@pytest.mark.parametrize(("path", "dialect"), _params(KNOWN))
def test_differential(path: str, dialect: str, server: _Server, oai: openai.OpenAI) -> None:
    """The provider's SDK on the native stream == openai's chat accumulator on its translation."""
    body = (REAL_STREAMS / path).read_bytes()
    _compare(path, dialect, body, KNOWN.get(path), server, oai)


@pytest.mark.parametrize(("path", "dialect"), _params(KNOWN_TERMINATED, only_unterminated=True))
def test_differential_terminated(
    path: str, dialect: str, server: _Server, oai: openai.OpenAI
) -> None:
    """Streams whose last event lacks its blank line, with it added: what remains of their
    KNOWN difference once both sides see the same events."""
    body = _terminated((REAL_STREAMS / path).read_bytes())
    _compare(path, dialect, body, KNOWN_TERMINATED.get(path), server, oai)


def test_corpus_compared() -> None:
    """The corpus is there and nearly all of it is compared."""
    if not CORPUS:
        pytest.skip("../shared/real-streams is not present")
    compared: dict[str, int] = {}
    for path, dialect in CORPUS:
        if path not in NOT_STREAMS:
            compared[dialect] = compared.get(dialect, 0) + 1
    assert compared["anthropic"] >= 100
    assert compared["gemini"] >= 100
    assert compared["responses"] >= 90


def test_tables_name_corpus_streams() -> None:
    """No entry of the tables above is stale or misspelt."""
    if not CORPUS:
        pytest.skip("../shared/real-streams is not present")
    paths = dict(CORPUS)
    for table in (KNOWN, KNOWN_TERMINATED, ACCUMULATOR_REFUSES, WARNINGS, NOT_STREAMS):
        assert set(table) <= set(paths), set(table) - set(paths)
    assert all(p.startswith("_edited/") for p in NOT_STREAMS)
    assert all(paths[p] == "responses" for p in ACCUMULATOR_REFUSES)
    for path in KNOWN_TERMINATED:
        assert _unterminated((REAL_STREAMS / path).read_bytes()), path
    for path, known in KNOWN.items():
        unterminated = _unterminated((REAL_STREAMS / path).read_bytes())
        assert unterminated == (UNTERMINATED in known.why), path


def test_unterminated() -> None:
    assert not _unterminated(b"data: 1\n\n")
    assert not _unterminated(b"data: 1\r\n\r\n")
    assert _unterminated(b"data: 1\n")
    assert _unterminated(b"data: 1\r\n")
    assert _unterminated(b"data: 1\n\ndata: 2")
    assert not _unterminated(b'{\n  "error": {}\n}\n')  # not an event: nothing is dropped
    assert _terminated(b"data: 1") == b"data: 1\n\n"
    assert _terminated(b"data: 1\r\n") == b"data: 1\r\n\r\n"


def test_gemini_calls_reference() -> None:
    """The reference assembler of streamed Gemini arguments, on google-genai's own types."""
    types = pytest.importorskip("google.genai.types", reason="google-genai is not installed")

    def part(**kw: Any) -> Any:
        return types.FunctionCall(**kw)

    def rec(path: str, **kw: Any) -> Any:
        return types.PartialArg(json_path=path, **kw)

    calls = GeminiCalls()
    calls.add(part(name="whole", args={"a": [1, {"b": None}]}))
    calls.add(part(name="streamed", will_continue=True))
    calls.add(
        part(partial_args=[rec("$.r.items[0].name", string_value="Lasa", will_continue=True)])
    )
    calls.add(part(partial_args=[rec("$.r.items[0].name", string_value="gna")], will_continue=True))
    calls.add(part(partial_args=[rec("$.r.items[0].n", number_value=2.5)], will_continue=True))
    calls.add(part(partial_args=[rec("$.r.items[1].name", string_value="")], will_continue=True))
    calls.add(part(partial_args=[rec("$.r.ok", bool_value=False)], will_continue=True))
    calls.add(part(partial_args=[rec("$['odd key']", null_value="NULL_VALUE")]))
    calls.add(part())
    calls.add(part(partial_args=[rec("$.late", string_value="ignored")]))  # no call is open
    calls.add(part(name="no_args"))
    assert calls.calls == [
        ("whole", {"a": [1, {"b": None}]}),
        (
            "streamed",
            {
                "r": {"items": [{"name": "Lasagna", "n": 2.5}, {"name": ""}], "ok": False},
                "odd key": None,
            },
        ),
        ("no_args", {}),
    ]
