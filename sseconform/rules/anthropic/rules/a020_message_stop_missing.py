"""A020 message-stop-missing: The stream ends without message_stop and without an error event."""

from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A020",
    "message-stop-missing",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "The stream ends without message_stop and without an error event.",
    RuleDoc(
        what=(
            "The body ends and neither `message_stop` nor an `error` event came: "
            "the stream was cut (a dropped connection, a gateway timeout)."
        ),
        why=(
            "message_stop is how a client knows the answer is whole; a stream that "
            "just stops is an answer of unknown completeness."
        ),
        clients=(
            "Cut after message_delta: @anthropic-ai/sdk 1.12.0 fails ('stream "
            "ended without producing a Message'), @ai-sdk/anthropic 4.0.105 (ai "
            "7.0.173) finishes with 'interrupted'; anthropic-python 2.12.0 and "
            "Claude Code 2.1.330 accept it. Cut mid-block: @anthropic-ai/sdk "
            "1.12.0 fails, anthropic-python 2.12.0 ends with stop_reason None, "
            "Claude Code 2.1.330 retries the request."
        ),
        example=(
            "event: message_start\n"
            'data: {"type":"message_start","message":{...,"usage":{"input_tokens":1'
            '2,"output_tokens":1}}}\n'
            "\n"
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":0,"content_block":{"type":'
            '"text","text":""}}\n'
            "\n"
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de'
            'lta","text":"Hi"}}\n'
            "\n"
        ),
        fix=(
            "End every stream with message_stop, or with an error event when it fails:\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":0}\n'
            "\n"
            "event: message_delta\n"
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_'
            'sequence":null},"usage":{"output_tokens":3}}\n'
            "\n"
            "event: message_stop\n"
            'data: {"type":"message_stop"}\n'
            "\n"
        ),
    ),
)
