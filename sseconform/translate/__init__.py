"""Reference translators: native provider streams (and off-grammar chat streams) to the
``chat.completion.chunk`` grammar, incrementally.

    translator = sseconform.translate.translator_for("anthropic", include_usage=True)
    for ev in events:                      # sseconform.sse.Event, as decoded
        for frame in translator.feed(ev):  # dict chunks, error frames, or "[DONE]"
            out.write(serialize(frame))
    for frame in translator.finish(): ...

Every translator's output passes ``sseconform check``: the Emitter (base.py) is the only way
out, and it can only build grammar chunks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from itertools import chain
from typing import Any, Protocol

from sseconform import providers
from sseconform.sse import Event, SSEDecoder
from sseconform.translate.anthropic import AnthropicTranslator
from sseconform.translate.base import DONE, Emitter, Frame, loads, serialize
from sseconform.translate.encode import AnthropicEncoder, ChatWriter, Encoder, ResponsesEncoder
from sseconform.translate.gemini import GeminiTranslator
from sseconform.translate.lane import run_lane
from sseconform.translate.openai import OpenAITranslator
from sseconform.translate.responses import ResponsesTranslator
from sseconform.translate.to_gemini import GeminiEncoder

#: The grammars ``translate --to`` writes: chunks, the two ``encode.py`` writes, and Gemini's
#: (``to_gemini.py``).
TARGETS = ("chat", "anthropic", "responses", "gemini")


def encoder_for(target: str) -> Encoder | None:
    """The encoder into ``target`` (None for chat: chunks are written as they are)."""
    if target == "anthropic":
        return AnthropicEncoder()
    if target == "responses":
        return ResponsesEncoder()
    if target == "gemini":
        return GeminiEncoder()
    if target == "chat":
        return None
    raise ValueError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")


__all__ = [
    "DIALECTS",
    "DONE",
    "TARGETS",
    "Frame",
    "Translator",
    "auto_translator",
    "detect_event",
    "error_body_message",
    "serialize",
    "translate_body",
    "translator_for",
]

DIALECTS = providers.DIALECTS


class Translator(Protocol):
    dialect: str

    def feed(self, ev: Event) -> list[Frame]: ...

    def finish(self) -> list[Frame]: ...


_CLASSES: dict[
    str, type[AnthropicTranslator | GeminiTranslator | OpenAITranslator | ResponsesTranslator]
] = {
    providers.ANTHROPIC: AnthropicTranslator,
    providers.GEMINI: GeminiTranslator,
    providers.OPENAI: OpenAITranslator,
    providers.RESPONSES: ResponsesTranslator,
}


def translator_for(
    dialect: str,
    *,
    include_usage: bool = False,
    model: str | None = None,
    created: int = 0,
    raw: bool = False,
) -> Translator:
    """A fresh translator; ``model`` replaces the upstream's model name in every chunk;
    ``created`` is used when the upstream gives no creation time."""
    cls = _CLASSES.get(dialect)
    if cls is None:
        raise ValueError(f"unknown dialect {dialect!r}; dialects: {', '.join(_CLASSES)}")
    emitter = Emitter(include_usage=include_usage, model_override=model, created=created, raw=raw)
    translator: Translator = cls(emitter)
    return translator


def detect_event(ev: Event) -> str | None:
    """The dialect one event belongs to, or None when it says nothing (a ping, a comment)."""
    name = ev.event or ""
    if name.startswith("response."):
        return providers.RESPONSES
    obj = loads(ev.data)
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return providers.RESPONSES
        if kind in ("message_start", "content_block_start", "content_block_delta", "message_delta"):
            return providers.ANTHROPIC
        if kind == "error" and "sequence_number" in obj:
            return providers.RESPONSES
        if kind == "error":
            return providers.ANTHROPIC
    if "candidates" in obj or "usageMetadata" in obj or "promptFeedback" in obj:
        return providers.GEMINI
    kind_of = obj.get("object")
    if "choices" in obj or (isinstance(kind_of, str) and kind_of.startswith("chat.completion")):
        return providers.OPENAI
    if "error" in obj:
        return None  # an error frame alone: the first real event decides
    return None


#: Events the auto translator holds while none names its dialect.
_HOLD = 64


class _Detecting:
    """Holds events until one names the dialect, then hands everything to that translator."""

    dialect = "auto"

    def __init__(
        self, include_usage: bool, model: str | None, default: str, created: int, raw: bool
    ) -> None:
        self._args = (include_usage, model, created, raw)
        self._default = default
        self._held: list[Event] = []
        self._inner: Translator | None = None

    def feed(self, ev: Event) -> list[Frame]:
        if self._inner is None:
            dialect = detect_event(ev)
            self._held.append(ev)
            if dialect is None and len(self._held) < _HOLD:
                return []
            self._start(dialect or self._default)
        assert self._inner is not None
        if self._held:
            out: list[Frame] = []
            for held in self._held:
                out += self._inner.feed(held)
            self._held = []
            return out
        return self._inner.feed(ev)

    def _start(self, dialect: str) -> None:
        self._inner = translator_for(
            dialect,
            include_usage=self._args[0],
            model=self._args[1],
            created=self._args[2],
            raw=self._args[3],
        )
        self.dialect = dialect

    def finish(self) -> list[Frame]:
        if self._inner is None:
            self._start(self._default)
        assert self._inner is not None
        out: list[Frame] = []
        for held in self._held:
            out += self._inner.feed(held)
        self._held = []
        return out + self._inner.finish()


def auto_translator(
    *,
    include_usage: bool = False,
    model: str | None = None,
    default: str = providers.OPENAI,
    created: int = 0,
    raw: bool = False,
) -> Translator:
    """A translator that picks its dialect from the first events that say."""
    return _Detecting(include_usage, model, default, created, raw)


def translate_body(
    chunks: Iterable[bytes],
    dialect: str | None = None,
    *,
    include_usage: bool = False,
    model: str | None = None,
    to: str = "chat",
    fast: bool = True,
) -> Iterator[bytes]:
    """Bytes of a native stream in, bytes of the ``to`` grammar out, incrementally: chunks
    (``chat``), Anthropic Messages events or Responses events (``encode``). A source already
    in the target's grammar is passed through as it is. ``fast``: with the dialect known, take
    plain deltas by the fast lane (:mod:`.lane`; the same bytes out: False is for the tests
    that compare the two)."""
    encoder = encoder_for(to)
    if dialect is None and (fast or encoder is not None):  # a source in the target's grammar
        chunks, dialect = _sniff(chunks)  # passes, fast or not
    if encoder is not None and dialect == providers.GRAMMAR_DIALECT[to]:
        yield from chunks
        return
    if fast and dialect is not None:  # bytes to bytes (an encoder carries usage into its target)
        usage = include_usage or encoder is not None
        t = translator_for(dialect, include_usage=usage, model=model, raw=False)
        if isinstance(t, LANE_SOURCES):
            writer = encoder if encoder is not None else ChatWriter()
            yield from run_lane(chunks, t, writer, partial(_tail, t), MAX_ERROR_BODY)
            return
    if encoder is None:
        for frames in _frame_batches(chunks, dialect, include_usage, model, raw=True):
            out = [f if type(f) is bytes else serialize(f) for f in frames]
            if out:
                yield b"".join(out)
        return
    # the chunk frames go straight into the encoder: no bytes in between
    feed = encoder.feed
    for frames in _frame_batches(chunks, dialect, True, model, raw=False):
        out = [b for f in frames for b in feed(f)]
        if out:
            yield b"".join(out)
    rest = encoder.finish()
    if rest:
        yield b"".join(rest)


#: How much input ``_sniff`` holds while no event names its dialect.
MAX_SNIFF = 1 << 20


def _sniff(chunks: Iterable[bytes]) -> tuple[Iterator[bytes], str | None]:
    """The input again, whole, and its dialect as the auto translator picks it (the first
    event that names one; OpenAI's when 64 events or the whole input went by without);
    None when over ``MAX_SNIFF`` bytes came first (the auto translator reads on)."""
    it = iter(chunks)
    held: list[bytes] = []
    size = seen = 0
    dec = SSEDecoder()
    for chunk in it:
        held.append(chunk)
        size += len(chunk)
        for ev in dec.feed(chunk):
            if ev.end > MAX_SNIFF:  # the same answer however the input is cut
                return chain(held, it), None
            seen += 1
            found = detect_event(ev)
            if found is not None or seen >= _HOLD:
                return chain(held, it), found or providers.OPENAI
        dec.take_anomalies()
        if size > MAX_SNIFF:
            return chain(held, it), None
    for ev in dec.finish():
        if ev.end > MAX_SNIFF:
            return iter(held), None
        seen += 1
        found = detect_event(ev)
        if found is not None or seen >= _HOLD:
            return iter(held), found or providers.OPENAI
    return iter(held), None if size > MAX_SNIFF else providers.OPENAI


def _tail(t: Translator, evs: list[Event], trailing: bytes) -> list[Any]:
    """The frames that end a stream: its last events, then the translator's end, or the
    provider's bare JSON error body when it ended with one (as ``_frame_batches`` does)."""
    tail: list[Any] = [f for ev in evs for f in t.feed(ev)]
    message = None if evs else error_body_message(trailing)
    if message is not None:
        return [*tail, {"error": {"message": message, "type": "upstream_error"}}, DONE]
    return tail + t.finish()


def _frame_batches(
    chunks: Iterable[bytes],
    dialect: str | None,
    include_usage: bool,
    model: str | None,
    *,
    raw: bool,
) -> Iterator[list[Any]]:
    """The chunk frames of each input piece (one list per piece, then the tail)."""
    t = (
        translator_for(dialect, include_usage=include_usage, model=model, raw=raw)
        if dialect
        else auto_translator(include_usage=include_usage, model=model, raw=raw)
    )
    dec = SSEDecoder()
    feed = t.feed
    # The bytes after the last event: a provider's bare JSON error body (before any event,
    # or appended mid-stream as Vertex does) is no SSE event, yet it is how the stream failed.
    trailing = bytearray()
    base = 0  # body offset of trailing[0]
    for chunk in chunks:  # one output piece per input piece: bytes in, bytes out
        trailing += chunk
        evs = dec.feed(chunk)
        if evs:
            del trailing[: evs[-1].end - base]
            base = evs[-1].end
        if len(trailing) > MAX_ERROR_BODY:  # too long to be an error body: stop keeping it
            base += len(trailing)
            trailing.clear()
        frames = [f for ev in evs for f in feed(ev)]
        dec.take_anomalies()
        if frames:
            yield frames
    evs = dec.finish()
    tail: list[Any] = [f for ev in evs for f in feed(ev)]
    message = None if evs else error_body_message(bytes(trailing))
    if message is not None:
        tail += [{"error": {"message": message, "type": "upstream_error"}}, DONE]
    else:
        tail += t.finish()
    if tail:
        yield tail


MAX_ERROR_BODY = 1 << 20
#: The translators the fast lane can drive (every one: each offers its lane methods).
LANE_SOURCES = (AnthropicTranslator, GeminiTranslator, OpenAITranslator, ResponsesTranslator)


def error_body_message(body: bytes) -> str | None:
    """The message of a provider's JSON error body (any dialect's shape); None if not one."""
    text = body.strip()
    if not text.startswith((b"{", b"[")):
        return None
    obj = loads(text.decode("utf-8", "replace"))
    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        obj = obj[0]  # Gemini sometimes wraps the error in a list
    if not isinstance(obj, dict):
        return None
    err = obj.get("error")
    if isinstance(err, dict) and isinstance(err.get("message"), str):
        return str(err["message"])
    if isinstance(err, str):
        return err
    if isinstance(obj.get("message"), str):
        return str(obj["message"])
    return None


def translate_reads(
    reads: Iterable[tuple[float, bytes]],
    dialect: str,
    *,
    status: int = 200,
    include_usage: bool = False,
    model: str | None = None,
    created: int = 0,
    t_error: float = 0.0,
    to: str = "chat",
) -> list[tuple[float, bytes]]:
    """Timed reads of a native body to timed reads of chunks: each chunk leaves when the
    native event it came from arrived, so time to first token survives translation.

    A non-2xx ``status`` means the reads are an error body: the grammar's answer to an
    error before the stream is an error frame then ``[DONE]``, sent at ``t_error``.
    ``to`` other than chat encodes the chunks into that grammar, each piece at its time.
    """
    encoder = encoder_for(to)
    if encoder is not None and dialect == providers.GRAMMAR_DIALECT[to] and 200 <= status < 300:
        return list(reads)
    usage = include_usage or encoder is not None  # an encoder carries usage into its target
    out: list[tuple[float, bytes]] = []
    for when, frames in _timed_frames(reads, dialect, status, usage, model, created, t_error):
        if encoder is None:
            piece = b"".join(serialize(f) for f in frames)
        else:  # the chunk frames straight into the encoder: no bytes in between
            piece = b"".join(b for f in frames for b in encoder.feed(f))
        if piece:
            out.append((when, piece))
    rest = encoder.finish() if encoder is not None else []
    if rest:
        out.append((out[-1][0] if out else t_error, b"".join(rest)))
    return out


def _timed_frames(
    reads: Iterable[tuple[float, bytes]],
    dialect: str,
    status: int,
    include_usage: bool,
    model: str | None,
    created: int,
    t_error: float,
) -> Iterator[tuple[float, list[Frame]]]:
    """The chunk frames of each read, at its time (the tail at the last read's)."""
    if not 200 <= status < 300:
        body = b"".join(b for _, b in reads)
        text = body[:200].decode("utf-8", "replace")
        message = error_body_message(body) or text or f"HTTP {status}"
        error = {"error": {"message": message, "type": "upstream_error", "code": status}}
        yield t_error, [error, DONE]
        return
    t = translator_for(dialect, include_usage=include_usage, model=model, created=created)
    dec = SSEDecoder()
    last = 0.0
    for when, chunk in reads:
        last = when
        for ev in dec.feed(chunk):
            yield when, t.feed(ev)
        dec.take_anomalies()
    yield last, [f for ev in dec.finish() for f in t.feed(ev)] + t.finish()
