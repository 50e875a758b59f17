"""A004 block-index-out-of-order: A block's index is not the next one (reused or skipped)."""

from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A004",
    "block-index-out-of-order",
    Severity.ERROR,
    BLOCK_ORDER,
    "A block's index is not the next one (reused or skipped).",
    RuleDoc(
        what=(
            "A `content_block_start` whose `index` is not the next in 0, 1, 2, "
            "...: an index used again for a new block, or one that skips ahead."
        ),
        why=(
            "Clients keep the blocks in a list and find a block by its index as "
            "the list position: a reused index overwrites or misroutes, a skipped "
            "one points past the end."
        ),
        clients=(
            "Reused index: anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude "
            "Code all keep the wrong content (the tool call's input lands in the text block, "
            "the text is mixed up). Skipped index: anthropic-python raises IndexError, "
            "@anthropic-ai/sdk drops the text of the later block."
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
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":0,"content_block":{"type":'
            '"tool_use",...}}\n'
            "\n"
        ),
        fix=(
            "Number blocks in order, each its own index:\n"
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":1,"content_block":{"type":'
            '"tool_use",...}}\n'
            "\n"
        ),
    ),
)
