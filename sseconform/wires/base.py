"""What every wire is asked, and the values its answers are made of.

A *wire* is one JSON format on the wire (chat chunks, Anthropic Messages, Responses, Gemini),
known by a name on each side (``providers.WIRES``: the endpoint a gateway serves, the dialect
an upstream speaks, the grammar its streams are checked against). :class:`Wire` is what the
job modules ask of one: replay folds a stream into its whole answer and checks a history
as the provider does; gate reads the assistant turn and builds the next request, names a
finish or a token count in the wire's own words; inspect shows a native stream's parts; the
state folder reads the opaque state a client must send back. Each wire's module
(``wires/chat.py``, ``messages.py``, ``responses.py``, ``gemini.py``) answers all of it in
one place, so a wire fix touches one file; the loops stay in the job modules.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson

from sseconform.model.partial import PartialJSON
from sseconform.providers import CHAT_FINISH_KNOWN
from sseconform.safetext import printable
from sseconform.sse import SSEDecoder

__all__ = [
    "MAX_BYTES",
    "MAX_PARTS",
    "MAX_PIECES",
    "MAX_TOKENS",
    "NO_ANSWER",
    "PARAMS",
    "Asked",
    "Assistant",
    "EventFilter",
    "Issued",
    "NativePart",
    "PartsView",
    "Refusal",
    "Said",
    "State",
    "StateReader",
    "Token",
    "Whole",
    "Wire",
    "dumps",
    "events",
    "json_or_empty",
    "load_object",
]

# -- values ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Whole:
    """What a non-streaming request gets: an answer, an HTTP error, or nothing (a drop)."""

    status: int  # 200 for an answer; the error's status for a failure; 0 for no answer
    body: bytes = b""

    @property
    def answered(self) -> bool:
        return self.status != 0


NO_ANSWER = Whole(0)


@dataclass(frozen=True)
class Refusal:
    """What the provider answers a request whose history it cannot accept."""

    status: int
    body: bytes
    #: one line for replay's log: what was wrong, and where
    reason: str


@dataclass
class Issued:
    """The state the served recordings hold: what a request may send back."""

    values: set[str] = field(default_factory=set)
    #: Gemini: the names of the function calls whose part carried a thought signature
    signed_calls: set[str] = field(default_factory=set)
    response_ids: set[str] = field(default_factory=set)
    #: Anthropic: each thinking block's signature, and the thinking text it signs (the
    #: provider verifies both: a block sent back with other text is refused)
    thinking: dict[str, str] = field(default_factory=dict)


@dataclass
class Assistant:
    """The assistant turn the gateway's client got, in its endpoint's request shape."""

    #: messages: content blocks; responses: output items; chat: one assistant message
    parts: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # the call ids, in order
    names: list[str] = field(default_factory=list)  # gemini: each call's name (its pairing)
    response_id: str | None = None  # responses: the response it continues


# -- what a request asks ---------------------------------------------------------------------


@dataclass(frozen=True)
class Said:
    """One parameter of a request: what it means (``value``, comparable across wires) and
    how the wire said it (``words``: ``max_completion_tokens 777``)."""

    value: Any
    words: str


#: One stream's filter (:meth:`Wire.unthinking`, :meth:`Wire.uncaching`): an event's JSON
#: in, what is sent instead out (None: the event is left out).
EventFilter = Callable[[dict[str, Any]], dict[str, Any] | None]


class Renumbered:
    """A stream's positions (block or item indexes) with some left out: each kept one moved
    down by how many left out lie before it, as a provider numbers what it sends. The
    first event of a position says whether it goes (:meth:`drop`); events may name
    positions in any order."""

    def __init__(self) -> None:
        self._left_out: set[int] = set()
        self._order: list[int] = []  # the same, sorted: how many lie before a position

    def drop(self, at: int) -> None:
        if at not in self._left_out:
            self._left_out.add(at)
            bisect.insort(self._order, at)

    def __call__(self, at: int) -> int | None:
        """Where position ``at`` goes now (None: left out)."""
        if at in self._left_out:
            return None
        return at - bisect.bisect_left(self._order, at)


#: What a request asks, by the meaning's own names (:data:`PARAMS`), each as its wire said it.
Asked = dict[str, Said]

#: Every parameter a request is read into, in report order, with what it means. A wire says
#: each in its own words (``Wire.carries`` names those it can say at all).
PARAMS: dict[str, str] = {
    "max_output_tokens": "the most tokens the answer may have",
    "temperature": "sampling temperature",
    "top_p": "nucleus sampling",
    "top_k": "top-k sampling",
    "stop": "stop sequences",
    "tool_choice": "which tool the model must call: auto, none, required or tool:NAME",
    "parallel_tool_calls": "whether the model may call several tools at once",
    "structured_output": "the answer's format: json_object, or json_schema with its name",
    "reasoning": "thinking on (true) or off (false)",
    "reasoning_effort": "how hard to think (minimal, low, medium, high)",
    "reasoning_budget": "the thinking budget in tokens",
    "reasoning_summary": "the reasoning summary asked for",
    "reasoning_included": "the encrypted reasoning included for a stateless next turn",
    "cache_markers": "prompt-cache breakpoints, each by its TTL",
    "prompt_cache_key": "the key the provider routes prompt caching by",
    "stream_usage": "token usage asked for at the end of the stream",
    "user": "the end user's id",
    "metadata": "the request's metadata",
    "service_tier": "the service tier",
    "features": "provider feature flags (anthropic-beta, OpenAI-Beta)",
}


def number(value: Any) -> float | None:
    """A JSON number (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def said_number(out: Asked, param: str, value: Any, key: str) -> None:
    """``param`` from a numeric field ``key`` (left out when absent or no number)."""
    n = number(value)
    if n is not None:
        out[param] = Said(n, f"{key} {n:g}")


def said_text(out: Asked, param: str, value: Any, key: str) -> None:
    s = text(value)
    if s is not None:
        out[param] = Said(s, f"{key} {s!r}")


def stop_of(out: Asked, value: Any, key: str) -> None:
    """Stop sequences: one string or a list of them, compared as a set."""
    seqs = [value] if isinstance(value, str) else value
    if isinstance(seqs, list) and all(isinstance(s, str) for s in seqs) and seqs:
        out["stop"] = Said(frozenset(seqs), f"{key} {seqs!r}")


def cache_markers(out: Asked, places: list[tuple[str, Any]]) -> None:
    """Prompt-cache breakpoints: each ``cache_control`` object found at a place (a block,
    a tool, a content part: ``(where, the object)``), by its TTL (Anthropic's default
    ``5m``). The value is the TTLs in order, so a lost marker and a shortened one both show."""
    found: list[tuple[str, str]] = []
    for where, node in places:
        control = node.get("cache_control") if isinstance(node, dict) else None
        if isinstance(control, dict):
            ttl = control.get("ttl")
            found.append((where, ttl if isinstance(ttl, str) else "5m"))
    if found:
        ttls = tuple(t for _, t in found)
        listed = ", ".join(f"{w} ({t})" for w, t in found)
        out["cache_markers"] = Said(ttls, f"cache_control on {listed}")


def blocks_of(value: Any, where: str) -> list[tuple[str, Any]]:
    """Each block of a content list with its place (``system.0``); a string has none."""
    if not isinstance(value, list):
        return []
    return [(f"{where}.{i}", b) for i, b in enumerate(value)]


def messages_places(messages: Any, key: str = "content") -> list[tuple[str, Any]]:
    """Every message's content blocks (and the message itself: a chat message may carry a
    marker of its own), with their places."""
    out: list[tuple[str, Any]] = []
    for i, m in enumerate(messages if isinstance(messages, list) else ()):
        if isinstance(m, dict):
            out.append((f"messages.{i}", m))
            out += blocks_of(m.get(key), f"messages.{i}.{key}")
    return out


def structured(out: Asked, fmt: Any, key: str) -> None:
    """Structured output from an OpenAI-shaped format object (``type`` json_object or
    json_schema, the schema's ``name`` and ``strict`` beside it or under ``json_schema``);
    ``text`` asks for none."""
    if not isinstance(fmt, dict):
        return
    kind = fmt.get("type")
    if kind == "json_object":
        out["structured_output"] = Said(("json_object", None, None), f"{key} json_object")
    elif kind == "json_schema":
        nested = fmt.get("json_schema")
        inner: dict[str, Any] = nested if isinstance(nested, dict) else fmt
        name, strict = text(inner.get("name")), flag(inner.get("strict"))
        words = f"{key} json_schema" + (f" {name!r}" if name else "")
        words += " (strict)" if strict else ""
        out["structured_output"] = Said(("json_schema", name, strict), words)


def metadata_of(out: Asked, value: Any, key: str) -> None:
    if isinstance(value, dict) and value:
        shown = json.dumps(value, sort_keys=True, ensure_ascii=False)
        out["metadata"] = Said(shown, f"{key} {shown[:80]}")


def features_of(out: Asked, headers: dict[str, str], name: str, transport: str = "") -> None:
    """A feature header's comma-separated values, as a set (without those that start with
    ``transport``: a transport's own flag, not a feature the request asks for)."""
    raw = headers.get(name)
    if raw:
        values = frozenset(
            v.strip() for v in raw.split(",")
            if v.strip() and not (transport and v.strip().startswith(transport))
        )  # fmt: skip
        if values:
            out["features"] = Said(values, f"{name}: {', '.join(sorted(values))}")


# -- the opaque state a stream carries -------------------------------------------------------

MAX_TOKENS = 256
MAX_BYTES = 4 * 1024 * 1024
#: Pieces kept of one value streamed in pieces (a signature's deltas): past this the value is
#: cut, as past MAX_BYTES, so a hostile stream of tiny pieces costs bounded memory.
MAX_PIECES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Token:
    """One piece of state: its kind (``wires.state.KINDS``), what it belongs to in words
    (``thinking block 0``), its value, and the frame (1-based) and byte offset that
    completed it."""

    kind: str
    owner: str
    value: str
    frame: int
    offset: int


@dataclass
class State:
    """The state one stream carried, bounded: at most :data:`MAX_TOKENS` pieces and
    :data:`MAX_BYTES` of them (a hostile stream cannot grow the grader's memory);
    ``truncated`` says more came."""

    tokens: list[Token] = field(default_factory=list)
    truncated: bool = False
    size: int = 0

    def add(self, token: Token) -> None:
        if len(self.tokens) >= MAX_TOKENS or self.size + len(token.value) > MAX_BYTES:
            self.truncated = True
            return
        self.tokens.append(token)
        self.size += len(token.value)

    def values(self) -> set[str]:
        return {t.value for t in self.tokens}


#: How a reader hands on a piece of state: kind, owner, value, frame, offset.
Add = Callable[[str, str, str, int, int], None]


class StateReader:
    """One stream's state carriers, read in the wire's own shape: ``feed`` each event that
    may hold state (parsed), ``finish`` hands on what an unfinished stream had begun. The
    base reads nothing (a wire whose carriers are all found by the folder's loose scan)."""

    def wants(self, data: str) -> bool:
        """Must this event be read though it holds none of the wire's state marks (it
        closes what the reader holds open)?"""
        return False

    def feed(self, obj: dict[str, Any], frame: int, offset: int, add: Add) -> None:
        """One event's state."""

    def finish(self, add: Add) -> None:
        """What was begun and never closed."""


# -- a native stream's parts, for the live view ----------------------------------------------

MAX_PARTS = 64
_DELTA_KEYS = ("text", "partial_json", "thinking", "signature", "delta", "arguments")


@dataclass(slots=True)
class NativePart:
    """One block (Anthropic) or output item (Responses)."""

    index: int
    kind: str  # text, tool_use, thinking / message, function_call, reasoning, ...
    label: str  # the tool's name, or the item's id
    frame: int  # where it started
    state: str = "open"  # open -> closed (a block) or done (an item)
    chars: int = 0  # characters streamed into it
    deltas: int = 0


class PartsView:
    """The parts of one native stream as its wire's :meth:`Wire.native` reads them: the
    first :data:`MAX_PARTS` kept, the rest only counted."""

    def __init__(self, word: str) -> None:
        self.word = word  # "blocks" or "items"
        self.parts: dict[int, NativePart] = {}
        self.more = 0  # parts past MAX_PARTS, counted only
        self.status = ""  # the message's or the response's own state (stop reason, status)

    def open(self, index: Any, kind: Any, label: Any, frame: int) -> None:
        if type(index) is not int:
            return
        if index not in self.parts and len(self.parts) >= MAX_PARTS:
            self.more += 1
            return
        self.parts[index] = NativePart(
            index, printable(str(kind)), printable(str(label or "")), frame
        )

    def part(self, index: Any) -> NativePart | None:
        return self.parts.get(index) if type(index) is int else None

    def grow(self, index: Any, delta: Any) -> None:
        part = self.part(index)
        if part is None:
            return
        part.deltas += 1
        if isinstance(delta, str):
            part.chars += len(delta)
        elif isinstance(delta, dict):
            part.chars += sum(len(v) for k in _DELTA_KEYS if isinstance(v := delta.get(k), str))


# -- the wire --------------------------------------------------------------------------------


class Wire:
    """One wire format, and everything the job modules ask of it. Each wire's module
    subclasses it once; ``sseconform.wires`` holds the four, keyed by every name."""

    #: what a gateway serves (gate --endpoint), what an upstream speaking it is (replay,
    #: translate's readers), what its streams are checked against (check --grammar)
    endpoint: str
    dialect: str
    grammar: str
    #: where the answer says why it ended, and the token counts by their chat names as this
    #: wire names them (None: the wire has no such count)
    finish_field: str
    usage_names: ClassVar[dict[str, str | None]] = {}
    #: the agent whose requests the endpoint's built-in scenarios ask as (its parameters,
    #: not its prompt), measured: tests/interop/heavy/agent_requests.json
    agent: ClassVar[str] = ""
    #: how that agent asks for thinking and for the state it must send back on its next turn
    reasoning_request: ClassVar[dict[str, Any]] = {}
    #: whether it asks so on every request (Claude Code, Codex and Gemini CLI do), or only
    #: where a scenario asks for thinking
    agent_reasons: ClassVar[bool] = False
    #: what a request body must hold for :meth:`check_history` to have anything to read
    history_marks: tuple[bytes, ...] = ()
    #: what a request body must hold to bring back this wire's state or a tool result
    returning_marks: tuple[bytes, ...] = ()
    #: what an event must hold to carry state :meth:`state_reader` reads (a cheap test
    #: before a parse)
    state_marks: tuple[str, ...] = ()
    #: whether a gateway's loose carriers (a Gemini signature in a block's
    #: ``provider_specific_fields``, a call's ``thought_signature``) are looked for by their
    #: text; a wire whose reader parses them where they stand says no
    loose_state = True
    #: a native stream's parts for the live view ("blocks", "items"); "" when it has none
    native_word = ""

    # -- a stream, whole ---------------------------------------------------------------------

    def fold(self, events: Iterable[tuple[str | None, Any]]) -> Whole:
        """The non-streaming answer the provider gives for this stream's events."""
        raise NotImplementedError

    def error_answer(self, err: Any) -> Whole:
        """The HTTP error that stands for an in-band one: the same error object, in the
        wire's HTTP error body, with the status its type implies."""
        raise NotImplementedError

    # -- a request ---------------------------------------------------------------------------

    #: the parameters (:data:`PARAMS`) the wire can say at all: only these are compared
    #: between a client's request and what reached an upstream of this wire
    carries: ClassVar[frozenset[str]] = frozenset()
    #: the parameters the wire's provider refuses a request without (a gateway must add one)
    requires: ClassVar[frozenset[str]] = frozenset()

    def read_request(self, obj: dict[str, Any], headers: dict[str, str]) -> Asked:
        """What a request (its body parsed, its headers by lower-case name) asks, in the
        meaning's own names, each as this wire said it."""
        return {}

    def request_body(
        self, model: str, prompt: str, tools: list[str] | None, about: str
    ) -> dict[str, Any]:
        """A first turn as :attr:`agent` sends it, in the wire's request shape: ``prompt`` as
        the user's message, ``tools`` declared where given (each described as ``about``,
        taking any object), a stream and its usage asked for, and the agent's own
        parameters (its thinking apart: :attr:`reasoning_request`)."""
        raise NotImplementedError

    def fit(self, body: dict[str, Any], own: dict[str, Any]) -> None:
        """Make ``body`` one the provider takes after a scenario's own settings (``own``)
        went in, as the agent does: only what ``own`` did not say itself is changed."""

    def client_headers(self, key: str | None) -> list[tuple[str, str]]:
        """The headers the wire's SDKs send with a key (the key as a bearer token; a wire
        with a header of its own adds it)."""
        return [("authorization", f"Bearer {key}")] if key else []

    # -- a conversation ----------------------------------------------------------------------

    def check_history(self, obj: dict[str, Any], issued: Issued) -> Refusal | None:
        """None when the provider accepts the request's history (parsed)."""
        return None

    def refuse(self, obj: dict[str, Any]) -> Refusal | None:
        """What the provider refuses of a request (parsed) before reading its history: a
        parameter it requires missing, values it does not take together. None: taken."""
        return None

    #: the top-level fields of this wire's request: a field another wire's request has and
    #: this one's has not is refused (:meth:`unknown_fields`), as a gateway that leaves one
    #: in the body it forwards is refused by the provider
    request_fields: ClassVar[frozenset[str]] = frozenset()

    def unknown_fields(self, names: list[str]) -> Refusal | None:
        """The provider's refusal of a request with fields it has no name for, in its words."""
        return None

    #: whether a call's arguments can stream in this wire's grammar (in deltas), or come
    #: whole in one event (Gemini's ``functionCall``)
    streams_arguments: ClassVar[bool] = True
    #: the request key that holds the conversation: a body without it is no request of
    #: this wire's provider (a bare test request), answered with the recording as it is
    conversation: ClassVar[str] = "messages"
    #: whether the provider's answer shows its thinking when the request says nothing of
    #: it (Anthropic and Gemini show it only when asked; a chat or Responses reasoning
    #: model shows what it shows unasked)
    thinks_unasked: ClassVar[bool] = True

    def shows_thinking(self, obj: dict[str, Any], asked: Asked) -> bool:
        """Whether the provider's answer to this request (parsed; ``asked``: what
        :meth:`read_request` read of it) shows its thinking: what the request says (thinking
        off says no), else :attr:`thinks_unasked`."""
        said = asked.get("reasoning")
        return self.thinks_unasked if said is None else bool(said.value)

    def unthinking(self) -> EventFilter | None:
        """A filter of one stream's events into the answer the provider gives a request
        that did not ask for thinking: the thinking left out, the positions after it
        renumbered (None: this wire's answers carry none to leave out)."""
        return None

    def reads_cache(self, asked: Asked) -> bool:
        """Whether the provider reads this request's prompt from its cache (``asked``: what
        :meth:`read_request` read of it). OpenAI's and Gemini's caching is automatic, so
        a recording's cache reads stand whatever the request says; Anthropic's (messages)
        reads only up to a ``cache_control`` breakpoint."""
        return True

    def uncaching(self) -> EventFilter | None:
        """A filter of one stream's events into the answer the provider gives a request
        it does not read from its cache (:meth:`reads_cache`): no cache reads or writes,
        every prompt token counted as input (None: this wire's caching is automatic)."""
        return None

    def ask_cache(self, body: dict[str, Any]) -> None:
        """Mark ``body`` (this wire's request) for the prompt cache as its clients do, where
        the wire has a word for it (messages: Claude Code's breakpoints are in every
        request already; chat: a ``cache_control`` part, as LiteLLM, Portkey and
        OpenRouter take it to Anthropic); nothing where it has none (Responses, Gemini)."""

    def issue(self, issued: Issued, body: bytes, data: list[str]) -> None:
        """What a served stream (its body, each event's data) issues beyond its state tokens:
        what :meth:`check_history` verifies besides them."""

    def tool_results(self, obj: dict[str, Any]) -> int:
        """How many tool results a request (parsed) carries, in the wire's shape."""
        return 0

    def assistant_turn(self, objs: list[dict[str, Any]]) -> Assistant:
        """The assistant turn a client of this wire reads out of its answer's objects."""
        raise NotImplementedError

    def next_body(
        self, previous: dict[str, Any], answer: Assistant, text: str, history: str
    ) -> dict[str, Any]:
        """``previous`` with the assistant turn and a tool result (``text``) per call."""
        raise NotImplementedError

    # -- a stream, event by event ------------------------------------------------------------

    def carries_token(self, obj: dict[str, Any]) -> bool:
        """Does this event carry generated output (text, reasoning, a refusal, tool
        arguments)? Role-only chunks, pings and metadata don't: time to first token is to the
        first meaningful delta."""
        return False

    def state_reader(self) -> StateReader:
        return StateReader()

    def label(self, obj: dict[str, Any]) -> tuple[str, bool]:
        """A short name for an untyped event on a timeline, and whether it carries content
        (text, reasoning, a call's name or arguments): what time to first token waits for."""
        return "chunk", False

    def native(self, parts: PartsView, kind: str, obj: dict[str, Any], frame: int) -> None:
        """One typed native event folded into the live view's parts."""

    # -- words -------------------------------------------------------------------------------

    def finish_value(self, reason: str | None) -> str | None:
        """A chat ``finish_reason`` as this wire writes it: ``end_turn``, or ``incomplete
        (max_output_tokens)``. A value no chat client knows is shown as it came, never
        folded into the wire's default."""
        if reason is None or reason not in CHAT_FINISH_KNOWN:
            return reason
        return self.finish_word(reason)

    def finish_word(self, reason: str) -> str:
        """A known chat ``finish_reason`` in this wire's words."""
        return reason

    def usage_key(self, key: str) -> str | None:
        """A chat usage count's name here; None when the wire has no such count."""
        return self.usage_names.get(key, key)


# -- shared helpers --------------------------------------------------------------------------

#: A declared tool's parameters in the first turn: any object.
ANY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def events(body: bytes) -> Iterator[tuple[str | None, Any]]:
    """Each dispatched event's name and parsed data, one at a time (a fold keeps what it
    needs of each, not every parsed event: a long stream's objects would outweigh the
    answer); unparsable data is skipped: the answer is what a client could make of the
    stream, as the SDKs make it."""
    dec = SSEDecoder()
    for ev in itertools.chain(dec.feed(body), dec.finish()):
        try:
            data = orjson.loads(ev.data) if ev.data.strip() != "[DONE]" else "[DONE]"
        except orjson.JSONDecodeError:
            continue
        yield ev.event, data


def load_object(data: str) -> dict[str, Any]:
    """An event's data as a JSON object; ``{}`` for anything else."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return {}
    return obj if isinstance(obj, dict) else {}


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """A list where one was expected (a request whose history is no list has none)."""
    return value if isinstance(value, list) else []


def json_or_empty(text: str) -> Any:
    """A tool call's input: its JSON, or what partial-JSON reading makes of JSON cut short (a
    ``max_tokens`` stop can end a call mid-value), as anthropic-sdk reads it."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        partial = PartialJSON()
        partial.feed(_without_open_string(text))
        value = partial.value()
        return value if isinstance(value, dict) else {}


def _without_open_string(text: str) -> str:
    """The text without a string it leaves open: an unfinished string value is left out,
    as anthropic-sdk's partial reading (jiter, no trailing strings) leaves it out."""
    start, inside, escaped = 0, False, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif inside and ch == "\\":
            escaped = True
        elif ch == '"':
            inside = not inside
            start = i
    return text[:start] if inside else text


#: OpenAI's reasoning models, by the model a request names (a provider prefix before a
#: slash allowed): the o-series and the GPT-5 family.
OPENAI_REASONING = re.compile(r"(?:^|/)(?:o[1-9]|gpt-5)(?:$|[-.])")
#: Those whose temperature is fixed at 1 whatever the effort: the o-series and GPT-5 itself
#: (gpt-5, -mini, -nano, -codex); GPT-5.1 and later take one when the effort is ``none``.
OPENAI_FIXED_TEMPERATURE = re.compile(r"(?:^|/)(?:o[1-9]|gpt-5)(?:$|-)")


def fixed_temperature(model: Any, effort: Any) -> bool:
    """Whether OpenAI refuses a ``temperature`` other than 1 for this model and effort."""
    if not isinstance(model, str) or not OPENAI_REASONING.search(model):
        return False
    return bool(OPENAI_FIXED_TEMPERATURE.search(model)) or effort not in (None, "none")


def openai_error(
    message: str, code: str | None, param: str | None = None, status: int = 400
) -> Refusal:
    """OpenAI's refusal of a request (chat and Responses answer alike)."""
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return Refusal(status, json.dumps({"error": error}).encode(), message)


def openai_error_answer(err: Any) -> Whole:
    """OpenAI's HTTP error for an in-band one (chat and Responses answer alike)."""
    err = err if isinstance(err, dict) else {"message": str(err)}
    code = err.get("code")
    status = 429 if code == "rate_limit_exceeded" or err.get("type") == "requests" else 500
    shaped = {
        "message": err.get("message", ""),
        "type": err.get("type", "server_error"),
        "param": err.get("param"),
        "code": code,
    }
    return Whole(status, dumps({"error": shaped}))
