"""What the anthropic checker remembers about a stream: the message's progress and the blocks
that are open. Closed blocks are forgotten (their indexes are all below ``next_index``), and
text is never kept: memory does not grow with the stream's length. A tool block's input JSON is
the one thing kept whole, to parse it at its ``content_block_stop``, bounded by
``max_arguments``.
"""

from __future__ import annotations

from sseconform.providers import ANTHROPIC_EVENTS
from sseconform.sse.decoder import Event

#: Every event type of the Messages stream.
EVENT_TYPES = ANTHROPIC_EVENTS | {"error"}

#: Blocks whose input streams as ``input_json_delta`` (the SDKs track these three).
TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

#: Each known block type and the delta types it may receive; the result blocks, redacted
#: thinking and the rest arrive whole in their start and take none.
BLOCK_DELTAS: dict[str, frozenset[str]] = {
    "text": frozenset({"text_delta", "citations_delta"}),
    "thinking": frozenset({"thinking_delta", "signature_delta"}),
    "redacted_thinking": frozenset(),
    "tool_use": frozenset({"input_json_delta"}),
    "server_tool_use": frozenset({"input_json_delta"}),
    "mcp_tool_use": frozenset({"input_json_delta"}),
    "compaction": frozenset({"compaction_delta"}),
    "web_search_tool_result": frozenset(),
    "web_fetch_tool_result": frozenset(),
    "code_execution_tool_result": frozenset(),
    "bash_code_execution_tool_result": frozenset(),
    "text_editor_code_execution_tool_result": frozenset(),
    "tool_search_tool_result": frozenset(),
    "mcp_tool_result": frozenset(),
    "mcp_tool_listing": frozenset(),
    "advisor_tool_result": frozenset(),
    "container_upload": frozenset(),
    "fallback": frozenset(),
}

DELTA_TYPES = frozenset(
    {
        "text_delta",
        "input_json_delta",
        "thinking_delta",
        "signature_delta",
        "citations_delta",
        "compaction_delta",
    }
)

#: The stop reasons of the Messages API.
STOP_REASONS = frozenset(
    {
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "pause_turn",
        "refusal",
        "model_context_window_exceeded",
    }
)


#: Open blocks tracked at once; a stream that opens more without closing them is broken
#: already, and this keeps its state bounded.
MAX_OPEN_BLOCKS = 4096


class Block:
    """One open content block."""

    __slots__ = (
        "deltas",
        "event",
        "index",
        "input_in_start",
        "mismatch_reported",
        "parts",
        "signed",
        "size",
        "tool",
        "type",
    )

    def __init__(self, index: int, type_: str, ev: Event) -> None:
        self.index = index
        self.type = type_
        self.event = ev
        self.tool = type_ in TOOL_BLOCKS
        self.parts: list[str] = []
        self.size = 0
        self.deltas = 0  # input_json_delta events received
        self.input_in_start = False  # the start carried a non-empty input
        self.signed = False  # thinking: a signature arrived (in the start or a delta)
        self.mismatch_reported = False


class StreamState:
    """The message's progress, event by event."""

    __slots__ = (
        "after_end_reported",
        "began",
        "ended",
        "ended_by",
        "next_index",
        "open",
        "output_tokens",
        "pending_cut",
        "start_seen",
        "stop_reason",
    )

    def __init__(self) -> None:
        self.began = False  # the first message event arrived (message_start or not)
        self.start_seen = False  # a message_start arrived
        self.next_index = 0  # the index the next content_block_start should carry
        self.open: dict[int, Block] = {}
        self.stop_reason: str | None = None
        self.output_tokens: int | None = None  # the last cumulative count seen
        self.ended: Event | None = None  # message_stop or the error event
        self.ended_by = ""  # "message_stop" or "error"
        self.after_end_reported = False
        #: A tool block whose input did not parse, held until the stop reason says whether
        #: max_tokens cut it (A036) or not (A013): (its stop event, what to say).
        self.pending_cut: tuple[Event, str] | None = None


def indexes(blocks: dict[int, Block]) -> str:
    """Block indexes as a finding names them: the first ten, and how many more."""
    keys = sorted(blocks)
    shown = ", ".join(str(k) for k in keys[:10])
    return shown + (f" (and {len(keys) - 10} more)" if len(keys) > 10 else "")
