"""The moments of a chat stream the chat rules' checks subscribe to.

Each is called with the checker first (``StreamChecker``: its state read through its public
properties; a choice's and a call's state are ``state.Choice`` and ``state.Call``), then what
the moment names. The checker moves the state and decides what a moment is (a call whose
index moved, a chunk after its choice's finish); the rule decides whether and what to
report. Rules that own a place in a frame's schema claim its violations (``HOOKS.claims``,
with the schema's name as the kind). The two frames nearly every long stream is made of (a
content delta, the next arguments fragment) take the template fast path and reach no moment:
they can break no rule.

Each moment is typed (:class:`~sseconform.rules.hooks.Moment`): strict mypy checks every
check subscribed to it, and every place the checker fires it, against its arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    import orjson

    from sseconform.rules.chat.state import Call, CallHead, Choice
    from sseconform.rules.usage import Tokens
    from sseconform.sse.decoder import Event

HOOKS = Hooks("chat")

AFTER_DONE: Moment[Any, [Event]] = HOOKS.moment(
    "after-done",
    "(ev): the first event after `data: [DONE]`",
)
EVENT_NAME: Moment[Any, [Event, str]] = HOOKS.moment(
    "event-name",
    "(ev, name): an `event:` line on chat output",
)
DATA_AFTER_ERROR: Moment[Any, [Event, Event]] = HOOKS.moment(
    "data-after-error",
    "(ev, err): data, not [DONE], after the error frame err",
)
NATIVE_PAYLOAD: Moment[Any, [Event, str]] = HOOKS.moment(
    "native-payload",
    "(ev, what): a provider's native event as the frame",
)
UNKNOWN_KEY: Moment[Any, [Event, str, object, str]] = HOOKS.moment(
    "unknown-key",
    "(ev, key, value, pointer): a key OpenAI does not send, its value, where it is",
)
HEAD_CHANGED: Moment[Any, [Event, str, Any, Any, Any]] = HOOKS.moment(
    "head-changed",
    "(ev, field, new, first, previous): the chunk's id, model or created differs from the one "
    "before (first: the first chunk's)",
)
USAGE_CHUNK: Moment[Any, [Event]] = HOOKS.moment(
    "usage-chunk",
    "(ev): the usage chunk (usage and no choices)",
)
USAGE: Moment[Any, [Event, Any, Tokens | None, bool]] = HOOKS.moment(
    "usage",
    "(ev, usage, tokens, again): a usage object (tokens: usage.read_usage of it when it is an "
    "object, else None; again: one came before)",
)
USAGE_WITH_CHOICES: Moment[Any, [Event]] = HOOKS.moment(
    "usage-with-choices",
    "(ev): usage on a chunk that has choices",
)
CHOICES_EMPTY: Moment[Any, [Event]] = HOOKS.moment(
    "choices-empty",
    "(ev): `choices: []` on a chunk that is not the usage chunk",
)
CHOICE_ADDED: Moment[Any, [Event, int, int, int]] = HOOKS.moment(
    "choice-added",
    "(ev, pos, idx, expected): the first chunk of a choice",
)
AFTER_FINISH: Moment[Any, [Event, int, Choice, Any]] = HOOKS.moment(
    "after-finish",
    "(ev, pos, choice, fr): a chunk for a choice after its finish chunk",
)
DELTA: Moment[Any, [Event, int, Choice, dict[str, Any]]] = HOOKS.moment(
    "delta",
    "(ev, pos, choice, delta): a choice's non-empty delta",
)
FIRST_DELTA: Moment[Any, [Event, Choice, dict[str, Any], bool]] = HOOKS.moment(
    "first-delta",
    "(ev, choice, delta, fin): a choice's first delta",
)
ROLE_REPEATED: Moment[Any, [Event, int, Choice]] = HOOKS.moment(
    "role-repeated",
    "(ev, pos, choice): the first later delta of a choice with a role and content",
)
ROLE_RESTART: Moment[Any, [Event, int, Choice]] = HOOKS.moment(
    "role-restart",
    "(ev, pos, choice): a role-only delta after a choice's content began",
)
TOOL_DELTA: Moment[Any, [Event, str, dict[str, Any]]] = HOOKS.moment(
    "tool-delta",
    "(ev, where, tc): a tool-call delta, as sent",
)
CALL_CONTINUED: Moment[Any, [Event, str, int, Call]] = HOOKS.moment(
    "call-continued",
    "(ev, where, idx, call): a head-less fragment under a new index that continues call (the "
    "index moved mid-call)",
)
CALL_MOVED: Moment[Any, [Event, str, str, int, int]] = HOOKS.moment(
    "call-moved",
    "(ev, where, tid, old, idx): a call's id under another index",
)
CALL_ADDED: Moment[Any, [Event, CallHead]] = HOOKS.moment(
    "call-added",
    "(ev, head): a new call's first delta (state.CallHead), before the call is counted",
)
CALL_INTERLEAVED: Moment[Any, [Event, str, int, int]] = HOOKS.moment(
    "call-interleaved",
    "(ev, where, idx, last): the first delta of a choice for an earlier call after another one "
    "started",
)
CALL_CHANGED: Moment[Any, [Event, str, Call, str, str]] = HOOKS.moment(
    "call-changed",
    "(ev, where, call, field, value): a call's id or name changed",
)
CALL_HEAD_REPEATED: Moment[Any, [Event, str, int]] = HOOKS.moment(
    "call-head-repeated",
    "(ev, where, idx): the first later delta of a call that repeats its id or name",
)
ARGUMENTS_RESENT: Moment[Any, [Event, str, int]] = HOOKS.moment(
    "arguments-resent",
    "(ev, where, idx): a call's whole arguments sent again",
)
FINISH: Moment[Any, [Event, int, Choice, Any, Any]] = HOOKS.moment(
    "finish",
    "(ev, pos, choice, delta, fr): a finish chunk, once the choice is finished",
)
ARGUMENTS_TOO_LARGE: Moment[Any, [Choice, Call]] = HOOKS.moment(
    "arguments-too-large",
    "(choice, call): a finished call's arguments over max_arguments",
)
ARGUMENTS_INVALID: Moment[Any, [Choice, Call, str, orjson.JSONDecodeError]] = HOOKS.moment(
    "arguments-invalid",
    "(choice, call, text, exc): a finished call's arguments that are not JSON",
)
END: Moment[Any, []] = HOOKS.moment(
    "end",
    "(): after the last event, and the finished calls' arguments",
)
