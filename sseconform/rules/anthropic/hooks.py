"""The moments of a Messages stream the A rules' checks subscribe to.

Each is called with the checker first (``AnthropicChecker``: its state, ``c.state``, read
only), then what the moment names. The checker moves the message's state (``state.py``) and
decides what a moment is (a block no event started, an event after the end); the rule
decides whether and what to report. Rules that own a place in an event's schema claim its
violations (``HOOKS.claims``).
"""

from sseconform.rules.hooks import Hooks

HOOKS = Hooks(
    "anthropic",
    {
        "done-sentinel": "(ev): a `data: [DONE]`",
        "untyped": "(ev, obj): an object without a string `type` that is a chat chunk",
        "unknown-event": "(ev, kind): an event type the Messages API does not have",
        "event-name": "(ev, name, kind): an `event:` line (name, None when absent) other "
        "than the data's type",
        "after-end": "(ev): the first event (not a ping) after message_stop or an error",
        "begin": "(ev, kind): the first message event",
        "start-again": "(ev): a second message_start",
        "stop-reason": "(ev, reason): a message_delta's stop_reason (a string)",
        "output-tokens": "(ev, out, before): a message_delta's cumulative output_tokens "
        "(before: the last count seen, or None)",
        "message-stop": "(ev): a message_stop, before its open blocks are closed",
        "error": "(ev, obj): an error event (typed `error`, or an object with `error`)",
        "block-start": "(ev, index, block, kind): a content_block_start, before the block "
        "opens (kind: its block's type)",
        "unknown-block": "(ev, index, what): a delta or stop for a block that is not open",
        "unknown-delta": "(ev, kind): a delta type the SDKs do not know",
        "delta-mismatch": "(ev, kind, block): the first delta of a type its block does not take",
        "block-stop": "(ev, block): a content_block_stop of a block that is not a tool's",
        "input-too-large": "(ev, block, what): a tool input over max_arguments, not parsed",
        "input-empty": "(ev, block, what): a tool input that is empty at its stop",
        "input-parsed": "(ev, block, what, value): a tool input that parsed, at its stop",
        "input-invalid": "(ev, said, cut): a tool input that did not parse, once the stop "
        "reason says whether max_tokens cut it",
        "end": "(): after the last event",
    },
)
