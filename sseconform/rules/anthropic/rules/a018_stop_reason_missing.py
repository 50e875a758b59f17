"""A018 stop-reason-missing: message_stop with no stop_reason before it."""

from sseconform.rules.anthropic.invariants import STOP_THEN_MESSAGE_STOP
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A018",
    "stop-reason-missing",
    Severity.ERROR,
    STOP_THEN_MESSAGE_STOP,
    "message_stop with no stop_reason before it.",
    RuleDoc(
        what=(
            "`message_stop` arrives and no `message_delta` gave a non-null "
            "`delta.stop_reason` (there was none, or its stop_reason was null)."
        ),
        why=(
            "The stop reason tells the client what to do next: run the tools "
            "(tool_use), continue (max_tokens, pause_turn) or show the answer (end_turn)."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and Claude Code end with stop_reason None; "
            "@ai-sdk/anthropic with finish reason 'other'. Agent loops that wait for tool_use "
            "stall."
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
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":0}\n'
            "\n"
            "event: message_stop\n"
            'data: {"type":"message_stop"}\n'
            "\n"
        ),
        fix=(
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
