"""The gemini grammar's checker: Gemini's ``GenerateContentResponse`` chunks as
``streamGenerateContent?alt=sse`` sends them (``data:`` lines, no event names, no
terminator; Google writes CRLF), one pass, feed/finish, memory that does not grow with the
stream's length.

Each chunk is parsed once with orjson and validated against
``schemas/gemini/generate-content-response.schema.json`` (an error chunk against
``error.schema.json``); a violation at a place a V rule claims is that rule's finding, any
other is J003. Then the chunk moves the stream's state (``state.CandidateState``): the
candidate's index, its parts in order (text, thoughts, function calls whole or streamed by
Vertex in pieces), its finishReason, usage, the ids. The rules' checks, each in its rule
module, decide what to report, called at the moments of ``hooks.py``. Every finding is
located at the start of the chunk it is about; findings about the end at the last chunk. A
comment line (a wire anomaly of the decoder's) is held until the chunk it sits in or comes
before, the first one Gemini's SDKs cannot read, or the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from sseconform.providers import ANTHROPIC_EVENTS
from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import Rule
from sseconform.rules.delta_template import DeltaTemplate
from sseconform.rules.finding import Finding
from sseconform.rules.gemini import hooks as moment
from sseconform.rules.gemini.hooks import HOOKS
from sseconform.rules.gemini.schemas import ERROR, RESPONSE
from sseconform.rules.gemini.state import CandidateState, FirstCall
from sseconform.rules.lane import Run
from sseconform.rules.native import is_chat_chunk
from sseconform.rules.schema import validator, violations
from sseconform.rules.shared.rules.w003_crlf_framing import RULE as W003
from sseconform.sse import events as kinds
from sseconform.sse.decoder import Anomaly, Event
from sseconform.sse.jsonarray import ArrayReader

__all__ = ["CHECKER", "GeminiChecker"]

#: White space a body may open with before its first event or the array's ``[``.
_LEADING = b"\xef\xbb\xbf \t\r\n"


class GeminiChecker(Checker):
    """The gemini grammar: what google-genai, Gemini CLI and the AI SDK's Google provider
    parse."""

    grammar = "gemini"
    PROVIDER_SENDS = frozenset({W003.code})  # Google writes CRLF
    LANE_CRLF = True

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._s = CandidateState()
        self._valid = validator(RESPONSE).is_valid
        self._valid_error = validator(ERROR).is_valid
        self._at = HOOKS.table(self._enabled)
        #: Without ``alt=sse`` the body is one JSON array of chunks: None until the first
        #: bytes that are not white space say which framing it is
        self._array: ArrayReader | None = None
        self._framed = self.settings.whole
        if self.settings.whole:  # one GenerateContentResponse: said, never guessed
            self._array = ArrayReader(
                self._element, self._whole_problem, self.settings.max_event, single=True
            )
        self._opening = b""
        #: The first comment line since the last chunk, until the chunk after it (only when
        #: a rule checks comments)
        self._comments = moment.COMMENT_LINE.wanted(self._at)
        self._comment: Anomaly | None = None

    @property
    def json_framed(self) -> bool:
        return self._array is not None

    @property
    def state(self) -> CandidateState:
        """The stream's progress (read-only for rules)."""
        return self._s

    # -- the two framings ------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """The next bytes of the body: SSE (``alt=sse``) or one JSON array of chunks."""
        if not self._framed:
            self._opening += data
            body = self._opening.lstrip(_LEADING)
            if not body and len(self._opening) < self.settings.max_line:
                return
            self._framed = True
            data, self._opening = self._opening, b""
            if body[:1] == b"[":
                self._array = ArrayReader(
                    self._element, self._array_problem, self.settings.max_event
                )
        if self._array is None:
            super().feed(data)
            return
        if len(self._head_bytes) < 64:
            self._head_bytes += data[: 64 - len(self._head_bytes)]
        self.bytes += len(data)
        self._array.feed(data)

    def finish(self) -> list[Finding]:
        if not self._framed and self._opening:
            self._framed = True
            super().feed(self._opening)
        if self._array is not None and not self._finished:
            self._array.close()
        return super().finish()

    def _element(self, text: str, offset: int, line: int) -> None:
        """One chunk of a JSON-array body, read as an SSE event's data is."""
        ev = Event(
            text, None, None, None, self._array.elements if self._array else 0, line, offset, 1
        )
        ev.end = offset + len(text.encode())
        self._events([ev])

    def _array_problem(self, message: str, offset: int, line: int) -> None:
        moment.ARRAY_FRAMING.fire(self._at, self, message, offset, line)

    def _whole_problem(self, message: str, offset: int, line: int) -> None:
        moment.WHOLE_FRAMING.fire(self._at, self, message, offset, line)

    # -- comment lines ---------------------------------------------------------------------

    def _anomalies(self, found: list[Anomaly]) -> None:
        if self._comments and self._comment is None:
            self._comment = next((a for a in found if a.kind == kinds.COMMENT), None)
        super()._anomalies(found)

    def lane_template(self) -> DeltaTemplate | None:
        """None while a comment waits for its chunk: the chunk goes the full way."""
        return None if self._comment is not None else super().lane_template()

    def _comment_at(self, ev: Event) -> None:
        a = self._comment
        assert a is not None
        self._comment = None
        moment.COMMENT_LINE.fire(self._at, self, ev, a.detail, a.line, a.offset)

    # -- chunks ----------------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        if self._comment is not None and self._comment.offset < ev.end:
            self._comment_at(ev)
        if self._tmpl is not None and self._by_template(ev):
            return
        self._frame_start = self._emitted
        s = self._s
        at = self._at
        if ev.event is not None:
            moment.EVENT_LINE.fire(at, self, ev, ev.event)
        self._data_lines(ev)
        if ev.data == "[DONE]":
            moment.DONE_SENTINEL.fire(at, self, ev)
            return
        if s.ended is not None:
            if not s.after_end_reported:
                s.after_end_reported = True
                moment.AFTER_END.fire(at, self, ev)
            return
        obj = self._json_object(ev)
        if obj is None:
            return
        if "error" in obj and "candidates" not in obj:
            if not self._valid_error(obj):
                self._schema(ev, ERROR, obj)
            moment.ERROR.fire(at, self, ev, obj)
            s.ended = ev
            return
        if is_chat_chunk(obj):
            moment.CHAT_CHUNK.fire(at, self, ev, obj)
            return
        kind = obj.get("type")
        if type(kind) is str and (kind in ANTHROPIC_EVENTS or kind.startswith("response.")):
            moment.FOREIGN_EVENT.fire(at, self, ev, kind)
            return
        s.chunks += 1
        if not self._valid(obj):
            self._schema(ev, RESPONSE, obj)
        self._chunk(ev, obj)
        self._remember(ev, obj)

    def _schema(self, ev: Event, name: str, obj: dict[str, Any]) -> None:
        for v in violations(name, obj):
            owner = HOOKS.owner(name, v, obj)
            if owner is None:
                self._schema_error(ev, v.message, v.pointer)
            else:
                self.report(owner[0], owner[1], ev, v.pointer)

    def _chunk(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        at = self._at
        for key in ("modelVersion", "responseId"):
            value = obj.get(key)
            if type(value) is str:
                first = s.ids.setdefault(key, value)
                if value != first:
                    moment.ID_CHANGED.fire(at, self, ev, key, value, first)
        feedback = obj.get("promptFeedback")
        if type(feedback) is dict and feedback.get("blockReason"):
            s.blocked = True
        usage = obj.get("usageMetadata")
        if type(usage) is dict:
            thoughts = usage.get("thoughtsTokenCount")
            if type(thoughts) is int and thoughts > s.thoughts_tokens:
                s.thoughts_tokens = thoughts
            moment.USAGE_COUNTS.fire(at, self, ev, usage)
            s.usage.update((k, n) for k, n in usage.items() if type(n) is int)
        candidates = obj.get("candidates")
        if type(candidates) is list:
            for i, c in enumerate(candidates):
                if type(c) is dict:
                    self._candidate(ev, c, f"/candidates/{i}")

    def _candidate(self, ev: Event, c: dict[str, Any], where: str) -> None:
        s = self._s
        at = self._at
        index = c.get("index", 0)
        if type(index) is int:
            if s.index is None:
                s.index = index
            elif index != s.index:
                moment.CANDIDATE_INDEX.fire(at, self, ev, index, s.index, where + "/index")
        reason = c.get("finishReason")
        content = c.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(content) is dict:
            role = content.get("role")
            if role is not None and role != "model":
                moment.ROLE.fire(at, self, ev, role, where + "/content/role")
        if type(parts) is list:
            if parts and s.finished_at is not None and s.finish is not None and reason is None:
                moment.PART_AFTER_FINISH.fire(
                    at, self, ev, s.finish, s.finished_at, where + "/content/parts/0"
                )
            for j, part in enumerate(parts):
                if type(part) is dict:
                    self._part(ev, part, f"{where}/content/parts/{j}")
        if type(reason) is str:
            moment.FINISH.fire(at, self, ev, reason, where + "/finishReason")
            if s.finish is None:
                s.finish = reason
                s.finished_at = ev

    def _part(self, ev: Event, part: dict[str, Any], where: str) -> None:
        s = self._s
        at = self._at
        moment.PART_KEYS.fire(at, self, ev, part, where)
        thought = part.get("thought") is True
        if thought:
            s.thought_parts += 1
        text = part.get("text")
        if type(text) is str:
            moment.TEXT.fire(at, self, ev, text, thought, where + "/text")
        call = part.get("functionCall")
        if type(call) is not dict:
            return
        name = call.get("name")
        if type(name) is str and name:
            if s.first_call is None:
                s.first_call = FirstCall(ev, where, name, "thoughtSignature" in part)
            moment.CALL.fire(at, self, ev, call, part, where + "/functionCall")
            s.streaming_call = call.get("willContinue") is True
        elif s.streaming_call:  # Vertex streams a call's arguments in pieces, then `{}`
            s.streaming_call = call.get("willContinue") is True
        elif "args" in call or "partialArgs" in call:  # an empty one carries nothing
            moment.NAMELESS_CALL.fire(at, self, ev, call, where + "/functionCall")

    # -- the template: text chunks alike but for their text and counts ----------------------

    def _remember(self, ev: Event, obj: dict[str, Any]) -> None:
        """Keep a chunk that found nothing and is one candidate's one text part (no finish,
        no call) as the template of the next ones (rules/delta_template.py): its text and
        its usage counts are the holes."""
        s = self._s
        if (
            not self.settings.memo
            or self._emitted != self._frame_start
            or ev.data_lines != 1
            or ev.event is not None
            or s.finish is not None
        ):
            return
        part = _one_text_part(obj)
        if part is None:
            return
        usage = obj.get("usageMetadata")
        keys = tuple(_counts(usage)) if type(usage) is dict else ()
        memo = _TextMemo(keys, part.get("thought") is True)
        path = ("candidates", 0, "content", "parts", 0, "text")
        self._learn(ev, obj, path, memo, numbers="usageMetadata" if keys else None)

    def _template_take(self, t: DeltaTemplate, run: Run) -> int:
        """A run of text chunks: taken whole when no rule would report on its usage or its
        texts (each says so at the run moments), as the full path would leave the state."""
        s = self._s
        memo: _TextMemo = t.target
        cols = run.numbers
        if s.finish is not None or len(cols) != len(memo.keys):
            return 0
        veto: list[Rule] = []
        moment.USAGE_RUN.fire(self._at, self, memo.keys, cols, veto)
        moment.TEXT_RUN.fire(self._at, self, run, memo.thought, veto)
        if veto:
            return 0
        n = run.n
        s.chunks += n
        if memo.thought:
            s.thought_parts += n
        for key, col in zip(memo.keys, cols, strict=True):
            if key is not None:
                s.usage[key] = col[-1]
                if key == "thoughtsTokenCount":
                    s.thoughts_tokens = max(s.thoughts_tokens, *col)
        return n

    # -- the end ---------------------------------------------------------------------------

    def _end_of_stream(self) -> None:
        if self._comment is not None and self._last is not None:
            self._comment_at(self._last)
        moment.END.fire(self._at, self)


class _TextMemo(NamedTuple):
    """What a text chunk's template carries: each usage count's top-level key (None for a
    nested one), in the data's order, and whether its part is a thought."""

    keys: tuple[str | None, ...]
    thought: bool


def _one_text_part(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The one text part of a chunk of one candidate, with no finish and no call; else None."""
    if obj.keys() - {"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"}:
        return None
    cands = obj.get("candidates")
    if type(cands) is not list or len(cands) != 1 or type(cands[0]) is not dict:
        return None
    if "finishReason" in cands[0]:
        return None
    content = cands[0].get("content")
    parts = content.get("parts") if type(content) is dict else None
    if type(parts) is not list or len(parts) != 1 or type(parts[0]) is not dict:
        return None
    part: dict[str, Any] = parts[0]
    return part if type(part.get("text")) is str and "functionCall" not in part else None


def _counts(node: Any, top: bool = True) -> Iterator[str | None]:
    """Each whole number of a usage object in the data's order: its key at the top level,
    None deeper (what the template's number holes stand for)."""
    items = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
    for key, value in items:
        if type(value) is int and value >= 0:
            yield key if top and type(key) is str else None
        elif type(value) in (dict, list):
            yield from _counts(value, False)


#: What ``rules.grammars`` instantiates for ``--grammar gemini``.
CHECKER = GeminiChecker
