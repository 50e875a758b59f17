"""The moments of a chat stream the chat rules' checks subscribe to.

Each is called with the checker first (``StreamChecker``: its state read through its public
properties; a choice's and a call's state are ``state.Choice`` and ``state.Call``), then what
the moment names. The checker moves the state and decides what a moment is (a call whose
index moved, a chunk after its choice's finish); the rule decides whether and what to
report. Rules that own a place in a frame's schema claim its violations (``HOOKS.claims``,
with the schema's name as the kind). The two frames nearly every long stream is made of (a
content delta, the next arguments fragment) take the template fast path and reach no moment:
they can break no rule.
"""

from sseconform.rules.hooks import Hooks

HOOKS = Hooks(
    "chat",
    {
        "after-done": "(ev): the first event after `data: [DONE]`",
        "event-name": "(ev, name): an `event:` line on chat output",
        "data-after-error": "(ev, err): data, not [DONE], after the error frame err",
        "native-payload": "(ev, what): a provider's native event as the frame",
        "unknown-key": "(ev, key, value, pointer): a key OpenAI does not send, its value, "
        "where it is",
        "head-changed": "(ev, field, new, first, previous): the chunk's id, model or created "
        "differs from the one before (first: the first chunk's)",
        "usage-chunk": "(ev): the usage chunk (usage and no choices)",
        "usage": "(ev, usage, tokens, again): a usage object (tokens: usage.read_usage of "
        "it when it is an object, else None; again: one came before)",
        "usage-with-choices": "(ev): usage on a chunk that has choices",
        "choices-empty": "(ev): `choices: []` on a chunk that is not the usage chunk",
        "choice-added": "(ev, pos, idx, expected): the first chunk of a choice",
        "after-finish": "(ev, pos, choice, fr): a chunk for a choice after its finish chunk",
        "delta": "(ev, pos, choice, delta): a choice's non-empty delta",
        "first-delta": "(ev, choice, delta, fin): a choice's first delta",
        "role-repeated": "(ev, pos, choice): the first later delta of a choice with a role "
        "and content",
        "role-restart": "(ev, pos, choice): a role-only delta after a choice's content began",
        "tool-delta": "(ev, where, tc): a tool-call delta, as sent",
        "call-continued": "(ev, where, idx, call): a head-less fragment under a new index "
        "that continues call (the index moved mid-call)",
        "call-moved": "(ev, where, tid, old, idx): a call's id under another index",
        "call-added": "(ev, head): a new call's first delta (state.CallHead), before the "
        "call is counted",
        "call-interleaved": "(ev, where, idx, last): the first delta of a choice for an "
        "earlier call after another one started",
        "call-changed": "(ev, where, call, field, value): a call's id or name changed",
        "call-head-repeated": "(ev, where, idx): the first later delta of a call that "
        "repeats its id or name",
        "arguments-resent": "(ev, where, idx): a call's whole arguments sent again",
        "finish": "(ev, pos, choice, delta, fr): a finish chunk, once the choice is finished",
        "arguments-too-large": "(choice, call): a finished call's arguments over max_arguments",
        "arguments-invalid": "(choice, call, text, exc): a finished call's arguments that "
        "are not JSON",
        "end": "(): after the last event, and the finished calls' arguments",
    },
)
