"""Stream model: what a chunk stream adds up to for a client (text, reasoning, calls, usage)."""

from sseconform.model.partial import PartialJSON
from sseconform.model.reassemble import ChoiceState, Parts, Reassembler, ToolCallState, reassemble

__all__ = ["ChoiceState", "PartialJSON", "Parts", "Reassembler", "ToolCallState", "reassemble"]
