"""The Responses API's stream event names, in one table, by what the checker does with them.

Each streamed string has a ``.delta`` event and a ``.done`` event under one prefix; a hosted
tool's progress events name the item type they are about. The event types with a schema are
the files of ``schemas/responses`` (``checker._schema_names``).
"""

from __future__ import annotations

__all__ = [
    "AUDIO_EVENTS",
    "BODY_EVENTS",
    "JSON_BODIES",
    "LIFECYCLE",
    "TERMINAL",
    "TEXT_EVENTS",
    "TOOL_EVENTS",
]

LIFECYCLE = frozenset({"response.created", "response.queued", "response.in_progress"})
TERMINAL: dict[str, str] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}

#: Text deltas and their ``.done``: event prefix -> (part kind, field of the .done, where).
TEXT_EVENTS: dict[str, tuple[str, str, str]] = {
    "response.output_text": ("output_text", "text", "content"),
    "response.refusal": ("refusal", "refusal", "content"),
    "response.reasoning_text": ("reasoning_text", "text", "content"),
    "response.reasoning_summary_text": ("summary_text", "text", "summary"),
}
#: Item-level streamed strings: event prefix -> (item type, field of the .done).
BODY_EVENTS: dict[str, tuple[str, str]] = {
    "response.function_call_arguments": ("function_call", "arguments"),
    "response.custom_tool_call_input": ("custom_tool_call", "input"),
    "response.mcp_call_arguments": ("mcp_call", "arguments"),
    "response.code_interpreter_call_code": ("code_interpreter_call", "code"),
    "response.apply_patch_call_operation_diff": ("apply_patch_call", "diff"),
}
#: Hosted tools' progress events: event prefix -> the item type they are about.
TOOL_EVENTS: dict[str, str] = {
    "response.file_search_call": "file_search_call",
    "response.web_search_call": "web_search_call",
    "response.code_interpreter_call": "code_interpreter_call",
    "response.image_generation_call": "image_generation_call",
    "response.mcp_call": "mcp_call",
    "response.mcp_list_tools": "mcp_list_tools",
    "response.shell_call_command": "",  # on the shell call or its output item: any type
    "response.shell_call_output_content": "",
    "response.compaction": "compaction",  # .compacting: a compaction item being summarised
}
#: The response's own audio and its transcript (no item, no index): deltas, then one .done.
AUDIO_EVENTS = ("response.audio", "response.audio.transcript")
#: Arguments that must parse as JSON at their ``.done``.
JSON_BODIES = frozenset({"response.function_call_arguments", "response.mcp_call_arguments"})
