"""Partial JSON: a tool call's arguments read as they arrive, before they are whole (what a
live view shows of a call in flight). What a stream adds up to is each wire's to say
(:mod:`sseconform.wires.reassemble` for chat chunks)."""

from sseconform.model.partial import PartialJSON

__all__ = ["PartialJSON"]
