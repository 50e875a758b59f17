"""The moments of a Gemini stream the V rules' checks subscribe to.

Each is called with the checker first (``GeminiChecker``: its state, ``c.state``, read
only), then what the moment names. The checker reads each ``GenerateContentResponse`` chunk
and moves the stream's state (``state.py``); the rule decides whether and what to report.
Rules that own a place in a chunk's schema claim its violations (``HOOKS.claims``).

Each moment is typed (:class:`~sseconform.rules.hooks.Moment`): strict mypy checks every
check subscribed to it, and every place the checker fires it, against its arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    from sseconform.rules.catalog import Rule
    from sseconform.sse.decoder import Event
    from sseconform.sse.template import Run

HOOKS = Hooks("gemini")

EVENT_LINE: Moment[Any, [Event, str]] = HOOKS.moment(
    "event-line",
    "(ev, name): an `event:` line (Gemini names no event)",
)
COMMENT_LINE: Moment[Any, [Event, str, int, int]] = HOOKS.moment(
    "comment-line",
    "(ev, text, line, offset): a comment line (`: ...`, its text after the colon) before or "
    "in the chunk ``ev``, or after the last chunk (``ev``: the last), at its line and byte; "
    "the first of those before one chunk",
)
DONE_SENTINEL: Moment[Any, [Event]] = HOOKS.moment(
    "done-sentinel",
    "(ev): a `data: [DONE]`",
)
CHAT_CHUNK: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "chat-chunk",
    "(ev, obj): an OpenAI chat completion chunk",
)
FOREIGN_EVENT: Moment[Any, [Event, str]] = HOOKS.moment(
    "foreign-event",
    "(ev, kind): an Anthropic Messages or Responses API event (its `type`)",
)
ERROR: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "error",
    "(ev, obj): a chunk with an `error` object, which ends the stream",
)
AFTER_END: Moment[Any, [Event]] = HOOKS.moment(
    "after-end",
    "(ev): the first chunk after an error chunk",
)
CANDIDATE_INDEX: Moment[Any, [Event, int, int, str]] = HOOKS.moment(
    "candidate-index",
    "(ev, index, first, pointer): a candidate whose index is not the first candidate's",
)
FINISH: Moment[Any, [Event, str, str]] = HOOKS.moment(
    "finish",
    "(ev, reason, pointer): a candidate's finishReason (a string), each time one is sent",
)
PART_AFTER_FINISH: Moment[Any, [Event, str, Event, str]] = HOOKS.moment(
    "part-after-finish",
    "(ev, reason, finished, pointer): a content part in a chunk after the one that finished "
    "the candidate (``finished``, with ``reason``), in a chunk with no finishReason of its own",
)
ROLE: Moment[Any, [Event, Any, str]] = HOOKS.moment(
    "role",
    "(ev, role, pointer): a candidate content's role, when it is not `model`",
)
TEXT: Moment[Any, [Event, str, bool, str]] = HOOKS.moment(
    "text",
    "(ev, text, thought, pointer): a text part's text (thought: the part is a thought)",
)
PART_KEYS: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "part-keys",
    "(ev, part, pointer): every part, as sent",
)
CALL: Moment[Any, [Event, dict[str, Any], dict[str, Any], str]] = HOOKS.moment(
    "call",
    "(ev, call, part, pointer): a functionCall part that names its function (a new call)",
)
NAMELESS_CALL: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "nameless-call",
    "(ev, call, pointer): a functionCall part without a name, with arguments, that "
    "continues no streamed call (no `willContinue` before it)",
)
USAGE_COUNTS: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "usage-counts",
    "(ev, usage): a chunk's usageMetadata (an object)",
)
USAGE_RUN: Moment[Any, [tuple[str | None, ...], list[list[int]], list[Rule]]] = HOOKS.moment(
    "usage-run",
    "(keys, counts, veto): the usage of a run of chunks the byte lane read, alike but for "
    "their text and counts (keys: each count's top-level key, None for a nested one; counts: "
    "each one's values, chunk by chunk): a rule that would report on one of them adds itself "
    "to ``veto``, and the run goes the full way",
)
TEXT_RUN: Moment[Any, [Run, bool, list[Rule]]] = HOOKS.moment(
    "text-run",
    "(run, thought, veto): the texts of such a run (thought: its parts are thoughts); a rule "
    "that would report on one adds itself to ``veto``",
)
ID_CHANGED: Moment[Any, [Event, str, str, str]] = HOOKS.moment(
    "id-changed",
    "(ev, key, value, before): a modelVersion or responseId other than the first chunk's",
)
ARRAY_FRAMING: Moment[Any, [str, int, int]] = HOOKS.moment(
    "array-framing",
    "(message, offset, line): a JSON-array body (no `alt=sse`) that is not one array of "
    "chunks: a stray byte between elements, an element cut, the array not closed",
)
WHOLE_FRAMING: Moment[Any, [str, int, int]] = HOOKS.moment(
    "whole-framing",
    "(message, offset, line): a non-streaming answer (``:generateContent``) that is not one "
    "JSON object: none, a byte after it, the object cut",
)
END: Moment[Any, []] = HOOKS.moment(
    "end",
    "(): after the last chunk",
)
