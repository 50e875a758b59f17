"""The short streams the rules' docs show as their fix, each written once.

A rule's "How to fix it" shows what a correct stream looks like at the place it is about;
many rules show the same pieces (a text block, the end of a message, a call's first delta),
so the pieces live here and each rule's docs put together the ones it needs. ``...`` stands
for what the fix does not change.
"""

from __future__ import annotations

__all__ = [
    "ARGUMENT_FRAGMENTS",
    "BLOCK_START",
    "BLOCK_STOP",
    "CALL_HEAD",
    "ERROR_THEN_DONE",
    "MESSAGE_END",
    "MESSAGE_START",
    "TEXT_BLOCK",
    "USAGE_COMPLETED",
    "chunk",
    "event",
    "gemini_chunk",
    "text_delta",
]


def event(kind: str, data: str) -> str:
    """An event with its name line, as Anthropic Messages (and Responses) streams carry it."""
    return f"event: {kind}\ndata: {data}\n\n"


def chunk(body: str, head: str = "...") -> str:
    """A chat chunk, its head (id, model, ...) shortened to ``head``."""
    return f"data: {{{head},{body}}}\n\n"


def text_delta(text: str) -> str:
    """A text delta of block 0."""
    return event(
        "content_block_delta",
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"'
        + text
        + '"}}',
    )


# -- Anthropic Messages -----------------------------------------------------------------------

MESSAGE_START = event(
    "message_start",
    '{"type":"message_start","message":{...,"usage":{"input_tokens":12,"output_tokens":1}}}',
)
BLOCK_START = event(
    "content_block_start",
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
)
BLOCK_STOP = event("content_block_stop", '{"type":"content_block_stop","index":0}')
#: A whole text block: its start, one delta, its stop.
TEXT_BLOCK = BLOCK_START + text_delta("Hi") + BLOCK_STOP
#: How a message that answered ends: its stop reason and usage, then message_stop.
MESSAGE_END = event(
    "message_delta",
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},'
    '"usage":{"output_tokens":3}}',
) + event("message_stop", '{"type":"message_stop"}')

# -- chat completion chunks -----------------------------------------------------------------

#: A tool call's first delta: index, id, type and name, and empty arguments.
CALL_HEAD = chunk(
    '"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
    '"function":{"name":"get_weather","arguments":""}}]}'
)
#: A call's arguments in two fragments, each sent once.
ARGUMENT_FRAGMENTS = chunk(
    '"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}'
) + chunk('"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}')
#: How a chat stream whose upstream failed ends: an error frame, then [DONE].
ERROR_THEN_DONE = (
    'data: {"error":{"message":"upstream failed","type":"server_error"}}\n\ndata: [DONE]\n\n'
)

# -- Responses --------------------------------------------------------------------------------

#: A completed response's usage, whose counts add up.
USAGE_COMPLETED = (
    "data: "
    '{"type":"response.completed","response":{"usage":{"input_tokens":12,"output_tokens":9,'
    '"total_tokens":21},...}}\n\n'
)


#: A Gemini chunk's usage, as the docs' examples show it.
GEMINI_USAGE = '{"promptTokenCount":8,"candidatesTokenCount":4,"totalTokenCount":12}'


def gemini_chunk(parts: str, finish: str | None = None, usage: str = GEMINI_USAGE) -> str:
    """A Gemini ``GenerateContentResponse`` chunk of one candidate with ``parts``."""
    end = f',"finishReason":"{finish}"' if finish else ""
    candidate = f'{{"content":{{"parts":[{parts}],"role":"model"}}{end},"index":0}}'
    return f'data: {{"candidates":[{candidate}],"usageMetadata":{usage}}}\n\n'
