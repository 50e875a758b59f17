"""The moments of a Messages stream the A rules' checks subscribe to.

Each is called with the checker first (``AnthropicChecker``: its state, ``c.state``, read
only), then what the moment names. The checker moves the message's state (``state.py``) and
decides what a moment is (a block no event started, an event after the end); the rule
decides whether and what to report. Rules that own a place in an event's schema claim its
violations (``HOOKS.claims``).

Each moment is typed (:class:`~sseconform.rules.hooks.Moment`): strict mypy checks every
check subscribed to it, and every place the checker fires it, against its arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

HOOKS = Hooks("anthropic")

DONE_SENTINEL: Moment[Any, [Event]] = HOOKS.moment(
    "done-sentinel",
    "(ev): a `data: [DONE]`",
)
UNTYPED: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "untyped",
    "(ev, obj): an object without a string `type` that is a chat chunk",
)
UNKNOWN_EVENT: Moment[Any, [Event, str]] = HOOKS.moment(
    "unknown-event",
    "(ev, kind): an event type the Messages API does not have",
)
EVENT_NAME: Moment[Any, [Event, str | None, str]] = HOOKS.moment(
    "event-name",
    "(ev, name, kind): an `event:` line (name, None when absent) other than the data's type",
)
AFTER_END: Moment[Any, [Event]] = HOOKS.moment(
    "after-end",
    "(ev): the first event (not a ping) after message_stop or an error",
)
BEGIN: Moment[Any, [Event, str]] = HOOKS.moment(
    "begin",
    "(ev, kind): the first message event",
)
START_AGAIN: Moment[Any, [Event]] = HOOKS.moment(
    "start-again",
    "(ev): a second message_start",
)
STOP_REASON: Moment[Any, [Event, str]] = HOOKS.moment(
    "stop-reason",
    "(ev, reason): a message_delta's stop_reason (a string)",
)
OUTPUT_TOKENS: Moment[Any, [Event, int, int | None]] = HOOKS.moment(
    "output-tokens",
    "(ev, out, before): a message_delta's cumulative output_tokens (before: the last count "
    "seen, or None)",
)
MESSAGE_STOP: Moment[Any, [Event]] = HOOKS.moment(
    "message-stop",
    "(ev): a message_stop, before its open blocks are closed",
)
ERROR: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "error",
    "(ev, obj): an error event (typed `error`, or an object with `error`)",
)
BLOCK_START: Moment[Any, [Event, int, dict[str, Any], str]] = HOOKS.moment(
    "block-start",
    "(ev, index, block, kind): a content_block_start, before the block opens (kind: its block's"
    " type)",
)
UNKNOWN_BLOCK: Moment[Any, [Event, int, str]] = HOOKS.moment(
    "unknown-block",
    "(ev, index, what): a delta or stop for a block that is not open",
)
UNKNOWN_DELTA: Moment[Any, [Event, str]] = HOOKS.moment(
    "unknown-delta",
    "(ev, kind): a delta type the SDKs do not know",
)
DELTA_MISMATCH: Moment[Any, [Event, str, Block]] = HOOKS.moment(
    "delta-mismatch",
    "(ev, kind, block): the first delta of a type its block does not take",
)
BLOCK_STOP: Moment[Any, [Event, Block]] = HOOKS.moment(
    "block-stop",
    "(ev, block): a content_block_stop of a block that is not a tool's",
)
INPUT_TOO_LARGE: Moment[Any, [Event, Block, str]] = HOOKS.moment(
    "input-too-large",
    "(ev, block, what): a tool input over max_arguments, not parsed",
)
INPUT_EMPTY: Moment[Any, [Event, Block, str]] = HOOKS.moment(
    "input-empty",
    "(ev, block, what): a tool input that is empty at its stop",
)
INPUT_PARSED: Moment[Any, [Event, Block, str, Any]] = HOOKS.moment(
    "input-parsed",
    "(ev, block, what, value): a tool input that parsed, at its stop",
)
INPUT_INVALID: Moment[Any, [Event, str, bool]] = HOOKS.moment(
    "input-invalid",
    "(ev, said, cut): a tool input that did not parse, once the stop reason says whether "
    "max_tokens cut it",
)
END: Moment[Any, []] = HOOKS.moment(
    "end",
    "(): after the last event",
)
