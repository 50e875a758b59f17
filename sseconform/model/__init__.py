"""Stream model: what a chunk stream adds up to for a client (text, reasoning, calls, usage)."""

from sseconform.model.reassemble import ChoiceState, Reassembler, ToolCallState, reassemble

__all__ = ["ChoiceState", "Reassembler", "ToolCallState", "reassemble"]
